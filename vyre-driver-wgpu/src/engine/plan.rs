//! Planning a coalesced run: each item's dispatch plan, and the chunking of items into launches
//! within the device's binding and grid limits and the shader's u32 indices.

use std::ops::Range;

use vyre_driver::{BackendError, DispatchConfig, DispatchPlan, plan_dispatch};
use vyre_foundation::ir::Program;

use super::batch::Batch;
use crate::backend::fold_grid;
use crate::launch::device_bytes;
use crate::lower::{Form, LoweredBinding};

pub(super) const COALESCED: Form = Form::Coalesced;

pub(super) const PACKED: Form = Form::Packed;

/// The plans of a run's items: one shared plan when every item has the same input lengths (the
/// common case, planned once), else one per item.
pub(super) enum Plans {
    Uniform(DispatchPlan, usize),
    Each(Vec<DispatchPlan>),
}

impl Plans {
    pub(super) fn new(
        program: &Program,
        items: &dyn Batch,
        config: &DispatchConfig,
    ) -> Result<Self, BackendError> {
        let lens = |k: usize| -> Vec<usize> {
            (0..items.inputs(k))
                .map(|i| items.input(k, i).len())
                .collect()
        };
        let plan = |k: usize, lens: &[usize]| {
            plan_dispatch(program, lens, config)
                .map_err(|e| BackendError::input_mismatch(format!("work item {k}: {e}")))
        };
        let first = lens(0);
        if items.all_lengths(1..items.count(), &first) {
            return Ok(Plans::Uniform(plan(0, &first)?, items.count()));
        }
        let plans = (0..items.count())
            .map(|k| plan(k, &lens(k)))
            .collect::<Result<_, _>>()?;
        Ok(Plans::Each(plans))
    }

    pub(super) fn get(&self, k: usize) -> &DispatchPlan {
        match self {
            Plans::Uniform(plan, _) => plan,
            Plans::Each(plans) => &plans[k],
        }
    }

    pub(super) fn len(&self) -> usize {
        match self {
            Plans::Uniform(_, n) => *n,
            Plans::Each(plans) => plans.len(),
        }
    }
}

/// The items of one launch: `items[range]`.
pub(super) struct Chunk<'a> {
    pub(super) range: Range<usize>,
    pub(super) config: &'a DispatchConfig,
    pub(super) limits: Limits,
}

/// The most elements one concatenated binding may hold: the shader addresses an item's element as its
/// slice's u32 offset plus a u32 index, so every element of every slice must have a u32 slot.
pub(super) const MAX_BINDING_ELEMENTS: u64 = 1 << 32;

/// The most words of the `items` table: the shader indexes it with u32 arithmetic.
pub(super) const MAX_TABLE_WORDS: u64 = 1 << 32;

/// The device limits a launch must respect.
#[derive(Clone, Copy)]
pub(super) struct Limits {
    /// Bytes per bound buffer.
    pub(super) binding: u64,
    /// Workgroups per grid dimension.
    pub(super) max_dim: u32,
}

/// The end of the longest run of items from `start` that share a grid and fit one launch: every
/// concatenated binding and the `items` table within the binding limit and addressable with u32
/// indices, and all items' workgroups foldable into one grid. Sizes are summed with checked
/// arithmetic; a sum that would wrap ends the run like one past a limit.
pub(super) fn chunk_end(
    program: &Program,
    bindings: &[LoweredBinding],
    plans: &Plans,
    start: usize,
    limits: Limits,
) -> Result<usize, BackendError> {
    let limit = limits.binding;
    let grid = plans.get(start).grid;
    // Two words (offset, count) per item and program buffer.
    let table_words_per_item = u64::try_from(program.buffers.len())
        .ok()
        .and_then(|nb| nb.checked_mul(2));
    // Per binding: (device bytes, elements) of the items taken so far.
    let mut totals = vec![(0u64, 0u64); bindings.len()];
    let mut end = start;
    while end < plans.len() && plans.get(end).grid == grid {
        let count = u64::try_from(end - start + 1).ok();
        let table_words = count
            .zip(table_words_per_item)
            .and_then(|(c, w)| c.checked_mul(w));
        let mut fits = table_words.is_some_and(|words| {
            words <= MAX_TABLE_WORDS && words.checked_mul(4).is_some_and(|b| b <= limit)
        }) && count.is_some_and(|c| fold_grid(grid, c, limits.max_dim).is_ok());
        let mut next = totals.clone();
        for ((bytes, elements), b) in next.iter_mut().zip(bindings) {
            let count = plans.get(end).buffers[b.buffer_index].element_count;
            let sum = elements.checked_add(count).and_then(|e| {
                let b = device_bytes(b.kind, b.element_bytes, e)?;
                (e <= MAX_BINDING_ELEMENTS && b <= limit).then_some((b, e))
            });
            match sum {
                Some((b, e)) => (*bytes, *elements) = (b, e),
                None => fits = false,
            }
        }
        if !fits {
            break;
        }
        totals = next;
        end += 1;
    }
    if end == start {
        return Err(too_big(start, limit, grid));
    }
    Ok(end)
}

pub(super) fn too_big(item: usize, limit: u64, grid: [u32; 3]) -> BackendError {
    BackendError::limit_exceeded(format!(
        "work item {item} alone exceeds one launch's limits ({limit} bytes per binding, or a grid of {grid:?} workgroups that cannot be folded). Fix: split the item into smaller ones."
    ))
}
