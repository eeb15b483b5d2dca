//! Integer and bool operators on literals, exactly as SEMANTICS.md sections 4 and 5 define them.
//!
//! Every integer literal is read as its mathematical value in an `i128` (sign-extended for `i32`
//! and `i64`, zero-extended for `u32` and `u64`), the operator is applied there, and the result is
//! wrapped back to the operand's width. That one representation gives every rule of the law at
//! both widths without a case per type:
//!
//! - `add sub mul neg` wrap modulo 2^N: an `i128` holds every sum and difference of two 64-bit
//!   values exactly, and products and negations are computed wrapping, whose low N bits are the
//!   low N bits of the exact result.
//! - `div rem` truncate; `x / 0 = x`, `x % 0 = 0`. `MIN / -1` is `2^(N-1)` exactly in an `i128`,
//!   which wraps to `MIN`, and `MIN % -1` is 0: the law's two special results come out as
//!   they are.
//! - `shl shr` take the amount mod N; `shr` shifts the sign-extended value of a signed operand
//!   (arithmetic) and the zero-extended value of an unsigned one (logical).
//! - `abs(MIN)` is `2^(N-1)`, which wraps to `MIN`; `abs` of an unsigned value is itself.
//! - `popcount clz ctz reverse_bits` are defined on 32-bit operands only, on the 32 bits, with
//!   `clz(0) = ctz(0) = 32`.
//! - comparisons, `min` and `max` compare the values, so signed types compare signed.
//! - integer-to-integer casts keep the value modulo 2^N of the target (section 6): the value,
//!   wrapped to the target's width.

use crate::ir::{BinOp, DataType, Literal, UnOp};

/// An integer literal as its value, with its type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Int {
    /// The literal's mathematical value.
    pub(super) value: i128,
    /// `U32`, `I32`, `U64` or `I64`.
    pub(super) ty: DataType,
}

impl Int {
    /// The integer `lit` holds, or `None` for a bool or a float.
    pub(super) fn of(lit: Literal) -> Option<Int> {
        let (value, ty) = match lit {
            Literal::U32(v) => (i128::from(v), DataType::U32),
            Literal::I32(v) => (i128::from(v), DataType::I32),
            Literal::U64(v) => (i128::from(v), DataType::U64),
            Literal::I64(v) => (i128::from(v), DataType::I64),
            Literal::Bool(_) | Literal::F32(_) | Literal::F16(_) => return None,
        };
        Some(Int { value, ty })
    }

    /// `value` modulo 2^N as a literal of the integer type `ty` (`None` for other types).
    pub(super) fn wrap(ty: DataType, value: i128) -> Option<Literal> {
        // `as` between integers keeps the low bits: exactly "modulo 2^N" and the two's complement
        // reading of them.
        match ty {
            DataType::U32 => Some(Literal::U32(value as u32)),
            DataType::I32 => Some(Literal::I32(value as i32)),
            DataType::U64 => Some(Literal::U64(value as u64)),
            DataType::I64 => Some(Literal::I64(value as i64)),
            DataType::Bool | DataType::F32 | DataType::F16 => None,
        }
    }

    /// The width in bits.
    fn bits(self) -> u32 {
        self.ty.bits()
    }

    /// The low 32 bits, for the operators defined on 32-bit operands only.
    fn word(self) -> Option<u32> {
        (self.bits() == 32).then_some(self.value as u32)
    }
}

/// `op` on two integer or two bool literals (an integer and a `u32` amount for shifts), or `None`
/// when the operands are not such a pair.
pub(super) fn binary(op: BinOp, a: Literal, b: Literal) -> Option<Literal> {
    if let (Literal::Bool(x), Literal::Bool(y)) = (a, b) {
        return bool_binary(op, x, y);
    }
    let x = Int::of(a)?;
    let y = Int::of(b)?;
    if matches!(op, BinOp::Shl | BinOp::Shr) {
        return (y.ty == DataType::U32).then(|| shift(op, x, y.value as u32))?;
    }
    if x.ty != y.ty {
        return None;
    }
    let value = |v: i128| Int::wrap(x.ty, v);
    let truth = |t: bool| Some(Literal::Bool(t));
    let (p, q) = (x.value, y.value);
    match op {
        BinOp::Add => value(p + q),
        BinOp::Sub => value(p - q),
        BinOp::Mul => value(p.wrapping_mul(q)),
        // Dividing by 1 where the law says so gives `x / 0 = x`, and `x % 0 = 0`.
        BinOp::Div => value(if q == 0 { p } else { p / q }),
        BinOp::Rem => value(if q == 0 { 0 } else { p % q }),
        BinOp::BitAnd => value(p & q),
        BinOp::BitOr => value(p | q),
        BinOp::BitXor => value(p ^ q),
        BinOp::Min => value(p.min(q)),
        BinOp::Max => value(p.max(q)),
        BinOp::Eq => truth(p == q),
        BinOp::Ne => truth(p != q),
        BinOp::Lt => truth(p < q),
        BinOp::Le => truth(p <= q),
        BinOp::Gt => truth(p > q),
        BinOp::Ge => truth(p >= q),
        BinOp::Shl | BinOp::Shr | BinOp::And | BinOp::Or => None,
    }
}

/// `x << amount` or `x >> amount`, the amount taken mod the width.
fn shift(op: BinOp, x: Int, amount: u32) -> Option<Literal> {
    let by = amount % x.bits();
    // The sign-extended value shifts arithmetically, the zero-extended one logically; the low bits
    // a left shift keeps do not depend on what lies above the width.
    let shifted = if op == BinOp::Shl {
        x.value.wrapping_shl(by)
    } else {
        x.value >> by
    };
    Int::wrap(x.ty, shifted)
}

fn bool_binary(op: BinOp, x: bool, y: bool) -> Option<Literal> {
    let truth = |t: bool| Some(Literal::Bool(t));
    match op {
        BinOp::And => truth(x && y),
        BinOp::Or => truth(x || y),
        BinOp::Eq => truth(x == y),
        BinOp::Ne => truth(x != y),
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
        | BinOp::Lt
        | BinOp::Le
        | BinOp::Gt
        | BinOp::Ge
        | BinOp::Min
        | BinOp::Max => None,
    }
}

/// `op` on an integer or bool literal, or `None` when the operator does not apply to it here (the
/// float operators are [`super::float`]'s).
pub(super) fn unary(op: UnOp, a: Literal) -> Option<Literal> {
    if let Literal::Bool(x) = a {
        return (op == UnOp::Not).then_some(Literal::Bool(!x));
    }
    let x = Int::of(a)?;
    let value = |v: i128| Int::wrap(x.ty, v);
    let word = |f: fn(u32) -> u32| x.word().and_then(|w| Int::wrap(x.ty, i128::from(f(w))));
    match op {
        UnOp::Neg => x.ty.is_signed().then(|| value(-x.value))?,
        UnOp::BitNot => value(!x.value),
        UnOp::Abs => value(x.value.abs()),
        UnOp::Popcount => word(u32::count_ones),
        UnOp::Clz => word(u32::leading_zeros),
        UnOp::Ctz => word(u32::trailing_zeros),
        UnOp::ReverseBits => word(u32::reverse_bits),
        UnOp::Not
        | UnOp::Sqrt
        | UnOp::InverseSqrt
        | UnOp::Exp
        | UnOp::Exp2
        | UnOp::Log
        | UnOp::Log2
        | UnOp::Sin
        | UnOp::Cos
        | UnOp::Floor
        | UnOp::Ceil
        | UnOp::Round
        | UnOp::Trunc
        | UnOp::Fract => None,
    }
}
