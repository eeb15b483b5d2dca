//! `min`, `max` and `abs` of a value and its own negation, on `i32` and `i64` and across the two
//! widths.
//!
//! Two NVIDIA H100 miscompiles (Vulkan, driver 580.159.04), both found by fuzzing and both with
//! correct emitted code:
//!
//! - `let v = i32(tid); v = min(min(v, -v), 0i); out[tid] = f32(v % 17i);` gave 0.0 for `tid = 1`
//!   where the law gives -1.0 (vyre emitted `min(min(_e60, -(_e61)), 0i)`);
//! - seed 29210: `max(i2, -i1)` of two one-trip loop counters gave `i1` (its shapes are in
//!   [`negated_pairs`](super::negated_pairs), and in this file's batches).
//!
//! Both behave as if the negation inside the `min`/`max` were dropped. The cases hold each shape over
//! 0, ±1, small, large, `MIN` and `MAX`, with the operand a literal, a one-trip loop counter, the
//! invocation id and a load, `-x` beside `0 - x`, and `i32` values widened into `i64`.

use vyre_foundation::ir::{DataType, Expr, Node};

use super::int::Int;
use super::negated_pairs::{accumulated, pair_rows, two_operand};
use super::shape::{
    Form, LOOPS_PER_PROGRAM, Shape, by_invocation, exact, literal, loaded, neg, write, zero_minus,
};
use super::snippets::{Snippets, Spread};
use crate::catalogue::{Area, Batch};

/// `i32` values: 0, ±1, small, the divisor 17 and its negation, the fuzzed values, the extremes.
const I32_VALUES: [i32; 15] = [
    0,
    1,
    -1,
    2,
    -7,
    17,
    -17,
    100,
    12_541_355,
    72_237_995,
    -72_237_995,
    i32::MAX,
    i32::MIN,
    i32::MIN + 1,
    i32::MAX - 1,
];

/// The `i32` values of the loop-counter form (loops are slow to compile, so fewer): 0, ±1, the
/// divisor, a fuzzed value, and the extremes a one-trip loop can start at.
const COUNTED_I32: [i32; 8] = [
    0,
    1,
    -1,
    17,
    72_237_995,
    i32::MIN,
    i32::MIN + 1,
    i32::MAX - 1,
];

/// `i64` values: as for `i32`, plus the 32-bit boundaries and a `MIN` whose low word is positive.
const I64_VALUES: [i64; 16] = [
    0,
    1,
    -1,
    5,
    -3,
    17,
    72_237_995,
    -72_237_995,
    1 << 32,
    -(1 << 32),
    i32::MIN as i64,
    i32::MAX as i64,
    i64::MIN,
    i64::MAX,
    i64::MIN + 1,
    i64::MIN + 17_892_187,
];

fn rows(t: Int, values: impl IntoIterator<Item = i64>) -> Vec<Vec<u64>> {
    values.into_iter().map(|v| vec![t.of(v)]).collect()
}

/// One-operand shapes over `ty` (`i32` or `i64`): the value against its negation, nested, followed
/// by `% 17` and a conversion to `f32` as in the first bug, and `abs` beside them.
fn one_operand(ty: DataType) -> Vec<Shape> {
    let t = Int(ty);
    let (zero, k) = (t.of(0), t.of(17));
    let c = move |v: i64| literal(ty, t.of(v));
    let min_min = move |e: &Expr| Expr::min(Expr::min(e.clone(), neg(e)), c(0));
    let min_min_of = move |x: u64| t.min(t.min(x, t.neg(x)), zero);
    vec![
        Shape::new(
            format!("min_neg.{ty}"),
            ty,
            |e| Expr::min(e[0].clone(), neg(&e[0])),
            move |w| exact(t.min(w[0], t.neg(w[0]))),
        ),
        Shape::new(
            format!("max_neg.{ty}"),
            ty,
            |e| Expr::max(e[0].clone(), neg(&e[0])),
            move |w| exact(t.max(w[0], t.neg(w[0]))),
        ),
        Shape::new(
            format!("neg_min.{ty}"),
            ty,
            |e| Expr::min(neg(&e[0]), e[0].clone()),
            move |w| exact(t.min(t.neg(w[0]), w[0])),
        ),
        Shape::new(
            format!("min_sub.{ty}"),
            ty,
            move |e| Expr::min(e[0].clone(), zero_minus(ty, &e[0])),
            move |w| exact(t.min(w[0], t.sub(zero, w[0]))),
        ),
        Shape::new(
            format!("max_sub.{ty}"),
            ty,
            move |e| Expr::max(e[0].clone(), zero_minus(ty, &e[0])),
            move |w| exact(t.max(w[0], t.sub(zero, w[0]))),
        ),
        Shape::new(
            format!("min_min_neg.{ty}"),
            ty,
            move |e| min_min(&e[0]),
            move |w| exact(min_min_of(w[0])),
        ),
        Shape::new(
            format!("min_min_neg_rem.{ty}"),
            ty,
            move |e| Expr::rem(min_min(&e[0]), c(17)),
            move |w| exact(t.rem(min_min_of(w[0]), k)),
        ),
        // The first bug's expression, whole.
        Shape::new(
            format!("min_min_neg_rem_f32.{ty}"),
            DataType::F32,
            move |e| Expr::cast(DataType::F32, Expr::rem(min_min(&e[0]), c(17))),
            move |w| exact(t.to_f32(t.rem(min_min_of(w[0]), k))),
        ),
        Shape::new(
            format!("max_max_neg_rem.{ty}"),
            ty,
            move |e| {
                let inner = Expr::max(neg(&e[0]), e[0].clone());
                Expr::rem(Expr::max(inner, c(0)), c(17))
            },
            move |w| exact(t.rem(t.max(t.max(t.neg(w[0]), w[0]), zero), k)),
        ),
        Shape::new(
            format!("abs_neg.{ty}"),
            ty,
            |e| Expr::abs(neg(&e[0])),
            move |w| exact(t.abs(t.neg(w[0]))),
        ),
        Shape::new(
            format!("neg_abs.{ty}"),
            ty,
            |e| neg(&Expr::abs(e[0].clone())),
            move |w| exact(t.neg(t.abs(w[0]))),
        ),
        Shape::new(
            format!("abs_min_neg.{ty}"),
            ty,
            |e| Expr::abs(Expr::min(e[0].clone(), neg(&e[0]))),
            move |w| exact(t.abs(t.min(w[0], t.neg(w[0])))),
        ),
        Shape::new(
            format!("min_neg_abs.{ty}"),
            ty,
            |e| Expr::min(e[0].clone(), neg(&Expr::abs(e[0].clone()))),
            move |w| exact(t.min(w[0], t.neg(t.abs(w[0])))),
        ),
    ]
}

/// The first bug's program, whole: `let v = i32(id) + base; v = min(min(v, -v), 0i);
/// out = f32(v % 17i);`, the variable assigned from itself (`i32(id)` alone for a zero base, as
/// fuzzing found it with `id = gid.x`).
fn assigned(batch: &mut Snippets, bases: &[i32]) {
    let i = Int(DataType::I32);
    let spread = batch.spread();
    for &base in bases {
        batch.begin();
        let slot = batch.slot(DataType::F32);
        let v = Expr::var("v");
        let id = Expr::cast(DataType::I32, spread.id());
        let first = if base == 0 {
            id
        } else {
            Expr::add(id, Expr::i32(base))
        };
        batch.push(vec![
            Node::let_bind("v", first),
            Node::assign("v", Expr::min(Expr::min(v.clone(), neg(&v)), Expr::i32(0))),
            slot.store(Expr::cast(DataType::F32, Expr::rem(v, Expr::i32(17)))),
        ]);
        for lane in 0..spread.count() {
            let x = base.wrapping_add(lane as i32);
            let bits = i.of(i64::from(x));
            let value = i.to_f32(i.rem(i.min(i.min(bits, i.neg(bits)), 0), i.of(17)));
            let form = spread.name();
            let name = format!("driver.min_min_neg_rem_f32.i32.{form}_assigned({x})");
            batch.expect(&slot, lane, name, format!("v = {x}"), exact(value));
        }
    }
}

/// The negation batches: `i32` and `i64` written into the program (literals, loop counters, the
/// invocation id) and loaded.
pub(super) fn batches() -> Vec<Batch> {
    let (i, l) = (Int(DataType::I32), Int(DataType::I64));
    let (i32s, i64s) = (vec![DataType::I32], vec![DataType::I64]);
    let pairs = [DataType::I32, DataType::I32];
    let i32_rows = rows(i, I32_VALUES.map(i64::from));
    let counted_rows = rows(i, COUNTED_I32.map(i64::from));
    let i64_rows = rows(l, I64_VALUES);
    let (literal_form, counted) = ([Form::Literal], [Form::LoopCounter]);
    let mut out = Vec::new();

    let mut narrow = Snippets::new(Area::Integer, "integer.driver.negation.i32", Spread::One);
    write(
        &mut narrow,
        &literal_form,
        &i32s,
        &i32_rows,
        &one_operand(DataType::I32),
    );
    write(
        &mut narrow,
        &literal_form,
        &pairs,
        &pair_rows(i),
        &two_operand(false),
    );
    accumulated(&mut narrow, Form::Literal, false);
    out.extend(narrow.into_batches());
    let name = "integer.driver.negation.i32.loop_counter";
    let mut loops = Snippets::new(Area::Integer, name, Spread::One).at_most(LOOPS_PER_PROGRAM);
    write(
        &mut loops,
        &counted,
        &i32s,
        &counted_rows,
        &one_operand(DataType::I32),
    );
    write(
        &mut loops,
        &counted,
        &pairs,
        &pair_rows(i),
        &two_operand(false),
    );
    accumulated(&mut loops, Form::LoopCounter, false);
    out.extend(loops.into_batches());

    // Eight invocations from each base: 0..7 (the first bug's `i32(gid.x)`), -8..-1, and
    // MAX - 3 up through MAX and on to MIN + 3.
    let bases = [0, -8, i32::MAX - 3];
    let base_rows = rows(i, bases.map(i64::from));
    out.extend(by_invocation(
        Area::Integer,
        "integer.driver.negation.i32",
        8,
        |batch| {
            write(
                batch,
                &[Form::Tid],
                &i32s,
                &base_rows,
                &one_operand(DataType::I32),
            );
            assigned(batch, &bases);
        },
    ));

    let mut wide = Snippets::new(Area::Integer, "integer.driver.negation.i64", Spread::One);
    write(
        &mut wide,
        &literal_form,
        &i64s,
        &i64_rows,
        &one_operand(DataType::I64),
    );
    write(
        &mut wide,
        &literal_form,
        &pairs,
        &pair_rows(i),
        &two_operand(true),
    );
    accumulated(&mut wide, Form::Literal, true);
    out.extend(wide.into_batches());
    let name = "integer.driver.negation.i64.loop_counter";
    let mut wide_loops = Snippets::new(Area::Integer, name, Spread::One).at_most(LOOPS_PER_PROGRAM);
    write(
        &mut wide_loops,
        &counted,
        &pairs,
        &pair_rows(i),
        &two_operand(true),
    );
    accumulated(&mut wide_loops, Form::LoopCounter, true);
    out.extend(wide_loops.into_batches());

    // Eight invocations from 0, -8, from MAX - 3 on to MIN + 3, and across 2^31.
    let wide_bases = rows(l, [0, -8, i64::MAX - 3, i64::from(i32::MAX) - 3]);
    out.extend(by_invocation(
        Area::Integer,
        "integer.driver.negation.i64",
        8,
        |batch| {
            write(
                batch,
                &[Form::Tid],
                &i64s,
                &wide_bases,
                &one_operand(DataType::I64),
            )
        },
    ));

    let load = |name: &str, operands: &[DataType], rows, shapes: &[Shape]| {
        loaded(Area::Integer, name, operands, rows, shapes)
    };
    out.extend([
        load(
            "integer.driver.negation.i32.load",
            &i32s,
            i32_rows,
            &one_operand(DataType::I32),
        ),
        load(
            "integer.driver.negation.i32x2.load",
            &pairs,
            pair_rows(i),
            &two_operand(false),
        ),
        load(
            "integer.driver.negation.i64.load",
            &i64s,
            i64_rows,
            &one_operand(DataType::I64),
        ),
        load(
            "integer.driver.negation.i32x2_to_i64.load",
            &pairs,
            pair_rows(i),
            &two_operand(true),
        ),
    ]);
    out
}
