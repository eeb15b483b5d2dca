//! `WgpuPipeline`: a program compiled once for coalesced dispatch, and the run of a batch of items
//! through it with recovery.
//!
//! A pipeline holds the compiled form its runs launch and a handle on the backend it came from, so
//! that a run can recover a lost device and fetch the other form (coalesced or packed) when its
//! items call for it. The backend's cache holds only compiled forms, never a `WgpuPipeline`, so the
//! handle makes no cycle.

use std::sync::Arc;

use vyre_driver::{BackendError, DispatchConfig};
use vyre_foundation::ir::Program;

use super::batch::{Batch, ItemSets, Progress, Rest};
use super::coalesced;
use super::packed::packs;
use super::plan::{COALESCED, PACKED};
use crate::backend::WgpuBackend;
use crate::lifecycle::TeardownTurn;
use crate::pipeline::Compiled;

/// A program compiled for coalesced dispatch on one device generation.
///
/// Obtained from [`WgpuBackend::compile_persistent`]; run batches of items through
/// [`WgpuPipeline::dispatch_coalesced`]. It keeps its backend alive.
///
/// ```
/// use vyre_driver::DispatchConfig;
/// use vyre_driver_wgpu::WgpuBackend;
/// use vyre_foundation::ir::{BufferDecl, DataType, Expr, Node, Program};
///
/// let Ok(backend) = WgpuBackend::acquire() else { return Ok(()) };
/// let square = Program::new(
///     vec![
///         BufferDecl::read("x", 0, DataType::U32).with_count(1),
///         BufferDecl::output("y", 1, DataType::U32).with_count(1),
///     ],
///     [64, 1, 1],
///     vec![Node::store(
///         "y",
///         Expr::gid_x(),
///         Expr::mul(Expr::load("x", Expr::gid_x()), Expr::load("x", Expr::gid_x())),
///     )],
/// );
/// let config = DispatchConfig::default();
/// let pipeline = backend.compile_persistent(&square, &config)?;
/// drop(backend); // the pipeline keeps the backend alive
/// // Reuse the one pipeline for batch after batch.
/// for batch in 0..3u32 {
///     let items: Vec<Vec<Vec<u8>>> = (0..4u32).map(|k| vec![(batch + k).to_le_bytes().to_vec()]).collect();
///     let outputs = pipeline.dispatch_coalesced(&items, &config)?;
///     assert_eq!(outputs[3][0], ((batch + 3) * (batch + 3)).to_le_bytes());
/// }
/// # Ok::<(), vyre_driver::BackendError>(())
/// ```
pub struct WgpuPipeline {
    /// The form `compile_persistent` chose for its config; runs launch it while it is current.
    compiled: Arc<Compiled>,
    backend: WgpuBackend,
    /// Held while the fields above are dropped: the pipeline may hold the backend's, and so the
    /// device's, last reference (see `lifecycle`).
    teardown: TeardownTurn,
}

impl Drop for WgpuPipeline {
    fn drop(&mut self) {
        self.teardown.take();
    }
}

impl std::fmt::Debug for WgpuPipeline {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WgpuPipeline")
            .field("fingerprint", &self.compiled.program().fingerprint())
            .field("packed", &self.compiled.form.packed())
            .field("generation", &self.compiled.generation)
            .finish_non_exhaustive()
    }
}

impl WgpuBackend {
    /// Compiles `program` (or takes it from the cache) in the form a coalesced dispatch with `config`
    /// launches: packed when the program only stores at `gid.x` and `config`'s grid (if any) is
    /// one-dimensional, else the coalesced form with an `items` table. A batch whose items turn out
    /// to need the other form (unequal input lengths, or another config's grid) compiles that form on
    /// its first run.
    ///
    /// # Errors
    ///
    /// [`BackendError::InvalidProgram`] for invalid programs, [`BackendError::Compile`] or
    /// [`BackendError::LimitExceeded`] when the device cannot run it.
    ///
    /// ```
    /// use vyre_driver::DispatchConfig;
    /// use vyre_driver_wgpu::WgpuBackend;
    /// use vyre_foundation::ir::{BufferDecl, DataType, Expr, Node, Program};
    ///
    /// let Ok(backend) = WgpuBackend::acquire() else { return Ok(()) };
    /// let program = Program::new(
    ///     vec![BufferDecl::output("o", 0, DataType::U32).with_count(8)],
    ///     [64, 1, 1],
    ///     vec![Node::store("o", Expr::gid_x(), Expr::u32(1))],
    /// );
    /// let config = DispatchConfig::default();
    /// let _first = backend.compile_persistent(&program, &config)?;
    /// let compiled = backend.stats().pipelines_created;
    /// // Compiling the same program again takes it from the cache.
    /// let _again = backend.compile_persistent(&program, &config)?;
    /// assert_eq!(backend.stats().pipelines_created, compiled);
    /// // An invalid program is refused with the validator's errors.
    /// let bad = Program::new(vec![BufferDecl::output("o", 0, DataType::U32)], [64, 1, 1], vec![]);
    /// assert_eq!(backend.compile_persistent(&bad, &config).unwrap_err().kind_name(), "InvalidProgram");
    /// # Ok::<(), vyre_driver::BackendError>(())
    /// ```
    pub fn compile_persistent(
        &self,
        program: &Program,
        config: &DispatchConfig,
    ) -> Result<Arc<WgpuPipeline>, BackendError> {
        let known = self.known(program)?;
        // The form the coalesced run will launch for this config (a derived grid is one
        // dimensional and covers every buffer).
        let width = program.workgroup_size[0];
        let form = if known.facts.packed_stores.is_some()
            && config.grid.is_none_or(|g| packs(&known.facts, width, g))
        {
            PACKED
        } else {
            COALESCED
        };
        let compiled = self.get_or_compile(&*self.state()?, &known, form)?;
        Ok(Arc::new(WgpuPipeline {
            compiled,
            backend: self.clone(),
            teardown: TeardownTurn::default(),
        }))
    }
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
    ///
    /// ```
    /// use vyre_driver::DispatchConfig;
    /// use vyre_driver_wgpu::WgpuBackend;
    /// use vyre_foundation::ir::{BufferDecl, DataType, Expr, Node, Program};
    ///
    /// let Ok(backend) = WgpuBackend::acquire() else { return Ok(()) };
    /// let add = Program::new(
    ///     vec![
    ///         BufferDecl::read("a", 0, DataType::U32).with_count(2),
    ///         BufferDecl::read("b", 1, DataType::U32).with_count(2),
    ///         BufferDecl::output("c", 2, DataType::U32).with_count(2),
    ///     ],
    ///     [64, 1, 1],
    ///     vec![Node::store(
    ///         "c",
    ///         Expr::gid_x(),
    ///         Expr::add(Expr::load("a", Expr::gid_x()), Expr::load("b", Expr::gid_x())),
    ///     )],
    /// );
    /// let config = DispatchConfig::default();
    /// let pipeline = backend.compile_persistent(&add, &config)?;
    /// let words = |v: [u32; 2]| v.iter().flat_map(|w| w.to_le_bytes()).collect::<Vec<u8>>();
    /// // Three items, each with its own two inputs, in one launch.
    /// let items: Vec<Vec<Vec<u8>>> = (0..3).map(|k| vec![words([k, k]), words([10, 20])]).collect();
    /// let outputs = pipeline.dispatch_coalesced(&items, &config)?;
    /// assert_eq!(outputs[2][0], words([12, 22]));
    /// # Ok::<(), vyre_driver::BackendError>(())
    /// ```
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
        let backend = &self.backend;
        let mut progress = Progress::default();
        backend.with_recovery(|| {
            let mut launches = 0;
            let mut rest = Rest {
                start: progress.delivered,
                batch: &mut *items,
                progress: &mut progress,
            };
            let result = coalesced::run(backend, &self.compiled, &mut rest, config, &mut launches);
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
