//! Matrix tiles: a matrix held by a whole subgroup, for multiply-accumulate on tensor cores.
//!
//! A tile is declared by [`crate::ir::Node::Tile`], filled by [`crate::ir::Node::TileLoad`], combined
//! by [`crate::ir::Node::TileMultiplyAdd`] and written back by [`crate::ir::Node::TileStore`];
//! `SEMANTICS.md` section 9a gives the law. Every tile statement runs in workgroup-uniform control
//! flow with workgroup-uniform operands, so every invocation holds the same tile value: the
//! reference keeps a copy per invocation, a GPU spreads one over the lanes of a subgroup.

use crate::ir::DataType;

/// The sizes a tile dimension may have (WGSL's `coop_mat8x8` and `coop_mat16x16`).
pub const TILE_SIZES: [u32; 2] = [8, 16];

/// What a tile is for in `target = a x b + c`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum TileRole {
    /// The left operand `a`: `m` rows, `k` columns, `f16` elements.
    A,
    /// The right operand `b`: `k` rows, `n` columns, `f16` elements.
    B,
    /// The accumulator `c` and the result: `m` rows, `n` columns, `f16` or `f32` elements.
    Accumulator,
}

impl TileRole {
    /// Every role, in declaration order.
    pub const ALL: [TileRole; 3] = [TileRole::A, TileRole::B, TileRole::Accumulator];

    /// The text form's word for the role.
    #[must_use]
    pub const fn word(self) -> &'static str {
        match self {
            TileRole::A => "a",
            TileRole::B => "b",
            TileRole::Accumulator => "accumulator",
        }
    }
}

/// How a tile's elements lie in a buffer, from the element at `offset`, `stride` elements apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum TileLayout {
    /// Element `(r, c)` at `offset + r * stride + c`.
    RowMajor,
    /// Element `(r, c)` at `offset + c * stride + r`.
    ColumnMajor,
}

impl TileLayout {
    /// The text form's word for the layout.
    #[must_use]
    pub const fn word(self) -> &'static str {
        match self {
            TileLayout::RowMajor => "row_major",
            TileLayout::ColumnMajor => "column_major",
        }
    }

    /// The buffer position of element `(row, column)` relative to the tile's offset, in `u64` so
    /// that nothing wraps.
    #[must_use]
    pub const fn position(self, row: u32, column: u32, stride: u32) -> u64 {
        let (major, minor) = match self {
            TileLayout::RowMajor => (row, column),
            TileLayout::ColumnMajor => (column, row),
        };
        major as u64 * stride as u64 + minor as u64
    }

    /// The element count one line of the layout holds (a row of a row-major tile, a column of a
    /// column-major one): a stride below it makes lines overlap.
    #[must_use]
    pub const fn line(self, rows: u32, columns: u32) -> u32 {
        match self {
            TileLayout::RowMajor => columns,
            TileLayout::ColumnMajor => rows,
        }
    }
}

/// The type of a tile: its role, its shape and its element type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct TileType {
    /// What the tile is for.
    pub role: TileRole,
    /// The row count, one of [`TILE_SIZES`].
    pub rows: u32,
    /// The column count, one of [`TILE_SIZES`].
    pub columns: u32,
    /// `f16` for [`TileRole::A`] and [`TileRole::B`]; `f16` or `f32` for an accumulator.
    pub element: DataType,
}

impl TileType {
    /// A tile type.
    #[must_use]
    pub const fn new(role: TileRole, rows: u32, columns: u32, element: DataType) -> Self {
        Self {
            role,
            rows,
            columns,
            element,
        }
    }

    /// The element count.
    #[must_use]
    pub const fn len(self) -> u32 {
        self.rows * self.columns
    }

    /// Whether the tile has no element (never true of a valid tile).
    #[must_use]
    pub const fn is_empty(self) -> bool {
        self.len() == 0
    }
}

/// One multiply-accumulate shape a backend runs: `m x k` times `k x n` plus `m x n`, with inputs
/// of type `input` and accumulator of type `accumulator` (`Capabilities::matrix_tiles` lists them).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct TileShape {
    /// The rows of `a`, the accumulator and the result.
    pub m: u32,
    /// The columns of `b`, the accumulator and the result.
    pub n: u32,
    /// The columns of `a` and the rows of `b`.
    pub k: u32,
    /// The element type of `a` and `b`.
    pub input: DataType,
    /// The element type of the accumulator and the result.
    pub accumulator: DataType,
}

impl TileShape {
    /// Every shape the IR can express: square 8 and 16, `f16` inputs, `f16` or `f32` accumulators
    /// (what the reference runs; a GPU lists the subset its adapter reports).
    #[must_use]
    pub fn all() -> Vec<TileShape> {
        let mut out = Vec::new();
        for size in TILE_SIZES {
            for accumulator in [DataType::F16, DataType::F32] {
                out.push(TileShape {
                    m: size,
                    n: size,
                    k: size,
                    input: DataType::F16,
                    accumulator,
                });
            }
        }
        out
    }
}

impl std::fmt::Display for TileShape {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}x{}x{} {} -> {}",
            self.m, self.n, self.k, self.input, self.accumulator
        )
    }
}
