//! Conversions to and from `f16`, `u64` and `i64` (and `f16` arithmetic), with expected values
//! computed here in plain Rust (and the `half` crate for `f16` rounding): every source type's edge
//! values converted to every type, over the rules of SEMANTICS.md section 6.

use vyre_foundation::ir::{BinOp, DataType, Expr, UnClass, UnOp};

use crate::catalogue::build::{ElementOp, Elementwise};
use crate::catalogue::half;
use crate::catalogue::interval::Acceptance;
use crate::catalogue::values::{
    F32_UNARY, I64_EDGES, U64_EDGES, comparison_ops, i32_words, pairs, singles, u32_words,
};
use crate::catalogue::{Area, Batch, Expectation};

/// A source value of a conversion, read from its bits.
#[derive(Clone, Copy, Debug)]
enum Source {
    Int(i128),
    Float(f64),
}

fn source(from: DataType, bits: u64) -> Source {
    match from {
        DataType::Bool => Source::Int(i128::from(bits != 0)),
        DataType::U32 | DataType::U64 => Source::Int(i128::from(bits)),
        DataType::I32 => Source::Int(i128::from(bits as u32 as i32)),
        DataType::I64 => Source::Int(i128::from(bits as i64)),
        DataType::F32 => Source::Float(f64::from(f32::from_bits(bits as u32))),
        DataType::F16 => Source::Float(half::value(bits as u16)),
    }
}

/// The saturation bounds of float-to-integer conversions: the integers nearest the type's range
/// that are exactly representable in f32 (SEMANTICS.md section 6).
fn float_bounds(to: DataType) -> (f64, f64) {
    match to {
        DataType::U32 => (0.0, 4_294_967_040.0),
        DataType::I32 => (-2_147_483_648.0, 2_147_483_520.0),
        DataType::U64 => (0.0, 18_446_742_974_197_923_840.0),
        _ => (-9_223_372_036_854_775_808.0, 9_223_371_487_098_961_920.0),
    }
}

/// `x` (finite) truncated and saturated into `to`, as the element's bits.
fn float_to_int(to: DataType, x: f64) -> u64 {
    let (lo, hi) = float_bounds(to);
    let t = x.trunc().clamp(lo, hi);
    // `t` is an integer within the target's range, so `as i128` is exact.
    let v = t as i128;
    (v as u64) & mask(to)
}

fn mask(to: DataType) -> u64 {
    if to.size_bytes() == 8 {
        u64::MAX
    } else {
        u64::from(u32::MAX)
    }
}

/// An integer rounded to an `f32` either way (the reference: to nearest even), as word bits.
fn int_to_f32_words(v: i128) -> Vec<u64> {
    // `as f32` from a 64-bit integer is correctly rounded to nearest even.
    let nearest = if v < 0 {
        v as i64 as f32
    } else {
        v as u64 as f32
    };
    let other = match (nearest as i128).cmp(&v) {
        std::cmp::Ordering::Equal => nearest,
        std::cmp::Ordering::Greater => nearest.next_down(),
        std::cmp::Ordering::Less => nearest.next_up(),
    };
    let mut words = vec![u64::from(nearest.to_bits())];
    if other != nearest {
        words.push(u64::from(other.to_bits()));
    }
    words
}

/// What `cast(to, x)` of the `from` value with bits `bits` must give: the reference's exact bits
/// (`None` where the result is indeterminate) and what other backends may return.
fn cast(from: DataType, to: DataType, bits: u64) -> (Option<u64>, Acceptance) {
    let exact = |b: u64| (Some(b), Acceptance::bits(b));
    if from == to {
        return exact(bits);
    }
    match (source(from, bits), to) {
        (Source::Int(v), DataType::Bool) => exact(u64::from(v != 0)),
        (Source::Int(v), DataType::F32) => {
            let words = int_to_f32_words(v);
            (Some(words[0]), Acceptance::Words(words))
        }
        (Source::Int(v), DataType::F16) => {
            // Integers of magnitude 65520 or more round past the f16 range: indeterminate (the
            // reference gives the infinity of the sign).
            if v.unsigned_abs() >= 65_520 {
                let inf = if v < 0 { 0xfc00 } else { 0x7c00 };
                return (Some(inf), Acceptance::Any);
            }
            let x = v as f64;
            let nearest = half::round(x);
            (Some(u64::from(nearest)), half::correctly_rounded(x))
        }
        // Integer to integer keeps the value modulo 2^N of the target.
        (Source::Int(v), _) => exact((v as u64) & mask(to)),
        (Source::Float(x), _) => from_float(from, to, x),
    }
}

/// Conversions from `f32` or `f16` (value `x`): float operations, so a subnormal operand may be read
/// as zero, and a NaN or infinite operand is indeterminate for integer targets; `bool` of NaN or an
/// infinity is `true`.
fn from_float(from: DataType, to: DataType, x: f64) -> (Option<u64>, Acceptance) {
    let min_normal = if from == DataType::F16 {
        1.0 / 16384.0
    } else {
        f64::from(f32::MIN_POSITIVE)
    };
    let subnormal = x != 0.0 && x.abs() < min_normal;
    match to {
        DataType::Bool => {
            let b = u64::from(x != 0.0);
            let accept = if subnormal {
                Acceptance::Words(vec![0, 1])
            } else {
                Acceptance::bits(b)
            };
            (Some(b), accept)
        }
        t if t.is_integer() => {
            if !x.is_finite() {
                // Indeterminate; the reference saturates, and gives 0 for NaN.
                return (Some(float_to_int(t, x)), Acceptance::Any);
            }
            // A subnormal truncates to zero either way.
            let b = float_to_int(t, x);
            (Some(b), Acceptance::bits(b))
        }
        DataType::F32 => {
            // f16 to f32 is exact; a subnormal operand may be read as zero.
            let b = u64::from((x as f32).to_bits());
            let accept = if x.is_nan() {
                Acceptance::nan()
            } else if subnormal {
                Acceptance::bits(b).union(Acceptance::Words(vec![0, 0x8000_0000]))
            } else {
                Acceptance::bits(b)
            };
            (Some(b), accept)
        }
        _ => {
            // f32 to f16: correctly rounded, indeterminate past the f16 range or for a non-finite
            // operand.
            let nearest = u64::from(half::round(x));
            if !x.is_finite() {
                return (Some(nearest), Acceptance::Any);
            }
            let mut accept = half::correctly_rounded(x);
            if subnormal {
                accept = accept.union(half::correctly_rounded(0.0));
            }
            (Some(nearest), accept)
        }
    }
}

fn expectation(from: DataType, to: DataType, bits: u64) -> Expectation {
    match cast(from, to, bits) {
        (Some(oracle), Acceptance::Words(words)) if words == [oracle] => {
            Expectation::exact_bits(oracle)
        }
        (Some(oracle), accept) => Expectation::oracle_within_bits(oracle, accept),
        (None, accept) => Expectation::accept(accept),
    }
}

/// `f32` sources: the unary edges plus the 32- and 64-bit saturation boundaries and the f16
/// boundaries (65504, the rounding tie at 65520, the f16 subnormal range).
fn f32_sources() -> Vec<u64> {
    let mut values: Vec<f32> = F32_UNARY.to_vec();
    values.extend([
        4_294_967_040.0,
        4_294_967_296.0,
        9_223_371_487_098_961_920.0,
        9_223_372_036_854_775_808.0,
        -9_223_372_036_854_775_808.0,
        -9_223_373_136_366_403_584.0,
        18_446_742_974_197_923_840.0,
        18_446_744_073_709_551_616.0,
        1.0e20,
        -1.9,
        0.9,
        65504.0,
        65519.0,
        65520.0,
        -65520.0,
        2049.0,
        2051.0,
        6.0e-8,
        3.0e-5,
        1.0e-4,
    ]);
    let mut seen = std::collections::HashSet::new();
    values
        .into_iter()
        .map(|v| u64::from(v.to_bits()))
        .filter(|w| seen.insert(*w))
        .collect()
}

fn sources(from: DataType) -> Vec<u64> {
    match from {
        DataType::Bool => vec![0, 1],
        DataType::U32 => u32_words().into_iter().map(u64::from).collect(),
        DataType::I32 => i32_words().into_iter().map(u64::from).collect(),
        DataType::F32 => f32_sources(),
        DataType::U64 => {
            let mut v = U64_EDGES.to_vec();
            v.extend([65504, 65519, 65520, 2049, 16_777_217, (1 << 53) + 1]);
            v
        }
        DataType::I64 => {
            let mut v: Vec<u64> = I64_EDGES.iter().map(|&x| x as u64).collect();
            v.extend([
                -65504i64 as u64,
                -65520i64 as u64,
                -2049i64 as u64,
                16_777_217,
            ]);
            v
        }
        DataType::F16 => half::edges().into_iter().map(u64::from).collect(),
    }
}

/// The batches: one per source type, converting to `f16`, `u64` and `i64` (and, from those three,
/// to every type), bitcasts between `u64` and `i64`, and the `f16` arithmetic and comparisons.
pub(super) fn batches() -> Vec<Batch> {
    let mut out = Vec::new();
    for from in DataType::ALL {
        let wide_source = !from.is_word();
        let targets: Vec<DataType> = DataType::ALL
            .into_iter()
            .filter(|&t| wide_source || !t.is_word())
            .collect();
        let mut batch = Elementwise::new(Area::Cast, format!("cast.from_{from}.wide"), vec![from])
            .rows(singles(&sources(from)));
        for to in targets {
            batch = batch.op(ElementOp::new(
                format!("cast.{from}_to_{to}"),
                to,
                move |e| Expr::cast(to, e[0].clone()),
                move |w| expectation(from, to, w[0]),
            ));
        }
        let partner = match from {
            DataType::U64 => Some(DataType::I64),
            DataType::I64 => Some(DataType::U64),
            _ => None,
        };
        if let Some(to) = partner {
            batch = batch.op(ElementOp::new(
                format!("bitcast.{from}_to_{to}"),
                to,
                move |e| Expr::bitcast(to, e[0].clone()),
                |w| Expectation::exact_bits(w[0]),
            ));
        }
        out.push(batch.into_batch());
    }
    out.extend(f16_batches());
    out
}

fn f16_expectation(accept: Option<Acceptance>) -> Expectation {
    accept.map_or_else(Expectation::reference, Expectation::accept)
}

/// `f16` arithmetic, `min`/`max`, comparisons, negation, magnitude and rounding over the edges.
fn f16_batches() -> Vec<Batch> {
    let ty = DataType::F16;
    let edges: Vec<u64> = half::edges().into_iter().map(u64::from).collect();
    let mut arithmetic =
        Elementwise::new(Area::Float, "float.f16", vec![ty, ty]).rows(pairs(&edges));
    for op in [
        BinOp::Add,
        BinOp::Sub,
        BinOp::Mul,
        BinOp::Div,
        BinOp::Min,
        BinOp::Max,
    ] {
        arithmetic = arithmetic.op(ElementOp::new(
            format!("{}.f16", op.name()),
            ty,
            move |e| Expr::binary(op, e[0].clone(), e[1].clone()),
            move |w| f16_expectation(half::binary(op, w[0] as u16, w[1] as u16)),
        ));
    }
    let mut compare =
        Elementwise::new(Area::Compare, "compare.f16", vec![ty, ty]).rows(pairs(&edges));
    for op in comparison_ops() {
        compare = compare.op(ElementOp::new(
            format!("{}.f16", op.name()),
            DataType::Bool,
            move |e| Expr::binary(op, e[0].clone(), e[1].clone()),
            move |w| f16_expectation(half::binary(op, w[0] as u16, w[1] as u16)),
        ));
    }
    let mut unary =
        Elementwise::new(Area::Float, "float.unary.f16", vec![ty]).rows(singles(&edges));
    let ops = UnOp::ALL.iter().copied().filter(|op| {
        matches!(
            op.class(),
            UnClass::Negation | UnClass::Magnitude | UnClass::Rounding
        )
    });
    for op in ops {
        unary = unary.op(ElementOp::new(
            format!("{}.f16", op.name()),
            ty,
            move |e| Expr::unary(op, e[0].clone()),
            move |w| f16_expectation(half::unary(op, w[0] as u16)),
        ));
    }
    vec![
        arithmetic.into_batch(),
        compare.into_batch(),
        unary.into_batch(),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conversions_follow_the_rules() {
        let f = |x: f32| u64::from(x.to_bits());
        // f32 to i64 saturates at 2^63 - 2^39, to u64 at 2^64 - 2^40; NaN gives 0.
        assert_eq!(
            cast(DataType::F32, DataType::I64, f(1.0e20)).0,
            Some(9_223_371_487_098_961_920)
        );
        assert_eq!(
            cast(DataType::F32, DataType::U64, f(1.0e20)).0,
            Some(18_446_742_974_197_923_840)
        );
        assert_eq!(cast(DataType::F32, DataType::U64, f(-1.0)).0, Some(0));
        assert_eq!(
            cast(DataType::F32, DataType::I64, f(f32::NAN)).1,
            Acceptance::Any
        );
        // Sign and zero extension, truncation.
        assert_eq!(
            cast(DataType::I32, DataType::U64, 0xffff_ffff).0,
            Some(u64::MAX)
        );
        assert_eq!(
            cast(DataType::U32, DataType::I64, 0xffff_ffff).0,
            Some(0xffff_ffff)
        );
        assert_eq!(
            cast(DataType::U64, DataType::I32, 0x1_8000_0000).0,
            Some(0x8000_0000)
        );
        // Integers to f16: rounded either way, overflow indeterminate.
        assert_eq!(cast(DataType::U64, DataType::F16, 2049).0, Some(0x6800));
        assert!(
            cast(DataType::U64, DataType::F16, 2049)
                .1
                .accepts_bits(0x6801)
        );
        assert!(
            !cast(DataType::U64, DataType::F16, 2049)
                .1
                .accepts_bits(0x6802)
        );
        assert_eq!(cast(DataType::U64, DataType::F16, 65520).1, Acceptance::Any);
        assert_eq!(cast(DataType::U64, DataType::F16, 65519).0, Some(0x7bff));
        // u64 to f32 rounds to nearest even; either neighbour is accepted.
        let (nearest, accept) = cast(DataType::U64, DataType::F32, (1 << 24) + 1);
        assert_eq!(nearest, Some(u64::from(16_777_216f32.to_bits())));
        assert!(accept.accepts(16_777_218f32.to_bits()));
        assert!(!accept.accepts(16_777_220f32.to_bits()));
        // f16 to f32 is exact; f16 to int truncates.
        assert_eq!(
            cast(DataType::F16, DataType::F32, 0x7bff).0,
            Some(f(65504.0))
        );
        assert_eq!(
            cast(DataType::F16, DataType::I64, 0xc500).0,
            Some(-5i64 as u64)
        );
        assert_eq!(cast(DataType::F16, DataType::U32, 0xc500).0, Some(0));
    }

    #[test]
    fn f16_intervals_are_correctly_rounded() {
        let one = 0x3c00u16;
        let tiny = half::round(2f64.powi(-11));
        // 1 + 2^-11 is a tie: 1.0 and 1.0 + 2^-10 are both accepted, nothing further.
        let sum = half::binary(BinOp::Add, one, tiny).unwrap_or(Acceptance::Any);
        assert!(sum.accepts_bits(0x3c00) && sum.accepts_bits(0x3c01));
        assert!(!sum.accepts_bits(0x3c02) && !sum.accepts_bits(0x3bff));
        // 65504 + 65504 overflows: indeterminate.
        let big = half::binary(BinOp::Add, 0x7bff, 0x7bff);
        assert_eq!(big, Some(Acceptance::Any));
        // A subnormal operand may be read as zero.
        let min = half::binary(BinOp::Mul, 0x0001, one).unwrap_or(Acceptance::Any);
        assert!(min.accepts_bits(0x0001) && min.accepts_bits(0x0000));
        assert!(!min.accepts_bits(0x0002));
        // floor(-0.5) = -1 exactly.
        let floor = half::unary(UnOp::Floor, 0xb800).unwrap_or(Acceptance::Any);
        assert!(floor.accepts_bits(0xbc00) && !floor.accepts_bits(0x8000));
    }
}
