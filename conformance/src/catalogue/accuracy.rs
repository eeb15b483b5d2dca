//! The WGSL accuracy table (`SEMANTICS.md` section 7) as acceptance sets for `f32` operations.
//!
//! Each function takes the `f32` inputs of one case and returns what a backend may yield. Inputs that a
//! backend may flush (subnormals) are tried both as themselves and as zero, and the sets are joined.
//! An infinite or NaN input makes the result indeterminate, except for comparisons (false with a NaN)
//! and `min`/`max` (either operand with a NaN).

use vyre_foundation::ir::{BinOp, UnOp};

use crate::catalogue::interval::{Acceptance, flush_variants};

/// Absolute error allowed for `log`/`log2` on `[0.5, 2]`.
const LOG_ABSOLUTE: f64 = 1.0 / 2_097_152.0; // 2^-21

/// Absolute error allowed for `sin`/`cos` on `[-pi, pi]`.
const TRIG_ABSOLUTE: f64 = 1.0 / 2048.0; // 2^-11

/// What `op(a, b)` on `f32` operands may yield; `None` for operators that do not take `f32`.
#[must_use]
pub fn binary(op: BinOp, a: f32, b: f32) -> Option<Acceptance> {
    if op.is_comparison() {
        return compare(op, a, b);
    }
    if matches!(op, BinOp::Min | BinOp::Max) && (a.is_nan() || b.is_nan()) {
        return Some(min_max_nan(a, b));
    }
    if !matches!(
        op,
        BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div | BinOp::Min | BinOp::Max
    ) {
        return None;
    }
    if !a.is_finite() || !b.is_finite() {
        return Some(Acceptance::Any);
    }
    Some(join_variants2(a, b, |x, y| arithmetic(op, x, y)))
}

/// One arithmetic operator on finite, unflushed inputs.
fn arithmetic(op: BinOp, a: f32, b: f32) -> Acceptance {
    let (x, y) = (f64::from(a), f64::from(b));
    match op {
        BinOp::Add => Acceptance::rounded_sum(x, y),
        BinOp::Sub => Acceptance::rounded_sum(x, -y),
        // The product of two f32 values is exact in f64 (48 significant bits).
        BinOp::Mul => Acceptance::correctly_rounded(x * y),
        BinOp::Div => divide(x, y),
        BinOp::Min => Acceptance::correctly_rounded(x.min(y)),
        _ => Acceptance::correctly_rounded(x.max(y)),
    }
}

/// `x / y`: 2.5 ULP when `|y|` is in `[2^-126, 2^126]`, anything otherwise.
fn divide(x: f64, y: f64) -> Acceptance {
    let magnitude = y.abs();
    if !(2f64.powi(-126)..=2f64.powi(126)).contains(&magnitude) {
        return Acceptance::Any;
    }
    Acceptance::within_ulps(x / y, 2.5)
}

/// `min`/`max` with a NaN operand: the other operand, or NaN.
fn min_max_nan(a: f32, b: f32) -> Acceptance {
    let other = if a.is_nan() { b } else { a };
    if other.is_nan() {
        return Acceptance::Float {
            lo: f64::INFINITY,
            hi: f64::NEG_INFINITY,
            nan: true,
        };
    }
    let value = f64::from(other);
    Acceptance::Float {
        lo: value,
        hi: value,
        nan: true,
    }
}

/// A comparison: `false` with a NaN operand (ordered comparisons, `ne` included), indeterminate with an
/// infinite one, and either answer when flushing a subnormal operand changes it.
fn compare(op: BinOp, a: f32, b: f32) -> Option<Acceptance> {
    if a.is_nan() || b.is_nan() {
        return Some(Acceptance::word(0));
    }
    if a.is_infinite() || b.is_infinite() {
        return Some(Acceptance::Any);
    }
    let answer = |x: f32, y: f32| -> Acceptance {
        let result = match op {
            BinOp::Eq => x == y,
            BinOp::Ne => x != y,
            BinOp::Lt => x < y,
            BinOp::Le => x <= y,
            BinOp::Gt => x > y,
            _ => x >= y,
        };
        Acceptance::word(u32::from(result))
    };
    Some(join_variants2(a, b, answer))
}

/// What `op(x)` on an `f32` operand may yield; `None` for operators that do not take `f32`.
#[must_use]
pub fn unary(op: UnOp, x: f32) -> Option<Acceptance> {
    if !matches!(op, UnOp::Neg | UnOp::Abs) && !op.is_float_math() {
        return None;
    }
    if !x.is_finite() {
        return Some(Acceptance::Any);
    }
    let mut joined: Option<Acceptance> = None;
    for v in flush_variants(x) {
        let one = unary_finite(op, f64::from(v));
        joined = Some(match joined {
            None => one,
            Some(j) => j.union(one),
        });
    }
    joined
}

/// One unary operator on a finite, unflushed input.
fn unary_finite(op: UnOp, x: f64) -> Acceptance {
    match op {
        UnOp::Neg => Acceptance::correctly_rounded(-x),
        UnOp::Abs => Acceptance::correctly_rounded(x.abs()),
        UnOp::Floor => Acceptance::correctly_rounded(x.floor()),
        UnOp::Ceil => Acceptance::correctly_rounded(x.ceil()),
        UnOp::Trunc => Acceptance::correctly_rounded(x.trunc()),
        UnOp::Round => Acceptance::correctly_rounded(x.round_ties_even()),
        UnOp::Fract => Acceptance::rounded_sum(x, -x.floor()),
        UnOp::Sqrt if x < 0.0 => Acceptance::Any,
        UnOp::Sqrt => Acceptance::within_ulps(x.sqrt(), 3.0),
        UnOp::InverseSqrt if x <= 0.0 => Acceptance::Any,
        UnOp::InverseSqrt => Acceptance::within_ulps(1.0 / x.sqrt(), 2.0),
        UnOp::Exp => Acceptance::within_ulps(x.exp(), 3.0 + 2.0 * x.abs()),
        UnOp::Exp2 => Acceptance::within_ulps(x.exp2(), 3.0 + 2.0 * x.abs()),
        UnOp::Log => logarithm(x, x.ln()),
        UnOp::Log2 => logarithm(x, x.log2()),
        UnOp::Sin => trigonometric(x, x.sin()),
        _ => trigonometric(x, x.cos()),
    }
}

/// `log`/`log2`: absolute 2^-21 on `[0.5, 2]`, 3 ULP elsewhere; indeterminate at or below zero.
fn logarithm(x: f64, exact: f64) -> Acceptance {
    if x <= 0.0 {
        Acceptance::Any
    } else if (0.5..=2.0).contains(&x) {
        Acceptance::within_absolute(exact, LOG_ABSOLUTE)
    } else {
        Acceptance::within_ulps(exact, 3.0)
    }
}

/// `sin`/`cos`: absolute 2^-11 on `[-pi, pi]`, anything outside.
fn trigonometric(x: f64, exact: f64) -> Acceptance {
    if x.abs() <= std::f64::consts::PI {
        Acceptance::within_absolute(exact, TRIG_ABSOLUTE)
    } else {
        Acceptance::Any
    }
}

/// `fma(a, b, c)`: the fused result, or `a * b + c` with the product rounded (either way) first.
#[must_use]
pub fn fma(a: f32, b: f32, c: f32) -> Acceptance {
    if !a.is_finite() || !b.is_finite() || !c.is_finite() {
        return Acceptance::Any;
    }
    let mut joined: Option<Acceptance> = None;
    for x in flush_variants(a) {
        for y in flush_variants(b) {
            for z in flush_variants(c) {
                let one = fma_finite(f64::from(x), f64::from(y), f64::from(z));
                joined = Some(match joined {
                    None => one,
                    Some(j) => j.union(one),
                });
            }
        }
    }
    joined.unwrap_or(Acceptance::Any)
}

/// `fma` on finite, unflushed inputs.
fn fma_finite(a: f64, b: f64, c: f64) -> Acceptance {
    let product = a * b; // Exact in f64.
    let fused = Acceptance::rounded_sum(product, c);
    match Acceptance::correctly_rounded(product) {
        Acceptance::Float { lo, hi, .. } => fused
            .union(Acceptance::rounded_sum(lo, c))
            .union(Acceptance::rounded_sum(hi, c)),
        // The product alone overflows: the unfused form is indeterminate.
        _ => Acceptance::Any,
    }
}

/// What `f32(x)` of an integer may yield: a correctly rounded value.
#[must_use]
pub fn int_to_f32(value: i64) -> Acceptance {
    Acceptance::correctly_rounded(value as f64)
}

/// Joins the acceptance of `f` over the flush variants of two operands.
fn join_variants2(a: f32, b: f32, f: impl Fn(f32, f32) -> Acceptance) -> Acceptance {
    let mut joined: Option<Acceptance> = None;
    for x in flush_variants(a) {
        for y in flush_variants(b) {
            let one = f(x, y);
            joined = Some(match joined {
                None => one,
                Some(j) => j.union(one),
            });
        }
    }
    joined.unwrap_or(Acceptance::Any)
}
