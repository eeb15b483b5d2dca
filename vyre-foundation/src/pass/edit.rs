//! Changing a program in place: mutable access to the parts of statements and expressions, and
//! fresh variable names that cannot collide with any name of the program.

use std::collections::BTreeSet;

use crate::ir::{Expr, Node, Program};
use crate::{for_each_expr, for_each_node};

/// The expressions `node` evaluates directly, in evaluation order (as [`Node::exprs`]).
pub(super) fn node_exprs_mut(node: &mut Node) -> Vec<&mut Expr> {
    match node {
        Node::Let { value, .. } | Node::Assign { value, .. } => vec![value],
        Node::Store { index, value, .. } | Node::ArrayStore { index, value, .. } => {
            vec![index, value]
        }
        Node::TileLoad { offset, stride, .. } | Node::TileStore { offset, stride, .. } => {
            vec![offset, stride]
        }
        Node::If { cond, .. } | Node::While { cond, .. } => vec![cond],
        Node::Loop { from, to, .. } => vec![from, to],
        Node::Atomic {
            index,
            expected,
            value,
            ..
        } => match expected {
            Some(expected) => vec![index, expected, value],
            None => vec![index, value],
        },
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

/// The bodies nested directly in `node` (`then` before `otherwise`).
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

/// The direct operands of `expr`, in evaluation order (as [`Expr::children`]).
pub(super) fn children_mut(expr: &mut Expr) -> Vec<&mut Expr> {
    match expr {
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
        } => match expected {
            Some(expected) => vec![index, expected, value],
            None => vec![index, value],
        },
    }
}

/// Calls `f` on every expression of `body` and of its nested bodies in program order (a
/// statement's expressions in evaluation order, then its bodies), each expression before its
/// operands; `f` returns false to leave the operands of the expression it was given alone (for
/// instance because it replaced it).
pub(super) fn rewrite_exprs(body: &mut [Node], f: &mut impl FnMut(&mut Expr) -> bool) {
    for node in body {
        let (mut exprs, mut bodies) = (Vec::new(), Vec::new());
        split_node_mut(node, &mut exprs, &mut bodies);
        for expr in exprs {
            rewrite_expr(expr, f);
        }
        for inner in bodies {
            rewrite_exprs(inner, f);
        }
    }
}

/// Splits `node` into its expressions and its bodies, both borrowed mutably at once.
fn split_node_mut<'a>(
    node: &'a mut Node,
    exprs: &mut Vec<&'a mut Expr>,
    bodies: &mut Vec<&'a mut Vec<Node>>,
) {
    match node {
        Node::If {
            cond,
            then,
            otherwise,
        } => {
            exprs.push(cond);
            bodies.push(then);
            bodies.push(otherwise);
        }
        Node::Loop { from, to, body, .. } => {
            exprs.push(from);
            exprs.push(to);
            bodies.push(body);
        }
        Node::While { cond, body } => {
            exprs.push(cond);
            bodies.push(body);
        }
        Node::Block(body) => bodies.push(body),
        Node::Let { .. }
        | Node::Assign { .. }
        | Node::Store { .. }
        | Node::PrivateArray { .. }
        | Node::ArrayStore { .. }
        | Node::Tile { .. }
        | Node::TileLoad { .. }
        | Node::TileStore { .. }
        | Node::TileMultiplyAdd { .. }
        | Node::Atomic { .. }
        | Node::Barrier
        | Node::Return
        | Node::Break
        | Node::Continue => exprs.extend(node_exprs_mut(node)),
    }
}

/// Calls `f` on `expr` and every expression below it in pre-order (each parent before its
/// children, operands left to right), skipping
/// the children of those for which `f` returns false.
pub(super) fn rewrite_expr(expr: &mut Expr, f: &mut impl FnMut(&mut Expr) -> bool) {
    let mut stack = vec![expr];
    while let Some(e) = stack.pop() {
        if f(e) {
            // Reversed, so that the first operand is the next one popped.
            stack.extend(children_mut(e).into_iter().rev());
        }
    }
}

/// Replaces every `Var(name)` in `body` (nested bodies included) by `with`.
pub(super) fn substitute_var(body: &mut [Node], name: &str, with: &Expr) {
    rewrite_exprs(body, &mut |e| {
        if matches!(e, Expr::Var(v) if v == name) {
            *e = with.clone();
        }
        true
    });
}

/// One step of rewriting `body` statement by statement, copying only from the first change: the
/// statement `body[i]` is kept when `changed` is false, else replaced by `replaced` (drained).
/// `out` stays `None` while every statement so far was kept.
pub(super) fn keep_or_replace(
    out: &mut Option<Vec<Node>>,
    body: &[Node],
    i: usize,
    changed: bool,
    replaced: &mut Vec<Node>,
) {
    match (out.as_mut(), changed) {
        (Some(out), false) => out.push(body[i].clone()),
        (Some(out), true) => out.append(replaced),
        (None, true) => {
            let mut fresh = Vec::with_capacity(body.len());
            fresh.extend_from_slice(&body[..i]);
            fresh.append(replaced);
            *out = Some(fresh);
        }
        (None, false) => {}
    }
}

/// True for a statement that declares a name in the rest of its body: a `let` or a private array.
pub(super) fn declares(node: &Node) -> bool {
    matches!(
        node,
        Node::Let { .. } | Node::PrivateArray { .. } | Node::Tile { .. }
    )
}

/// Appends `body` to `out` as it is when it declares no variable, private array or tile at its top
/// level (a block only scopes names, so without one it changes nothing), else as one block.
pub(super) fn splice_or_block(body: Vec<Node>, out: &mut Vec<Node>) {
    if body.iter().any(declares) {
        out.push(Node::Block(body));
    } else {
        out.extend(body);
    }
}

/// Variable names that no variable or buffer of a program uses: `{prefix}{n}` for the smallest
/// free numbers. Every name a program mentions is taken, wherever its scope is, so a fresh `let`
/// may go anywhere without shadowing a variable (which the validator refuses).
#[derive(Debug)]
pub(super) struct FreshNames {
    taken: BTreeSet<String>,
    prefix: &'static str,
    next: u64,
}

impl FreshNames {
    /// Names starting with `prefix` (an identifier) that `program` does not use.
    pub(super) fn new(program: &Program, prefix: &'static str) -> Self {
        let mut taken: BTreeSet<String> = program.buffers.iter().map(|b| b.name.clone()).collect();
        for_each_node(&program.body, |node| match node {
            Node::Let { name, .. }
            | Node::Assign { name, .. }
            | Node::Loop { var: name, .. }
            | Node::PrivateArray { name, .. } => {
                taken.insert(name.clone());
            }
            Node::Store { .. }
            | Node::ArrayStore { .. }
            | Node::Tile { .. }
            | Node::TileLoad { .. }
            | Node::TileStore { .. }
            | Node::TileMultiplyAdd { .. }
            | Node::If { .. }
            | Node::Block(_)
            | Node::Barrier
            | Node::Return
            | Node::While { .. }
            | Node::Break
            | Node::Continue
            | Node::Atomic { .. } => {}
        });
        for_each_expr(program, |e| {
            if let Expr::Var(name) = e {
                taken.insert(name.clone());
            }
        });
        Self {
            taken,
            prefix,
            next: 0,
        }
    }

    /// A name no variable or buffer of the program uses and that this generator has not given out.
    pub(super) fn fresh(&mut self) -> String {
        loop {
            let name = format!("{}{}", self.prefix, self.next);
            self.next += 1;
            if self.taken.insert(name.clone()) {
                return name;
            }
        }
    }
}
