//! IEEE binary16 (`f16`) conversions on bits, so the IR can build, print and parse `f16` literals
//! without a dependency: the reference backend and the lowerings use the `half` crate, and the tests
//! of this module check these against it.

/// The `f32` holding exactly the value of the `f16` with bits `bits` (every `f16` is an `f32`).
/// NaNs stay NaNs with their payload in the top mantissa bits.
///
/// ```
/// use vyre_foundation::ir::f16_bits_to_f32;
///
/// assert_eq!(f16_bits_to_f32(0x3c00), 1.0);
/// assert_eq!(f16_bits_to_f32(0x7bff), 65504.0);
/// assert_eq!(f16_bits_to_f32(0x0001), 2f32.powi(-24));
/// ```
#[must_use]
pub const fn f16_bits_to_f32(bits: u16) -> f32 {
    let sign = ((bits & 0x8000) as u32) << 16;
    let exp = ((bits >> 10) & 0x1f) as u32;
    let man = (bits & 0x3ff) as u32;
    let word = if exp == 0x1f {
        sign | 0x7f80_0000 | (man << 13)
    } else if exp != 0 {
        sign | ((exp + 112) << 23) | (man << 13)
    } else if man == 0 {
        sign
    } else {
        // A subnormal `man * 2^-24` is a normal f32: move its top bit to the implicit position.
        let top = 31 - man.leading_zeros();
        sign | ((top + 103) << 23) | ((man << (23 - top)) & 0x7f_ffff)
    };
    f32::from_bits(word)
}

/// The bits of the `f16` nearest to `value`, ties to even (IEEE round-to-nearest-even): values at or
/// past 65520 in magnitude become infinities, tiny values subnormals or zeros. A NaN stays a quiet NaN.
///
/// ```
/// use vyre_foundation::ir::f32_to_f16_bits;
///
/// assert_eq!(f32_to_f16_bits(1.0), 0x3c00);
/// assert_eq!(f32_to_f16_bits(65504.0), 0x7bff);
/// assert_eq!(f32_to_f16_bits(65520.0), 0x7c00);
/// assert_eq!(f32_to_f16_bits(0.1), 0x2e66);
/// ```
#[must_use]
pub const fn f32_to_f16_bits(value: f32) -> u16 {
    let x = value.to_bits();
    let sign = ((x >> 16) & 0x8000) as u16;
    let exp = ((x >> 23) & 0xff) as i32;
    let man = x & 0x7f_ffff;
    if exp == 0xff {
        return if man == 0 {
            sign | 0x7c00
        } else {
            sign | 0x7e00 | (man >> 13) as u16
        };
    }
    let e = exp - 127 + 15;
    if e >= 0x1f {
        return sign | 0x7c00;
    }
    if e <= 0 {
        if e < -10 {
            // Below half the smallest subnormal: rounds to zero.
            return sign;
        }
        let m = man | 0x80_0000;
        let shift = (14 - e) as u32;
        let kept = m >> shift;
        let rest = m & ((1 << shift) - 1);
        let halfway = 1 << (shift - 1);
        let up = rest > halfway || (rest == halfway && kept & 1 == 1);
        return sign | (kept + up as u32) as u16;
    }
    let kept = ((e as u32) << 10) | (man >> 13);
    let rest = man & 0x1fff;
    let up = rest > 0x1000 || (rest == 0x1000 && kept & 1 == 1);
    // A carry out of the mantissa steps the exponent, up to the infinity 0x7c00: still correct.
    sign | (kept + up as u32) as u16
}

/// The bits of the `f16` nearest to `value`, rounding once: `f64` is first rounded to odd at `f32`
/// precision, which has enough extra bits that the second rounding to `f16` is still correct.
pub(crate) fn f64_to_f16_bits(value: f64) -> u16 {
    let mut r = value as f32;
    if r.is_finite() && f64::from(r) != value && r.to_bits() & 1 == 0 {
        r = if f64::from(r) < value {
            r.next_up()
        } else {
            r.next_down()
        };
    }
    f32_to_f16_bits(r)
}

#[cfg(test)]
mod tests {
    use super::{f16_bits_to_f32, f32_to_f16_bits, f64_to_f16_bits};
    use half::f16;

    #[test]
    fn every_f16_converts_to_f32_as_half_does() {
        for bits in 0..=u16::MAX {
            let ours = f16_bits_to_f32(bits);
            let theirs = f16::from_bits(bits).to_f32();
            if theirs.is_nan() {
                assert!(ours.is_nan(), "{bits:#06x}");
            } else {
                assert_eq!(ours.to_bits(), theirs.to_bits(), "{bits:#06x}");
            }
        }
    }

    #[test]
    fn f32_to_f16_rounds_as_half_does() {
        // Every f16 and its neighbourhood (ties included), then a stride through all f32 bits.
        let check = |x: f32| {
            let ours = f32_to_f16_bits(x);
            let theirs = f16::from_f32(x);
            if x.is_nan() {
                assert!(f16::from_bits(ours).is_nan(), "{x:e}");
            } else {
                assert_eq!(ours, theirs.to_bits(), "{x:e}");
            }
        };
        for bits in 0..=u16::MAX {
            let v = f16_bits_to_f32(bits);
            for d in [-0x1001i32, -0x1000, -0xfff, -1, 0, 1, 0xfff, 0x1000, 0x1001] {
                check(f32::from_bits(v.to_bits().wrapping_add_signed(d)));
            }
        }
        for bits in (0..=u32::MAX).step_by(4099) {
            check(f32::from_bits(bits));
        }
    }

    #[test]
    fn f64_to_f16_rounds_once() {
        // Just above a tie between two f16s: a double rounding through f32 would round down.
        let tie = f64::from(f16_bits_to_f32(0x3c00)) + 2f64.powi(-11);
        assert_eq!(f64_to_f16_bits(tie), 0x3c00);
        assert_eq!(f64_to_f16_bits(tie + 2f64.powi(-40)), 0x3c01);
        assert_eq!(f64_to_f16_bits(0.1), f16::from_f64(0.1).to_bits());
        assert_eq!(f64_to_f16_bits(-65504.0), 0xfbff);
    }
}
