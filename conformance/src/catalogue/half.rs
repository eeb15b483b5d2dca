//! `f16` acceptance sets, mirroring the `f32` machinery of [`crate::catalogue::interval`] and
//! [`crate::catalogue::accuracy`] with `f16`'s precision and range, and the `half` crate (not the
//! reference's conversions) as the oracle for rounding.
//!
//! A correctly rounded operation accepts the exact result rounded down or up to an `f16`; `div` is
//! accepted within 2.5 ULP for divisors in `[2^-14, 2^14]` (the WGSL table); a subnormal `f16`
//! operand may be read as zero and a subnormal result returned as zero; a result past 65504 in
//! magnitude, and an infinite or NaN operand, make the case indeterminate (SEMANTICS.md section 7).

use half::f16;
use vyre_foundation::ir::{BinOp, UnOp};

use crate::catalogue::interval::{Acceptance, Interval, normalized};

/// The largest finite `f16`.
const MAX16: f64 = 65504.0;
/// The smallest positive normal `f16`, 2^-14.
const MIN_NORMAL16: f64 = 1.0 / 16384.0;

/// The value of the `f16` with bits `bits`.
#[must_use]
pub fn value(bits: u16) -> f64 {
    f16::from_bits(bits).to_f64()
}

/// The bits of the `f16` nearest to `x` (ties to even), by the `half` crate.
#[must_use]
pub fn round(x: f64) -> u16 {
    f16::from_f64(x).to_bits()
}

fn next_up(bits: u16) -> u16 {
    match bits {
        0x8000 => 0x0001,
        b if b & 0x8000 == 0 => b + 1,
        b => b - 1,
    }
}

fn next_down(bits: u16) -> u16 {
    next_up(bits ^ 0x8000) ^ 0x8000
}

/// The largest `f16` at or below `x`, as `f64`.
#[must_use]
pub fn at_or_below(x: f64) -> f64 {
    let h = round(x);
    if value(h) <= x {
        value(h)
    } else {
        value(next_down(h))
    }
}

/// The smallest `f16` at or above `x`, as `f64`.
#[must_use]
pub fn at_or_above(x: f64) -> f64 {
    let h = round(x);
    if value(h) >= x {
        value(h)
    } else {
        value(next_up(h))
    }
}

/// The distance between `f16` values at the magnitude of `x`.
fn ulp(x: f64) -> f64 {
    let m = x.abs();
    if m < MIN_NORMAL16 {
        return 2f64.powi(-24);
    }
    2f64.powi(m.log2().floor() as i32 - 10)
}

/// The result of an `f16` operation whose unflushed result lies in `[lo, hi]`: indeterminate past
/// the `f16` range, and zero accepted too where the interval holds a subnormal.
#[must_use]
pub fn range(lo: f64, hi: f64) -> Acceptance {
    if lo.is_nan() || hi.is_nan() || hi > MAX16 || lo < -MAX16 {
        return Acceptance::Any;
    }
    let mut intervals = vec![Interval { lo, hi }];
    let subnormal = |x: f64| x != 0.0 && x.abs() < MIN_NORMAL16;
    if subnormal(lo) || subnormal(hi) || (lo < 0.0 && hi > 0.0) {
        intervals.push(Interval { lo: 0.0, hi: 0.0 });
    }
    Acceptance::Half {
        intervals: normalized(intervals),
        nan: false,
    }
}

/// A correctly rounded `f16` result: `exact` rounded down or up.
#[must_use]
pub fn correctly_rounded(exact: f64) -> Acceptance {
    range(at_or_below(exact), at_or_above(exact))
}

/// Within `ulps` `f16` ULPs of `exact`.
#[must_use]
pub fn within_ulps(exact: f64, ulps: f64) -> Acceptance {
    if !exact.is_finite() {
        return Acceptance::Any;
    }
    let step = ulps * ulp(exact);
    range(at_or_below(exact - step), at_or_above(exact + step))
}

/// Exactly the value `x` (either sign of zero), no flushing: an operand passed through.
fn exactly(x: f64) -> Acceptance {
    Acceptance::Half {
        intervals: vec![Interval { lo: x, hi: x }],
        nan: false,
    }
}

fn nan() -> Acceptance {
    Acceptance::Half {
        intervals: Vec::new(),
        nan: true,
    }
}

/// The ways an operation may read the `f16` with bits `bits`: as it is, and as zero when subnormal.
fn readings(bits: u16) -> Vec<f64> {
    let v = value(bits);
    if v != 0.0 && v.abs() < MIN_NORMAL16 {
        vec![v, 0.0]
    } else {
        vec![v]
    }
}

/// What `op(a, b)` on `f16` operands (bits) may yield; `None` for operators the catalogue does not
/// model on `f16` (`rem`, the integer and bool operators).
#[must_use]
pub fn binary(op: BinOp, a: u16, b: u16) -> Option<Acceptance> {
    let modelled = matches!(
        op,
        BinOp::Add
            | BinOp::Sub
            | BinOp::Mul
            | BinOp::Div
            | BinOp::Min
            | BinOp::Max
            | BinOp::Eq
            | BinOp::Ne
            | BinOp::Lt
            | BinOp::Le
            | BinOp::Gt
            | BinOp::Ge
    );
    if !modelled {
        return None;
    }
    let mut joined: Option<Acceptance> = None;
    for x in readings(a) {
        for y in readings(b) {
            let one = one_reading(op, x, y);
            joined = Some(match joined {
                None => one,
                Some(j) => j.union(one),
            });
        }
    }
    joined
}

fn one_reading(op: BinOp, x: f64, y: f64) -> Acceptance {
    if op.is_comparison() {
        if x.is_nan() || y.is_nan() {
            return Acceptance::word(0);
        }
        if x.is_infinite() || y.is_infinite() {
            return Acceptance::Any;
        }
        let result = match op {
            BinOp::Eq => x == y,
            BinOp::Ne => x != y,
            BinOp::Lt => x < y,
            BinOp::Le => x <= y,
            BinOp::Gt => x > y,
            _ => x >= y,
        };
        return Acceptance::word(u32::from(result));
    }
    if matches!(op, BinOp::Min | BinOp::Max) && (x.is_nan() || y.is_nan()) {
        let other = if x.is_nan() { y } else { x };
        let value = if other.is_nan() {
            nan()
        } else if other.is_infinite() {
            exactly(other)
        } else {
            correctly_rounded(other)
        };
        return value.union(nan());
    }
    if !x.is_finite() || !y.is_finite() {
        return Acceptance::Any;
    }
    // Sums, differences and products of two f16 values are exact in f64.
    match op {
        BinOp::Add => correctly_rounded(x + y),
        BinOp::Sub => correctly_rounded(x - y),
        BinOp::Mul => correctly_rounded(x * y),
        BinOp::Div if (MIN_NORMAL16..=16384.0).contains(&y.abs()) => within_ulps(x / y, 2.5),
        BinOp::Div => Acceptance::Any,
        BinOp::Min => correctly_rounded(x.min(y)),
        _ => correctly_rounded(x.max(y)),
    }
}

/// What `op(x)` on an `f16` operand (bits) may yield; `None` for operators `f16` does not take.
#[must_use]
pub fn unary(op: UnOp, bits: u16) -> Option<Acceptance> {
    let f: fn(f64) -> f64 = match op {
        UnOp::Neg => |x| -x,
        UnOp::Abs => f64::abs,
        UnOp::Floor => f64::floor,
        UnOp::Ceil => f64::ceil,
        UnOp::Trunc => f64::trunc,
        UnOp::Round => f64::round_ties_even,
        UnOp::Fract => |x| x - x.floor(),
        _ => return None,
    };
    let mut joined: Option<Acceptance> = None;
    for x in readings(bits) {
        let one = if x.is_finite() {
            correctly_rounded(f(x))
        } else {
            Acceptance::Any
        };
        joined = Some(match joined {
            None => one,
            Some(j) => j.union(one),
        });
    }
    joined
}

/// The `f16` edge values (bits): signed zeros, ones, ties, a value inexact in `f16` (0.1), the
/// largest integers that are exact, the extremes, the smallest normal, subnormals, the infinities and
/// NaN.
#[must_use]
pub fn edges() -> Vec<u16> {
    let mut out: Vec<u16> = [
        0.0f32, -0.0, 1.0, -1.0, 0.5, 1.5, -2.5, 3.0, 0.1, -7.25, 1.0e-3, 2047.0, 2048.0, 65504.0,
        -65504.0, 3.140625,
    ]
    .iter()
    .map(|&v| f16::from_f32(v).to_bits())
    .collect();
    // The smallest normal, the smallest and largest subnormals, the infinities, a NaN.
    out.extend([0x0400, 0x0001, 0x03ff, 0x8001, 0x7c00, 0xfc00, 0x7e00]);
    out
}
