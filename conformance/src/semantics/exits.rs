//! Leaving loops early and atomic statements (`SEMANTICS.md` section 2): `break` and `continue` in
//! counted loops and `while`, nested loops, a `while` that never runs, and atomic statements of
//! every operation.

use vyre_driver::{DispatchConfig, VyreBackend};
use vyre_foundation::ir::{AtomicOp, BufferDecl, DataType, Expr, Node, Program};

use crate::semantics::harness::{Report, bytes_u32, run, run_words};

fn v(name: &str) -> Expr {
    Expr::var(name)
}

fn bump(name: &str, by: Expr) -> Node {
    Node::assign(name, Expr::add(v(name), by))
}

/// Per invocation with `n = input[gid]` (0..=9): in `for i in 0..8` skip `i == 2` by `continue`
/// and leave at `i == n` by `break`, summing the rest; an inner loop that breaks at `j == 2` under
/// an outer one of 3 iterations (the break leaves only the inner loop); `while` counting `n` down
/// with a `continue` (the condition is evaluated again after it); and a `while false` whose body
/// never runs.
pub fn loop_exits(backend: &dyn VyreBackend) {
    let case = "loop_exits";
    let g = Expr::gid_x();
    let n = || v("n");
    let program = Program::wrapped(
        vec![
            BufferDecl::read("input", 0, DataType::U32).with_count(16),
            BufferDecl::output("out", 1, DataType::U32).with_count(16 * 4),
        ],
        [16, 1, 1],
        vec![
            Node::let_bind("n", Expr::load("input", g.clone())),
            Node::let_bind("base", Expr::mul(g.clone(), Expr::u32(4))),
            Node::let_bind("sum", Expr::u32(0)),
            Node::loop_for(
                "i",
                Expr::u32(0),
                Expr::u32(8),
                vec![
                    Node::if_then(Expr::eq(v("i"), Expr::u32(2)), vec![Node::continue_()]),
                    Node::if_then(Expr::eq(v("i"), n()), vec![Node::break_()]),
                    bump("sum", v("i")),
                ],
            ),
            Node::store("out", v("base"), v("sum")),
            Node::let_bind("inner", Expr::u32(0)),
            Node::loop_for(
                "o",
                Expr::u32(0),
                Expr::u32(3),
                vec![Node::loop_for(
                    "j",
                    Expr::u32(0),
                    n(),
                    vec![
                        Node::if_then(Expr::eq(v("j"), Expr::u32(2)), vec![Node::break_()]),
                        bump("inner", Expr::u32(1)),
                    ],
                )],
            ),
            Node::store("out", Expr::add(v("base"), Expr::u32(1)), v("inner")),
            Node::let_bind("left", n()),
            Node::let_bind("odd", Expr::u32(0)),
            Node::loop_while(
                Expr::gt(v("left"), Expr::u32(0)),
                vec![
                    Node::assign("left", Expr::sub(v("left"), Expr::u32(1))),
                    Node::if_then(
                        Expr::eq(Expr::bit_and(v("left"), Expr::u32(1)), Expr::u32(0)),
                        vec![Node::continue_()],
                    ),
                    bump("odd", Expr::u32(1)),
                ],
            ),
            Node::store("out", Expr::add(v("base"), Expr::u32(2)), v("odd")),
            Node::let_bind("never", Expr::u32(7)),
            Node::loop_while(
                Expr::bool(false),
                vec![Node::assign("never", Expr::u32(0)), Node::break_()],
            ),
            Node::store("out", Expr::add(v("base"), Expr::u32(3)), v("never")),
        ],
    );
    let ns: Vec<u32> = (0..16).map(|i| i % 10).collect();
    let out = &run_words(backend, case, &program, &[bytes_u32(&ns)])[0];
    let mut report = Report::new(case);
    for (lane, &n) in ns.iter().enumerate() {
        let expected = [
            // The `continue` at 2 comes first, so `n = 2` never breaks.
            (0..8u32)
                .filter(|&i| i != 2)
                .take_while(|&i| i != n)
                .sum::<u32>(),
            3 * n.min(2),
            (0..n).filter(|&left| left % 2 == 1).count() as u32,
            7,
        ];
        let names = [
            "sum of 0..8 skipping 2, leaving at n",
            "inner loop leaving at 2, three outer iterations",
            "while counting n down, odd values after continue",
            "while false runs no iteration",
        ];
        for k in 0..4 {
            report.eq(
                || format!("lane {lane}: {} for n = {n}", names[k]),
                expected[k],
                out[lane * 4 + k],
            );
        }
    }
    report.finish();
}

/// A barrier after a `break` every invocation takes together (its condition is uniform), inside
/// the loop: the loop ends at the same iteration everywhere and workgroup memory stays ordered.
pub fn barrier_after_uniform_break(backend: &dyn VyreBackend) {
    let case = "barrier_after_uniform_break";
    let lid = Expr::local_x();
    let program = Program::wrapped(
        vec![
            BufferDecl::output("out", 0, DataType::U32).with_count(64),
            BufferDecl::workgroup("shared", 32, DataType::U32),
        ],
        [32, 1, 1],
        vec![
            Node::store("shared", lid.clone(), Expr::u32(0)),
            Node::barrier(),
            Node::loop_for(
                "r",
                Expr::u32(0),
                Expr::u32(10),
                vec![
                    Node::if_then(Expr::eq(v("r"), Expr::u32(3)), vec![Node::break_()]),
                    Node::store(
                        "shared",
                        lid.clone(),
                        Expr::add(Expr::load("shared", lid.clone()), Expr::u32(1)),
                    ),
                    Node::barrier(),
                ],
            ),
            Node::store(
                "out",
                Expr::gid_x(),
                Expr::load(
                    "shared",
                    Expr::rem(Expr::add(lid, Expr::u32(1)), Expr::u32(32)),
                ),
            ),
        ],
    );
    let config = DispatchConfig::new().with_grid([2, 1, 1]);
    let out = run(backend, case, &program, &[], &config);
    let words: Vec<u32> = out[0]
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let mut report = Report::new(case);
    for (lane, &w) in words.iter().enumerate() {
        report.eq(|| format!("lane {lane}: neighbour's rounds"), 3, w);
    }
    report.finish();
}

/// Every atomic operation as a statement on its own slot, contended by all 64 invocations: the
/// results do not depend on their order, and the old values are simply dropped.
pub fn atomic_statements(backend: &dyn VyreBackend) {
    let case = "atomic_statements";
    let g = Expr::gid_x();
    let slot = Expr::u32;
    let ops = [
        (AtomicOp::Add, slot(0)),
        (AtomicOp::Sub, slot(1)),
        (AtomicOp::Min, slot(2)),
        (AtomicOp::Max, slot(3)),
        (AtomicOp::And, slot(4)),
        (AtomicOp::Or, slot(5)),
        (AtomicOp::Xor, slot(6)),
    ];
    let mut body: Vec<Node> = ops
        .into_iter()
        .map(|(op, at)| Node::atomic(op, "c", at, Expr::add(g.clone(), Expr::u32(1))))
        .collect();
    // Every invocation writes the same value, so the exchange's result is order-independent; only
    // invocation 5 can swap slot 8 from 0 (every other one expects 1).
    body.push(Node::atomic(
        AtomicOp::Exchange,
        "c",
        slot(7),
        Expr::u32(42),
    ));
    body.push(Node::atomic_compare_exchange(
        "c",
        slot(8),
        Expr::select(
            Expr::eq(g.clone(), Expr::u32(5)),
            Expr::u32(0),
            Expr::u32(1),
        ),
        Expr::u32(99),
    ));
    // Out of bounds does nothing.
    body.push(Node::atomic(
        AtomicOp::Add,
        "c",
        Expr::u32(1000),
        Expr::u32(1),
    ));
    let program = Program::wrapped(
        vec![BufferDecl::output("c", 0, DataType::U32).with_count(9)],
        [64, 1, 1],
        body,
    );
    let config = DispatchConfig::new().with_grid([1, 1, 1]);
    let out = run(backend, case, &program, &[], &config);
    let words: Vec<u32> = out[0]
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let values = 1..=64u32;
    let expected = [
        values.clone().sum::<u32>(),
        0u32.wrapping_sub(values.clone().sum::<u32>()),
        0,
        64,
        0,
        values.clone().fold(0, |a, b| a | b),
        values.fold(0, |a, b| a ^ b),
        42,
        99,
    ];
    let mut report = Report::new(case);
    for (k, e) in expected.into_iter().enumerate() {
        report.eq(|| format!("slot {k}"), e, words[k]);
    }
    report.finish();
}
