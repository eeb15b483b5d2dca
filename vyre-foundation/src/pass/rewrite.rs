//! Rebuilding a validated program bottom-up: the walk that expression-level passes share.
//!
//! A [`Rewrite`] sees every expression after its children were rewritten, together with the
//! expression of the validated program it stands for, so it can ask the evidence about the
//! original (its type, the types of its operands) while it decides what the new one becomes.
//! Every rewrite keeps an expression's type, so the evidence of an original holds for whatever
//! replaced it. Statements are seen the same way, after their expressions and bodies.
//!
//! Expressions are walked with an explicit stack (a program may nest them as deep as the validator
//! allows); statement bodies recurse, at most [`crate::validate::MAX_NODE_DEPTH`] levels.

use crate::ir::{Expr, Literal, Node, Program};

/// One bottom-up rewrite; see the module docs.
pub(crate) trait Rewrite {
    /// The replacement of `original`, given `rebuilt`: `original` with its children rewritten.
    /// It must have `original`'s type.
    fn expr(&mut self, original: &Expr, rebuilt: Expr) -> Expr;

    /// Pushes the replacement of `original` onto `out`: nothing, `rebuilt` (`original` with its
    /// expressions and bodies rewritten), or other statements.
    fn node(&mut self, original: &Node, rebuilt: Node, out: &mut Vec<Node>) {
        let _ = original;
        out.push(rebuilt);
    }
}

/// `program` with every expression and statement rewritten by `rewrite`.
pub(crate) fn program(program: &Program, rewrite: &mut impl Rewrite) -> Program {
    Program {
        buffers: program.buffers.clone(),
        workgroup_size: program.workgroup_size,
        body: body(&program.body, rewrite),
    }
}

fn body(nodes: &[Node], rewrite: &mut impl Rewrite) -> Vec<Node> {
    let mut out = Vec::with_capacity(nodes.len());
    for node in nodes {
        let rebuilt = statement(node, rewrite);
        rewrite.node(node, rebuilt, &mut out);
    }
    out
}

/// `node` with its expressions and bodies rewritten.
fn statement(node: &Node, r: &mut impl Rewrite) -> Node {
    match node {
        Node::Let { name, value } => Node::Let {
            name: name.clone(),
            value: expr(value, r),
        },
        Node::Assign { name, value } => Node::Assign {
            name: name.clone(),
            value: expr(value, r),
        },
        Node::Store {
            buffer,
            index,
            value,
        } => Node::Store {
            buffer: buffer.clone(),
            index: expr(index, r),
            value: expr(value, r),
        },
        Node::If {
            cond,
            then,
            otherwise,
        } => Node::If {
            cond: expr(cond, r),
            then: body(then, r),
            otherwise: body(otherwise, r),
        },
        Node::Loop {
            var,
            from,
            to,
            body: inner,
        } => Node::Loop {
            var: var.clone(),
            from: expr(from, r),
            to: expr(to, r),
            body: body(inner, r),
        },
        Node::While { cond, body: inner } => Node::While {
            cond: expr(cond, r),
            body: body(inner, r),
        },
        Node::Block(inner) => Node::Block(body(inner, r)),
        Node::Atomic {
            op,
            buffer,
            index,
            expected,
            value,
        } => Node::Atomic {
            op: *op,
            buffer: buffer.clone(),
            index: expr(index, r),
            expected: expected.as_ref().map(|e| expr(e, r)),
            value: expr(value, r),
        },
        Node::Barrier => Node::Barrier,
        Node::Return => Node::Return,
        Node::Break => Node::Break,
        Node::Continue => Node::Continue,
    }
}

/// `root` rewritten bottom-up, children before parents, without recursion.
pub(crate) fn expr(root: &Expr, rewrite: &mut impl Rewrite) -> Expr {
    enum Step<'a> {
        Enter(&'a Expr),
        Exit(&'a Expr),
    }
    let mut steps = vec![Step::Enter(root)];
    let mut done: Vec<Expr> = Vec::new();
    while let Some(step) = steps.pop() {
        match step {
            Step::Enter(e) => {
                steps.push(Step::Exit(e));
                let children: Vec<&Expr> = e.children().collect();
                steps.extend(children.into_iter().rev().map(Step::Enter));
            }
            Step::Exit(e) => {
                let count = e.children().count();
                let children = done.split_off(done.len().saturating_sub(count));
                let rebuilt = with_children(e, children);
                done.push(rewrite.expr(e, rebuilt));
            }
        }
    }
    // The walk leaves exactly the root's replacement; the fallback only keeps this total.
    done.pop().unwrap_or_else(|| root.clone())
}

/// A copy of `e` whose children are `children`, in [`Expr::children`] order.
fn with_children(e: &Expr, children: Vec<Expr>) -> Expr {
    let mut children = children.into_iter().map(Box::new);
    // `children` holds exactly as many expressions as `e` has children; the placeholder keeps the
    // function total without a panic.
    let mut next = || {
        children
            .next()
            .unwrap_or_else(|| Box::new(Expr::Lit(Literal::Bool(false))))
    };
    match e {
        Expr::Lit(_) | Expr::Var(_) | Expr::BufLen(_) | Expr::Builtin(_) => e.clone(),
        Expr::Load { buffer, .. } => Expr::Load {
            buffer: buffer.clone(),
            index: next(),
        },
        Expr::Binary { op, .. } => Expr::Binary {
            op: *op,
            lhs: next(),
            rhs: next(),
        },
        Expr::Unary { op, .. } => Expr::Unary {
            op: *op,
            arg: next(),
        },
        Expr::Select { .. } => Expr::Select {
            cond: next(),
            on_true: next(),
            on_false: next(),
        },
        Expr::Cast { to, .. } => Expr::Cast {
            to: *to,
            arg: next(),
        },
        Expr::Bitcast { to, .. } => Expr::Bitcast {
            to: *to,
            arg: next(),
        },
        Expr::Fma { .. } => Expr::Fma {
            a: next(),
            b: next(),
            c: next(),
        },
        Expr::Atomic {
            op,
            buffer,
            expected,
            ..
        } => {
            let index = next();
            let expected = expected.as_ref().map(|_| next());
            Expr::Atomic {
                op: *op,
                buffer: buffer.clone(),
                index,
                expected,
                value: next(),
            }
        }
        Expr::Subgroup { op, .. } => Expr::Subgroup {
            op: *op,
            arg: next(),
        },
        Expr::SubgroupShuffle { .. } => Expr::SubgroupShuffle {
            value: next(),
            lane: next(),
        },
    }
}

/// Moves the expression out of `slot`, leaving a placeholder: how a rewrite takes the operands
/// of a rebuilt expression it owns (`Expr` has a `Drop`, so it cannot be destructured by move).
pub(crate) fn take(slot: &mut Box<Expr>) -> Expr {
    std::mem::replace(&mut **slot, Expr::Lit(Literal::Bool(false)))
}

/// Whether `e` evaluates to the same value every time it is evaluated within one expression, and
/// evaluating it has no effect: no atomic, and no load of a buffer that an atomic updates (such a
/// load is an atomic load, which other invocations' atomics may change between two evaluations).
pub(crate) fn stable(e: &Expr, program: &Program, atomic_buffers: &[bool]) -> bool {
    let mut ok = true;
    crate::for_each_subexpr(e, |sub| match sub {
        Expr::Atomic { .. } => ok = false,
        Expr::Load { buffer, .. } => {
            let atomic = program
                .buffer_index(buffer)
                .is_none_or(|i| atomic_buffers.get(i).copied().unwrap_or(true));
            if atomic {
                ok = false;
            }
        }
        Expr::Lit(_)
        | Expr::Var(_)
        | Expr::BufLen(_)
        | Expr::Builtin(_)
        | Expr::Binary { .. }
        | Expr::Unary { .. }
        | Expr::Select { .. }
        | Expr::Cast { .. }
        | Expr::Bitcast { .. }
        | Expr::Fma { .. }
        | Expr::Subgroup { .. }
        | Expr::SubgroupShuffle { .. } => {}
    });
    ok
}
