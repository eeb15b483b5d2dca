//! `max(y, -x)` of two values, the second bug of [`negation`](super::negation): at `i32`, with
//! both values widened into `i64`, and whole, accumulated into the output element.
//!
//! An NVIDIA H100 miscompile (Vulkan, driver 580.159.04), fuzz seed 29210, the emitted code correct
//! (`max(_e71, -(_e72))` of the loop variables): `for i1 in 72237995i..(72237995i + 1i) { for i2 in
//! 12541355i..(12541355i + 1i) { out[0u] = max(out[0u], max(i2, -i1)); } }` gave 72237995 (`i1`)
//! where the law gives 12541355, only with the outer `max`: `0i - i1` for `-i1`, one loop, or a
//! literal `i2` came out right (`vyre-driver-wgpu/tests/i32_max_neg_probe.rs` holds the variants).
//! The pairs here hold the bug's values both ways round, small values, signs and the extremes.

use vyre_foundation::ir::{DataType, Expr, Node};

use super::int::Int;
use super::shape::{Form, Shape, describe, exact, literal, neg, zero_minus};
use super::snippets::{Snippets, Spread};

/// `(x, y)` pairs for the two-operand shapes `max(y, -x)`: the seed-29210 values both ways round,
/// small values, signs, the extremes.
const I32_PAIRS: [(i32, i32); 14] = [
    (72_237_995, 12_541_355),
    (12_541_355, 72_237_995),
    (-72_237_995, -12_541_355),
    (5, 3),
    (3, 5),
    (1, 0),
    (0, 1),
    (1, 1),
    (-1, 1),
    (1, -1),
    (100, -100),
    (i32::MIN, 0),
    (i32::MAX - 1, i32::MIN),
    (i32::MIN, i32::MAX - 1),
];

/// The pairs as operand rows of `t` (`i32`).
pub(super) fn pair_rows(t: Int) -> Vec<Vec<u64>> {
    let pairs = I32_PAIRS.iter();
    pairs
        .map(|&(x, y)| vec![t.of(x.into()), t.of(y.into())])
        .collect()
}

/// Two-operand shapes `(x, y)` of the second bug: `max(y, -x)` and its neighbours, at `i32`, and
/// with both `i32` operands widened into `i64` (negated before or after the widening).
pub(super) fn two_operand(wide: bool) -> Vec<Shape> {
    let (i, l) = (Int(DataType::I32), Int(DataType::I64));
    if !wide {
        return vec![
            Shape::new(
                "max_neg2.i32",
                DataType::I32,
                |e| Expr::max(e[1].clone(), neg(&e[0])),
                move |w| exact(i.max(w[1], i.neg(w[0]))),
            ),
            Shape::new(
                "min_neg2.i32",
                DataType::I32,
                |e| Expr::min(e[1].clone(), neg(&e[0])),
                move |w| exact(i.min(w[1], i.neg(w[0]))),
            ),
            Shape::new(
                "max_sub2.i32",
                DataType::I32,
                |e| Expr::max(e[1].clone(), zero_minus(DataType::I32, &e[0])),
                move |w| exact(i.max(w[1], i.sub(0, w[0]))),
            ),
        ];
    }
    let widen = |e: &Expr| Expr::cast(DataType::I64, e.clone());
    let w64 = move |x: u64| i.cast(DataType::I64, x);
    vec![
        Shape::new(
            "max_neg2.widened",
            DataType::I64,
            move |e| Expr::max(widen(&e[1]), neg(&widen(&e[0]))),
            move |w| exact(l.max(w64(w[1]), l.neg(w64(w[0])))),
        ),
        Shape::new(
            "max_neg2.negated_then_widened",
            DataType::I64,
            move |e| Expr::max(widen(&e[1]), widen(&neg(&e[0]))),
            move |w| exact(l.max(w64(w[1]), w64(i.neg(w[0])))),
        ),
        Shape::new(
            "min_neg2.widened",
            DataType::I64,
            move |e| Expr::min(widen(&e[1]), neg(&widen(&e[0]))),
            move |w| exact(l.min(w64(w[1]), l.neg(w64(w[0])))),
        ),
    ]
}

/// The second bug's statement, whole: `out = max(out, max(y, -x))` with the element zero before,
/// `x` and `y` literals or (in `form` [`Form::LoopCounter`]) the counters of two nested one-trip
/// loops, at `i32` or widened to `i64`.
pub(super) fn accumulated(batch: &mut Snippets, form: Form, wide: bool) {
    let (i, l) = (Int(DataType::I32), Int(DataType::I64));
    let i32_ = DataType::I32;
    let ty = if wide { DataType::I64 } else { i32_ };
    let at = |e: Expr| if wide { Expr::cast(ty, e) } else { e };
    let id = if wide {
        "max_acc_neg2.widened"
    } else {
        "max_acc_neg2.i32"
    };
    for row in pair_rows(i) {
        batch.begin();
        let slot = batch.slot(ty);
        let (x, y) = match form {
            Form::LoopCounter => (Expr::var("c0"), Expr::var("c1")),
            _ => (literal(i32_, row[0]), literal(i32_, row[1])),
        };
        let store = slot.store(Expr::max(slot.load(), Expr::max(at(y), neg(&at(x)))));
        let nodes = if form == Form::LoopCounter {
            let bound = |v: u64, name: &str, body| {
                let from = literal(i32_, v);
                let to = Expr::add(from.clone(), Expr::i32(1));
                Node::loop_for(name, from, to, body)
            };
            vec![bound(row[0], "c0", vec![bound(row[1], "c1", vec![store])])]
        } else {
            vec![store]
        };
        batch.push(nodes);
        let value = if wide {
            let neg_x = l.neg(i.cast(ty, row[0]));
            l.max(0, l.max(i.cast(ty, row[1]), neg_x))
        } else {
            i.max(0, i.max(row[1], i.neg(row[0])))
        };
        let args = describe(&[i32_, i32_], &row);
        let name = format!("driver.{id}.{}({args})", form.name(Spread::One));
        batch.expect(&slot, 0, name, args, exact(value));
    }
}
