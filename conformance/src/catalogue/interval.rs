//! Acceptance sets: which element values (2, 4 or 8 bytes, as `u64` bits) a backend may return for
//! one case.
//!
//! Integers and bools are bit-exact, so their set is a list of words (usually one). Floats follow the
//! WGSL accuracy table (`SEMANTICS.md` section 7), in the manner of the WebGPU CTS floating-point primer:
//! the "exact" result is computed in `f64` from the `f32` inputs, and an interval of `f64` bounds is put
//! around it. An `f32` result is accepted when it lies inside (the sign of a zero is ignored because
//! `-0.0 == 0.0` in `f64`). Cases the table calls indeterminate accept anything.
//!
//! **The flush rule** lives here and nowhere else. A float *operation* (arithmetic, comparison, math
//! function, `fma`, a value conversion from `f32`) may read each subnormal operand as zero, and may
//! return zero in place of a subnormal result; nothing else may be flushed:
//!
//! - inputs: [`over_flushed_operands`] evaluates an operation's rule once for every way of reading its
//!   operands ([`operand_readings`]) and joins the sets;
//! - results: [`Acceptance::float_range`] adds zero to every interval that holds a subnormal value.
//!
//! The join is a true union, not the hull the CTS takes: reading `1e-40 * 1e30` as `1e-10` or as `0`
//! allows those two results (and their rounding), never the values in between. A hull is only right
//! where the accuracy itself is inherited through interval arithmetic (`fma`, see
//! [`Acceptance::inherited_sum`]). Moves (loads, stores, `select`, `bitcast`, the identity `cast`) are
//! not operations: their cases are bit-exact word sets, so neither flushing nor a changed sign of zero
//! passes them.

use std::fmt;

use serde::{Deserialize, Serialize};

/// The smallest positive normal `f32`, as `f64`: values below it in magnitude are subnormal or zero.
const MIN_NORMAL: f64 = f32::MIN_POSITIVE as f64;

/// The largest finite `f32`, as `f64`: intervals reaching past it are indeterminate (overflow).
const MAX_FINITE: f64 = f32::MAX as f64;

/// A closed interval of `f32` values, compared in `f64`; its bounds are `f32` values.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Interval {
    /// The smallest accepted value.
    pub lo: f64,
    /// The largest accepted value.
    pub hi: f64,
}

impl Interval {
    /// True when `value` lies in the interval (either sign of zero matches a zero bound).
    #[must_use]
    pub fn contains(&self, value: f64) -> bool {
        self.lo <= value && value <= self.hi
    }
}

/// The words a backend may return for one case.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Acceptance {
    /// Any word: the result is indeterminate (overflow, an infinite or NaN input, out of domain).
    Any,
    /// Exactly one of these values (the element's bits, zero-extended).
    Words(Vec<u64>),
    /// An `f32` whose value lies in one of `intervals`, or a NaN when `nan` is set.
    Float {
        /// Disjoint intervals in increasing order, never two with no `f32` between them.
        intervals: Vec<Interval>,
        /// True when a NaN is accepted too.
        nan: bool,
    },
    /// An `f16` whose value lies in one of `intervals` (bounds that are `f16` values), or a NaN when
    /// `nan` is set (see [`crate::catalogue::half`]).
    Half {
        /// Disjoint intervals in increasing order.
        intervals: Vec<Interval>,
        /// True when a NaN is accepted too.
        nan: bool,
    },
}

impl Acceptance {
    /// Exactly `word`.
    #[must_use]
    pub fn word(word: u32) -> Self {
        Acceptance::Words(vec![u64::from(word)])
    }

    /// Exactly the element `bits` (of any size, zero-extended).
    #[must_use]
    pub fn bits(bits: u64) -> Self {
        Acceptance::Words(vec![bits])
    }

    /// Any NaN and nothing else.
    #[must_use]
    pub fn nan() -> Self {
        Acceptance::Float {
            intervals: Vec::new(),
            nan: true,
        }
    }

    /// Exactly the value `value` (either sign, when it is zero), infinities included: an operand
    /// passed through unchanged, with neither the flush nor the overflow rule.
    #[must_use]
    pub fn float_value(value: f64) -> Self {
        Acceptance::Float {
            intervals: vec![Interval {
                lo: value,
                hi: value,
            }],
            nan: false,
        }
    }

    /// The result of a float operation whose unflushed result lies in `[lo, hi]`, after the overflow
    /// and flush rules: an interval that leaves the finite `f32` range (or has a NaN bound) is
    /// indeterminate, and one that holds a subnormal value also accepts zero (the result flushed).
    #[must_use]
    pub fn float_range(lo: f64, hi: f64) -> Self {
        if lo.is_nan() || hi.is_nan() || hi > MAX_FINITE || lo < -MAX_FINITE {
            return Acceptance::Any;
        }
        let mut intervals = vec![Interval { lo, hi }];
        if holds_subnormal(lo, hi) {
            intervals.push(Interval { lo: 0.0, hi: 0.0 });
        }
        Acceptance::Float {
            intervals: normalized(intervals),
            nan: false,
        }
    }

    /// A correctly rounded result: the `f32` at or just below `exact`, up to the one at or just above.
    /// When `exact` is an `f32` value, only it is accepted (and zero, when it is subnormal).
    #[must_use]
    pub fn correctly_rounded(exact: f64) -> Self {
        Self::float_range(f32_at_or_below(exact), f32_at_or_above(exact))
    }

    /// The correctly rounded sum `a + b` of two values that are each exact in `f64`.
    #[must_use]
    pub fn rounded_sum(a: f64, b: f64) -> Self {
        match rounded_sum_bounds(a, b) {
            Some((lo, hi)) => Self::float_range(lo, hi),
            None => Acceptance::Any,
        }
    }

    /// `p + c` where `p` is any value of `[p_lo, p_hi]`, each sum correctly rounded: the accuracy
    /// "inherited from `x * y + z`" of the WGSL table, by the interval arithmetic of the CTS. The
    /// interval is the hull from the rounded `p_lo + c` to the rounded `p_hi + c`.
    #[must_use]
    pub fn inherited_sum(p_lo: f64, p_hi: f64, c: f64) -> Self {
        match (rounded_sum_bounds(p_lo, c), rounded_sum_bounds(p_hi, c)) {
            (Some((lo, _)), Some((_, hi))) => Self::float_range(lo, hi),
            _ => Acceptance::Any,
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

    /// Everything either set accepts, and nothing else.
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
                Acceptance::Float { intervals, nan },
                Acceptance::Float {
                    intervals: more,
                    nan: nan2,
                },
            ) => Acceptance::Float {
                intervals: normalized(intervals.into_iter().chain(more).collect()),
                nan: nan || nan2,
            },
            (
                Acceptance::Half { intervals, nan },
                Acceptance::Half {
                    intervals: more,
                    nan: nan2,
                },
            ) => Acceptance::Half {
                intervals: normalized(intervals.into_iter().chain(more).collect()),
                nan: nan || nan2,
            },
            // `f32` and `f16` sets never meet within one case; should they, the first wins.
            (float @ Acceptance::Float { .. }, Acceptance::Half { .. })
            | (float @ Acceptance::Half { .. }, Acceptance::Float { .. }) => float,
            // A word set and a float set never meet within one case (every reading of a case yields
            // a float or every one yields a word); should they, the float reading wins.
            (Acceptance::Words(_), float) | (float, Acceptance::Words(_)) => float,
        }
    }

    /// The single value this set accepts, when it is one float value (NaN aside).
    #[must_use]
    pub fn single_value(&self) -> Option<f64> {
        match self {
            Acceptance::Float { intervals, .. } | Acceptance::Half { intervals, .. } => {
                match intervals.as_slice() {
                    [only] if only.lo == only.hi => Some(only.lo),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// True when the 32-bit `word` is accepted.
    #[must_use]
    pub fn accepts(&self, word: u32) -> bool {
        self.accepts_bits(u64::from(word))
    }

    /// True when the element `word` (of any size: its bits, zero-extended) is accepted.
    #[must_use]
    pub fn accepts_bits(&self, word: u64) -> bool {
        let in_float = |value: f32, intervals: &[Interval], nan: bool| {
            if value.is_nan() {
                nan
            } else {
                intervals.iter().any(|i| i.contains(f64::from(value)))
            }
        };
        match self {
            Acceptance::Any => true,
            Acceptance::Words(words) => words.contains(&word),
            Acceptance::Float { intervals, nan } => {
                u32::try_from(word).is_ok_and(|w| in_float(f32::from_bits(w), intervals, *nan))
            }
            Acceptance::Half { intervals, nan } => u16::try_from(word)
                .is_ok_and(|w| in_float(vyre_foundation::ir::f16_bits_to_f32(w), intervals, *nan)),
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
            Acceptance::Half { intervals, nan } => {
                // The bounds are f16 values, so printing them as f32 is exact.
                let mut shown: Vec<String> = intervals
                    .iter()
                    .map(|i| {
                        let (lo, hi) = (i.lo as f32, i.hi as f32);
                        if lo == hi {
                            format!("f16 {lo:e}")
                        } else {
                            format!("f16 in [{lo:e}, {hi:e}]")
                        }
                    })
                    .collect();
                if *nan {
                    shown.push("NaN".to_string());
                }
                if shown.is_empty() {
                    return f.write_str("nothing");
                }
                f.write_str(&shown.join(" or "))
            }
            Acceptance::Float { intervals, nan } => {
                // The bounds are f32 values, so printing them as f32 is exact.
                let mut shown: Vec<String> = intervals
                    .iter()
                    .map(|i| {
                        let (lo, hi) = (i.lo as f32, i.hi as f32);
                        if lo == hi {
                            format!("f32 {lo:e} (0x{:08x})", lo.to_bits())
                        } else {
                            format!(
                                "f32 in [{lo:e} (0x{:08x}), {hi:e} (0x{:08x})]",
                                lo.to_bits(),
                                hi.to_bits()
                            )
                        }
                    })
                    .collect();
                if *nan {
                    shown.push("NaN".to_string());
                }
                if shown.is_empty() {
                    return f.write_str("nothing");
                }
                f.write_str(&shown.join(" or "))
            }
        }
    }
}

/// Sorts intervals and merges those that overlap or have no `f32` between them, so that equal sets
/// compare equal and print the same.
pub(crate) fn normalized(mut intervals: Vec<Interval>) -> Vec<Interval> {
    intervals.sort_by(|a, b| a.lo.total_cmp(&b.lo));
    let mut merged: Vec<Interval> = Vec::with_capacity(intervals.len());
    for next in intervals {
        match merged.last_mut() {
            Some(last) if next.lo <= f32_above(last.hi) => last.hi = last.hi.max(next.hi),
            _ => merged.push(next),
        }
    }
    merged
}

/// True when `[lo, hi]` holds a value of subnormal magnitude (or zero), which a float operation may
/// return as zero. The bounds are `f32` values, so an `f32` lies wherever this is true.
#[must_use]
pub fn holds_subnormal(lo: f64, hi: f64) -> bool {
    lo < MIN_NORMAL && hi > -MIN_NORMAL
}

/// The values a float operation may read an `f32` operand as: itself, and zero (of its sign) when it
/// is subnormal. Infinities and NaN are read as themselves.
#[must_use]
pub fn flush_variants(x: f32) -> Vec<f32> {
    if x.is_subnormal() {
        vec![x, flushed(x)]
    } else {
        vec![x]
    }
}

/// `x`, or zero of its sign when it is subnormal: what a flushing device reads.
#[must_use]
pub fn flushed(x: f32) -> f32 {
    if x.is_subnormal() {
        0.0f32.copysign(x)
    } else {
        x
    }
}

/// Every way a float operation may read `operands`: each subnormal operand as itself or as zero,
/// independently of the others (so `2^k` readings for `k` subnormal operands). The unflushed reading
/// comes first.
#[must_use]
pub fn operand_readings<const N: usize>(operands: [f32; N]) -> Vec<[f32; N]> {
    let mut readings = vec![operands];
    for k in 0..N {
        readings = readings
            .into_iter()
            .flat_map(|reading| {
                flush_variants(reading[k]).into_iter().map(move |v| {
                    let mut reading = reading;
                    reading[k] = v;
                    reading
                })
            })
            .collect();
    }
    readings
}

/// What a float operation on `operands` may yield: `rule` (the operation's acceptance for operands
/// it reads as given, results flushed by [`Acceptance::float_range`]) joined over every reading of
/// the operands. Every float operation of the catalogue goes through this one function.
#[must_use]
pub fn over_flushed_operands<const N: usize>(
    operands: [f32; N],
    rule: impl Fn([f32; N]) -> Acceptance,
) -> Acceptance {
    operand_readings(operands)
        .into_iter()
        .map(rule)
        .reduce(Acceptance::union)
        .unwrap_or(Acceptance::Any)
}

/// The `f32` bounds of the correctly rounded sum `a + b` of two values that are each exact in `f64`,
/// or `None` when the sum overflows. The `f64` sum may itself be rounded, so its error (recovered
/// exactly by Knuth's TwoSum) says on which side of it the true sum lies.
fn rounded_sum_bounds(a: f64, b: f64) -> Option<(f64, f64)> {
    let sum = a + b;
    if !sum.is_finite() {
        return None;
    }
    let b_virtual = sum - a;
    let error = (a - (sum - b_virtual)) + (b - b_virtual);
    if error == 0.0 || !is_f32_value(sum) {
        // Exact, or strictly between two f32 values with no f32 between `sum` and the true sum.
        return Some((f32_at_or_below(sum), f32_at_or_above(sum)));
    }
    // `sum` is an f32 value and the true sum lies just beside it, towards `error`.
    if error > 0.0 {
        Some((sum, f32_above(sum)))
    } else {
        Some((f32_below(sum), sum))
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
