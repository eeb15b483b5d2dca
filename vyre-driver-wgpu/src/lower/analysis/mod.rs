//! The lowering's analyses: pure functions of a validated program, each saying what one launch
//! form or proof may rely on. They read the program and its evidence only, never the module being
//! built, so they can be computed once and kept.

pub(crate) mod barrier;
pub(crate) mod bounds;
pub(crate) mod coverage;
pub(crate) mod elementwise;
pub(crate) mod packed;
pub(crate) mod rows;
pub(crate) mod tiles;
pub(crate) mod vector;
pub(crate) mod workaround;
pub(crate) mod zeros;

use vyre_foundation::validate::Validated;

use barrier::BarrierScopes;
use rows::{RowFacts, WorkgroupRows};
use tiles::TileFacts;
use vector::VectorPlan;
use workaround::Patterns;

/// Every fact the lowering and the choice of a launch form need of one program, computed once from
/// its evidence and kept with it: a dispatch then weighs them against its own lengths, and the
/// emission reads them, never walking the program to find them again.
#[derive(Clone, Debug)]
pub(crate) struct ProgramFacts {
    /// The vectorised module's plan, when the program has one (`vector`).
    pub(crate) vector: Option<VectorPlan>,
    /// The buffers loaded in whole rows and the aligned variables, when the program has row
    /// buffers (`rows`).
    pub(crate) rows: Option<RowFacts>,
    /// The workgroup buffers declared as `vec4` rows, in every launch form (`rows`).
    pub(crate) workgroup_rows: Option<WorkgroupRows>,
    /// A dispatch over the binding limit may be split (`elementwise`).
    pub(crate) elementwise: bool,
    /// The buffers the program stores to, when it may run packed (`packed`).
    pub(crate) packed_stores: Option<Vec<usize>>,
    /// The invocations each packed item runs, when the packed module fixes them (`packed`).
    pub(crate) packed_active: Option<u32>,
    /// The outputs the program writes in full (`coverage`).
    pub(crate) fully_written: Vec<usize>,
    /// The memory scope of each barrier (`barrier`).
    pub(crate) barriers: BarrierScopes,
    /// The patterns the driver workarounds rewrite (`workaround`).
    pub(crate) patterns: Patterns,
    /// Which tile transfers are proven aligned, when the program has tiles (`tiles`).
    pub(crate) tiles: Option<TileFacts>,
}

impl ProgramFacts {
    /// Every analysis of `evidence`'s program, once.
    pub(crate) fn of(evidence: &Validated<'_>) -> Self {
        let packed_stores = packed::packed_stores(evidence);
        let packed_active = packed_stores
            .as_deref()
            .and_then(|stored| packed::fixed_active(evidence.program(), stored));
        Self {
            vector: vector::plan(evidence),
            rows: rows::row_facts(evidence),
            workgroup_rows: rows::workgroup_rows(evidence),
            elementwise: elementwise::elementwise(evidence),
            packed_stores,
            packed_active,
            fully_written: coverage::fully_written_outputs(evidence),
            barriers: BarrierScopes::of(evidence),
            patterns: Patterns::of(evidence),
            tiles: TileFacts::of(evidence),
        }
    }
}
