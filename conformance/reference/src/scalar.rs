//! The meaning of every operator on one lane's word, exactly as `SEMANTICS.md` states it. Words are
//! zero-extended: the 32-bit operators read and write the low 32 bits only.
//!
//! These are the only places where the reference decides what an operation yields; the executor maps
//! them over lanes. Integer rules follow section 4, conversions section 6, floats section 7.

use crate::inst::{BinKind, UnKind};

/// The largest `i32` that is exactly representable in `f32`: where float-to-int casts saturate.
pub(crate) const I32_CAST_MAX: i32 = 2_147_483_520;
/// The largest `u32` that is exactly representable in `f32`.
pub(crate) const U32_CAST_MAX: u32 = 4_294_967_040;

/// The largest `i64` that is exactly representable in `f32` (2^63 - 2^39).
pub(crate) const I64_CAST_MAX: i64 = 0x7fff_ff80_0000_0000;
/// The largest `u64` that is exactly representable in `f32` (2^64 - 2^40).
pub(crate) const U64_CAST_MAX: u64 = 0xffff_ff00_0000_0000;

/// The divisor WGSL uses: `1` where the division would trap (by zero, or `MIN / -1`).
const fn safe_divisor_s(a: i32, b: i32) -> i32 {
    if b == 0 || (a == i32::MIN && b == -1) {
        1
    } else {
        b
    }
}

/// The same for `i64`.
const fn safe_divisor_s64(a: i64, b: i64) -> i64 {
    if b == 0 || (a == i64::MIN && b == -1) {
        1
    } else {
        b
    }
}

#[inline(always)]
pub(crate) fn f(bits: u64) -> f32 {
    f32::from_bits(bits as u32)
}

#[inline(always)]
fn s(bits: u32) -> i32 {
    bits as i32
}

#[inline(always)]
fn s64(bits: u64) -> i64 {
    bits as i64
}

/// `op` on two words. Float results that matter for tracing are handled by [`float_bin`].
#[inline(always)]
pub(crate) fn int_bin(op: BinKind, a: u64, b: u64) -> u64 {
    match op {
        BinKind::Add64 => a.wrapping_add(b),
        BinKind::Sub64 => a.wrapping_sub(b),
        BinKind::Mul64 => a.wrapping_mul(b),
        BinKind::DivU64 => a / if b == 0 { 1 } else { b },
        BinKind::DivS64 => s64(a).wrapping_div(safe_divisor_s64(s64(a), s64(b))) as u64,
        BinKind::RemU64 => a % if b == 0 { 1 } else { b },
        BinKind::RemS64 => s64(a).wrapping_rem(safe_divisor_s64(s64(a), s64(b))) as u64,
        // The amount is a u32; `wrapping_sh*` take it mod 64.
        BinKind::Shl64 => a.wrapping_shl(b as u32),
        BinKind::ShrU64 => a.wrapping_shr(b as u32),
        BinKind::ShrS64 => s64(a).wrapping_shr(b as u32) as u64,
        BinKind::LtS64 => u64::from(s64(a) < s64(b)),
        BinKind::LeS64 => u64::from(s64(a) <= s64(b)),
        BinKind::MinS64 => s64(a).min(s64(b)) as u64,
        BinKind::MaxS64 => s64(a).max(s64(b)) as u64,
        // Zero-extended words compare and combine bitwise alike at both widths.
        BinKind::And => a & b,
        BinKind::Or => a | b,
        BinKind::Xor => a ^ b,
        BinKind::Eq => u64::from(a == b),
        BinKind::Ne => u64::from(a != b),
        BinKind::LtU => u64::from(a < b),
        BinKind::LeU => u64::from(a <= b),
        BinKind::MinU => a.min(b),
        BinKind::MaxU => a.max(b),
        _ => u64::from(int_bin32(op, a as u32, b as u32)),
    }
}

/// A 32-bit operator on the low words.
#[inline(always)]
fn int_bin32(op: BinKind, a: u32, b: u32) -> u32 {
    match op {
        BinKind::Add => a.wrapping_add(b),
        BinKind::Sub => a.wrapping_sub(b),
        BinKind::Mul => a.wrapping_mul(b),
        BinKind::DivU => a / if b == 0 { 1 } else { b },
        BinKind::DivS => s(a).wrapping_div(safe_divisor_s(s(a), s(b))) as u32,
        BinKind::RemU => a % if b == 0 { 1 } else { b },
        BinKind::RemS => s(a).wrapping_rem(safe_divisor_s(s(a), s(b))) as u32,
        BinKind::Shl => a.wrapping_shl(b),
        BinKind::ShrU => a.wrapping_shr(b),
        BinKind::ShrS => s(a).wrapping_shr(b) as u32,
        BinKind::LtS => u32::from(s(a) < s(b)),
        BinKind::LeS => u32::from(s(a) <= s(b)),
        BinKind::MinS => s(a).min(s(b)) as u32,
        BinKind::MaxS => s(a).max(s(b)) as u32,
        BinKind::EqF => u32::from(f32::from_bits(a) == f32::from_bits(b)),
        // Ordered comparison, as naga emits it: false when either side is NaN.
        BinKind::NeF => {
            let (x, y) = (f32::from_bits(a), f32::from_bits(b));
            u32::from(
                x.partial_cmp(&y)
                    .is_some_and(|o| o != std::cmp::Ordering::Equal),
            )
        }
        BinKind::LtF => u32::from(f32::from_bits(a) < f32::from_bits(b)),
        BinKind::LeF => u32::from(f32::from_bits(a) <= f32::from_bits(b)),
        _ => float_bin(op, f32::from_bits(a), f32::from_bits(b)).to_bits(),
    }
}

/// True for the binary operators with an `f32` result.
pub(crate) const fn is_float_bin(op: BinKind) -> bool {
    matches!(
        op,
        BinKind::AddF
            | BinKind::SubF
            | BinKind::MulF
            | BinKind::DivF
            | BinKind::RemF
            | BinKind::MinF
            | BinKind::MaxF
    )
}

/// A float binary operator in IEEE f32 arithmetic.
#[inline(always)]
pub(crate) fn float_bin(op: BinKind, a: f32, b: f32) -> f32 {
    match op {
        BinKind::AddF => a + b,
        BinKind::SubF => a - b,
        BinKind::MulF => a * b,
        BinKind::DivF => a / b,
        BinKind::RemF => a % b,
        BinKind::MinF => a.min(b),
        BinKind::MaxF => a.max(b),
        _ => f32::NAN,
    }
}

/// `op` on one word.
#[inline(always)]
pub(crate) fn un(op: UnKind, a: u64) -> u64 {
    let w = a as u32;
    let word = |x: u32| u64::from(x);
    match op {
        UnKind::NegI => word(w.wrapping_neg()),
        UnKind::BitNot => word(!w),
        UnKind::Not => a ^ 1,
        UnKind::AbsS => word(s(w).wrapping_abs() as u32),
        UnKind::Popcount => word(w.count_ones()),
        UnKind::Clz => word(w.leading_zeros()),
        UnKind::Ctz => word(w.trailing_zeros()),
        UnKind::ReverseBits => word(w.reverse_bits()),
        UnKind::F32ToI32 => word(f32_to_i32(f(a)) as u32),
        UnKind::F32ToU32 => word(f32_to_u32(f(a))),
        UnKind::I32ToF32 => word((s(w) as f32).to_bits()),
        UnKind::U32ToF32 => word((w as f32).to_bits()),
        UnKind::NonZero => u64::from(a != 0),
        UnKind::F32ToBool => u64::from(f(a) != 0.0),
        UnKind::BoolToF32 => word(if a != 0 { 1.0f32 } else { 0.0f32 }.to_bits()),
        UnKind::NegI64 => a.wrapping_neg(),
        UnKind::BitNot64 => !a,
        UnKind::AbsS64 => s64(a).wrapping_abs() as u64,
        UnKind::SignExtend32 => i64::from(s(w)) as u64,
        UnKind::Truncate32 => word(w),
        UnKind::F32ToI64 => f32_to_i64(f(a)) as u64,
        UnKind::F32ToU64 => f32_to_u64(f(a)),
        UnKind::I64ToF32 => word((s64(a) as f32).to_bits()),
        UnKind::U64ToF32 => word((a as f32).to_bits()),
        UnKind::F32ToF16 => u64::from(half::f16::from_f32(f(a)).to_bits()),
        UnKind::F16ToF32 => word(half::f16::from_bits(a as u16).to_f32().to_bits()),
        _ => word(float_un(op, f(a)).to_bits()),
    }
}

/// True for the unary operators with an `f32` result computed from an `f32` operand.
pub(crate) const fn is_float_un(op: UnKind) -> bool {
    matches!(
        op,
        UnKind::NegF
            | UnKind::AbsF
            | UnKind::Sqrt
            | UnKind::InverseSqrt
            | UnKind::Exp
            | UnKind::Exp2
            | UnKind::Log
            | UnKind::Log2
            | UnKind::Sin
            | UnKind::Cos
            | UnKind::Floor
            | UnKind::Ceil
            | UnKind::Round
            | UnKind::Trunc
            | UnKind::Fract
    )
}

/// True for the float-to-integer casts, whose result is indeterminate for NaN and infinities.
pub(crate) const fn is_float_to_int(op: UnKind) -> bool {
    matches!(
        op,
        UnKind::F32ToI32 | UnKind::F32ToU32 | UnKind::F32ToI64 | UnKind::F32ToU64
    )
}

/// A float math function with Rust's `std` implementation.
#[inline(always)]
pub(crate) fn float_un(op: UnKind, x: f32) -> f32 {
    match op {
        UnKind::NegF => -x,
        UnKind::AbsF => x.abs(),
        UnKind::Sqrt => x.sqrt(),
        UnKind::InverseSqrt => 1.0 / x.sqrt(),
        UnKind::Exp => x.exp(),
        UnKind::Exp2 => x.exp2(),
        UnKind::Log => x.ln(),
        UnKind::Log2 => x.log2(),
        UnKind::Sin => x.sin(),
        UnKind::Cos => x.cos(),
        UnKind::Floor => x.floor(),
        UnKind::Ceil => x.ceil(),
        UnKind::Round => x.round_ties_even(),
        UnKind::Trunc => x.trunc(),
        UnKind::Fract => x - x.floor(),
        _ => f32::NAN,
    }
}

/// `i32(x)`: truncation saturating at the f32-representable bounds; NaN gives 0 (indeterminate).
pub(crate) fn f32_to_i32(x: f32) -> i32 {
    if x.is_nan() {
        0
    } else if x >= I32_CAST_MAX as f32 {
        I32_CAST_MAX
    } else if x <= i32::MIN as f32 {
        i32::MIN
    } else {
        x as i32
    }
}

/// `u32(x)`: truncation saturating at `[0, 4294967040]`; NaN gives 0 (indeterminate).
pub(crate) fn f32_to_u32(x: f32) -> u32 {
    if x.is_nan() || x <= 0.0 {
        0
    } else if x >= U32_CAST_MAX as f32 {
        U32_CAST_MAX
    } else {
        x as u32
    }
}

/// `i64(x)`: truncation saturating at `[-2^63, 2^63 - 2^39]`; NaN gives 0 (indeterminate).
pub(crate) fn f32_to_i64(x: f32) -> i64 {
    if x.is_nan() {
        0
    } else if x >= I64_CAST_MAX as f32 {
        I64_CAST_MAX
    } else if x <= i64::MIN as f32 {
        i64::MIN
    } else {
        x as i64
    }
}

/// `u64(x)`: truncation saturating at `[0, 2^64 - 2^40]`; NaN gives 0 (indeterminate).
pub(crate) fn f32_to_u64(x: f32) -> u64 {
    if x.is_nan() || x <= 0.0 {
        0
    } else if x >= U64_CAST_MAX as f32 {
        U64_CAST_MAX
    } else {
        x as u64
    }
}

/// True when a float result is indeterminate under `SEMANTICS.md`: it overflowed or became NaN while
/// every input was finite.
#[inline(always)]
pub(crate) fn overflowed(result: f32, inputs_finite: bool) -> bool {
    inputs_finite && !result.is_finite()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 32-bit value as the zero-extended word a register holds.
    fn w(v: i32) -> u64 {
        u64::from(v as u32)
    }

    #[test]
    fn division_edges_follow_semantics() {
        assert_eq!(int_bin(BinKind::DivU, 7, 0), 7);
        assert_eq!(int_bin(BinKind::RemU, 7, 0), 0);
        let min = w(i32::MIN);
        assert_eq!(int_bin(BinKind::DivS, min, w(-1)), min);
        assert_eq!(int_bin(BinKind::RemS, min, w(-1)), 0);
        assert_eq!(int_bin(BinKind::DivS, w(-7), 2), w(-3));
        assert_eq!(int_bin(BinKind::RemS, w(-7), 2), w(-1));
        let min64 = i64::MIN as u64;
        assert_eq!(int_bin(BinKind::DivS64, min64, u64::MAX), min64);
        assert_eq!(int_bin(BinKind::RemS64, min64, u64::MAX), 0);
        assert_eq!(int_bin(BinKind::DivU64, 7, 0), 7);
        assert_eq!(int_bin(BinKind::RemU64, 7, 0), 0);
        assert_eq!(int_bin(BinKind::DivS64, -7i64 as u64, 2), -3i64 as u64);
    }

    #[test]
    fn thirty_two_bit_results_stay_in_the_low_word() {
        assert_eq!(int_bin(BinKind::Add, 0xffff_ffff, 1), 0);
        assert_eq!(int_bin(BinKind::Mul, 0x1_0000, 0x1_0000), 0);
        assert_eq!(un(UnKind::BitNot, 0), 0xffff_ffff);
        assert_eq!(un(UnKind::NegI, 1), 0xffff_ffff);
        assert_eq!(int_bin(BinKind::Add64, u64::MAX, 1), 0);
        assert_eq!(int_bin(BinKind::Shl64, 1, 64 + 3), 8);
        assert_eq!(int_bin(BinKind::ShrS64, i64::MIN as u64, 63), u64::MAX);
        assert_eq!(un(UnKind::SignExtend32, w(-2)), -2i64 as u64);
        assert_eq!(un(UnKind::Truncate32, 0x1234_5678_9abc_def0), 0x9abc_def0);
    }

    #[test]
    fn float_to_64_bit_saturates_at_representable_bounds() {
        assert_eq!(f32_to_i64(1e30), I64_CAST_MAX);
        assert_eq!(f32_to_i64(-1e30), i64::MIN);
        assert_eq!(f32_to_u64(1e30), U64_CAST_MAX);
        assert_eq!(f32_to_u64(-5.0), 0);
        assert_eq!(f32_to_i64(-2.5), -2);
        assert_eq!(I64_CAST_MAX as f32 as i64, I64_CAST_MAX);
        assert_eq!(U64_CAST_MAX as f32 as u64, U64_CAST_MAX);
    }

    #[test]
    fn float_to_int_saturates_at_representable_bounds() {
        assert_eq!(f32_to_i32(3e9), 2_147_483_520);
        assert_eq!(f32_to_i32(-3e9), i32::MIN);
        assert_eq!(f32_to_u32(-1.0), 0);
        assert_eq!(f32_to_u32(1e10), 4_294_967_040);
        assert_eq!(f32_to_u32(f32::INFINITY), 4_294_967_040);
        assert_eq!(f32_to_i32(f32::NAN), 0);
        assert_eq!(f32_to_i32(-2.9), -2);
    }

    #[test]
    fn ne_on_nan_is_false() {
        let nan = u64::from(f32::NAN.to_bits());
        assert_eq!(int_bin(BinKind::NeF, nan, nan), 0);
        let (one, two) = (u64::from(1.0f32.to_bits()), u64::from(2.0f32.to_bits()));
        assert_eq!(int_bin(BinKind::NeF, one, two), 1);
    }
}
