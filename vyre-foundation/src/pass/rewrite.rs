//! Rebuilding a validated program bottom-up: the walk that expression-level passes share.
//!
//! A [`Rewrite`] sees every expression after its children were rewritten, together with the
//! expression of the validated program it stands for, so it can ask the evidence about the
//! original (its type, the types of its operands) while it decides what the new one becomes.
//! Every rewrite keeps an expression's type, so the evidence of an original holds for whatever
//! replaced it. Statements are seen the same way, after their expressions and bodies.
//!
//! Expressions are walked recursively near their root and with an explicit stack below
//! [`RECURSION_LIMIT`] levels (a program may nest them as deep as the validator allows, and a pass
//! may run on a thread with a small stack); statement bodies recurse, at most
//! [`crate::validate::MAX_NODE_DEPTH`] levels.

use smallvec::SmallVec;

use crate::ir::{Expr, Literal, Node, Program};
use crate::pass::edit::keep_or_replace;

/// One bottom-up rewrite; see the module docs.
///
/// The walk copies only what changes: an expression or statement none of whose parts changed is
/// offered to the rewrite as `None` (it is the original), and a rewrite that leaves an original
/// alone answers `None` as well, so a program the rewrite does not touch is read once and never
/// copied.
pub(crate) trait Rewrite {
    /// The replacement of `original`, given `rebuilt`: `original` with its children rewritten,
    /// `None` when no child changed. `None` keeps `original`, and is allowed only when `rebuilt`
    /// is `None` (return `rebuilt` to keep it). The replacement must have `original`'s type.
    fn expr(&mut self, original: &Expr, rebuilt: Option<Expr>) -> Option<Expr>;

    /// Pushes onto `out` what `original` becomes and returns true, given `rebuilt` (`original`
    /// with its expressions and bodies rewritten, `None` when none changed): nothing, `rebuilt`,
    /// or other statements. False, with nothing pushed, keeps `original`; allowed only when
    /// `rebuilt` is `None`.
    fn node(&mut self, original: &Node, rebuilt: Option<Node>, out: &mut Vec<Node>) -> bool {
        let _ = original;
        push(rebuilt, out)
    }
}

/// Pushes `rebuilt` onto `out` if there is one: [`Rewrite::node`] for a statement the rewrite
/// leaves as its parts made it.
pub(crate) fn push(rebuilt: Option<Node>, out: &mut Vec<Node>) -> bool {
    match rebuilt {
        Some(node) => {
            out.push(node);
            true
        }
        None => false,
    }
}

/// `program` with every expression and statement rewritten by `rewrite`; `None` when nothing
/// changed.
pub(crate) fn program(program: &Program, rewrite: &mut impl Rewrite) -> Option<Program> {
    let body = body(&program.body, rewrite)?;
    Some(Program {
        buffers: program.buffers.clone(),
        workgroup_size: program.workgroup_size,
        body,
    })
}

/// `nodes` rewritten, or `None` when no statement changed.
fn body(nodes: &[Node], rewrite: &mut impl Rewrite) -> Option<Vec<Node>> {
    // Built only from the first statement that changes: the ones before it are copied then.
    let mut out: Option<Vec<Node>> = None;
    let mut replaced = Vec::new();
    for (i, node) in nodes.iter().enumerate() {
        let rebuilt = statement(node, rewrite);
        replaced.clear();
        let changed = rewrite.node(node, rebuilt, &mut replaced);
        keep_or_replace(&mut out, nodes, i, changed, &mut replaced);
    }
    out
}

/// `node` with its expressions and bodies rewritten, or `None` when none of them changed.
fn statement(node: &Node, r: &mut impl Rewrite) -> Option<Node> {
    // Each part rewritten, and the original kept where it did not change.
    fn keep<T: Clone>(new: Option<T>, old: &T) -> T {
        new.unwrap_or_else(|| old.clone())
    }
    match node {
        Node::Let { name, value } => expr(value, r).map(|value| Node::Let {
            name: name.clone(),
            value,
        }),
        Node::Assign { name, value } => expr(value, r).map(|value| Node::Assign {
            name: name.clone(),
            value,
        }),
        Node::Store {
            buffer,
            index,
            value,
        } => {
            let (i, v) = (expr(index, r), expr(value, r));
            (i.is_some() || v.is_some()).then(|| Node::Store {
                buffer: buffer.clone(),
                index: keep(i, index),
                value: keep(v, value),
            })
        }
        Node::ArrayStore {
            array,
            index,
            value,
        } => {
            let (i, v) = (expr(index, r), expr(value, r));
            (i.is_some() || v.is_some()).then(|| Node::ArrayStore {
                array: array.clone(),
                index: keep(i, index),
                value: keep(v, value),
            })
        }
        Node::TileLoad {
            tile,
            buffer,
            offset,
            stride,
            layout,
        }
        | Node::TileStore {
            tile,
            buffer,
            offset,
            stride,
            layout,
        } => {
            let (o, s) = (expr(offset, r), expr(stride, r));
            (o.is_some() || s.is_some()).then(|| {
                let (offset, stride) = (keep(o, offset), keep(s, stride));
                if matches!(node, Node::TileLoad { .. }) {
                    Node::tile_load(tile.clone(), buffer.clone(), offset, stride, *layout)
                } else {
                    Node::tile_store(tile.clone(), buffer.clone(), offset, stride, *layout)
                }
            })
        }
        Node::PrivateArray { .. } | Node::Tile { .. } | Node::TileMultiplyAdd { .. } => None,
        Node::If {
            cond,
            then,
            otherwise,
        } => {
            let (c, t, o) = (expr(cond, r), body(then, r), body(otherwise, r));
            (c.is_some() || t.is_some() || o.is_some()).then(|| Node::If {
                cond: keep(c, cond),
                then: keep(t, then),
                otherwise: keep(o, otherwise),
            })
        }
        Node::Loop {
            var,
            from,
            to,
            body: inner,
        } => {
            let (f, t, b) = (expr(from, r), expr(to, r), body(inner, r));
            (f.is_some() || t.is_some() || b.is_some()).then(|| Node::Loop {
                var: var.clone(),
                from: keep(f, from),
                to: keep(t, to),
                body: keep(b, inner),
            })
        }
        Node::While { cond, body: inner } => {
            let (c, b) = (expr(cond, r), body(inner, r));
            (c.is_some() || b.is_some()).then(|| Node::While {
                cond: keep(c, cond),
                body: keep(b, inner),
            })
        }
        Node::Block(inner) => body(inner, r).map(Node::Block),
        Node::Atomic {
            op,
            buffer,
            index,
            expected,
            value,
        } => atomic_operands(index, expected.as_ref(), value, |e| expr(e, r)).map(
            |(index, expected, value)| Node::Atomic {
                op: *op,
                buffer: buffer.clone(),
                index,
                expected,
                value,
            },
        ),
        Node::Barrier | Node::Return | Node::Break | Node::Continue => None,
    }
}

/// `e` rewritten bottom-up, children before parents, left to right; `None` when nothing in it
/// changed.
pub(crate) fn expr(e: &Expr, r: &mut impl Rewrite) -> Option<Expr> {
    expr_at(e, r, 0)
}

/// How deep [`expr`] recurses before it rewrites the rest of a subtree with a stack of its own:
/// recursion is cheapest for the shallow expressions of real programs (the explicit stack of
/// `Enter`/`Exit` steps cost `const_fold` 40% and `strength_reduce` half of their instructions on
/// the bench's unchanged 10-op chain, valgrind), and the stack
/// keeps a pass safe on a thread with a small stack however deep a valid expression is.
const RECURSION_LIMIT: usize = 24;

/// [`expr`] of `e`, `depth` levels below where the walk started.
fn expr_at(e: &Expr, r: &mut impl Rewrite, depth: usize) -> Option<Expr> {
    // A child rewritten, or `None` where it did not change.
    fn keep(new: Option<Expr>, old: &Expr) -> Box<Expr> {
        Box::new(new.unwrap_or_else(|| old.clone()))
    }
    if depth >= RECURSION_LIMIT {
        return expr_stacked(e, r);
    }
    let expr = |child: &Expr, r: &mut _| expr_at(child, r, depth + 1);
    let rebuilt = match e {
        Expr::Lit(_) | Expr::Var(_) | Expr::BufLen(_) | Expr::Builtin(_) => None,
        Expr::Load { buffer, index } => expr(index, r).map(|i| Expr::Load {
            buffer: buffer.clone(),
            index: Box::new(i),
        }),
        Expr::ArrayLoad { array, index } => expr(index, r).map(|i| Expr::ArrayLoad {
            array: array.clone(),
            index: Box::new(i),
        }),
        Expr::Binary { op, lhs, rhs } => {
            let (l, rr) = (expr(lhs, r), expr(rhs, r));
            (l.is_some() || rr.is_some()).then(|| Expr::Binary {
                op: *op,
                lhs: keep(l, lhs),
                rhs: keep(rr, rhs),
            })
        }
        Expr::Unary { op, arg } => expr(arg, r).map(|a| Expr::Unary {
            op: *op,
            arg: Box::new(a),
        }),
        Expr::Select {
            cond,
            on_true,
            on_false,
        } => {
            let (c, t, f) = (expr(cond, r), expr(on_true, r), expr(on_false, r));
            (c.is_some() || t.is_some() || f.is_some()).then(|| Expr::Select {
                cond: keep(c, cond),
                on_true: keep(t, on_true),
                on_false: keep(f, on_false),
            })
        }
        Expr::Cast { to, arg } => expr(arg, r).map(|a| Expr::Cast {
            to: *to,
            arg: Box::new(a),
        }),
        Expr::Bitcast { to, arg } => expr(arg, r).map(|a| Expr::Bitcast {
            to: *to,
            arg: Box::new(a),
        }),
        Expr::Fma { a, b, c } => {
            let (x, y, z) = (expr(a, r), expr(b, r), expr(c, r));
            (x.is_some() || y.is_some() || z.is_some()).then(|| Expr::Fma {
                a: keep(x, a),
                b: keep(y, b),
                c: keep(z, c),
            })
        }
        Expr::Atomic {
            op,
            buffer,
            index,
            expected,
            value,
        } => atomic_operands(index, expected.as_deref(), value, |e| expr(e, r)).map(
            |(index, expected, value)| Expr::Atomic {
                op: *op,
                buffer: buffer.clone(),
                index: Box::new(index),
                expected: expected.map(Box::new),
                value: Box::new(value),
            },
        ),
        Expr::Subgroup { op, arg } => expr(arg, r).map(|a| Expr::Subgroup {
            op: *op,
            arg: Box::new(a),
        }),
        Expr::SubgroupShuffle { value, lane } => {
            let (v, l) = (expr(value, r), expr(lane, r));
            (v.is_some() || l.is_some()).then(|| Expr::SubgroupShuffle {
                value: keep(v, value),
                lane: keep(l, lane),
            })
        }
    };
    r.expr(e, rebuilt)
}

/// The operands of an atomic (a statement or an expression) rewritten by `rewrite`, each kept where
/// it did not change; `None` when none changed.
fn atomic_operands(
    index: &Expr,
    expected: Option<&Expr>,
    value: &Expr,
    mut rewrite: impl FnMut(&Expr) -> Option<Expr>,
) -> Option<(Expr, Option<Expr>, Expr)> {
    let i = rewrite(index);
    let x = expected.map(&mut rewrite);
    let v = rewrite(value);
    let x_changed = x.as_ref().is_some_and(Option::is_some);
    if !(i.is_some() || x_changed || v.is_some()) {
        return None;
    }
    let keep = |new: Option<Expr>, old: &Expr| new.unwrap_or_else(|| old.clone());
    Some((
        keep(i, index),
        expected.map(|old| keep(x.flatten(), old)),
        keep(v, value),
    ))
}

/// [`expr`] without recursion, in the same order, for subtrees past [`RECURSION_LIMIT`].
fn expr_stacked(root: &Expr, rewrite: &mut impl Rewrite) -> Option<Expr> {
    enum Step<'a> {
        Enter(&'a Expr),
        Exit(&'a Expr),
    }
    // Inline stacks: most expressions never spill them, and this walk runs per pass.
    let mut steps: SmallVec<[Step<'_>; 32]> = SmallVec::new();
    steps.push(Step::Enter(root));
    // The replacement of each finished expression whose parent is not finished yet, in order;
    // `None` for one that did not change.
    let mut done: SmallVec<[Option<Expr>; 16]> = SmallVec::new();
    while let Some(step) = steps.pop() {
        match step {
            Step::Enter(e) => {
                steps.push(Step::Exit(e));
                let first = steps.len();
                steps.extend(e.children().map(Step::Enter));
                steps[first..].reverse();
            }
            Step::Exit(e) => {
                let first = done.len().saturating_sub(e.children().count());
                let rebuilt = if done[first..].iter().any(Option::is_some) {
                    Some(with_children(e, done.drain(first..)))
                } else {
                    done.truncate(first);
                    None
                };
                done.push(rewrite.expr(e, rebuilt));
            }
        }
    }
    // The walk leaves exactly the root's replacement.
    done.pop().flatten()
}

/// A copy of `e` whose children are `children` (in [`Expr::children`] order; `None` keeps that
/// child of `e`).
fn with_children(e: &Expr, children: impl Iterator<Item = Option<Expr>>) -> Expr {
    let mut children = e
        .children()
        .zip(children)
        .map(|(old, new)| Box::new(new.unwrap_or_else(|| old.clone())));
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
        Expr::ArrayLoad { array, .. } => Expr::ArrayLoad {
            array: array.clone(),
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
        // Nothing writes a private array within one expression.
        Expr::Lit(_)
        | Expr::Var(_)
        | Expr::ArrayLoad { .. }
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
