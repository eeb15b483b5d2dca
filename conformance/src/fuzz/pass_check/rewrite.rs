//! Rewriting every expression of a program bottom-up: the traversal most small passes (and the
//! planted wrong ones) need, so that a pass is only its rule.

use vyre_foundation::ir::{Expr, Node, Program};

/// `program` with `rule` applied to every expression, operands first: `rule` sees each
/// expression with its operands already rewritten and returns its replacement, or `None` to keep
/// it. Statements are visited in program order, each statement's expressions in evaluation
/// order before its nested bodies.
///
/// ```
/// use vyre_conformance::fuzz::map_exprs;
/// use vyre_foundation::ir::{BinOp, BufferDecl, DataType, Expr, Node, Program};
///
/// let program = Program::new(
///     vec![BufferDecl::output("o", 0, DataType::U32).with_count(4)],
///     [4, 1, 1],
///     vec![Node::store("o", Expr::gid_x(), Expr::add(Expr::gid_x(), Expr::u32(0)))],
/// );
/// // `x + 0u` is `x`.
/// let simpler = map_exprs(&program, &mut |e| match e {
///     Expr::Binary { op: BinOp::Add, lhs, rhs } if **rhs == Expr::u32(0) => Some((**lhs).clone()),
///     _ => None,
/// });
/// assert_eq!(simpler.body, vec![Node::store("o", Expr::gid_x(), Expr::gid_x())]);
/// ```
#[must_use]
pub fn map_exprs(program: &Program, rule: &mut dyn FnMut(&Expr) -> Option<Expr>) -> Program {
    let mut out = program.clone();
    map_body(&mut out.body, rule);
    out
}

/// [`map_exprs`] over one body, in place.
pub(crate) fn map_body(body: &mut [Node], rule: &mut dyn FnMut(&Expr) -> Option<Expr>) {
    for node in body {
        map_node(node, rule);
    }
}

fn map_node(node: &mut Node, rule: &mut dyn FnMut(&Expr) -> Option<Expr>) {
    match node {
        Node::Let { value, .. } | Node::Assign { value, .. } => map_expr(value, rule),
        Node::Store { index, value, .. } | Node::ArrayStore { index, value, .. } => {
            map_expr(index, rule);
            map_expr(value, rule);
        }
        Node::If {
            cond,
            then,
            otherwise,
        } => {
            map_expr(cond, rule);
            map_body(then, rule);
            map_body(otherwise, rule);
        }
        Node::Loop { from, to, body, .. } => {
            map_expr(from, rule);
            map_expr(to, rule);
            map_body(body, rule);
        }
        Node::While { cond, body } => {
            map_expr(cond, rule);
            map_body(body, rule);
        }
        Node::Block(body) => map_body(body, rule),
        Node::Atomic {
            index,
            expected,
            value,
            ..
        } => {
            map_expr(index, rule);
            if let Some(expected) = expected {
                map_expr(expected, rule);
            }
            map_expr(value, rule);
        }
        Node::TileLoad { offset, stride, .. } | Node::TileStore { offset, stride, .. } => {
            map_expr(offset, rule);
            map_expr(stride, rule);
        }
        Node::PrivateArray { .. }
        | Node::Tile { .. }
        | Node::TileMultiplyAdd { .. }
        | Node::Barrier
        | Node::Return
        | Node::Break
        | Node::Continue => {}
    }
}

/// `rule` applied to `e`'s operands, then to `e`, in place.
pub(crate) fn map_expr(e: &mut Expr, rule: &mut dyn FnMut(&Expr) -> Option<Expr>) {
    match e {
        Expr::Lit(_) | Expr::Var(_) | Expr::BufLen(_) | Expr::Builtin(_) => {}
        Expr::Load { index, .. } | Expr::ArrayLoad { index, .. } => map_expr(index, rule),
        Expr::Binary { lhs, rhs, .. } => {
            map_expr(lhs, rule);
            map_expr(rhs, rule);
        }
        Expr::Unary { arg, .. }
        | Expr::Cast { arg, .. }
        | Expr::Bitcast { arg, .. }
        | Expr::Subgroup { arg, .. } => map_expr(arg, rule),
        Expr::SubgroupShuffle { value, lane } => {
            map_expr(value, rule);
            map_expr(lane, rule);
        }
        Expr::Select {
            cond,
            on_true,
            on_false,
        } => {
            map_expr(cond, rule);
            map_expr(on_true, rule);
            map_expr(on_false, rule);
        }
        Expr::Fma { a, b, c } => {
            map_expr(a, rule);
            map_expr(b, rule);
            map_expr(c, rule);
        }
        Expr::Atomic {
            index,
            expected,
            value,
            ..
        } => {
            map_expr(index, rule);
            if let Some(expected) = expected {
                map_expr(expected, rule);
            }
            map_expr(value, rule);
        }
    }
    if let Some(replacement) = rule(e) {
        *e = replacement;
    }
}
