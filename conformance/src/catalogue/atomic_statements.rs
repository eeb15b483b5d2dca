//! Atomic statements (`Node::atomic`, `Node::atomic_compare_exchange`): every operation on a slot
//! of its own per invocation (the program, inputs and expected values of
//! [`atomic_slots`](super::atomic_slots), applied as statements), and every operation by a whole
//! workgroup on one shared word, whose final value does not depend on the order. Every expectation
//! is computed here in plain Rust.

use vyre_driver::DispatchConfig;
use vyre_foundation::ir::{AtomicOp, BufferDecl, DataType, Expr, Node, Program};

use crate::catalogue::atomic_slots::{Applied, Slots, atomic_rmw, slots_program};
use crate::catalogue::build::words_to_bytes;
use crate::catalogue::interval::Acceptance;
use crate::catalogue::values::pairs;
use crate::catalogue::{Area, Batch, Expectation};

/// Every batch of this file: slot by slot and contended, for `u32` and `i32`.
pub(super) fn batches() -> Vec<Batch> {
    vec![
        atomic_statement_slots(DataType::U32),
        atomic_statement_slots(DataType::I32),
        atomic_statement_contended(DataType::U32),
        atomic_statement_contended(DataType::I32),
    ]
}

/// The words the atomic-statement slots combine: 0, 1, the sign and range edges, and bit patterns.
const STATEMENT_WORDS: [u32; 9] = [
    0,
    1,
    2,
    0x7fff_ffff,
    0x8000_0000,
    0xffff_ffff,
    0x5555_5555,
    0xaaaa_aaaa,
    0x1234_5678,
];

/// One atomic statement of every op on a slot of its own per invocation, over every ordered pair of
/// [`STATEMENT_WORDS`]: the new value is deterministic. Every odd row's compare-exchange misses by
/// bit 8.
fn atomic_statement_slots(ty: DataType) -> Batch {
    let words: Vec<u64> = STATEMENT_WORDS.iter().map(|&w| u64::from(w)).collect();
    let slots = Slots::new(ty, pairs(&words), 0x100);
    let program = slots_program(ty, slots.count(), Applied::Statement);
    let name = format!("atomics.statement.slots.{ty}");
    let mut batch = Batch::manual(Area::Atomics, name, program, slots.inputs(), slots.config());
    for case in slots.cases() {
        batch = batch.expect_word(
            format!("statement.{}.{ty}({})", case.op.name(), case.described),
            case.described,
            (0, case.element),
            ty,
            Expectation::exact_bits(case.new),
        );
    }
    batch
}

/// Invocations of the contended batches, one workgroup.
const CONTENDED: u32 = 256;

/// Every invocation of one workgroup runs an atomic statement of every op on one shared word per op.
/// Add, sub, min, max, and, or and xor end in an order-independent value; an exchange ends in one of
/// the values written; a compare-exchange that every invocation makes with the same operands ends in
/// the same value whichever wins, and one that never matches leaves its word alone.
fn atomic_statement_contended(ty: DataType) -> Batch {
    let signed = ty == DataType::I32;
    let values: Vec<u32> = (0..CONTENDED)
        .map(|g| g.wrapping_mul(2_654_435_761) ^ (g << 3))
        .collect();
    let (min_start, max_start) = if signed {
        (i32::MAX as u32, i32::MIN as u32)
    } else {
        (u32::MAX, 0)
    };
    let ops = [
        (AtomicOp::Add, 0u32),
        (AtomicOp::Sub, 1000),
        (AtomicOp::Min, min_start),
        (AtomicOp::Max, max_start),
        (AtomicOp::And, u32::MAX),
        (AtomicOp::Or, 0),
        (AtomicOp::Xor, 0x5555_5555),
        (AtomicOp::Exchange, 3),
    ];
    let swap_same = ops.len() as u32;
    let swap_never = swap_same + 1;
    let words = swap_never + 1;
    let mut init = Vec::new();
    let mut body = vec![Node::let_bind("v", Expr::load("values", Expr::local_x()))];
    for (k, &(op, start)) in ops.iter().enumerate() {
        let k = k as u32;
        init.push(Node::store("acc", Expr::u32(k), word_expr(ty, start)));
        body.push(Node::atomic(op, "acc", Expr::u32(k), Expr::var("v")));
    }
    init.push(Node::store("acc", Expr::u32(swap_same), word_expr(ty, 0)));
    init.push(Node::store("acc", Expr::u32(swap_never), word_expr(ty, 5)));
    body.push(Node::atomic_compare_exchange(
        "acc",
        Expr::u32(swap_same),
        word_expr(ty, 0),
        word_expr(ty, 7),
    ));
    body.push(Node::atomic_compare_exchange(
        "acc",
        Expr::u32(swap_never),
        word_expr(ty, 0),
        Expr::var("v"),
    ));
    let mut program_body = vec![
        Node::if_then(Expr::eq(Expr::local_x(), Expr::u32(0)), init),
        Node::barrier(),
    ];
    program_body.extend(body);
    let program = Program::wrapped(
        vec![
            BufferDecl::read("values", 0, ty).with_count(CONTENDED),
            BufferDecl::output("acc", 1, ty).with_count(words),
        ],
        [CONTENDED, 1, 1],
        program_body,
    );
    let config = DispatchConfig::new().with_grid([1, 1, 1]);
    let described = format!("{CONTENDED} invocations on one word");
    let mut batch = Batch::manual(
        Area::Atomics,
        format!("atomics.statement.contended.{ty}"),
        program,
        vec![words_to_bytes(values.iter().copied())],
        config,
    );
    for (k, &(op, start)) in ops.iter().enumerate() {
        let expect = if op == AtomicOp::Exchange {
            Expectation::accept(Acceptance::Words(
                values.iter().map(|&v| u64::from(v)).collect(),
            ))
        } else {
            Expectation::exact(values.iter().fold(start, |acc, &v| {
                atomic_rmw(op, ty, acc.into(), v.into(), 0) as u32
            }))
        };
        batch = batch.expect_word(
            format!("statement.contended.{}.{ty}", op.name()),
            described.clone(),
            (0, k),
            ty,
            expect,
        );
    }
    batch
        .expect_word(
            format!("statement.contended.compare_exchange_same.{ty}"),
            described.clone(),
            (0, swap_same as usize),
            ty,
            Expectation::exact(7),
        )
        .expect_word(
            format!("statement.contended.compare_exchange_never.{ty}"),
            described,
            (0, swap_never as usize),
            ty,
            Expectation::exact(5),
        )
}

/// The literal of type `ty` whose bits are `word`.
fn word_expr(ty: DataType, word: u32) -> Expr {
    if ty == DataType::I32 {
        Expr::i32(word as i32)
    } else {
        Expr::u32(word)
    }
}
