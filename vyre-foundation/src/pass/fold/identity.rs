//! Algebraic identities: rewrites of expressions with a non-literal operand that are exact for
//! every value of the operand's type under SEMANTICS.md.
//!
//! Only integer and bool operators are rewritten. Each rule holds for every value, `MIN`, `MAX`,
//! `0` and `-1` included, because the law defines every integer result (section 4): `x / 0 = x`,
//! `x % 0 = 0`, `0 / y = 0 % y = 0` for every `y` (`0 / 0 = 0` and `0 / -1 = 0`), `x % -1 = 0`
//! (`MIN % -1 = 0` too), and a shift by a multiple of the width is no shift. Float identities are
//! left alone: `x + 0.0` is not `x` for `-0.0`, `x * 1.0` may flush a subnormal or quiet a
//! signalling NaN, `x - x` is NaN for an infinity; none is exact for every value.
//!
//! Two more conditions keep a rewrite exact:
//!
//! - An operand the rewrite drops must have no atomic in it: evaluating it is the only effect
//!   an expression can have (section 2).
//! - A rule that reads one operand twice as one value (`x - x`, `x ^ x`, `x & x`, `min(x, x)`,
//!   `x == x`, `select(c, x, x)`) needs the two to be equal expressions that are *stable*: no
//!   atomic, and no load of a buffer that an atomic updates ([`crate::pass::rewrite::stable`]).
//!
//! Casts and bitcasts to the value's own type and bitcast round trips are moves (every bit is
//! kept, floats included) and fold for every type.

use super::int::Int;
use crate::ir::{BinOp, DataType, Expr, Literal, UnOp};

/// What the identities need about the expression being rewritten, from the evidence.
pub(super) struct Context<'c> {
    /// The type of the operands of a binary operator, of the argument of a unary one, cast or
    /// bitcast, and of the arms of a select.
    pub(super) operand: DataType,
    /// For a bitcast of a bitcast, the type of the inner bitcast's argument.
    pub(super) inner: Option<DataType>,
    /// [`crate::pass::rewrite::stable`] for this program.
    pub(super) stable: &'c dyn Fn(&Expr) -> bool,
}

/// The literal `e` is, if it is one.
pub(super) fn lit(e: &Expr) -> Option<Literal> {
    match e {
        Expr::Lit(l) => Some(*l),
        Expr::Var(_)
        | Expr::Load { .. }
        | Expr::ArrayLoad { .. }
        | Expr::BufLen(_)
        | Expr::Builtin(_)
        | Expr::Binary { .. }
        | Expr::Unary { .. }
        | Expr::Select { .. }
        | Expr::Cast { .. }
        | Expr::Bitcast { .. }
        | Expr::Fma { .. }
        | Expr::Atomic { .. }
        | Expr::Subgroup { .. }
        | Expr::SubgroupShuffle { .. } => None,
    }
}

/// Whether `e` may be dropped: nothing in it has an effect.
fn droppable(e: &Expr) -> bool {
    !e.has_atomic()
}

/// `e` simplified by an identity, or `None` when none applies (`e` itself is never changed).
pub(super) fn simplify(e: &Expr, cx: &Context<'_>) -> Option<Expr> {
    match e {
        Expr::Binary { op, lhs, rhs } => {
            let found = if cx.operand == DataType::Bool {
                logical(*op, lhs, rhs)
            } else if cx.operand.is_integer() {
                integer(*op, lhs, rhs, cx.operand)
            } else {
                None
            };
            found.or_else(|| twice(*op, lhs, rhs, cx))
        }
        Expr::Unary { op, arg } => {
            // `!!x`, `~~x` and, on integers, `-(-x)` (wrapping negation is its own inverse).
            let involution = matches!(op, UnOp::Not | UnOp::BitNot)
                || (*op == UnOp::Neg && cx.operand.is_integer());
            match arg.as_ref() {
                Expr::Unary { op: inner, arg: x } if inner == op && involution => {
                    Some(Expr::clone(x))
                }
                Expr::Unary { .. }
                | Expr::Lit(_)
                | Expr::Var(_)
                | Expr::Load { .. }
                | Expr::ArrayLoad { .. }
                | Expr::BufLen(_)
                | Expr::Builtin(_)
                | Expr::Binary { .. }
                | Expr::Select { .. }
                | Expr::Cast { .. }
                | Expr::Bitcast { .. }
                | Expr::Fma { .. }
                | Expr::Atomic { .. }
                | Expr::Subgroup { .. }
                | Expr::SubgroupShuffle { .. } => None,
            }
        }
        Expr::Select {
            cond,
            on_true,
            on_false,
        } => select(cond, on_true, on_false, cx),
        Expr::Cast { to, arg } => (*to == cx.operand).then(|| Expr::clone(arg)),
        Expr::Bitcast { to, arg } => {
            if *to == cx.operand {
                return Some(Expr::clone(arg));
            }
            let Expr::Bitcast { arg: x, .. } = arg.as_ref() else {
                return None;
            };
            let inner = cx.inner?;
            let x = Expr::clone(x);
            Some(if inner == *to {
                x
            } else {
                Expr::Bitcast {
                    to: *to,
                    arg: Box::new(x),
                }
            })
        }
        Expr::Lit(_)
        | Expr::Var(_)
        | Expr::Load { .. }
        | Expr::ArrayLoad { .. }
        | Expr::BufLen(_)
        | Expr::Builtin(_)
        | Expr::Fma { .. }
        | Expr::Atomic { .. }
        | Expr::Subgroup { .. }
        | Expr::SubgroupShuffle { .. } => None,
    }
}

/// Which operand a rule keeps, or the literal it gives.
enum Keep {
    Lhs,
    Rhs,
    Value(Literal),
}

/// Applies `keep` to the operands: the one kept is moved out, and a literal result needs the
/// other operands to be droppable.
fn apply(keep: Keep, lhs: &Expr, rhs: &Expr) -> Option<Expr> {
    match keep {
        Keep::Lhs => droppable(rhs).then(|| Expr::clone(lhs)),
        Keep::Rhs => droppable(lhs).then(|| Expr::clone(rhs)),
        Keep::Value(v) => (droppable(lhs) && droppable(rhs)).then_some(Expr::Lit(v)),
    }
}

/// Identities of integer operators with one literal operand.
fn integer(op: BinOp, lhs: &Expr, rhs: &Expr, ty: DataType) -> Option<Expr> {
    let (l, r) = (lit(lhs).and_then(Int::of), lit(rhs).and_then(Int::of));
    let value = |v: i128| Int::wrap(ty, v).map(Keep::Value);
    let is =
        |x: Option<Int>, v: i128| x.is_some_and(|x| Int::wrap(ty, x.value) == Int::wrap(ty, v));
    let (min, max) = bounds(ty)?;
    let keep = match op {
        BinOp::Add if is(r, 0) => Keep::Lhs,
        BinOp::Add if is(l, 0) => Keep::Rhs,
        BinOp::Sub if is(r, 0) => Keep::Lhs,
        BinOp::Mul if is(r, 1) => Keep::Lhs,
        BinOp::Mul if is(l, 1) => Keep::Rhs,
        BinOp::Mul if is(l, 0) || is(r, 0) => value(0)?,
        // `x / 0 = x` by the law.
        BinOp::Div if is(r, 1) || is(r, 0) => Keep::Lhs,
        BinOp::Rem if is(r, 1) || is(r, 0) || (ty.is_signed() && is(r, -1)) => value(0)?,
        BinOp::Div | BinOp::Rem if is(l, 0) => value(0)?,
        BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor if is(r, 0) => match op {
            BinOp::BitAnd => value(0)?,
            _ => Keep::Lhs,
        },
        BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor if is(l, 0) => match op {
            BinOp::BitAnd => value(0)?,
            _ => Keep::Rhs,
        },
        BinOp::BitAnd if is(r, -1) => Keep::Lhs,
        BinOp::BitAnd if is(l, -1) => Keep::Rhs,
        BinOp::BitOr if is(l, -1) || is(r, -1) => value(-1)?,
        BinOp::Shl | BinOp::Shr if is(l, 0) => value(0)?,
        BinOp::Shr if ty.is_signed() && is(l, -1) => value(-1)?,
        BinOp::Shl | BinOp::Shr => return shift_amount(op, lhs, rhs, ty),
        BinOp::Min if is(r, max) => Keep::Lhs,
        BinOp::Min if is(l, max) => Keep::Rhs,
        BinOp::Min if is(l, min) || is(r, min) => value(min)?,
        BinOp::Max if is(r, min) => Keep::Lhs,
        BinOp::Max if is(l, min) => Keep::Rhs,
        BinOp::Max if is(l, max) || is(r, max) => value(max)?,
        BinOp::Lt | BinOp::Ge if is(r, min) => Keep::Value(Literal::Bool(op == BinOp::Ge)),
        BinOp::Gt | BinOp::Le if is(r, max) => Keep::Value(Literal::Bool(op == BinOp::Le)),
        BinOp::Gt | BinOp::Le if is(l, min) => Keep::Value(Literal::Bool(op == BinOp::Le)),
        BinOp::Lt | BinOp::Ge if is(l, max) => Keep::Value(Literal::Bool(op == BinOp::Ge)),
        BinOp::Add
        | BinOp::Sub
        | BinOp::Mul
        | BinOp::Div
        | BinOp::Rem
        | BinOp::BitAnd
        | BinOp::BitOr
        | BinOp::BitXor
        | BinOp::Eq
        | BinOp::Ne
        | BinOp::Lt
        | BinOp::Le
        | BinOp::Gt
        | BinOp::Ge
        | BinOp::And
        | BinOp::Or
        | BinOp::Min
        | BinOp::Max => return None,
    };
    apply(keep, lhs, rhs)
}

/// The smallest and largest value of an integer type.
fn bounds(ty: DataType) -> Option<(i128, i128)> {
    let bits = ty.bits();
    if !ty.is_integer() {
        None
    } else if ty.is_signed() {
        Some((-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1))
    } else {
        Some((0, (1i128 << bits) - 1))
    }
}

/// A shift by a literal amount: by a multiple of the width it is no shift, and an amount of a
/// width or more is written as the amount mod the width it means (what the law shifts by).
fn shift_amount(op: BinOp, lhs: &Expr, rhs: &Expr, ty: DataType) -> Option<Expr> {
    let Some(Literal::U32(amount)) = lit(rhs) else {
        return None;
    };
    let by = amount % ty.bits();
    if by == 0 {
        Some(Expr::clone(lhs))
    } else if by != amount {
        Some(Expr::Binary {
            op,
            lhs: Box::new(Expr::clone(lhs)),
            rhs: Box::new(Expr::Lit(Literal::U32(by))),
        })
    } else {
        None
    }
}

/// Identities of bool operators with one literal operand.
fn logical(op: BinOp, lhs: &Expr, rhs: &Expr) -> Option<Expr> {
    let (l, r) = (lit(lhs), lit(rhs));
    let is = |x: Option<Literal>, v: bool| x == Some(Literal::Bool(v));
    let not = |x: &Expr| Expr::Unary {
        op: UnOp::Not,
        arg: Box::new(Expr::clone(x)),
    };
    let keep = match op {
        BinOp::And | BinOp::Eq if is(r, true) => Keep::Lhs,
        BinOp::And | BinOp::Eq if is(l, true) => Keep::Rhs,
        BinOp::Or | BinOp::Ne if is(r, false) => Keep::Lhs,
        BinOp::Or | BinOp::Ne if is(l, false) => Keep::Rhs,
        BinOp::And if is(l, false) || is(r, false) => Keep::Value(Literal::Bool(false)),
        BinOp::Or if is(l, true) || is(r, true) => Keep::Value(Literal::Bool(true)),
        // `x == false` and `x != true` are `!x`; the literal has no effect to keep.
        BinOp::Eq if is(r, false) => return Some(not(lhs)),
        BinOp::Ne if is(r, true) => return Some(not(lhs)),
        BinOp::Eq if is(l, false) => return Some(not(rhs)),
        BinOp::Ne if is(l, true) => return Some(not(rhs)),
        BinOp::Add
        | BinOp::Sub
        | BinOp::Mul
        | BinOp::Div
        | BinOp::Rem
        | BinOp::BitAnd
        | BinOp::BitOr
        | BinOp::BitXor
        | BinOp::Shl
        | BinOp::Shr
        | BinOp::Eq
        | BinOp::Ne
        | BinOp::Lt
        | BinOp::Le
        | BinOp::Gt
        | BinOp::Ge
        | BinOp::And
        | BinOp::Or
        | BinOp::Min
        | BinOp::Max => return None,
    };
    apply(keep, lhs, rhs)
}

/// Identities of an integer or bool operator applied to one stable value twice.
fn twice(op: BinOp, lhs: &Expr, rhs: &Expr, cx: &Context<'_>) -> Option<Expr> {
    let exact = cx.operand.is_integer() || cx.operand == DataType::Bool;
    if !exact || lhs != rhs || !(cx.stable)(lhs) {
        return None;
    }
    let truth = |t: bool| Some(Expr::Lit(Literal::Bool(t)));
    match op {
        BinOp::BitAnd | BinOp::BitOr | BinOp::Min | BinOp::Max | BinOp::And | BinOp::Or => {
            Some(Expr::clone(lhs))
        }
        BinOp::Sub | BinOp::BitXor => Int::wrap(cx.operand, 0).map(Expr::Lit),
        BinOp::Eq | BinOp::Le | BinOp::Ge => truth(true),
        BinOp::Ne | BinOp::Lt | BinOp::Gt => truth(false),
        BinOp::Add | BinOp::Mul | BinOp::Div | BinOp::Rem | BinOp::Shl | BinOp::Shr => None,
    }
}

/// A select whose condition is a literal, whose arms are one stable value, or whose arms are the
/// two bool literals.
fn select(cond: &Expr, on_true: &Expr, on_false: &Expr, cx: &Context<'_>) -> Option<Expr> {
    // Both arms are evaluated; the one not chosen may go only if it has no effect.
    if let Some(Literal::Bool(c)) = lit(cond) {
        let (chosen, other) = if c {
            (on_true, on_false)
        } else {
            (on_false, on_true)
        };
        return droppable(other).then(|| Expr::clone(chosen));
    }
    if on_true == on_false && droppable(cond) && (cx.stable)(on_true) {
        return Some(Expr::clone(on_true));
    }
    let arms = (lit(on_true), lit(on_false));
    if arms == (Some(Literal::Bool(true)), Some(Literal::Bool(false))) {
        Some(Expr::clone(cond))
    } else if arms == (Some(Literal::Bool(false)), Some(Literal::Bool(true))) {
        Some(Expr::Unary {
            op: UnOp::Not,
            arg: Box::new(Expr::clone(cond)),
        })
    } else {
        None
    }
}
