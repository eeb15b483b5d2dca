//! The launch form of a plain or resident dispatch, chosen per dispatch: the vectorised module
//! (`lower::vector`) when the program qualifies, the grid is one-dimensional and every vectorised
//! binding can span whole 16-byte rows; otherwise the scalar module. Either has row loads
//! (`lower::rows`) when the program has row buffers that can all span whole rows, and runs direct when its
//! physical grid fits the device's per-dimension limit, folded otherwise. The form is part of the
//! lowering options, so each has its own cached pipeline. A dispatch with a buffer over the binding
//! limit runs split (`split`) instead, scalar.

use vyre_driver::{BackendError, DispatchPlan};
use vyre_foundation::validate::Validated;

use super::fold_grid;
use crate::launch::{Piece, device_bytes};
use crate::lower::{self, BindingKind, LowerOptions, Miscompile, planted};
use crate::pipeline::Entry;

/// How one dispatch launches: the lowering options and the physical grid, and for a vectorised
/// launch with partial rows the physical grid of its tail (`lower::TAIL_ENTRY`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Form {
    pub(crate) options: LowerOptions,
    pub(crate) physical: [u32; 3],
    pub(crate) tail: Option<[u32; 3]>,
}

impl Form {
    /// The dispatches of an unsplit launch of `plan` in this form: the main entry point, then the
    /// tail when there is one, with the same `params`.
    ///
    /// # Errors
    ///
    /// As [`lower::plan_params`].
    pub(crate) fn pieces(&self, plan: &DispatchPlan) -> Result<Vec<Piece>, BackendError> {
        let params = lower::plan_params(plan, 1, 0)?;
        let mut pieces = Vec::with_capacity(2);
        if let Some(tail) = self.tail {
            pieces.push(Piece::whole(params.clone(), self.physical));
            pieces.push(Piece {
                entry: Entry::Tail,
                ..Piece::whole(params, tail)
            });
        } else {
            pieces.push(Piece::whole(params, self.physical));
        }
        Ok(pieces)
    }
}

/// The bytes a vectorised binding of `elements` elements spans: whole 16-byte rows. `None` past
/// `u64`.
pub(crate) fn row_bytes(elements: u64) -> Option<u64> {
    // Only buffers of 32-bit elements are declared as rows (`lower::vector`, `lower::rows`).
    device_bytes(BindingKind::StorageReadWrite, 4, elements)?.checked_next_multiple_of(16)
}

/// The form of a dispatch of `evidence` as `plan` says, on a device allowing `max_groups`
/// workgroups per dimension. `bindable(j, bytes)` says whether program buffer `j` can be bound with
/// `bytes` bytes (whole rows) on this dispatch.
///
/// # Errors
///
/// As [`fold_grid`].
pub(crate) fn choose(
    evidence: &Validated<'_>,
    plan: &DispatchPlan,
    max_groups: u32,
    bindable: impl Fn(usize, u64) -> bool,
) -> Result<Form, BackendError> {
    if let Some(form) = vectorised(evidence, plan, max_groups, &bindable)? {
        return Ok(form);
    }
    let (physical, direct) = fold_grid(plan.grid, 1, max_groups)?;
    let rows = lower::row_buffers(evidence).is_some_and(|rows| whole_rows(&rows, plan, &bindable));
    Ok(Form {
        options: LowerOptions {
            coalesced: false,
            direct,
            packed: false,
            vectorised: false,
            split: false,
            rows,
        },
        physical,
        tail: None,
    })
}

/// True when the program has row buffers (`lower::rows`) and each can span whole rows.
fn rows(
    evidence: &Validated<'_>,
    plan: &DispatchPlan,
    bindable: &impl Fn(usize, u64) -> bool,
) -> bool {
    lower::row_buffers(evidence).is_some_and(|rows| whole_rows(&rows, plan, bindable))
}

/// True when every buffer `on` marks can be bound in whole 16-byte rows on this dispatch.
fn whole_rows(on: &[bool], plan: &DispatchPlan, bindable: &impl Fn(usize, u64) -> bool) -> bool {
    on.iter().enumerate().all(|(j, &on)| {
        !on || plan
            .buffers
            .get(j)
            .and_then(|b| row_bytes(b.element_count))
            .is_some_and(|bytes| bindable(j, bytes))
    })
}

/// The form of each piece of a dispatch split over several launches (see `split`): the scalar split
/// module over the virtual grid's own x (each piece launches its share of it).
pub(crate) fn split(plan: &DispatchPlan) -> Form {
    Form {
        options: LowerOptions {
            coalesced: false,
            direct: false,
            packed: false,
            vectorised: false,
            split: true,
            rows: false,
        },
        physical: plan.grid,
        tail: None,
    }
}

fn vectorised(
    evidence: &Validated<'_>,
    plan: &DispatchPlan,
    max_groups: u32,
    bindable: &impl Fn(usize, u64) -> bool,
) -> Result<Option<Form>, BackendError> {
    let [x, y, z] = plan.grid;
    if y != 1 || z != 1 || x == 0 {
        return Ok(None);
    }
    let width = evidence.program().workgroup_size[0];
    let Some(buffers) = lower::vectorised_buffers(evidence) else {
        return Ok(None);
    };
    if !whole_rows(&buffers, plan, bindable) {
        return Ok(None);
    }
    let (physical, direct) = fold_grid([x.div_ceil(lower::VECTOR_WIDTH), 1, 1], 1, max_groups)?;
    let tail = match tail_rows(plan, &buffers, width) {
        0 => None,
        rows => {
            let groups = u32::try_from(rows.div_ceil(u64::from(width))).unwrap_or(u32::MAX);
            // The tail launch has at most as many workgroups as the main one, so it is direct
            // whenever the main one is (and a folded module linearises any grid).
            Some(fold_grid([groups, 1, 1], 1, max_groups)?.0)
        }
    };
    Ok(Some(Form {
        options: LowerOptions {
            coalesced: false,
            direct,
            packed: false,
            vectorised: true,
            split: false,
            rows: rows(evidence, plan, bindable),
        },
        physical,
        tail,
    }))
}

/// The rows of a vectorised launch of `plan` that its tail runs: from the first row that is not
/// full to the last row holding a virtual invocation, as `lower::vector` computes them from the
/// same lengths (the vectorised buffers' element counts, and the grid).
fn tail_rows(plan: &DispatchPlan, vectorised: &[bool], width: u32) -> u64 {
    let last = u64::from(plan.grid[0]) * u64::from(width) - 1;
    let m = vectorised
        .iter()
        .zip(&plan.buffers)
        .filter(|(on, _)| **on)
        .map(|(_, b)| b.element_count.saturating_sub(1))
        .fold(last, u64::min);
    let full_rows = (m + 1) / u64::from(lower::VECTOR_WIDTH);
    let rows = (last / u64::from(lower::VECTOR_WIDTH) + 1).saturating_sub(full_rows);
    if planted(Miscompile::TailLaunchShort) {
        rows.saturating_sub(1)
    } else {
        rows
    }
}

#[cfg(test)]
mod tests {
    use super::row_bytes;

    #[test]
    fn vectorised_bindings_span_whole_rows() {
        assert_eq!(row_bytes(1), Some(16));
        assert_eq!(row_bytes(4), Some(16));
        assert_eq!(row_bytes(5), Some(32));
        assert_eq!(row_bytes(u64::from(u32::MAX)), Some(1 << 34));
        assert_eq!(row_bytes(u64::MAX / 4), None);
    }
}
