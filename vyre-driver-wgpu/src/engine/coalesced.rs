//! The coalesced form: items of any lengths, one virtual grid each, in the fewest launches; and the
//! entry point that sends a batch of equal items to the packed form instead.
//!
//! Each item is a whole dispatch of its own (its own inputs, outputs and grid), but items are
//! concatenated per binding and launched together: the lowering's coalesced form takes the item index
//! from the workgroup index, offsets every access into the item's slice and guards it with the item's
//! own length (from the `items` table), so no item can touch another's data.

use std::borrow::Cow;
use std::sync::Arc;
use std::time::Instant;

use vyre_driver::{BackendError, DispatchConfig};

use super::batch::Batch;
use super::items::{compiled_for, launch_items};
use super::layout::{ItemLayout, split_outputs};
use super::packed::{packed_active, run_packed};
use super::plan::{COALESCED, Chunk, Limits, Plans, chunk_end};
use crate::backend::{WgpuBackend, fold_grid};
use crate::launch::{
    BufferSpec, Init, Job, Piece, Readback, device_bytes, job_buffers, size_overflow,
};
use crate::lower;
use crate::pipeline::Compiled;
use crate::stats::Phase;

/// Runs every item of `items` (one input set each) of `held`'s program, delivers each item's outputs
/// in order, and counts its real launches in `launches`.
pub(super) fn run(
    backend: &WgpuBackend,
    held: &Arc<Compiled>,
    items: &mut dyn Batch,
    config: &DispatchConfig,
    launches: &mut u32,
) -> Result<(), BackendError> {
    if items.count() == 0 {
        return Ok(());
    }
    let started = Instant::now();
    let program = &held.program();
    let plans = Plans::new(program, items, config)?;
    let state = backend.state()?;
    let limits = Limits {
        binding: state
            .limits
            .max_storage_buffer_binding_size
            .min(state.limits.max_buffer_size),
        max_dim: state.limits.max_compute_workgroups_per_dimension,
    };
    if let Plans::Uniform(plan, _) = &plans
        && let Some(active) = packed_active(held, plan)
    {
        backend.counters().lap(Phase::Prepare, started);
        return run_packed(backend, held, plan, active, items, config, limits, launches);
    }
    let compiled = compiled_for(backend, held, COALESCED)?;
    backend.counters().lap(Phase::Prepare, started);
    let mut start = 0;
    while start < items.count() {
        let end = chunk_end(program, &compiled.bindings, &plans, start, limits)?;
        let chunk = Chunk {
            range: start..end,
            config,
            limits,
        };
        launch(backend, &compiled, &plans, &chunk, items)?;
        *launches += 1;
        start = end;
    }
    Ok(())
}

/// One coalesced launch of the items of `chunk`.
fn launch(
    backend: &WgpuBackend,
    compiled: &Compiled,
    plans: &Plans,
    chunk: &Chunk<'_>,
    items: &mut dyn Batch,
) -> Result<(), BackendError> {
    let Chunk {
        range,
        config,
        limits,
    } = chunk;
    let started = Instant::now();
    let range = range.clone();
    let program = &compiled.program();
    let mut layout = ItemLayout::new(program, plans, range.clone())?;
    // The whole concatenation comes back; each item's output byte range is cut from its own slice
    // afterwards (`split_outputs`).
    let buffers = job_buffers(compiled, Readback::Whole, |b| {
        let j = b.buffer_index;
        let elements = layout.totals[j];
        let init = if program.buffers[j].access.takes_input() {
            let bytes = device_bytes(b.kind, b.element_bytes, elements).ok_or_else(|| {
                size_overflow(&format!(
                    "the concatenated size of `{}`",
                    program.buffers[j].name
                ))
            })?;
            Init::Bytes(Cow::Owned(layout.gather(
                plans,
                range.clone(),
                j,
                bytes,
                &*items,
            )?))
        } else {
            Init::Zero
        };
        Ok(BufferSpec { elements, init })
    })?;
    let first = plans.get(range.start);
    let n = range.len();
    let items_in_launch = u64::try_from(n).map_err(|_| size_overflow("the items of a launch"))?;
    let (physical, _) = fold_grid(first.grid, items_in_launch, limits.max_dim)?;
    let params = lower::plan_params(first, n, 0)?;
    let job = Job {
        buffers,
        pieces: vec![Piece::whole(params, physical)],
        items: Some(std::mem::take(&mut layout.table)),
        timeout: config.timeout,
    };
    let (whole, delivering) = launch_items(backend, compiled, job, started)?;
    let slice = |k: usize, j: usize| layout.slice(k, j);
    split_outputs(program, compiled, &whole, range.clone(), slice, items);
    backend.counters().lap(Phase::Deliver, delivering);
    Ok(())
}
