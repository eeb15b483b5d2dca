//! `f16` round trips at rounding boundaries: `f32(f16(x))`, its chains, the `f16` held in a
//! variable or stored and read back, and integers through `f16`.
//!
//! An NVIDIA H100 miscompile (Vulkan, driver 580.159.04), found by fuzzing, the emitted code
//! correct: `f32(f16(x))` with `x = f32(1/3)`, stored from one expression, gave 0.33333334 where
//! the law, the reference and lavapipe give 0.33325195 (`f16` bits `0x3555`): the rounding to
//! `f16` was dropped.
//!
//! A conversion to `f16` is correctly rounded (SEMANTICS.md section 6): the reference rounds to
//! nearest even, which is each case's hand-written oracle (the `half` crate's rounding); another
//! backend may return either `f16` neighbour of an inexact value, and a subnormal result or zero
//! as zero of either sign (the flush rule, section 7). Every accepted answer is an `f16` value, so
//! each case accepts a short list of exact bit patterns, never an interval: a dropped rounding
//! returns a value between the neighbours and fails. Just below 65520 the neighbours are 65504 and,
//! rounded up, the infinity; from 65520 on the result overflows and is indeterminate, so no case
//! goes there.

use vyre_foundation::ir::{DataType, Expr, Node};

use super::shape::{Form, LOOPS_PER_PROGRAM, Shape, describe, literal, loaded, write};
use super::snippets::{Snippets, Spread};
use crate::catalogue::half;
use crate::catalogue::interval::Acceptance;
use crate::catalogue::{Area, Batch, Expectation};

/// The smallest positive normal `f16`, 2^-14.
const MIN_NORMAL16: f64 = 1.0 / 16384.0;

/// `f32` sources: inexact values, exact `f16` values, ties with an even neighbour below and with an
/// odd one, one `f32` ULP either side of a tie, the subnormal range (ties there, half the smallest
/// subnormal and below it), the subnormal-normal boundary, and just below 65520.
fn f32_values() -> Vec<f32> {
    let tiny = 2f32.powi(-24);
    let tie = 1.0 + 2f32.powi(-11);
    vec![
        // The bug's value, and other inexact ones.
        1.0 / 3.0,
        -1.0 / 3.0,
        0.1,
        // Exact: one answer.
        1.0,
        -2.5,
        2048.0,
        65504.0,
        -65504.0,
        3.140625,
        2f32.powi(-14),
        tiny,
        1023.0 * tiny,
        // Ties: 1.0 (even) and 1.0 + 2^-10 (odd); 1.0 + 2^-10 (odd) and 1.0 + 2^-9 (even).
        tie,
        -tie,
        1.0 + 3.0 * 2f32.powi(-11),
        2049.0,
        2051.0,
        -2051.0,
        // One f32 ULP either side of a tie.
        tie.next_up(),
        tie.next_down(),
        2049f32.next_up(),
        2049f32.next_down(),
        // The subnormal range: inexact, ties (1|2, 2|3, 3|4 units), half the smallest subnormal
        // (a tie with zero), one ULP either side of it, below it, and the tie between the
        // largest subnormal and the smallest normal.
        3.0e-5,
        1.5 * tiny,
        2.5 * tiny,
        3.5 * tiny,
        0.5 * tiny,
        (0.5 * tiny).next_up(),
        (0.5 * tiny).next_down(),
        0.25 * tiny,
        -0.5 * tiny,
        1023.5 * tiny,
        // Just below 65520, where rounding up overflows.
        65520f32.next_down(),
        65519.0,
        65505.0,
    ]
}

/// Integer sources: exact (up to 2048), ties (2049: 2048 | 2050; 2051: 2050 | 2052), past 4096,
/// just below 65520.
const U32_VALUES: [u32; 10] = [0, 1, 2047, 2048, 2049, 2051, 4097, 4099, 65504, 65519];

/// Negative integer sources.
const I32_VALUES: [i32; 5] = [-1, -2049, -2051, -4097, -65519];

/// The `f16` bits a conversion of the value `x` may give (the nearest-even one first).
fn choices(x: f64) -> Vec<u64> {
    let mut out = vec![u64::from(half::round(x))];
    for v in [half::at_or_below(x), half::at_or_above(x)] {
        let bits = u64::from(half::round(v));
        if !out.contains(&bits) {
            out.push(bits);
        }
    }
    let flushable = |&b: &u64| half::value(b as u16).abs() < MIN_NORMAL16;
    if out.iter().any(flushable) {
        for zero in [0x0000, 0x8000] {
            if !out.contains(&zero) {
                out.push(zero);
            }
        }
    }
    out
}

/// The `f32` bits of each `f16` in `choices`.
fn widened(choices: &[u64]) -> Vec<u64> {
    let word = |b: &u64| u64::from((half::value(*b as u16) as f32).to_bits());
    choices.iter().map(word).collect()
}

/// The oracle (the first choice, to nearest even) exactly for the reference, any choice for the
/// others; bit-exact when there is one.
fn expect(choices: Vec<u64>) -> Expectation {
    let oracle = choices[0];
    if choices.len() == 1 {
        Expectation::exact_bits(oracle)
    } else {
        Expectation::oracle_within_bits(oracle, Acceptance::Words(choices))
    }
}

/// The value of the operand bits `bits` of type `ty` (an `f32` or an integer).
fn value(ty: DataType, bits: u64) -> f64 {
    match ty {
        DataType::I32 => f64::from(bits as u32 as i32),
        DataType::U32 => f64::from(bits as u32),
        _ => f64::from(f32::from_bits(bits as u32)),
    }
}

fn f16_of(e: &Expr) -> Expr {
    Expr::cast(DataType::F16, e.clone())
}

fn f32_of(e: &Expr) -> Expr {
    Expr::cast(DataType::F32, e.clone())
}

/// The expression shapes over an operand of type `ty`: the conversion to `f16`, the round trip (the
/// bug), the round trip twice, and back to `f16` through `f32`.
fn shapes(ty: DataType) -> Vec<Shape> {
    let rounded = move |w: &[u64]| choices(value(ty, w[0]));
    vec![
        Shape::new(
            format!("f16_of.{ty}"),
            DataType::F16,
            |e| f16_of(&e[0]),
            move |w| expect(rounded(w)),
        ),
        Shape::new(
            format!("f32_of_f16_of.{ty}"),
            DataType::F32,
            |e| f32_of(&f16_of(&e[0])),
            move |w| expect(widened(&rounded(w))),
        ),
        Shape::new(
            format!("f32_of_f16_of_f32_of_f16_of.{ty}"),
            DataType::F32,
            |e| f32_of(&f16_of(&f32_of(&f16_of(&e[0])))),
            move |w| expect(widened(&rounded(w))),
        ),
        Shape::new(
            format!("f16_of_f32_of_f16_of.{ty}"),
            DataType::F16,
            |e| f16_of(&f32_of(&f16_of(&e[0]))),
            move |w| expect(rounded(w)),
        ),
    ]
}

/// The statement shapes on `x` (a literal, or a load when `load`): `let h = f16(x); out = f32(h)`,
/// and `f16(x)` stored to an `f16` output and read back into an `f32` one.
fn held(batch: &mut Snippets, x: f32, load: bool) {
    batch.begin();
    let bits = u64::from(x.to_bits());
    let form = if load { Form::Load } else { Form::Literal };
    let operand = if load {
        batch.input(DataType::F32, bits)
    } else {
        literal(DataType::F32, bits)
    };
    let args = describe(&[DataType::F32], &[bits]);
    let rounded = choices(f64::from(x));
    let name = |id: &str| format!("driver.{id}.f32.{}({args})", form.name(Spread::One));

    let variable = batch.slot(DataType::F32);
    batch.push(vec![
        Node::let_bind("h", f16_of(&operand)),
        variable.store(f32_of(&Expr::var("h"))),
    ]);
    let round_trip = expect(widened(&rounded));
    batch.expect(
        &variable,
        0,
        name("f32_of_f16_variable"),
        args.clone(),
        round_trip.clone(),
    );

    let stored = batch.slot(DataType::F16);
    let read_back = batch.slot(DataType::F32);
    batch.push(vec![
        stored.store(f16_of(&operand)),
        read_back.store(f32_of(&stored.load())),
    ]);
    batch.expect(
        &stored,
        0,
        name("f16_stored"),
        args.clone(),
        expect(rounded),
    );
    batch.expect(
        &read_back,
        0,
        name("f32_of_f16_read_back"),
        args,
        round_trip,
    );
}

/// The `f16` batches: literals (integers also as loop counters) and the held forms in one program,
/// and one loaded batch per source type.
pub(super) fn batches() -> Vec<Batch> {
    let (f32_, u32_, i32_) = (DataType::F32, DataType::U32, DataType::I32);
    let f32_rows: Vec<Vec<u64>> = f32_values()
        .iter()
        .map(|x| vec![u64::from(x.to_bits())])
        .collect();
    let u32_rows: Vec<Vec<u64>> = U32_VALUES.iter().map(|&v| vec![u64::from(v)]).collect();
    let i32_rows: Vec<Vec<u64>> = I32_VALUES
        .iter()
        .map(|&v| vec![u64::from(v as u32)])
        .collect();

    let mut written = Snippets::new(Area::Cast, "cast.driver.f16", Spread::One);
    let literal_form = [Form::Literal];
    write(
        &mut written,
        &literal_form,
        &[f32_],
        &f32_rows,
        &shapes(f32_),
    );
    write(
        &mut written,
        &literal_form,
        &[u32_],
        &u32_rows,
        &shapes(u32_),
    );
    write(
        &mut written,
        &literal_form,
        &[i32_],
        &i32_rows,
        &shapes(i32_),
    );
    for x in f32_values() {
        held(&mut written, x, false);
        held(&mut written, x, true);
    }
    let name = "cast.driver.f16.loop_counter";
    let mut loops = Snippets::new(Area::Cast, name, Spread::One).at_most(LOOPS_PER_PROGRAM);
    let counted = [Form::LoopCounter];
    write(&mut loops, &counted, &[u32_], &u32_rows, &shapes(u32_));
    write(&mut loops, &counted, &[i32_], &i32_rows, &shapes(i32_));

    let mut out = written.into_batches();
    out.extend(loops.into_batches());
    out.extend([
        loaded(
            Area::Cast,
            "cast.driver.f16.f32.load",
            &[f32_],
            f32_rows,
            &shapes(f32_),
        ),
        loaded(
            Area::Cast,
            "cast.driver.f16.u32.load",
            &[u32_],
            u32_rows,
            &shapes(u32_),
        ),
        loaded(
            Area::Cast,
            "cast.driver.f16.i32.load",
            &[i32_],
            i32_rows,
            &shapes(i32_),
        ),
    ]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn choices_are_the_f16_neighbours_nearest_even_first() {
        let third = f64::from(1.0f32 / 3.0);
        // 0x3555 = 0.33325195 (nearest), 0x3556 = 0.33349609.
        assert_eq!(choices(third), [0x3555, 0x3556]);
        assert_eq!(choices(1.0), [0x3c00]);
        // Ties: 2049 between 2048 (even) and 2050; 2051 between 2050 and 2052 (even).
        assert_eq!(choices(2049.0), [0x6800, 0x6801]);
        assert_eq!(choices(2051.0), [0x6802, 0x6801]);
        // One f32 ULP above the tie 1 + 2^-11 rounds up, nearest.
        let above = f64::from((1.0f32 + 2f32.powi(-11)).next_up());
        assert_eq!(choices(above), [0x3c01, 0x3c00]);
    }

    #[test]
    fn subnormal_results_may_be_zero_and_rounding_up_from_65504_is_infinite() {
        let tiny = 2f64.powi(-24);
        // Half the smallest subnormal: a tie with zero, zero (even) nearest.
        assert_eq!(choices(0.5 * tiny), [0x0000, 0x0001, 0x8000]);
        assert_eq!(choices(1.5 * tiny), [0x0002, 0x0001, 0x0000, 0x8000]);
        assert_eq!(choices(-0.25 * tiny), [0x8000, 0x8001, 0x0000]);
        assert_eq!(choices(65519.0), [0x7bff, 0x7c00]);
        // Their f32 words: 65504.0 and the infinity.
        assert_eq!(widened(&choices(65519.0)), [0x477f_e000, 0x7f80_0000]);
    }

    #[test]
    fn an_exact_value_has_one_answer_an_inexact_one_a_list() {
        assert_eq!(expect(vec![0x3c00]), Expectation::exact_bits(0x3c00));
        let listed = expect(widened(&choices(f64::from(1.0f32 / 3.0))));
        assert_eq!(listed.oracle, Some(u64::from(0.333_251_95f32.to_bits())));
        let accept = listed.accept.unwrap_or(Acceptance::Any);
        assert!(!accept.accepts_bits(u64::from((1.0f32 / 3.0).to_bits())));
    }
}
