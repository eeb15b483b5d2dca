//! `f16` round trips (`Feature::F16RoundTrips`): `f32(f16(x))` with `x` at an f16 rounding
//! boundary, `f16(x)`, `f16(f32(h))`, and f16 variables holding a rounded value.
//!
//! The NVIDIA H100 (driver 580.159.04) gave `0.33333334` for `f32(f16(x))` with `x = f32(1/3)`,
//! stored from one expression: the f16 rounding was dropped (the law, SEMANTICS.md section 6:
//! round to nearest even, `0.33325195`). The comparable generator never built that shape: it
//! widens only exact f16 values and keeps `f32` rounded to `f16` out of exact contexts.
//!
//! **Why these fit the float discipline.** A conversion is correctly rounded (SEMANTICS.md section
//! 6), so the conversion of an exact value is itself exact: every backend gives the same f16. The
//! `x` converted here is always exact: a literal, or a load of a read-only `f32` buffer (whose
//! elements are the inputs as given), or, for `f16(f32(h))`, the widening of an exact f16. Such a
//! round trip may then stand where comparable programs need exact floats (the argument of
//! `floor`, `fract`, ...; `keeps_float_rules` accepts it), and its widened result may be compared at
//! f32 precision. The values are where rounding goes wrong: ties (which round to even), one f32 ULP
//! above and below a tie, ties at the bottom of a binade (an error of 2^-11 relative, twice the f32
//! comparison's relative tolerance, so a dropped rounding of a value of 4 or more shows), ties at
//! the bottom of f16's normal range, values near 65504 (never 65520 or more, which overflow), and
//! `2^e / 3`.
//!
//! **No value rounds to an f16 subnormal.** The flush rule (SEMANTICS.md section 7) lets a
//! conversion between `f32` and `f16` return zero in place of a result subnormal in `f16` (and read
//! a subnormal `f16` as zero), so such a round trip has two answers, and `ceil`, `floor` or `sqrt`
//! of it two very different ones. The NVIDIA H100 flushes them: `ceil(f32(f16(4.0690105e-5f)))`
//! gave `0.0` where the reference gives `1.0` (fuzz seeds 52001, 52002, 52011 and 52021, when this
//! generator still drew f16 subnormals and `2^e / 3` below `2^-12`). The catalogue's round-trip
//! cases (`catalogue/driver/half_round.rs`) check the subnormal range with both answers accepted.
//!
//! Magnitudes follow the f16 literal rule of `expr.rs`: every value rounded here stays below 16,
//! widened back to `f32` or not. A widened value is an operand like any other: `fma(f32(f16(x)),
//! -7.0, -8.015625)` with `x = -65472.0` sums to `458295.984375`, a tie in `f32`, which the law lets
//! a backend round either way, and `fract` of it is then `0.0` or `0.96875` (the H200 gave the
//! second, resident fuzz seed 63021, when round trips still went up to 65519). The values near
//! 65504 are the catalogue's (`catalogue/driver/half_round.rs`), stored where nothing adds to them.

use vyre_foundation::ir::{DataType, Expr};

use crate::r#gen::Feature;
use crate::r#gen::decode::Ctx;
use crate::r#gen::recipe::Choices;

/// The largest exponent of a boundary value that stays in f16 (below 16 in magnitude).
pub(crate) const SMALL: i32 = 3;
/// f16's largest exponent: boundary values up to 65519, drawn only where the caller asks for them.
const WIDE: i32 = 15;

impl Ctx {
    /// True when round trips may be drawn: their feature and `f16` are both on.
    pub(crate) fn round_trips_on(&self) -> bool {
        self.features.has(Feature::F16RoundTrips) && self.features.has(Feature::F16)
    }

    /// A round trip of type `ty` (`f32` or `f16`).
    pub(crate) fn round_trip(&self, ch: &mut Choices<'_>, ty: DataType, depth: u32) -> Expr {
        if ty == DataType::F32 {
            let x = self.boundary(ch, SMALL, depth);
            return Expr::cast(DataType::F32, Expr::cast(DataType::F16, x));
        }
        match ch.below(2) {
            0 => Expr::cast(DataType::F16, self.boundary(ch, SMALL, depth)),
            _ => {
                let h = self.exact_expr(ch, DataType::F16, depth);
                Expr::cast(DataType::F16, Expr::cast(DataType::F32, h))
            }
        }
    }

    /// An exact `f32` at or near an f16 rounding boundary: a literal, or a load of a read-only
    /// `f32` buffer (whose inputs hold such values, see `inputs.rs`).
    pub(crate) fn boundary(&self, ch: &mut Choices<'_>, max_exp: i32, depth: u32) -> Expr {
        let word = ch.next_word();
        if word % 4 == 3
            && let Some(load) = self.read_only_load(ch, DataType::F32, depth)
        {
            return load;
        }
        Expr::f32(f16_boundary(word >> 2, max_exp, false))
    }

    /// The value of a rounded f16 variable, `f16(x)` for a boundary `x` below 16.
    pub(crate) fn rounded_value(&self, ch: &mut Choices<'_>, depth: u32) -> Expr {
        Expr::cast(DataType::F16, self.boundary(ch, SMALL, depth))
    }
}

/// An `f32` at or near an f16 rounding boundary, below `2^(max_exp + 1)` in magnitude (65519 at
/// most), rounding to a normal `f16`. With `short`, only values of at most 12 significant bits
/// (ties, f16 values), which sums with the generator's other floats keep exact: what inputs hold.
pub(crate) fn f16_boundary(word: u32, max_exp: i32, short: bool) -> f32 {
    let sign = if word & 1 == 1 { -1.0 } else { 1.0 };
    let mut kind = (word >> 1) % 8;
    if short && matches!(kind, 1 | 2 | 6) {
        kind = 0;
    }
    if kind == 5 && max_exp < WIDE {
        kind = 7;
    }
    // Half the values at exponents 2 and 3 (4 to 16), where a wrong rounding is larger than the
    // f32 comparison's tolerance; the rest anywhere in f16's normal range up to `max_exp`.
    let e = if (word >> 4).is_multiple_of(2) {
        2 + ((word >> 5) % 2) as i32
    } else {
        -14 + ((word >> 5) % (max_exp + 15).max(1) as u32) as i32
    }
    .min(max_exp);
    let m = match (word >> 9) % 4 {
        0 => 0,
        1 => 1,
        2 => 1023,
        _ => ((word >> 11) % 1024) as i32,
    };
    // The tie above 65504 is 65520, which overflows: the last binade's ties stop one lower.
    let m = if e == WIDE { m.min(1022) } else { m };
    // The f16 value `(1024 + m) * 2^(e - 10)` and the tie above it, `(2 * (1024 + m) + 1) * 2^(e - 11)`.
    let tie = (2 * (1024 + m) + 1) as f32 * pow2(e - 11);
    let magnitude = match kind {
        0 => tie,
        1 => tie + pow2(e - 23),
        2 => tie - pow2(e - 23),
        3 => (1024 + m) as f32 * pow2(e - 10),
        // Ties at the bottom of f16's normal range, `(2 (1024 + m) + 1) * 2^-25` (never a
        // subnormal: see the module docs).
        4 => (2 * (1024 + m) + 1) as f32 * pow2(-25),
        5 => [65504.0, 65519.0, 65488.0, 65488.0 + 1.0 / 256.0, 65472.0][(m % 5) as usize],
        // `2^e / 3` rounds to a normal `f16` from `e = -12` on.
        6 => pow2(e.max(-12)) / 3.0,
        // Ties at the bottom of a binade: `2^e (1 + 2^-11)` rounds down to `2^e`, `2^e (1 + 3 *
        // 2^-11)` up to `2^e (1 + 2^-9)`.
        _ => (2048 + 1 + 2 * (m % 2)) as f32 * pow2(e - 11),
    };
    sign * magnitude
}

/// `2^n` for `n` in f32's normal exponent range, built from its bits so it is exact.
fn pow2(n: i32) -> f32 {
    f32::from_bits(((n.clamp(-126, 127) + 127) as u32) << 23)
}

#[cfg(test)]
mod tests {
    use super::{SMALL, WIDE, f16_boundary};
    use vyre_foundation::ir::{f16_bits_to_f32, f32_to_f16_bits};

    #[test]
    fn boundaries_are_finite_in_f16_and_within_their_bound() {
        for word in (0..200_000u32).map(|w| w.wrapping_mul(0x9e37_79b9)) {
            for (max_exp, short) in [(WIDE, false), (SMALL, false), (SMALL, true)] {
                let x = f16_boundary(word, max_exp, short);
                let rounded = f16_bits_to_f32(f32_to_f16_bits(x));
                assert!(rounded.is_finite() && x.abs() < 65520.0, "{x}");
                assert!(
                    rounded.abs() >= 2f32.powi(-14),
                    "{x} rounds to an f16 subnormal"
                );
                assert!(
                    x.abs() < 2f32.powi(max_exp + 1),
                    "{x} past 2^{}",
                    max_exp + 1
                );
                if short {
                    // At most 12 significant bits.
                    let bits = x.to_bits() & 0x7f_ffff;
                    let normal = x.abs() >= f32::MIN_POSITIVE;
                    assert!(!normal || bits.trailing_zeros() >= 11, "{x}");
                }
            }
        }
    }

    #[test]
    fn ties_and_their_neighbours_are_drawn() {
        let values: Vec<f32> = (0..4096u32).map(|w| f16_boundary(w, WIDE, false)).collect();
        let is_tie = |x: f32| {
            let down = f16_bits_to_f32(f32_to_f16_bits(x));
            let f16_ulp = (x.abs().log2().floor() - 10.0).exp2();
            x != down && ((x - down).abs() - f16_ulp / 2.0).abs() == 0.0
        };
        assert!(values.iter().any(|&x| is_tie(x)));
        assert!(values.contains(&65519.0));
        assert!(values.iter().any(|&x| x.abs() < 6.2e-5));
        assert!(values.iter().any(|&x| (x - 1.0 / 3.0).abs() < 1e-7));
    }
}
