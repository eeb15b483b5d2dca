//! `hgemm`: `C = A x B` with `A` and `B` in `f16` and `C` in `f32`, on tensor cores: vyre's matrix
//! tiles (`SEMANTICS.md` section 9a) against the same blocking written by hand in WGSL
//! cooperative matrices (issue 34), on the same buffers, in alternating batches of
//! GPU-timestamped dispatches.
//!
//! The blocking: one subgroup-sized workgroup (32 invocations) per 64x64 block of `C`, held as
//! 4x4 accumulator tiles of 16x16; for each step of 16 along `k` it loads four `A` tiles and four
//! `B` tiles straight from storage (row-major) and makes the 16 multiply-adds; the accumulators are
//! stored once at the end. Both sides run on the vyre backend's device (`Gpu::sharing`): the
//! bench's own device does not ask for wgpu's experimental cooperative matrices. The raw kernel
//! is compiled with wgpu's runtime checks (the "checked hand-written WGSL" of the goal);
//! vyre's module is the one `emit_launch` returns, compiled the same way, and once more as the
//! backend compiles it with trusted modules on (no runtime bounds checks, vyre's guards standing).
//!
//! Beside them, on devices whose subgroups are exactly 32 lanes, a raw kernel written as fast
//! kernels are ([`raw_wgsl_wide`]: four subgroups per workgroup, operands staged in 8-byte words,
//! two stages), in a row of its own against raw, with vyre's program of the same blocking; and the
//! best raw kernel found (`hgemm_tuning` kernel 3, [`QUAD`]: the same four subgroups with `k` 16,
//! rows padded by 8 and a `vec4<f16>` stage) against vyre's program of that blocking (kernel 1's,
//! which the lowering gives a `vec4<f16>` stage written by quad stores): the goals (vyre at 1.0 of
//! it, and at 250 TFLOP/s at 4096^3 on an H100 or H200) are measured against that kernel.
//!
//! The inputs are multiples of 1/16 in `[-1, 1]`, so every product and sum is exact in `f32` in
//! any order: both sides' `C` must equal the CPU's on 2048 sampled elements, exactly, before
//! anything is timed.

use vyre_foundation::ir::{
    BufferDecl, DataType, Expr, Node, Program, TileLayout, TileRole, TileShape, TileType,
    f16_bits_to_f32, f32_to_f16_bits,
};

use super::{RowBase, Suite};
use crate::gpu::{BenchResult, Gpu, Kernel};
use crate::measure;
use crate::report::{Goal, Measure, Stat};
use crate::vyre_wgpu::EmittedKernel;

mod kernels;
mod tuning;

use kernels::SIDE;
/// Tiles of `C` per workgroup along each axis.
const BLOCK: u32 = 4;
/// Elements of `C` per workgroup along each axis.
const SPAN: u32 = SIDE * BLOCK;
/// Invocations per workgroup: one subgroup on NVIDIA.
const WORKGROUP: u32 = 32;
/// The devices the absolute goal is for.
const GOAL_DEVICES: &[&str] = &["H100", "H200"];

/// The shapes `(m, n, k)` of a run.
fn shapes(quick: bool) -> Vec<(u32, u32, u32)> {
    if quick {
        vec![(256, 256, 256), (512, 512, 512)]
    } else {
        vec![(1024, 1024, 1024), (2048, 2048, 2048), (4096, 4096, 4096)]
    }
}

/// Input element `i` of a matrix salted with `salt`: a multiple of 1/16 in `[-1, 1]`.
pub(super) fn value(i: u64, salt: u64) -> f32 {
    ((i.wrapping_mul(37).wrapping_add(salt * 101) % 33) as f32 - 16.0) / 16.0
}

/// The 4x4 accumulator tiles `acc{i}{j}` of every raw kernel, zero at their declaration.
fn push_accumulators(s: &mut String) {
    for i in 0..BLOCK {
        for j in 0..BLOCK {
            s.push_str(&format!("    var acc{i}{j}: coop_mat16x16<f32, C>;\n"));
        }
    }
}

/// One step of every raw kernel: tiles `a{i}` and `b{j}` loaded at `coopLoadT`'s arguments
/// `a_at(i)` and `b_at(j)` (the element, then the stride), then the 16 multiply-adds.
fn push_step(s: &mut String, a_at: impl Fn(u32) -> String, b_at: impl Fn(u32) -> String) {
    for i in 0..BLOCK {
        s.push_str(&format!(
            "        let a{i} = coopLoadT<coop_mat16x16<f16, A>>(&{});\n",
            a_at(i)
        ));
    }
    for j in 0..BLOCK {
        s.push_str(&format!(
            "        let b{j} = coopLoadT<coop_mat16x16<f16, B>>(&{});\n",
            b_at(j)
        ));
    }
    for i in 0..BLOCK {
        for j in 0..BLOCK {
            s.push_str(&format!(
                "        acc{i}{j} = coopMultiplyAdd(a{i}, b{j}, acc{i}{j});\n"
            ));
        }
    }
}

/// The block of `C` stored by every raw kernel: tile `(i, j)` at row `row + 16 i` and column
/// `col + 16 j` (WGSL expressions) of the `n`-column `C`.
fn push_store(s: &mut String, row: &str, col: &str, n: u32) {
    for i in 0..BLOCK {
        for j in 0..BLOCK {
            s.push_str(&format!(
                "    coopStoreT(acc{i}{j}, &c[({row} + {}u) * {n}u + {col} + {}u], {n}u);\n",
                i * SIDE,
                j * SIDE
            ));
        }
    }
}

/// The hand-written kernel.
fn raw_wgsl(n: u32, k: u32) -> String {
    let mut s = String::new();
    s.push_str("enable f16;\nenable wgpu_cooperative_matrix;\n\n");
    s.push_str("@group(0) @binding(0) var<storage, read> a: array<f16>;\n");
    s.push_str("@group(0) @binding(1) var<storage, read> b: array<f16>;\n");
    s.push_str("@group(0) @binding(2) var<storage, read_write> c: array<f32>;\n\n");
    s.push_str(&format!("@compute @workgroup_size({WORKGROUP})\n"));
    s.push_str("fn main(@builtin(workgroup_id) wid: vec3<u32>) {\n");
    s.push_str(&format!(
        "    let row0 = wid.y * {SPAN}u;\n    let col0 = wid.x * {SPAN}u;\n"
    ));
    push_accumulators(&mut s);
    s.push_str(&format!(
        "    for (var kk = 0u; kk < {k}u; kk += {SIDE}u) {{\n"
    ));
    push_step(
        &mut s,
        |i| format!("a[(row0 + {}u) * {k}u + kk], {k}u", i * SIDE),
        |j| format!("b[kk * {n}u + col0 + {}u], {n}u", j * SIDE),
    );
    s.push_str("    }\n");
    push_store(&mut s, "row0", "col0", n);
    s.push_str("}\n");
    s
}

/// Elements of one staged operand block: 64x16 of `A`, 16x64 of `B`.
const STAGED: u32 = SPAN * SIDE;

/// The hand-written kernel staging each step's `A` and `B` blocks through workgroup memory: the
/// 32 invocations copy them element by element (each 32 of each), a barrier, the tiles load from
/// workgroup memory, a barrier before the next step overwrites it.
fn raw_wgsl_staged(n: u32, k: u32) -> String {
    let mut s = String::new();
    s.push_str("enable f16;\nenable wgpu_cooperative_matrix;\n\n");
    s.push_str("@group(0) @binding(0) var<storage, read> a: array<f16>;\n");
    s.push_str("@group(0) @binding(1) var<storage, read> b: array<f16>;\n");
    s.push_str("@group(0) @binding(2) var<storage, read_write> c: array<f32>;\n");
    s.push_str(&format!(
        "var<workgroup> sa: array<f16, {STAGED}>;\nvar<workgroup> sb: array<f16, {STAGED}>;\n\n"
    ));
    s.push_str(&format!("@compute @workgroup_size({WORKGROUP})\n"));
    s.push_str("fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {\n");
    s.push_str(&format!(
        "    let row0 = wid.y * {SPAN}u;\n    let col0 = wid.x * {SPAN}u;\n"
    ));
    push_accumulators(&mut s);
    s.push_str(&format!(
        "    for (var kk = 0u; kk < {k}u; kk += {SIDE}u) {{\n"
    ));
    s.push_str(&format!(
        "        for (var i = 0u; i < {}u; i++) {{\n            let e = lid + i * {WORKGROUP}u;\n",
        STAGED / WORKGROUP
    ));
    s.push_str(&format!(
        "            sa[e] = a[(row0 + e / {SIDE}u) * {k}u + kk + e % {SIDE}u];\n"
    ));
    s.push_str(&format!(
        "            sb[e] = b[(kk + e / {SPAN}u) * {n}u + col0 + e % {SPAN}u];\n        }}\n"
    ));
    s.push_str("        workgroupBarrier();\n");
    push_step(
        &mut s,
        |i| format!("sa[{}u], {SIDE}u", i * SIDE * SIDE),
        |j| format!("sb[{}u], {SPAN}u", j * SIDE),
    );
    s.push_str("        workgroupBarrier();\n    }\n");
    push_store(&mut s, "row0", "col0", n);
    s.push_str("}\n");
    s
}

/// The name of [`raw_wgsl_wide`]'s side.
const WIDE: &str = "raw, four subgroups";
/// The names of [`program_wide`]'s sides, checked and trusted.
const WIDE_VYRE: &str = "vyre, four subgroups";
const WIDE_VYRE_TRUSTED: &str = "vyre, four subgroups, trusted module";
/// The best raw kernel found (`hgemm_tuning` kernel 3: four subgroups of 64x64, `k` 16, rows padded
/// by 8, a `vec4<f16>` stage), the baseline of the goals.
const QUAD: &str = "raw, quad stage";
/// The same blocking through vyre's IR (`hgemm_tuning` kernel 1's program, whose stage the
/// lowering declares as `vec4<f16>` rows written by quad stores).
const QUAD_VYRE: &str = "vyre, quad stage";
const QUAD_VYRE_TRUSTED: &str = "vyre, quad stage, trusted module";
/// The `hgemm_tuning` kernels of [`QUAD`] (raw) and [`QUAD_VYRE`] (vyre).
const QUAD_TUNINGS: (usize, usize) = (3, 1);
/// Invocations per workgroup of [`raw_wgsl_wide`]: four subgroups of 32.
const WIDE_WORKGROUP: u32 = 128;
/// Elements of `C` per workgroup of [`raw_wgsl_wide`] along each axis: 2x2 subgroup blocks.
const WIDE_SPAN: u32 = 2 * SPAN;
/// Elements of one stage of one operand in [`raw_wgsl_wide`]: 128x16 of `A`, 16x128 of `B`.
const WIDE_STAGE: u32 = WIDE_SPAN * SIDE;

/// The hand-written kernel as fast kernels are written, which vyre's workgroup-uniform tiles
/// cannot express yet: four subgroups per workgroup, each with its own 64x64 block of a 128x128
/// block of `C` (the same 4x4 accumulators as the other kernels); `A` and `B` read as 8-byte
/// words (`array<vec4<f16>>` views of the same buffers: naga 30 has no `bitcast<vec2<f16>>`, and
/// `unpack2x16float` needs a capability wgpu does not always grant) into workgroup memory in two
/// stages: step `t + 1`'s words are loaded into registers before step `t`'s multiply-adds and
/// stored into the other stage after them, one barrier a step. Needs subgroups of exactly 32
/// lanes, `m` and `n` multiples of 128 and `k` of 16.
fn raw_wgsl_wide(n: u32, k: u32) -> String {
    let steps = k / SIDE;
    // 8-byte words per row of `A` and of `B`, and per row of a `B` stage.
    let (ka, nb, sb_row) = (k / 4, n / 4, WIDE_SPAN / 4);
    let mut s = String::new();
    s.push_str("enable f16;\nenable wgpu_cooperative_matrix;\n\n");
    s.push_str("@group(0) @binding(0) var<storage, read> a: array<vec4<f16>>;\n");
    s.push_str("@group(0) @binding(1) var<storage, read> b: array<vec4<f16>>;\n");
    s.push_str("@group(0) @binding(2) var<storage, read_write> c: array<f32>;\n");
    s.push_str(&format!(
        "var<workgroup> sa: array<f16, {}>;\nvar<workgroup> sb: array<f16, {}>;\n\n",
        2 * WIDE_STAGE,
        2 * WIDE_STAGE
    ));
    s.push_str(&format!("@compute @workgroup_size({WIDE_WORKGROUP})\n"));
    s.push_str("fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {\n");
    s.push_str(&format!(
        "    let row0 = wid.y * {WIDE_SPAN}u;\n    let col0 = wid.x * {WIDE_SPAN}u;\n"
    ));
    // The subgroup's block inside the workgroup's.
    s.push_str(&format!(
        "    let sg = lid / 32u;\n    let rs = (sg / 2u) * {SPAN}u;\n    let cs = (sg % 2u) * {SPAN}u;\n"
    ));
    // Each invocation copies one row of the `A` stage (four words) and four consecutive words
    // of the `B` stage (`sb_row` words a row).
    s.push_str(&format!(
        "    let ra = (row0 + lid) * {ka}u;\n    let q = lid * 4u;\n    let rb = (q / {sb_row}u) * {nb}u + col0 / 4u + q % {sb_row}u;\n    let sbq = (q / {sb_row}u) * {WIDE_SPAN}u + (q % {sb_row}u) * 4u;\n"
    ));
    push_accumulators(&mut s);
    for w in 0..4 {
        s.push_str(&format!(
            "    var wa{w}: vec4<f16>;\n    var wb{w}: vec4<f16>;\n"
        ));
    }
    // Loads of step `t` (an expression) into the registers.
    let load = |t: &str| {
        let mut out = String::new();
        for w in 0..4 {
            out.push_str(&format!(
                "        wa{w} = a[ra + {t} * 4u + {w}u];\n        wb{w} = b[rb + {t} * {} + {w}u];\n",
                format_args!("{}u", SIDE * nb)
            ));
        }
        out
    };
    // Stores of the registers into the stage starting at element `base` (an expression).
    let store = |base: &str| {
        let mut out = String::new();
        for w in 0..4 {
            for lane in 0..4 {
                out.push_str(&format!(
                    "        sa[{base} + lid * 16u + {}u] = wa{w}[{lane}];\n        sb[{base} + sbq + {}u] = wb{w}[{lane}];\n",
                    4 * w + lane,
                    4 * w + lane
                ));
            }
        }
        out
    };
    s.push_str(&load("0u"));
    s.push_str(&store("0u"));
    s.push_str("    workgroupBarrier();\n");
    s.push_str(&format!("    for (var t = 0u; t < {steps}u; t++) {{\n"));
    s.push_str(&format!(
        "        let cur = (t % 2u) * {WIDE_STAGE}u;\n        let nxt = {WIDE_STAGE}u - cur;\n        let more = t + 1u < {steps}u;\n"
    ));
    s.push_str("        if (more) {\n");
    s.push_str(&load("(t + 1u)"));
    s.push_str("        }\n");
    push_step(
        &mut s,
        |i| format!("sa[cur + (rs + {}u) * {SIDE}u], {SIDE}u", i * SIDE),
        |j| format!("sb[cur + cs + {}u], {WIDE_SPAN}u", j * SIDE),
    );
    s.push_str("        if (more) {\n");
    s.push_str(&store("nxt"));
    s.push_str("        }\n        workgroupBarrier();\n    }\n");
    push_store(&mut s, "row0 + rs", "col0 + cs", n);
    s.push_str("}\n");
    s
}

/// The tiles of every vyre program: for each `i`, the operands `ta{i}` and `tb{i}` (when
/// `operands`), then the accumulators `acc{i}{j}` (when `accumulators`).
fn declare_tiles(operands: bool, accumulators: bool) -> Vec<Node> {
    let tile = |role, element| TileType::new(role, SIDE, SIDE, element);
    let mut out = Vec::new();
    for i in 0..BLOCK {
        if operands {
            out.push(Node::tile(
                format!("ta{i}"),
                tile(TileRole::A, DataType::F16),
            ));
            out.push(Node::tile(
                format!("tb{i}"),
                tile(TileRole::B, DataType::F16),
            ));
        }
        if accumulators {
            for j in 0..BLOCK {
                out.push(Node::tile(
                    format!("acc{i}{j}"),
                    tile(TileRole::Accumulator, DataType::F32),
                ));
            }
        }
    }
    out
}

/// One step's 16 multiply-adds `acc{i}{j} += ta{i} x tb{j}` of every vyre program.
fn multiply_adds() -> Vec<Node> {
    let mut out = Vec::new();
    for i in 0..BLOCK {
        for j in 0..BLOCK {
            let acc = format!("acc{i}{j}");
            out.push(Node::tile_multiply_add(
                acc.as_str(),
                format!("ta{i}"),
                format!("tb{j}"),
                acc.as_str(),
            ));
        }
    }
    out
}

/// The block of `C` stored by every vyre program: `acc{i}{j}` at element `at(i, j)` of the
/// `n`-column `C`.
fn store_c(n: u32, at: impl Fn(u32, u32) -> Expr) -> Vec<Node> {
    let mut out = Vec::new();
    for i in 0..BLOCK {
        for j in 0..BLOCK {
            out.push(Node::tile_store(
                format!("acc{i}{j}"),
                "c",
                at(i, j),
                Expr::u32(n),
                TileLayout::RowMajor,
            ));
        }
    }
    out
}

/// [`raw_wgsl_staged`] through vyre's IR (the copies unrolled: 32 statements of each operand).
fn program_staged(m: u32, n: u32, k: u32) -> Program {
    let row0 = || Expr::mul(Expr::workgroup_y(), Expr::u32(SPAN));
    let col0 = || Expr::mul(Expr::workgroup_x(), Expr::u32(SPAN));
    let kk = || Expr::mul(Expr::var("s"), Expr::u32(SIDE));
    let mut body = vec![Node::let_bind("lid", Expr::local_x())];
    body.extend(declare_tiles(true, true));
    let mut inner = Vec::new();
    for i in 0..STAGED / WORKGROUP {
        let e = || Expr::add(Expr::var("lid"), Expr::u32(i * WORKGROUP));
        let from_a = Expr::add(
            Expr::mul(
                Expr::add(row0(), Expr::div(e(), Expr::u32(SIDE))),
                Expr::u32(k),
            ),
            Expr::add(kk(), Expr::rem(e(), Expr::u32(SIDE))),
        );
        let from_b = Expr::add(
            Expr::mul(
                Expr::add(kk(), Expr::div(e(), Expr::u32(SPAN))),
                Expr::u32(n),
            ),
            Expr::add(col0(), Expr::rem(e(), Expr::u32(SPAN))),
        );
        inner.push(Node::store("sa", e(), Expr::load("a", from_a)));
        inner.push(Node::store("sb", e(), Expr::load("b", from_b)));
    }
    inner.push(Node::Barrier);
    for i in 0..BLOCK {
        inner.push(Node::tile_load(
            format!("ta{i}"),
            "sa",
            Expr::u32(i * SIDE * SIDE),
            Expr::u32(SIDE),
            TileLayout::RowMajor,
        ));
        inner.push(Node::tile_load(
            format!("tb{i}"),
            "sb",
            Expr::u32(i * SIDE),
            Expr::u32(SPAN),
            TileLayout::RowMajor,
        ));
    }
    inner.extend(multiply_adds());
    inner.push(Node::Barrier);
    body.push(Node::loop_for(
        "s",
        Expr::u32(0),
        Expr::u32(k / SIDE),
        inner,
    ));
    body.extend(store_c(n, |i, j| {
        Expr::add(
            Expr::mul(Expr::add(row0(), Expr::u32(i * SIDE)), Expr::u32(n)),
            Expr::add(col0(), Expr::u32(j * SIDE)),
        )
    }));
    Program::new(
        vec![
            BufferDecl::read("a", 0, DataType::F16).with_count(m * k),
            BufferDecl::read("b", 1, DataType::F16).with_count(k * n),
            BufferDecl::output("c", 2, DataType::F32).with_count(m * n),
            BufferDecl::workgroup("sa", STAGED, DataType::F16),
            BufferDecl::workgroup("sb", STAGED, DataType::F16),
        ],
        [WORKGROUP, 1, 1],
        body,
    )
}

/// The same blocking through vyre's IR.
/// [`raw_wgsl_wide`] through vyre's IR: each subgroup `sg = lid.x / subgroup_size()` its own
/// 64x64 block (its tiles' offsets subgroup-uniform, SEMANTICS.md 9a), the stages copied an
/// element at a time (vyre has no vector type; 16 loads of each operand per invocation and step,
/// at `base + e` so that `A` and `B` are read as `vec4<f16>` rows),
/// two stages: step `t + 1`'s elements are loaded into `let`s before step `t`'s multiply-adds and
/// stored into the other stage after them. The last step's loads read past its operands (zeros
/// out of bounds, by the law) into a stage no step reads.
fn program_wide(m: u32, n: u32, k: u32) -> Program {
    let u = Expr::u32;
    let v = |name: &str| Expr::var(name);
    let mut body = vec![
        Node::let_bind("lid", Expr::local_x()),
        Node::let_bind("row0", Expr::mul(Expr::workgroup_y(), u(WIDE_SPAN))),
        Node::let_bind("col0", Expr::mul(Expr::workgroup_x(), u(WIDE_SPAN))),
        Node::let_bind("sg", Expr::div(Expr::local_x(), Expr::subgroup_size())),
        Node::let_bind("rs", Expr::mul(Expr::div(v("sg"), u(2)), u(SPAN))),
        Node::let_bind("cs", Expr::mul(Expr::rem(v("sg"), u(2)), u(SPAN))),
        // The invocation's row of the `A` stage and its 16 consecutive elements of the `B` stage.
        Node::let_bind("ra", Expr::mul(Expr::add(v("row0"), v("lid")), u(k))),
        Node::let_bind(
            "rb",
            Expr::add(
                Expr::mul(Expr::div(v("lid"), u(8)), u(n)),
                Expr::add(v("col0"), Expr::mul(Expr::rem(v("lid"), u(8)), u(16))),
            ),
        ),
        Node::let_bind("own", Expr::mul(v("lid"), u(16))),
    ];
    body.extend(declare_tiles(false, true));
    // Step `t`'s elements into `let`s `xa{e}`, `xb{e}` (`suffix` keeps the names apart).
    let load = |t: Expr, suffix: &str| -> Vec<Node> {
        let mut out = Vec::new();
        for e in 0..16u32 {
            out.push(Node::let_bind(
                format!("xa{e}{suffix}"),
                Expr::load(
                    "a",
                    Expr::add(Expr::add(v("ra"), Expr::mul(t.clone(), u(SIDE))), u(e)),
                ),
            ));
            out.push(Node::let_bind(
                format!("xb{e}{suffix}"),
                Expr::load(
                    "b",
                    Expr::add(Expr::add(v("rb"), Expr::mul(t.clone(), u(SIDE * n))), u(e)),
                ),
            ));
        }
        out
    };
    // The `let`s into the stage starting at `base`.
    let store = |base: Expr, suffix: &str| -> Vec<Node> {
        let mut out = Vec::new();
        for e in 0..16u32 {
            let at = Expr::add(base.clone(), Expr::add(v("own"), u(e)));
            out.push(Node::store("sa", at.clone(), v(&format!("xa{e}{suffix}"))));
            out.push(Node::store("sb", at, v(&format!("xb{e}{suffix}"))));
        }
        out
    };
    body.extend(load(u(0), "p"));
    body.extend(store(u(0), "p"));
    body.push(Node::Barrier);
    let mut inner = vec![
        Node::let_bind("cur", Expr::mul(Expr::rem(v("t"), u(2)), u(WIDE_STAGE))),
        Node::let_bind("nxt", Expr::sub(u(WIDE_STAGE), v("cur"))),
    ];
    inner.extend(load(Expr::add(v("t"), u(1)), ""));
    inner.extend(declare_tiles(true, false));
    for i in 0..BLOCK {
        inner.push(Node::tile_load(
            format!("ta{i}"),
            "sa",
            Expr::add(
                v("cur"),
                Expr::mul(Expr::add(v("rs"), u(i * SIDE)), u(SIDE)),
            ),
            u(SIDE),
            TileLayout::RowMajor,
        ));
        inner.push(Node::tile_load(
            format!("tb{i}"),
            "sb",
            Expr::add(v("cur"), Expr::add(v("cs"), u(i * SIDE))),
            u(WIDE_SPAN),
            TileLayout::RowMajor,
        ));
    }
    inner.extend(multiply_adds());
    inner.extend(store(v("nxt"), ""));
    inner.push(Node::Barrier);
    body.push(Node::loop_for("t", u(0), u(k / SIDE), inner));
    body.extend(store_c(n, |i, j| {
        Expr::add(
            Expr::mul(Expr::add(v("row0"), Expr::add(v("rs"), u(i * SIDE))), u(n)),
            Expr::add(v("col0"), Expr::add(v("cs"), u(j * SIDE))),
        )
    }));
    Program::new(
        vec![
            BufferDecl::read("a", 0, DataType::F16).with_count(m * k),
            BufferDecl::read("b", 1, DataType::F16).with_count(k * n),
            BufferDecl::output("c", 2, DataType::F32).with_count(m * n),
            BufferDecl::workgroup("sa", 2 * WIDE_STAGE, DataType::F16),
            BufferDecl::workgroup("sb", 2 * WIDE_STAGE, DataType::F16),
        ],
        [WIDE_WORKGROUP, 1, 1],
        body,
    )
}

/// One element count per buffer of `program`, workgroup buffers included, as `emit_launch` takes
/// them: the declared counts (every buffer here is bound with exactly its declared count).
fn counts(program: &Program) -> Vec<u32> {
    program.buffers.iter().map(|b| b.count).collect()
}

fn program(m: u32, n: u32, k: u32) -> Program {
    let row0 = || Expr::mul(Expr::workgroup_y(), Expr::u32(SPAN));
    let col0 = || Expr::mul(Expr::workgroup_x(), Expr::u32(SPAN));
    let step = || Expr::mul(Expr::var("s"), Expr::u32(SIDE));
    let mut body = Vec::new();
    body.extend(declare_tiles(true, true));
    let mut inner = Vec::new();
    for i in 0..BLOCK {
        let row = Expr::add(row0(), Expr::u32(i * SIDE));
        inner.push(Node::tile_load(
            format!("ta{i}"),
            "a",
            Expr::add(Expr::mul(row, Expr::u32(k)), step()),
            Expr::u32(k),
            TileLayout::RowMajor,
        ));
    }
    for j in 0..BLOCK {
        inner.push(Node::tile_load(
            format!("tb{j}"),
            "b",
            Expr::add(
                Expr::mul(step(), Expr::u32(n)),
                Expr::add(col0(), Expr::u32(j * SIDE)),
            ),
            Expr::u32(n),
            TileLayout::RowMajor,
        ));
    }
    inner.extend(multiply_adds());
    body.push(Node::loop_for(
        "s",
        Expr::u32(0),
        Expr::u32(k / SIDE),
        inner,
    ));
    body.extend(store_c(n, |i, j| {
        Expr::add(
            Expr::mul(Expr::add(row0(), Expr::u32(i * SIDE)), Expr::u32(n)),
            Expr::add(col0(), Expr::u32(j * SIDE)),
        )
    }));
    Program::new(
        vec![
            BufferDecl::read("a", 0, DataType::F16).with_count(m * k),
            BufferDecl::read("b", 1, DataType::F16).with_count(k * n),
            BufferDecl::output("c", 2, DataType::F32).with_count(m * n),
        ],
        [WORKGROUP, 1, 1],
        body,
    )
}

/// One timed kernel: hand-written WGSL or a vyre program as the backend lowers it.
enum Side {
    Raw {
        kernel: Kernel,
        group: wgpu::BindGroup,
        grid: [u32; 3],
    },
    Vyre(EmittedKernel),
}

impl Side {
    /// Records the side's dispatches into `encoder`.
    fn encode(&self, encoder: &mut wgpu::CommandEncoder) {
        match self {
            Side::Raw {
                kernel,
                group,
                grid,
            } => Gpu::record(encoder, kernel, group, *grid),
            Side::Vyre(emitted) => emitted.encode(encoder),
        }
    }
}

/// The operands of one shape `m x n x k`: `A` and `B` on the host (f16 bits, [`value`]s salted 1
/// and 2) and on the device, `C`, and `C`'s read-back buffer.
struct Operands {
    m: u32,
    n: u32,
    k: u32,
    a: Vec<u16>,
    b: Vec<u16>,
    /// `A`, `B` and `C`, bound at 0, 1 and 2.
    buffers: [wgpu::Buffer; 3],
    staging: wgpu::Buffer,
}

impl Operands {
    fn new(gpu: &Gpu, label: &str, (m, n, k): (u32, u32, u32)) -> Self {
        let (mk, kn, mn) = (
            u64::from(m) * u64::from(k),
            u64::from(k) * u64::from(n),
            u64::from(m) * u64::from(n),
        );
        let a: Vec<u16> = (0..mk).map(|i| f32_to_f16_bits(value(i, 1))).collect();
        let b: Vec<u16> = (0..kn).map(|i| f32_to_f16_bits(value(i, 2))).collect();
        let halves = |v: &[u16]| v.iter().flat_map(|h| h.to_le_bytes()).collect::<Vec<u8>>();
        let buffers = [
            gpu.storage(&format!("{label} a"), mk * 2),
            gpu.storage(&format!("{label} b"), kn * 2),
            gpu.storage(&format!("{label} c"), mn * 4),
        ];
        gpu.queue.write_buffer(&buffers[0], 0, &halves(&a));
        gpu.queue.write_buffer(&buffers[1], 0, &halves(&b));
        let staging = gpu.staging(&format!("{label} c read-back"), mn * 4);
        Self {
            m,
            n,
            k,
            a,
            b,
            buffers,
            staging,
        }
    }

    /// The buffers in binding order.
    fn bound(&self) -> [&wgpu::Buffer; 3] {
        let [a, b, c] = &self.buffers;
        [a, b, c]
    }

    /// A side running the hand-written kernel `text` over `grid`, bound to the operands.
    fn raw(&self, gpu: &Gpu, label: &str, text: &str, grid: [u32; 3]) -> BenchResult<Side> {
        let kernel = gpu.kernel(label, text)?;
        let group = gpu.bind(&kernel, &self.bound());
        Ok(Side::Raw {
            kernel,
            group,
            grid,
        })
    }

    /// A side running vyre's `program` over `grid`, bound to the operands: its module as
    /// `emit_launch` lowers it, compiled with wgpu's runtime checks, or (`trusted`) as the backend
    /// compiles it with trusted modules on.
    fn vyre(
        &self,
        gpu: &Gpu,
        program: &Program,
        grid: [u32; 3],
        trusted: bool,
    ) -> BenchResult<Side> {
        let (buffers, counts) = (self.bound(), counts(program));
        if trusted {
            EmittedKernel::trusted(gpu, program, &buffers, grid, &counts)
        } else {
            EmittedKernel::new(gpu, program, &buffers, grid, &counts)
        }
        .map(Side::Vyre)
    }

    /// Floating-point operations of one product.
    fn flops(&self) -> u64 {
        2 * u64::from(self.m) * u64::from(self.n) * u64::from(self.k)
    }

    /// Runs `side` once on a cleared `C` and checks 2048 sampled elements exactly against the
    /// CPU's: the first wrong one, described, or `None`.
    fn first_wrong(&self, gpu: &Gpu, side: &Side) -> BenchResult<Option<String>> {
        let (m, n, k) = (u64::from(self.m), u64::from(self.n), u64::from(self.k));
        let c = &self.buffers[2];
        let mut encoder = gpu.device.create_command_encoder(&Default::default());
        encoder.clear_buffer(c, 0, None);
        side.encode(&mut encoder);
        encoder.copy_buffer_to_buffer(c, 0, &self.staging, 0, m * n * 4);
        gpu.queue.submit([encoder.finish()]);
        let mut got = Vec::new();
        gpu.read_back(&self.staging, m * n * 4, &mut got)?;
        Ok((0..2048u64).find_map(|t| {
            let (i, j) = ((t * 7919) % m, (t * 104_729) % n);
            let expected: f64 = (0..k)
                .map(|l| {
                    f64::from(f16_bits_to_f32(self.a[(i * k + l) as usize]))
                        * f64::from(f16_bits_to_f32(self.b[(l * n + j) as usize]))
                })
                .sum();
            let at = ((i * n + j) * 4) as usize;
            let word = got
                .get(at..at + 4)
                .map(|w| f32::from_le_bytes([w[0], w[1], w[2], w[3]]));
            (word != Some(expected as f32))
                .then(|| format!("C[{i}, {j}] is {word:?}, the CPU's is {expected}"))
        }))
    }

    /// Device times of every side, in alternating batches (fewer repetitions for the largest
    /// shapes).
    fn time<'s>(
        &self,
        gpu: &Gpu,
        options: &crate::Options,
        sides: impl Iterator<Item = &'s Side>,
    ) -> BenchResult<Vec<Option<Vec<f64>>>> {
        let reps = if self.flops() > 1 << 35 {
            (options.reps / 3).max(5)
        } else {
            options.reps
        };
        let spin = options.spin.min(0.1);
        let mut batches: Vec<_> = sides
            .map(|side| {
                move |count: usize| match side {
                    Side::Raw {
                        kernel,
                        group,
                        grid,
                    } => {
                        gpu.spin_up(kernel, group, *grid, spin)?;
                        gpu.device_times(kernel, group, *grid, count)
                    }
                    Side::Vyre(emitted) => emitted.device_times(gpu, count, spin),
                }
            })
            .collect();
        let mut refs: Vec<measure::Batch<'_>> = batches
            .iter_mut()
            .map(|b| b as measure::Batch<'_>)
            .collect();
        measure::interleave_batches(reps, 2, &mut refs)
    }
}

impl Suite<'_> {
    /// The device the f16 GEMMs run on, shared with the vyre backend (whose device asks for
    /// cooperative matrices), and its subgroup sizes; `None` (with a note) where there is no wgpu
    /// backend, no 16x16x16 f16 -> f32 tiles, or subgroups that `lanes` (said as `lanes_are`)
    /// refuses.
    fn tensor_cores(
        &mut self,
        workload: &str,
        lanes: impl Fn([u32; 2]) -> bool,
        lanes_are: &str,
    ) -> BenchResult<Option<(Gpu, [u32; 2])>> {
        let Some(wgpu) = self.wgpu else {
            self.notes
                .push(format!("{workload}: skipped, no vyre wgpu backend"));
            return Ok(None);
        };
        let shape = TileShape {
            m: SIDE,
            n: SIDE,
            k: SIDE,
            input: DataType::F16,
            accumulator: DataType::F32,
        };
        let caps = vyre_driver::VyreBackend::capabilities(wgpu);
        if !caps.matrix_tiles.contains(&shape) || !lanes(caps.subgroup_sizes) {
            self.notes.push(format!(
                "{workload}: skipped, {} has no {shape} matrix tiles in subgroups of {lanes_are} lanes",
                caps.device_name
            ));
            return Ok(None);
        }
        Ok(Some((Gpu::sharing(wgpu)?, caps.subgroup_sizes)))
    }

    /// The `hgemm` workload (see the module docs).
    pub(in crate::suite) fn hgemm(&mut self) -> BenchResult<()> {
        let at_most = format!("at most {WORKGROUP}");
        let Some((gpu, subgroups)) =
            self.tensor_cores("hgemm", |sizes| sizes[1] <= WORKGROUP, &at_most)?
        else {
            return Ok(());
        };
        if !self.options.hgemm_wgsl.is_empty() {
            return self.hgemm_files(&gpu);
        }
        for (m, n, k) in shapes(self.options.quick) {
            self.hgemm_case(&gpu, subgroups, m, n, k)?;
        }
        Ok(())
    }

    /// `--hgemm-wgsl`: the files' kernels at 4096^3 (128x128 blocks), each against the first.
    fn hgemm_files(&mut self, gpu: &Gpu) -> BenchResult<()> {
        let (m, n, k) = (4096, 4096, 4096);
        let operands = Operands::new(gpu, "hgemm files", (m, n, k));
        let grid = [n / WIDE_SPAN, m / WIDE_SPAN, 1];
        let mut sides = Vec::new();
        for file in &self.options.hgemm_wgsl {
            let name = file.display().to_string();
            let text = std::fs::read_to_string(file).map_err(|e| {
                format!("could not read {name} ({e}). Fix: pass readable WGSL files.")
            })?;
            let side = operands.raw(gpu, &name, &text, grid)?;
            if let Some(wrong) = operands.first_wrong(gpu, &side)? {
                return Err(format!(
                    "hgemm file {name}: {wrong}. Fix: the kernel does not compute C; compare it with the first file."
                ));
            }
            sides.push((name, side));
        }
        let samples = operands.time(gpu, self.options, sides.iter().map(|(_, side)| side))?;
        let measure = Measure::Flops {
            flops: operands.flops(),
        };
        let first = samples.first().and_then(|s| s.as_deref());
        for ((name, _), times) in sides.iter().zip(&samples) {
            let base = RowBase {
                workload: "hgemm",
                case: format!("{m}x{n}x{k} f16 -> f32, {name}"),
                baseline_name: "the first file",
            };
            self.rows.push(base.row(
                "device time, --hgemm-wgsl",
                measure,
                Stat::P50,
                (times.as_deref(), first),
                None,
            ));
        }
        Ok(())
    }

    fn hgemm_case(
        &mut self,
        gpu: &Gpu,
        caps_subgroups: [u32; 2],
        m: u32,
        n: u32,
        k: u32,
    ) -> BenchResult<()> {
        let operands = Operands::new(gpu, "hgemm", (m, n, k));
        let grid = [n / SPAN, m / SPAN, 1];
        let raw = |label: &str, text: &str| operands.raw(gpu, label, text, grid);
        let checked = |p: &Program| operands.vyre(gpu, p, grid, false);
        let trusted = |p: &Program| operands.vyre(gpu, p, grid, true);
        let (direct, staged) = (program(m, n, k), program_staged(m, n, k));
        let sides = [
            ("raw", raw("raw hgemm", &raw_wgsl(n, k))?),
            ("vyre", checked(&direct)?),
            ("vyre, trusted module", trusted(&direct)?),
            (
                "raw, staged",
                raw("raw hgemm, staged", &raw_wgsl_staged(n, k))?,
            ),
            ("vyre, staged", checked(&staged)?),
            ("vyre, staged, trusted module", trusted(&staged)?),
        ];
        // The four-subgroup kernels where the device's subgroups are exactly 32 lanes.
        let mut sides: Vec<(&str, Side)> = sides.into_iter().collect();
        if caps_subgroups == [32, 32] && m.is_multiple_of(WIDE_SPAN) && n.is_multiple_of(WIDE_SPAN)
        {
            let wide_grid = [n / WIDE_SPAN, m / WIDE_SPAN, 1];
            let wide = program_wide(m, n, k);
            let text = raw_wgsl_wide(n, k);
            sides.push((
                WIDE,
                operands.raw(gpu, "raw hgemm, four subgroups", &text, wide_grid)?,
            ));
            sides.push((WIDE_VYRE, operands.vyre(gpu, &wide, wide_grid, false)?));
            sides.push((
                WIDE_VYRE_TRUSTED,
                operands.vyre(gpu, &wide, wide_grid, true)?,
            ));
        }
        // The best raw kernel and vyre's program of the same blocking, under the same conditions.
        let (raw_tuning, vyre_tuning) = (
            &kernels::TUNINGS[QUAD_TUNINGS.0],
            &kernels::TUNINGS[QUAD_TUNINGS.1],
        );
        let room = gpu.device.limits().max_compute_workgroup_storage_size;
        if caps_subgroups == [32, 32]
            && raw_tuning.fits(m, n, k)
            && raw_tuning.workgroup_bytes() <= room
            && let Some(quad) = kernels::tuned_program(vyre_tuning, m, n, k)
        {
            let [bm, bn] = raw_tuning.block();
            let quad_grid = [n / bn, m / bm, 1];
            let text = kernels::tuned_wgsl(raw_tuning, n, k);
            sides.push((
                QUAD,
                operands.raw(gpu, "raw hgemm, quad stage", &text, quad_grid)?,
            ));
            sides.push((QUAD_VYRE, operands.vyre(gpu, &quad, quad_grid, false)?));
            sides.push((
                QUAD_VYRE_TRUSTED,
                operands.vyre(gpu, &quad, quad_grid, true)?,
            ));
        }
        // Every side's `C`, checked exactly on a sample of elements.
        for (name, side) in &sides {
            if let Some(wrong) = operands.first_wrong(gpu, side)? {
                return Err(format!(
                    "hgemm {m}x{n}x{k}, {name}: {wrong}. Fix: this is a bug of that side's kernel (or of the driver); compare the two modules."
                ));
            }
        }
        let samples = operands.time(gpu, self.options, sides.iter().map(|(_, side)| side))?;
        let measure = Measure::Flops {
            flops: operands.flops(),
        };
        let base = RowBase {
            workload: "hgemm",
            case: format!("{m}x{n}x{k} f16 -> f32, 16x16 tiles, 64x64 per workgroup"),
            baseline_name: "raw",
        };
        let mut goals = Vec::new();
        if m >= 1024 && n >= 1024 {
            goals.push(Some(Goal::RatioAtLeast(1.0)));
        }
        if (m, n, k) == (4096, 4096, 4096) {
            goals.push(Some(Goal::TflopsAtLeast(250.0, GOAL_DEVICES)));
        }
        if goals.is_empty() {
            goals.push(None);
        }
        let of = |name: &str| {
            sides
                .iter()
                .position(|(n, _)| *n == name)
                .and_then(|i| samples[i].as_deref())
        };
        // The goals are against the best raw kernel where it ran: vyre's checked module at 1.0 of
        // it, and vyre's best (its trusted module) at 250 TFLOP/s.
        let quad_goals = if of(QUAD).is_some() {
            std::mem::replace(&mut goals, vec![None])
        } else {
            Vec::new()
        };
        let pair = (samples[1].as_deref(), samples[0].as_deref());
        for goal in goals {
            self.rows
                .push(base.row("device time", measure, Stat::P50, pair, goal));
        }
        let quad = RowBase {
            workload: "hgemm",
            case: base.case.clone(),
            baseline_name: QUAD,
        };
        for goal in quad_goals {
            let (figure, side) = match goal {
                Some(Goal::TflopsAtLeast(..)) => (
                    "device time, the best raw kernel's blocking: vyre with a trusted module (first column)",
                    QUAD_VYRE_TRUSTED,
                ),
                _ => (
                    "device time, the best raw kernel's blocking (four subgroups of 64x64, k 16, a vec4<f16> stage): vyre",
                    QUAD_VYRE,
                ),
            };
            self.rows
                .push(quad.row(figure, measure, Stat::P50, (of(side), of(QUAD)), goal));
        }
        for (figure, first, baseline) in [
            (
                "device time, vyre with a trusted module (first column)",
                "vyre, trusted module",
                "raw",
            ),
            (
                "device time, staged through workgroup memory: vyre",
                "vyre, staged",
                "raw, staged",
            ),
            (
                "device time, staged: vyre with a trusted module (first column)",
                "vyre, staged, trusted module",
                "raw, staged",
            ),
            (
                "device time, raw staged (first column)",
                "raw, staged",
                "raw",
            ),
            (
                "device time, raw with four subgroups a workgroup, 128x128 per workgroup, staged in 8-byte words, two stages (first column)",
                WIDE,
                "raw",
            ),
            (
                "device time, four subgroups a workgroup: vyre",
                WIDE_VYRE,
                WIDE,
            ),
            (
                "device time, four subgroups a workgroup: vyre with a trusted module (first column)",
                WIDE_VYRE_TRUSTED,
                WIDE,
            ),
        ] {
            if of(first).is_none() {
                continue;
            }
            let base = RowBase {
                workload: "hgemm",
                case: base.case.clone(),
                baseline_name: baseline,
            };
            self.rows
                .push(base.row(figure, measure, Stat::P50, (of(first), of(baseline)), None));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::{
        SPAN, WIDE_SPAN, counts, program, program_staged, program_wide, raw_wgsl, raw_wgsl_staged,
        raw_wgsl_wide, value,
    };
    use vyre_driver::{DispatchConfig, VyreBackend};
    use vyre_foundation::ir::{Program, f16_bits_to_f32, f32_to_f16_bits};
    use wgpu::naga;

    /// Runs `p` on the reference over `grid` with the bench's `A` (`m x k`) and `B` (`k x n`) and
    /// checks every element of `C` exactly (`what` names the program in a failure).
    pub(super) fn assert_computes_c(
        p: &Program,
        grid: [u32; 3],
        (m, n, k): (u32, u32, u32),
        what: &str,
    ) {
        let a: Vec<u16> = (0..u64::from(m * k))
            .map(|i| f32_to_f16_bits(value(i, 1)))
            .collect();
        let b: Vec<u16> = (0..u64::from(k * n))
            .map(|i| f32_to_f16_bits(value(i, 2)))
            .collect();
        let halves = |v: &[u16]| v.iter().flat_map(|h| h.to_le_bytes()).collect::<Vec<u8>>();
        let config = DispatchConfig::new().with_grid(grid);
        let out = vyre::ReferenceBackend::new()
            .dispatch(p, &[halves(&a), halves(&b)], &config)
            .unwrap_or_else(|e| panic!("{what}: {e}"));
        for i in 0..m as usize {
            for j in 0..n as usize {
                let expected: f64 = (0..k as usize)
                    .map(|l| {
                        f64::from(f16_bits_to_f32(a[i * k as usize + l]))
                            * f64::from(f16_bits_to_f32(b[l * n as usize + j]))
                    })
                    .sum();
                let at = (i * n as usize + j) * 4;
                let got = f32::from_le_bytes([
                    out[0][at],
                    out[0][at + 1],
                    out[0][at + 2],
                    out[0][at + 3],
                ]);
                assert_eq!(got, expected as f32, "{what}: C[{i}, {j}]");
            }
        }
    }

    /// vyre's programs compute `C` exactly on the reference at 32-lane subgroups (the wide one's
    /// four subgroups each their own block), as the bench checks every side on the GPU.
    #[test]
    fn the_programs_compute_c_on_the_reference() {
        let (m, n, k) = (128u32, 128u32, 32u32);
        for (p, span) in [
            (program(m, n, k), SPAN),
            (program_staged(m, n, k), SPAN),
            (program_wide(m, n, k), WIDE_SPAN),
        ] {
            let what = format!("a {span}-wide block");
            assert_computes_c(&p, [n / span, m / span, 1], (m, n, k), &what);
        }
    }

    /// The hand-written kernel is WGSL naga accepts with every check, as wgpu validates it; vyre's
    /// program validates and lowers.
    #[test]
    fn both_sides_are_valid() {
        for text in [
            raw_wgsl(128, 64),
            raw_wgsl_staged(128, 64),
            raw_wgsl_wide(256, 64),
        ] {
            let module = naga::front::wgsl::parse_str(&text)
                .unwrap_or_else(|e| panic!("{}\n{text}", e.emit_to_string(&text)));
            naga::valid::Validator::new(
                naga::valid::ValidationFlags::all(),
                naga::valid::Capabilities::COOPERATIVE_MATRIX
                    | naga::valid::Capabilities::SHADER_FLOAT16,
            )
            .validate(&module)
            .unwrap_or_else(|e| panic!("{e:?}\n{text}"));
        }
        // As the bench emits them: the launch over the bench's grid with the counts it passes.
        let (m, n, k) = (128, 256, 64);
        for (p, span) in [
            (program(m, n, k), SPAN),
            (program_staged(m, n, k), SPAN),
            (program_wide(m, n, k), WIDE_SPAN),
        ] {
            let lengths: Vec<u64> = counts(&p).into_iter().map(u64::from).collect();
            let launch =
                vyre_driver_wgpu::emit_launch(&p, [n / span, m / span, 1], &lengths, 65_535)
                    .unwrap_or_else(|e| panic!("{e}"));
            assert!(launch.wgsl.contains("coopMultiplyAdd"), "{}", launch.wgsl);
            // Every tile offset and stride is a proven 16-byte multiple: no transfer is staged.
            assert!(!launch.wgsl.contains("vyre_tile_stage"), "{}", launch.wgsl);
        }
    }
}
