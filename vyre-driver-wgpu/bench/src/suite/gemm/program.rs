//! The SGEMM written through vyre's public IR, the tiling of `tiling.rs` exactly as the raw WGSL
//! has it, built the way a user must build it today: vyre has no vector type and no arrays in
//! registers, so the invocation's block is `tm * tn` named accumulators, its fragment `tm + tn`
//! named `let`s, and every loop over the block or over a tile's four consecutive elements is
//! unrolled here in Rust; each unrolled load step is a `Node::block` so that its names can repeat.
//!
//! The program is built for one shape (every length a literal), as the raw WGSL is.
//!
//! Loads of `A` and `B` are at `base + c` with `base` a `let` that is a multiple of 4 and `c` in
//! `0..4`, so the lowering declares both as `vec4` rows (`lower/rows.rs`); each element's store to
//! a tile is its own statement, though, and a row is shared only within one statement.

use vyre_foundation::ir::{BufferDecl, DataType, Expr, Node, Program};

use super::tiling::{Shape, Tiling};

/// How the program writes its workgroup-memory indices.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Indexing {
    /// As arithmetic on the tile coordinates, which is what a user writes: the lowering cannot
    /// prove these in bounds, so each access is guarded.
    Plain,
    /// Each workgroup index masked with `& (len - 1)` (the tiles' lengths are powers of two), which
    /// the lowering's bounds proofs accept (`x & m <= m`): its guards go, for one `and` each.
    Masked,
}

fn u(v: u32) -> Expr {
    Expr::u32(v)
}

fn var(name: &str) -> Expr {
    Expr::var(name)
}

/// `x + v`, or `x` when `v` is 0.
fn plus(x: Expr, v: u32) -> Expr {
    if v == 0 { x } else { Expr::add(x, u(v)) }
}

/// The program computing `c = a x b` for `shape` with tiling `t`, over the grid
/// `[n / bn, m / bm, 1]`.
pub(crate) fn gemm_program(shape: Shape, t: Tiling, indexing: Indexing) -> Program {
    let Shape { m, n, k } = shape;
    let tile = |len: u32, index: Expr| match indexing {
        Indexing::Plain => index,
        Indexing::Masked => Expr::bit_and(index, u(len - 1)),
    };
    let a_len = t.bm * t.bk;
    let b_len = t.bn * t.bk;
    let mut body = vec![
        Node::let_bind("tid", Expr::local_x()),
        Node::let_bind("tx", Expr::rem(var("tid"), u(t.across()))),
        Node::let_bind("ty", Expr::div(var("tid"), u(t.across()))),
        Node::let_bind("tx4", Expr::mul(var("tx"), u(4))),
        Node::let_bind("ty4", Expr::mul(var("ty"), u(4))),
        Node::let_bind("row0", Expr::mul(Expr::workgroup_y(), u(t.bm))),
        Node::let_bind("col0", Expr::mul(Expr::workgroup_x(), u(t.bn))),
    ];
    for i in 0..t.tm {
        for j in 0..t.tn {
            body.push(Node::let_bind(format!("c{i}_{j}"), Expr::f32(0.0)));
        }
    }
    let mut step = vec![Node::let_bind("k0", Expr::mul(var("s"), u(t.bk)))];
    // The `A` tile, transposed: element (r, kk) of the tile goes to `as[kk * bm + r]`.
    let quads = t.bk / 4;
    for l in 0..t.a_loads() {
        let mut load = vec![
            Node::let_bind("e", plus(var("tid"), l * t.threads())),
            Node::let_bind("r", Expr::div(var("e"), u(quads))),
            Node::let_bind("q4", Expr::mul(Expr::rem(var("e"), u(quads)), u(4))),
            Node::let_bind(
                "src",
                Expr::add(
                    Expr::mul(Expr::add(var("row0"), var("r")), u(k)),
                    Expr::add(var("k0"), var("q4")),
                ),
            ),
        ];
        for c in 0..4 {
            let dst = Expr::add(Expr::mul(plus(var("q4"), c), u(t.bm)), var("r"));
            load.push(Node::store(
                "as",
                tile(a_len, dst),
                Expr::load("a", plus(var("src"), c)),
            ));
        }
        step.push(Node::block(load));
    }
    // The `B` tile as it is: element (kk, col) of the tile goes to `bs[kk * bn + col]`.
    let row_quads = t.bn / 4;
    for l in 0..t.b_loads() {
        let mut load = vec![
            Node::let_bind("e", plus(var("tid"), l * t.threads())),
            Node::let_bind("kr", Expr::div(var("e"), u(row_quads))),
            Node::let_bind("q4", Expr::mul(Expr::rem(var("e"), u(row_quads)), u(4))),
            Node::let_bind(
                "src",
                Expr::add(
                    Expr::mul(Expr::add(var("k0"), var("kr")), u(n)),
                    Expr::add(var("col0"), var("q4")),
                ),
            ),
            Node::let_bind("dst", Expr::add(Expr::mul(var("kr"), u(t.bn)), var("q4"))),
        ];
        for c in 0..4 {
            load.push(Node::store(
                "bs",
                tile(b_len, plus(var("dst"), c)),
                Expr::load("b", plus(var("src"), c)),
            ));
        }
        step.push(Node::block(load));
    }
    step.push(Node::barrier());
    // One `k` of the tile: the block's fragment, then its products.
    let mut inner = vec![
        Node::let_bind("ao", Expr::add(Expr::mul(var("kk"), u(t.bm)), var("ty4"))),
        Node::let_bind("bo", Expr::add(Expr::mul(var("kk"), u(t.bn)), var("tx4"))),
    ];
    for i in 0..t.tm {
        let at = tile(a_len, plus(var("ao"), t.row(i)));
        inner.push(Node::let_bind(format!("a{i}"), Expr::load("as", at)));
    }
    for j in 0..t.tn {
        let at = tile(b_len, plus(var("bo"), t.col(j)));
        inner.push(Node::let_bind(format!("b{j}"), Expr::load("bs", at)));
    }
    for i in 0..t.tm {
        for j in 0..t.tn {
            let acc = format!("c{i}_{j}");
            let product = Expr::fma(var(&format!("a{i}")), var(&format!("b{j}")), var(&acc));
            inner.push(Node::assign(acc, product));
        }
    }
    step.push(Node::loop_for("kk", u(0), u(t.bk), inner));
    // No invocation may refill a tile another is still reading.
    step.push(Node::barrier());
    body.push(Node::loop_for("s", u(0), u(k / t.bk), step));
    for i in 0..t.tm {
        body.push(Node::let_bind(
            format!("crow{i}"),
            Expr::mul(plus(Expr::add(var("row0"), var("ty4")), t.row(i)), u(n)),
        ));
    }
    body.push(Node::let_bind("ccol", Expr::add(var("col0"), var("tx4"))));
    for i in 0..t.tm {
        for j in 0..t.tn {
            let at = plus(Expr::add(var(&format!("crow{i}")), var("ccol")), t.col(j));
            body.push(Node::store("c", at, var(&format!("c{i}_{j}"))));
        }
    }
    Program::new(
        vec![
            BufferDecl::read("a", 0, DataType::F32).with_count(m * k),
            BufferDecl::read("b", 1, DataType::F32).with_count(k * n),
            BufferDecl::output("c", 2, DataType::F32).with_count(m * n),
            BufferDecl::workgroup("as", a_len, DataType::F32),
            BufferDecl::workgroup("bs", b_len, DataType::F32),
        ],
        [t.threads(), 1, 1],
        body,
    )
}

#[cfg(test)]
mod tests {
    use vyre_driver::{DispatchConfig, VyreBackend};

    use super::*;
    use crate::suite::gemm::tiling::{Expected, bytes, matrix};

    /// The smallest shape each built-in tiling covers, run by the reference backend and checked
    /// exactly: the program the benchmark times computes `A x B`.
    #[test]
    fn the_program_computes_the_product_on_the_reference() {
        for t in [Tiling::SMALL, Tiling::DEFAULT] {
            for indexing in [Indexing::Plain, Indexing::Masked] {
                let shape = Shape {
                    m: t.bm,
                    n: t.bn * 2,
                    k: t.bk * 2,
                };
                let program = gemm_program(shape, t, indexing);
                let (a, b) = (
                    matrix(u64::from(shape.m * shape.k), 1),
                    matrix(u64::from(shape.k * shape.n), 2),
                );
                let config = DispatchConfig::default().with_grid([2, 1, 1]);
                let out = vyre::ReferenceBackend::new()
                    .dispatch(&program, &[bytes(&a), bytes(&b)], &config)
                    .unwrap();
                Expected::of(shape, &a, &b)
                    .check("reference", &out[0])
                    .unwrap();
            }
        }
    }
}
