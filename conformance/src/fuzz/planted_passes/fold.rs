//! A constant folder that wraps the wrong way.

use vyre_foundation::ir::{BinOp, Expr, Literal, Program};

use crate::fuzz::map_exprs;

/// Folds `add`, `sub` and `div` of two integer literals, and `x / 0`, with three bugs: an `i32`
/// sum saturates instead of wrapping, a `u32` difference stops at 0 instead of wrapping, and
/// `x / 0` becomes `0` (SEMANTICS.md section 4: `x / 0 = x`). Every other fold is right
/// (wrapping `u32`, `i64` and `u64` sums, `MIN / -1 = MIN`).
#[must_use]
pub fn wrong_fold(program: &Program) -> Program {
    map_exprs(program, &mut |e| match e {
        Expr::Binary { op, lhs, rhs } => fold(*op, lhs, rhs),
        _ => None,
    })
}

fn fold(op: BinOp, lhs: &Expr, rhs: &Expr) -> Option<Expr> {
    if op == BinOp::Div
        && let Expr::Lit(divisor) = rhs
        && is_zero(divisor)
        && !lhs.has_atomic()
    {
        // The bug: `x / 0` is `x`.
        return Some(Expr::Lit(*divisor));
    }
    let (Expr::Lit(a), Expr::Lit(b)) = (lhs, rhs) else {
        return None;
    };
    use Literal::{I32, I64, U32, U64};
    let folded = match (op, *a, *b) {
        // The bug: saturating.
        (BinOp::Add, I32(a), I32(b)) => I32(a.saturating_add(b)),
        (BinOp::Add, U32(a), U32(b)) => U32(a.wrapping_add(b)),
        (BinOp::Add, I64(a), I64(b)) => I64(a.wrapping_add(b)),
        (BinOp::Add, U64(a), U64(b)) => U64(a.wrapping_add(b)),
        // The bug: no wrapping below 0.
        (BinOp::Sub, U32(a), U32(b)) => U32(a.saturating_sub(b)),
        (BinOp::Sub, I32(a), I32(b)) => I32(a.wrapping_sub(b)),
        (BinOp::Sub, I64(a), I64(b)) => I64(a.wrapping_sub(b)),
        (BinOp::Sub, U64(a), U64(b)) => U64(a.wrapping_sub(b)),
        // Divisors of 0 were handled above; `wrapping_div` gives `MIN / -1 = MIN`.
        (BinOp::Div, U32(a), U32(b)) => U32(a / b),
        (BinOp::Div, I32(a), I32(b)) => I32(a.wrapping_div(b)),
        (BinOp::Div, U64(a), U64(b)) => U64(a / b),
        (BinOp::Div, I64(a), I64(b)) => I64(a.wrapping_div(b)),
        _ => return None,
    };
    Some(Expr::Lit(folded))
}

fn is_zero(literal: &Literal) -> bool {
    matches!(
        literal,
        Literal::U32(0) | Literal::I32(0) | Literal::U64(0) | Literal::I64(0)
    )
}
