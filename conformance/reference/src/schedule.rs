//! Spreading the blocks of a dispatch over threads.
//!
//! Workgroups run in order of their linear index. They run in parallel (rayon) only when they cannot
//! observe each other's order, which for a race-free program means no atomic on a bound buffer, and
//! only when the grid is large enough to pay for the threads. Independent workgroups without
//! barriers or workgroup memory are batched into blocks of about [`BLOCK_LANES`] lanes so that each
//! instruction's dispatch cost is spread over many lanes.

use rayon::prelude::*;
use vyre_driver::BackendError;

use crate::budget::Budget;
use crate::compile::Compiled;
use crate::exec::Executor;
use crate::memory::Memory;

/// Lanes per block when workgroups can be batched.
const BLOCK_LANES: u64 = 1024;

/// The most register-file bytes one executor allocates when batching workgroups; programs with many
/// registers get smaller blocks.
const REGISTER_FILE_BYTES: u64 = 32 << 20;

/// Invocations below which a dispatch stays on the calling thread.
const PARALLEL_MIN_INVOCATIONS: u64 = 1 << 15;

/// What one dispatch needs to run.
pub(crate) struct Run<'a> {
    pub(crate) code: &'a Compiled,
    pub(crate) memory: &'a Memory,
    pub(crate) budget: &'a Budget,
    pub(crate) grid: [u32; 3],
    pub(crate) buf_lens: &'a [u32],
    /// Lanes per subgroup.
    pub(crate) subgroup_size: u32,
}

impl Run<'_> {
    /// Runs every workgroup; on failure the error is in the budget.
    pub(crate) fn execute<const TRACE: bool>(&self) -> Result<(), BackendError> {
        let total = self
            .grid
            .iter()
            .try_fold(1u64, |acc, &g| acc.checked_mul(u64::from(g)))
            .ok_or_else(|| {
                BackendError::limit_exceeded(format!(
                    "the grid {:?} has more than 2^64 workgroups. Fix: use a smaller grid.",
                    self.grid
                ))
            })?;
        let too_large = || {
            BackendError::limit_exceeded(format!(
                "a block of workgroups of size {:?} needs more register lanes than this host can address. Fix: use a smaller workgroup size.",
                self.code.workgroup_size
            ))
        };
        let lanes = u64::try_from(self.code.workgroup_lanes()).map_err(|_| too_large())?;
        let per_block = if self.code.batchable() {
            // Saturating: an impossibly large register file just means one workgroup per block.
            let register_bytes = u64::try_from(self.code.num_regs.max(1))
                .unwrap_or(u64::MAX)
                .saturating_mul(lanes)
                .saturating_mul(4);
            let fits = REGISTER_FILE_BYTES / register_bytes;
            (BLOCK_LANES / lanes.max(1)).min(fits).clamp(1, total)
        } else {
            1
        };
        // Every executor allocates `per_block * lanes` lanes per register and numbers them with u32
        // lane indices.
        let block_lanes = per_block
            .checked_mul(lanes)
            .filter(|&n| n <= u64::from(u32::MAX))
            .and_then(|n| usize::try_from(n).ok())
            .ok_or_else(too_large)?;
        let blocks = total.div_ceil(per_block);
        let parallel = !self.code.storage_atomics
            && blocks > 1
            && total.saturating_mul(lanes) >= PARALLEL_MIN_INVOCATIONS
            && rayon::current_num_threads() > 1;
        let shape = BlockShape {
            per_block,
            lanes: block_lanes,
            total,
        };
        if parallel {
            self.parallel::<TRACE>(shape, blocks);
        } else {
            self.serial::<TRACE>(shape, 0..blocks);
        }
        Ok(())
    }

    fn serial<const TRACE: bool>(&self, shape: BlockShape, blocks: std::ops::Range<u64>) {
        let executor = Executor::<TRACE>::new(
            self.code,
            self.memory,
            self.budget,
            self.grid,
            shape.per_block,
            shape.lanes,
            (self.buf_lens, self.subgroup_size),
        );
        // An executor that cannot allocate its memory records why in the budget and stops the run.
        let Ok(mut executor) = executor.map_err(|e| self.budget.fail(e)) else {
            return;
        };
        let total = shape.total;
        for block in blocks {
            if executor.run_block(block, total).is_err() {
                break;
            }
        }
        executor.finish();
    }

    fn parallel<const TRACE: bool>(&self, shape: BlockShape, blocks: u64) {
        let threads = u64::try_from(rayon::current_num_threads()).unwrap_or(1);
        let chunks = blocks.min(threads.saturating_mul(8)).max(1);
        let chunk_len = blocks.div_ceil(chunks);
        (0..chunks).into_par_iter().for_each(|c| {
            // `c < chunks` and `chunks * chunk_len < blocks + chunks`, so neither wraps.
            let start = c * chunk_len;
            let end = start.saturating_add(chunk_len).min(blocks);
            self.serial::<TRACE>(shape, start..end);
        });
    }
}

/// How a dispatch's workgroups are cut into blocks.
#[derive(Clone, Copy)]
struct BlockShape {
    /// Workgroups per block.
    per_block: u64,
    /// Lanes per block (`per_block` times the workgroup's invocations).
    lanes: usize,
    /// Workgroups in the dispatch.
    total: u64,
}
