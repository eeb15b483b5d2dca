//! 64-bit `min`, `max` and comparisons of values whose low 32 bits order otherwise than the whole
//! values, and 32-bit values widened into them.
//!
//! An NVIDIA H100 miscompile (Vulkan, driver 580.159.04), found by fuzzing, the emitted code
//! correct: `let v1 = abs(min(5i64, 3i64)) * -1i64; out[0] = min(v1, -9223372036836883621i64);`
//! gave -3 where the law gives -9223372036836883621. That value is `i64::MIN + 17892187`, whose low
//! 32 bits are positive: the driver seems to have compared the two values on their low words
//! (signed, -3 < 17892187). Each pair here orders one way on the low words, signed or unsigned, and
//! the other on the whole values, or has equal low words and different high ones. The cases hold
//! them as literals (which a driver folds), loaded (which it cannot), computed from literals as in
//! the bug, and as `i32` values (literals or loop counters) widened into `i64`, or 64-bit values
//! narrowed to 32 bits and widened back.

use vyre_foundation::ir::{BinOp, DataType, Expr};

use super::int::Int;
use super::shape::{Form, LOOPS_PER_PROGRAM, Shape, by_invocation, exact, loaded, write};
use super::snippets::{Snippets, Spread};
use crate::catalogue::{Area, Batch};

/// `i64` pairs whose low words order otherwise (as `i32` or as `u32`) than the values, or are equal.
const I64_PAIRS: [(i64, i64); 14] = [
    // The bug's operands, both ways round.
    (-3, i64::MIN + 17_892_187),
    (i64::MIN + 17_892_187, -3),
    (-1, i64::MIN),
    (i64::MIN, -1),
    (1 << 32, 0xffff_ffff),
    (0xffff_ffff, 1 << 32),
    (1 << 32, 1),
    (-(1 << 32), -1),
    (0x1_8000_0000, 0x7fff_ffff),
    (i64::MAX, 0),
    (0x8000_0000, 0),
    // Equal low words.
    (1 << 32, 0),
    (i64::MIN, 0),
    (-(1 << 32), 0),
];

/// `u64` pairs whose low words order otherwise than the values, or are equal.
const U64_PAIRS: [(u64, u64); 10] = [
    (1 << 32, 0xffff_ffff),
    (0xffff_ffff, 1 << 32),
    (0xffff_ffff_0000_0000, 1),
    (0x8000_0000_0000_0000, 0x7fff_ffff),
    (0x1_0000_0005, 7),
    (u64::MAX, 1 << 32),
    (0x2_0000_0000, 0x1_ffff_ffff),
    (0x8000_0000, 0x1_0000_0000),
    (0x1_7fff_ffff, 0x8000_0000),
    (1 << 32, 0),
];

/// `(i32, i64)` pairs: a 32-bit value widened against a 64-bit one whose low word orders the
/// other way.
const MIXED_PAIRS: [(i32, i64); 8] = [
    (-3, i64::MIN + 17_892_187),
    (-1, i64::MIN),
    (-1, 1 << 32),
    (1, -(1 << 32) + 2),
    (i32::MIN, 0x8000_0000),
    (i32::MAX, -(1 << 32) + 0x7fff_ffff),
    (0, i64::MIN),
    (5, 0x1_0000_0003),
];

/// Operands of the bug's computed -3: its other operand, values whose low word is -3, the
/// extremes.
const AGAINST_MINUS_THREE: [i64; 9] = [
    i64::MIN + 17_892_187,
    i64::MIN,
    i64::MAX,
    -4,
    -3,
    -2,
    17_892_187,
    0xffff_fffd,
    -(1 << 32) - 3,
];

/// `min`, `max`, the comparisons and a compare-and-select of two `ty` values; `wrap` makes the
/// first from its operand expression (a widening for the mixed pairs) and `value` does the same to
/// the operand's bits.
fn ordered(id: &str, ty: DataType, wrap: fn(&Expr) -> Expr, value: fn(u64) -> u64) -> Vec<Shape> {
    let t = Int(ty);
    let mut shapes = vec![
        Shape::new(
            format!("min.{id}"),
            ty,
            move |e| Expr::min(wrap(&e[0]), e[1].clone()),
            move |w| exact(t.min(value(w[0]), w[1])),
        ),
        Shape::new(
            format!("max.{id}"),
            ty,
            move |e| Expr::max(wrap(&e[0]), e[1].clone()),
            move |w| exact(t.max(value(w[0]), w[1])),
        ),
        Shape::new(
            format!("select_lt.{id}"),
            ty,
            move |e| {
                let (a, b) = (wrap(&e[0]), e[1].clone());
                Expr::select(Expr::lt(a.clone(), b.clone()), a, b)
            },
            move |w| {
                let a = value(w[0]);
                exact(if t.bin(BinOp::Lt, a, w[1]) == 1 {
                    a
                } else {
                    w[1]
                })
            },
        ),
    ];
    for op in [
        BinOp::Lt,
        BinOp::Le,
        BinOp::Gt,
        BinOp::Ge,
        BinOp::Eq,
        BinOp::Ne,
    ] {
        shapes.push(Shape::new(
            format!("{}.{id}", op.name()),
            DataType::Bool,
            move |e| Expr::binary(op, wrap(&e[0]), e[1].clone()),
            move |w| exact(t.bin(op, value(w[0]), w[1])),
        ));
    }
    shapes
}

fn same(e: &Expr) -> Expr {
    e.clone()
}

fn unchanged(bits: u64) -> u64 {
    bits
}

/// The bug's left operand computed from literals, `abs(min(5i64, 3i64)) * -1i64` (= -3), against
/// the operand, and the operand narrowed to `i32` and widened back (its low word, sign-extended)
/// against -3.
fn folded() -> Vec<Shape> {
    let l = Int(DataType::I64);
    let minus_three = || {
        let m = Expr::min(Expr::i64(5), Expr::i64(3));
        Expr::mul(Expr::abs(m), Expr::i64(-1))
    };
    let narrowed = |e: &Expr| Expr::cast(DataType::I64, Expr::cast(DataType::I32, e.clone()));
    vec![
        Shape::new(
            "min_folded_minus_three.i64",
            DataType::I64,
            move |e| Expr::min(minus_three(), e[0].clone()),
            move |w| exact(l.min(l.of(-3), w[0])),
        ),
        Shape::new(
            "max_folded_minus_three.i64",
            DataType::I64,
            move |e| Expr::max(e[0].clone(), minus_three()),
            move |w| exact(l.max(w[0], l.of(-3))),
        ),
        Shape::new(
            "min_narrowed_widened.i64",
            DataType::I64,
            move |e| Expr::min(narrowed(&e[0]), Expr::i64(-3)),
            move |w| exact(l.min(Int(DataType::I32).cast(DataType::I64, w[0]), l.of(-3))),
        ),
    ]
}

/// Negative constants whose low word is positive (fuzz seed 80012's first), and one whose low
/// word orders as the whole value, compared against a value shifted left by one.
const SHIFTED_AGAINST: [i64; 4] = [
    -9_223_372_035_682_112_437,
    i64::MIN + 17_892_187,
    -(1 << 32) + 5,
    -5,
];

/// The values shifted: 0 (the seed's loaded zero), small, and past 2^31 and 2^62.
const SHIFTED: [i64; 5] = [0, 1, -1, 0x4000_0000, 0x4000_0000_0000_0001];

/// `c op (x << 1u)` for the operands `(x, c)`: a constant compared with a shifted value (fuzz seed
/// 80012: `bitcast<i64>(9223372038027439179u64) < (ld << 1u)` of a loaded 0 was false on the H100,
/// as if ordered by the low words), and `(x << 1u) op c` the other way round.
fn shifted() -> Vec<Shape> {
    let l = Int(DataType::I64);
    let shl = |e: &Expr| Expr::shl(e.clone(), Expr::u32(1));
    let mut shapes = Vec::new();
    for op in [BinOp::Lt, BinOp::Le, BinOp::Gt, BinOp::Ge] {
        shapes.push(Shape::new(
            format!("const_{}_shl.i64", op.name()),
            DataType::Bool,
            move |e| Expr::binary(op, e[1].clone(), shl(&e[0])),
            move |w| exact(l.bin(op, w[1], l.bin(BinOp::Shl, w[0], 1))),
        ));
        shapes.push(Shape::new(
            format!("shl_{}_const.i64", op.name()),
            DataType::Bool,
            move |e| Expr::binary(op, shl(&e[0]), e[1].clone()),
            move |w| exact(l.bin(op, l.bin(BinOp::Shl, w[0], 1), w[1])),
        ));
    }
    shapes
}

fn widen(e: &Expr) -> Expr {
    Expr::cast(DataType::I64, e.clone())
}

fn widened(bits: u64) -> u64 {
    Int(DataType::I32).cast(DataType::I64, bits)
}

/// The low-word batches: every pair written as literals (the `i32` ones also as loop counters) in
/// one program, and loaded in one program per operand types.
pub(super) fn batches() -> Vec<Batch> {
    let (i, l) = (Int(DataType::I32), Int(DataType::I64));
    let (ty64, tyu) = (DataType::I64, DataType::U64);
    let i64_rows: Vec<Vec<u64>> = I64_PAIRS
        .iter()
        .map(|&(a, b)| vec![l.of(a), l.of(b)])
        .collect();
    let u64_rows: Vec<Vec<u64>> = U64_PAIRS.iter().map(|&(a, b)| vec![a, b]).collect();
    let mixed_rows: Vec<Vec<u64>> = MIXED_PAIRS
        .iter()
        .map(|&(a, b)| vec![i.of(a.into()), l.of(b)])
        .collect();
    let singles: Vec<Vec<u64>> = AGAINST_MINUS_THREE.iter().map(|&v| vec![l.of(v)]).collect();
    let i64_shapes = ordered("i64", ty64, same, unchanged);
    let u64_shapes = ordered("u64", tyu, same, unchanged);
    let mixed_shapes = ordered("i32_widened", ty64, widen, widened);
    let mixed = [DataType::I32, ty64];

    let mut written = Snippets::new(Area::Integer, "integer.driver.low_words", Spread::One);
    let literal = [Form::Literal];
    write(
        &mut written,
        &literal,
        &[ty64, ty64],
        &i64_rows,
        &i64_shapes,
    );
    write(&mut written, &literal, &[tyu, tyu], &u64_rows, &u64_shapes);
    write(&mut written, &literal, &mixed, &mixed_rows, &mixed_shapes);
    write(&mut written, &literal, &[ty64], &singles, &folded());
    let name = "integer.driver.low_words.loop_counter";
    let mut loops = Snippets::new(Area::Integer, name, Spread::One).at_most(LOOPS_PER_PROGRAM);
    write(
        &mut loops,
        &[Form::LoopCounter],
        &mixed,
        &mixed_rows,
        &mixed_shapes,
    );

    let load = |name: &str, operands: &[DataType], rows, shapes: &[Shape]| {
        loaded(Area::Integer, name, operands, rows, shapes)
    };
    // The shifted value from the invocation id (eight invocations from each base), the constant a
    // literal: the driver cannot fold the comparison, as with the seed's load.
    let against_constants = |xs: &[i64]| -> Vec<Vec<u64>> {
        xs.iter()
            .flat_map(|&x| SHIFTED_AGAINST.iter().map(move |&c| vec![l.of(x), l.of(c)]))
            .collect()
    };
    let shifted_rows = against_constants(&SHIFTED);
    // Bases eight apart, so no two invocations of a batch hold the same value.
    let id_rows = against_constants(&[0, -8, 0x4000_0000]);
    let by_id = by_invocation(
        Area::Integer,
        "integer.driver.low_words.shifted",
        8,
        |batch| {
            write(batch, &[Form::Tid], &[ty64, ty64], &id_rows, &shifted());
        },
    );
    write(
        &mut written,
        &literal,
        &[ty64, ty64],
        &shifted_rows,
        &shifted(),
    );
    let mut out = written.into_batches();
    out.extend(loops.into_batches());
    out.extend(by_id);
    out.extend([
        load(
            "integer.driver.low_words.i64.load",
            &[ty64, ty64],
            i64_rows,
            &i64_shapes,
        ),
        load(
            "integer.driver.low_words.u64.load",
            &[tyu, tyu],
            u64_rows,
            &u64_shapes,
        ),
        load(
            "integer.driver.low_words.i32_i64.load",
            &mixed,
            mixed_rows,
            &mixed_shapes,
        ),
        load(
            "integer.driver.low_words.shifted.load",
            &[ty64, ty64],
            shifted_rows,
            &shifted(),
        ),
        load(
            "integer.driver.low_words.folded.load",
            &[ty64],
            singles,
            &folded(),
        ),
    ]);
    out
}
