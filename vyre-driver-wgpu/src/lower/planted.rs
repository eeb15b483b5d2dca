//! Deliberately wrong lowerings, one per transformation that removes work from the generated code,
//! so that tests can prove the conformance checks notice when such a transformation is unsound.
//!
//! The switch is process-wide and exists only with the `planted-miscompiles` feature (which the
//! crate's own tests turn on through their dev-dependency on the crate). The pipeline cache does not
//! know about it, so a test plants a miscompile before it acquires the backend it checks, and runs in
//! a test binary of its own (`tests/planted_lowering.rs`).

#[cfg(feature = "planted-miscompiles")]
use std::sync::atomic::{AtomicU8, Ordering};

/// A deliberately wrong lowering (see the module docs).
#[doc(hidden)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Miscompile {
    /// The correct lowering.
    None,
    /// Every barrier gets the workgroup scope only, even where storage memory is shared.
    WeakBarrierScope,
    /// `if i < n` is taken to prove `b[i]` in bounds when `n` is one more than `b`'s count.
    GuardBoundOffByOne,
    /// The vectorised tail runs one lane too few: the last existing element of a partial row is
    /// skipped.
    VectorTailOffByOne,
    /// The vectorised full-row test ignores where the virtual grid ends, so a row that the grid
    /// ends inside runs all four lanes, elements no invocation owns included.
    VectorIgnoresGridEnd,
    /// A row read by one statement is reused by the later statements of the block, even after
    /// the variables of its index were assigned (`rows`).
    RowKeptAcrossStatements,
    /// An assigned `let` is held as an SSA value too, each assignment renaming it, with the new
    /// name forgotten where the body that assigned it ends (no merge at the end of a branch or a
    /// loop body).
    AssignedLetAsValue,
    /// A vectorised launch's tail (the rows the grid or a buffer ends inside, run by a second
    /// dispatch) is launched one row short, so a single partial row is never run.
    TailLaunchShort,
    /// A packed module takes `gid.x` to be below the *shortest* stored buffer's count rather than
    /// the longest, and drops the guards that wrongly proves.
    PackedBoundFromShortestStore,
    /// The `IntMinMax` workaround compares signed operands as unsigned ones.
    WorkaroundMinMaxUnsigned,
    /// A private array's guard goes where the index is proven below one more than its length.
    PrivateArrayBoundOffByOne,
    /// The `OpaqueWidening` workaround shifts back logically, so a signed source is zero-extended.
    WorkaroundWideningLogical,
    /// The `F16Rounding` workaround rounds ties away from zero instead of to even.
    WorkaroundF16TiesAway,
    /// The `SoftWideDivision` workaround gives a signed remainder the divisor's sign instead of
    /// the dividend's.
    WorkaroundSoftRemainderSign,
    /// The `SoftWideDivision` workaround's multiply-high drops the carry out of the middle
    /// products.
    WorkaroundSoftMultiplyHighNoCarry,
    /// A tile's bounds guard takes the room after its offset to be one element more than it is,
    /// so a tile whose last element lies just past the end still loads or stores.
    TileGuardOffByOne,
    /// A workgroup row's aligned load reads lane `(c + 1) % 4` of its row instead of lane `c`.
    WorkgroupRowLaneShifted,
    /// A quad store (four stores into one workgroup row as one) swaps lanes 1 and 2.
    WorkgroupQuadStoreLanesSwapped,
}

impl Miscompile {
    /// Every planted miscompile, the correct lowering excepted.
    pub const ALL: [Miscompile; 17] = [
        Miscompile::WeakBarrierScope,
        Miscompile::GuardBoundOffByOne,
        Miscompile::VectorTailOffByOne,
        Miscompile::VectorIgnoresGridEnd,
        Miscompile::RowKeptAcrossStatements,
        Miscompile::AssignedLetAsValue,
        Miscompile::TailLaunchShort,
        Miscompile::PackedBoundFromShortestStore,
        Miscompile::WorkaroundMinMaxUnsigned,
        Miscompile::WorkaroundWideningLogical,
        Miscompile::WorkaroundF16TiesAway,
        Miscompile::WorkaroundSoftRemainderSign,
        Miscompile::PrivateArrayBoundOffByOne,
        Miscompile::WorkaroundSoftMultiplyHighNoCarry,
        Miscompile::TileGuardOffByOne,
        Miscompile::WorkgroupRowLaneShifted,
        Miscompile::WorkgroupQuadStoreLanesSwapped,
    ];

    /// Whether this miscompile is in a driver workaround's rewrite: it shows only where that
    /// workaround is in force.
    #[must_use]
    pub const fn in_workaround(self) -> bool {
        matches!(
            self,
            Miscompile::WorkaroundMinMaxUnsigned
                | Miscompile::WorkaroundWideningLogical
                | Miscompile::WorkaroundF16TiesAway
                | Miscompile::WorkaroundSoftRemainderSign
                | Miscompile::WorkaroundSoftMultiplyHighNoCarry
        )
    }

    #[cfg(feature = "planted-miscompiles")]
    fn code(self) -> u8 {
        match self {
            Miscompile::None => 0,
            Miscompile::WeakBarrierScope => 1,
            Miscompile::GuardBoundOffByOne => 2,
            Miscompile::VectorTailOffByOne => 3,
            Miscompile::VectorIgnoresGridEnd => 4,
            Miscompile::RowKeptAcrossStatements => 5,
            Miscompile::AssignedLetAsValue => 6,
            Miscompile::TailLaunchShort => 7,
            Miscompile::PackedBoundFromShortestStore => 8,
            Miscompile::WorkaroundMinMaxUnsigned => 9,
            Miscompile::WorkaroundWideningLogical => 10,
            Miscompile::WorkaroundF16TiesAway => 11,
            Miscompile::WorkaroundSoftRemainderSign => 12,
            Miscompile::PrivateArrayBoundOffByOne => 13,
            Miscompile::WorkaroundSoftMultiplyHighNoCarry => 14,
            Miscompile::TileGuardOffByOne => 15,
            Miscompile::WorkgroupRowLaneShifted => 16,
            Miscompile::WorkgroupQuadStoreLanesSwapped => 17,
        }
    }
}

#[cfg(feature = "planted-miscompiles")]
static PLANTED: AtomicU8 = AtomicU8::new(0);

/// Makes every later lowering in this process use `miscompile` (test-only; see the module docs).
#[doc(hidden)]
#[cfg(feature = "planted-miscompiles")]
pub fn plant_miscompile(miscompile: Miscompile) {
    PLANTED.store(miscompile.code(), Ordering::SeqCst);
}

/// True when `miscompile` is planted.
#[cfg(feature = "planted-miscompiles")]
pub(crate) fn planted(miscompile: Miscompile) -> bool {
    miscompile != Miscompile::None && PLANTED.load(Ordering::SeqCst) == miscompile.code()
}

/// Without the feature nothing can be planted.
#[cfg(not(feature = "planted-miscompiles"))]
pub(crate) fn planted(_miscompile: Miscompile) -> bool {
    false
}

/// True when any miscompile is planted: its modules may break the bounds proof (see `trusted`).
#[cfg(feature = "planted-miscompiles")]
pub(crate) fn any_planted() -> bool {
    PLANTED.load(Ordering::SeqCst) != 0
}

/// Without the feature nothing can be planted.
#[cfg(not(feature = "planted-miscompiles"))]
pub(crate) fn any_planted() -> bool {
    false
}
