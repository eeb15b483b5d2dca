//! Walking a program's expressions and bodies in one fixed order, so that facts read from the
//! validated original (each expression's type) apply to the same places of the copy a rewrite
//! changes.
//!
//! Expressions are numbered in pre-order: statement by statement, each statement's expressions in
//! evaluation order ([`Node::exprs`]) before its nested bodies ([`Node::bodies`]), each expression
//! before its operands ([`Expr::children`]). Bodies are numbered the same way, the program's own
//! body first.

use vyre_foundation::ir::{DataType, Expr, Node};
use vyre_foundation::validate::Validated;

/// Every expression of `body`, by number.
pub(super) fn exprs(body: &[Node]) -> Vec<&Expr> {
    fn expr<'a>(e: &'a Expr, out: &mut Vec<&'a Expr>) {
        out.push(e);
        for child in e.children() {
            expr(child, out);
        }
    }
    fn walk<'a>(nodes: &'a [Node], out: &mut Vec<&'a Expr>) {
        for node in nodes {
            for e in node.exprs() {
                expr(e, out);
            }
            for inner in node.bodies() {
                walk(inner, out);
            }
        }
    }
    let mut out = Vec::new();
    walk(body, &mut out);
    out
}

/// The numbers of the operands of every `lid.x / subgroup_size()` in `body`: the one shape the
/// validator knows to be subgroup-uniform (SEMANTICS.md 9a) keeps its operands as they are, since
/// `(lid.x + zero[0u]) / subgroup_size()` is not that shape (a tile operand made of it would no
/// longer validate); the division itself may be rewritten whole.
pub(super) fn subgroup_index_operands(body: &[Node]) -> Vec<usize> {
    let mut out = Vec::new();
    for (k, e) in exprs(body).into_iter().enumerate() {
        if e.is_subgroup_index() {
            // Pre-order: the two leaf operands follow the division.
            out.extend([k + 1, k + 2]);
        }
    }
    out
}

/// The type of every expression of `validated`'s program, by its number.
pub(super) fn expr_types(validated: &Validated<'_>) -> Vec<Option<DataType>> {
    exprs(&validated.program().body)
        .into_iter()
        .map(|e| validated.type_of(e).ok())
        .collect()
}

/// Calls `f(k, e)` on expression number `k` of `body`, after its operands, so that `f` may
/// replace `e` by an expression holding it; the numbers are those of the program before `f`
/// changed anything.
pub(super) fn rewrite_exprs(body: &mut [Node], f: &mut dyn FnMut(usize, &mut Expr)) {
    let mut next = 0;
    rewrite_body(body, f, &mut next);
}

fn rewrite_body(body: &mut [Node], f: &mut dyn FnMut(usize, &mut Expr), next: &mut usize) {
    for node in body {
        for e in node_exprs_mut(node) {
            rewrite_expr(e, f, next);
        }
        for inner in node_bodies_mut(node) {
            rewrite_body(inner, f, next);
        }
    }
}

fn rewrite_expr(e: &mut Expr, f: &mut dyn FnMut(usize, &mut Expr), next: &mut usize) {
    let me = *next;
    *next += 1;
    for child in children_mut(e) {
        rewrite_expr(child, f, next);
    }
    f(me, e);
}

/// The expressions `node` evaluates, in the order of [`Node::exprs`].
fn node_exprs_mut(node: &mut Node) -> Vec<&mut Expr> {
    match node {
        Node::Let { value, .. } | Node::Assign { value, .. } => vec![value],
        Node::Store { index, value, .. } | Node::ArrayStore { index, value, .. } => {
            vec![index, value]
        }
        Node::If { cond, .. } | Node::While { cond, .. } => vec![cond],
        Node::Loop { from, to, .. } => vec![from, to],
        Node::Atomic {
            index,
            expected,
            value,
            ..
        } => {
            let mut out = vec![index];
            out.extend(expected.as_mut());
            out.push(value);
            out
        }
        Node::TileLoad { offset, stride, .. } | Node::TileStore { offset, stride, .. } => {
            vec![offset, stride]
        }
        Node::Block(_)
        | Node::PrivateArray { .. }
        | Node::Tile { .. }
        | Node::TileMultiplyAdd { .. }
        | Node::Barrier
        | Node::Return
        | Node::Break
        | Node::Continue => Vec::new(),
    }
}

/// The nested bodies of `node`, in the order of [`Node::bodies`].
pub(super) fn node_bodies_mut(node: &mut Node) -> Vec<&mut Vec<Node>> {
    match node {
        Node::If {
            then, otherwise, ..
        } => vec![then, otherwise],
        Node::Loop { body, .. } | Node::While { body, .. } | Node::Block(body) => vec![body],
        Node::Let { .. }
        | Node::Assign { .. }
        | Node::Store { .. }
        | Node::PrivateArray { .. }
        | Node::ArrayStore { .. }
        | Node::Tile { .. }
        | Node::TileLoad { .. }
        | Node::TileStore { .. }
        | Node::TileMultiplyAdd { .. }
        | Node::Barrier
        | Node::Return
        | Node::Break
        | Node::Continue
        | Node::Atomic { .. } => Vec::new(),
    }
}

/// The operands of `e`, in the order of [`Expr::children`].
fn children_mut(e: &mut Expr) -> Vec<&mut Expr> {
    match e {
        Expr::Lit(_) | Expr::Var(_) | Expr::BufLen(_) | Expr::Builtin(_) => Vec::new(),
        Expr::Load { index, .. } | Expr::ArrayLoad { index, .. } => vec![index],
        Expr::Binary { lhs, rhs, .. } => vec![lhs, rhs],
        Expr::Unary { arg, .. }
        | Expr::Cast { arg, .. }
        | Expr::Bitcast { arg, .. }
        | Expr::Subgroup { arg, .. } => vec![arg],
        Expr::SubgroupShuffle { value, lane } => vec![value, lane],
        Expr::Select {
            cond,
            on_true,
            on_false,
        } => vec![cond, on_true, on_false],
        Expr::Fma { a, b, c } => vec![a, b, c],
        Expr::Atomic {
            index,
            expected,
            value,
            ..
        } => {
            let mut out = vec![&mut **index];
            out.extend(expected.as_deref_mut());
            out.push(value);
            out
        }
    }
}

/// Every body of `body` (itself first), by number.
pub(super) fn bodies(body: &[Node]) -> Vec<&[Node]> {
    fn collect<'a>(body: &'a [Node], out: &mut Vec<&'a [Node]>) {
        out.push(body);
        for node in body {
            for inner in node.bodies() {
                collect(inner, out);
            }
        }
    }
    let mut out = Vec::new();
    collect(body, &mut out);
    out
}

/// Body number `k` of `body` (numbered as by [`bodies`]), to change.
pub(super) fn body_mut(body: &mut Vec<Node>, k: usize) -> Option<&mut Vec<Node>> {
    fn find<'a>(body: &'a mut Vec<Node>, k: usize, seen: &mut usize) -> Option<&'a mut Vec<Node>> {
        if *seen == k {
            return Some(body);
        }
        *seen += 1;
        for node in body.iter_mut() {
            for inner in node_bodies_mut(node) {
                if let Some(found) = find(inner, k, seen) {
                    return Some(found);
                }
            }
        }
        None
    }
    find(body, k, &mut 0)
}
