//! Walking a program's statements and expressions: the one place the IR's tree is traversed for
//! whole-program facts, iteratively (a program nested as deep as the validator allows walks without
//! deep recursion).

use smallvec::SmallVec;

use crate::ir::{Expr, Node, Program};

/// Calls `f` once on every expression of `program`, each parent before its children.
///
/// Backends use it for whole-program facts such as "which buffers are used atomically".
///
/// ```
/// use vyre_foundation::ir::{BufferDecl, DataType, Expr, Node, Program};
///
/// let program = Program::new(
///     vec![BufferDecl::output("out", 0, DataType::U32).with_count(4)],
///     [4, 1, 1],
///     vec![Node::store("out", Expr::gid_x(), Expr::add(Expr::gid_x(), Expr::u32(1)))],
/// );
/// let mut count = 0;
/// vyre_foundation::for_each_expr(&program, |_| count += 1);
/// assert_eq!(count, 4); // the index, the sum and its two operands
/// ```
pub fn for_each_expr<'a>(program: &'a Program, mut f: impl FnMut(&'a Expr)) {
    for_each_node(&program.body, |node| {
        for expr in node.exprs() {
            for_each_subexpr(expr, &mut f);
        }
    });
}

/// Calls `f` once on every statement of `body` and of the bodies nested in it, each parent before
/// its children and siblings in program order.
///
/// ```
/// use vyre_foundation::ir::{Expr, Node};
///
/// let body = vec![
///     Node::if_then(Expr::bool(true), vec![Node::barrier()]),
///     Node::return_(),
/// ];
/// let mut kinds = Vec::new();
/// vyre_foundation::for_each_node(&body, |node| kinds.push(matches!(node, Node::If { .. })));
/// assert_eq!(kinds, [true, false, false]); // the `if`, its barrier, the `return`
/// ```
pub fn for_each_node<'a>(body: &'a [Node], mut f: impl FnMut(&'a Node)) {
    // Inline stacks: a walk is done per program and per pass, and most programs never spill.
    let mut stack: SmallVec<[&Node; 32]> = body.iter().rev().collect();
    while let Some(node) = stack.pop() {
        f(node);
        // The nested bodies' statements in program order, then reversed: the first on top.
        let first = stack.len();
        for inner in node.bodies() {
            for statement in inner {
                stack.push(statement);
            }
        }
        stack[first..].reverse();
    }
}

/// Calls `f` once on `expr` and on every expression below it, each parent before its children.
///
/// ```
/// use vyre_foundation::ir::Expr;
///
/// let sum = Expr::add(Expr::u32(1), Expr::mul(Expr::u32(2), Expr::u32(3)));
/// let mut literals = 0;
/// vyre_foundation::for_each_subexpr(&sum, |e| literals += usize::from(matches!(e, Expr::Lit(_))));
/// assert_eq!(literals, 3);
/// ```
pub fn for_each_subexpr<'a>(expr: &'a Expr, mut f: impl FnMut(&'a Expr)) {
    subexprs(expr, &mut f, 0);
}

/// How deep [`for_each_subexpr`] recurses before it walks the rest of a subtree with a stack of its
/// own: recursion is cheapest for the shallow expressions of real programs (the stack walk cost
/// the standard pass pipeline about 6% more instructions on the bench's 10-op chain, valgrind), and
/// the stack keeps any depth safe, validated or not.
const RECURSION_LIMIT: usize = 48;

/// `f` on `e` and everything below it: the parent first, then its children's subtrees last child
/// first (the order of a stack that pushes the children in order).
fn subexprs<'a>(e: &'a Expr, f: &mut impl FnMut(&'a Expr), depth: usize) {
    if depth >= RECURSION_LIMIT {
        return subexprs_stacked(e, f);
    }
    f(e);
    let depth = depth + 1;
    match e {
        Expr::Lit(_) | Expr::Var(_) | Expr::BufLen(_) | Expr::Builtin(_) => {}
        Expr::Load { index: one, .. }
        | Expr::ArrayLoad { index: one, .. }
        | Expr::Unary { arg: one, .. }
        | Expr::Cast { arg: one, .. }
        | Expr::Bitcast { arg: one, .. }
        | Expr::Subgroup { arg: one, .. } => subexprs(one, f, depth),
        Expr::Binary {
            lhs: first,
            rhs: second,
            ..
        }
        | Expr::SubgroupShuffle {
            value: first,
            lane: second,
        } => {
            subexprs(second, f, depth);
            subexprs(first, f, depth);
        }
        Expr::Select {
            cond: first,
            on_true: second,
            on_false: third,
        }
        | Expr::Fma {
            a: first,
            b: second,
            c: third,
        } => {
            subexprs(third, f, depth);
            subexprs(second, f, depth);
            subexprs(first, f, depth);
        }
        Expr::Atomic {
            index,
            expected,
            value,
            ..
        } => {
            subexprs(value, f, depth);
            if let Some(expected) = expected {
                subexprs(expected, f, depth);
            }
            subexprs(index, f, depth);
        }
    }
}

/// [`subexprs`] without recursion, in the same order, for subtrees past [`RECURSION_LIMIT`].
fn subexprs_stacked<'a>(expr: &'a Expr, f: &mut impl FnMut(&'a Expr)) {
    let mut stack: SmallVec<[&Expr; 32]> = SmallVec::new();
    stack.push(expr);
    while let Some(e) = stack.pop() {
        f(e);
        // One push per child: `SmallVec::extend` over this iterator cost 8% more instructions
        // in the pass pipeline (valgrind).
        for child in e.children() {
            stack.push(child);
        }
    }
}
