//! Matrix tiles (`SEMANTICS.md` section 9a), an optional device feature: one multiply-add of
//! every shape the IR has (8 and 16, `f16` and `f32` accumulators) in every combination of
//! layouts, a product accumulated over a loop by several workgroups at uniform offsets, operands
//! staged through workgroup buffers, and loads and stores out of bounds or with overlapping lines.
//!
//! Every input is a small integer, so every product and partial sum is exact in any order and the
//! expectations are exact, hand-computed here (no interval: a dropped or repeated product shows).

use vyre_driver::DispatchConfig;
use vyre_foundation::ir::{
    BufferDecl, DataType, Expr, Node, Program, TileLayout, TileRole, TileType,
};

use crate::catalogue::build::words_to_bytes;
use crate::catalogue::{Area, Batch, Expectation};

/// The workgroup: a multiple of every subgroup size a device may use.
const WORKGROUP: u32 = 128;

/// Every batch of the tiles area.
pub(super) fn batches() -> Vec<Batch> {
    let mut out = Vec::new();
    for size in [8u32, 16] {
        for accumulator in [DataType::F32, DataType::F16] {
            for (la, lb, lc) in [
                (
                    TileLayout::RowMajor,
                    TileLayout::RowMajor,
                    TileLayout::RowMajor,
                ),
                (
                    TileLayout::ColumnMajor,
                    TileLayout::ColumnMajor,
                    TileLayout::ColumnMajor,
                ),
                (
                    TileLayout::RowMajor,
                    TileLayout::ColumnMajor,
                    TileLayout::RowMajor,
                ),
            ] {
                out.push(one_product(size, accumulator, [la, lb, lc], None));
            }
            // Odd offsets with even strides and strides not a multiple of 16 bytes: a device
            // needs 16-byte-aligned pointers and strides, which vyre stages (`lower/tile.rs`).
            for at in [(1, size), (3, size + 4)] {
                let row = TileLayout::RowMajor;
                let column = TileLayout::ColumnMajor;
                out.push(one_product(size, accumulator, [row, row, row], Some(at)));
                out.push(one_product(
                    size,
                    accumulator,
                    [row, column, column],
                    Some(at),
                ));
            }
        }
    }
    out.push(accumulated());
    out.push(staged());
    out.push(staged_rows());
    for size in [8u32, 16] {
        out.push(out_of_bounds(size));
        out.push(per_subgroup(size));
    }
    out
}

fn word_f16(x: f64) -> u32 {
    u32::from(half::f16::from_f64(x).to_bits())
}

fn word(ty: DataType, x: f64) -> u32 {
    match ty {
        DataType::F16 => word_f16(x),
        _ => (x as f32).to_bits(),
    }
}

/// `m x n` values in row order, `f(r, c)`, laid out in a buffer of `stride`-long lines at
/// `offset` (the rest `filler`).
fn lay_out(
    (rows, columns): (u32, u32),
    layout: TileLayout,
    (offset, stride, len): (u32, u32, u32),
    f: impl Fn(u32, u32) -> f64,
    filler: f64,
) -> Vec<f64> {
    let mut out = vec![filler; len as usize];
    for r in 0..rows {
        for c in 0..columns {
            out[(u64::from(offset) + layout.position(r, c, stride)) as usize] = f(r, c);
        }
    }
    out
}

fn bytes(ty: DataType, values: &[f64]) -> Vec<u8> {
    match ty {
        DataType::F16 => values
            .iter()
            .flat_map(|v| half::f16::from_f64(*v).to_bits().to_le_bytes())
            .collect(),
        _ => words_to_bytes(values.iter().map(|v| (*v as f32).to_bits())),
    }
}

/// The value of element `(r, c)` of the probe's `a`: small signed integers.
fn a_value(r: u32, c: u32) -> f64 {
    f64::from((r * 3 + c * 5) % 7) - 3.0
}

/// The value of element `(r, c)` of the probe's `b`.
fn b_value(r: u32, c: u32) -> f64 {
    f64::from((r * 2 + c * 7 + 1) % 5) - 2.0
}

/// The value of element `(r, c)` of the probe's initial accumulator.
fn c_value(r: u32, c: u32) -> f64 {
    f64::from((r + 2 * c) % 9) - 4.0
}

/// `d = a x b + c` for one tile of side `n`, `a`, `b` and `c` in the given layouts with strides
/// longer than a line (padding between lines, which a wrong stride would read), the result stored
/// in `c`'s layout into an output whose elements outside the tile must stay zero. Every operand
/// at offset 5 with stride `n + 3`, or at `(offset, stride)` (named in the case).
fn one_product(
    n: u32,
    accumulator: DataType,
    [la, lb, lc]: [TileLayout; 3],
    placed: Option<(u32, u32)>,
) -> Batch {
    let (offset, stride) = placed.unwrap_or((5, n + 3));
    let len = offset + stride * n + 4;
    let tile = |role, element| TileType::new(role, n, n, element);
    let a = lay_out((n, n), la, (offset, stride, len), a_value, 99.0);
    let b = lay_out((n, n), lb, (offset, stride, len), b_value, -99.0);
    let c = lay_out((n, n), lc, (offset, stride, len), c_value, 7.0);
    let buffers = vec![
        BufferDecl::read("a", 0, DataType::F16).with_count(len),
        BufferDecl::read("b", 1, DataType::F16).with_count(len),
        BufferDecl::read("c", 2, accumulator).with_count(len),
        BufferDecl::output("d", 3, accumulator).with_count(len),
    ];
    let at = |layout| (Expr::u32(offset), Expr::u32(stride), layout);
    let load =
        |t: &str, buf: &str, (o, s, l): (Expr, Expr, TileLayout)| Node::tile_load(t, buf, o, s, l);
    let body = vec![
        Node::tile("ta", tile(TileRole::A, DataType::F16)),
        Node::tile("tb", tile(TileRole::B, DataType::F16)),
        Node::tile("acc", tile(TileRole::Accumulator, accumulator)),
        load("ta", "a", at(la)),
        load("tb", "b", at(lb)),
        load("acc", "c", at(lc)),
        Node::tile_multiply_add("acc", "ta", "tb", "acc"),
        Node::tile_store("acc", "d", Expr::u32(offset), Expr::u32(stride), lc),
    ];
    let program = Program::wrapped(buffers, [WORKGROUP, 1, 1], body);
    let mut name = format!(
        "tiles.product.{n}x{n}x{n}.{accumulator}.{}.{}.{}",
        la.word(),
        lb.word(),
        lc.word()
    );
    if let Some((offset, stride)) = placed {
        name.push_str(&format!(".at{offset}.stride{stride}"));
    }
    let inputs = vec![
        bytes(DataType::F16, &a),
        bytes(DataType::F16, &b),
        bytes(accumulator, &c),
    ];
    let config = DispatchConfig::new().with_grid([1, 1, 1]);
    let mut batch = Batch::manual(Area::Tiles, name.clone(), program, inputs, config);
    let mut expected = vec![0.0; len as usize];
    for r in 0..n {
        for col in 0..n {
            let sum: f64 =
                (0..n).map(|l| a_value(r, l) * b_value(l, col)).sum::<f64>() + c_value(r, col);
            expected[(u64::from(offset) + lc.position(r, col, stride)) as usize] = sum;
        }
    }
    for (k, value) in expected.iter().enumerate() {
        batch = batch.expect_word(
            format!("{name}[{k}]"),
            format!("element {k} of d"),
            (0, k),
            accumulator,
            Expectation::exact(word(accumulator, *value)),
        );
    }
    batch
}

/// `C = A x B` for `A` of 16 x 64 and `B` of 64 x 32 in f16, `C` in f32: each of two workgroups
/// computes one 16 x 16 tile of `C` (offset by its workgroup id), accumulating four products over
/// a loop whose bound is read from a uniform buffer.
fn accumulated() -> Batch {
    let (m, k, n) = (16u32, 64u32, 32u32);
    let tile = |role, element| TileType::new(role, 16, 16, element);
    let a: Vec<f64> = (0..m * k).map(|i| a_value(i / k, i % k)).collect();
    let b: Vec<f64> = (0..k * n).map(|i| b_value(i / n, i % n)).collect();
    let buffers = vec![
        BufferDecl::read("a", 0, DataType::F16).with_count(m * k),
        BufferDecl::read("b", 1, DataType::F16).with_count(k * n),
        BufferDecl::uniform("steps", 2, DataType::U32).with_count(4),
        BufferDecl::output("c", 3, DataType::F32).with_count(m * n),
    ];
    let step = Expr::var("s");
    let column = Expr::mul(Expr::workgroup_x(), Expr::u32(16));
    let body = vec![
        Node::tile("acc", tile(TileRole::Accumulator, DataType::F32)),
        Node::loop_for(
            "s",
            Expr::u32(0),
            Expr::load("steps", Expr::u32(0)),
            vec![
                Node::tile("ta", tile(TileRole::A, DataType::F16)),
                Node::tile("tb", tile(TileRole::B, DataType::F16)),
                Node::tile_load(
                    "ta",
                    "a",
                    Expr::mul(step.clone(), Expr::u32(16)),
                    Expr::u32(k),
                    TileLayout::RowMajor,
                ),
                Node::tile_load(
                    "tb",
                    "b",
                    Expr::add(Expr::mul(step, Expr::u32(16 * n)), column.clone()),
                    Expr::u32(n),
                    TileLayout::RowMajor,
                ),
                Node::tile_multiply_add("acc", "ta", "tb", "acc"),
            ],
        ),
        Node::tile_store("acc", "c", column, Expr::u32(n), TileLayout::RowMajor),
    ];
    let program = Program::wrapped(buffers, [WORKGROUP, 1, 1], body);
    let inputs = vec![
        bytes(DataType::F16, &a),
        bytes(DataType::F16, &b),
        words_to_bytes([k / 16, 0, 0, 0]),
    ];
    let config = DispatchConfig::new().with_grid([n / 16, 1, 1]);
    let batch = Batch::manual(Area::Tiles, "tiles.accumulated", program, inputs, config);
    expect_product(batch, (&a, &b), (m, n, k), "of a 16x64 by 64x32 product")
}

/// The probe's `a` and `b` (`n x n`) and the buffers of a staged product: `a`, `b` and `c` in
/// storage, and the stages `sa` and `sbt` (`f16`, `n` lines of `lines[0]`) and `sc` (`f32`, `n`
/// lines of `lines[1]`) in workgroup memory.
fn stage_operands(n: u32, lines: [u32; 2]) -> (Vec<f64>, Vec<f64>, Vec<BufferDecl>) {
    let a: Vec<f64> = (0..n * n).map(|i| a_value(i / n, i % n)).collect();
    let b: Vec<f64> = (0..n * n).map(|i| b_value(i / n, i % n)).collect();
    let buffers = vec![
        BufferDecl::read("a", 0, DataType::F16).with_count(n * n),
        BufferDecl::read("b", 1, DataType::F16).with_count(n * n),
        BufferDecl::output("c", 2, DataType::F32).with_count(n * n),
        BufferDecl::workgroup("sa", n * lines[0], DataType::F16),
        BufferDecl::workgroup("sbt", n * lines[0], DataType::F16),
        BufferDecl::workgroup("sc", n * lines[1], DataType::F32),
    ];
    (a, b, buffers)
}

/// Operands staged through workgroup buffers: the invocations copy `a` and `b` element by element
/// into workgroup buffers (transposing `b`), a barrier, then tiles load from workgroup memory; the
/// accumulator goes through a workgroup buffer too before the invocations copy it out.
fn staged() -> Batch {
    let n = 16u32;
    let tile = |role, element| TileType::new(role, n, n, element);
    let (a, b, buffers) = stage_operands(n, [n, n]);
    let lid = Expr::local_x;
    let mut body = Vec::new();
    // Each invocation copies two elements of each operand (128 invocations, 256 elements).
    for half in 0..2u32 {
        let i = Expr::add(lid(), Expr::u32(half * WORKGROUP));
        let transposed = Expr::add(
            Expr::mul(Expr::rem(i.clone(), Expr::u32(n)), Expr::u32(n)),
            Expr::div(i.clone(), Expr::u32(n)),
        );
        body.push(Node::store("sa", i.clone(), Expr::load("a", i.clone())));
        body.push(Node::store("sbt", transposed, Expr::load("b", i)));
    }
    body.extend([
        Node::Barrier,
        Node::tile("ta", tile(TileRole::A, DataType::F16)),
        Node::tile("tb", tile(TileRole::B, DataType::F16)),
        Node::tile("acc", tile(TileRole::Accumulator, DataType::F32)),
        Node::tile_load("ta", "sa", Expr::u32(0), Expr::u32(n), TileLayout::RowMajor),
        // `sbt` holds b transposed: read column-major, it is b again.
        Node::tile_load(
            "tb",
            "sbt",
            Expr::u32(0),
            Expr::u32(n),
            TileLayout::ColumnMajor,
        ),
        Node::tile_multiply_add("acc", "ta", "tb", "acc"),
        Node::tile_store(
            "acc",
            "sc",
            Expr::u32(0),
            Expr::u32(n),
            TileLayout::RowMajor,
        ),
        Node::Barrier,
    ]);
    for half in 0..2u32 {
        let i = Expr::add(lid(), Expr::u32(half * WORKGROUP));
        body.push(Node::store("c", i.clone(), Expr::load("sc", i)));
    }
    let program = Program::wrapped(buffers, [WORKGROUP, 1, 1], body);
    let inputs = vec![bytes(DataType::F16, &a), bytes(DataType::F16, &b)];
    let config = DispatchConfig::new().with_grid([1, 1, 1]);
    let batch = Batch::manual(Area::Tiles, "tiles.staged", program, inputs, config);
    expect_product(batch, (&a, &b), (n, n, n), "through workgroup memory")
}

/// A tensor-core kernel's stages: the first 64 invocations each write four consecutive elements
/// of `a` into `sa` and four of `b`'s columns into `sbt` (rows of 24, 8 elements of padding), so
/// both are written a row of four at a time and read only by tiles at 16-byte-aligned offsets and
/// strides: the lowering declares them as `vec4<f16>` rows, makes each four stores one quad
/// store, and points the tile loads at rows (`lower/rows.rs`). The accumulator goes through `sc`
/// (rows of 20 `f32`), read back four elements at a time.
fn staged_rows() -> Batch {
    let n = 16u32;
    let (pad16, pad32) = (n + 8, n + 4);
    let tile = |role, element| TileType::new(role, n, n, element);
    let (a, b, buffers) = stage_operands(n, [pad16, pad32]);
    let u = Expr::u32;
    let v = Expr::var;
    let quarter = || Expr::lt(Expr::local_x(), u(64));
    // Row `r = lid / 4` and first column `c4 = (lid % 4) * 4` of the invocation's four elements.
    let place = |stride: u32| {
        vec![
            Node::let_bind("r", Expr::shr(Expr::local_x(), u(2))),
            Node::let_bind("c4", Expr::mul(Expr::bit_and(Expr::local_x(), u(3)), u(4))),
            Node::let_bind("at", Expr::add(Expr::mul(v("r"), u(stride)), v("c4"))),
        ]
    };
    let mut copy_in = place(pad16);
    for e in 0..4 {
        copy_in.push(Node::store(
            "sa",
            Expr::add(v("at"), u(e)),
            Expr::load(
                "a",
                Expr::add(Expr::add(Expr::mul(v("r"), u(n)), v("c4")), u(e)),
            ),
        ));
    }
    // Row `r` of `sbt` is column `r` of `b`.
    for e in 0..4 {
        copy_in.push(Node::store(
            "sbt",
            Expr::add(v("at"), u(e)),
            Expr::load(
                "b",
                Expr::add(Expr::mul(Expr::add(v("c4"), u(e)), u(n)), v("r")),
            ),
        ));
    }
    let mut copy_out = place(pad32);
    for e in 0..4 {
        copy_out.push(Node::store(
            "c",
            Expr::add(Expr::add(Expr::mul(v("r"), u(n)), v("c4")), u(e)),
            Expr::load("sc", Expr::add(v("at"), u(e))),
        ));
    }
    let body = vec![
        Node::if_then(quarter(), copy_in),
        Node::Barrier,
        Node::tile("ta", tile(TileRole::A, DataType::F16)),
        Node::tile("tb", tile(TileRole::B, DataType::F16)),
        Node::tile("acc", tile(TileRole::Accumulator, DataType::F32)),
        Node::tile_load("ta", "sa", u(0), u(pad16), TileLayout::RowMajor),
        Node::tile_load("tb", "sbt", u(0), u(pad16), TileLayout::ColumnMajor),
        Node::tile_multiply_add("acc", "ta", "tb", "acc"),
        Node::tile_store("acc", "sc", u(0), u(pad32), TileLayout::RowMajor),
        Node::Barrier,
        Node::if_then(quarter(), copy_out),
    ];
    let program = Program::wrapped(buffers, [WORKGROUP, 1, 1], body);
    let inputs = vec![bytes(DataType::F16, &a), bytes(DataType::F16, &b)];
    let config = DispatchConfig::new().with_grid([1, 1, 1]);
    let batch = Batch::manual(Area::Tiles, "tiles.staged_rows", program, inputs, config);
    expect_product(batch, (&a, &b), (n, n, n), "through workgroup rows")
}

/// One exact case per element of the `f32` product `a x b` (`m x k` by `k x n`, row-major) in
/// output 0, named after the batch.
fn expect_product(
    mut batch: Batch,
    (a, b): (&[f64], &[f64]),
    (m, n, k): (u32, u32, u32),
    how: &str,
) -> Batch {
    let name = batch.name.clone();
    for r in 0..m {
        for col in 0..n {
            let sum: f64 = (0..k)
                .map(|l| a[(r * k + l) as usize] * b[(l * n + col) as usize])
                .sum();
            batch = batch.expect_word(
                format!("{name}[{r},{col}]"),
                format!("row {r}, column {col} {how}"),
                (0, (r * n + col) as usize),
                DataType::F32,
                Expectation::exact(word(DataType::F32, sum)),
            );
        }
    }
    batch
}

/// Blocks of `n x n` tiles computed by the workgroup's subgroups, each its own: `d_q = a_q x b`
/// for four blocks `q`. Subgroup `sg = lid.x / subgroup_size()` of the `nsg = 128 /
/// subgroup_size()` takes blocks `sg + t * nsg` for `t` in `0..4`: the offsets differ between
/// subgroups and are the same in every lane of one (SEMANTICS.md 9a), and the blocks past the
/// fourth are out of bounds (zero loads, no stores), so the result is the same at every
/// subgroup size.
fn per_subgroup(n: u32) -> Batch {
    let blocks = 4u32;
    let size = n * n;
    let len = blocks * size;
    let tile = |role, element| TileType::new(role, n, n, element);
    let a_block = |q: u32, r: u32, c: u32| a_value(r + q, c);
    let mut a = vec![0.0; len as usize];
    for q in 0..blocks {
        for r in 0..n {
            for c in 0..n {
                a[(q * size + r * n + c) as usize] = a_block(q, r, c);
            }
        }
    }
    let b = lay_out((n, n), TileLayout::RowMajor, (0, n, size), b_value, 0.0);
    let buffers = vec![
        BufferDecl::read("a", 0, DataType::F16).with_count(len),
        BufferDecl::read("b", 1, DataType::F16).with_count(size),
        BufferDecl::output("d", 2, DataType::F32).with_count(len),
    ];
    let row = TileLayout::RowMajor;
    let at = || Expr::mul(Expr::var("q"), Expr::u32(size));
    let body = vec![
        Node::let_bind("sg", Expr::div(Expr::local_x(), Expr::subgroup_size())),
        Node::let_bind(
            "nsg",
            Expr::div(Expr::u32(WORKGROUP), Expr::subgroup_size()),
        ),
        Node::loop_for(
            "t",
            Expr::u32(0),
            Expr::u32(blocks),
            vec![
                Node::let_bind(
                    "q",
                    Expr::add(Expr::var("sg"), Expr::mul(Expr::var("t"), Expr::var("nsg"))),
                ),
                Node::tile("ta", tile(TileRole::A, DataType::F16)),
                Node::tile("tb", tile(TileRole::B, DataType::F16)),
                Node::tile("acc", tile(TileRole::Accumulator, DataType::F32)),
                Node::tile_load("ta", "a", at(), Expr::u32(n), row),
                Node::tile_load("tb", "b", Expr::u32(0), Expr::u32(n), row),
                Node::tile_multiply_add("acc", "ta", "tb", "acc"),
                Node::tile_store("acc", "d", at(), Expr::u32(n), row),
            ],
        ),
    ];
    let program = Program::wrapped(buffers, [WORKGROUP, 1, 1], body);
    let name = format!("tiles.per_subgroup.{n}");
    let inputs = vec![bytes(DataType::F16, &a), bytes(DataType::F16, &b)];
    let config = DispatchConfig::new().with_grid([1, 1, 1]);
    let mut batch = Batch::manual(Area::Tiles, name.clone(), program, inputs, config);
    for q in 0..blocks {
        for r in 0..n {
            for col in 0..n {
                let sum: f64 = (0..n).map(|l| a_block(q, r, l) * b_value(l, col)).sum();
                let k = (q * size + r * n + col) as usize;
                batch = batch.expect_word(
                    format!("{name}[{k}]"),
                    format!("block {q}, row {r}, column {col} of d"),
                    (0, k),
                    DataType::F32,
                    Expectation::exact(word(DataType::F32, sum)),
                );
            }
        }
    }
    batch
}

/// Out of bounds, with `n x n` tiles: a load whose last element is one past the end gives zeros
/// (so the product is the accumulator's value), one that ends exactly at the end is whole; a store
/// one past the end or with overlapping rows writes nothing, one that ends at the end writes
/// everything. One batch per side, so that a device with tiles of one side only (NVIDIA's: 16)
/// still checks the guards at the edge.
fn out_of_bounds(n: u32) -> Batch {
    let len = n * n;
    let tile = |role, element| TileType::new(role, n, n, element);
    let ones = vec![1.0; len as usize];
    let buffers = vec![
        BufferDecl::read("a", 0, DataType::F16).with_count(len),
        BufferDecl::output("past", 1, DataType::F32).with_count(len),
        BufferDecl::output("overlap", 2, DataType::F32).with_count(len),
        BufferDecl::output("fits", 3, DataType::F32).with_count(len),
        BufferDecl::output("zeroed", 4, DataType::F32).with_count(len),
    ];
    let row = TileLayout::RowMajor;
    let body = vec![
        Node::tile("ta", tile(TileRole::A, DataType::F16)),
        Node::tile("tz", tile(TileRole::A, DataType::F16)),
        Node::tile("tb", tile(TileRole::B, DataType::F16)),
        Node::tile("acc", tile(TileRole::Accumulator, DataType::F32)),
        Node::tile("zero", tile(TileRole::Accumulator, DataType::F32)),
        Node::tile_load("ta", "a", Expr::u32(0), Expr::u32(n), row),
        // One element past the end: every element zero.
        Node::tile_load("tz", "a", Expr::u32(1), Expr::u32(n), row),
        Node::tile_load(
            "tb",
            "a",
            Expr::u32(0),
            Expr::u32(n),
            TileLayout::ColumnMajor,
        ),
        Node::tile_multiply_add("acc", "ta", "tb", "acc"),
        Node::tile_multiply_add("zero", "tz", "tb", "zero"),
        Node::tile_store("acc", "past", Expr::u32(1), Expr::u32(n), row),
        Node::tile_store("acc", "overlap", Expr::u32(0), Expr::u32(n - 1), row),
        Node::tile_store("acc", "fits", Expr::u32(0), Expr::u32(n), row),
        Node::tile_store("zero", "zeroed", Expr::u32(0), Expr::u32(n), row),
    ];
    let program = Program::wrapped(buffers, [WORKGROUP, 1, 1], body);
    let inputs = vec![bytes(DataType::F16, &ones)];
    let config = DispatchConfig::new().with_grid([1, 1, 1]);
    let mut batch = Batch::manual(
        Area::Tiles,
        format!("tiles.out_of_bounds.{n}"),
        program,
        inputs,
        config,
    );
    for (output, name, value) in [
        (0, "past", 0.0),
        (1, "overlap", 0.0),
        (2, "fits", f64::from(n)),
        (3, "zeroed", 0.0),
    ] {
        for k in 0..len as usize {
            batch = batch.expect_word(
                format!("tiles.out_of_bounds.{n}.{name}[{k}]"),
                format!("element {k} of `{name}`"),
                (output, k),
                DataType::F32,
                Expectation::exact(word(DataType::F32, value)),
            );
        }
    }
    batch
}
