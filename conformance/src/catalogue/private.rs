//! Private arrays (`SEMANTICS.md` section 3): zeroed at the declaration, every element type,
//! `u32` and `i32` indices in and out of bounds for loads and stores, indices only known at run
//! time and known after unrolling, an array declared in a loop body, and invocations' arrays apart.

use vyre_driver::DispatchConfig;
use vyre_foundation::ir::{BufferDecl, DataType, Expr, Node, Program};

use crate::catalogue::build::words_to_bytes;
use crate::catalogue::{Area, Batch, Expectation};

/// Elements of each probed array.
const LEN: u32 = 8;

/// `u32` indices: both ends, just past, far past, the top.
const U32_INDICES: [u32; 8] = [0, 7, 8, 9, 3, 100, 0x8000_0000, 0xffff_ffff];

/// `i32` indices: in bounds, just past, negative.
const I32_INDICES: [i32; 8] = [0, 7, 8, -1, 5, i32::MIN, i32::MAX, -8];

/// Every batch of the private arrays area.
pub(super) fn batches() -> Vec<Batch> {
    let mut out: Vec<Batch> = [
        DataType::U32,
        DataType::I32,
        DataType::F32,
        DataType::Bool,
        DataType::F16,
        DataType::U64,
        DataType::I64,
    ]
    .into_iter()
    .map(access)
    .collect();
    out.push(loops());
    out
}

/// Element `k` of invocation `i`'s array as the `u32` it is built from: distinct per invocation
/// and element, so one invocation reading another's array, or an element landing at the wrong
/// index, shows.
fn seed(i: u32, k: u32) -> u32 {
    1 + 16 * i + k
}

/// `seed` as a value of `ty`, and as the word the output holds (bool: `seed` odd).
fn value(ty: DataType, w: Expr) -> Expr {
    match ty {
        DataType::Bool => Expr::ne(Expr::bit_and(w, Expr::u32(1)), Expr::u32(0)),
        _ => Expr::cast(ty, w),
    }
}

fn word(ty: DataType, w: u32) -> u64 {
    match ty {
        DataType::Bool => u64::from(w & 1),
        DataType::F32 => u64::from((w as f32).to_bits()),
        DataType::F16 => u64::from(half::f16::from_f32(w as f32).to_bits()),
        _ => u64::from(w),
    }
}

/// Invocation `i` fills `a: ty[LEN]` with `seed(i, k)` (literal indices, then a store through
/// each out-of-bounds index, which must vanish), then reads it back through the `u32` index
/// `uidx[i]` and the `i32` index `iidx[i]`, and element `i % LEN` through a run-time index that
/// is in bounds. Element types of 16 or 64 bits are read out as `u32` after a cast back.
fn access(ty: DataType) -> Batch {
    let buffers = vec![
        BufferDecl::read("uidx", 0, DataType::U32).with_count(LEN),
        BufferDecl::read("iidx", 1, DataType::I32).with_count(LEN),
        BufferDecl::output("by_u32", 2, DataType::U32).with_count(LEN),
        BufferDecl::output("by_i32", 3, DataType::U32).with_count(LEN),
        BufferDecl::output("own", 4, DataType::U32).with_count(LEN),
        BufferDecl::output("cond", 5, DataType::U32).with_count(LEN),
    ];
    let out_word = |e: Expr| match ty {
        DataType::Bool => Expr::cast(DataType::U32, e),
        DataType::F32 => Expr::bitcast(DataType::U32, e),
        DataType::F16 => Expr::cast(DataType::U32, Expr::cast(DataType::F32, e)),
        _ => Expr::cast(DataType::U32, e),
    };
    let seed_expr = |k: Expr| {
        Expr::add(
            Expr::add(Expr::u32(1), Expr::mul(Expr::gid_x(), Expr::u32(16))),
            k,
        )
    };
    let mut body = vec![
        Node::let_bind("u", Expr::load("uidx", Expr::gid_x())),
        Node::let_bind("s", Expr::load("iidx", Expr::gid_x())),
        Node::private_array("a", ty, LEN),
    ];
    for k in 0..LEN {
        body.push(Node::array_store(
            "a",
            Expr::u32(k),
            value(ty, seed_expr(Expr::u32(k))),
        ));
    }
    // Out-of-bounds stores through both index types: dropped (an in-bounds index among them
    // writes its own element again, with its own value).
    body.push(Node::array_store(
        "a",
        Expr::var("u"),
        value(ty, seed_expr(Expr::var("u"))),
    ));
    body.push(Node::array_store(
        "a",
        Expr::var("s"),
        value(ty, seed_expr(Expr::bitcast(DataType::U32, Expr::var("s")))),
    ));
    body.push(Node::store(
        "by_u32",
        Expr::gid_x(),
        out_word(Expr::array_load("a", Expr::var("u"))),
    ));
    body.push(Node::store(
        "by_i32",
        Expr::gid_x(),
        out_word(Expr::array_load("a", Expr::var("s"))),
    ));
    body.push(Node::store(
        "own",
        Expr::gid_x(),
        out_word(Expr::array_load(
            "a",
            Expr::rem(Expr::gid_x(), Expr::u32(LEN)),
        )),
    ));
    // Under `u < LEN + 1` the index may still be `LEN`: the condition proves nothing about `a`.
    body.push(Node::let_bind("c", Expr::u32(0)));
    body.push(Node::if_then(
        Expr::lt(Expr::var("u"), Expr::u32(LEN + 1)),
        vec![Node::assign(
            "c",
            Expr::add(
                out_word(Expr::array_load("a", Expr::var("u"))),
                Expr::u32(1),
            ),
        )],
    ));
    body.push(Node::store("cond", Expr::gid_x(), Expr::var("c")));
    let program = Program::wrapped(buffers, [LEN, 1, 1], body);
    let inputs = vec![
        words_to_bytes(U32_INDICES),
        words_to_bytes(I32_INDICES.map(|v| v as u32)),
    ];
    let config = DispatchConfig::new().with_grid([1, 1, 1]);
    let mut batch = Batch::manual(
        Area::PrivateArrays,
        format!("private.access.{ty}"),
        program,
        inputs,
        config,
    );
    // What the output word holds for an element whose seed is `w` (0 for an out-of-bounds load).
    let out = |w: Option<u32>| -> u32 {
        let Some(w) = w else { return 0 };
        match ty {
            DataType::F32 => word(ty, w) as u32,
            DataType::Bool => w & 1,
            _ => w,
        }
    };
    for i in 0..LEN {
        let (u, s) = (U32_INDICES[i as usize], I32_INDICES[i as usize]);
        let by_u = (u < LEN).then(|| seed(i, u));
        let by_s = (0..LEN as i32).contains(&s).then(|| seed(i, s as u32));
        batch = batch
            .expect_word(
                format!("private.load.{ty}[{u}u]"),
                format!("invocation {i}, index {u}u of {LEN}"),
                (0, i as usize),
                DataType::U32,
                Expectation::exact(out(by_u)),
            )
            .expect_word(
                format!("private.load.{ty}[{s}i]"),
                format!("invocation {i}, index {s}i of {LEN}"),
                (1, i as usize),
                DataType::U32,
                Expectation::exact(out(by_s)),
            )
            .expect_word(
                format!("private.under_condition.{ty}[{u}u]"),
                format!("invocation {i}, index {u}u under `u < {}`", LEN + 1),
                (3, i as usize),
                DataType::U32,
                Expectation::exact(if u <= LEN {
                    out(by_u).wrapping_add(1)
                } else {
                    0
                }),
            )
            .expect_word(
                format!("private.own.{ty}[{i}]"),
                format!("invocation {i}, its own element"),
                (2, i as usize),
                DataType::U32,
                Expectation::exact(out(Some(seed(i, i % LEN)))),
            );
    }
    batch
}

/// Arrays in loops: a running histogram `h: u32[4]` over a loop (indices known only at run
/// time, `(i * gid) % 4`), a counter array declared in a loop body (zeroed every iteration), and
/// a prefix sum through an unrollable loop with literal bounds.
fn loops() -> Batch {
    let buffers = vec![
        BufferDecl::output("hist", 0, DataType::U32).with_count(4 * LEN),
        BufferDecl::output("fresh", 1, DataType::U32).with_count(LEN),
        BufferDecl::output("prefix", 2, DataType::U32).with_count(LEN),
    ];
    let g = Expr::gid_x;
    let body = vec![
        Node::private_array("h", DataType::U32, 4),
        Node::loop_for(
            "i",
            Expr::u32(0),
            Expr::u32(10),
            vec![Node::array_store(
                "h",
                Expr::rem(Expr::mul(Expr::var("i"), g()), Expr::u32(4)),
                Expr::add(
                    Expr::array_load("h", Expr::rem(Expr::mul(Expr::var("i"), g()), Expr::u32(4))),
                    Expr::u32(1),
                ),
            )],
        ),
        Node::loop_for(
            "k",
            Expr::u32(0),
            Expr::u32(4),
            vec![Node::store(
                "hist",
                Expr::add(Expr::mul(g(), Expr::u32(4)), Expr::var("k")),
                Expr::array_load("h", Expr::var("k")),
            )],
        ),
        Node::loop_for(
            "j",
            Expr::u32(0),
            Expr::u32(3),
            vec![
                Node::private_array("c", DataType::U32, 2),
                Node::array_store(
                    "c",
                    Expr::u32(1),
                    Expr::add(Expr::array_load("c", Expr::u32(1)), g()),
                ),
                Node::store("fresh", g(), Expr::array_load("c", Expr::u32(1))),
            ],
        ),
        Node::private_array("p", DataType::U32, 5),
        Node::loop_for(
            "m",
            Expr::u32(0),
            Expr::u32(4),
            vec![Node::array_store(
                "p",
                Expr::add(Expr::var("m"), Expr::u32(1)),
                Expr::add(
                    Expr::array_load("p", Expr::var("m")),
                    Expr::add(g(), Expr::var("m")),
                ),
            )],
        ),
        Node::store("prefix", g(), Expr::array_load("p", Expr::u32(4))),
    ];
    let program = Program::wrapped(buffers, [LEN, 1, 1], body);
    let config = DispatchConfig::new().with_grid([1, 1, 1]);
    let mut batch = Batch::manual(
        Area::PrivateArrays,
        "private.loops",
        program,
        Vec::new(),
        config,
    );
    for gid in 0..LEN {
        let mut h = [0u32; 4];
        for i in 0..10 {
            h[((i * gid) % 4) as usize] += 1;
        }
        for (k, &count) in h.iter().enumerate() {
            batch = batch.expect_word(
                format!("private.histogram[{gid}][{k}]"),
                format!("invocation {gid}"),
                (0, (gid * 4) as usize + k),
                DataType::U32,
                Expectation::exact(count),
            );
        }
        batch = batch
            .expect_word(
                format!("private.zeroed_each_iteration[{gid}]"),
                format!("invocation {gid}"),
                (1, gid as usize),
                DataType::U32,
                Expectation::exact(gid),
            )
            .expect_word(
                format!("private.prefix_sum[{gid}]"),
                format!("invocation {gid}"),
                (2, gid as usize),
                DataType::U32,
                Expectation::exact(4 * gid + 6),
            );
    }
    batch
}
