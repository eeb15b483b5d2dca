//! Programs that exercise each code-generation transformation at its edges: guards proven away,
//! barrier scopes, and vectorised elementwise access with every kind of tail. Shared by
//! `codegen.rs` (the wgpu backend agrees with the reference on each) and `planted_lowering.rs` (each
//! planted miscompile makes at least one of them disagree).

#![allow(dead_code, unreachable_pub)]

use vyre_driver::{DeviceBuffer, DispatchConfig, VyreBackend};
use vyre_foundation::ir::{BufferAccess, BufferDecl, DataType, Expr, Node, Program};

/// One case: a name, a program, its inputs and its grid.
pub struct Case {
    pub name: String,
    pub program: Program,
    pub inputs: Vec<Vec<u8>>,
    pub grid: [u32; 3],
}

fn words(n: u32, seed: u32) -> Vec<u8> {
    (0..n)
        .flat_map(|i| {
            (i.wrapping_mul(2_654_435_761) ^ seed)
                .rotate_left(i % 7)
                .to_le_bytes()
        })
        .collect()
}

fn case(name: &str, program: Program, inputs: Vec<Vec<u8>>, grid: [u32; 3]) -> Case {
    Case {
        name: name.to_owned(),
        program,
        inputs,
        grid,
    }
}

/// Runs `case` on both backends: `None` when they agree, else what differed.
pub fn disagreement(case: &Case, a: &dyn VyreBackend, b: &dyn VyreBackend) -> Option<String> {
    let config = DispatchConfig::new().with_grid(case.grid);
    let left = a.dispatch(&case.program, &case.inputs, &config);
    let right = b.dispatch(&case.program, &case.inputs, &config);
    match (left, right) {
        (Ok(l), Ok(r)) if l == r => None,
        (l, r) => Some(format!("{}: {l:?}\nagainst {r:?}", case.name)),
    }
}

/// Runs `case` through resident buffers on both backends (one `DeviceBuffer` per bound buffer,
/// inputs written first) and compares every buffer's bytes afterwards: `None` when they agree.
pub fn resident_disagreement(
    case: &Case,
    a: &dyn VyreBackend,
    b: &dyn VyreBackend,
) -> Option<String> {
    let run = |backend: &dyn VyreBackend| -> Result<Vec<Vec<u8>>, String> {
        let mut inputs = case.inputs.iter();
        let mut buffers: Vec<DeviceBuffer> = Vec::new();
        for decl in &case.program.buffers {
            if decl.access == BufferAccess::Workgroup {
                continue;
            }
            let input = decl.access.takes_input().then(|| inputs.next()).flatten();
            let bytes = match (decl.count, input) {
                (0, Some(input)) => input.len() as u64,
                (count, _) => u64::from(count) * decl.element.size_bytes() as u64,
            };
            let buffer = backend.create_buffer(bytes).map_err(|e| e.to_string())?;
            if let Some(input) = input {
                let n = input.len().min(bytes as usize);
                backend
                    .write_buffer(&buffer, 0, &input[..n])
                    .map_err(|e| e.to_string())?;
            }
            buffers.push(buffer);
        }
        let refs: Vec<&DeviceBuffer> = buffers.iter().collect();
        let config = DispatchConfig::new().with_grid(case.grid);
        backend
            .dispatch_resident(&case.program, &refs, &config)
            .map_err(|e| e.to_string())?;
        buffers
            .iter()
            .map(|buffer| {
                backend
                    .read_buffer(buffer, 0..buffer.len())
                    .map_err(|e| e.to_string())
            })
            .collect()
    };
    match (run(a), run(b)) {
        (Ok(l), Ok(r)) if l == r => None,
        (l, r) => Some(format!("{} (resident): {l:?}\nagainst {r:?}", case.name)),
    }
}

/// Guards: an `if` bound one past a workgroup buffer's count must keep its guard. Workgroup arrays are
/// where a dropped guard shows even on drivers with robust buffer access: wgpu clamps their indices,
/// so the store lands on the last element instead of nowhere.
fn guard_cases() -> Vec<Case> {
    let lid = Expr::local_x;
    let literal_bound = Program::new(
        vec![
            BufferDecl::output("out", 0, DataType::U32).with_count(8),
            BufferDecl::workgroup("wg", 4, DataType::U32),
        ],
        [8, 1, 1],
        vec![
            Node::if_then(
                Expr::ge(lid(), Expr::u32(4)),
                vec![Node::if_then(
                    Expr::lt(lid(), Expr::u32(5)),
                    vec![Node::store("wg", lid(), Expr::u32(7))],
                )],
            ),
            Node::barrier(),
            Node::store(
                "out",
                lid(),
                Expr::load("wg", Expr::rem(lid(), Expr::u32(4))),
            ),
        ],
    );
    let i = || Expr::var("i");
    let length_bound = Program::new(
        vec![
            BufferDecl::read("data", 0, DataType::U32),
            BufferDecl::output("out", 1, DataType::U32).with_count(64),
        ],
        [32, 1, 1],
        vec![
            Node::let_bind("i", Expr::gid_x()),
            Node::if_then(
                Expr::lt(i(), Expr::buf_len("data")),
                vec![Node::store(
                    "out",
                    i(),
                    Expr::add(Expr::load("data", i()), Expr::u32(1)),
                )],
            ),
        ],
    );
    let loop_bound = Program::new(
        vec![
            BufferDecl::read("table", 0, DataType::U32).with_count(16),
            BufferDecl::output("out", 1, DataType::U32).with_count(40),
        ],
        [8, 1, 1],
        vec![
            Node::let_bind("acc", Expr::u32(0)),
            Node::loop_for(
                "k",
                Expr::u32(0),
                Expr::u32(16),
                vec![Node::assign(
                    "acc",
                    Expr::add(
                        Expr::var("acc"),
                        Expr::mul(Expr::load("table", Expr::var("k")), Expr::gid_x()),
                    ),
                )],
            ),
            Node::store("out", Expr::gid_x(), Expr::var("acc")),
        ],
    );
    vec![
        case(
            "guard_literal_bound_workgroup",
            literal_bound,
            vec![],
            [2, 1, 1],
        ),
        case(
            "guard_length_bound",
            length_bound,
            vec![words(40, 3)],
            [2, 1, 1],
        ),
        case(
            "guard_loop_bound",
            loop_bound,
            vec![words(16, 5)],
            [5, 1, 1],
        ),
    ]
}

/// A barrier between a storage store and a load of another invocation's element.
fn barrier_cases() -> Vec<Case> {
    let program = Program::new(
        vec![
            BufferDecl::read_write("shared", 0, DataType::U32).with_count(64),
            BufferDecl::output("out", 1, DataType::U32).with_count(64),
        ],
        [64, 1, 1],
        vec![
            Node::store(
                "shared",
                Expr::gid_x(),
                Expr::mul(Expr::gid_x(), Expr::u32(3)),
            ),
            Node::barrier(),
            Node::store(
                "out",
                Expr::gid_x(),
                Expr::load("shared", Expr::sub(Expr::u32(63), Expr::local_x())),
            ),
        ],
    );
    vec![case(
        "barrier_storage_exchange",
        program,
        vec![words(64, 9)],
        [1, 1, 1],
    )]
}

/// `out[i] = a[i] * 3 + b[i]` over `count` elements of `ty`.
fn axpy(ty: DataType, count: u32, workgroup: u32) -> Program {
    let i = Expr::gid_x;
    let three = match ty {
        DataType::I32 => Expr::i32(3),
        DataType::F32 => Expr::f32(3.0),
        DataType::F16 => Expr::f16(3.0),
        DataType::U64 => Expr::u64(3),
        DataType::I64 => Expr::i64(3),
        DataType::U32 | DataType::Bool => Expr::u32(3),
    };
    Program::new(
        vec![
            BufferDecl::read("a", 0, ty).with_count(count),
            BufferDecl::read("b", 1, ty).with_count(count),
            BufferDecl::output("out", 2, ty).with_count(count),
        ],
        [workgroup, 1, 1],
        vec![Node::store(
            "out",
            i(),
            Expr::add(Expr::mul(Expr::load("a", i()), three), Expr::load("b", i())),
        )],
    )
}

/// Small floats, exact under `* 3 + b`.
fn floats(n: u32, seed: u32) -> Vec<u8> {
    (0..n)
        .flat_map(|i| (((i * 7 + seed) % 64) as f32 - 20.0).to_le_bytes())
        .collect()
}

fn vector_cases() -> Vec<Case> {
    let mut out = Vec::new();
    // Elementwise, but with a loop of 20 000 iterations per element: vectorised, one invocation
    // would run four elements' loops one after another, and llvmpipe's loop limiter (65 535
    // iterations per SIMD vector for the whole shader) cut the fourth element's short.
    let long_loops = Program::new(
        vec![
            BufferDecl::read("input", 0, DataType::U32).with_count(8),
            BufferDecl::output("out", 1, DataType::U32).with_count(8),
        ],
        [64, 1, 1],
        vec![
            Node::let_bind("c", Expr::u32(0)),
            Node::loop_for(
                "k",
                Expr::u32(0),
                Expr::load("input", Expr::gid_x()),
                vec![Node::assign("c", Expr::add(Expr::var("c"), Expr::u32(1)))],
            ),
            Node::store("out", Expr::gid_x(), Expr::var("c")),
        ],
    );
    let input: Vec<u8> = (0..8u32).flat_map(|i| (20_000 - i).to_le_bytes()).collect();
    out.push(case(
        "elementwise_long_loops",
        long_loops,
        vec![input],
        [1, 1, 1],
    ));
    // (count, workgroup, grid): whole groups of four, the grid ending inside a group, the buffer
    // ending before the grid does, and the grid ending long before the buffer.
    for (count, workgroup, grid) in [
        (64, 8, 8),
        (64, 8, 7),
        (20, 8, 4),
        (64, 5, 3),
        (36, 3, 5),
        (8, 1, 9),
        (16, 64, 1),
    ] {
        for ty in [DataType::U32, DataType::I32, DataType::F32] {
            let inputs = if ty == DataType::F32 {
                vec![floats(count, 1), floats(count, 2)]
            } else {
                vec![words(count, 1), words(count, 2)]
            };
            out.push(case(
                &format!("vector_axpy_{ty:?}_{count}_wg{workgroup}_grid{grid}"),
                axpy(ty, count, workgroup),
                inputs,
                [grid, 1, 1],
            ));
        }
    }
    let i = || Expr::var("i");
    // Conditional stores (lanes not stored keep their zero), a read-write buffer updated in place,
    // a bool buffer, a runtime-sized input next to vectorised buffers, and the per-element builtins.
    let mixed = Program::new(
        vec![
            BufferDecl::read("a", 0, DataType::U32).with_count(48),
            BufferDecl::read_write("rw", 1, DataType::U32).with_count(48),
            BufferDecl::read("any", 2, DataType::U32),
            BufferDecl::output("out", 3, DataType::U32).with_count(48),
            BufferDecl::output("flags", 4, DataType::Bool).with_count(48),
            BufferDecl::output("ids", 5, DataType::U32).with_count(52),
        ],
        [6, 1, 1],
        vec![
            Node::let_bind("i", Expr::gid_x()),
            Node::let_bind("x", Expr::load("a", i())),
            Node::store(
                "rw",
                i(),
                Expr::add(Expr::load("rw", i()), Expr::load("any", i())),
            ),
            Node::if_then(
                Expr::gt(Expr::bit_and(Expr::var("x"), Expr::u32(3)), Expr::u32(1)),
                vec![Node::store("out", i(), Expr::load("rw", i()))],
            ),
            Node::store(
                "flags",
                i(),
                Expr::eq(Expr::bit_and(Expr::var("x"), Expr::u32(1)), Expr::u32(1)),
            ),
            Node::store(
                "ids",
                i(),
                Expr::add(
                    Expr::mul(Expr::local_x(), Expr::u32(1000)),
                    Expr::add(
                        Expr::mul(Expr::workgroup_x(), Expr::u32(10)),
                        Expr::num_workgroups_x(),
                    ),
                ),
            ),
        ],
    );
    for grid in [8, 7, 3] {
        out.push(case(
            &format!("vector_mixed_grid{grid}"),
            mixed.clone(),
            vec![words(48, 4), words(48, 5), words(30, 6)],
            [grid, 1, 1],
        ));
    }
    // Counts that are not multiples of four, and grids whose invocations (odd workgroup sizes) end
    // inside a row: every kind of partial row, against buffers ending before and after the grid.
    for (count, workgroup, grid) in [(37, 3, 5), (37, 3, 20), (1, 1, 3), (6, 7, 1), (45, 5, 9)] {
        for ty in [DataType::U32, DataType::F32] {
            let inputs = if ty == DataType::F32 {
                vec![floats(count, 3), floats(count, 4)]
            } else {
                vec![words(count, 3), words(count, 4)]
            };
            out.push(case(
                &format!("vector_tail_axpy_{ty:?}_{count}_wg{workgroup}_grid{grid}"),
                axpy(ty, count, workgroup),
                inputs,
                [grid, 1, 1],
            ));
        }
    }
    // The README's shape, `if i < n { out[i] = input[i] + 1 }`, with `n` below, at and past the
    // count: lanes that do not store keep the output's zero, so the row is stored lane by lane.
    for n in [41, 42, 43, 44] {
        let i = Expr::gid_x;
        let readme = Program::new(
            vec![
                BufferDecl::read("input", 0, DataType::U32).with_count(42),
                BufferDecl::output("out", 1, DataType::U32).with_count(42),
            ],
            [4, 1, 1],
            vec![Node::if_then(
                Expr::lt(i(), Expr::u32(n)),
                vec![Node::store(
                    "out",
                    i(),
                    Expr::add(Expr::load("input", i()), Expr::u32(1)),
                )],
            )],
        );
        for grid in [11, 12] {
            out.push(case(
                &format!("vector_readme_n{n}_grid{grid}"),
                readme.clone(),
                vec![words(42, 9)],
                [grid, 1, 1],
            ));
        }
    }
    // Runtime-sized buffers updated in place, with a scalar table loaded elsewhere, per-lane
    // builtins, and an output read back through a byte range that ends inside a row.
    let i = || Expr::var("i");
    let in_place = Program::new(
        vec![
            BufferDecl::read_write("x", 0, DataType::U32),
            BufferDecl::read("table", 1, DataType::U32).with_count(16),
            BufferDecl::output("ids", 2, DataType::U32)
                .with_count(50)
                .with_output_byte_range(12..190),
        ],
        [5, 1, 1],
        vec![
            Node::let_bind("i", Expr::gid_x()),
            Node::store(
                "x",
                i(),
                Expr::add(
                    Expr::mul(Expr::load("x", i()), Expr::u32(3)),
                    Expr::load("table", Expr::rem(i(), Expr::u32(16))),
                ),
            ),
            Node::if_then(
                Expr::lt(i(), Expr::buf_len("x")),
                vec![Node::store(
                    "ids",
                    i(),
                    Expr::add(
                        Expr::local_x(),
                        Expr::mul(Expr::workgroup_x(), Expr::u32(100)),
                    ),
                )],
            ),
        ],
    );
    for (len, grid) in [(45, 9), (45, 11), (47, 10), (48, 10), (3, 1)] {
        out.push(case(
            &format!("vector_in_place_len{len}_grid{grid}"),
            in_place.clone(),
            vec![words(len, 10), words(16, 11)],
            [grid, 1, 1],
        ));
    }
    // A two-dimensional grid runs the scalar module (the launch form is chosen per dispatch).
    out.push(case(
        "vector_axpy_2d_grid_scalar",
        axpy(DataType::U32, 64, 8),
        vec![words(64, 12), words(64, 13)],
        [4, 2, 1],
    ));
    // A grid wider than the device's 65535 workgroups per dimension runs the folded module.
    out.push(case(
        "vector_axpy_folded",
        axpy(DataType::U32, 70_000, 1),
        vec![words(70_000, 7), words(70_000, 8)],
        [70_001, 1, 1],
    ));
    out
}

/// Runs `case` as a batch of four items through `dispatch_batch` on both backends (the wgpu
/// backend coalesces them into one launch, packed where the program allows): `None` when they
/// agree. The items' inputs are the case's, each word mixed with the item's number, so that a write
/// into a neighbour's slice shows.
pub fn batch_disagreement(case: &Case, a: &dyn VyreBackend, b: &dyn VyreBackend) -> Option<String> {
    let items: Vec<Vec<Vec<u8>>> = (0..4u8)
        .map(|k| {
            case.inputs
                .iter()
                .map(|input| {
                    input
                        .iter()
                        .map(|byte| byte ^ k.wrapping_mul(0x5b))
                        .collect()
                })
                .collect()
        })
        .collect();
    let config = DispatchConfig::new().with_grid(case.grid);
    let left = a.dispatch_batch(&case.program, &items, &config);
    let right = b.dispatch_batch(&case.program, &items, &config);
    match (left, right) {
        (Ok(l), Ok(r)) if l == r => None,
        (l, r) => Some(format!("{} (batch): {l:?}\nagainst {r:?}", case.name)),
    }
}

/// Programs for coalesced and packed batches: stored buffers of different declared counts, an
/// input shorter than the output, and a runtime-sized output (where the packed module's bound on
/// `gid.x` does not apply). The planted `PackedBoundFromShortestStore` writes past the shorter
/// output into the next item's slice, where that item stores nothing.
pub fn batch_cases() -> Vec<Case> {
    let gid = Expr::gid_x;
    let two_outputs = Program::new(
        vec![
            BufferDecl::read("a", 0, DataType::U32).with_count(13),
            BufferDecl::output("short", 1, DataType::U32).with_count(5),
            BufferDecl::output("long", 2, DataType::U32).with_count(13),
        ],
        [64, 1, 1],
        vec![
            // Each item leaves the first three words of `short` zero, so a neighbour's write
            // there shows, whatever order the invocations store in.
            Node::if_then(
                Expr::ge(gid(), Expr::u32(3)),
                vec![Node::store(
                    "short",
                    gid(),
                    Expr::mul(Expr::load("a", gid()), Expr::u32(3)),
                )],
            ),
            Node::store(
                "long",
                gid(),
                Expr::add(Expr::load("a", gid()), Expr::u32(1)),
            ),
        ],
    );
    let short_input = Program::new(
        vec![
            BufferDecl::read("a", 0, DataType::U32).with_count(3),
            BufferDecl::output("out", 1, DataType::U32).with_count(8),
        ],
        [4, 1, 1],
        vec![Node::store(
            "out",
            gid(),
            Expr::add(Expr::load("a", gid()), gid()),
        )],
    );
    let runtime_output = Program::new(
        vec![
            BufferDecl::read("a", 0, DataType::U32).with_count(6),
            BufferDecl::read_write("out", 1, DataType::U32),
        ],
        [4, 1, 1],
        vec![Node::store(
            "out",
            gid(),
            Expr::add(Expr::load("out", gid()), Expr::load("a", gid())),
        )],
    );
    vec![
        case(
            "batch_two_outputs",
            two_outputs.clone(),
            vec![words(13, 7)],
            [1, 1, 1],
        ),
        case(
            "batch_two_outputs_grid_short",
            two_outputs,
            vec![words(13, 8)],
            [1, 1, 1],
        ),
        case(
            "batch_short_input",
            short_input.clone(),
            vec![words(3, 9)],
            [2, 1, 1],
        ),
        case(
            "batch_short_input_wide_grid",
            short_input,
            vec![words(3, 10)],
            [5, 1, 1],
        ),
        case(
            "batch_runtime_output",
            runtime_output,
            vec![words(6, 11), words(9, 12)],
            [3, 1, 1],
        ),
    ]
}

/// Every case.
pub fn cases() -> Vec<Case> {
    let mut all = guard_cases();
    all.extend(barrier_cases());
    all.extend(vector_cases());
    all.extend(row_cases());
    all.extend(workgroup_row_cases());
    all.extend(variable_cases());
    all.extend(workaround_cases());
    all
}

/// The shapes the driver workarounds rewrite (`vyre_driver_wgpu::workarounds`), at the values that
/// tell a wrong rewrite from a right one: integer `min`/`max` of mixed signs and widths, widenings
/// of negative values followed by shifts, and conversions to `f16` at rounding ties (both ways),
/// in the subnormal range and near the largest finite value.
fn workaround_cases() -> Vec<Case> {
    let signed: Vec<i32> = vec![i32::MIN, -7, -1, 0, 1, 7, i32::MAX, -2];
    let i32_bytes: Vec<u8> = signed.iter().flat_map(|v| v.to_le_bytes()).collect();
    let halves: Vec<f32> = vec![
        1.0 + f32::powi(2.0, -11),
        1.0 + 3.0 * f32::powi(2.0, -11),
        -(1.0 + 3.0 * f32::powi(2.0, -11)),
        3.0 * f32::powi(2.0, -25),
        f32::powi(2.0, -25),
        65519.0,
        2049.0,
        1.0 / 3.0,
    ];
    let f32_bytes: Vec<u8> = halves.iter().flat_map(|v| v.to_le_bytes()).collect();
    let text = |body: &str, input: &str, output: &str| -> Program {
        format!(
            "program @workgroup_size(8, 1, 1) {{\n  buffer a: read {input}[8] @binding(0);\n  buffer out: output {output}[8] @binding(1);\n  {body}\n}}"
        )
        .parse()
        .unwrap_or_else(|e| panic!("workaround case does not parse: {e}"))
    };
    vec![
        case(
            "workaround_min_max_i32_mixed_signs",
            text(
                "out[gid.x] = (min(a[gid.x], -(a[(7u - gid.x)])) ^ max(a[gid.x], 3i));",
                "i32",
                "i32",
            ),
            vec![i32_bytes.clone()],
            [1, 1, 1],
        ),
        case(
            "workaround_min_max_i64_mixed_signs",
            text(
                "out[gid.x] = max(min((i64(a[gid.x]) << 32u), -9223372036836883621i64), i64(a[(7u - gid.x)]));",
                "i32",
                "i64",
            ),
            vec![i32_bytes.clone()],
            [1, 1, 1],
        ),
        case(
            "workaround_widening_negative_then_shift",
            text(
                "out[gid.x] = ((u64(a[gid.x]) << 31u) ^ bitcast<u64>((i64(a[gid.x]) >> 1u)));",
                "i32",
                "u64",
            ),
            vec![i32_bytes],
            [1, 1, 1],
        ),
        case(
            "workaround_f16_rounding_ties",
            text("out[gid.x] = f32(f16(a[gid.x]));", "f32", "f32"),
            vec![f32_bytes],
            [1, 1, 1],
        ),
    ]
}

/// Variables: a `let` never assigned is an SSA value, an assigned one a local whose assignments in
/// branches and loop bodies are seen after them (the planted `AssignedLetAsValue` loses them).
fn variable_cases() -> Vec<Case> {
    let gid = Expr::gid_x;
    let program = Program::new(
        vec![
            BufferDecl::read_write("rw", 0, DataType::U32).with_count(8),
            BufferDecl::output("out", 1, DataType::U32).with_count(8),
        ],
        [8, 1, 1],
        vec![
            // A `let` of a load keeps the value it took, after the element changes.
            Node::let_bind("before", Expr::load("rw", gid())),
            Node::store("rw", gid(), Expr::add(Expr::var("before"), Expr::u32(100))),
            Node::let_bind("x", Expr::u32(0)),
            Node::if_then(
                Expr::eq(Expr::rem(gid(), Expr::u32(2)), Expr::u32(0)),
                vec![Node::assign("x", Expr::u32(7))],
            ),
            Node::let_bind("y", Expr::u32(1)),
            Node::loop_for(
                "k",
                Expr::u32(0),
                Expr::u32(3),
                vec![Node::assign(
                    "y",
                    Expr::add(Expr::mul(Expr::var("y"), Expr::u32(3)), Expr::var("k")),
                )],
            ),
            Node::store(
                "out",
                gid(),
                Expr::add(
                    Expr::add(Expr::var("x"), Expr::var("y")),
                    Expr::mul(Expr::var("before"), Expr::u32(1000)),
                ),
            ),
        ],
    );
    vec![case(
        "variables_assigned_in_branches_and_loops",
        program,
        vec![words(8, 4)],
        [1, 1, 1],
    )]
}

/// `data[b + c]`, weighted by lane, so a lane read from the wrong place shows.
fn weighted_row(buffer: &str, base: impl Fn() -> Expr) -> Expr {
    let lanes = [
        Expr::load(buffer, base()),
        Expr::load(buffer, Expr::add(base(), Expr::u32(1))),
        Expr::load(buffer, Expr::bit_or(base(), Expr::u32(2))),
        Expr::load(buffer, Expr::add(Expr::u32(3), base())),
    ];
    lanes
        .into_iter()
        .enumerate()
        .map(|(c, e)| Expr::mul(e, Expr::u32(1 + 2 * c as u32)))
        .reduce(Expr::add)
        .unwrap_or_else(|| Expr::u32(0))
}

/// Workgroup rows (`lower::rows`, "Workgroup rows"): workgroup buffers written and read four
/// elements at a time, through four aligned stores in a row (`t`, one quad store) and unaligned
/// ones (`s`, each invocation a column), read back at another invocation's row weighted by lane, with rows past the count
/// (which must read zero), in `u32` and `f32`.
fn workgroup_row_cases() -> Vec<Case> {
    let lid = Expr::local_x;
    let mut out = Vec::new();
    for ty in [DataType::U32, DataType::F32] {
        let element = |e: Expr| match ty {
            DataType::F32 => Expr::cast(DataType::F32, Expr::bit_and(e, Expr::u32(0xffff))),
            _ => e,
        };
        let weight = |e: Expr, c: u32| match ty {
            DataType::F32 => Expr::mul(e, Expr::f32((1 + 2 * c) as f32)),
            _ => Expr::mul(e, Expr::u32(1 + 2 * c)),
        };
        let row_sum = |buffer: &str, base: &dyn Fn() -> Expr| {
            (0..4u32)
                .map(|c| weight(Expr::load(buffer, Expr::add(base(), Expr::u32(c))), c))
                .reduce(Expr::add)
                .unwrap_or_else(|| Expr::u32(0))
        };
        let b = || Expr::var("b");
        let next = || {
            Expr::mul(
                Expr::rem(Expr::add(lid(), Expr::u32(1)), Expr::u32(64)),
                Expr::u32(4),
            )
        };
        let mut body = vec![Node::let_bind("b", Expr::mul(lid(), Expr::u32(4)))];
        let word = |c: u32| {
            Expr::load(
                "data",
                Expr::add(Expr::mul(Expr::gid_x(), Expr::u32(4)), Expr::u32(c)),
            )
        };
        // `t`'s four stores in a row: one quad store (`lower::rows`, "Quad stores").
        for c in 0..4u32 {
            body.push(Node::store(
                "t",
                Expr::add(b(), Expr::u32(c)),
                element(word(c)),
            ));
        }
        for c in 0..4u32 {
            body.push(Node::store(
                "s",
                Expr::add(Expr::mul(Expr::u32(c), Expr::u32(64)), lid()),
                element(Expr::bit_xor(word(c), Expr::u32(0x5a5a))),
            ));
        }
        body.push(Node::barrier());
        // Rows 2.. past the end for the last invocations: out of bounds, zero.
        let far = || Expr::add(Expr::var("b"), Expr::u32(8));
        body.push(Node::store(
            "out",
            Expr::gid_x(),
            Expr::add(
                Expr::add(row_sum("t", &next), row_sum("s", &next)),
                row_sum("t", &far),
            ),
        ));
        let program = Program::new(
            vec![
                BufferDecl::read("data", 0, DataType::U32),
                BufferDecl::output("out", 1, ty).with_count(128),
                BufferDecl::workgroup("t", 256, ty),
                BufferDecl::workgroup("s", 256, ty),
            ],
            [64, 1, 1],
            body,
        );
        out.push(case(
            &format!("workgroup_rows_{ty:?}"),
            program,
            vec![words(512, 11)],
            [2, 1, 1],
        ));
    }
    out
}

/// `f16` rows (`lower::rows`, 8-byte `vec4<f16>` rows): a read-only `f16` buffer read four
/// elements at a time at `4 * gid` (lengths that end inside a row, grids past the end: zeros), and
/// an `f16` workgroup buffer written and read four at a time, its last loads past its end. The
/// values are small integers, so every sum is exact in `f16`. Not in [`cases`]: they need a device
/// with `f16`.
pub fn f16_row_cases() -> Vec<Case> {
    use vyre_foundation::ir::f32_to_f16_bits;
    let halves = |n: u32, seed: u32| -> Vec<u8> {
        (0..n)
            .flat_map(|i| f32_to_f16_bits(((i * 7 + seed) % 16) as f32).to_le_bytes())
            .collect()
    };
    let weighted = |buffer: &str, base: &dyn Fn() -> Expr| {
        (0..4u32)
            .map(|c| {
                Expr::mul(
                    Expr::load(buffer, Expr::add(base(), Expr::u32(c))),
                    Expr::f16((1 + 2 * c) as f32),
                )
            })
            .reduce(Expr::add)
            .unwrap_or_else(|| Expr::f16(0.0))
    };
    let b = || Expr::var("b");
    let mut out = Vec::new();
    for (len, workgroup, grid) in [(253, 64, 1), (256, 64, 2), (3, 4, 1), (18, 2, 3)] {
        let program = Program::new(
            vec![
                BufferDecl::read("data", 0, DataType::F16),
                BufferDecl::output("out", 1, DataType::F16).with_count(workgroup * grid),
            ],
            [workgroup, 1, 1],
            vec![
                Node::let_bind("b", Expr::mul(Expr::gid_x(), Expr::u32(4))),
                Node::store("out", Expr::gid_x(), weighted("data", &b)),
            ],
        );
        out.push(case(
            &format!("rows_f16_len{len}_wg{workgroup}_grid{grid}"),
            program,
            vec![halves(len, 3)],
            [grid, 1, 1],
        ));
    }
    // A workgroup buffer: each invocation writes its four elements, then reads its neighbour's
    // four and four past its own (the last invocations' past the end: zeros).
    let lid = Expr::local_x;
    let next = || {
        Expr::mul(
            Expr::rem(Expr::add(lid(), Expr::u32(1)), Expr::u32(64)),
            Expr::u32(4),
        )
    };
    let far = || Expr::add(Expr::var("b"), Expr::u32(8));
    let mut body = vec![Node::let_bind("b", Expr::mul(lid(), Expr::u32(4)))];
    for c in 0..4u32 {
        let element = Expr::load(
            "data",
            Expr::add(Expr::mul(Expr::gid_x(), Expr::u32(4)), Expr::u32(c)),
        );
        body.push(Node::store("t", Expr::add(b(), Expr::u32(c)), element));
    }
    body.push(Node::barrier());
    body.push(Node::store(
        "out",
        Expr::gid_x(),
        Expr::add(weighted("t", &next), weighted("t", &far)),
    ));
    out.push(case(
        "workgroup_rows_f16",
        Program::new(
            vec![
                BufferDecl::read("data", 0, DataType::F16),
                BufferDecl::output("out", 1, DataType::F16).with_count(128),
                BufferDecl::workgroup("t", 256, DataType::F16),
            ],
            [64, 1, 1],
            body,
        ),
        vec![halves(512, 5)],
        [2, 1, 1],
    ));
    out
}

/// Row loads (`lower::rows`): read-only buffers read four elements at a time, with lengths that
/// end inside a row, grids past the end, `i32` and literal indices, a reassigned base variable
/// (each statement reads its own rows), bools, and rows inside a workgroup reduction.
fn row_cases() -> Vec<Case> {
    let mut out = Vec::new();
    let b = || Expr::var("b");
    for (len, workgroup, grid) in [(253, 64, 1), (256, 64, 2), (3, 4, 1), (1, 8, 1), (18, 2, 3)] {
        let program = Program::new(
            vec![
                BufferDecl::read("data", 0, DataType::U32),
                BufferDecl::output("out", 1, DataType::U32).with_count(workgroup * grid),
            ],
            [workgroup, 1, 1],
            vec![
                Node::let_bind("b", Expr::mul(Expr::gid_x(), Expr::u32(4))),
                Node::store("out", Expr::gid_x(), weighted_row("data", b)),
            ],
        );
        out.push(case(
            &format!("rows_sum4_len{len}_wg{workgroup}_grid{grid}"),
            program,
            vec![words(len, 3)],
            [grid, 1, 1],
        ));
    }
    // Fixed counts that end inside a row, i32 indices (a negative one is out of bounds), literal
    // indices past the count, and a bool buffer.
    let gid_i = || Expr::cast(DataType::I32, Expr::gid_x());
    let fixed = Program::new(
        vec![
            BufferDecl::read("f", 0, DataType::F32).with_count(10),
            BufferDecl::read("flags", 1, DataType::Bool).with_count(6),
            BufferDecl::output("out", 2, DataType::F32).with_count(4),
            BufferDecl::output("hits", 3, DataType::U32).with_count(4),
        ],
        [4, 1, 1],
        vec![
            Node::let_bind("i", Expr::mul(gid_i(), Expr::i32(4))),
            Node::store(
                "out",
                Expr::gid_x(),
                Expr::add(
                    Expr::add(
                        Expr::load("f", Expr::var("i")),
                        Expr::mul(
                            Expr::load("f", Expr::add(Expr::var("i"), Expr::i32(3))),
                            Expr::f32(0.5),
                        ),
                    ),
                    Expr::add(
                        Expr::load("f", Expr::u32(9)),
                        Expr::add(
                            Expr::load("f", Expr::u32(10)),
                            Expr::load("f", Expr::add(Expr::i32(-4), Expr::i32(1))),
                        ),
                    ),
                ),
            ),
            Node::store(
                "hits",
                Expr::gid_x(),
                Expr::add(
                    Expr::cast(
                        DataType::U32,
                        Expr::load("flags", Expr::shl(Expr::gid_x(), Expr::u32(2))),
                    ),
                    Expr::mul(
                        Expr::cast(
                            DataType::U32,
                            Expr::load(
                                "flags",
                                Expr::add(Expr::shl(Expr::gid_x(), Expr::u32(2)), Expr::u32(1)),
                            ),
                        ),
                        Expr::u32(2),
                    ),
                ),
            ),
        ],
    );
    let flags: Vec<u8> = [1u32, 0, 1, 1, 0, 1]
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .collect();
    out.push(case(
        "rows_fixed_i32_literal_bool",
        fixed,
        vec![floats(10, 5), flags],
        [1, 1, 1],
    ));
    // A base variable assigned between two statements: the second statement must read the row
    // at the new value, in straight-line code and across nested blocks.
    let i = || Expr::var("i");
    let at = |c: u32| Expr::add(Expr::mul(i(), Expr::u32(4)), Expr::u32(c));
    let reassigned = Program::new(
        vec![
            BufferDecl::read("data", 0, DataType::U32),
            BufferDecl::output("out", 1, DataType::U32).with_count(16),
        ],
        [16, 1, 1],
        vec![
            Node::let_bind("i", Expr::gid_x()),
            Node::let_bind("a", Expr::load("data", at(0))),
            Node::assign("i", Expr::add(i(), Expr::u32(1))),
            Node::let_bind(
                "c",
                Expr::add(
                    Expr::var("a"),
                    Expr::mul(Expr::load("data", at(1)), Expr::u32(3)),
                ),
            ),
            Node::if_then(
                Expr::lt(Expr::load("data", at(2)), Expr::u32(u32::MAX / 2)),
                vec![
                    Node::assign("i", Expr::add(i(), Expr::u32(2))),
                    Node::assign("c", Expr::add(Expr::var("c"), Expr::load("data", at(3)))),
                ],
            ),
            Node::store(
                "out",
                Expr::gid_x(),
                Expr::add(Expr::var("c"), Expr::load("data", at(2))),
            ),
        ],
    );
    out.push(case(
        "rows_reassigned_base",
        reassigned,
        vec![words(77, 9)],
        [1, 1, 1],
    ));
    // A grid-strided workgroup sum of four elements a trip, folded over workgroup memory.
    let wg = 8;
    let stride = || Expr::mul(Expr::num_workgroups_x(), Expr::u32(wg));
    let row = || Expr::var("r");
    let mut body = vec![
        Node::let_bind("acc", Expr::u32(0)),
        Node::loop_for(
            "k",
            Expr::u32(0),
            Expr::u32(3),
            vec![
                Node::let_bind(
                    "r",
                    Expr::mul(
                        Expr::add(Expr::mul(Expr::var("k"), stride()), Expr::gid_x()),
                        Expr::u32(4),
                    ),
                ),
                Node::assign(
                    "acc",
                    Expr::add(Expr::var("acc"), weighted_row("data", row)),
                ),
            ],
        ),
        Node::store("partial", Expr::local_x(), Expr::var("acc")),
        Node::barrier(),
    ];
    let mut half = wg / 2;
    while half > 0 {
        body.push(Node::if_then(
            Expr::lt(Expr::local_x(), Expr::u32(half)),
            vec![Node::store(
                "partial",
                Expr::local_x(),
                Expr::add(
                    Expr::load("partial", Expr::local_x()),
                    Expr::load("partial", Expr::add(Expr::local_x(), Expr::u32(half))),
                ),
            )],
        ));
        body.push(Node::barrier());
        half /= 2;
    }
    body.push(Node::if_then(
        Expr::eq(Expr::local_x(), Expr::u32(0)),
        vec![Node::store(
            "out",
            Expr::workgroup_x(),
            Expr::load("partial", Expr::u32(0)),
        )],
    ));
    let reduction = Program::new(
        vec![
            BufferDecl::read("data", 0, DataType::U32),
            BufferDecl::output("out", 1, DataType::U32).with_count(2),
            BufferDecl::workgroup("partial", wg, DataType::U32),
        ],
        [wg, 1, 1],
        body,
    );
    out.push(case(
        "rows_workgroup_sum",
        reduction,
        vec![words(181, 11)],
        [2, 1, 1],
    ));
    out
}
