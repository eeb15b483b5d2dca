//! Coalesced dispatch: many work items of one program in the fewest real launches.
//!
//! Each item is a whole dispatch of its own (its own inputs, outputs and grid), but items are
//! concatenated per binding and launched together: the lowering's coalesced form takes the item index
//! from the workgroup index, offsets every access into the item's slice and guards it with the item's
//! own length (from the `items` table), so no item can touch another's data.

use std::borrow::Cow;

use vyre_driver::{BackendError, DispatchConfig, DispatchPlan, plan_dispatch};
use vyre_foundation::ir::{BufferAccess, Program};

use crate::backend::{WgpuBackend, device_bytes, fold_grid};
use crate::exec::{self, Init, Job, JobBuffer};
use crate::lower::{LowerOptions, PARAM_LENGTHS};
use crate::pipeline::WgpuPipeline;

/// The outputs of a coalesced run and how many real launches it took.
pub(crate) struct CoalescedRun {
    pub(crate) outputs: Vec<Vec<Vec<u8>>>,
    pub(crate) launches: u32,
}

const COALESCED: LowerOptions = LowerOptions {
    coalesced: true,
    direct: false,
};

/// Runs every item of `items` (one input set each) and returns one output set per item, in order.
pub(crate) fn run(
    backend: &WgpuBackend,
    program: &Program,
    items: &[&[&[u8]]],
    config: &DispatchConfig,
) -> Result<CoalescedRun, BackendError> {
    let mut plans = Vec::with_capacity(items.len());
    for (k, inputs) in items.iter().enumerate() {
        let lens: Vec<usize> = inputs.iter().map(|i| i.len()).collect();
        let plan = plan_dispatch(program, &lens, config)
            .map_err(|e| BackendError::input_mismatch(format!("work item {k}: {e}")))?;
        plans.push(plan);
    }
    let pipeline = backend.pipeline(program, COALESCED)?;
    let state = backend.state()?;
    let limit = state
        .limits
        .max_storage_buffer_binding_size
        .min(state.limits.max_buffer_size);
    let max_dim = state.limits.max_compute_workgroups_per_dimension;
    let mut outputs: Vec<Vec<Vec<u8>>> = vec![Vec::new(); items.len()];
    let mut launches = 0u32;
    let mut start = 0;
    while start < items.len() {
        let end = chunk_end(&pipeline, &plans, start, limit)?;
        let chunk = launch(
            backend,
            &pipeline,
            &plans[start..end],
            &items[start..end],
            config,
            max_dim,
        )?;
        launches += 1;
        for (k, out) in chunk.into_iter().enumerate() {
            outputs[start + k] = out;
        }
        start = end;
    }
    Ok(CoalescedRun { outputs, launches })
}

/// The end of the longest run of items from `start` that share a grid and fit one launch.
fn chunk_end(
    pipeline: &WgpuPipeline,
    plans: &[DispatchPlan],
    start: usize,
    limit: u64,
) -> Result<usize, BackendError> {
    let grid = plans[start].grid;
    let groups: u64 = grid.iter().map(|&g| u64::from(g)).product();
    let mut totals = vec![0u64; pipeline.bindings.len()];
    let mut end = start;
    while end < plans.len() && plans[end].grid == grid {
        let mut fits = (end - start + 1) as u64 * groups < 1 << 32;
        let mut next = totals.clone();
        for (t, b) in next.iter_mut().zip(&pipeline.bindings) {
            *t += device_bytes(b.kind, plans[end].buffers[b.buffer_index].element_count);
            fits &= *t <= limit;
        }
        if !fits {
            break;
        }
        totals = next;
        end += 1;
    }
    if end == start {
        return Err(BackendError::limit_exceeded(format!(
            "work item {start} alone exceeds one launch's limits ({limit} bytes per binding). Fix: split the item."
        )));
    }
    Ok(end)
}

fn launch(
    backend: &WgpuBackend,
    pipeline: &WgpuPipeline,
    plans: &[DispatchPlan],
    items: &[&[&[u8]]],
    config: &DispatchConfig,
    max_dim: u32,
) -> Result<Vec<Vec<Vec<u8>>>, BackendError> {
    let program = &pipeline.program;
    let nb = program.buffers.len();
    // Element offsets of every item's slice, per program buffer.
    let mut offsets = vec![vec![0u64; nb]; plans.len()];
    let mut totals = vec![0u64; nb];
    let mut table = Vec::with_capacity(plans.len() * nb * 2);
    for (k, plan) in plans.iter().enumerate() {
        for (j, decl) in program.buffers.iter().enumerate() {
            let count = plan.buffers[j].element_count;
            let offset = if decl.access == BufferAccess::Workgroup {
                0
            } else {
                totals[j]
            };
            offsets[k][j] = offset;
            if decl.access != BufferAccess::Workgroup {
                totals[j] += count;
            }
            table.push(offset as u32);
            table.push(count as u32);
        }
    }
    let mut buffers = Vec::with_capacity(pipeline.bindings.len());
    for b in &pipeline.bindings {
        let j = b.buffer_index;
        let decl = &program.buffers[j];
        let bytes = device_bytes(b.kind, totals[j]);
        let init = if decl.access.takes_input() {
            let mut data = vec![0u8; bytes as usize];
            for (k, plan) in plans.iter().enumerate() {
                if let Some(i) = plan.buffers[j].input {
                    let at = offsets[k][j] as usize * 4;
                    let input = items[k][i];
                    data[at..at + input.len()].copy_from_slice(input);
                }
            }
            Init::Bytes(Cow::Owned(data))
        } else {
            Init::Zero
        };
        let readback = (decl.access == BufferAccess::Output).then_some(0..totals[j] * 4);
        buffers.push(JobBuffer {
            bytes,
            init,
            readback,
        });
    }
    let grid = plans[0].grid;
    let (physical, _) = fold_grid(grid, plans.len() as u64, max_dim)?;
    let mut params = vec![0u32; PARAM_LENGTHS as usize];
    params[..3].copy_from_slice(&grid);
    params[3] = plans.len() as u32;
    params.extend(plans[0].buffers.iter().map(|b| b.element_count as u32));
    let job = Job {
        buffers,
        params,
        items: Some(table),
        physical_grid: physical,
        timeout: config.timeout,
    };
    let state = backend.state()?;
    let whole = exec::run(&backend.shared, &state, pipeline, job)?;
    // Split every output back into the items' slices, trimmed to each item's readback range.
    let output_indices: Vec<usize> = pipeline
        .bindings
        .iter()
        .map(|b| b.buffer_index)
        .filter(|&j| program.buffers[j].access == BufferAccess::Output)
        .collect();
    let mut per_item = vec![Vec::with_capacity(output_indices.len()); plans.len()];
    for (whole, &j) in whole.iter().zip(&output_indices) {
        let decl = &program.buffers[j];
        for (k, plan) in plans.iter().enumerate() {
            let base = offsets[k][j] as usize * 4;
            let range = decl.readback_range(plan.buffers[j].element_count as usize * 4);
            let bytes = whole
                .get(base + range.start..base + range.end)
                .unwrap_or(&[]);
            per_item[k].push(bytes.to_vec());
        }
    }
    Ok(per_item)
}

impl WgpuPipeline {
    /// Runs one item per entry of `items` (each one input byte vector per input buffer, as for
    /// [`vyre_driver::VyreBackend::dispatch`]) in the fewest launches, and returns one output set per
    /// item, in order. Recovers once from a lost device.
    ///
    /// # Errors
    ///
    /// As `dispatch`; an item's input error names the item.
    pub fn dispatch_coalesced(
        &self,
        items: &[Vec<Vec<u8>>],
        config: &DispatchConfig,
    ) -> Result<Vec<Vec<Vec<u8>>>, BackendError> {
        let borrowed: Vec<Vec<&[u8]>> = items
            .iter()
            .map(|i| i.iter().map(Vec::as_slice).collect())
            .collect();
        let slices: Vec<&[&[u8]]> = borrowed.iter().map(Vec::as_slice).collect();
        Ok(self.run_coalesced(&slices, config)?.outputs)
    }

    pub(crate) fn run_coalesced(
        &self,
        items: &[&[&[u8]]],
        config: &DispatchConfig,
    ) -> Result<CoalescedRun, BackendError> {
        let shared = self.backend.upgrade().ok_or_else(|| {
            BackendError::device_lost(
                "the backend this pipeline came from was dropped. Fix: keep the WgpuBackend alive while using its pipelines.",
            )
        })?;
        let backend = WgpuBackend { shared };
        backend.with_recovery(|| run(&backend, &self.program, items, config))
    }
}
