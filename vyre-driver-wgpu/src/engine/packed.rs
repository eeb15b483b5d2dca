//! The packed form: a batch of equal items whose program only stores at `gid.x`, laid end to end
//! invocation by invocation so that only the invocations that can have an effect start (see
//! `lower::packed`).

use std::borrow::Cow;
use std::sync::Arc;
use std::time::Instant;

use vyre_driver::{BackendError, DispatchConfig, DispatchPlan};

use super::batch::{Batch, Strided};
use super::items::{compiled_for, launch_items};
use super::layout::output_buffers;
use super::plan::{Chunk, Limits, MAX_BINDING_ELEMENTS, PACKED, too_big};
use crate::backend::{WgpuBackend, fold_grid};
use crate::launch::{BufferSpec, Init, Job, Piece, Readback, job_buffers};
use crate::lower::{self, LoweredBinding, ProgramFacts};
use crate::pipeline::Compiled;
use crate::stats::{Phase, bump};

/// Whether a launch over `grid` of a program with `facts` and workgroup width `width` runs
/// packed: the program qualifies (`lower::analysis::packed`), the grid is one-dimensional, and it
/// covers the invocations a packed module fixes, when it fixes them. `compile_persistent` asks it
/// of the config's grid, [`packed_active`] of each plan's.
pub(super) fn packs(facts: &ProgramFacts, width: u32, grid: [u32; 3]) -> bool {
    facts.packed_stores.is_some()
        && grid[1] == 1
        && grid[2] == 1
        && facts
            .packed_active
            .is_none_or(|n| u64::from(grid[0]) * u64::from(width) >= u64::from(n))
}

/// How many invocations each item runs in the packed form, when the program `held` was compiled
/// from and `plan` allow it ([`packs`]): every invocation past the longest stored buffer has no
/// effect (see `lower::analysis::packed`); where the module fixes the count, every stored buffer
/// has its declared count and the grid covers it, so this is that count.
pub(super) fn packed_active(held: &Compiled, plan: &DispatchPlan) -> Option<u32> {
    let program = &held.program();
    if !packs(held.facts(), program.workgroup_size[0], plan.grid) {
        return None;
    }
    let stored = held.packed_stores()?;
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
pub(super) fn packed_chunk(
    bindings: &[LoweredBinding],
    plan: &DispatchPlan,
    active: u32,
    limit: u64,
) -> u64 {
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

/// Runs every item of `items` (equal input lengths, planned once as `plan`) packed, `active`
/// invocations each, in the fewest launches.
#[allow(clippy::too_many_arguments)]
pub(super) fn run_packed(
    backend: &WgpuBackend,
    held: &Arc<Compiled>,
    plan: &DispatchPlan,
    active: u32,
    items: &mut dyn Batch,
    config: &DispatchConfig,
    limits: Limits,
    launches: &mut u32,
) -> Result<(), BackendError> {
    let compiled = compiled_for(backend, held, PACKED)?;
    let per_launch = packed_chunk(&compiled.bindings, plan, active, limits.binding);
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
        launch_packed(backend, &compiled, plan, active, &chunk, items)?;
        *launches += 1;
        start = end;
    }
    Ok(())
}

/// One packed launch of the items of `chunk`.
fn launch_packed(
    backend: &WgpuBackend,
    compiled: &Compiled,
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
    let started = Instant::now();
    let program = &compiled.program();
    let n = range.len();
    let overflow = || too_big(range.start, limits.binding, plan.grid);
    let items_in_launch = u64::try_from(n).map_err(|_| overflow())?;
    let buffers = job_buffers(compiled, Readback::Whole, |b| {
        let j = b.buffer_index;
        let count = plan.buffers[j].element_count;
        // `packed_chunk` sized the launch to fit, but every product is checked: a wrapped size
        // would lay items over each other.
        let elements = count.checked_mul(items_in_launch).ok_or_else(overflow)?;
        let stride = count
            .checked_mul(4)
            .and_then(|s| usize::try_from(s).ok())
            .ok_or_else(overflow)?;
        let init = match plan.buffers[j].input {
            Some(i) if program.buffers[j].access.takes_input() => {
                let capacity = elements
                    .checked_mul(4)
                    .and_then(|c| usize::try_from(c).ok())
                    .ok_or_else(overflow)?;
                let mut data = Vec::with_capacity(capacity);
                // Inputs shorter than the declared count are zero-padded within the item's slice.
                items.gather(range.clone(), i, stride, &mut data);
                Init::Bytes(Cow::Owned(data))
            }
            _ => Init::Zero,
        };
        Ok(BufferSpec { elements, init })
    })?;
    let invocations = u64::from(active)
        .checked_mul(items_in_launch)
        .ok_or_else(overflow)?;
    let groups = invocations.div_ceil(u64::from(program.workgroup_size[0].max(1)));
    let groups = u32::try_from(groups).map_err(|_| too_big(0, limits.binding, plan.grid))?;
    let (physical, _) = fold_grid([groups, 1, 1], 1, limits.max_dim)?;
    let params = lower::plan_params(plan, n, active)?;
    let job = Job {
        buffers,
        pieces: vec![Piece::whole(params, physical)],
        items: None,
        timeout: config.timeout,
    };
    let (whole, delivering) = launch_items(backend, compiled, job, started)?;
    let counters = backend.counters();
    bump(&counters.packed_launches, 1);
    let outputs: Vec<Strided<'_>> = output_buffers(program, compiled)
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
    counters.lap(Phase::Deliver, delivering);
    Ok(())
}
