//! Workgroup memory and barriers, and atomics on storage and workgroup buffers. Every program here is
//! race-free: its outputs do not depend on the order in which invocations run.

use vyre_driver::DispatchConfig;
use vyre_foundation::ir::{AtomicOp, BufferDecl, DataType, Expr, Node, Program};

use crate::catalogue::atomic_slots::{Slots, atomic_rmw, atomic_slots};
use crate::catalogue::build::words_to_bytes;
use crate::catalogue::values::{i32_words, pairs, u32_words};
use crate::catalogue::{Area, Batch};

/// Invocations per workgroup in this file's programs.
const WG: u32 = 64;
/// Workgroups per dispatch.
const GROUPS: u32 = 4;

/// Every batch of the workgroup and atomics areas.
pub(super) fn batches() -> Vec<Batch> {
    vec![
        workgroup_shared(),
        atomic_slots_of(DataType::U32, u32_words()),
        atomic_slots_of(DataType::I32, i32_words()),
        atomic_contended(),
        atomic_workgroup(),
    ]
}

fn lid() -> Expr {
    Expr::local_x()
}

/// Reversal through workgroup memory, the zero start of every workgroup, and a tree reduction with
/// barriers in a uniform loop.
fn workgroup_shared() -> Batch {
    let n = WG * GROUPS;
    let gid = Expr::gid_x;
    let mirrored = Expr::sub(Expr::u32(WG - 1), lid());
    let body = vec![
        // Read before anything is written in this workgroup: must be zero in every workgroup.
        Node::store("fresh", gid(), Expr::load("tile", lid())),
        Node::barrier(),
        Node::store("tile", lid(), Expr::load("data", gid())),
        Node::barrier(),
        Node::store("reversed", gid(), Expr::load("tile", mirrored)),
        Node::barrier(),
        Node::loop_for(
            "step",
            Expr::u32(0),
            Expr::u32(6),
            vec![
                Node::let_bind("stride", Expr::shr(Expr::u32(WG / 2), Expr::var("step"))),
                Node::if_then(
                    Expr::lt(lid(), Expr::var("stride")),
                    vec![Node::store(
                        "tile",
                        lid(),
                        Expr::add(
                            Expr::load("tile", lid()),
                            Expr::load("tile", Expr::add(lid(), Expr::var("stride"))),
                        ),
                    )],
                ),
                Node::barrier(),
            ],
        ),
        Node::if_then(
            Expr::eq(lid(), Expr::u32(0)),
            vec![Node::store(
                "sums",
                Expr::workgroup_x(),
                Expr::load("tile", Expr::u32(0)),
            )],
        ),
        // Dirty the tile so a backend that reuses workgroup memory without zeroing it is caught.
        Node::barrier(),
        Node::store("tile", lid(), Expr::u32(0xdead)),
    ];
    let program = Program::wrapped(
        vec![
            BufferDecl::read("data", 0, DataType::U32).with_count(n),
            BufferDecl::output("fresh", 1, DataType::U32).with_count(n),
            BufferDecl::output("reversed", 2, DataType::U32).with_count(n),
            BufferDecl::output("sums", 3, DataType::U32).with_count(GROUPS),
            BufferDecl::workgroup("tile", WG, DataType::U32),
        ],
        [WG, 1, 1],
        body,
    );
    let data: Vec<u32> = (0..n).map(|g| g.wrapping_mul(2_654_435_761) >> 8).collect();
    let reversed: Vec<u32> = (0..n)
        .map(|g| data[((g / WG) * WG + (WG - 1 - g % WG)) as usize])
        .collect();
    let sums: Vec<u32> = data
        .chunks(WG as usize)
        .map(|c| c.iter().fold(0u32, |s, &v| s.wrapping_add(v)))
        .collect();
    let inputs = vec![words_to_bytes(data)];
    let config = DispatchConfig::new().with_grid([GROUPS, 1, 1]);
    Batch::manual(Area::Workgroup, "workgroup.shared", program, inputs, config)
        .expect_words(
            "zeroed_at_start",
            "",
            0,
            DataType::U32,
            &vec![0; n as usize],
        )
        .expect_words("reversed_through_tile", "", 1, DataType::U32, &reversed)
        .expect_words("tree_sum_with_barriers", "", 2, DataType::U32, &sums)
}

/// Every atomic operation slot by slot over every ordered pair of `ty`'s edge words; every odd
/// row's compare-exchange misses by bit 6.
fn atomic_slots_of(ty: DataType, words: Vec<u32>) -> Batch {
    let words: Vec<u64> = words.into_iter().map(u64::from).collect();
    atomic_slots(&Slots::new(ty, pairs(&words), 0x40))
}

/// Every invocation of one big workgroup hits the same words; the final values do not depend on the
/// order, and the old values of a counter are a permutation (each seen exactly once).
fn atomic_contended() -> Batch {
    const N: u32 = 256;
    let value = |g: u32| g.wrapping_mul(2_654_435_761) ^ (g << 3);
    let ops = [
        (AtomicOp::Add, 0u32),
        (AtomicOp::Sub, 1000),
        (AtomicOp::Min, u32::MAX),
        (AtomicOp::Max, 0),
        (AtomicOp::And, u32::MAX),
        (AtomicOp::Or, 0),
        (AtomicOp::Xor, 0x5555_5555),
    ];
    let g = || Expr::local_x();
    let v = Expr::bit_xor(
        Expr::mul(g(), Expr::u32(2_654_435_761)),
        Expr::shl(g(), Expr::u32(3)),
    );
    let mut init = Vec::new();
    let mut body = vec![Node::let_bind("v", v)];
    for (k, &(op, start)) in ops.iter().enumerate() {
        init.push(Node::store("acc", Expr::u32(k as u32), Expr::u32(start)));
        body.push(Node::let_bind(
            format!("o{k}"),
            Expr::atomic(op, "acc", Expr::u32(k as u32), Expr::var("v")),
        ));
    }
    let counter = Expr::atomic_add("acc", Expr::u32(ops.len() as u32), Expr::u32(1));
    body.push(Node::store("seen", counter, Expr::u32(1)));
    let mut program_body = vec![
        Node::if_then(Expr::eq(g(), Expr::u32(0)), init),
        Node::barrier(),
    ];
    program_body.extend(body);
    let program = Program::wrapped(
        vec![
            BufferDecl::output("acc", 0, DataType::U32).with_count(ops.len() as u32 + 1),
            BufferDecl::output("seen", 1, DataType::U32).with_count(N),
        ],
        [N, 1, 1],
        program_body,
    );
    let values: Vec<u32> = (0..N).map(value).collect();
    let mut finals: Vec<u32> = ops
        .iter()
        .map(|&(op, start)| {
            values.iter().fold(start, |acc, &v| {
                atomic_rmw(op, DataType::U32, acc.into(), v.into(), 0) as u32
            })
        })
        .collect();
    finals.push(N);
    let config = DispatchConfig::new().with_grid([1, 1, 1]);
    Batch::manual(
        Area::Atomics,
        "atomics.contended",
        program,
        Vec::new(),
        config,
    )
    .expect_words(
        "contended_final",
        "256 invocations on one word each",
        0,
        DataType::U32,
        &finals,
    )
    .expect_words(
        "counter_old_values_each_once",
        "256 invocations",
        1,
        DataType::U32,
        &vec![1; N as usize],
    )
}

/// Atomics on workgroup memory: a per-workgroup sum, fresh in every workgroup.
fn atomic_workgroup() -> Batch {
    let body = vec![
        Node::let_bind(
            "o",
            Expr::atomic_add("counter", Expr::u32(0), Expr::add(lid(), Expr::u32(1))),
        ),
        Node::let_bind(
            "m",
            Expr::atomic_max("counter", Expr::u32(1), Expr::workgroup_x()),
        ),
        Node::barrier(),
        Node::if_then(
            Expr::eq(lid(), Expr::u32(0)),
            vec![
                Node::store(
                    "sums",
                    Expr::workgroup_x(),
                    Expr::load("counter", Expr::u32(0)),
                ),
                Node::store(
                    "maxes",
                    Expr::workgroup_x(),
                    Expr::load("counter", Expr::u32(1)),
                ),
            ],
        ),
    ];
    let program = Program::wrapped(
        vec![
            BufferDecl::output("sums", 0, DataType::U32).with_count(GROUPS),
            BufferDecl::output("maxes", 1, DataType::U32).with_count(GROUPS),
            BufferDecl::workgroup("counter", 2, DataType::U32),
        ],
        [WG, 1, 1],
        body,
    );
    let config = DispatchConfig::new().with_grid([GROUPS, 1, 1]);
    let sums = vec![WG * (WG + 1) / 2; GROUPS as usize];
    let maxes: Vec<u32> = (0..GROUPS).collect();
    Batch::manual(
        Area::Atomics,
        "atomics.workgroup",
        program,
        Vec::new(),
        config,
    )
    .expect_words(
        "workgroup_atomic_add",
        "64 invocations per workgroup",
        0,
        DataType::U32,
        &sums,
    )
    .expect_words(
        "workgroup_atomic_max",
        "64 invocations per workgroup",
        1,
        DataType::U32,
        &maxes,
    )
}
