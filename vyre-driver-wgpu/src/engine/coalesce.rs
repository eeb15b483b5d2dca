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

use crate::backend::{WgpuBackend, device_bytes, fold_grid, params_words, size_overflow};
use crate::exec::{self, Init, Job, JobBuffer};
use crate::lower::{ITEM_ROW_WORDS, LowerOptions, LoweredBinding, packed_stores};
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
            // The caller checked that `range.len() * stride` bytes fit a usize, so this cannot wrap.
            out.resize(start.saturating_add(stride), 0);
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
        // The launch's whole size was checked, so these cannot wrap for a real item; checked all the
        // same so that a wrapped offset can never alias another item's bytes.
        let range = k.checked_mul(self.stride).and_then(|base| {
            Some(base.checked_add(self.readback.start)?..base.checked_add(self.readback.end)?)
        });
        range.and_then(|r| self.bytes.get(r)).unwrap_or(&[])
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
        let end = chunk_end(&pipeline.program, &pipeline.bindings, &plans, start, limits)?;
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

/// The most elements one concatenated binding may hold: the shader addresses an item's element as its
/// slice's u32 offset plus a u32 index, so every element of every slice must have a u32 slot.
const MAX_BINDING_ELEMENTS: u64 = 1 << 32;

/// The most words of the `items` table: the shader indexes it with u32 arithmetic.
const MAX_TABLE_WORDS: u64 = 1 << 32;

/// The device limits a launch must respect.
#[derive(Clone, Copy)]
struct Limits {
    /// Bytes per bound buffer.
    binding: u64,
    /// Workgroups per grid dimension.
    max_dim: u32,
}

/// The end of the longest run of items from `start` that share a grid and fit one launch: every
/// concatenated binding and the `items` table within the binding limit and addressable with u32
/// indices, and all items' workgroups foldable into one grid. Sizes are summed with checked
/// arithmetic; a sum that would wrap ends the run like one past a limit.
fn chunk_end(
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
                let b = device_bytes(b.kind, e)?;
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
    let mut layout = ItemLayout::new(program, plans, range.clone())?;
    let mut buffers = Vec::with_capacity(pipeline.bindings.len());
    for b in &pipeline.bindings {
        let j = b.buffer_index;
        let decl = &program.buffers[j];
        let bytes = device_bytes(b.kind, layout.totals[j])
            .ok_or_else(|| size_overflow(&format!("the concatenated size of `{}`", decl.name)))?;
        let init = if decl.access.takes_input() {
            Init::Bytes(Cow::Owned(layout.gather(
                plans,
                range.clone(),
                j,
                bytes,
                items,
            )?))
        } else {
            Init::Zero
        };
        // The whole concatenation comes back; each item's output byte range is cut from its own
        // slice afterwards (`split_outputs`).
        let readback = if decl.access == BufferAccess::Output {
            let end = layout.totals[j].checked_mul(4).ok_or_else(|| {
                size_overflow(&format!("the concatenated size of `{}`", decl.name))
            })?;
            Some(0..end)
        } else {
            None
        };
        buffers.push(JobBuffer {
            bytes,
            init,
            readback,
        });
    }
    let first = plans.get(range.start);
    let n = range.len();
    let items_in_launch = u64::try_from(n).map_err(|_| size_overflow("the items of a launch"))?;
    let (physical, _) = fold_grid(first.grid, items_in_launch, limits.max_dim)?;
    let job = Job {
        buffers,
        params: params_words(first, n, 0)?,
        items: Some(std::mem::take(&mut layout.table)),
        physical_grid: physical,
        timeout: config.timeout,
    };
    let state = backend.state()?;
    let whole = exec::run(&backend.shared, &state, pipeline, job)?;
    let slice = |k: usize, j: usize| layout.slice(k, j);
    split_outputs(program, pipeline, &whole, range.clone(), slice, items);
    Ok(())
}

/// Where every item of a launch lives in the concatenated bindings.
#[derive(Debug)]
struct ItemLayout {
    /// Program buffers per item.
    nb: usize,
    /// Element offset of the launch's item `k`'s slice of program buffer `j`, at `k * nb + j`.
    offsets: Vec<u64>,
    /// Element count of that slice, at the same place.
    counts: Vec<u64>,
    /// Elements of each program buffer over the whole launch (0 for workgroup buffers).
    totals: Vec<u64>,
    /// The `items` table the shader reads: `(offset, count)` per item and buffer.
    table: Vec<u32>,
}

impl ItemLayout {
    /// The layout of `plans[range]` laid end to end. Every offset and count must be a u32 word of
    /// the table, and every element of a slice must have a u32 slot (`offset + index`) in the shader.
    fn new(program: &Program, plans: &Plans, range: Range<usize>) -> Result<Self, BackendError> {
        let nb = program.buffers.len();
        let cells = range
            .len()
            .checked_mul(nb)
            .ok_or_else(|| size_overflow("the items table of a launch"))?;
        let mut layout = Self {
            nb,
            offsets: Vec::with_capacity(cells),
            counts: Vec::with_capacity(cells),
            totals: vec![0u64; nb],
            table: Vec::with_capacity(cells.saturating_mul(ITEM_ROW_WORDS as usize)),
        };
        for k in range {
            let plan = plans.get(k);
            for (j, decl) in program.buffers.iter().enumerate() {
                let count = plan.buffers[j].element_count;
                // Workgroup memory is the item's own in every workgroup: no slice, no offset.
                let offset = if decl.access == BufferAccess::Workgroup {
                    0
                } else {
                    layout.totals[j]
                };
                let end = offset
                    .checked_add(count)
                    .filter(|&e| e <= MAX_BINDING_ELEMENTS);
                let words = end.and(u32::try_from(offset).ok().zip(u32::try_from(count).ok()));
                let (Some(end), Some((offset_word, count_word))) = (end, words) else {
                    return Err(BackendError::limit_exceeded(format!(
                        "work item {k}'s slice of `{}` ({count} elements from element {offset}) lies past the 2^32 elements a launch's u32 indices reach. Fix: split the items over several dispatches.",
                        decl.name
                    )));
                };
                if decl.access != BufferAccess::Workgroup {
                    layout.totals[j] = end;
                }
                layout.offsets.push(offset);
                layout.counts.push(count);
                layout.table.extend([offset_word, count_word]);
            }
        }
        Ok(layout)
    }

    /// The byte offset and element count of the launch's item `k`'s slice of buffer `j`.
    fn slice(&self, k: usize, j: usize) -> (usize, usize) {
        let at = k * self.nb + j;
        // Both were checked to lie within 2^32 elements, so these fit a 64-bit usize.
        let base = self.offsets[at].saturating_mul(4);
        let as_usize = |v: u64| usize::try_from(v).unwrap_or(usize::MAX);
        (as_usize(base), as_usize(self.counts[at]))
    }

    /// The concatenated input bytes of buffer `j` (`bytes` long) for the launch's items `range`.
    fn gather(
        &self,
        plans: &Plans,
        range: Range<usize>,
        j: usize,
        bytes: u64,
        items: &dyn Batch,
    ) -> Result<Vec<u8>, BackendError> {
        let len = usize::try_from(bytes).map_err(|_| size_overflow("a launch's input buffer"))?;
        let mut data = vec![0u8; len];
        for (k, item) in range.enumerate() {
            let Some(i) = plans.get(item).buffers[j].input else {
                continue;
            };
            let input = items.input(item, i);
            let (at, _) = self.slice(k, j);
            let target = at
                .checked_add(input.len())
                .and_then(|end| data.get_mut(at..end))
                .ok_or_else(|| {
                    BackendError::new(format!(
                        "work item {item}'s input {i} does not fit its planned slice. Fix: report this vyre bug with the program text."
                    ))
                })?;
            target.copy_from_slice(input);
        }
        Ok(data)
    }
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
            // The slice lies inside the launch's checked buffer, so none of this wraps for a real
            // item; checked so that a wrapped offset could never deliver another item's bytes.
            let bytes = count.checked_mul(4).and_then(|len| {
                let range = program.buffers[j].readback_range(len);
                whole.get(base.checked_add(range.start)?..base.checked_add(range.end)?)
            });
            slices.push(bytes.unwrap_or(&[]));
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
/// the binding limit and within the 2^32 elements the shader's u32 slice offsets (`item * length`)
/// reach.
fn packed_chunk(bindings: &[LoweredBinding], plan: &DispatchPlan, active: u32, limit: u64) -> u64 {
    let by_invocations = (1u64 << 31) / u64::from(active.max(1));
    bindings
        .iter()
        .map(|b| plan.buffers[b.buffer_index].element_count)
        .filter(|&count| count > 0)
        .map(|count| {
            // A u32 element count times 4 bytes is below 2^34: no overflow.
            let by_bytes = limit / count.saturating_mul(4);
            by_bytes.min(MAX_BINDING_ELEMENTS / count)
        })
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
    let per_launch = packed_chunk(&pipeline.bindings, plan, active, limits.binding);
    if per_launch == 0 {
        return Err(too_big(0, limits.binding, plan.grid));
    }
    let per_launch = usize::try_from(per_launch.min(u64::from(u32::MAX))).unwrap_or(usize::MAX);
    let mut start = 0;
    while start < items.count() {
        let end = start.saturating_add(per_launch).min(items.count());
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
    let overflow = || too_big(range.start, limits.binding, plan.grid);
    let items_in_launch = u64::try_from(n).map_err(|_| overflow())?;
    let mut buffers = Vec::with_capacity(pipeline.bindings.len());
    for b in &pipeline.bindings {
        let j = b.buffer_index;
        let decl = &program.buffers[j];
        let count = plan.buffers[j].element_count;
        // `packed_chunk` sized the launch to fit, but every product is checked: a wrapped size
        // would lay items over each other.
        let elements = count.checked_mul(items_in_launch).ok_or_else(overflow)?;
        let bytes = device_bytes(b.kind, elements).ok_or_else(overflow)?;
        let stride = count
            .checked_mul(4)
            .and_then(|s| usize::try_from(s).ok())
            .ok_or_else(overflow)?;
        let init = match plan.buffers[j].input {
            Some(i) if decl.access.takes_input() => {
                let capacity = usize::try_from(bytes).map_err(|_| overflow())?;
                let mut data = Vec::with_capacity(capacity);
                // Inputs shorter than the declared count are zero-padded within the item's slice.
                items.gather(range.clone(), i, stride, &mut data);
                Init::Bytes(Cow::Owned(data))
            }
            _ => Init::Zero,
        };
        let readback = if decl.access == BufferAccess::Output {
            Some(0..elements.checked_mul(4).ok_or_else(overflow)?)
        } else {
            None
        };
        buffers.push(JobBuffer {
            bytes,
            init,
            readback,
        });
    }
    let invocations = u64::from(active)
        .checked_mul(items_in_launch)
        .ok_or_else(overflow)?;
    let groups = invocations.div_ceil(u64::from(program.workgroup_size[0].max(1)));
    let groups = u32::try_from(groups).map_err(|_| too_big(0, limits.binding, plan.grid))?;
    let (physical, _) = fold_grid([groups, 1, 1], 1, limits.max_dim)?;
    let job = Job {
        buffers,
        params: params_words(plan, n, active)?,
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
            // Checked above for every binding, outputs included.
            let stride = usize::try_from(plan.buffers[j].element_count.saturating_mul(4))
                .unwrap_or(usize::MAX);
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

#[cfg(test)]
mod tests {
    //! The launch-size rules on sizes no device here can bind: a device with no byte limit, where
    //! only the u32 indices of the shader bound a launch.

    use vyre_driver::ResolvedBuffer;
    use vyre_foundation::ir::{BufferDecl, DataType};

    use super::*;
    use crate::lower::BindingKind;

    fn program() -> Program {
        Program::new(
            vec![
                BufferDecl::read("input", 0, DataType::U32),
                BufferDecl::output("out", 1, DataType::U32).with_count(1),
                BufferDecl::workgroup("scratch", 4, DataType::U32),
            ],
            [1, 1, 1],
            vec![],
        )
    }

    fn bindings() -> Vec<LoweredBinding> {
        vec![
            LoweredBinding {
                buffer_index: 0,
                binding: 0,
                kind: BindingKind::StorageReadOnly,
            },
            LoweredBinding {
                buffer_index: 1,
                binding: 1,
                kind: BindingKind::StorageReadWrite,
            },
        ]
    }

    /// An item whose input has `elements` elements.
    fn item(elements: u64) -> DispatchPlan {
        DispatchPlan {
            buffers: vec![
                ResolvedBuffer {
                    element_count: elements,
                    input: Some(0),
                },
                ResolvedBuffer {
                    element_count: 1,
                    input: None,
                },
                ResolvedBuffer {
                    element_count: 4,
                    input: None,
                },
            ],
            grid: [1, 1, 1],
        }
    }

    fn each(elements: &[u64]) -> Plans {
        Plans::Each(elements.iter().map(|&n| item(n)).collect())
    }

    const NO_BYTE_LIMIT: Limits = Limits {
        binding: u64::MAX,
        max_dim: 65535,
    };

    fn ends(plans: &Plans) -> Vec<usize> {
        let (program, bindings) = (program(), bindings());
        let mut ends = Vec::new();
        let mut start = 0;
        while start < plans.len() {
            start = chunk_end(&program, &bindings, plans, start, NO_BYTE_LIMIT).expect("fits");
            ends.push(start);
        }
        ends
    }

    #[test]
    fn a_launch_holds_exactly_2_pow_32_elements_of_a_binding_and_no_more() {
        let half = 1 << 31;
        assert_eq!(ends(&each(&[half, half, 1])), vec![2, 3]);
        assert_eq!(ends(&each(&[half, half - 1, 1])), vec![3]);
        let max = u64::from(u32::MAX);
        assert_eq!(ends(&each(&[max, max])), vec![1, 2]);
        assert_eq!(ends(&each(&[max, 1, 1])), vec![2, 3]);
    }

    #[test]
    fn an_item_whose_size_does_not_fit_a_u64_is_a_limit_exceeded() {
        for elements in [u64::MAX, 1 << 62, (1 << 32) + 1] {
            let e = chunk_end(
                &program(),
                &bindings(),
                &each(&[elements]),
                0,
                NO_BYTE_LIMIT,
            )
            .expect_err("too large");
            assert!(matches!(e, BackendError::LimitExceeded(_)), "{e}");
        }
    }

    #[test]
    fn item_offsets_and_lengths_are_u32_words_up_to_2_pow_32_elements() {
        let max = u64::from(u32::MAX);
        let layout = ItemLayout::new(&program(), &each(&[max, 1]), 0..2).expect("2^32 elements");
        assert_eq!(layout.totals, vec![1 << 32, 2, 0]);
        // (offset, count) per item and buffer; workgroup memory has no slice.
        assert_eq!(
            layout.table,
            vec![0, u32::MAX, 0, 1, 0, 4, u32::MAX, 1, 1, 1, 0, 4]
        );
        assert_eq!(
            layout.slice(1, 0),
            (usize::try_from(max * 4).unwrap_or(0), 1)
        );
    }

    #[test]
    fn an_item_offset_or_end_past_2_pow_32_elements_is_a_limit_exceeded_not_truncated() {
        // Truncated to u32, item 2's offset (2^32) would be 0: it would read and write item 0's data.
        let half = 1 << 31;
        for elements in [
            vec![half, half, 1],
            vec![u64::from(u32::MAX), 2],
            vec![1 << 32],
        ] {
            let n = elements.len();
            let e = ItemLayout::new(&program(), &each(&elements), 0..n).expect_err("past u32");
            assert!(
                matches!(e, BackendError::LimitExceeded(_)),
                "{elements:?}: {e}"
            );
        }
    }

    #[test]
    fn packed_launches_keep_item_offsets_within_2_pow_32_elements() {
        // `item * length` is computed in u32 by the shader.
        for (elements, per_launch) in [(1u64 << 31, 2), (u64::from(u32::MAX), 1), (1, 1 << 31)] {
            let plan = item(elements);
            assert_eq!(
                packed_chunk(&bindings(), &plan, 1, u64::MAX),
                per_launch,
                "{elements}"
            );
        }
    }

    #[test]
    fn a_packed_readback_slice_that_would_wrap_is_empty() {
        let bytes = [7u8; 16];
        let strided = Strided {
            bytes: &bytes,
            stride: usize::MAX / 2 + 1,
            readback: 0..4,
        };
        assert_eq!(strided.item(0), &bytes[..4]);
        assert!(strided.item(2).is_empty());
    }
}
