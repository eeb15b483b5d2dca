//! Counters that make the backend's work observable: how many modules, pipelines and layouts it created,
//! how many real dispatch calls and submits it made, and what its pool and cache hold.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

/// A snapshot of the backend's counters ([`crate::WgpuBackend::stats`]): what vyre did on the
/// device, to check that pipelines, bind groups and buffers are reused.
///
/// ```
/// use vyre_driver::{DispatchConfig, VyreBackend};
/// use vyre_driver_wgpu::WgpuBackend;
/// use vyre_foundation::ir::{BufferDecl, DataType, Expr, Node, Program};
///
/// let Ok(backend) = WgpuBackend::acquire() else { return Ok(()) };
/// let program = Program::new(
///     vec![
///         BufferDecl::read("x", 0, DataType::U32).with_count(256),
///         BufferDecl::output("y", 1, DataType::U32).with_count(256),
///     ],
///     [64, 1, 1],
///     vec![Node::store("y", Expr::gid_x(), Expr::load("x", Expr::gid_x()))],
/// );
/// let input = vec![vec![7u8; 1024]];
/// backend.dispatch(&program, &input, &DispatchConfig::default())?;
/// let once = backend.stats();
/// assert_eq!((once.pipelines_created, once.cache_misses, once.cache_entries), (1, 1, 1));
/// assert!(once.dispatch_calls >= 1 && once.submits >= 1);
/// assert!(once.pool_bytes_held <= once.pool_bytes_limit);
/// backend.dispatch(&program, &input, &DispatchConfig::default())?;
/// let twice = backend.stats();
/// // The second dispatch compiled nothing and made no new buffers: the cache and pool served it.
/// assert_eq!(twice.pipelines_created, 1);
/// assert_eq!(twice.cache_hits, once.cache_hits + 1);
/// assert_eq!(twice.buffers_created, once.buffers_created);
/// assert_eq!(twice.recoveries, 0);
/// // The first dispatch validated, lowered and compiled the program; the second none of that.
/// assert!(once.compile.validate_ns > 0 && once.compile.lower_ns > 0 && once.compile.pipeline_ns > 0);
/// assert_eq!(twice.compile, once.compile);
/// # Ok::<(), vyre_driver::BackendError>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct WgpuStats {
    /// Shader modules created.
    pub shader_modules_created: u64,
    /// Of those, the modules compiled without wgpu's runtime bounds checks, vyre's guards alone
    /// keeping every access in bounds ([`crate::AdapterOptions::with_trusted_modules`]).
    pub trusted_modules_created: u64,
    /// Compute pipelines created.
    pub pipelines_created: u64,
    /// Bind group layouts created.
    pub bind_group_layouts_created: u64,
    /// Bind groups created: a launch that repeats its pipeline's last shape reuses its groups.
    pub bind_groups_created: u64,
    /// Real `dispatch_workgroups` calls recorded.
    pub dispatch_calls: u64,
    /// Coalesced launches that ran packed: equal items laid end to end, only the invocations that can
    /// have an effect started (see [`crate::WgpuPipeline::dispatch_coalesced`]).
    pub packed_launches: u64,
    /// Queue submissions.
    pub submits: u64,
    /// Pipeline cache hits.
    pub cache_hits: u64,
    /// Pipeline cache misses: pipelines compiled because the cache did not hold them.
    pub cache_misses: u64,
    /// Pipelines the cache evicted to stay within its bound (least recently used first; pipelines of
    /// a replaced device are dropped, not counted).
    pub cache_evictions: u64,
    /// Pipelines in the cache now.
    pub cache_entries: u64,
    /// Bytes of idle buffers the pool holds now.
    pub pool_bytes_held: u64,
    /// Idle buffers the pool holds now.
    pub pool_buffers_held: u64,
    /// Work of dropped async calls whose buffers wait for the device to finish with them before
    /// they go back to the pool (see `WgpuBackend`'s async calls): 0 once the device is idle.
    pub reclaims_pending: u64,
    /// The most idle bytes the pool keeps: sized from the device's largest buffer and the host's
    /// memory when the device was opened (see `ARCHITECTURE.md`).
    pub pool_bytes_limit: u64,
    /// Buffers the pool created (reuse keeps this flat).
    pub buffers_created: u64,
    /// Device losses detected and recovered from.
    pub recoveries: u64,
    /// Programs validated by the backend: once per program it has not seen lately (a program
    /// equal to one dispatched lately is known, and not validated again). The IR pass pipeline's
    /// checks of its own intermediate results are not counted.
    pub validations: u64,
    /// Programs analysed (the launch-form and lowering analyses, `lower::analysis`): once per
    /// program the backend comes to know.
    pub analyses: u64,
    /// Host wall time spent in each phase of every launch so far, to see where a dispatch's time
    /// goes (differences of two snapshots divided by the dispatches between them).
    pub phases: PhaseTimes,
    /// Host wall time spent making pipelines, per step, to see where a cold compile's time goes.
    pub compile: CompileTimes,
}

/// Nanoseconds of host wall time summed over every program the backend came to know and every
/// pipeline it compiled, per step, in the order a cold compile runs them (differences of two
/// snapshots divided by the compiles between them). A dispatch served by the pipeline cache adds
/// nothing here.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct CompileTimes {
    /// Validating programs the backend did not know.
    pub validate_ns: u64,
    /// Coming to know a validated program: its fingerprint, the IR passes (with their checks of
    /// what they changed) and the lowering's analyses.
    pub know_ns: u64,
    /// Lowering a known program in one launch form to a naga module.
    pub lower_ns: u64,
    /// `create_shader_module`: wgpu's own validation of the module.
    pub module_ns: u64,
    /// The layouts and `create_compute_pipeline`: the backend's shader translation (SPIR-V on
    /// Vulkan) and the driver's compile.
    pub pipeline_ns: u64,
}

impl CompileTimes {
    /// The sum of every step.
    pub fn total_ns(&self) -> u64 {
        self.validate_ns + self.know_ns + self.lower_ns + self.module_ns + self.pipeline_ns
    }
}

/// Nanoseconds of host wall time summed over every launch, per phase, in the order a launch runs
/// them. Each phase is timed with two clock reads (tens of nanoseconds), so the counters cost nothing
/// a launch would notice.
///
/// ```
/// use vyre_driver::{DispatchConfig, VyreBackend};
/// use vyre_driver_wgpu::WgpuBackend;
/// use vyre_foundation::ir::{BufferDecl, DataType, Expr, Node, Program};
///
/// let Ok(backend) = WgpuBackend::acquire() else { return Ok(()) };
/// let program = Program::new(
///     vec![BufferDecl::output("y", 0, DataType::U32).with_count(4)],
///     [64, 1, 1],
///     vec![Node::store("y", Expr::gid_x(), Expr::gid_x())],
/// );
/// let before = backend.stats().phases;
/// backend.dispatch(&program, &[], &DispatchConfig::default())?;
/// let after = backend.stats().phases;
/// // The dispatch waited for the device at least as long as it took to submit its work.
/// assert!(after.wait_ns > before.wait_ns);
/// assert!(after.total_ns() > before.total_ns());
/// # Ok::<(), vyre_driver::BackendError>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct PhaseTimes {
    /// Before the launch: the form, the pipeline's cache lookup, the buffers' plan and, for coalesced
    /// and packed runs, gathering every item's inputs into one vector per binding.
    pub prepare_ns: u64,
    /// Leasing device buffers and writing the inputs (`queue.write_buffer`, or the staging ring for
    /// large inputs, which waits for its copies).
    pub upload_ns: u64,
    /// Recording the command encoder (clears, bind groups, dispatches, readback copies) and
    /// preparing the readback: the returned vectors' allocation and the staging buffers' leases.
    pub record_ns: u64,
    /// `queue.submit` and the error scopes' answers.
    pub submit_ns: u64,
    /// Waiting for the device: the submission's completion and the readback maps.
    pub wait_ns: u64,
    /// Copying mapped readback bytes into the returned vectors.
    pub read_ns: u64,
    /// Handing each item of a coalesced or packed run its outputs.
    pub deliver_ns: u64,
}

impl PhaseTimes {
    /// The sum of every phase.
    pub fn total_ns(&self) -> u64 {
        self.prepare_ns
            + self.upload_ns
            + self.record_ns
            + self.submit_ns
            + self.wait_ns
            + self.read_ns
            + self.deliver_ns
    }
}

#[derive(Default)]
pub(crate) struct Counters {
    pub(crate) shader_modules: AtomicU64,
    pub(crate) trusted_modules: AtomicU64,
    pub(crate) pipelines: AtomicU64,
    pub(crate) layouts: AtomicU64,
    pub(crate) bind_groups: AtomicU64,
    pub(crate) dispatch_calls: AtomicU64,
    pub(crate) packed_launches: AtomicU64,
    pub(crate) submits: AtomicU64,
    pub(crate) buffers_created: AtomicU64,
    pub(crate) recoveries: AtomicU64,
    pub(crate) validations: AtomicU64,
    pub(crate) analyses: AtomicU64,
    pub(crate) phases: [AtomicU64; PHASES],
    pub(crate) compile: [AtomicU64; STEPS],
}

/// A launch phase, an index into [`Counters::phases`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Phase {
    Prepare,
    Upload,
    Record,
    Submit,
    Wait,
    Read,
    Deliver,
}

const PHASES: usize = 7;

/// A step of a cold compile, an index into [`Counters::compile`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Step {
    Validate,
    Know,
    Lower,
    Module,
    Pipeline,
}

const STEPS: usize = 5;

impl Counters {
    /// Adds the time since `since` to `phase`, and returns now (the next phase's start).
    pub(crate) fn lap(&self, phase: Phase, since: Instant) -> Instant {
        add_since(&self.phases[phase as usize], since)
    }

    /// Adds the time since `since` to the compile step `step`, and returns now.
    pub(crate) fn step(&self, step: Step, since: Instant) -> Instant {
        add_since(&self.compile[step as usize], since)
    }
}

/// Adds the nanoseconds since `since` to `counter`, and returns now.
fn add_since(counter: &AtomicU64, since: Instant) -> Instant {
    let now = Instant::now();
    let ns = u64::try_from(now.saturating_duration_since(since).as_nanos()).unwrap_or(u64::MAX);
    counter.fetch_add(ns, Ordering::Relaxed);
    now
}

pub(crate) fn bump(counter: &AtomicU64, by: u64) {
    counter.fetch_add(by, Ordering::Relaxed);
}

/// What the pipeline cache counted, for [`WgpuStats`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct CacheCounts {
    pub(crate) entries: u64,
    pub(crate) hits: u64,
    pub(crate) misses: u64,
    pub(crate) evictions: u64,
}

/// What the buffer pool and the poller hold, for [`WgpuStats`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct PoolCounts {
    pub(crate) bytes_held: u64,
    pub(crate) buffers_held: u64,
    pub(crate) bytes_limit: u64,
    pub(crate) reclaims_pending: u64,
}

impl Counters {
    pub(crate) fn snapshot(&self, cache: CacheCounts, pool: PoolCounts) -> WgpuStats {
        let get = |c: &AtomicU64| c.load(Ordering::Relaxed);
        WgpuStats {
            shader_modules_created: get(&self.shader_modules),
            trusted_modules_created: get(&self.trusted_modules),
            pipelines_created: get(&self.pipelines),
            bind_group_layouts_created: get(&self.layouts),
            bind_groups_created: get(&self.bind_groups),
            dispatch_calls: get(&self.dispatch_calls),
            packed_launches: get(&self.packed_launches),
            submits: get(&self.submits),
            cache_hits: cache.hits,
            cache_misses: cache.misses,
            cache_evictions: cache.evictions,
            cache_entries: cache.entries,
            pool_bytes_held: pool.bytes_held,
            pool_buffers_held: pool.buffers_held,
            pool_bytes_limit: pool.bytes_limit,
            reclaims_pending: pool.reclaims_pending,
            buffers_created: get(&self.buffers_created),
            recoveries: get(&self.recoveries),
            validations: get(&self.validations),
            analyses: get(&self.analyses),
            phases: PhaseTimes {
                prepare_ns: get(&self.phases[Phase::Prepare as usize]),
                upload_ns: get(&self.phases[Phase::Upload as usize]),
                record_ns: get(&self.phases[Phase::Record as usize]),
                submit_ns: get(&self.phases[Phase::Submit as usize]),
                wait_ns: get(&self.phases[Phase::Wait as usize]),
                read_ns: get(&self.phases[Phase::Read as usize]),
                deliver_ns: get(&self.phases[Phase::Deliver as usize]),
            },
            compile: CompileTimes {
                validate_ns: get(&self.compile[Step::Validate as usize]),
                know_ns: get(&self.compile[Step::Know as usize]),
                lower_ns: get(&self.compile[Step::Lower as usize]),
                module_ns: get(&self.compile[Step::Module as usize]),
                pipeline_ns: get(&self.compile[Step::Pipeline as usize]),
            },
        }
    }
}
