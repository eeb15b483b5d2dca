//! Float acceptance intervals from `SEMANTICS.md` section 7, measured in ULPs of the exact result.
//!
//! The flush rule is not restated here: which operands a float operation may read as zero comes
//! from [`operand_readings`](crate::catalogue::interval::operand_readings), and when a result may
//! be zero from [`holds_subnormal`], both in the catalogue's `interval` module.

pub use crate::catalogue::interval::flushed;
use crate::catalogue::interval::holds_subnormal;

/// The distance in representable `f32` values between `a` and `b`; `+0.0` and `-0.0` are the same
/// point. NaN is `u64::MAX` away from everything, including NaN.
#[must_use]
pub fn ulp_distance(a: f32, b: f32) -> u64 {
    if a.is_nan() || b.is_nan() {
        return u64::MAX;
    }
    let ordered = |x: f32| {
        let bits = x.to_bits();
        let magnitude = i64::from(bits & 0x7fff_ffff);
        if bits >> 31 == 1 {
            -magnitude
        } else {
            magnitude
        }
    };
    ordered(a).abs_diff(ordered(b))
}

/// The spacing of `f32` values at the magnitude of `x` (the smallest subnormal for tiny `x`).
#[must_use]
pub fn ulp_at(x: f64) -> f64 {
    let smallest = 2f64.powi(-149);
    let x = x.abs();
    if x < 2f64.powi(-126) {
        return smallest;
    }
    2f64.powi(x.log2().floor() as i32 - 23)
}

/// The error of `actual` against the `exact` real result, in ULPs at the exact result.
#[must_use]
pub fn ulp_error(actual: f32, exact: f64) -> f64 {
    if actual.is_nan() {
        return f64::INFINITY;
    }
    (f64::from(actual) - exact).abs() / ulp_at(exact)
}

/// True when `SEMANTICS.md` makes any result acceptable: an input is infinite or NaN, or the exact
/// result overflows `f32`.
#[must_use]
pub fn indeterminate(inputs: &[f32], exact: f64) -> bool {
    inputs.iter().any(|x| !x.is_finite()) || !exact.is_finite() || exact.abs() > f64::from(f32::MAX)
}

/// True when `actual` is within `ulps` of `exact`, or is zero where that window holds a subnormal
/// value (a float operation may flush its result: the rule of
/// [`holds_subnormal`](crate::catalogue::interval::holds_subnormal)).
#[must_use]
pub fn within_ulps(actual: f32, exact: f64, ulps: f64) -> bool {
    let step = ulps * ulp_at(exact);
    let flushable = holds_subnormal(exact - step, exact + step);
    ulp_error(actual, exact) <= ulps || (flushable && actual == 0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ulp_distance_counts_representable_steps() {
        assert_eq!(ulp_distance(1.0, 1.0), 0);
        assert_eq!(ulp_distance(0.0, -0.0), 0);
        assert_eq!(ulp_distance(1.0, f32::from_bits(1.0f32.to_bits() + 3)), 3);
        assert_eq!(ulp_distance(f32::from_bits(1), -f32::from_bits(1)), 2);
        assert_eq!(ulp_distance(f32::NAN, f32::NAN), u64::MAX);
    }

    #[test]
    fn ulp_error_is_relative_to_the_exact_value() {
        let one_up = f32::from_bits(1.0f32.to_bits() + 1);
        assert!((ulp_error(one_up, 1.0) - 1.0).abs() < 1e-9);
        assert!(within_ulps(0.0, 1e-40, 0.0));
        assert!(!within_ulps(2.0, 1.0, 3.0));
    }
}
