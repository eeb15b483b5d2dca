//! The WGSL accuracy table (`SEMANTICS.md` section 7) as acceptance sets for `f32` operations.
//!
//! Each public function takes the `f32` inputs of one case and returns what a backend may yield. Each
//! one states its rule for operands read as given and hands it to
//! [`over_flushed_operands`], which applies the flush rule of [`interval`](crate::catalogue::interval)
//! once for all of them: every subnormal operand is also read as zero, and the sets of all readings
//! are joined; subnormal results may become zero through [`Acceptance::float_range`]. An infinite or
//! NaN input makes the result indeterminate, except for comparisons (false with a NaN) and
//! `min`/`max` (the other operand, or NaN, with a NaN).

use vyre_foundation::ir::{BinOp, UnOp};

use crate::catalogue::interval::{Acceptance, over_flushed_operands};

/// Absolute error allowed for `log`/`log2` on `[0.5, 2]`.
const LOG_ABSOLUTE: f64 = 1.0 / 2_097_152.0; // 2^-21

/// Absolute error allowed for `sin`/`cos` on `[-pi, pi]`.
const TRIG_ABSOLUTE: f64 = 1.0 / 2048.0; // 2^-11

/// What `op(a, b)` on `f32` operands may yield; `None` for operators that do not take `f32`, or
/// whose accuracy the catalogue does not model (`rem`).
#[must_use]
pub fn binary(op: BinOp, a: f32, b: f32) -> Option<Acceptance> {
    match op {
        BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div | BinOp::Min | BinOp::Max => {
            Some(over_flushed_operands([a, b], |[x, y]| arithmetic(op, x, y)))
        }
        BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => {
            Some(over_flushed_operands([a, b], |[x, y]| compare(op, x, y)))
        }
        BinOp::Rem
        | BinOp::BitAnd
        | BinOp::BitOr
        | BinOp::BitXor
        | BinOp::Shl
        | BinOp::Shr
        | BinOp::And
        | BinOp::Or => None,
    }
}

/// One arithmetic operator on operands read as given.
fn arithmetic(op: BinOp, a: f32, b: f32) -> Acceptance {
    if matches!(op, BinOp::Min | BinOp::Max) && (a.is_nan() || b.is_nan()) {
        return min_max_nan(a, b);
    }
    if !a.is_finite() || !b.is_finite() {
        return Acceptance::Any;
    }
    let (x, y) = (f64::from(a), f64::from(b));
    match op {
        BinOp::Add => Acceptance::rounded_sum(x, y),
        BinOp::Sub => Acceptance::rounded_sum(x, -y),
        // The product of two f32 values is exact in f64 (48 significant bits).
        BinOp::Mul => Acceptance::correctly_rounded(x * y),
        BinOp::Div => divide(x, y),
        BinOp::Min => Acceptance::correctly_rounded(x.min(y)),
        BinOp::Max => Acceptance::correctly_rounded(x.max(y)),
        // `binary` only passes the operators above.
        BinOp::Rem
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
        | BinOp::Or => Acceptance::Any,
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

/// `min`/`max` with a NaN operand: the other operand, or NaN. The other operand is the result of an
/// operation like any other, so a subnormal one may come back as zero (and, read flushed by
/// [`over_flushed_operands`], it may have been zero all along). An infinite other operand is
/// returned as it is: the NaN rule is the more specific one.
fn min_max_nan(a: f32, b: f32) -> Acceptance {
    let other = if a.is_nan() { b } else { a };
    let value = if other.is_nan() {
        Acceptance::nan()
    } else if other.is_infinite() {
        Acceptance::float_value(f64::from(other))
    } else {
        Acceptance::correctly_rounded(f64::from(other))
    };
    value.union(Acceptance::nan())
}

/// A comparison on operands read as given: `false` with a NaN operand (ordered comparisons, `ne`
/// included), indeterminate with an infinite one. Either sign of zero compares equal, so the sign a
/// flushed operand takes cannot change the answer.
fn compare(op: BinOp, a: f32, b: f32) -> Acceptance {
    if a.is_nan() || b.is_nan() {
        return Acceptance::word(0);
    }
    if a.is_infinite() || b.is_infinite() {
        return Acceptance::Any;
    }
    let result = match op {
        BinOp::Eq => a == b,
        BinOp::Ne => a != b,
        BinOp::Lt => a < b,
        BinOp::Le => a <= b,
        BinOp::Gt => a > b,
        BinOp::Ge => a >= b,
        // `binary` only passes the comparisons.
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
        | BinOp::And
        | BinOp::Or
        | BinOp::Min
        | BinOp::Max => return Acceptance::Any,
    };
    Acceptance::word(u32::from(result))
}

/// What `op(x)` on an `f32` operand may yield; `None` for operators that do not take `f32`.
#[must_use]
pub fn unary(op: UnOp, x: f32) -> Option<Acceptance> {
    if !matches!(op, UnOp::Neg | UnOp::Abs) && !op.is_float_math() {
        return None;
    }
    Some(over_flushed_operands([x], |[v]| {
        if v.is_finite() {
            unary_finite(op, f64::from(v))
        } else {
            Acceptance::Any
        }
    }))
}

/// One unary operator on a finite operand read as given.
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
        UnOp::Cos => trigonometric(x, x.cos()),
        // `unary` only passes the operators above.
        UnOp::BitNot | UnOp::Not | UnOp::Popcount | UnOp::Clz | UnOp::Ctz | UnOp::ReverseBits => {
            Acceptance::Any
        }
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

/// `fma(a, b, c)`: inherited from `a * b + c`, so the fused result or the product rounded either way
/// (and flushed, when it is subnormal) and then added.
#[must_use]
pub fn fma(a: f32, b: f32, c: f32) -> Acceptance {
    over_flushed_operands([a, b, c], |[x, y, z]| {
        if x.is_finite() && y.is_finite() && z.is_finite() {
            fma_finite(f64::from(x), f64::from(y), f64::from(z))
        } else {
            Acceptance::Any
        }
    })
}

/// `fma` on finite operands read as given. The product interval flows into the sum by interval
/// arithmetic (the fused result lies inside, since the exact product does); a product that may be
/// flushed adds the sum with a zero product.
fn fma_finite(a: f64, b: f64, c: f64) -> Acceptance {
    let product = a * b; // Exact in f64.
    let Acceptance::Float { intervals, .. } = Acceptance::correctly_rounded(product) else {
        // The product alone overflows: the unfused form is indeterminate.
        return Acceptance::Any;
    };
    intervals
        .iter()
        .map(|p| Acceptance::inherited_sum(p.lo, p.hi, c))
        .reduce(Acceptance::union)
        .unwrap_or(Acceptance::Any)
}

/// What `f32(x)` of an integer may yield: a correctly rounded value (never subnormal).
#[must_use]
pub fn int_to_f32(value: i64) -> Acceptance {
    Acceptance::correctly_rounded(value as f64)
}
