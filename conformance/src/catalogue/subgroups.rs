//! Subgroup operations (`SEMANTICS.md`, "Subgroups"): what holds on every subgroup size, checked
//! against hand-written values, and every operation on full and partial subgroups, checked against
//! the reference run at the backend's subgroup size.

use vyre_driver::DispatchConfig;
use vyre_foundation::ir::{BufferDecl, DataType, Expr, Node, Program};

use crate::catalogue::build::words_to_bytes;
use crate::catalogue::{Area, Batch, Expectation};

/// Every batch of the subgroups area.
pub(super) fn batches() -> Vec<Batch> {
    vec![size_independent(), by_size()]
}

/// A column of the size-independent batch: its name, its expression, and what global invocation
/// `i` must see in it.
type Column = (&'static str, Expr, fn(u32) -> u32);

/// Workgroups of both batches.
const GROUPS: u32 = 2;

/// The input of global invocation `i`: small, so that `f32` sums of up to 128 of them are exact.
fn input(i: u32) -> u32 {
    (i.wrapping_mul(2_654_435_761) >> 22) ^ (i & 3)
}

fn x() -> Expr {
    Expr::var("x")
}

/// Results that every subgroup size gives: reductions of a value uniform across the workgroup,
/// a shuffle from the invocation's own lane, its own ballot bit, and the workgroup sum built from
/// subgroup sums with one atomic per subgroup.
fn size_independent() -> Batch {
    const WG: u32 = 64;
    let n = WG * GROUPS;
    let uniform = || Expr::add(Expr::mul(Expr::workgroup_x(), Expr::u32(7)), Expr::u32(3));
    let lane = Expr::subgroup_invocation_id;
    let own_bit = Expr::bit_and(
        Expr::shr(
            Expr::subgroup_ballot(Expr::bool(true)),
            Expr::bit_and(lane(), Expr::u32(31)),
        ),
        Expr::u32(1),
    );
    // What global invocation `i` must see in each column.
    let uniform_value: fn(u32) -> u32 = |i| (i / WG) * 7 + 3;
    let columns: Vec<Column> = vec![
        (
            "min_of_uniform",
            Expr::subgroup_min(uniform()),
            uniform_value,
        ),
        (
            "max_of_uniform",
            Expr::subgroup_max(uniform()),
            uniform_value,
        ),
        (
            "and_of_uniform",
            Expr::subgroup_and(uniform()),
            uniform_value,
        ),
        ("or_of_uniform", Expr::subgroup_or(uniform()), uniform_value),
        (
            "broadcast_first_of_uniform",
            Expr::subgroup_broadcast_first(uniform()),
            uniform_value,
        ),
        (
            "shuffle_from_own_lane",
            Expr::subgroup_shuffle(x(), lane()),
            input,
        ),
        ("own_ballot_bit", own_bit, |_| 1),
        (
            "lane_below_size",
            Expr::cast(DataType::U32, Expr::lt(lane(), Expr::subgroup_size())),
            |_| 1,
        ),
    ];
    let k = columns.len() as u32;
    let mut body = vec![
        Node::let_bind("x", Expr::load("input", Expr::gid_x())),
        Node::let_bind("sum", Expr::subgroup_add(x())),
        Node::if_then(
            Expr::eq(lane(), Expr::u32(0)),
            vec![Node::atomic(
                vyre_foundation::ir::AtomicOp::Add,
                "totals",
                Expr::workgroup_x(),
                Expr::var("sum"),
            )],
        ),
    ];
    for (c, (_, e, _)) in columns.iter().enumerate() {
        body.push(Node::store(
            "out",
            Expr::add(Expr::mul(Expr::gid_x(), Expr::u32(k)), Expr::u32(c as u32)),
            e.clone(),
        ));
    }
    let program = Program::new(
        vec![
            BufferDecl::read("input", 0, DataType::U32).with_count(n),
            BufferDecl::output("out", 1, DataType::U32).with_count(n * k),
            BufferDecl::output("totals", 2, DataType::U32).with_count(GROUPS),
        ],
        [WG, 1, 1],
        body,
    );
    let inputs = vec![words_to_bytes((0..n).map(input))];
    let config = DispatchConfig::new().with_grid([GROUPS, 1, 1]);
    let mut batch = Batch::manual(
        Area::Subgroups,
        "subgroups.size_independent",
        program,
        inputs,
        config,
    );
    for i in 0..n {
        for (c, (name, _, want)) in columns.iter().enumerate() {
            let expected = want(i);
            batch = batch.expect_word(
                format!("subgroups.{name}[{i}]"),
                format!("invocation {i}, input {}", input(i)),
                (0, (i * k) as usize + c),
                DataType::U32,
                Expectation::exact(expected),
            );
        }
    }
    for w in 0..GROUPS {
        let sum = (w * WG..(w + 1) * WG)
            .map(input)
            .fold(0u32, u32::wrapping_add);
        batch = batch.expect_word(
            format!("subgroups.atomic_sum_of_subgroup_sums[{w}]"),
            format!("workgroup {w}"),
            (1, w as usize),
            DataType::U32,
            Expectation::exact(sum),
        );
    }
    batch
}

/// Every operation on varied values in a workgroup of 48 invocations (a partial last subgroup on
/// sizes of 32 and more), compared with the reference at the backend's subgroup size.
fn by_size() -> Batch {
    const WG: u32 = 48;
    let n = WG * GROUPS;
    let lane = Expr::subgroup_invocation_id;
    let signed = || Expr::sub(Expr::bitcast(DataType::I32, x()), Expr::i32(300));
    let float = || Expr::cast(DataType::F32, x());
    let columns: Vec<(&str, DataType, Expr)> = vec![
        ("subgroup_size", DataType::U32, Expr::subgroup_size()),
        ("subgroup_invocation_id", DataType::U32, lane()),
        ("add.u32", DataType::U32, Expr::subgroup_add(x())),
        ("min.u32", DataType::U32, Expr::subgroup_min(x())),
        ("max.u32", DataType::U32, Expr::subgroup_max(x())),
        ("and.u32", DataType::U32, Expr::subgroup_and(x())),
        ("or.u32", DataType::U32, Expr::subgroup_or(x())),
        ("xor.u32", DataType::U32, Expr::subgroup_xor(x())),
        ("add.i32", DataType::I32, Expr::subgroup_add(signed())),
        ("min.i32", DataType::I32, Expr::subgroup_min(signed())),
        ("max.i32", DataType::I32, Expr::subgroup_max(signed())),
        ("xor.i32", DataType::I32, Expr::subgroup_xor(signed())),
        ("add.f32", DataType::F32, Expr::subgroup_add(float())),
        ("min.f32", DataType::F32, Expr::subgroup_min(float())),
        ("max.f32", DataType::F32, Expr::subgroup_max(float())),
        (
            "broadcast_first.u32",
            DataType::U32,
            Expr::subgroup_broadcast_first(x()),
        ),
        (
            "broadcast_first.f32",
            DataType::F32,
            Expr::subgroup_broadcast_first(float()),
        ),
        (
            "ballot(x odd)",
            DataType::U32,
            Expr::subgroup_ballot(Expr::eq(Expr::bit_and(x(), Expr::u32(1)), Expr::u32(1))),
        ),
        (
            "shuffle(lane ^ 1)",
            DataType::U32,
            Expr::subgroup_shuffle(x(), Expr::bit_xor(lane(), Expr::u32(1))),
        ),
        (
            "shuffle(lane + 1)",
            DataType::U32,
            Expr::subgroup_shuffle(x(), Expr::add(lane(), Expr::u32(1))),
        ),
        (
            "shuffle(lane + 16).i32",
            DataType::I32,
            Expr::subgroup_shuffle(signed(), Expr::add(lane(), Expr::u32(16))),
        ),
        (
            "shuffle(x % 64).f32",
            DataType::F32,
            Expr::subgroup_shuffle(float(), Expr::rem(x(), Expr::u32(64))),
        ),
    ];
    let k = columns.len() as u32;
    let types = [DataType::U32, DataType::I32, DataType::F32];
    let mut body = vec![Node::let_bind("x", Expr::load("input", Expr::gid_x()))];
    let mut slots = [0u32; 3];
    let mut places = Vec::new();
    for (_, ty, e) in &columns {
        let t = types.iter().position(|u| u == ty).unwrap_or(0);
        body.push(Node::store(
            format!("out_{ty}"),
            Expr::add(Expr::mul(Expr::u32(slots[t]), Expr::u32(n)), Expr::gid_x()),
            e.clone(),
        ));
        places.push((t, slots[t]));
        slots[t] += 1;
    }
    let mut buffers = vec![BufferDecl::read("input", 0, DataType::U32).with_count(n)];
    for (t, ty) in types.iter().enumerate() {
        buffers.push(
            BufferDecl::output(format!("out_{ty}"), 1 + t as u32, *ty).with_count(n * slots[t]),
        );
    }
    let program = Program::new(buffers, [WG, 1, 1], body);
    let inputs = vec![words_to_bytes((0..n).map(input))];
    let config = DispatchConfig::new().with_grid([GROUPS, 1, 1]);
    let mut batch = Batch::manual(
        Area::Subgroups,
        "subgroups.by_size",
        program,
        inputs,
        config,
    );
    debug_assert_eq!(places.len(), k as usize);
    for ((name, ty, _), (t, slot)) in columns.iter().zip(places) {
        for i in 0..n {
            batch = batch.expect_word(
                format!("subgroups.{name}[{i}]"),
                format!("invocation {i} of workgroups of {WG}, input {}", input(i)),
                (t, (slot * n + i) as usize),
                *ty,
                Expectation::reference(),
            );
        }
    }
    batch
}
