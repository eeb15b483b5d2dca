//! The kernels of the `f16` GEMM search (`hgemm_tuning`) and of `hgemm`'s goal baseline: each
//! [`Tuning`] as hand-written WGSL ([`tuned_wgsl`]) and, for the `f16`-stage ones, as a vyre
//! program ([`tuned_program`]). `tuning.rs` times them; `hgemm` measures kernel 3 (the best raw
//! kernel) against kernel 1's program.

use vyre_foundation::ir::{
    BufferDecl, DataType, Expr, Node, Program, TileLayout, TileRole, TileType,
};

/// The side of a tile.
pub(super) const SIDE: u32 = 16;

/// Lanes per subgroup the kernels are written for.
pub(super) const LANES: u32 = 32;

/// How a stage holds its elements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Stage {
    /// `array<f16>`, written from 8-byte words (`vec4<f16>` views of `A` and `B`) an element at a
    /// time.
    Halves,
    /// `array<vec4<f16>>`, written from 8-byte words (`vec4<f16>` views) one word at a time; the
    /// tiles load through pointers to those words (the stride counting words), which is what
    /// vyre's workgroup rows would give an `f16` stage.
    Quads,
    /// `array<vec4<u32>>`, written from 16-byte words (`vec4<u32>` views) one word at a time; the
    /// tiles load `f16` elements through those words.
    Words,
}

impl Stage {
    /// Elements of `f16` per word read from `A` and `B`.
    const fn width(self) -> u32 {
        match self {
            Stage::Halves | Stage::Quads => 4,
            Stage::Words => 8,
        }
    }

    /// Elements of `f16` per element of the stage's array.
    const fn unit(self) -> u32 {
        match self {
            Stage::Halves => 1,
            Stage::Quads => 4,
            Stage::Words => 8,
        }
    }
}

/// One kernel of the search.
#[derive(Clone, Copy, Debug)]
pub(super) struct Tuning {
    /// The name in the report.
    pub(super) name: &'static str,
    /// Subgroups along the rows and the columns of the workgroup's block of `C`.
    pub(super) grid: [u32; 2],
    /// Tiles of `C` per subgroup along rows and columns.
    pub(super) tiles: [u32; 2],
    /// Elements of `k` per stage (a multiple of 16).
    pub(super) bk: u32,
    /// Extra elements at the end of every staged row (a multiple of 8).
    pub(super) pad: u32,
    /// The stage's element.
    pub(super) stage: Stage,
}

impl Tuning {
    /// Invocations per workgroup.
    pub(super) const fn invocations(&self) -> u32 {
        self.grid[0] * self.grid[1] * LANES
    }

    /// Elements of `C` per workgroup along rows and columns.
    pub(super) const fn block(&self) -> [u32; 2] {
        [
            self.grid[0] * self.tiles[0] * SIDE,
            self.grid[1] * self.tiles[1] * SIDE,
        ]
    }

    /// Words of `A` and of `B` each invocation copies per step (`None`: the stage does not split
    /// evenly over the invocations).
    fn copies(&self) -> Option<[u32; 2]> {
        let [bm, bn] = self.block();
        let (w, t) = (self.stage.width(), self.invocations());
        let (ua, ub) = (bm * self.bk / w, self.bk * bn / w);
        (ua % t == 0 && ub % t == 0 && ua >= t && ub >= t).then_some([ua / t, ub / t])
    }

    /// Bytes of workgroup memory: two stages of `A`'s and `B`'s blocks, rows padded.
    pub(super) const fn workgroup_bytes(&self) -> u32 {
        let [bm, bn] = self.block();
        2 * 2 * (bm * (self.bk + self.pad) + self.bk * (bn + self.pad))
    }

    /// Whether the kernel can run `m x n x k`.
    pub(super) fn fits(&self, m: u32, n: u32, k: u32) -> bool {
        let [bm, bn] = self.block();
        self.copies().is_some()
            && m.is_multiple_of(bm)
            && n.is_multiple_of(bn)
            && k.is_multiple_of(self.bk)
            && k / self.bk >= 1
    }
}

/// The kernels of the search; the first is `hgemm`'s four-subgroup kernel as this generator writes
/// it (the row every other is measured against).
pub(super) const TUNINGS: [Tuning; 12] = [
    Tuning {
        name: "4 subgroups of 64x64, k 16, no pad, f16 stage",
        grid: [2, 2],
        tiles: [4, 4],
        bk: 16,
        pad: 0,
        stage: Stage::Halves,
    },
    Tuning {
        name: "4 subgroups of 64x64, k 16, pad 8, f16 stage",
        grid: [2, 2],
        tiles: [4, 4],
        bk: 16,
        pad: 8,
        stage: Stage::Halves,
    },
    Tuning {
        name: "4 subgroups of 64x64, k 32, pad 8, f16 stage",
        grid: [2, 2],
        tiles: [4, 4],
        bk: 32,
        pad: 8,
        stage: Stage::Halves,
    },
    Tuning {
        name: "4 subgroups of 64x64, k 16, pad 8, quad stage",
        grid: [2, 2],
        tiles: [4, 4],
        bk: 16,
        pad: 8,
        stage: Stage::Quads,
    },
    Tuning {
        name: "4 subgroups of 64x64, k 32, pad 8, quad stage",
        grid: [2, 2],
        tiles: [4, 4],
        bk: 32,
        pad: 8,
        stage: Stage::Quads,
    },
    Tuning {
        name: "4 subgroups of 64x64, k 16, no pad, word stage",
        grid: [2, 2],
        tiles: [4, 4],
        bk: 16,
        pad: 0,
        stage: Stage::Words,
    },
    Tuning {
        name: "4 subgroups of 64x64, k 32, no pad, word stage",
        grid: [2, 2],
        tiles: [4, 4],
        bk: 32,
        pad: 0,
        stage: Stage::Words,
    },
    Tuning {
        name: "4 subgroups of 64x64, k 32, pad 8, word stage",
        grid: [2, 2],
        tiles: [4, 4],
        bk: 32,
        pad: 8,
        stage: Stage::Words,
    },
    Tuning {
        name: "8 subgroups of 64x32, k 32, pad 8, word stage",
        grid: [2, 4],
        tiles: [4, 2],
        bk: 32,
        pad: 8,
        stage: Stage::Words,
    },
    Tuning {
        name: "8 subgroups of 32x64, k 32, pad 8, word stage",
        grid: [4, 2],
        tiles: [2, 4],
        bk: 32,
        pad: 8,
        stage: Stage::Words,
    },
    Tuning {
        name: "8 subgroups of 64x64, k 16, pad 8, word stage",
        grid: [4, 2],
        tiles: [4, 4],
        bk: 16,
        pad: 8,
        stage: Stage::Words,
    },
    Tuning {
        name: "4 subgroups of 32x32, k 32, pad 8, word stage",
        grid: [2, 2],
        tiles: [2, 2],
        bk: 32,
        pad: 8,
        stage: Stage::Words,
    },
];

/// The kernel `tuning` for an `n`-column `B` and `C` and a `k`-column `A` (see the module docs).
pub(super) fn tuned_wgsl(tuning: &Tuning, n: u32, k: u32) -> String {
    let Tuning {
        grid: [_, gc],
        tiles: [tm, tn],
        bk,
        pad,
        stage,
        ..
    } = *tuning;
    let [ca, cb] = tuning
        .copies()
        .expect("a tuning whose stages split over its invocations");
    let [bm, bn] = tuning.block();
    let (w, t) = (stage.width(), tuning.invocations());
    let steps = k / bk;
    // Row lengths of the stages in elements, and in the stage array's elements.
    let (ra, rb) = (bk + pad, bn + pad);
    let unit = stage.unit();
    let stage_len = (bm * ra + bk * rb) / unit;
    let (word, stage_ty) = match stage {
        Stage::Halves => ("vec4<f16>", "f16"),
        Stage::Quads => ("vec4<f16>", "vec4<f16>"),
        Stage::Words => ("vec4<u32>", "vec4<u32>"),
    };
    let mut s = String::new();
    s.push_str("enable f16;\nenable wgpu_cooperative_matrix;\n\n");
    s.push_str(&format!(
        "@group(0) @binding(0) var<storage, read> a: array<{word}>;\n"
    ));
    s.push_str(&format!(
        "@group(0) @binding(1) var<storage, read> b: array<{word}>;\n"
    ));
    s.push_str("@group(0) @binding(2) var<storage, read_write> c: array<f32>;\n");
    // Two stages, each `A`'s block then `B`'s.
    s.push_str(&format!(
        "var<workgroup> st: array<{stage_ty}, {}>;\n\n",
        2 * stage_len
    ));
    s.push_str(&format!("@compute @workgroup_size({t})\n"));
    s.push_str("fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {\n");
    s.push_str(&format!(
        "    let row0 = wid.y * {bm}u;\n    let col0 = wid.x * {bn}u;\n"
    ));
    s.push_str(&format!(
        "    let sg = lid / {LANES}u;\n    let rs = (sg / {gc}u) * {}u;\n    let cs = (sg % {gc}u) * {}u;\n",
        tm * SIDE,
        tn * SIDE
    ));
    for i in 0..tm {
        for j in 0..tn {
            s.push_str(&format!("    var acc{i}_{j}: coop_mat16x16<f32, C>;\n"));
        }
    }
    for q in 0..ca {
        s.push_str(&format!("    var wa{q}: {word};\n"));
    }
    for q in 0..cb {
        s.push_str(&format!("    var wb{q}: {word};\n"));
    }
    // Word `q` of this invocation's copies: its row and column (in words) within the operand's
    // staged block.
    let (wa_row, wb_row) = (bk / w, bn / w);
    let word = |q: u32| format!("(lid + {}u)", q * t);
    // Loads of step `step` (a WGSL expression) into the registers.
    let load = |step: &str| {
        let mut out = String::new();
        for q in 0..ca {
            let u = word(q);
            out.push_str(&format!(
                "        wa{q} = a[(row0 + {u} / {wa_row}u) * {}u + {step} * {}u + {u} % {wa_row}u];\n",
                k / w,
                bk / w
            ));
        }
        for q in 0..cb {
            let u = word(q);
            out.push_str(&format!(
                "        wb{q} = b[({step} * {bk}u + {u} / {wb_row}u) * {}u + col0 / {w}u + {u} % {wb_row}u];\n",
                n / w
            ));
        }
        out
    };
    // Stores of the registers into the stage starting at array element `base`.
    let store = |base: &str| {
        let mut out = String::new();
        // Per operand: its registers, their count, where its block starts in the stage, and its
        // row lengths in words and in stage elements.
        for (reg, copies, start, words, row) in
            [("wa", ca, 0, wa_row, ra), ("wb", cb, bm * ra, wb_row, rb)]
        {
            for q in 0..copies {
                let u = word(q);
                let at = format!(
                    "{base} + {}u + ({u} / {words}u) * {}u + ({u} % {words}u) * {}u",
                    start / unit,
                    row / unit,
                    w / unit
                );
                match stage {
                    Stage::Halves => {
                        for lane in 0..4 {
                            out.push_str(&format!(
                                "        st[{at} + {lane}u] = {reg}{q}[{lane}];\n"
                            ));
                        }
                    }
                    Stage::Quads | Stage::Words => {
                        out.push_str(&format!("        st[{at}] = {reg}{q};\n"));
                    }
                }
            }
        }
        out
    };
    s.push_str(&load("0u"));
    s.push_str(&store("0u"));
    s.push_str("    workgroupBarrier();\n");
    s.push_str(&format!("    for (var t = 0u; t < {steps}u; t++) {{\n"));
    s.push_str(&format!(
        "        let cur = (t % 2u) * {stage_len}u;\n        let nxt = {stage_len}u - cur;\n        let more = t + 1u < {steps}u;\n"
    ));
    s.push_str("        if (more) {\n");
    s.push_str(&load("(t + 1u)"));
    s.push_str("        }\n");
    for kq in 0..bk / SIDE {
        for i in 0..tm {
            s.push_str(&format!(
                "        let a{kq}_{i} = coopLoadT<coop_mat16x16<f16, A>>(&st[cur + ((rs + {}u) * {ra}u + {}u) / {unit}u], {}u);\n",
                i * SIDE,
                kq * SIDE,
                ra / unit
            ));
        }
        for j in 0..tn {
            s.push_str(&format!(
                "        let b{kq}_{j} = coopLoadT<coop_mat16x16<f16, B>>(&st[cur + ({}u + cs + {}u) / {unit}u], {}u);\n",
                bm * ra + kq * SIDE * rb,
                j * SIDE,
                rb / unit
            ));
        }
        for i in 0..tm {
            for j in 0..tn {
                s.push_str(&format!(
                    "        acc{i}_{j} = coopMultiplyAdd(a{kq}_{i}, b{kq}_{j}, acc{i}_{j});\n"
                ));
            }
        }
    }
    s.push_str("        if (more) {\n");
    s.push_str(&store("nxt"));
    s.push_str("        }\n        workgroupBarrier();\n    }\n");
    for i in 0..tm {
        for j in 0..tn {
            s.push_str(&format!(
                "    coopStoreT(acc{i}_{j}, &c[(row0 + rs + {}u) * {n}u + col0 + cs + {}u], {n}u);\n",
                i * SIDE,
                j * SIDE
            ));
        }
    }
    s.push_str("}\n");
    s
}

/// A [`Stage::Halves`] tuning through vyre's IR, as [`tuned_wgsl`] writes it but for the copies:
/// vyre has no vector type, so each invocation loads its words' elements one at a time (into
/// `let`s, step `t + 1`'s before step `t`'s multiply-adds) and stores them one at a time into the
/// other stage. The lowering gives it the [`Stage::Quads`] kernel's shape: `A` and `B` are read as
/// `vec4<f16>` rows, the stage is declared as `vec4<f16>` rows (only tiles read it, at offsets and
/// strides proven 16-byte multiples), and each word's four stores are one quad store
/// (`lower::rows`). The last step's loads read past `A` and `B` (zeros, by the law) into a stage
/// no step reads. `None` for a [`Stage::Words`] tuning.
pub(super) fn tuned_program(tuning: &Tuning, m: u32, n: u32, k: u32) -> Option<Program> {
    if tuning.stage != Stage::Halves {
        return None;
    }
    let Tuning {
        grid: [_, gc],
        tiles: [tm, tn],
        bk,
        pad,
        stage,
        ..
    } = *tuning;
    let [ca, cb] = tuning.copies()?;
    let [bm, bn] = tuning.block();
    let (w, t) = (stage.width(), tuning.invocations());
    let (ra, rb) = (bk + pad, bn + pad);
    let stage_len = bm * ra + bk * rb;
    let (wa_row, wb_row) = (bk / w, bn / w);
    let u = Expr::u32;
    let v = |name: &str| Expr::var(name);
    let mut body = vec![
        Node::let_bind("lid", Expr::local_x()),
        Node::let_bind("row0", Expr::mul(Expr::workgroup_y(), u(bm))),
        Node::let_bind("col0", Expr::mul(Expr::workgroup_x(), u(bn))),
        Node::let_bind("sg", Expr::div(Expr::local_x(), Expr::subgroup_size())),
        Node::let_bind("rs", Expr::mul(Expr::div(v("sg"), u(gc)), u(tm * SIDE))),
        Node::let_bind("cs", Expr::mul(Expr::rem(v("sg"), u(gc)), u(tn * SIDE))),
    ];
    // Word `q`'s row (`ar{q}`, `br{q}`) and first column (`ac{q}`, `bc{q}`) within each
    // operand's staged block.
    for (operand, copies, words) in [("a", ca, wa_row), ("b", cb, wb_row)] {
        for q in 0..copies {
            let word = Expr::add(v("lid"), u(q * t));
            body.push(Node::let_bind(
                format!("{operand}r{q}"),
                Expr::div(word.clone(), u(words)),
            ));
            body.push(Node::let_bind(
                format!("{operand}c{q}"),
                Expr::mul(Expr::rem(word, u(words)), u(w)),
            ));
        }
    }
    let tile = |role, element| TileType::new(role, SIDE, SIDE, element);
    for i in 0..tm {
        for j in 0..tn {
            body.push(Node::tile(
                format!("acc{i}_{j}"),
                tile(TileRole::Accumulator, DataType::F32),
            ));
        }
    }
    // Step `step`'s elements into `let`s `xa{q}_{e}` and `xb{q}_{e}` (`suffix` keeps names apart).
    let load = |step: Expr, suffix: &str| -> Vec<Node> {
        let mut out = Vec::new();
        for q in 0..ca {
            for e in 0..w {
                // The word's first element, then the lane: `base + e`, the shape whose loads
                // read `vec4<f16>` rows (`lower::rows`).
                let base = Expr::add(
                    Expr::add(
                        Expr::mul(Expr::add(v("row0"), v(&format!("ar{q}"))), u(k)),
                        Expr::mul(step.clone(), u(bk)),
                    ),
                    v(&format!("ac{q}")),
                );
                let at = Expr::add(base, u(e));
                out.push(Node::let_bind(
                    format!("xa{q}_{e}{suffix}"),
                    Expr::load("a", at),
                ));
            }
        }
        for q in 0..cb {
            for e in 0..w {
                let base = Expr::add(
                    Expr::add(
                        Expr::mul(
                            Expr::add(Expr::mul(step.clone(), u(bk)), v(&format!("br{q}"))),
                            u(n),
                        ),
                        v("col0"),
                    ),
                    v(&format!("bc{q}")),
                );
                let at = Expr::add(base, u(e));
                out.push(Node::let_bind(
                    format!("xb{q}_{e}{suffix}"),
                    Expr::load("b", at),
                ));
            }
        }
        out
    };
    // The `let`s into the stage starting at element `base`.
    let store = |base: Expr, suffix: &str| -> Vec<Node> {
        let mut out = Vec::new();
        for q in 0..ca {
            for e in 0..w {
                // The word's first element, then the lane: four stores at `word + e` into one
                // workgroup row are one quad store (`lower::rows`).
                let word = Expr::add(
                    Expr::add(base.clone(), Expr::mul(v(&format!("ar{q}")), u(ra))),
                    v(&format!("ac{q}")),
                );
                let at = Expr::add(word, u(e));
                out.push(Node::store("st", at, v(&format!("xa{q}_{e}{suffix}"))));
            }
        }
        for q in 0..cb {
            for e in 0..w {
                let word = Expr::add(
                    Expr::add(
                        Expr::add(base.clone(), u(bm * ra)),
                        Expr::mul(v(&format!("br{q}")), u(rb)),
                    ),
                    v(&format!("bc{q}")),
                );
                let at = Expr::add(word, u(e));
                out.push(Node::store("st", at, v(&format!("xb{q}_{e}{suffix}"))));
            }
        }
        out
    };
    body.extend(load(u(0), "p"));
    body.extend(store(u(0), "p"));
    body.push(Node::Barrier);
    let mut inner = vec![
        Node::let_bind("cur", Expr::mul(Expr::rem(v("t"), u(2)), u(stage_len))),
        Node::let_bind("nxt", Expr::sub(u(stage_len), v("cur"))),
    ];
    inner.extend(load(Expr::add(v("t"), u(1)), ""));
    for kq in 0..bk / SIDE {
        for i in 0..tm {
            let name = format!("ta{kq}_{i}");
            inner.push(Node::tile(name.as_str(), tile(TileRole::A, DataType::F16)));
            inner.push(Node::tile_load(
                name,
                "st",
                Expr::add(
                    v("cur"),
                    Expr::add(
                        Expr::mul(Expr::add(v("rs"), u(i * SIDE)), u(ra)),
                        u(kq * SIDE),
                    ),
                ),
                u(ra),
                TileLayout::RowMajor,
            ));
        }
        for j in 0..tn {
            let name = format!("tb{kq}_{j}");
            inner.push(Node::tile(name.as_str(), tile(TileRole::B, DataType::F16)));
            inner.push(Node::tile_load(
                name,
                "st",
                Expr::add(
                    v("cur"),
                    Expr::add(u(bm * ra + kq * SIDE * rb), Expr::add(v("cs"), u(j * SIDE))),
                ),
                u(rb),
                TileLayout::RowMajor,
            ));
        }
        for i in 0..tm {
            for j in 0..tn {
                let acc = format!("acc{i}_{j}");
                inner.push(Node::tile_multiply_add(
                    acc.as_str(),
                    format!("ta{kq}_{i}"),
                    format!("tb{kq}_{j}"),
                    acc.as_str(),
                ));
            }
        }
    }
    inner.extend(store(v("nxt"), ""));
    inner.push(Node::Barrier);
    body.push(Node::loop_for("t", u(0), u(k / bk), inner));
    for i in 0..tm {
        for j in 0..tn {
            let at = Expr::add(
                Expr::mul(Expr::add(v("row0"), Expr::add(v("rs"), u(i * SIDE))), u(n)),
                Expr::add(v("col0"), Expr::add(v("cs"), u(j * SIDE))),
            );
            body.push(Node::tile_store(
                format!("acc{i}_{j}"),
                "c",
                at,
                u(n),
                TileLayout::RowMajor,
            ));
        }
    }
    Some(Program::new(
        vec![
            BufferDecl::read("a", 0, DataType::F16).with_count(m * k),
            BufferDecl::read("b", 1, DataType::F16).with_count(k * n),
            BufferDecl::output("c", 2, DataType::F32).with_count(m * n),
            BufferDecl::workgroup("st", 2 * stage_len, DataType::F16),
        ],
        [t, 1, 1],
        body,
    ))
}
