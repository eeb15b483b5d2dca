//! Coalesced dispatch: many work items of one program in the fewest real launches.
//!
//! Each item is a whole dispatch of its own (its own inputs, outputs and grid), but items are
//! concatenated per binding and launched together: the lowering's coalesced form takes the item index
//! from the workgroup index, offsets every access into the item's slice and guards it with the item's
//! own length (from the `items` table), so no item can touch another's data.

use std::borrow::Cow;
use std::ops::Range;

use vyre_driver::{BackendError, DispatchConfig, DispatchPlan, plan_dispatch};
use vyre_foundation::ir::{BufferAccess, Program};

use crate::backend::{WgpuBackend, device_bytes, fold_grid};
use crate::exec::{self, Init, Job, JobBuffer};
use crate::lower::{LowerOptions, PARAM_ACTIVE, PARAM_LENGTHS, packed_stores};
use crate::pipeline::WgpuPipeline;
use crate::stats::bump;

/// A run's items, however the caller holds them: their inputs, and where their outputs go.
pub(crate) trait Batch {
    /// How many items.
    fn count(&self) -> usize;
    /// How many input vectors item `k` has.
    fn inputs(&self, k: usize) -> usize;
    /// Input vector `i` of item `k`.
    fn input(&self, k: usize, i: usize) -> &[u8];
    /// Receives item `k`'s output slices, one per output buffer. Items are delivered in order, each
    /// exactly once, and an item's inputs are never read after its delivery: a run retried after a
    /// device loss resumes after the last delivered item.
    fn deliver(&mut self, k: usize, outputs: &[&[u8]]);

    /// True when every item of `range` has exactly the input byte lengths `lens`.
    fn all_lengths(&self, range: Range<usize>, lens: &[usize]) -> bool {
        range.into_iter().all(|k| {
            self.inputs(k) == lens.len()
                && lens
                    .iter()
                    .enumerate()
                    .all(|(i, &len)| self.input(k, i).len() == len)
        })
    }

    /// Appends input `i` of every item in `range` to `out`, each zero-padded (or cut) to `stride`
    /// bytes: the packed form's upload of one binding.
    fn gather(&self, range: Range<usize>, i: usize, stride: usize, out: &mut Vec<u8>) {
        for k in range {
            let start = out.len();
            out.extend_from_slice(self.input(k, i));
            out.resize(start + stride, 0);
        }
    }

    /// Delivers the items of `range`, in order, whose outputs lie end to end: item `range.start + k`'s
    /// output `o` is `outputs[o].item(k)`.
    fn deliver_strided(&mut self, range: Range<usize>, outputs: &[Strided<'_>]) {
        let mut slices: Vec<&[u8]> = Vec::with_capacity(outputs.len());
        for (k, item) in range.enumerate() {
            slices.clear();
            slices.extend(outputs.iter().map(|o| o.item(k)));
            self.deliver(item, &slices);
        }
    }
}

/// One output buffer of a packed launch: every item's slice of `stride` bytes, end to end, of which
/// `readback` is read back.
pub(crate) struct Strided<'a> {
    pub(crate) bytes: &'a [u8],
    pub(crate) stride: usize,
    pub(crate) readback: Range<usize>,
}

impl Strided<'_> {
    /// The launch's `k`-th item's readback bytes (empty where the readback range leaves the slice).
    pub(crate) fn item(&self, k: usize) -> &[u8] {
        let base = k * self.stride;
        self.bytes
            .get(base + self.readback.start..base + self.readback.end)
            .unwrap_or(&[])
    }
}

/// Items as [`WgpuPipeline::dispatch_coalesced`] takes them (one input set each), and the output sets
/// it returns.
struct ItemSets<'a> {
    items: &'a [Vec<Vec<u8>>],
    outputs: Vec<Vec<Vec<u8>>>,
}

impl Batch for ItemSets<'_> {
    fn count(&self) -> usize {
        self.items.len()
    }
    fn inputs(&self, k: usize) -> usize {
        self.items[k].len()
    }
    fn input(&self, k: usize, i: usize) -> &[u8] {
        &self.items[k][i]
    }
    fn deliver(&mut self, _: usize, outputs: &[&[u8]]) {
        self.outputs
            .push(outputs.iter().map(|s| s.to_vec()).collect());
    }
}

/// How far a run has come, across a retry: items delivered and real launches made.
#[derive(Default)]
struct Progress {
    delivered: usize,
    launches: u32,
}

/// The items of `batch` not yet delivered, renumbered from 0; records each delivery in `progress`.
struct Rest<'a, 'b> {
    batch: &'a mut dyn Batch,
    start: usize,
    progress: &'b mut Progress,
}

impl Rest<'_, '_> {
    /// `range` of the rest, as indices of the whole batch.
    fn whole(&self, range: Range<usize>) -> Range<usize> {
        self.start + range.start..self.start + range.end
    }
}

impl Batch for Rest<'_, '_> {
    fn count(&self) -> usize {
        self.batch.count() - self.start
    }
    fn inputs(&self, k: usize) -> usize {
        self.batch.inputs(self.start + k)
    }
    fn input(&self, k: usize, i: usize) -> &[u8] {
        self.batch.input(self.start + k, i)
    }
    fn deliver(&mut self, k: usize, outputs: &[&[u8]]) {
        self.batch.deliver(self.start + k, outputs);
        self.progress.delivered = self.start + k + 1;
    }
    fn all_lengths(&self, range: Range<usize>, lens: &[usize]) -> bool {
        self.batch.all_lengths(self.whole(range), lens)
    }
    fn gather(&self, range: Range<usize>, i: usize, stride: usize, out: &mut Vec<u8>) {
        self.batch.gather(self.whole(range), i, stride, out);
    }
    fn deliver_strided(&mut self, range: Range<usize>, outputs: &[Strided<'_>]) {
        let range = self.whole(range);
        let end = range.end;
        self.batch.deliver_strided(range, outputs);
        self.progress.delivered = end;
    }
}

const COALESCED: LowerOptions = LowerOptions {
    coalesced: true,
    direct: false,
    packed: false,
};

const PACKED: LowerOptions = LowerOptions {
    coalesced: true,
    direct: false,
    packed: true,
};

/// The plans of a run's items: one shared plan when every item has the same input lengths (the
/// common case, planned once), else one per item.
enum Plans {
    Uniform(DispatchPlan, usize),
    Each(Vec<DispatchPlan>),
}

impl Plans {
    fn new(
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

    fn get(&self, k: usize) -> &DispatchPlan {
        match self {
            Plans::Uniform(plan, _) => plan,
            Plans::Each(plans) => &plans[k],
        }
    }

    fn len(&self) -> usize {
        match self {
            Plans::Uniform(_, n) => *n,
            Plans::Each(plans) => plans.len(),
        }
    }
}

/// Runs every item of `items` (one input set each), delivers each item's outputs in order, and
/// counts its real launches in `launches`.
fn run(
    backend: &WgpuBackend,
    program: &Program,
    items: &mut dyn Batch,
    config: &DispatchConfig,
    launches: &mut u32,
) -> Result<(), BackendError> {
    if items.count() == 0 {
        return Ok(());
    }
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
        && let Some(active) = packed_active(program, plan)
    {
        return run_packed(
            backend, program, plan, active, items, config, limits, launches,
        );
    }
    let pipeline = backend.pipeline(program, COALESCED)?;
    let mut start = 0;
    while start < items.count() {
        let end = chunk_end(&pipeline, &plans, start, limits)?;
        let chunk = Chunk {
            range: start..end,
            config,
            limits,
        };
        launch(backend, &pipeline, &plans, &chunk, items)?;
        *launches += 1;
        start = end;
    }
    Ok(())
}

/// The items of one launch: `items[range]`.
struct Chunk<'a> {
    range: Range<usize>,
    config: &'a DispatchConfig,
    limits: Limits,
}

/// The device limits a launch must respect.
#[derive(Clone, Copy)]
struct Limits {
    /// Bytes per bound buffer.
    binding: u64,
    /// Workgroups per grid dimension.
    max_dim: u32,
}

/// The end of the longest run of items from `start` that share a grid and fit one launch: every
/// concatenated binding and the `items` table within the binding limit, and all items' workgroups
/// foldable into one grid.
fn chunk_end(
    pipeline: &WgpuPipeline,
    plans: &Plans,
    start: usize,
    limits: Limits,
) -> Result<usize, BackendError> {
    let limit = limits.binding;
    let grid = plans.get(start).grid;
    // Two words (offset, count) per item and program buffer.
    let table_bytes_per_item = pipeline.program.buffers.len() as u64 * 8;
    let mut totals = vec![0u64; pipeline.bindings.len()];
    let mut end = start;
    while end < plans.len() && plans.get(end).grid == grid {
        let count = (end - start + 1) as u64;
        let mut fits =
            count * table_bytes_per_item <= limit && fold_grid(grid, count, limits.max_dim).is_ok();
        let mut next = totals.clone();
        for (t, b) in next.iter_mut().zip(&pipeline.bindings) {
            *t += device_bytes(b.kind, plans.get(end).buffers[b.buffer_index].element_count);
            fits &= *t <= limit;
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

fn too_big(item: usize, limit: u64, grid: [u32; 3]) -> BackendError {
    BackendError::limit_exceeded(format!(
        "work item {item} alone exceeds one launch's limits ({limit} bytes per binding, or a grid of {grid:?} workgroups that cannot be folded). Fix: split the item into smaller ones."
    ))
}

fn launch(
    backend: &WgpuBackend,
    pipeline: &WgpuPipeline,
    plans: &Plans,
    chunk: &Chunk<'_>,
    items: &mut dyn Batch,
) -> Result<(), BackendError> {
    let Chunk {
        range,
        config,
        limits,
    } = chunk;
    let range = range.clone();
    let program = &pipeline.program;
    let nb = program.buffers.len();
    let n = range.len();
    // Element offsets of every item's slice, per program buffer: item k's at `offsets[k * nb + j]`.
    let mut offsets = vec![0u64; n * nb];
    let mut totals = vec![0u64; nb];
    let mut table = Vec::with_capacity(n * nb * 2);
    for k in 0..n {
        let plan = plans.get(range.start + k);
        for (j, decl) in program.buffers.iter().enumerate() {
            let count = plan.buffers[j].element_count;
            let offset = if decl.access == BufferAccess::Workgroup {
                0
            } else {
                totals[j]
            };
            offsets[k * nb + j] = offset;
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
            for k in 0..n {
                if let Some(i) = plans.get(range.start + k).buffers[j].input {
                    let at = offsets[k * nb + j] as usize * 4;
                    let input = items.input(range.start + k, i);
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
    let first = plans.get(range.start);
    let (physical, _) = fold_grid(first.grid, n as u64, limits.max_dim)?;
    let job = Job {
        buffers,
        params: params(first, n, 0),
        items: Some(table),
        physical_grid: physical,
        timeout: config.timeout,
    };
    let state = backend.state()?;
    let whole = exec::run(&backend.shared, &state, pipeline, job)?;
    let slice = |k: usize, j: usize| {
        let base = offsets[k * nb + j] as usize * 4;
        let count = plans.get(range.start + k).buffers[j].element_count as usize;
        (base, count)
    };
    split_outputs(program, pipeline, &whole, range.clone(), slice, items);
    Ok(())
}

/// vyre's `params` words for a launch of `items` items shaped like `plan`.
fn params(plan: &DispatchPlan, items: usize, active: u32) -> Vec<u32> {
    let mut params = vec![0u32; PARAM_LENGTHS as usize];
    params[..3].copy_from_slice(&plan.grid);
    params[3] = items as u32;
    params[PARAM_ACTIVE as usize] = active;
    params.extend(plan.buffers.iter().map(|b| b.element_count as u32));
    params
}

/// The program buffers read back from a launch of `pipeline`, in the order of its readbacks (binding
/// order): the output buffers.
fn output_buffers<'a>(
    program: &'a Program,
    pipeline: &'a WgpuPipeline,
) -> impl Iterator<Item = usize> + 'a {
    pipeline
        .bindings
        .iter()
        .map(|b| b.buffer_index)
        .filter(|&j| program.buffers[j].access == BufferAccess::Output)
}

/// Delivers every item of the launch's `range` its slices of the whole outputs, trimmed to its
/// readback ranges; `slice(k, j)` is the byte offset and element count of the launch's `k`-th item's
/// slice of buffer `j`.
fn split_outputs(
    program: &Program,
    pipeline: &WgpuPipeline,
    whole: &[Vec<u8>],
    range: Range<usize>,
    slice: impl Fn(usize, usize) -> (usize, usize),
    items: &mut dyn Batch,
) {
    let outputs: Vec<usize> = output_buffers(program, pipeline).collect();
    let mut slices: Vec<&[u8]> = Vec::with_capacity(outputs.len());
    for (k, item) in range.enumerate() {
        slices.clear();
        for (whole, &j) in whole.iter().zip(&outputs) {
            let (base, count) = slice(k, j);
            let range = program.buffers[j].readback_range(count * 4);
            slices.push(
                whole
                    .get(base + range.start..base + range.end)
                    .unwrap_or(&[]),
            );
        }
        items.deliver(item, &slices);
    }
}

/// How many invocations each item runs in the packed form, when `program` and `plan` allow it: every
/// invocation past the longest stored buffer has no effect (see `lower::packed`).
fn packed_active(program: &Program, plan: &DispatchPlan) -> Option<u32> {
    if plan.grid[1] != 1 || plan.grid[2] != 1 {
        return None;
    }
    let stored = packed_stores(program)?;
    let invocations = u64::from(plan.grid[0]) * u64::from(program.workgroup_size[0]);
    let longest = stored
        .iter()
        .map(|&j| plan.buffers[j].element_count)
        .max()
        .unwrap_or(0);
    // Invocation 0 always exists and always may run; at least one keeps the launch non-empty.
    u32::try_from(invocations.min(longest).max(1)).ok()
}

/// Items per packed launch: total invocations well inside a u32, every concatenated binding within
/// the binding limit.
fn packed_chunk(pipeline: &WgpuPipeline, plan: &DispatchPlan, active: u32, limit: u64) -> u64 {
    let by_invocations = (1u64 << 31) / u64::from(active);
    pipeline
        .bindings
        .iter()
        .map(|b| plan.buffers[b.buffer_index].element_count)
        .filter(|&count| count > 0)
        .map(|count| limit / (count * 4))
        .fold(by_invocations, u64::min)
}

#[allow(clippy::too_many_arguments)]
fn run_packed(
    backend: &WgpuBackend,
    program: &Program,
    plan: &DispatchPlan,
    active: u32,
    items: &mut dyn Batch,
    config: &DispatchConfig,
    limits: Limits,
    launches: &mut u32,
) -> Result<(), BackendError> {
    let pipeline = backend.pipeline(program, PACKED)?;
    let per_launch = packed_chunk(&pipeline, plan, active, limits.binding);
    if per_launch == 0 {
        return Err(too_big(0, limits.binding, plan.grid));
    }
    let per_launch = per_launch.min(u64::from(u32::MAX)) as usize;
    let mut start = 0;
    while start < items.count() {
        let end = (start + per_launch).min(items.count());
        let chunk = Chunk {
            range: start..end,
            config,
            limits,
        };
        launch_packed(backend, &pipeline, plan, active, &chunk, items)?;
        *launches += 1;
        start = end;
    }
    Ok(())
}

fn launch_packed(
    backend: &WgpuBackend,
    pipeline: &WgpuPipeline,
    plan: &DispatchPlan,
    active: u32,
    chunk: &Chunk<'_>,
    items: &mut dyn Batch,
) -> Result<(), BackendError> {
    let Chunk {
        range,
        config,
        limits,
    } = chunk;
    let program = &pipeline.program;
    let n = range.len();
    let mut buffers = Vec::with_capacity(pipeline.bindings.len());
    for b in &pipeline.bindings {
        let j = b.buffer_index;
        let decl = &program.buffers[j];
        let count = plan.buffers[j].element_count;
        let stride = count as usize * 4;
        let bytes = device_bytes(b.kind, count * n as u64);
        let init = match plan.buffers[j].input {
            Some(i) if decl.access.takes_input() => {
                let mut data = Vec::with_capacity(bytes as usize);
                // Inputs shorter than the declared count are zero-padded within the item's slice.
                items.gather(range.clone(), i, stride, &mut data);
                Init::Bytes(Cow::Owned(data))
            }
            _ => Init::Zero,
        };
        let readback = (decl.access == BufferAccess::Output).then_some(0..count * n as u64 * 4);
        buffers.push(JobBuffer {
            bytes,
            init,
            readback,
        });
    }
    let invocations = u64::from(active) * n as u64;
    let groups = invocations.div_ceil(u64::from(program.workgroup_size[0]));
    let groups = u32::try_from(groups).map_err(|_| too_big(0, limits.binding, plan.grid))?;
    let (physical, _) = fold_grid([groups, 1, 1], 1, limits.max_dim)?;
    let job = Job {
        buffers,
        params: params(plan, n, active),
        items: None,
        physical_grid: physical,
        timeout: config.timeout,
    };
    let state = backend.state()?;
    let whole = exec::run(&backend.shared, &state, pipeline, job)?;
    bump(&backend.shared.counters.packed_launches, 1);
    let outputs: Vec<Strided<'_>> = output_buffers(program, pipeline)
        .zip(&whole)
        .map(|(j, bytes)| {
            let stride = plan.buffers[j].element_count as usize * 4;
            Strided {
                bytes,
                stride,
                readback: program.buffers[j].readback_range(stride),
            }
        })
        .collect();
    items.deliver_strided(range.clone(), &outputs);
    Ok(())
}

impl WgpuPipeline {
    /// Runs one item per entry of `items` (each one input byte vector per input buffer, as for
    /// [`vyre_driver::VyreBackend::dispatch`]) in the fewest launches, and returns one output set per
    /// item, in order. Recovers once from a lost device.
    ///
    /// Items with equal input lengths whose program only stores at `gid.x` (no atomics, barriers or
    /// workgroup memory, one-dimensional) run *packed*: only each item's invocations below its longest
    /// stored buffer start, laid end to end across shared workgroups, so a batch of one-element items
    /// costs one invocation each rather than one workgroup each. Every other batch runs one virtual
    /// grid per item. Both forms give each item exactly the results of its own `dispatch`.
    ///
    /// # Errors
    ///
    /// As `dispatch`; an item's input error names the item.
    pub fn dispatch_coalesced(
        &self,
        items: &[Vec<Vec<u8>>],
        config: &DispatchConfig,
    ) -> Result<Vec<Vec<Vec<u8>>>, BackendError> {
        let mut sets = ItemSets {
            items,
            outputs: Vec::with_capacity(items.len()),
        };
        self.run_coalesced(&mut sets, config)?;
        Ok(sets.outputs)
    }

    /// Runs `items` coalesced, delivering each item's outputs once, in order; recovers once from a
    /// lost device, resuming after the last delivered item. Returns the real launch count, both
    /// attempts together.
    pub(crate) fn run_coalesced(
        &self,
        items: &mut dyn Batch,
        config: &DispatchConfig,
    ) -> Result<u32, BackendError> {
        let shared = self.backend.upgrade().ok_or_else(|| {
            BackendError::device_lost(
                "the backend this pipeline came from was dropped. Fix: keep the WgpuBackend alive while using its pipelines.",
            )
        })?;
        let backend = WgpuBackend { shared };
        let mut progress = Progress::default();
        backend.with_recovery(|| {
            let mut launches = 0;
            let mut rest = Rest {
                start: progress.delivered,
                batch: &mut *items,
                progress: &mut progress,
            };
            let result = run(&backend, &self.program, &mut rest, config, &mut launches);
            progress.launches += launches;
            result
        })?;
        if progress.delivered != items.count() {
            return Err(BackendError::new(format!(
                "the coalesced run delivered {} results for {} items. Fix: report this vyre bug with the program text.",
                progress.delivered,
                items.count()
            )));
        }
        Ok(progress.launches)
    }
}
