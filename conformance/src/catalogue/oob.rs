//! Out-of-bounds accesses (`SEMANTICS.md` section 3): loads yield 0, stores and atomics do nothing
//! (atomics yield 0), for every element type, `u32` and `i32` indices, storage and workgroup buffers.

use vyre_driver::DispatchConfig;
use vyre_foundation::ir::{BufferDecl, DataType, Expr, Node, Program};

use crate::catalogue::build::words_to_bytes;
use crate::catalogue::{Area, Batch, Expectation};

/// Elements in each probed buffer.
const LEN: u32 = 8;

/// `u32` indices: in bounds at both ends, just past, far past, the sign boundary, the top.
const U32_INDICES: [u32; 8] = [0, 7, 8, 9, 100, 0x8000_0000, 0xffff_fff8, 0xffff_ffff];

/// `i32` indices: in bounds, just past, and negative.
const I32_INDICES: [i32; 8] = [0, 7, 8, -1, -8, i32::MIN, i32::MAX, 3];

/// Every batch of the out-of-bounds area.
pub(super) fn batches() -> Vec<Batch> {
    let mut out: Vec<Batch> = TYPES.into_iter().map(loads).collect();
    out.push(stores());
    out.push(atomics());
    out
}

fn in_bounds_u32(index: u32) -> bool {
    index < LEN
}

fn in_bounds_i32(index: i32) -> bool {
    (0..LEN as i32).contains(&index)
}

/// Each type's buffer holds `base + k` (as that type) at element `k`.
fn element_word(ty: DataType, k: u32) -> u32 {
    match ty {
        DataType::F32 => (1.5 + k as f32).to_bits(),
        DataType::I32 => (-100 - k as i32) as u32,
        DataType::Bool => k % 2,
        _ => 0x1000 + k,
    }
}

const TYPES: [DataType; 4] = [DataType::U32, DataType::I32, DataType::F32, DataType::Bool];

/// Loads through `u32` and `i32` indices from a buffer of type `ty` (and, for `u32`, from workgroup
/// memory). One batch per type keeps every program within 8 storage bindings.
fn loads(ty: DataType) -> Batch {
    let mut buffers = vec![
        BufferDecl::read("uidx", 0, DataType::U32).with_count(LEN),
        BufferDecl::read("iidx", 1, DataType::I32).with_count(LEN),
        BufferDecl::read("data", 2, ty).with_count(LEN),
        BufferDecl::output("by_u32", 3, ty).with_count(LEN),
        BufferDecl::output("by_i32", 4, ty).with_count(LEN),
    ];
    let load = |idx: &str| Expr::load("data", Expr::var(idx));
    let mut body = vec![
        Node::let_bind("u", Expr::load("uidx", Expr::gid_x())),
        Node::let_bind("s", Expr::load("iidx", Expr::gid_x())),
        Node::store("by_u32", Expr::gid_x(), load("u")),
        Node::store("by_i32", Expr::gid_x(), load("s")),
    ];
    let with_tile = ty == DataType::U32;
    if with_tile {
        buffers.push(BufferDecl::output("by_u32_tile", 5, DataType::U32).with_count(LEN));
        buffers.push(BufferDecl::workgroup("tile", LEN, DataType::U32));
        body.push(Node::store(
            "tile",
            Expr::gid_x(),
            Expr::add(Expr::gid_x(), Expr::u32(50)),
        ));
        body.push(Node::barrier());
        body.push(Node::store(
            "by_u32_tile",
            Expr::gid_x(),
            Expr::load("tile", Expr::var("u")),
        ));
    }
    let program = Program::wrapped(buffers, [LEN, 1, 1], body);
    let inputs = vec![
        words_to_bytes(U32_INDICES),
        words_to_bytes(I32_INDICES.map(|v| v as u32)),
        words_to_bytes((0..LEN).map(|k| element_word(ty, k))),
    ];
    let config = DispatchConfig::new().with_grid([1, 1, 1]);
    let mut batch = Batch::manual(
        Area::OutOfBounds,
        format!("oob.loads.{ty}"),
        program,
        inputs,
        config,
    );
    for k in 0..LEN as usize {
        let (u, s) = (U32_INDICES[k], I32_INDICES[k]);
        let by_u = if in_bounds_u32(u) {
            element_word(ty, u)
        } else {
            0
        };
        let by_i = if in_bounds_i32(s) {
            element_word(ty, s as u32)
        } else {
            0
        };
        batch = batch
            .expect_word(
                format!("load.{ty}[{u}u]"),
                format!("index {u}u of {LEN}"),
                (0, k),
                ty,
                Expectation::exact(by_u),
            )
            .expect_word(
                format!("load.{ty}[{s}i]"),
                format!("index {s}i of {LEN}"),
                (1, k),
                ty,
                Expectation::exact(by_i),
            );
        if with_tile {
            let expected = if in_bounds_u32(u) { u + 50 } else { 0 };
            batch = batch.expect_word(
                format!("load.workgroup[{u}u]"),
                format!("index {u}u of {LEN}"),
                (2, k),
                DataType::U32,
                Expectation::exact(expected),
            );
        }
    }
    batch
}

/// Stores through every index into a small output next to a guard output: in-bounds stores land,
/// the others vanish (and in particular never reach the neighbouring buffer).
fn stores() -> Batch {
    let body = vec![
        Node::let_bind("u", Expr::load("uidx", Expr::gid_x())),
        Node::let_bind("s", Expr::load("iidx", Expr::gid_x())),
        // Invocation k stores only where its index is in bounds or out of bounds, never where another
        // invocation's in-bounds store lands: indices are distinct in bounds.
        Node::store(
            "by_u32",
            Expr::var("u"),
            Expr::add(Expr::gid_x(), Expr::u32(1)),
        ),
        Node::store(
            "by_i32",
            Expr::var("s"),
            Expr::add(Expr::gid_x(), Expr::u32(1)),
        ),
        Node::store("tile", Expr::var("u"), Expr::u32(7)),
        Node::barrier(),
        Node::store("tile_out", Expr::gid_x(), Expr::load("tile", Expr::gid_x())),
    ];
    let program = Program::wrapped(
        vec![
            BufferDecl::read("uidx", 0, DataType::U32).with_count(LEN),
            BufferDecl::read("iidx", 1, DataType::I32).with_count(LEN),
            BufferDecl::output("by_u32", 2, DataType::U32).with_count(LEN),
            BufferDecl::output("guard", 3, DataType::U32).with_count(LEN),
            BufferDecl::output("by_i32", 4, DataType::U32).with_count(LEN),
            BufferDecl::output("tile_out", 5, DataType::U32).with_count(LEN),
            BufferDecl::workgroup("tile", LEN, DataType::U32),
        ],
        [LEN, 1, 1],
        body,
    );
    let inputs = vec![
        words_to_bytes(U32_INDICES),
        words_to_bytes(I32_INDICES.map(|v| v as u32)),
    ];
    let mut by_u = vec![0u32; LEN as usize];
    let mut by_i = vec![0u32; LEN as usize];
    let mut tile = vec![0u32; LEN as usize];
    for k in 0..LEN as usize {
        if in_bounds_u32(U32_INDICES[k]) {
            by_u[U32_INDICES[k] as usize] = k as u32 + 1;
            tile[U32_INDICES[k] as usize] = 7;
        }
        if in_bounds_i32(I32_INDICES[k]) {
            by_i[I32_INDICES[k] as usize] = k as u32 + 1;
        }
    }
    let described = format!("u32 indices {U32_INDICES:?}, i32 indices {I32_INDICES:?}");
    Batch::manual(
        Area::OutOfBounds,
        "oob.stores",
        program,
        inputs,
        DispatchConfig::new().with_grid([1, 1, 1]),
    )
    .expect_words("store_u32_index", &described, 0, DataType::U32, &by_u)
    .expect_words(
        "store_never_reaches_neighbour",
        &described,
        1,
        DataType::U32,
        &[0; LEN as usize],
    )
    .expect_words("store_i32_index", &described, 2, DataType::U32, &by_i)
    .expect_words("store_workgroup", &described, 3, DataType::U32, &tile)
}

/// Atomics through every index: out of bounds they yield 0 and change nothing.
fn atomics() -> Batch {
    let body = vec![
        Node::let_bind("u", Expr::load("uidx", Expr::gid_x())),
        Node::let_bind("s", Expr::load("iidx", Expr::gid_x())),
        Node::store(
            "old_u",
            Expr::gid_x(),
            Expr::atomic_add("acc_u", Expr::var("u"), Expr::u32(5)),
        ),
        Node::store(
            "old_i",
            Expr::gid_x(),
            Expr::atomic_compare_exchange("acc_i", Expr::var("s"), Expr::u32(0), Expr::u32(9)),
        ),
    ];
    let program = Program::wrapped(
        vec![
            BufferDecl::read("uidx", 0, DataType::U32).with_count(LEN),
            BufferDecl::read("iidx", 1, DataType::I32).with_count(LEN),
            BufferDecl::output("acc_u", 2, DataType::U32).with_count(LEN),
            BufferDecl::output("old_u", 3, DataType::U32).with_count(LEN),
            BufferDecl::output("acc_i", 4, DataType::U32).with_count(LEN),
            BufferDecl::output("old_i", 5, DataType::U32).with_count(LEN),
        ],
        [LEN, 1, 1],
        body,
    );
    let inputs = vec![
        words_to_bytes(U32_INDICES),
        words_to_bytes(I32_INDICES.map(|v| v as u32)),
    ];
    let mut acc_u = vec![0u32; LEN as usize];
    let mut acc_i = vec![0u32; LEN as usize];
    for k in 0..LEN as usize {
        if in_bounds_u32(U32_INDICES[k]) {
            acc_u[U32_INDICES[k] as usize] += 5;
        }
        if in_bounds_i32(I32_INDICES[k]) {
            acc_i[I32_INDICES[k] as usize] = 9;
        }
    }
    // In-bounds indices are distinct, so every atomic sees the zero the buffer started with.
    let olds = vec![0u32; LEN as usize];
    let described = format!("u32 indices {U32_INDICES:?}, i32 indices {I32_INDICES:?}");
    Batch::manual(
        Area::OutOfBounds,
        "oob.atomics",
        program,
        inputs,
        DispatchConfig::new().with_grid([1, 1, 1]),
    )
    .expect_words(
        "atomic_add_u32_index.buffer",
        &described,
        0,
        DataType::U32,
        &acc_u,
    )
    .expect_words(
        "atomic_add_u32_index.old",
        &described,
        1,
        DataType::U32,
        &olds,
    )
    .expect_words(
        "atomic_cas_i32_index.buffer",
        &described,
        2,
        DataType::U32,
        &acc_i,
    )
    .expect_words(
        "atomic_cas_i32_index.old",
        &described,
        3,
        DataType::U32,
        &olds,
    )
}
