//! Spreading the blocks of a dispatch over threads.
//!
//! Workgroups run in order of their linear index. They run in parallel (rayon) only when they cannot
//! observe each other's order, which for a race-free program means no atomic on a bound buffer, and
//! only when the grid is large enough to pay for the threads. Independent workgroups without
//! barriers or workgroup memory are batched into blocks of about [`BLOCK_LANES`] lanes so that each
//! instruction's dispatch cost is spread over many lanes.

use rayon::prelude::*;
use vyre_driver::BackendError;

use crate::reference::budget::Budget;
use crate::reference::compile::Compiled;
use crate::reference::exec::Executor;
use crate::reference::memory::Memory;

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
    pub(crate) buf_lens: &'a [u64],
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
        let lanes = self.code.workgroup_lanes() as u64;
        let per_block = if self.code.batchable() {
            let register_bytes = self.code.num_regs.max(1) as u64 * lanes * 4;
            let fits = REGISTER_FILE_BYTES / register_bytes;
            (BLOCK_LANES / lanes).min(fits).clamp(1, total)
        } else {
            1
        };
        let blocks = total.div_ceil(per_block);
        let parallel = !self.code.storage_atomics
            && blocks > 1
            && total.saturating_mul(lanes) >= PARALLEL_MIN_INVOCATIONS
            && rayon::current_num_threads() > 1;
        if parallel {
            self.parallel::<TRACE>(per_block, blocks, total);
        } else {
            self.serial::<TRACE>(per_block, 0..blocks, total);
        }
        Ok(())
    }

    fn executor<const TRACE: bool>(&self, per_block: u64) -> Executor<'_, TRACE> {
        Executor::new(
            self.code,
            self.memory,
            self.budget,
            self.grid,
            per_block,
            self.buf_lens,
        )
    }

    fn serial<const TRACE: bool>(&self, per_block: u64, blocks: std::ops::Range<u64>, total: u64) {
        let mut executor = self.executor::<TRACE>(per_block);
        for block in blocks {
            if executor.run_block(block, total).is_err() {
                break;
            }
        }
        executor.finish();
    }

    fn parallel<const TRACE: bool>(&self, per_block: u64, blocks: u64, total: u64) {
        let chunks = blocks.min(rayon::current_num_threads() as u64 * 8);
        let chunk_len = blocks.div_ceil(chunks);
        (0..chunks).into_par_iter().for_each(|c| {
            let start = c * chunk_len;
            let end = (start + chunk_len).min(blocks);
            self.serial::<TRACE>(per_block, start..end, total);
        });
    }
}
