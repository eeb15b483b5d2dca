//! Integer arithmetic, bit operations, comparisons and bools: every operator over every integer type
//! and its edge values, with hand-written expectations from [`oracle`](crate::catalogue::oracle).

use vyre_foundation::ir::{BinClass, BinOp, DataType, Expr, UnClass, UnOp};

use crate::catalogue::build::{ElementOp, Elementwise};
use crate::catalogue::values::{
    SHIFT_AMOUNTS, bit_words, comparison_ops, i32_words, pairs, product, singles, u32_words,
};
use crate::catalogue::{Area, Batch, Expectation, oracle};

/// The integer types and their edge words.
fn integer_types() -> [(DataType, Vec<u32>); 2] {
    [(DataType::U32, u32_words()), (DataType::I32, i32_words())]
}

/// A binary operator over operands `ops[0]`, `ops[1]`, checked against the oracle.
fn binary_op(op: BinOp, ty: DataType, result: DataType) -> ElementOp<u32> {
    ElementOp::new(
        format!("{}.{ty}", op.name()),
        result,
        move |e| Expr::binary(op, e[0].clone(), e[1].clone()),
        move |w| oracle_expectation(oracle::binary(op, ty, w[0], w[1])),
    )
}

/// A unary operator, checked against the oracle.
fn unary_op(op: UnOp, ty: DataType) -> ElementOp<u32> {
    ElementOp::new(
        format!("{}.{ty}", op.name()),
        ty,
        move |e| Expr::unary(op, e[0].clone()),
        move |w| oracle_expectation(oracle::unary(op, ty, w[0])),
    )
}

/// Bit-exact against the oracle. An operator the oracle does not know is a catalogue bug, caught by
/// the catalogue's own tests; such a case falls back to the reference's answer.
fn oracle_expectation(value: Option<u32>) -> Expectation {
    value.map_or_else(Expectation::reference, Expectation::exact)
}

/// Every batch of the integer, bits and compare areas.
pub(super) fn batches() -> Vec<Batch> {
    let mut out = Vec::new();
    for (ty, words) in integer_types() {
        out.push(arithmetic(ty, &words));
        out.push(bitwise(ty, &words));
        out.push(shifts(ty, &words));
        out.push(bit_counts(ty));
        out.push(comparisons(ty, &words));
    }
    out.push(integer_unary());
    out.push(bools());
    out.push(select());
    out
}

fn arithmetic(ty: DataType, words: &[u32]) -> Batch {
    BinOp::of_class(BinClass::Arithmetic)
        .fold(
            Elementwise::new(Area::Integer, format!("integer.{ty}"), vec![ty, ty])
                .rows(pairs(words)),
            |b, op| b.op(binary_op(op, ty, ty)),
        )
        .into_batch()
}

fn integer_unary() -> Batch {
    let i32_batch = Elementwise::new(Area::Integer, "integer.unary.i32", vec![DataType::I32])
        .rows(singles(&i32_words()))
        .op(unary_op(UnOp::Neg, DataType::I32))
        .op(unary_op(UnOp::Abs, DataType::I32));
    i32_batch.into_batch()
}

fn bitwise(ty: DataType, words: &[u32]) -> Batch {
    BinOp::of_class(BinClass::Bitwise)
        .fold(
            Elementwise::new(Area::Bits, format!("bits.{ty}"), vec![ty, ty]).rows(pairs(words)),
            |b, op| b.op(binary_op(op, ty, ty)),
        )
        .into_batch()
}

fn shifts(ty: DataType, words: &[u32]) -> Batch {
    let batch = Elementwise::new(
        Area::Bits,
        format!("bits.shift.{ty}"),
        vec![ty, DataType::U32],
    )
    .rows(product(words, &SHIFT_AMOUNTS));
    BinOp::of_class(BinClass::Shift)
        .fold(batch, |b, op| b.op(binary_op(op, ty, ty)))
        .into_batch()
}

fn bit_counts(ty: DataType) -> Batch {
    let mut batch = Elementwise::new(Area::Bits, format!("bits.unary.{ty}"), vec![ty])
        .rows(singles(&bit_words()));
    for op in UnOp::of_class(UnClass::Bits) {
        batch = batch.op(unary_op(op, ty));
    }
    if ty == DataType::U32 {
        // `abs` on u32 is the identity; it lives here because its operands are bit patterns.
        batch = batch.op(unary_op(UnOp::Abs, ty));
    }
    batch.into_batch()
}

fn comparisons(ty: DataType, words: &[u32]) -> Batch {
    comparison_ops()
        .fold(
            Elementwise::new(Area::Compare, format!("compare.{ty}"), vec![ty, ty])
                .rows(pairs(words)),
            |b, op| b.op(binary_op(op, ty, DataType::Bool)),
        )
        .into_batch()
}

fn bools() -> Batch {
    let mut batch = Elementwise::new(
        Area::Compare,
        "compare.bool",
        vec![DataType::Bool, DataType::Bool],
    )
    .rows(pairs(&[0, 1]));
    for op in [BinOp::And, BinOp::Or, BinOp::Eq, BinOp::Ne] {
        batch = batch.op(binary_op(op, DataType::Bool, DataType::Bool));
    }
    batch
        .op(ElementOp::new(
            "not.bool",
            DataType::Bool,
            |e| Expr::not(e[0].clone()),
            |w| Expectation::exact(u32::from(w[0] == 0)),
        ))
        .into_batch()
}

/// Re-types an operand expression.
type View = fn(Expr) -> Expr;

/// `select(c, a, b)` on every type, both ways round, with both arms distinct edge values.
fn select() -> Batch {
    let rows: Vec<Vec<u32>> = [0u32, 1]
        .iter()
        .flat_map(|&c| {
            u32_words()
                .into_iter()
                .zip(i32_words().into_iter().rev())
                .map(move |(a, b)| vec![c, a, b])
        })
        .collect();
    let mut batch = Elementwise::new(
        Area::Compare,
        "compare.select",
        vec![DataType::Bool, DataType::U32, DataType::I32],
    )
    .rows(rows);
    // The same words seen as u32, i32 and f32 (through bitcasts) and as bools (through `!= 0`).
    let views: [(DataType, View); 3] = [
        (DataType::U32, |e| e),
        (DataType::I32, |e| Expr::bitcast(DataType::I32, e)),
        (DataType::F32, |e| Expr::bitcast(DataType::F32, e)),
    ];
    for (ty, view) in views {
        batch = batch.op(ElementOp::new(
            format!("select.{ty}"),
            ty,
            move |e| {
                let b = Expr::bitcast(DataType::U32, e[2].clone());
                Expr::select(e[0].clone(), view(e[1].clone()), view(b))
            },
            |w| Expectation::exact(if w[0] != 0 { w[1] } else { w[2] }),
        ));
    }
    batch
        .op(ElementOp::new(
            "select.bool",
            DataType::Bool,
            |e| {
                let a = Expr::ne(e[1].clone(), Expr::u32(0));
                let b = Expr::ne(e[2].clone(), Expr::i32(0));
                Expr::select(e[0].clone(), a, b)
            },
            |w| Expectation::exact(u32::from(if w[0] != 0 { w[1] != 0 } else { w[2] != 0 })),
        ))
        .into_batch()
}
