//! Acceptance sets: which 32-bit words a backend may return for one case.
//!
//! Integers and bools are bit-exact, so their set is a list of words (usually one). Floats follow the
//! WGSL accuracy table (`SEMANTICS.md` section 7), in the manner of the WebGPU CTS floating-point primer:
//! the "exact" result is computed in `f64` from the `f32` inputs, and an interval of `f64` bounds is put
//! around it. An `f32` result is accepted when it lies inside (the sign of a zero is ignored because
//! `-0.0 == 0.0` in `f64`). Cases the table calls indeterminate accept anything.

use std::fmt;

use serde::{Deserialize, Serialize};

/// The smallest positive normal `f32`, as `f64`: results below it in magnitude may be flushed to zero.
const MIN_NORMAL: f64 = f32::MIN_POSITIVE as f64;

/// The largest finite `f32`, as `f64`: intervals reaching past it are indeterminate (overflow).
const MAX_FINITE: f64 = f32::MAX as f64;

/// The words a backend may return for one case.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Acceptance {
    /// Any word: the result is indeterminate (overflow, an infinite or NaN input, out of domain).
    Any,
    /// Exactly one of these words.
    Words(Vec<u32>),
    /// An `f32` whose value lies in `[lo, hi]` (compared in `f64`), or a NaN when `nan` is set.
    Float {
        /// The smallest accepted value.
        lo: f64,
        /// The largest accepted value.
        hi: f64,
        /// True when a NaN is accepted too.
        nan: bool,
    },
}

impl Acceptance {
    /// Exactly `word`.
    #[must_use]
    pub fn word(word: u32) -> Self {
        Acceptance::Words(vec![word])
    }

    /// The `f32` values in `[lo, hi]`, after the flush-to-zero and overflow rules: an interval that
    /// reaches a subnormal magnitude also accepts `0.0`, and one that leaves the finite `f32` range (or
    /// has a NaN bound) is indeterminate.
    #[must_use]
    pub fn float_range(lo: f64, hi: f64) -> Self {
        if lo.is_nan() || hi.is_nan() || hi > MAX_FINITE || lo < -MAX_FINITE {
            return Acceptance::Any;
        }
        let (mut lo, mut hi) = (lo, hi);
        if lo < MIN_NORMAL && hi > -MIN_NORMAL {
            lo = lo.min(0.0);
            hi = hi.max(0.0);
        }
        Acceptance::Float { lo, hi, nan: false }
    }

    /// A correctly rounded result: the `f32` at or just below `exact`, up to the one at or just above.
    /// When `exact` is an `f32` value, only it is accepted.
    #[must_use]
    pub fn correctly_rounded(exact: f64) -> Self {
        Self::float_range(f32_at_or_below(exact), f32_at_or_above(exact))
    }

    /// The correctly rounded sum `a + b` of two values that are each exact in `f64`. The `f64` sum may
    /// itself be rounded, so its error (recovered exactly by Knuth's TwoSum) says on which side of it
    /// the true sum lies.
    #[must_use]
    pub fn rounded_sum(a: f64, b: f64) -> Self {
        let sum = a + b;
        if !sum.is_finite() {
            return Acceptance::Any;
        }
        let b_virtual = sum - a;
        let error = (a - (sum - b_virtual)) + (b - b_virtual);
        if error == 0.0 || !is_f32_value(sum) {
            // Exact, or strictly between two f32 values with no f32 between `sum` and the true sum.
            return Self::correctly_rounded(sum);
        }
        // `sum` is an f32 value and the true sum lies just beside it, towards `error`.
        if error > 0.0 {
            Self::float_range(sum, f32_above(sum))
        } else {
            Self::float_range(f32_below(sum), sum)
        }
    }

    /// Within `ulps` units in the last place (of `f32`, at the magnitude of `exact`) of `exact`.
    #[must_use]
    pub fn within_ulps(exact: f64, ulps: f64) -> Self {
        if !exact.is_finite() {
            return Acceptance::Any;
        }
        let step = ulps * f32_ulp(exact);
        Self::float_range(f32_at_or_below(exact - step), f32_at_or_above(exact + step))
    }

    /// Within the absolute error `epsilon` of `exact`.
    #[must_use]
    pub fn within_absolute(exact: f64, epsilon: f64) -> Self {
        if !exact.is_finite() {
            return Acceptance::Any;
        }
        Self::float_range(
            f32_at_or_below(exact - epsilon),
            f32_at_or_above(exact + epsilon),
        )
    }

    /// Everything either set accepts. Float intervals join into their hull (as the CTS does).
    #[must_use]
    pub fn union(self, other: Acceptance) -> Self {
        match (self, other) {
            (Acceptance::Any, _) | (_, Acceptance::Any) => Acceptance::Any,
            (Acceptance::Words(mut a), Acceptance::Words(b)) => {
                for w in b {
                    if !a.contains(&w) {
                        a.push(w);
                    }
                }
                a.sort_unstable();
                Acceptance::Words(a)
            }
            (
                Acceptance::Float { lo, hi, nan },
                Acceptance::Float {
                    lo: lo2,
                    hi: hi2,
                    nan: nan2,
                },
            ) => Acceptance::Float {
                lo: lo.min(lo2),
                hi: hi.max(hi2),
                nan: nan || nan2,
            },
            // A word set and a float interval never meet within one case (a case's variants all
            // produce floats or all produce words); should they, the float reading wins.
            (Acceptance::Words(_), float) | (float, Acceptance::Words(_)) => float,
        }
    }

    /// True when `word` is accepted.
    #[must_use]
    pub fn accepts(&self, word: u32) -> bool {
        match self {
            Acceptance::Any => true,
            Acceptance::Words(words) => words.contains(&word),
            Acceptance::Float { lo, hi, nan } => {
                let value = f32::from_bits(word);
                if value.is_nan() {
                    *nan
                } else {
                    *lo <= f64::from(value) && f64::from(value) <= *hi
                }
            }
        }
    }
}

impl fmt::Display for Acceptance {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Acceptance::Any => f.write_str("any value"),
            Acceptance::Words(words) => {
                let shown: Vec<String> = words.iter().map(|w| format!("0x{w:08x}")).collect();
                write!(f, "{}", shown.join(" or "))
            }
            Acceptance::Float { lo, hi, nan } => {
                // The bounds are f32 values (or 0), so printing them as f32 is exact.
                let (lo32, hi32) = (*lo as f32, *hi as f32);
                write!(
                    f,
                    "f32 in [{lo32:e} (0x{:08x}), {hi32:e} (0x{:08x})]",
                    lo32.to_bits(),
                    hi32.to_bits()
                )?;
                if *nan {
                    f.write_str(" or NaN")?;
                }
                Ok(())
            }
        }
    }
}

/// True when `x` is exactly an `f32` value (infinities included).
#[must_use]
pub fn is_f32_value(x: f64) -> bool {
    f64::from(x as f32) == x
}

/// The largest `f32` at or below `x`, as `f64` (`-inf` below the range, `f32::MAX` above it).
#[must_use]
pub fn f32_at_or_below(x: f64) -> f64 {
    let rounded = x as f32;
    if f64::from(rounded) > x {
        f64::from(rounded.next_down())
    } else {
        f64::from(rounded)
    }
}

/// The smallest `f32` at or above `x`, as `f64` (`inf` above the range, `-f32::MAX` below it).
#[must_use]
pub fn f32_at_or_above(x: f64) -> f64 {
    let rounded = x as f32;
    if f64::from(rounded) < x {
        f64::from(rounded.next_up())
    } else {
        f64::from(rounded)
    }
}

/// The next `f32` strictly above the `f32` value `x`.
fn f32_above(x: f64) -> f64 {
    f64::from((x as f32).next_up())
}

/// The next `f32` strictly below the `f32` value `x`.
fn f32_below(x: f64) -> f64 {
    f64::from((x as f32).next_down())
}

/// The spacing of `f32` values at the magnitude of `x`: `2^(e - 23)` for `|x|` in `[2^e, 2^(e+1))`,
/// and the subnormal spacing `2^-149` below the normal range.
#[must_use]
pub fn f32_ulp(x: f64) -> f64 {
    let magnitude = x.abs();
    if magnitude < MIN_NORMAL {
        return 2f64.powi(-149);
    }
    let exponent = ((magnitude.to_bits() >> 52) & 0x7ff) as i32 - 1023;
    2f64.powi(exponent - 23)
}

/// The values a backend may treat an `f32` input as: itself, and zero when it is subnormal (flushing).
#[must_use]
pub fn flush_variants(x: f32) -> Vec<f32> {
    if x.is_subnormal() {
        vec![x, 0.0]
    } else {
        vec![x]
    }
}
