//! Atomics (`SEMANTICS.md` section 8): every operation's old value and final value, contended
//! counters with an exact total, `i32` min/max, strong compare-exchange, workgroup-memory atomics,
//! and out-of-bounds atomics that do nothing and yield 0.

use vyre_driver::{DispatchConfig, VyreBackend};
use vyre_foundation::ir::{AtomicOp, BufferDecl, DataType, Expr, Node, Program};

use crate::semantics::harness::{Report, bytes_i32, bytes_u32, run, words};

/// Every atomic on its own element (no contention): the old value is the initial one and the element
/// holds the operation's result. Compare-exchange both succeeds and fails. Indices past the end and
/// `u32::MAX` do nothing and yield 0.
pub fn atomic_each_op(backend: &dyn VyreBackend) {
    let case = "atomic_each_op";
    let ops = [
        AtomicOp::Add,
        AtomicOp::Sub,
        AtomicOp::Min,
        AtomicOp::Max,
        AtomicOp::And,
        AtomicOp::Or,
        AtomicOp::Xor,
        AtomicOp::Exchange,
    ];
    let initial: [u32; 6] = [5, 0, u32::MAX, 0x8000_0000, 0xf0f0_f0f0, 7];
    let operand: [u32; 6] = [3, 1, 2, 0x7fff_ffff, 0x0ff0_0ff0, 7];
    let m = initial.len() as u32;
    let count = m * (ops.len() as u32 + 2);
    let g = Expr::gid_x();
    let at = |k: u32| Expr::add(Expr::mul(Expr::u32(k), Expr::u32(m)), g.clone());
    let mut body = Vec::new();
    for (k, op) in ops.iter().enumerate() {
        let old = Expr::atomic(*op, "cells", at(k as u32), Expr::load("operand", g.clone()));
        body.push(Node::store("olds", at(k as u32), old));
    }
    let k = ops.len() as u32;
    // Succeeds: expected equals the initial value.
    let cas_hit = Expr::atomic_compare_exchange(
        "cells",
        at(k),
        Expr::load("initial", g.clone()),
        Expr::load("operand", g.clone()),
    );
    body.push(Node::store("olds", at(k), cas_hit));
    // Fails: expected differs from the initial value.
    let cas_miss = Expr::atomic_compare_exchange(
        "cells",
        at(k + 1),
        Expr::bit_not(Expr::load("initial", g.clone())),
        Expr::load("operand", g.clone()),
    );
    body.push(Node::store("olds", at(k + 1), cas_miss));
    body.push(Node::store(
        "oob",
        g.clone(),
        Expr::atomic_add(
            "cells",
            Expr::add(g.clone(), Expr::u32(count)),
            Expr::u32(1),
        ),
    ));
    body.push(Node::store(
        "oob",
        Expr::add(g.clone(), Expr::u32(m)),
        Expr::atomic_exchange("cells", Expr::u32(u32::MAX), Expr::u32(1)),
    ));
    let program = Program::wrapped(
        vec![
            BufferDecl::read("initial", 0, DataType::U32).with_count(m),
            BufferDecl::read("operand", 1, DataType::U32).with_count(m),
            BufferDecl::output("cells", 2, DataType::U32).with_count(count),
            BufferDecl::output("olds", 3, DataType::U32).with_count(count),
            BufferDecl::output("oob", 4, DataType::U32).with_count(2 * m),
        ],
        [m, 1, 1],
        [
            // Outputs start zeroed; seed every cell with its initial value first.
            (0..k + 2)
                .map(|j| Node::store("cells", at(j), Expr::load("initial", g.clone())))
                .collect::<Vec<_>>(),
            body,
        ]
        .concat(),
    );
    let inputs = [bytes_u32(&initial), bytes_u32(&operand)];
    // One workgroup of `m` invocations: the derived grid would cover the larger outputs too.
    let config = DispatchConfig::new().with_grid([1, 1, 1]);
    let out = run(backend, case, &program, &inputs, &config);
    let (cells, olds, oob) = (words(&out[0]), words(&out[1]), words(&out[2]));
    let mut report = Report::new(case);
    for lane in 0..m as usize {
        let (a, b) = (initial[lane], operand[lane]);
        let finals = [
            a.wrapping_add(b),
            a.wrapping_sub(b),
            a.min(b),
            a.max(b),
            a & b,
            a | b,
            a ^ b,
            b,
            b,
            a,
        ];
        let names = [
            "add",
            "sub",
            "min",
            "max",
            "and",
            "or",
            "xor",
            "exchange",
            "compare_exchange (hit)",
            "compare_exchange (miss)",
        ];
        for (k, &expected) in finals.iter().enumerate() {
            let slot = k * m as usize + lane;
            report.eq(
                || format!("{}({a:#x}, {b:#x}) final value", names[k]),
                expected,
                cells[slot],
            );
            report.eq(
                || format!("{}({a:#x}, {b:#x}) old value", names[k]),
                a,
                olds[slot],
            );
        }
        report.eq(
            || format!("atomic_add past the end (lane {lane}) yields"),
            0,
            oob[lane],
        );
        report.eq(
            || format!("atomic_exchange at u32::MAX (lane {lane}) yields"),
            0,
            oob[lane + m as usize],
        );
    }
    report.finish();
}

/// Signed `atomic_min`/`atomic_max` on `i32` elements, contended by 64 invocations.
pub fn atomic_signed_min_max(backend: &dyn VyreBackend) {
    let case = "atomic_signed_min_max";
    let g = Expr::gid_x();
    let program = Program::wrapped(
        vec![
            BufferDecl::read("values", 0, DataType::I32).with_count(64),
            BufferDecl::read_write("extremes", 1, DataType::I32).with_count(2),
            BufferDecl::output("result", 2, DataType::I32).with_count(2),
        ],
        [64, 1, 1],
        vec![
            Node::let_bind("x", Expr::load("values", g.clone())),
            Node::let_bind(
                "ignored_min",
                Expr::atomic_min("extremes", Expr::u32(0), Expr::var("x")),
            ),
            Node::let_bind(
                "ignored_max",
                Expr::atomic_max("extremes", Expr::u32(1), Expr::var("x")),
            ),
            Node::barrier(),
            Node::if_then(
                Expr::eq(g, Expr::u32(0)),
                vec![
                    Node::store(
                        "result",
                        Expr::u32(0),
                        Expr::atomic_add("extremes", Expr::u32(0), Expr::i32(0)),
                    ),
                    Node::store(
                        "result",
                        Expr::u32(1),
                        Expr::atomic_add("extremes", Expr::u32(1), Expr::i32(0)),
                    ),
                ],
            ),
        ],
    );
    let values: Vec<i32> = (0..64)
        .map(|i: i32| (i - 31).wrapping_mul(0x0101_0101))
        .collect();
    let inputs = [bytes_i32(&values), bytes_i32(&[0, 0])];
    let out = words(&run(backend, case, &program, &inputs, &DispatchConfig::default())[0]);
    let mut report = Report::new(case);
    let lo = values.iter().copied().fold(0, i32::min);
    let hi = values.iter().copied().fold(0, i32::max);
    report.eq(
        || "atomic_min over values starting from 0".into(),
        lo,
        out[0] as i32,
    );
    report.eq(
        || "atomic_max over values starting from 0".into(),
        hi,
        out[1] as i32,
    );
    report.finish();
}

/// Every invocation of a 4-workgroup grid increments one storage counter and one workgroup-memory
/// counter: the totals are exact, and the old values a counter handed out are each value once.
pub fn atomic_contended_counters(backend: &dyn VyreBackend) {
    let case = "atomic_contended_counters";
    let g = Expr::gid_x();
    let lid = Expr::local_x();
    let program = Program::wrapped(
        vec![
            BufferDecl::output("counter", 0, DataType::U32).with_count(2),
            BufferDecl::output("tickets", 1, DataType::U32).with_count(1024),
            BufferDecl::output("per_group", 2, DataType::U32).with_count(4),
            BufferDecl::workgroup("local_count", 1, DataType::U32),
        ],
        [256, 1, 1],
        vec![
            Node::store(
                "tickets",
                g.clone(),
                Expr::atomic_add("counter", Expr::u32(0), Expr::u32(1)),
            ),
            Node::let_bind(
                "ignored",
                Expr::atomic_sub("counter", Expr::u32(1), Expr::u32(3)),
            ),
            Node::let_bind(
                "ignored_local",
                Expr::atomic_add("local_count", Expr::u32(0), Expr::u32(2)),
            ),
            Node::barrier(),
            Node::if_then(
                Expr::eq(lid, Expr::u32(0)),
                vec![Node::store(
                    "per_group",
                    Expr::workgroup_x(),
                    Expr::load("local_count", Expr::u32(0)),
                )],
            ),
        ],
    );
    let config = DispatchConfig::new().with_grid([4, 1, 1]);
    let out = run(backend, case, &program, &[], &config);
    let (counter, mut tickets, per_group) = (words(&out[0]), words(&out[1]), words(&out[2]));
    let mut report = Report::new(case);
    report.eq(
        || "counter after 1024 atomic_add(1)".into(),
        1024,
        counter[0],
    );
    report.eq(
        || "counter after 1024 atomic_sub(3) from 0 (wrapping)".into(),
        0u32.wrapping_sub(3 * 1024),
        counter[1],
    );
    tickets.sort_unstable();
    report.eq(
        || "old values handed out by atomic_add, sorted".into(),
        (0..1024).collect::<Vec<u32>>(),
        tickets,
    );
    report.eq(
        || "workgroup counters (2 per invocation, fresh per workgroup)".into(),
        vec![512u32; 4],
        per_group,
    );
    report.finish();
}
