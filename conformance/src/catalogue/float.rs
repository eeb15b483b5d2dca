//! `f32` arithmetic, comparisons, math functions and `fma`, checked against acceptance intervals from
//! the WGSL accuracy table ([`accuracy`](crate::catalogue::accuracy)).

use vyre_foundation::ir::{BinClass, BinOp, DataType, Expr, UnOp};

use crate::catalogue::accuracy;
use crate::catalogue::build::{ElementOp, Elementwise};
use crate::catalogue::values::{
    F32_BINARY, F32_FMA, F32_UNARY, comparison_ops, f32_words, pairs, singles,
};
use crate::catalogue::{Acceptance, Area, Batch, Expectation};

/// Every batch of the float area (float comparisons belong to the compare area).
pub(super) fn batches() -> Vec<Batch> {
    vec![arithmetic(), comparisons(), math(), fma()]
}

fn binary_op(op: BinOp, result: DataType) -> ElementOp<u32> {
    ElementOp::new(
        format!("{}.f32", op.name()),
        result,
        move |e| Expr::binary(op, e[0].clone(), e[1].clone()),
        move |w| {
            let (a, b) = (f32::from_bits(w[0]), f32::from_bits(w[1]));
            Expectation::accept(accuracy::binary(op, a, b).unwrap_or(Acceptance::Any))
        },
    )
}

fn arithmetic() -> Batch {
    // Float `rem` has no interval of its own (it is accepted as inherited from div, mul and sub,
    // `SEMANTICS.md` section 7), so no element-wise rows check it.
    BinOp::of_class(BinClass::Arithmetic)
        .filter(|op| *op != BinOp::Rem)
        .fold(
            Elementwise::new(Area::Float, "float.binary", vec![DataType::F32; 2])
                .rows(pairs(&f32_words(&F32_BINARY))),
            |b, op| b.op(binary_op(op, DataType::F32)),
        )
        .into_batch()
}

fn comparisons() -> Batch {
    comparison_ops()
        .fold(
            Elementwise::new(Area::Compare, "compare.f32", vec![DataType::F32; 2])
                .rows(pairs(&f32_words(&F32_BINARY))),
            |b, op| b.op(binary_op(op, DataType::Bool)),
        )
        .into_batch()
}

fn math() -> Batch {
    // Every unary operator that takes an f32, so a new one is checked as soon as it exists.
    let ops = UnOp::ALL
        .iter()
        .copied()
        .filter(|op| op.result_type(DataType::F32).is_some());
    ops.fold(
        Elementwise::new(Area::Float, "float.unary", vec![DataType::F32])
            .rows(singles(&f32_words(&F32_UNARY))),
        |b, op| {
            b.op(ElementOp::new(
                format!("{}.f32", op.name()),
                DataType::F32,
                move |e| Expr::unary(op, e[0].clone()),
                move |w| {
                    let x = f32::from_bits(w[0]);
                    Expectation::accept(accuracy::unary(op, x).unwrap_or(Acceptance::Any))
                },
            ))
        },
    )
    .into_batch()
}

fn fma() -> Batch {
    let words = f32_words(&F32_FMA);
    let rows: Vec<Vec<u32>> = words
        .iter()
        .flat_map(|&a| {
            let words = words.clone();
            words
                .clone()
                .into_iter()
                .flat_map(move |b| words.clone().into_iter().map(move |c| vec![a, b, c]))
        })
        .collect();
    Elementwise::new(Area::Float, "float.fma", vec![DataType::F32; 3])
        .rows(rows)
        .op(ElementOp::new(
            "fma.f32",
            DataType::F32,
            |e| Expr::fma(e[0].clone(), e[1].clone(), e[2].clone()),
            |w| {
                let [a, b, c] = [w[0], w[1], w[2]].map(f32::from_bits);
                Expectation::accept(accuracy::fma(a, b, c))
            },
        ))
        .into_batch()
}
