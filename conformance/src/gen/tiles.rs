//! Matrix tiles (`Feature::Tiles`, `SEMANTICS.md` section 9a): a `let` in five at the top level of
//! the body (where control flow is uniform, as for barriers) becomes a tile block: `a` and `b`
//! tiles of 16x16 `f16` loaded from the read buffer `tsrc` at literal offsets and strides in either
//! layout (in bounds, one element past the end, lines that overlap), one or two multiply-adds into
//! an accumulator, in half the blocks inside a counted loop of one to three trips whose counter
//! steps the offsets, and a store into the block's own region of the output `tdst` (in bounds,
//! with overlapping lines, or past the end of the last region: nothing written).
//!
//! Half the blocks are *per subgroup*: they bind `sg = lid.x / subgroup_size()`, may add `sg`
//! times a literal to their load offsets (each subgroup its own tiles, SEMANTICS.md 9a), and
//! store into the `sg`-th copy of their region (`SUBGROUP_SLOTS` copies; a subgroup past them
//! stores out of bounds: nothing). The other blocks load and store the same tile in every
//! subgroup. So every invocation of every workgroup that stores to an element stores the same
//! value, and each block stores into a region no other block touches: the outputs do not depend
//! on the order workgroups or subgroups run in. `tsrc` holds the small exact values comparable
//! programs' floats have, so most sums are exact in any order; the reference reports the others
//! indeterminate. Tiles are 16x16x16 only, the shape every device with cooperative matrices
//! lists; the workgroup is `[64, 1, 1]` (`decode`), whole subgroups on every device whose
//! subgroups have at most 64 lanes (others refuse the program as unsupported, which the fuzzer
//! skips), two subgroups on NVIDIA's 32.

use vyre_foundation::ir::{
    BufferDecl, DataType, Expr, Node, TileLayout, TileRole, TileShape, TileType,
};

use crate::r#gen::decode::Ctx;
use crate::r#gen::layout::{BufInfo, Role};
use crate::r#gen::recipe::Choices;

/// The side of every generated tile.
pub(crate) const SIDE: u32 = 16;
/// The workgroup size of a case with tiles.
pub(crate) const TILE_WORKGROUP: u32 = 64;
/// Copies of each region of `tdst`, one per subgroup of a per-subgroup block (two subgroups of 32
/// lanes fill a workgroup).
const SUBGROUP_SLOTS: u32 = 2;
/// The multiply-add shapes the generated blocks use: 16x16x16 `f16` into `f32` or `f16`.
pub(crate) fn shapes() -> [TileShape; 2] {
    [DataType::F32, DataType::F16].map(|accumulator| TileShape {
        m: SIDE,
        n: SIDE,
        k: SIDE,
        input: DataType::F16,
        accumulator,
    })
}

/// Elements of `tsrc`.
const SOURCE: u32 = SIDE * SIDE * 2 + 64;
/// Elements of one block's region of `tdst`: the largest footprint (stride 20) fits.
const REGION: u32 = 320;
/// Regions of `tdst`, so tile blocks per program.
pub(crate) const REGIONS: u32 = 2;

/// The two buffers a case with tiles adds: `tsrc` (read, `f16`) and `tdst` (output, `f32` or, for
/// one word in four, `f16`).
pub(crate) fn tile_buffers(word: u32) -> [BufInfo; 2] {
    let accumulator = if word % 4 == 3 {
        DataType::F16
    } else {
        DataType::F32
    };
    [
        BufInfo {
            decl: BufferDecl::read("tsrc", 0, DataType::F16).with_count(SOURCE),
            role: Role::ReadOnly,
            slots: 0,
            input_elements: SOURCE,
            rows: false,
        },
        BufInfo {
            decl: BufferDecl::output("tdst", 0, accumulator)
                .with_count(REGION * REGIONS * SUBGROUP_SLOTS),
            role: Role::TileOutput,
            slots: 0,
            input_elements: 0,
            rows: false,
        },
    ]
}

/// The elements a tile of `SIDE` lines `stride` apart spans.
fn footprint(stride: u32) -> u32 {
    (SIDE - 1) * stride + SIDE
}

impl Ctx {
    /// True where a tile block may stand: the top level, before any return that only some
    /// invocations ran, with a region of `tdst` left.
    pub(crate) fn tile_room(&self) -> bool {
        self.nesting() == 0 && !self.diverged && self.tile_blocks < REGIONS
    }

    /// A tile block (see the module docs).
    pub(crate) fn tile_block(&mut self, ch: &mut Choices<'_>) {
        let Some(accumulator) = self
            .buffers
            .iter()
            .find(|b| b.role == Role::TileOutput)
            .map(|b| b.decl.element)
        else {
            return;
        };
        let region = self.tile_blocks;
        self.tile_blocks += 1;
        let layout = |ch: &mut Choices<'_>| {
            if ch.one_in(2) {
                TileLayout::RowMajor
            } else {
                TileLayout::ColumnMajor
            }
        };
        let (a, b, c) = (self.fresh("ta"), self.fresh("tb"), self.fresh("tc"));
        let subgroup = ch.one_in(2).then(|| self.fresh("sg"));
        if let Some(sg) = &subgroup {
            self.emit(Node::let_bind(
                sg.as_str(),
                Expr::div(Expr::local_x(), Expr::subgroup_size()),
            ));
        }
        self.emit(Node::tile(
            a.as_str(),
            TileType::new(TileRole::A, SIDE, SIDE, DataType::F16),
        ));
        self.emit(Node::tile(
            b.as_str(),
            TileType::new(TileRole::B, SIDE, SIDE, DataType::F16),
        ));
        self.emit(Node::tile(
            c.as_str(),
            TileType::new(TileRole::Accumulator, SIDE, SIDE, accumulator),
        ));
        // Half the blocks load and multiply-add in a counted loop with literal bounds, the offsets
        // stepping with its counter: uniform by vyre's analysis, and a function-local variable to
        // naga's (the lowering's diagnostic filter and guards on loop-dependent offsets).
        let trips = if ch.one_in(2) {
            1 + ch.below(3) as u32
        } else {
            0
        };
        let counter = (trips > 0).then(|| self.fresh("kt"));
        if let Some(kt) = &counter {
            self.open_loop(kt.clone(), DataType::U32, Expr::u32(0), Expr::u32(trips));
        }
        for tile in [&a, &b] {
            // Overlapping lines (15) are fine to read.
            let stride = [SIDE, SIDE + 1, SIDE + 4, SIDE - 1][ch.below(4)];
            let last = SOURCE - footprint(stride);
            let offset = match ch.below(8) {
                0 => last + 1,
                1 => last,
                _ => ch.below(last as usize + 1) as u32,
            };
            let offset = match &counter {
                // The last trip ends at `offset`: every earlier one reads in bounds too.
                Some(kt) => {
                    let step = ch.below(40) as u32;
                    let first = offset.saturating_sub((trips - 1) * step);
                    Expr::add(
                        Expr::u32(first),
                        Expr::mul(Expr::var(kt.as_str()), Expr::u32(step)),
                    )
                }
                None => Expr::u32(offset),
            };
            // Each subgroup its own tile, maybe.
            let offset = match &subgroup {
                Some(sg) if ch.one_in(2) => Expr::add(
                    offset,
                    Expr::mul(Expr::var(sg.as_str()), Expr::u32(ch.below(48) as u32)),
                ),
                _ => offset,
            };
            let l = layout(ch);
            self.emit(Node::tile_load(
                tile.as_str(),
                "tsrc",
                offset,
                Expr::u32(stride),
                l,
            ));
        }
        for _ in 0..=ch.below(2) {
            self.emit(Node::tile_multiply_add(
                c.as_str(),
                a.as_str(),
                b.as_str(),
                c.as_str(),
            ));
        }
        if counter.is_some() {
            self.close();
        }
        // Within the block's region, unless the lines overlap (nothing written) or, for a block
        // of the last region that is not per subgroup, the footprint passes the end of `tdst`
        // (nothing written either: a store is all or nothing, so it races with no other).
        let stride = [SIDE, SIDE + 1, SIDE + 4, SIDE - 1][ch.below(4)];
        let base = region * REGION;
        let offset = if stride < SIDE {
            base
        } else if region + 1 == REGIONS && subgroup.is_none() && ch.one_in(6) {
            REGION * REGIONS * SUBGROUP_SLOTS - footprint(stride) + 1
        } else {
            base + ch.below((REGION - footprint(stride)) as usize + 1) as u32
        };
        // A per-subgroup block stores into its subgroup's copy of the regions.
        let offset = match &subgroup {
            Some(sg) => Expr::add(
                Expr::u32(offset),
                Expr::mul(Expr::var(sg.as_str()), Expr::u32(REGION * REGIONS)),
            ),
            None => Expr::u32(offset),
        };
        let l = layout(ch);
        self.emit(Node::tile_store(
            c.as_str(),
            "tdst",
            offset,
            Expr::u32(stride),
            l,
        ));
    }
}
