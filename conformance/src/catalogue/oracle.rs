//! Hand-written expectations for the core subset (integer arithmetic, bit operations, comparisons,
//! bools and conversions), written from `SEMANTICS.md` alone.
//!
//! These never look at the reference backend: they exist so that the reference itself is checked. A
//! case whose expectation here and the reference's answer differ is reported as a failure of the
//! reference. Values travel as the 32-bit words a buffer holds.

use vyre_foundation::ir::{BinOp, DataType, UnOp};

/// The largest `i32` that is exactly an `f32`: where float-to-`i32` conversion saturates.
pub const I32_FROM_F32_MAX: i32 = 2_147_483_520;

/// The largest `u32` that is exactly an `f32`: where float-to-`u32` conversion saturates.
pub const U32_FROM_F32_MAX: u32 = 4_294_967_040;

/// `op(a, b)` for integer (`U32`/`I32`) or `Bool` operands, as a word; `None` when the operator does
/// not take that type. For shifts `b` is the `u32` amount.
#[must_use]
pub fn binary(op: BinOp, ty: DataType, a: u32, b: u32) -> Option<u32> {
    match ty {
        DataType::U32 => unsigned_binary(op, a, b),
        DataType::I32 => signed_binary(op, a as i32, b),
        DataType::Bool => bool_binary(op, a != 0, b != 0).map(u32::from),
        _ => None,
    }
}

fn unsigned_binary(op: BinOp, a: u32, b: u32) -> Option<u32> {
    let amount = b % 32;
    Some(match op {
        BinOp::Add => a.wrapping_add(b),
        BinOp::Sub => a.wrapping_sub(b),
        BinOp::Mul => a.wrapping_mul(b),
        BinOp::Div => a.checked_div(b).unwrap_or(a),
        BinOp::Rem => a.checked_rem(b).unwrap_or(0),
        BinOp::BitAnd => a & b,
        BinOp::BitOr => a | b,
        BinOp::BitXor => a ^ b,
        BinOp::Shl => a << amount,
        BinOp::Shr => a >> amount,
        BinOp::Min => a.min(b),
        BinOp::Max => a.max(b),
        _ => return compare(op, a.cmp(&b)),
    })
}

fn signed_binary(op: BinOp, a: i32, b_word: u32) -> Option<u32> {
    let b = b_word as i32;
    let amount = b_word % 32;
    let value: i32 = match op {
        BinOp::Add => a.wrapping_add(b),
        BinOp::Sub => a.wrapping_sub(b),
        BinOp::Mul => a.wrapping_mul(b),
        BinOp::Div => signed_divide(a, b),
        BinOp::Rem => signed_remainder(a, b),
        BinOp::BitAnd => a & b,
        BinOp::BitOr => a | b,
        BinOp::BitXor => a ^ b,
        BinOp::Shl => ((a as u32) << amount) as i32,
        // `>>` on i32 is arithmetic in Rust, as the semantics require.
        BinOp::Shr => a >> amount,
        BinOp::Min => a.min(b),
        BinOp::Max => a.max(b),
        _ => return compare(op, a.cmp(&b)),
    };
    Some(value as u32)
}

/// Truncating division with `x / 0 = x` and `MIN / -1 = MIN`, spelled out case by case.
fn signed_divide(a: i32, b: i32) -> i32 {
    if b == 0 {
        a
    } else if a == i32::MIN && b == -1 {
        i32::MIN
    } else {
        // Rust's `/` truncates towards zero.
        a / b
    }
}

/// Truncating remainder with the sign of the dividend, `x % 0 = 0` and `MIN % -1 = 0`.
fn signed_remainder(a: i32, b: i32) -> i32 {
    if b == 0 || (a == i32::MIN && b == -1) {
        0
    } else {
        a % b
    }
}

fn compare(op: BinOp, ordering: std::cmp::Ordering) -> Option<u32> {
    use std::cmp::Ordering::{Equal, Greater, Less};
    let result = match op {
        BinOp::Eq => ordering == Equal,
        BinOp::Ne => ordering != Equal,
        BinOp::Lt => ordering == Less,
        BinOp::Le => ordering != Greater,
        BinOp::Gt => ordering == Greater,
        BinOp::Ge => ordering != Less,
        _ => return None,
    };
    Some(u32::from(result))
}

fn bool_binary(op: BinOp, a: bool, b: bool) -> Option<bool> {
    Some(match op {
        BinOp::And => a & b,
        BinOp::Or => a | b,
        BinOp::Eq => a == b,
        BinOp::Ne => a != b,
        _ => return None,
    })
}

/// `op(x)` for an integer or `Bool` operand, as a word; `None` when the operator does not take it.
#[must_use]
pub fn unary(op: UnOp, ty: DataType, x: u32) -> Option<u32> {
    match (op, ty) {
        (UnOp::Not, DataType::Bool) => Some(u32::from(x == 0)),
        (UnOp::Neg, DataType::I32) => Some((x as i32).wrapping_neg() as u32),
        (UnOp::Abs, DataType::I32) => Some((x as i32).wrapping_abs() as u32),
        (UnOp::Abs, DataType::U32) => Some(x),
        (_, DataType::U32 | DataType::I32) => bit_unary(op, x),
        _ => None,
    }
}

/// The bit-counting and bit-twiddling operators, on the 32 bits.
fn bit_unary(op: UnOp, x: u32) -> Option<u32> {
    Some(match op {
        UnOp::BitNot => !x,
        UnOp::Popcount => (0..32).filter(|i| x >> i & 1 == 1).count() as u32,
        UnOp::Clz => (0..32).rev().take_while(|i| x >> i & 1 == 0).count() as u32,
        UnOp::Ctz => (0..32).take_while(|i| x >> i & 1 == 0).count() as u32,
        UnOp::ReverseBits => (0..32).fold(0, |acc, i| acc | ((x >> i & 1) << (31 - i))),
        _ => return None,
    })
}

/// `cast(to, x)` with `x` of type `from`, as the reference must compute it (NaN to an integer is 0,
/// the reference's choice). `None` for a conversion the IR does not have.
#[must_use]
pub fn cast(from: DataType, to: DataType, x: u32) -> Option<u32> {
    let as_bool = |b: bool| u32::from(b);
    Some(match (from, to) {
        (_, _) if from == to => x,
        (DataType::Bool, DataType::U32 | DataType::I32) => as_bool(x != 0),
        (DataType::Bool, DataType::F32) => {
            if x != 0 {
                1.0f32.to_bits()
            } else {
                0.0f32.to_bits()
            }
        }
        (DataType::U32 | DataType::I32, DataType::Bool) => as_bool(x != 0),
        (DataType::U32, DataType::I32) | (DataType::I32, DataType::U32) => x,
        // Rust's integer-to-float `as` rounds to nearest, ties to even.
        (DataType::U32, DataType::F32) => (x as f32).to_bits(),
        (DataType::I32, DataType::F32) => ((x as i32) as f32).to_bits(),
        (DataType::F32, DataType::Bool) => {
            as_bool(f32::from_bits(x) != 0.0 || f32::from_bits(x).is_nan())
        }
        (DataType::F32, DataType::I32) => f32_to_i32(f32::from_bits(x)) as u32,
        (DataType::F32, DataType::U32) => f32_to_u32(f32::from_bits(x)),
        _ => return None,
    })
}

/// Truncates towards zero and saturates at `[-2^31, 2147483520]`; NaN gives 0.
#[must_use]
pub fn f32_to_i32(x: f32) -> i32 {
    if x.is_nan() {
        return 0;
    }
    let t = x.trunc();
    if t <= -2_147_483_648.0 {
        i32::MIN
    } else if t >= I32_FROM_F32_MAX as f32 {
        I32_FROM_F32_MAX
    } else {
        // In range, so the conversion is exact.
        t as i32
    }
}

/// Truncates towards zero and saturates at `[0, 4294967040]`; NaN gives 0.
#[must_use]
pub fn f32_to_u32(x: f32) -> u32 {
    if x.is_nan() {
        return 0;
    }
    let t = x.trunc();
    if t <= 0.0 {
        0
    } else if t >= U32_FROM_F32_MAX as f32 {
        U32_FROM_F32_MAX
    } else {
        t as u32
    }
}
