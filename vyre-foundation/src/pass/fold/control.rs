//! Statements whose control flow a literal decides (SEMANTICS.md section 2).
//!
//! - `if true { a } else { b }` runs `a`, `if false` runs `b`: the condition is a literal, whose
//!   evaluation has no effect, so the statement becomes the chosen body. The body keeps its own
//!   scope (a `Block`) when it declares a variable at its top level, since a `let` spliced into
//!   the enclosing body could clash with a later `let` of the same name there; otherwise its
//!   statements take the `if`'s place. `break`, `continue` and `return` in it still leave the
//!   same loop or invocation: an `if` is not a loop.
//! - `while false { .. }` evaluates its condition once and runs nothing.
//! - `for v in from..to` with literal bounds and `from >= to` (compared in the loop's type, so
//!   signed for `i32`) runs no iteration; its bounds are literals, with no effect.
//!
//! Removing or unwrapping these never makes control flow less uniform: a literal condition is
//! uniform, so the bodies were exactly as uniform as the statements around them.

use super::int::Int;
use crate::ir::{Expr, Literal, Node};
use crate::pass::edit::splice_or_block;

/// Pushes onto `out` what `node` becomes when a literal decides its control flow, and returns
/// true; otherwise pushes nothing and returns false.
pub(super) fn statement(node: &Node, out: &mut Vec<Node>) -> bool {
    match node {
        Node::If {
            cond: Expr::Lit(Literal::Bool(c)),
            then,
            otherwise,
        } => {
            splice_or_block(if *c { then } else { otherwise }.to_vec(), out);
            true
        }
        Node::While {
            cond: Expr::Lit(Literal::Bool(false)),
            ..
        } => true,
        Node::Loop {
            from: Expr::Lit(from),
            to: Expr::Lit(to),
            ..
        } if empty_range(*from, *to) => true,
        Node::Let { .. }
        | Node::Assign { .. }
        | Node::Store { .. }
        | Node::PrivateArray { .. }
        | Node::ArrayStore { .. }
        | Node::Tile { .. }
        | Node::TileLoad { .. }
        | Node::TileStore { .. }
        | Node::TileMultiplyAdd { .. }
        | Node::If { .. }
        | Node::Loop { .. }
        | Node::Block(_)
        | Node::Barrier
        | Node::Return
        | Node::While { .. }
        | Node::Break
        | Node::Continue
        | Node::Atomic { .. } => false,
    }
}

/// Whether a counted loop from `from` to `to` runs no iteration.
fn empty_range(from: Literal, to: Literal) -> bool {
    match (Int::of(from), Int::of(to)) {
        (Some(a), Some(b)) => a.ty == b.ty && a.value >= b.value,
        (Some(_), None) | (None, Some(_)) | (None, None) => false,
    }
}
