//! Walking every expression of a program.

use crate::ir::{Expr, Node, Program};

/// Calls `f` once on every expression of `program`, each parent before its children.
///
/// Backends use it for whole-program facts such as "which buffers are used atomically".
pub fn for_each_expr(program: &Program, mut f: impl FnMut(&Expr)) {
    let mut nodes: Vec<&Node> = program.body.iter().rev().collect();
    let mut exprs: Vec<&Expr> = Vec::new();
    while let Some(node) = nodes.pop() {
        exprs.extend(node.exprs());
        while let Some(expr) = exprs.pop() {
            f(expr);
            exprs.extend(expr.children());
        }
        for body in node.bodies().collect::<Vec<_>>().into_iter().rev() {
            nodes.extend(body.iter().rev());
        }
    }
}
