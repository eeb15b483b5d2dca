//! Grids and workgroup shapes (every builtin on every axis, derived grids, grids past 65535),
//! runtime-sized buffers, and programs with several inputs and outputs.

use vyre_driver::DispatchConfig;
use vyre_foundation::ir::Axis;
use vyre_foundation::ir::{BufferDecl, Builtin, DataType, Expr, Node, Program};

use crate::catalogue::build::words_to_bytes;
use crate::catalogue::{Area, Batch};

/// Every batch of the grids, runtime-sized and multi-io areas.
pub(super) fn batches() -> Vec<Batch> {
    let mut out: Vec<Batch> = [
        ([4, 2, 2], [3, 2, 2]),
        ([1, 1, 1], [5, 1, 3]),
        ([2, 3, 1], [1, 4, 2]),
        ([1, 1, 64], [1, 1, 2]),
        ([16, 4, 1], [2, 1, 1]),
    ]
    .into_iter()
    .map(|(wg, grid)| builtins(wg, grid))
    .collect();
    out.push(derived_grid());
    out.push(wide_grid());
    out.extend([1u32, 5, 100].map(runtime_sized));
    out.push(multi_io());
    out
}

const BUILTINS: [fn(Axis) -> Builtin; 4] = [
    Builtin::GlobalId,
    Builtin::LocalId,
    Builtin::WorkgroupId,
    Builtin::NumWorkgroups,
];
const AXES: [Axis; 3] = [Axis::X, Axis::Y, Axis::Z];

/// Every invocation writes its 12 builtin values at its linear global index.
fn builtins(wg: [u32; 3], grid: [u32; 3]) -> Batch {
    let size = [wg[0] * grid[0], wg[1] * grid[1], wg[2] * grid[2]];
    let total = size.iter().product::<u32>();
    let g = |a| Expr::Builtin(Builtin::GlobalId(a));
    let linear = Expr::add(
        Expr::mul(
            Expr::add(Expr::mul(g(Axis::Z), Expr::u32(size[1])), g(Axis::Y)),
            Expr::u32(size[0]),
        ),
        g(Axis::X),
    );
    let mut body = vec![Node::let_bind("at", Expr::mul(linear, Expr::u32(12)))];
    for (b, builtin) in BUILTINS.iter().enumerate() {
        for (a, &axis) in AXES.iter().enumerate() {
            let slot = Expr::add(Expr::var("at"), Expr::u32((b * 3 + a) as u32));
            body.push(Node::store("ids", slot, Expr::Builtin(builtin(axis))));
        }
    }
    let program = Program::wrapped(
        vec![BufferDecl::output("ids", 0, DataType::U32).with_count(total * 12)],
        wg,
        body,
    );
    let mut expected = Vec::with_capacity(total as usize * 12);
    for z in 0..size[2] {
        for y in 0..size[1] {
            for x in 0..size[0] {
                let gid = [x, y, z];
                let lid = [0, 1, 2].map(|a| gid[a] % wg[a]);
                let wid = [0, 1, 2].map(|a| gid[a] / wg[a]);
                expected.extend(gid.into_iter().chain(lid).chain(wid).chain(grid));
            }
        }
    }
    let name = format!(
        "grids.wg{}x{}x{}.grid{}x{}x{}",
        wg[0], wg[1], wg[2], grid[0], grid[1], grid[2]
    );
    let mut batch = Batch::manual(
        Area::Grids,
        name.clone(),
        program,
        Vec::new(),
        DispatchConfig::new().with_grid(grid),
    );
    let names = ["gid", "lid", "wid", "nwg"];
    for (k, &w) in expected.iter().enumerate() {
        let (inv, slot) = (k / 12, k % 12);
        let at = [
            inv as u32 % size[0],
            inv as u32 / size[0] % size[1],
            inv as u32 / (size[0] * size[1]),
        ];
        batch = batch.expect_word(
            format!(
                "{name}.{}.{}@({},{},{})",
                names[slot / 3],
                ['x', 'y', 'z'][slot % 3],
                at[0],
                at[1],
                at[2]
            ),
            format!("global id ({},{},{})", at[0], at[1], at[2]),
            (0, k),
            DataType::U32,
            crate::catalogue::Expectation::exact(w),
        );
    }
    batch
}

/// No grid given: `ceil(n / workgroup_size.x)` workgroups for the largest buffer.
fn derived_grid() -> Batch {
    const N: u32 = 200;
    let program = Program::wrapped(
        vec![
            BufferDecl::output("count", 0, DataType::U32).with_count(N),
            BufferDecl::output("nwg", 1, DataType::U32).with_count(1),
        ],
        [64, 1, 1],
        vec![
            Node::store(
                "count",
                Expr::gid_x(),
                Expr::add(Expr::gid_x(), Expr::u32(1)),
            ),
            Node::store("nwg", Expr::u32(0), Expr::num_workgroups_x()),
        ],
    );
    let counts: Vec<u32> = (1..=N).collect();
    Batch::manual(
        Area::Grids,
        "grids.derived",
        program,
        Vec::new(),
        DispatchConfig::new(),
    )
    .expect_words(
        "derived_grid_covers",
        "200 elements, workgroup 64",
        0,
        DataType::U32,
        &counts,
    )
    .expect_words(
        "derived_grid_size",
        "200 elements, workgroup 64",
        1,
        DataType::U32,
        &[4],
    )
}

/// 70 000 workgroups along x: past the 65 535 a wgpu dispatch allows, so a backend must fold the grid
/// while the builtins still show the grid the caller asked for.
fn wide_grid() -> Batch {
    const GROUPS: u32 = 70_000;
    let wrong = Expr::or(
        Expr::ne(Expr::gid_x(), Expr::workgroup_x()),
        Expr::or(
            Expr::ne(Expr::num_workgroups_x(), Expr::u32(GROUPS)),
            Expr::ne(Expr::num_workgroups_y(), Expr::u32(1)),
        ),
    );
    let program = Program::wrapped(
        vec![
            BufferDecl::output("seen", 0, DataType::U32).with_count(GROUPS),
            BufferDecl::output("wrong", 1, DataType::U32).with_count(1),
        ],
        [1, 1, 1],
        vec![
            Node::store(
                "seen",
                Expr::gid_x(),
                Expr::add(Expr::workgroup_x(), Expr::u32(1)),
            ),
            Node::if_then(
                wrong,
                vec![Node::let_bind(
                    "o",
                    Expr::atomic_add("wrong", Expr::u32(0), Expr::u32(1)),
                )],
            ),
        ],
    );
    let config = DispatchConfig::new().with_grid([GROUPS, 1, 1]);
    let mut batch = Batch::manual(Area::Grids, "grids.wide", program, Vec::new(), config)
        .expect_words(
            "wide_grid_invocations_with_wrong_ids",
            "70000 workgroups",
            1,
            DataType::U32,
            &[0],
        );
    let mut probes: Vec<u32> = (0..8)
        .chain(65_530..65_541)
        .chain(GROUPS - 8..GROUPS)
        .chain((0..GROUPS).step_by(997))
        .collect();
    probes.sort_unstable();
    probes.dedup();
    for k in probes {
        batch = batch.expect_word(
            format!("wide_grid.workgroup[{k}]"),
            "70000 workgroups",
            (0, k as usize),
            DataType::U32,
            crate::catalogue::Expectation::exact(k + 1),
        );
    }
    batch
}

/// A runtime-sized input of `len` elements: `buf_len`, every element, and a load just past the end.
fn runtime_sized(len: u32) -> Batch {
    const CAP: u32 = 128;
    let i = Expr::gid_x;
    let program = Program::wrapped(
        vec![
            BufferDecl::read("data", 0, DataType::I32),
            BufferDecl::read_write("scratch", 1, DataType::U32),
            BufferDecl::output("doubled", 2, DataType::I32).with_count(CAP),
            BufferDecl::output("meta", 3, DataType::U32).with_count(3),
        ],
        [32, 1, 1],
        vec![
            Node::if_then(
                Expr::lt(i(), Expr::buf_len("data")),
                vec![
                    Node::store(
                        "scratch",
                        i(),
                        Expr::add(Expr::load("scratch", i()), Expr::u32(10)),
                    ),
                    Node::store(
                        "doubled",
                        i(),
                        Expr::mul(Expr::load("data", i()), Expr::i32(2)),
                    ),
                ],
            ),
            Node::if_then(
                Expr::eq(i(), Expr::u32(0)),
                vec![
                    Node::store("meta", Expr::u32(0), Expr::buf_len("data")),
                    Node::store("meta", Expr::u32(1), Expr::buf_len("scratch")),
                    Node::store(
                        "meta",
                        Expr::u32(2),
                        Expr::bitcast(DataType::U32, Expr::load("data", Expr::buf_len("data"))),
                    ),
                ],
            ),
        ],
    );
    let data: Vec<i32> = (0..len as i32).map(|k| k * 7 - 20).collect();
    let inputs = vec![
        words_to_bytes(data.iter().map(|&v| v as u32)),
        words_to_bytes((0..len + 3).map(|k| k * 3)),
    ];
    let mut doubled: Vec<u32> = data.iter().map(|&v| (v * 2) as u32).collect();
    doubled.resize(CAP as usize, 0);
    let config = DispatchConfig::new().with_grid([CAP / 32, 1, 1]);
    let described = format!("data of {len} elements, scratch of {}", len + 3);
    Batch::manual(
        Area::RuntimeSized,
        format!("runtime.len{len}"),
        program,
        inputs,
        config,
    )
    .expect_words(
        &format!("runtime_len{len}.elements"),
        &described,
        0,
        DataType::I32,
        &doubled,
    )
    .expect_words(
        &format!("runtime_len{len}.buf_len_and_past_end"),
        &described,
        1,
        DataType::U32,
        &[len, len + 3, 0],
    )
}

/// Three inputs of three kinds (read, uniform, read_write), a short input that is zero-extended, and
/// three outputs of three types, one read back through a byte range.
fn multi_io() -> Batch {
    const N: u32 = 16;
    let i = Expr::gid_x;
    let program = Program::wrapped(
        vec![
            BufferDecl::read("a", 0, DataType::U32).with_count(N),
            BufferDecl::uniform("params", 1, DataType::U32).with_count(4),
            BufferDecl::read_write("acc", 2, DataType::F32).with_count(N),
            BufferDecl::output("sum", 3, DataType::U32).with_count(N),
            BufferDecl::output("scaled", 4, DataType::F32).with_count(N),
            BufferDecl::output("flags", 5, DataType::Bool)
                .with_count(N)
                .with_output_byte_range(16..40),
        ],
        [N, 1, 1],
        vec![
            Node::store(
                "sum",
                i(),
                Expr::add(Expr::load("a", i()), Expr::load("params", Expr::u32(1))),
            ),
            Node::store(
                "acc",
                i(),
                Expr::add(Expr::load("acc", i()), Expr::f32(0.5)),
            ),
            Node::store(
                "scaled",
                i(),
                Expr::mul(
                    Expr::load("acc", i()),
                    Expr::cast(DataType::F32, Expr::load("params", Expr::u32(2))),
                ),
            ),
            Node::store(
                "flags",
                i(),
                Expr::gt(Expr::load("a", i()), Expr::load("params", Expr::u32(0))),
            ),
        ],
    );
    // Only 10 of the 16 elements of `a` are passed; the rest read as zero.
    let a: Vec<u32> = (0..10).map(|k| k * 5).collect();
    let params = [12u32, 1000, 4, 0];
    let acc: Vec<f32> = (0..N).map(|k| k as f32 * 0.25).collect();
    let inputs = vec![
        words_to_bytes(a.iter().copied()),
        words_to_bytes(params),
        words_to_bytes(acc.iter().map(|v| v.to_bits())),
    ];
    let a_full = |k: u32| a.get(k as usize).copied().unwrap_or(0);
    let sums: Vec<u32> = (0..N).map(|k| a_full(k) + params[1]).collect();
    // (k/4 + 1/2) * 4 is exact in f32.
    let scaled: Vec<u32> = acc.iter().map(|v| ((v + 0.5) * 4.0).to_bits()).collect();
    let flags: Vec<u32> = (4..10).map(|k| u32::from(a_full(k) > params[0])).collect();
    let described = "a = 0, 5, .., 45 (10 of 16), params = [12, 1000, 4, 0], acc = k / 4";
    Batch::manual(
        Area::MultiIo,
        "multi_io",
        program,
        inputs,
        DispatchConfig::new().with_grid([1, 1, 1]),
    )
    .expect_words(
        "multi_io.sum_zero_extended",
        described,
        0,
        DataType::U32,
        &sums,
    )
    .expect_words(
        "multi_io.scaled_read_write",
        described,
        1,
        DataType::F32,
        &scaled,
    )
    .expect_words(
        "multi_io.flags_byte_range",
        described,
        2,
        DataType::Bool,
        &flags,
    )
}
