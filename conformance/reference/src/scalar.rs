//! The meaning of every operator on one lane's 32-bit words, exactly as `SEMANTICS.md` states it.
//!
//! These are the only places where the reference decides what an operation yields; the executor maps
//! them over lanes. Integer rules follow section 4, conversions section 6, floats section 7.

use crate::inst::{BinKind, UnKind};

/// The largest `i32` that is exactly representable in `f32`: where float-to-int casts saturate.
pub(crate) const I32_CAST_MAX: i32 = 2_147_483_520;
/// The largest `u32` that is exactly representable in `f32`.
pub(crate) const U32_CAST_MAX: u32 = 4_294_967_040;

/// The divisor WGSL uses: `1` where the division would trap (by zero, or `MIN / -1`).
const fn safe_divisor_s(a: i32, b: i32) -> i32 {
    if b == 0 || (a == i32::MIN && b == -1) {
        1
    } else {
        b
    }
}

#[inline(always)]
fn f(bits: u32) -> f32 {
    f32::from_bits(bits)
}

#[inline(always)]
fn s(bits: u32) -> i32 {
    bits as i32
}

/// `op` on two words. Float results that matter for tracing are handled by [`float_bin`].
#[inline(always)]
pub(crate) fn int_bin(op: BinKind, a: u32, b: u32) -> u32 {
    match op {
        BinKind::Add => a.wrapping_add(b),
        BinKind::Sub => a.wrapping_sub(b),
        BinKind::Mul => a.wrapping_mul(b),
        BinKind::DivU => a / if b == 0 { 1 } else { b },
        BinKind::DivS => s(a).wrapping_div(safe_divisor_s(s(a), s(b))) as u32,
        BinKind::RemU => a % if b == 0 { 1 } else { b },
        BinKind::RemS => s(a).wrapping_rem(safe_divisor_s(s(a), s(b))) as u32,
        BinKind::And => a & b,
        BinKind::Or => a | b,
        BinKind::Xor => a ^ b,
        BinKind::Shl => a.wrapping_shl(b),
        BinKind::ShrU => a.wrapping_shr(b),
        BinKind::ShrS => s(a).wrapping_shr(b) as u32,
        BinKind::Eq => u32::from(a == b),
        BinKind::Ne => u32::from(a != b),
        BinKind::LtU => u32::from(a < b),
        BinKind::LeU => u32::from(a <= b),
        BinKind::LtS => u32::from(s(a) < s(b)),
        BinKind::LeS => u32::from(s(a) <= s(b)),
        BinKind::MinU => a.min(b),
        BinKind::MaxU => a.max(b),
        BinKind::MinS => s(a).min(s(b)) as u32,
        BinKind::MaxS => s(a).max(s(b)) as u32,
        BinKind::EqF => u32::from(f(a) == f(b)),
        // Ordered comparison, as naga emits it: false when either side is NaN.
        BinKind::NeF => u32::from(f(a) < f(b) || f(a) > f(b)),
        BinKind::LtF => u32::from(f(a) < f(b)),
        BinKind::LeF => u32::from(f(a) <= f(b)),
        BinKind::AddF
        | BinKind::SubF
        | BinKind::MulF
        | BinKind::DivF
        | BinKind::RemF
        | BinKind::MinF
        | BinKind::MaxF => float_bin(op, f(a), f(b)).to_bits(),
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
pub(crate) fn un(op: UnKind, a: u32) -> u32 {
    match op {
        UnKind::NegI => a.wrapping_neg(),
        UnKind::BitNot => !a,
        UnKind::Not => a ^ 1,
        UnKind::AbsS => s(a).wrapping_abs() as u32,
        UnKind::Popcount => a.count_ones(),
        UnKind::Clz => a.leading_zeros(),
        UnKind::Ctz => a.trailing_zeros(),
        UnKind::ReverseBits => a.reverse_bits(),
        UnKind::F32ToI32 => f32_to_i32(f(a)) as u32,
        UnKind::F32ToU32 => f32_to_u32(f(a)),
        UnKind::I32ToF32 => (s(a) as f32).to_bits(),
        UnKind::U32ToF32 => (a as f32).to_bits(),
        UnKind::NonZero => u32::from(a != 0),
        UnKind::F32ToBool => u32::from(f(a) != 0.0),
        UnKind::BoolToF32 => if a != 0 { 1.0f32 } else { 0.0f32 }.to_bits(),
        _ => float_un(op, f(a)).to_bits(),
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
    matches!(op, UnKind::F32ToI32 | UnKind::F32ToU32)
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

/// True when a float result is indeterminate under `SEMANTICS.md`: it overflowed or became NaN while
/// every input was finite.
#[inline(always)]
pub(crate) fn overflowed(result: f32, inputs_finite: bool) -> bool {
    inputs_finite && !result.is_finite()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn division_edges_follow_semantics() {
        assert_eq!(int_bin(BinKind::DivU, 7, 0), 7);
        assert_eq!(int_bin(BinKind::RemU, 7, 0), 0);
        let min = i32::MIN as u32;
        assert_eq!(int_bin(BinKind::DivS, min, -1i32 as u32), min);
        assert_eq!(int_bin(BinKind::RemS, min, -1i32 as u32), 0);
        assert_eq!(int_bin(BinKind::DivS, -7i32 as u32, 2), -3i32 as u32);
        assert_eq!(int_bin(BinKind::RemS, -7i32 as u32, 2), -1i32 as u32);
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
        let nan = f32::NAN.to_bits();
        assert_eq!(int_bin(BinKind::NeF, nan, nan), 0);
        assert_eq!(int_bin(BinKind::NeF, 1.0f32.to_bits(), 2.0f32.to_bits()), 1);
    }
}
