//! Casts and bitcasts of literals (SEMANTICS.md section 6), where the law pins the result.
//!
//! - A cast to the value's own type and every bitcast are moves: they keep every bit, NaN
//!   payloads and the sign of a zero included, so they always fold.
//! - `bool` to a number is 0 or 1; an integer to `bool` is `x != 0`; integer to integer keeps
//!   the value modulo 2^N of the target (sign-extending a signed source): always exact.
//! - An integer to `f32` rounds to nearest even (the table of section 6): one answer, which
//!   Rust's `as` computes. To `f16` the law fixes round-to-nearest-even only as the reference's
//!   way, so those fold only when the value is exactly an `f16` (no rounding at all).
//! - A float to an integer truncates and saturates at the bounds exactly representable in `f32`
//!   (`[-2^31, 2^31 - 128]`, `[0, 2^32 - 256]`, `[-2^63, 2^63 - 2^39]`, `[0, 2^64 - 2^40]`). A NaN
//!   or an infinity gives an indeterminate result and is not folded. A subnormal truncates to 0
//!   whether or not a device flushes it, so every finite value folds.
//! - A float to `bool` is `x != 0`, `true` for a NaN or an infinity (fixed by the law); a
//!   subnormal may be read as zero, so that one does not fold.
//! - `f16` to `f32` is exact (plain values only: an `f16` subnormal may be flushed), `f32` to
//!   `f16` folds only where it is exact, as for integers.

use super::float::{Float, exactly, plain};
use super::int::Int;
use crate::ir::{DataType, Literal};

/// `cast(to, a)` of a literal, where the law pins it.
pub(super) fn cast(to: DataType, a: Literal) -> Option<Literal> {
    if a.ty() == to {
        return Some(a);
    }
    if let Literal::Bool(b) = a {
        return from_bool(to, b);
    }
    if let Some(x) = Int::of(a) {
        return from_int(to, x);
    }
    from_float(to, Float::of(a)?)
}

fn from_bool(to: DataType, b: bool) -> Option<Literal> {
    match to {
        DataType::Bool => Some(Literal::Bool(b)),
        DataType::U32 | DataType::I32 | DataType::U64 | DataType::I64 => {
            Int::wrap(to, i128::from(b))
        }
        DataType::F32 | DataType::F16 => exactly(if b { 1.0 } else { 0.0 }, to),
    }
}

fn from_int(to: DataType, x: Int) -> Option<Literal> {
    match to {
        DataType::Bool => Some(Literal::Bool(x.value != 0)),
        DataType::U32 | DataType::I32 | DataType::U64 | DataType::I64 => Int::wrap(to, x.value),
        // Rust's integer-to-float `as` rounds to nearest, ties to even; every value of the four
        // integer types is an `i128`, and the conversion from there is the same rounding.
        DataType::F32 => Some(Literal::F32((x.value as f32).to_bits())),
        DataType::F16 => {
            // Exact only if the `f32` step did not round either (every such `f32` is below 2^64,
            // so converting it back is exact).
            let wide = x.value as f32;
            (wide as i128 == x.value)
                .then(|| exactly(wide, to))
                .flatten()
        }
    }
}

fn from_float(to: DataType, x: Float) -> Option<Literal> {
    let v = x.value;
    match to {
        DataType::Bool => {
            if v.is_nan() || v.is_infinite() {
                Some(Literal::Bool(true))
            } else {
                plain(v, x.ty).then_some(Literal::Bool(v != 0.0))
            }
        }
        DataType::U32 | DataType::I32 | DataType::U64 | DataType::I64 => {
            v.is_finite().then(|| saturate(to, v)).flatten()
        }
        DataType::F32 => (x.ty == DataType::F16 && x.plain()).then_some(Literal::F32(v.to_bits())),
        DataType::F16 => exactly(v, to).filter(|_| x.plain()),
    }
}

/// The largest `i32` exactly representable in `f32`, where float-to-`i32` saturates.
const I32_CAST_MAX: i128 = 2_147_483_520;
/// The largest `u32` exactly representable in `f32`.
const U32_CAST_MAX: i128 = 4_294_967_040;
/// The largest `i64` exactly representable in `f32`: 2^63 - 2^39.
const I64_CAST_MAX: i128 = 0x7fff_ff80_0000_0000;
/// The largest `u64` exactly representable in `f32`: 2^64 - 2^40.
const U64_CAST_MAX: i128 = 0xffff_ff00_0000_0000;

/// A finite `v` truncated towards zero and clamped to the range `to` saturates at.
fn saturate(to: DataType, v: f32) -> Option<Literal> {
    let (low, high) = match to {
        DataType::U32 => (0, U32_CAST_MAX),
        DataType::I32 => (i128::from(i32::MIN), I32_CAST_MAX),
        DataType::U64 => (0, U64_CAST_MAX),
        DataType::I64 => (i128::from(i64::MIN), I64_CAST_MAX),
        DataType::Bool | DataType::F32 | DataType::F16 => return None,
    };
    // Every finite `f32` is below 2^128, so its truncation fits an `i128` and `as` is exact here.
    Int::wrap(to, (v.trunc() as i128).clamp(low, high))
}

/// `bitcast(to, a)` of a literal: the same bits, read as `to`. `None` for the pairs the validator
/// refuses (`bool`, `f16`, different widths).
pub(super) fn bitcast(to: DataType, a: Literal) -> Option<Literal> {
    let bits = a.to_bits();
    let word = bits as u32;
    match (a, to) {
        (Literal::U32(_) | Literal::I32(_) | Literal::F32(_), DataType::U32) => {
            Some(Literal::U32(word))
        }
        (Literal::U32(_) | Literal::I32(_) | Literal::F32(_), DataType::I32) => {
            Some(Literal::I32(word as i32))
        }
        (Literal::U32(_) | Literal::I32(_) | Literal::F32(_), DataType::F32) => {
            Some(Literal::F32(word))
        }
        (Literal::U64(_) | Literal::I64(_), DataType::U64) => Some(Literal::U64(bits)),
        (Literal::U64(_) | Literal::I64(_), DataType::I64) => Some(Literal::I64(bits as i64)),
        (
            Literal::Bool(_)
            | Literal::U32(_)
            | Literal::I32(_)
            | Literal::F32(_)
            | Literal::F16(_)
            | Literal::U64(_)
            | Literal::I64(_),
            DataType::Bool
            | DataType::U32
            | DataType::I32
            | DataType::F32
            | DataType::F16
            | DataType::U64
            | DataType::I64,
        ) => None,
    }
}
