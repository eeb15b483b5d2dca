//! Float operators on literals, folded only where SEMANTICS.md section 7 pins the result.
//!
//! The law gives most float operations an interval, not a value: `add sub mul` are correctly
//! rounded with either neighbour accepted, `div` is within 2.5 ULP, the transcendental functions
//! and `sqrt` within wider bounds. An operation may also read a subnormal operand as zero and
//! return zero for a subnormal result, and any value is accepted once an operand is infinite or
//! NaN or the exact result overflows. A literal is one value; folding an operation whose law is
//! an interval would replace the device's answer with one of the accepted ones. This module
//! folds only where every backend must give that one value:
//!
//! - every operand is *plain*: finite, and zero or normal in its own format (an `f16` operand is
//!   judged by f16's range), so no operand may be flushed and none is infinite or NaN;
//! - the exact result is representable, so "correctly rounded" leaves one answer; it is checked
//!   exactly (an error-free sum, an `f64` product, which holds any product of two `f32`s);
//! - the result is plain too: not a subnormal that may come back as zero, not an overflow.
//!
//! That folds `add sub mul neg abs min max floor ceil round trunc fract` and `fma` (whose product
//! and sum are then both exact, so fused or not gives the same) on such values, and leaves
//! `div rem` and the transcendental functions alone always. A zero result keeps the sign IEEE gives
//! it, which is the reference's; the law lets any operation ignore the sign of a zero, so that is
//! one of the accepted answers. `min`/`max` of two zeros of different signs is left alone, since
//! which one Rust's `min` returns is not specified.
//!
//! Comparisons have one fixed answer the law names outright: with a NaN operand every comparison,
//! `ne` included, is false. Otherwise they fold on plain operands only (a subnormal may be read as
//! zero, and a comparison with an infinity is indeterminate).
//!
//! `f16` operations compute in `f32` and round the result once to `f16` (section 7, the
//! reference's way). With plain `f16` operands and an `f32` result that is exact and exactly an
//! `f16`, that rounding changes nothing, so the folded literal is the reference's result bit for
//! bit.

use crate::ir::{BinOp, DataType, Literal, UnOp, f16_bits_to_f32, f32_to_f16_bits};

/// A float literal: its value (an `f16` widened to `f32`, which is exact) and its type.
#[derive(Clone, Copy, Debug)]
pub(super) struct Float {
    /// The value.
    pub(super) value: f32,
    /// `F32` or `F16`.
    pub(super) ty: DataType,
}

impl Float {
    /// The float `lit` holds, or `None` for a bool or an integer.
    pub(super) fn of(lit: Literal) -> Option<Float> {
        match lit {
            Literal::F32(bits) => Some(Float {
                value: f32::from_bits(bits),
                ty: DataType::F32,
            }),
            Literal::F16(bits) => Some(Float {
                value: f16_bits_to_f32(bits),
                ty: DataType::F16,
            }),
            Literal::Bool(_)
            | Literal::U32(_)
            | Literal::I32(_)
            | Literal::U64(_)
            | Literal::I64(_) => None,
        }
    }

    /// Finite, and zero or normal in its own format: no backend may flush it or treat it as
    /// indeterminate.
    pub(super) fn plain(self) -> bool {
        plain(self.value, self.ty)
    }
}

/// The smallest normal `f16`, 2^-14.
const F16_MIN_NORMAL: f32 = 1.0 / 16384.0;

/// Finite, and zero or normal in the format of `ty`.
pub(super) fn plain(value: f32, ty: DataType) -> bool {
    let min_normal = if ty == DataType::F16 {
        F16_MIN_NORMAL
    } else {
        f32::MIN_POSITIVE
    };
    value.is_finite() && (value == 0.0 || value.abs() >= min_normal)
}

/// `value` as a literal of `ty` when it is plain and exactly representable there (an `f16` must
/// round-trip, the sign of a zero included), else `None`.
pub(super) fn exactly(value: f32, ty: DataType) -> Option<Literal> {
    if !plain(value, ty) {
        return None;
    }
    match ty {
        DataType::F32 => Some(Literal::F32(value.to_bits())),
        DataType::F16 => {
            let bits = f32_to_f16_bits(value);
            (f16_bits_to_f32(bits).to_bits() == value.to_bits()).then_some(Literal::F16(bits))
        }
        DataType::Bool | DataType::U32 | DataType::I32 | DataType::U64 | DataType::I64 => None,
    }
}

/// `a + b` when it is exact (and finite): Knuth's two-sum recovers the rounding error exactly
/// whenever nothing overflows.
pub(super) fn exact_sum(a: f32, b: f32) -> Option<f32> {
    let sum = a + b;
    let b_part = sum - a;
    let a_part = sum - b_part;
    let error = (a - a_part) + (b - b_part);
    let finite = [sum, b_part, a_part, error].iter().all(|v| v.is_finite());
    (finite && error == 0.0).then_some(sum)
}

/// `a * b` when it is exact (and finite): the product of two `f32`s has at most 48 significant
/// bits and is exact in `f64`.
pub(super) fn exact_product(a: f32, b: f32) -> Option<f32> {
    let product = a * b;
    (product.is_finite() && f64::from(product) == f64::from(a) * f64::from(b)).then_some(product)
}

/// `op` on two float literals of one type, where the law pins the result; see the module docs.
pub(super) fn binary(op: BinOp, a: Literal, b: Literal) -> Option<Literal> {
    let (x, y) = (Float::of(a)?, Float::of(b)?);
    if x.ty != y.ty {
        return None;
    }
    let (p, q) = (x.value, y.value);
    if op.is_comparison() && (p.is_nan() || q.is_nan()) {
        return Some(Literal::Bool(false));
    }
    if !x.plain() || !y.plain() {
        return None;
    }
    let value = |v: Option<f32>| v.and_then(|v| exactly(v, x.ty));
    let truth = |t: bool| Some(Literal::Bool(t));
    let zeros_of_two_signs = p == 0.0 && q == 0.0 && p.to_bits() != q.to_bits();
    match op {
        BinOp::Add => value(exact_sum(p, q)),
        BinOp::Sub => value(exact_sum(p, -q)),
        BinOp::Mul => value(exact_product(p, q)),
        BinOp::Min => value((!zeros_of_two_signs).then(|| p.min(q))),
        BinOp::Max => value((!zeros_of_two_signs).then(|| p.max(q))),
        BinOp::Eq => truth(p == q),
        BinOp::Ne => truth(p != q),
        BinOp::Lt => truth(p < q),
        BinOp::Le => truth(p <= q),
        BinOp::Gt => truth(p > q),
        BinOp::Ge => truth(p >= q),
        // Within 2.5 ULP, and `rem` inherits from it: an interval, never one value.
        BinOp::Div | BinOp::Rem => None,
        BinOp::BitAnd
        | BinOp::BitOr
        | BinOp::BitXor
        | BinOp::Shl
        | BinOp::Shr
        | BinOp::And
        | BinOp::Or => None,
    }
}

/// `op` on a float literal, where the law pins the result; see the module docs.
pub(super) fn unary(op: UnOp, a: Literal) -> Option<Literal> {
    let x = Float::of(a)?;
    if !x.plain() {
        return None;
    }
    let v = x.value;
    let value = |r: f32| exactly(r, x.ty);
    match op {
        UnOp::Neg => value(-v),
        UnOp::Abs => value(v.abs()),
        UnOp::Floor => value(v.floor()),
        UnOp::Ceil => value(v.ceil()),
        UnOp::Round => value(v.round_ties_even()),
        UnOp::Trunc => value(v.trunc()),
        // `x - floor(x)`, which rounds (to 1.0 for a tiny negative `x`) unless it is exact.
        UnOp::Fract => exact_sum(v, -v.floor()).and_then(value),
        UnOp::Sqrt
        | UnOp::InverseSqrt
        | UnOp::Exp
        | UnOp::Exp2
        | UnOp::Log
        | UnOp::Log2
        | UnOp::Sin
        | UnOp::Cos => None,
        UnOp::BitNot | UnOp::Not | UnOp::Popcount | UnOp::Clz | UnOp::Ctz | UnOp::ReverseBits => {
            None
        }
    }
}

/// `fma(a, b, c)` on `f32` literals where `a * b` and the sum are both exact and plain: fused or
/// not, rounded either way, every backend then gives the exact result.
pub(super) fn fma(a: Literal, b: Literal, c: Literal) -> Option<Literal> {
    let (x, y, z) = (Float::of(a)?, Float::of(b)?, Float::of(c)?);
    let ty = DataType::F32;
    if [x, y, z].iter().any(|f| f.ty != ty || !f.plain()) {
        return None;
    }
    let product = exact_product(x.value, y.value).filter(|&p| plain(p, ty))?;
    exactly(exact_sum(product, z.value)?, ty)
}
