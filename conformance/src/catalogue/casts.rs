//! Conversions (`cast`) between every pair of types and reinterpretations (`bitcast`) between the
//! numeric types, over each source type's edge values.

use vyre_foundation::ir::{DataType, Expr};

use crate::catalogue::accuracy;
use crate::catalogue::build::{ElementOp, Elementwise};
use crate::catalogue::interval::{Acceptance, over_flushed_operands};
use crate::catalogue::values::{F32_UNARY, f32_words, i32_words, singles, u32_words};
use crate::catalogue::{Area, Batch, Expectation, oracle};

/// `f32` sources for conversions: the unary edges plus the saturation boundaries.
fn f32_sources() -> Vec<u32> {
    let mut words = f32_words(&F32_UNARY);
    words.extend(f32_words(&[
        2_147_483_520.0,
        2_147_483_648.0,
        -2_147_483_648.0,
        -2_147_483_904.0,
        3.0e9,
        4_294_967_040.0,
        4_294_967_296.0,
        1.0e10,
        -1.9,
        0.9,
        -0.9,
        123_456.78,
    ]));
    let mut seen = std::collections::HashSet::new();
    words.retain(|w| seen.insert(*w));
    words
}

/// Every batch of the cast area: one per source type.
pub(super) fn batches() -> Vec<Batch> {
    let sources = [
        (DataType::Bool, vec![0, 1]),
        (DataType::U32, u32_words()),
        (DataType::I32, i32_words()),
        (DataType::F32, f32_sources()),
    ];
    sources
        .into_iter()
        .map(|(from, words)| from_type(from, words))
        .collect()
}

fn from_type(from: DataType, words: Vec<u32>) -> Batch {
    let mut batch =
        Elementwise::new(Area::Cast, format!("cast.from_{from}"), vec![from]).rows(singles(&words));
    // The catalogue addresses outputs in 32-bit words: the f16 and 64-bit casts are checked by the
    // semantics cases (`semantics::wide`) until it learns other element sizes.
    for to in DataType::ALL.into_iter().filter(|t| t.is_word()) {
        batch = batch.op(ElementOp::new(
            format!("cast.{from}_to_{to}"),
            to,
            move |e| Expr::cast(to, e[0].clone()),
            move |w| cast_expectation(from, to, w[0]),
        ));
    }
    if from != DataType::Bool {
        for to in [DataType::U32, DataType::I32, DataType::F32] {
            batch = batch.op(ElementOp::new(
                format!("bitcast.{from}_to_{to}"),
                to,
                move |e| Expr::bitcast(to, e[0].clone()),
                |w| Expectation::exact(w[0]),
            ));
        }
    }
    batch.into_batch()
}

/// The reference must match the oracle bit for bit; other backends get the freedoms of the float
/// rules where a float is involved.
fn cast_expectation(from: DataType, to: DataType, word: u32) -> Expectation {
    let Some(exact) = oracle::cast(from, to, word) else {
        return Expectation::reference();
    };
    match (from, to) {
        (DataType::U32, DataType::F32) => {
            Expectation::oracle_within(exact, accuracy::int_to_f32(i64::from(word)))
        }
        (DataType::I32, DataType::F32) => {
            Expectation::oracle_within(exact, accuracy::int_to_f32(i64::from(word as i32)))
        }
        (DataType::F32, _) => from_f32(to, word, exact),
        _ => Expectation::exact(exact),
    }
}

/// Conversions from `f32`. The identity `f32 -> f32` is a move: the bits come back unchanged, like
/// a `bitcast`. The others are float operations: their operand may be read flushed (through
/// [`over_flushed_operands`]), and a NaN or infinite operand makes an integer result indeterminate
/// (`SEMANTICS.md` sections 6 and 7); `bool` keeps its fixed answer, `true`, for both.
fn from_f32(to: DataType, word: u32, exact: u32) -> Expectation {
    if to == DataType::F32 {
        return Expectation::exact(exact);
    }
    let accept = over_flushed_operands([f32::from_bits(word)], |[v]| {
        if to.is_integer() && !v.is_finite() {
            return Acceptance::Any;
        }
        oracle::cast(DataType::F32, to, v.to_bits()).map_or(Acceptance::Any, Acceptance::word)
    });
    Expectation::oracle_within(exact, accept)
}
