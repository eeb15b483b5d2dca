//! Which tile loads and stores may point the cooperative-matrix operation straight into their
//! buffer, and which must go through a stage in workgroup memory (`lower/tile.rs`, "Alignment").
//!
//! Vulkan requires the pointer and the stride of `OpCooperativeMatrixLoadKHR` and
//! `OpCooperativeMatrixStoreKHR` to be aligned to the lesser of 16 bytes and a line's natural
//! alignment (VUID-RuntimeSpirv-OpCooperativeMatrixLoadKHR-08986). A line of a vyre tile is 8 or
//! 16 elements of 2 or 4 bytes, 16 bytes or more, so both must be multiples of 16 bytes: 8 `f16`
//! elements or 4 `f32`. The H100 shows what happens otherwise: a tile stored at an odd `f16` offset
//! with an even stride lands one element early. A transfer is direct when its offset and stride are
//! proven multiples here ([`KnownZeros`]) and the buffer has no item offset (a coalesced launch
//! lays items end to end, at any element); every other one is checked at run time and staged when
//! it is not aligned.

use vyre_foundation::ir::{BufferAccess, DataType, Expr, Features, Node};
use vyre_foundation::validate::Validated;

use super::zeros::KnownZeros;

/// The alignment, in bytes, of a cooperative matrix's pointer and stride.
pub(crate) const TILE_ALIGN_BYTES: u32 = 16;

/// The elements of a stage: the largest tile, 16 by 16.
pub(crate) const STAGE_ELEMENTS: u32 = 256;

/// The low bits an element offset or stride of `element` must have zero: `log2(16 / size)`.
pub(crate) fn zeros_needed(element: DataType) -> u32 {
    (TILE_ALIGN_BYTES / element.size_bytes() as u32).trailing_zeros()
}

/// True when a transfer's `offset` and `stride` are multiples of 16 bytes of `element` in every
/// evaluation, by the trailing zeros `zeros` knows.
pub(crate) fn transfer_aligned(
    zeros: &KnownZeros,
    evidence: &Validated<'_>,
    (offset, stride): (&Expr, &Expr),
    element: DataType,
) -> bool {
    let need = zeros_needed(element);
    zeros.of(evidence, offset) >= need && zeros.of(evidence, stride) >= need
}

/// What the tile lowering knows of a program's transfers.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct TileFacts {
    /// The immutable variables' trailing zeros, which prove offsets and strides aligned.
    pub(crate) zeros: KnownZeros,
    /// The elements of the transfers not proven aligned (each once).
    unproven: Vec<DataType>,
    /// The elements of the proven transfers through storage buffers, which a coalesced launch
    /// offsets by its items' starts (each once).
    storage: Vec<DataType>,
}

impl TileFacts {
    /// The facts of a program with tiles; `None` for one without.
    pub(crate) fn of(evidence: &Validated<'_>) -> Option<Self> {
        if !evidence.features().contains(Features::TILES) {
            return None;
        }
        let program = evidence.program();
        let mut facts = Self::default();
        // Declarations come before their uses in the walk, so every variable is known at its
        // uses, as at the emission.
        vyre_foundation::for_each_node(&program.body, |node| {
            facts.zeros.note(evidence, node);
            let (Node::TileLoad { offset, stride, .. } | Node::TileStore { offset, stride, .. }) =
                node
            else {
                return;
            };
            let Ok(buffer) = evidence.node_buffer(node) else {
                return;
            };
            let Some(decl) = program.buffers.get(buffer.index()) else {
                return;
            };
            let into = if facts.proven(evidence, offset, stride, decl.element) {
                if decl.access == BufferAccess::Workgroup {
                    return;
                }
                &mut facts.storage
            } else {
                &mut facts.unproven
            };
            if !into.contains(&decl.element) {
                into.push(decl.element);
            }
        });
        Some(facts)
    }

    /// True when `offset` and `stride` are multiples of 16 bytes of `element` in every evaluation.
    pub(crate) fn proven(
        &self,
        evidence: &Validated<'_>,
        offset: &Expr,
        stride: &Expr,
        element: DataType,
    ) -> bool {
        transfer_aligned(&self.zeros, evidence, (offset, stride), element)
    }

    /// The elements a module needs a stage of: those of the unproven transfers, and in a
    /// coalesced module those of every transfer through a storage buffer too.
    pub(crate) fn stages(&self, coalesced: bool) -> Vec<DataType> {
        let mut stages = self.unproven.clone();
        if coalesced {
            for &element in &self.storage {
                if !stages.contains(&element) {
                    stages.push(element);
                }
            }
        }
        stages
    }
}
