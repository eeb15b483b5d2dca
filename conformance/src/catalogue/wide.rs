//! The 64-bit integer cases: every operator over `u64` and `i64` edge values (through the
//! catalogue's one [`Elementwise`] builder, at 8-byte elements), conversions to and from the 64-bit
//! types ([`wide_casts`](super::wide_casts)), and 64-bit atomics, each with its expected value
//! computed here in plain Rust.
//!
//! Each case's program declares the optional types it uses (`u64`, `i64`, `f16` buffers), so a
//! backend whose device lacks one refuses the batch with `Unsupported` naming it.

use vyre_driver::DispatchConfig;
use vyre_foundation::ir::{
    AtomicOp, BinClass, BinOp, BufferDecl, DataType, Expr, Node, Program, UnOp,
};

use crate::catalogue::atomic_slots::{Slots, atomic_rmw, atomic_slots};
use crate::catalogue::build::{ElementOp, Elementwise};
use crate::catalogue::values::{
    SHIFT_AMOUNTS_64, comparison_ops, i64_words, pairs, product, singles, u64_words,
};
use crate::catalogue::{Area, Batch, Expectation};

/// The bits of `ty`'s edge values (`u64` or `i64`).
fn words_of(ty: DataType) -> Vec<u64> {
    if ty == DataType::I64 {
        i64_words()
    } else {
        u64_words()
    }
}

/// `op` on two 64-bit operands (`ty` says signed or not), by the rules of SEMANTICS.md section 4:
/// `x / 0 = x`, `x % 0 = 0`, `MIN / -1 = MIN`, `MIN % -1 = 0`, shifts by the amount mod 64. `None`
/// for operators outside the integer classes.
pub(crate) fn binary64(op: BinOp, ty: DataType, a: u64, b: u64) -> Option<u64> {
    let signed = ty == DataType::I64;
    let (sa, sb) = (a as i64, b as i64);
    let bool_word = |x: bool| u64::from(x);
    Some(match op {
        BinOp::Add => a.wrapping_add(b),
        BinOp::Sub => a.wrapping_sub(b),
        BinOp::Mul => a.wrapping_mul(b),
        BinOp::Div if signed => {
            let d = if sb == 0 || (sa == i64::MIN && sb == -1) {
                1
            } else {
                sb
            };
            sa.wrapping_div(d) as u64
        }
        BinOp::Div => a.checked_div(b).unwrap_or(a),
        BinOp::Rem if signed => {
            let d = if sb == 0 || (sa == i64::MIN && sb == -1) {
                1
            } else {
                sb
            };
            sa.wrapping_rem(d) as u64
        }
        BinOp::Rem => a.checked_rem(b).unwrap_or(0),
        BinOp::Min if signed => sa.min(sb) as u64,
        BinOp::Min => a.min(b),
        BinOp::Max if signed => sa.max(sb) as u64,
        BinOp::Max => a.max(b),
        BinOp::BitAnd => a & b,
        BinOp::BitOr => a | b,
        BinOp::BitXor => a ^ b,
        BinOp::Shl => a.wrapping_shl(b as u32),
        BinOp::Shr if signed => sa.wrapping_shr(b as u32) as u64,
        BinOp::Shr => a.wrapping_shr(b as u32),
        BinOp::Eq => bool_word(a == b),
        BinOp::Ne => bool_word(a != b),
        BinOp::Lt if signed => bool_word(sa < sb),
        BinOp::Lt => bool_word(a < b),
        BinOp::Le if signed => bool_word(sa <= sb),
        BinOp::Le => bool_word(a <= b),
        BinOp::Gt if signed => bool_word(sa > sb),
        BinOp::Gt => bool_word(a > b),
        BinOp::Ge if signed => bool_word(sa >= sb),
        BinOp::Ge => bool_word(a >= b),
        BinOp::And | BinOp::Or => return None,
    })
}

fn binary_op(op: BinOp, ty: DataType, result: DataType) -> ElementOp<u64> {
    ElementOp::new(
        format!("{}.{ty}", op.name()),
        result,
        move |e| Expr::binary(op, e[0].clone(), e[1].clone()),
        move |w| {
            binary64(op, ty, w[0], w[1])
                .map_or_else(Expectation::reference, Expectation::exact_bits)
        },
    )
}

fn unary_op(op: UnOp, ty: DataType, f: fn(u64) -> u64) -> ElementOp<u64> {
    ElementOp::new(
        format!("{}.{ty}", op.name()),
        ty,
        move |e| Expr::unary(op, e[0].clone()),
        move |w| Expectation::exact_bits(f(w[0])),
    )
}

/// The 64-bit batches of the integer, bits, compare, cast and atomics areas.
pub(super) fn batches() -> Vec<Batch> {
    let mut out = Vec::new();
    for ty in [DataType::U64, DataType::I64] {
        let words = words_of(ty);
        let arithmetic = BinOp::of_class(BinClass::Arithmetic).fold(
            Elementwise::new(Area::Integer, format!("integer.{ty}"), vec![ty, ty])
                .rows(pairs(&words)),
            |b, op| b.op(binary_op(op, ty, ty)),
        );
        out.push(arithmetic.into_batch());
        let bitwise = BinOp::of_class(BinClass::Bitwise).fold(
            Elementwise::new(Area::Bits, format!("bits.{ty}"), vec![ty, ty]).rows(pairs(&words)),
            |b, op| b.op(binary_op(op, ty, ty)),
        );
        out.push(bitwise.op(unary_op(UnOp::BitNot, ty, |x| !x)).into_batch());
        let shift_rows = product(&words, &SHIFT_AMOUNTS_64);
        let shifts = BinOp::of_class(BinClass::Shift).fold(
            Elementwise::new(
                Area::Bits,
                format!("bits.shift.{ty}"),
                vec![ty, DataType::U32],
            )
            .rows(shift_rows),
            |b, op| b.op(binary_op(op, ty, ty)),
        );
        out.push(shifts.into_batch());
        let compare = comparison_ops().fold(
            Elementwise::new(Area::Compare, format!("compare.{ty}"), vec![ty, ty])
                .rows(pairs(&words)),
            |b, op| b.op(binary_op(op, ty, DataType::Bool)),
        );
        out.push(compare.into_batch());
    }
    let unary = Elementwise::new(Area::Integer, "integer.unary.i64", vec![DataType::I64])
        .rows(singles(&i64_words()))
        .op(unary_op(UnOp::Neg, DataType::I64, |x| {
            (x as i64).wrapping_neg() as u64
        }))
        .op(unary_op(UnOp::Abs, DataType::I64, |x| {
            (x as i64).wrapping_abs() as u64
        }));
    out.push(unary.into_batch());
    let unsigned_abs = Elementwise::new(Area::Integer, "integer.unary.u64", vec![DataType::U64])
        .rows(singles(&u64_words()))
        .op(unary_op(UnOp::Abs, DataType::U64, |x| x));
    out.push(unsigned_abs.into_batch());
    out.push(select64());
    out.extend(crate::catalogue::wide_casts::batches());
    for ty in [DataType::U64, DataType::I64] {
        out.push(atomic_slots64(ty));
    }
    out.push(atomic_contended64());
    out
}

/// `select(c, a, b)` on `u64`, `i64` and `f16` (through the low 16 bits), both ways round.
fn select64() -> Batch {
    let rows: Vec<Vec<u64>> = [0u64, 1]
        .iter()
        .flat_map(|&c| {
            u64_words()
                .into_iter()
                .zip(i64_words().into_iter().rev())
                .map(move |(a, b)| vec![c, a, b])
        })
        .collect();
    let pick = |w: &[u64]| if w[0] != 0 { w[1] } else { w[2] };
    Elementwise::new(
        Area::Compare,
        "compare.select.wide",
        vec![DataType::Bool, DataType::U64, DataType::I64],
    )
    .rows(rows)
    .op(ElementOp::new(
        "select.u64",
        DataType::U64,
        |e| {
            let b = Expr::bitcast(DataType::U64, e[2].clone());
            Expr::select(e[0].clone(), e[1].clone(), b)
        },
        move |w| Expectation::exact_bits(pick(w)),
    ))
    .op(ElementOp::new(
        "select.i64",
        DataType::I64,
        |e| {
            let a = Expr::bitcast(DataType::I64, e[1].clone());
            Expr::select(e[0].clone(), a, e[2].clone())
        },
        move |w| Expectation::exact_bits(pick(w)),
    ))
    .into_batch()
}

/// Every atomic operation slot by slot on 64-bit elements, over the edges' ordered pairs thinned to
/// every third so the batch stays small; every odd row's compare-exchange misses by bit 40.
fn atomic_slots64(ty: DataType) -> Batch {
    let rows = pairs(&words_of(ty)).into_iter().step_by(3).collect();
    atomic_slots(&Slots::new(ty, rows, 1 << 40))
}

/// 256 invocations of one workgroup hit the same `u64` elements with values that cross the 32-bit
/// boundary; the final values do not depend on the order, and the old values of a 64-bit counter
/// started at `2^32 - 128` are each seen exactly once.
fn atomic_contended64() -> Batch {
    const N: u32 = 256;
    const COUNTER_START: u64 = (1 << 32) - 128;
    let ty = DataType::U64;
    let value = |g: u64| g.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ (g << 40);
    let ops = [
        (AtomicOp::Add, 0u64),
        (AtomicOp::Sub, 1000),
        (AtomicOp::Min, u64::MAX),
        (AtomicOp::Max, 0),
        (AtomicOp::And, u64::MAX),
        (AtomicOp::Or, 0),
        (AtomicOp::Xor, 0x5555_5555_5555_5555),
    ];
    let g = || Expr::cast(ty, Expr::local_x());
    let v = Expr::bit_xor(
        Expr::mul(g(), Expr::u64(0x9e37_79b9_7f4a_7c15)),
        Expr::shl(g(), Expr::u32(40)),
    );
    let mut init = Vec::new();
    let mut body = vec![Node::let_bind("v", v)];
    for (k, &(op, start)) in ops.iter().enumerate() {
        init.push(Node::store("acc", Expr::u32(k as u32), Expr::u64(start)));
        body.push(Node::let_bind(
            format!("o{k}"),
            Expr::atomic(op, "acc", Expr::u32(k as u32), Expr::var("v")),
        ));
    }
    let counter_slot = Expr::u32(ops.len() as u32);
    init.push(Node::store(
        "acc",
        counter_slot.clone(),
        Expr::u64(COUNTER_START),
    ));
    let old = Expr::atomic_add("acc", counter_slot, Expr::u64(1));
    let index = Expr::cast(DataType::U32, Expr::sub(old, Expr::u64(COUNTER_START)));
    body.push(Node::store("seen", index, Expr::u32(1)));
    let mut program_body = vec![
        Node::if_then(Expr::eq(Expr::local_x(), Expr::u32(0)), init),
        Node::barrier(),
    ];
    program_body.extend(body);
    let program = Program::wrapped(
        vec![
            BufferDecl::output("acc", 0, ty).with_count(ops.len() as u32 + 1),
            BufferDecl::output("seen", 1, DataType::U32).with_count(N),
        ],
        [N, 1, 1],
        program_body,
    );
    let values: Vec<u64> = (0..u64::from(N)).map(value).collect();
    let mut batch = Batch::manual(
        Area::Atomics,
        "atomics.contended.u64",
        program,
        Vec::new(),
        DispatchConfig::new().with_grid([1, 1, 1]),
    );
    for (k, &(op, start)) in ops.iter().enumerate() {
        let last = values
            .iter()
            .fold(start, |acc, &v| atomic_rmw(op, ty, acc, v, 0));
        batch = batch.expect_word(
            format!("contended_final.u64[{}]", op.name()),
            "256 invocations on one u64 each",
            (0, k),
            ty,
            Expectation::exact_bits(last),
        );
    }
    batch = batch.expect_word(
        "contended_final.u64[counter]",
        "256 increments from 2^32 - 128",
        (0, ops.len()),
        ty,
        Expectation::exact_bits(COUNTER_START + u64::from(N)),
    );
    batch.expect_words(
        "counter_u64_old_values_each_once",
        "256 invocations",
        1,
        DataType::U32,
        &vec![1; N as usize],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sixty_four_bit_rules() {
        let (u, i) = (DataType::U64, DataType::I64);
        let min = i64::MIN as u64;
        let neg1 = u64::MAX;
        assert_eq!(binary64(BinOp::Div, i, min, neg1), Some(min));
        assert_eq!(binary64(BinOp::Rem, i, min, neg1), Some(0));
        assert_eq!(binary64(BinOp::Div, u, 7, 0), Some(7));
        assert_eq!(binary64(BinOp::Rem, u, 7, 0), Some(0));
        assert_eq!(binary64(BinOp::Shl, u, 1, 65), Some(2));
        assert_eq!(binary64(BinOp::Shr, i, min, 63), Some(neg1));
        assert_eq!(binary64(BinOp::Shr, u, min, 64), Some(min));
        assert_eq!(binary64(BinOp::Lt, i, neg1, 0), Some(1));
        assert_eq!(binary64(BinOp::Lt, u, neg1, 0), Some(0));
        assert_eq!(binary64(BinOp::Mul, u, 1 << 32, 1 << 32), Some(0));
        assert_eq!(binary64(BinOp::And, u, 1, 1), None);
    }
}
