//! The reference backend: a CPU interpreter that is the executable form of `SEMANTICS.md`.
//!
//! # How it runs a program
//!
//! 1. [`vyre_driver::prepare`] validates the program and checks the inputs and grid
//!    ([`vyre_driver::plan_dispatch`]), exactly as for every other backend.
//! 2. The validated program is compiled from its evidence into a register bytecode (`compile`), which
//!    is cached by the program's fingerprint, so repeated dispatches skip compiling.
//! 3. The grid runs block by block: a block is one workgroup, or several workgroups when they share
//!    nothing (no barrier, no workgroup memory). Each instruction runs across the block's active lanes
//!    before the next one (SIMT with active masks), so an instruction's dispatch cost is spread over
//!    many invocations. Blocks run on several threads when workgroups cannot observe each other's
//!    order and the grid is large enough.
//!
//! Integers and bools follow `SEMANTICS.md` to the bit; floats are Rust `f32` operations. An optional
//! budget (`DispatchConfig::fuel`, `DispatchConfig::timeout`) turns runaway programs into
//! [`BackendError::Timeout`]. [`ReferenceBackend::dispatch_traced`] also reports how many operations
//! ran and whether a result was indeterminate (a float overflow or NaN from finite inputs, or a
//! NaN/infinite float cast to an integer), so a fuzzer can discard or relax such runs.

mod budget;
mod cache;
mod compile;
mod exec;
mod inst;
mod lanes;
mod memory;
mod resident;
mod scalar;
mod schedule;

#[cfg(test)]
mod tests;

use std::sync::Arc;

use vyre_driver::{
    BackendError, Capabilities, DeviceBuffer, DispatchConfig, DispatchPlan, PreparedStep,
    VyreBackend,
};
use vyre_foundation::ir::Program;
use vyre_foundation::validate::Validated;

use crate::budget::Budget;
use crate::cache::ProgramCache;
use crate::compile::Compiled;
use crate::memory::Memory;
use crate::schedule::Run;

/// The device name the reference backend reports.
const DEVICE_NAME: &str = "vyre reference interpreter (CPU)";

/// The CPU reference interpreter. Always available; `id()` is `"reference"`.
///
/// ```
/// use vyre_reference::ReferenceBackend;
/// use vyre_driver::{DispatchConfig, VyreBackend};
/// use vyre_foundation::ir::{BufferDecl, DataType, Expr, Node, Program};
///
/// let program = Program::wrapped(
///     vec![
///         BufferDecl::read("input", 0, DataType::U32).with_count(4),
///         BufferDecl::output("out", 1, DataType::U32).with_count(4),
///     ],
///     [4, 1, 1],
///     vec![Node::store(
///         "out",
///         Expr::gid_x(),
///         Expr::add(Expr::load("input", Expr::gid_x()), Expr::u32(1)),
///     )],
/// );
/// let input: Vec<u8> = [1u32, 2, 3, u32::MAX].iter().flat_map(|w| w.to_le_bytes()).collect();
/// let out = ReferenceBackend::new().dispatch(&program, &[input], &DispatchConfig::default())?;
/// let words: Vec<u32> = out[0].chunks(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
/// assert_eq!(words, [2, 3, 4, 0]);
/// # Ok::<(), vyre_driver::BackendError>(())
/// ```
#[derive(Debug)]
pub struct ReferenceBackend {
    cache: ProgramCache,
    /// Lanes per subgroup; 0 when subgroup operations are off.
    subgroup_size: u32,
    /// Resident buffers and the lock that makes each sequence, read and write one indivisible step,
    /// as a device queue orders submissions.
    resident: resident::Resident,
}

impl Default for ReferenceBackend {
    fn default() -> Self {
        Self {
            cache: ProgramCache::default(),
            subgroup_size: DEFAULT_SUBGROUP_SIZE,
            resident: resident::Resident::new(),
        }
    }
}

/// The result of [`ReferenceBackend::dispatch_traced`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TracedRun {
    /// One byte vector per output buffer, as [`VyreBackend::dispatch`] returns them.
    pub outputs: Vec<Vec<u8>>,
    /// IR operations executed, summed over invocations (what `DispatchConfig::fuel` bounds).
    pub ops_executed: u64,
    /// True when some result is indeterminate under `SEMANTICS.md`: a NaN or infinite float was cast
    /// to an integer, or a float operation overflowed or produced NaN from finite inputs. Other
    /// backends may then legitimately disagree with these outputs.
    pub indeterminate: bool,
}

/// The subgroup size of [`ReferenceBackend::new`]: 32, the size of NVIDIA GPUs and of most
/// others that have one fixed size.
pub const DEFAULT_SUBGROUP_SIZE: u32 = 32;

impl ReferenceBackend {
    /// A new reference backend with an empty program cache, running subgroup operations with
    /// [`DEFAULT_SUBGROUP_SIZE`] lanes per subgroup.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// This backend, running subgroup operations with `n` lanes per subgroup: the results of
    /// size-dependent programs (SEMANTICS.md, "Subgroups") are those of a device whose subgroups
    /// have `n` lanes. `n` must be a power of two from 1 to 128, as on every device; any other `n`
    /// (0 included) turns subgroup operations off, so `capabilities().subgroups` is false and a
    /// program that uses them is refused with [`BackendError::Unsupported`].
    ///
    /// ```
    /// use vyre_driver::VyreBackend;
    /// use vyre_reference::ReferenceBackend;
    ///
    /// let caps = ReferenceBackend::new().with_subgroup_size(8).capabilities();
    /// assert!(caps.subgroups);
    /// assert_eq!(caps.subgroup_sizes, [8, 8]);
    /// assert!(!ReferenceBackend::new().with_subgroup_size(0).capabilities().subgroups);
    /// ```
    #[must_use]
    pub fn with_subgroup_size(mut self, n: u32) -> ReferenceBackend {
        self.subgroup_size = if n.is_power_of_two() && n <= 128 {
            n
        } else {
            0
        };
        self
    }

    /// The lanes per subgroup this backend runs with; 0 when subgroup operations are off.
    #[must_use]
    pub fn subgroup_size(&self) -> u32 {
        self.subgroup_size
    }

    /// Like [`VyreBackend::dispatch`], and also reports the operations executed and whether any
    /// result was indeterminate.
    ///
    /// # Errors
    ///
    /// The same errors as [`VyreBackend::dispatch`].
    pub fn dispatch_traced(
        &self,
        program: &Program,
        inputs: &[Vec<u8>],
        config: &DispatchConfig,
    ) -> Result<TracedRun, BackendError> {
        let (evidence, plan) = vyre_driver::prepare(program, inputs, config)?;
        let code = self.compiled(&evidence)?;
        run::<true>(&code, program, &plan, inputs, (config, self.subgroup_size))
    }

    /// The number of compiled programs currently cached.
    #[must_use]
    pub fn cached_programs(&self) -> usize {
        self.cache.len()
    }

    /// The compiled form of a validated program, compiled from its evidence on first use.
    fn compiled(&self, evidence: &Validated<'_>) -> Result<Arc<Compiled>, BackendError> {
        // The fingerprint hashes the wire bytes; the cache then compares whole programs (whose derived
        // equality recurses), which validation bounded the nesting of.
        let program = evidence.program();
        vyre_driver::require_features(
            DEVICE_NAME,
            self.capabilities().features(),
            evidence.features(),
        )?;
        if evidence
            .features()
            .contains(vyre_foundation::ir::Features::TILES)
        {
            vyre_driver::check_tiles(&self.capabilities(), evidence)?;
        }
        let key = program.fingerprint();
        if let Some(code) = self.cache.get(key, program) {
            return Ok(code);
        }
        let code = Arc::new(compile::compile(evidence)?);
        self.cache.insert(key, program, Arc::clone(&code));
        Ok(code)
    }
}

/// Runs compiled `code` for `program` on `inputs`, checked by `plan`.
fn run<const TRACE: bool>(
    code: &Compiled,
    program: &Program,
    plan: &DispatchPlan,
    inputs: &[Vec<u8>],
    config: (&DispatchConfig, u32),
) -> Result<TracedRun, BackendError> {
    let memory = Memory::new(program, plan, inputs)?;
    let budget = run_on::<TRACE>(code, plan, &memory, config)?;
    Ok(TracedRun {
        outputs: memory.outputs(program),
        ops_executed: budget.used(),
        indeterminate: budget.indeterminate(),
    })
}

/// Runs compiled `code` over `memory` as `plan` says; returns the spent budget.
fn run_on<const TRACE: bool>(
    code: &Compiled,
    plan: &DispatchPlan,
    memory: &Memory,
    (config, subgroup_size): (&DispatchConfig, u32),
) -> Result<Budget, BackendError> {
    let budget = Budget::new(config);
    // `buf_len` yields a u32; the planner keeps every element count within one, and a count past it
    // must be an error rather than a truncated length that would move the bounds guards.
    let buf_lens = plan
        .buffers
        .iter()
        .map(|b| u32::try_from(b.element_count))
        .collect::<Result<Vec<u32>, _>>()
        .map_err(|_| {
            BackendError::limit_exceeded(
                "a buffer has more elements than `buf_len` (a u32) counts. Fix: split the data over several dispatches.",
            )
        })?;
    let job = Run {
        code,
        memory,
        budget: &budget,
        grid: plan.grid,
        buf_lens: &buf_lens,
        subgroup_size,
    };
    job.execute::<TRACE>()?;
    if budget.stopped() {
        return Err(budget.take_error());
    }
    Ok(budget)
}

impl VyreBackend for ReferenceBackend {
    fn id(&self) -> &str {
        "reference"
    }

    fn capabilities(&self) -> Capabilities {
        let mut caps = Capabilities::unlimited(DEVICE_NAME);
        // f16 (through f32, rounded once), 64-bit integers and their atomics are all implemented.
        caps.f16 = true;
        caps.int64 = true;
        caps.int64_atomics = true;
        caps.subgroups = self.subgroup_size != 0;
        caps.subgroup_sizes = [self.subgroup_size; 2];
        caps.matrix_tiles = vyre_foundation::ir::TileShape::all();
        caps
    }

    fn execute(
        &self,
        program: &Validated<'_>,
        plan: &DispatchPlan,
        inputs: &[Vec<u8>],
        config: &DispatchConfig,
    ) -> Result<Vec<Vec<u8>>, BackendError> {
        let code = self.compiled(program)?;
        run::<false>(
            &code,
            program.program(),
            plan,
            inputs,
            (config, self.subgroup_size),
        )
        .map(|r| r.outputs)
    }

    fn create_buffer(&self, bytes: u64) -> Result<DeviceBuffer, BackendError> {
        self.resident.create(bytes)
    }

    fn write_buffer(
        &self,
        buffer: &DeviceBuffer,
        offset: u64,
        data: &[u8],
    ) -> Result<(), BackendError> {
        self.resident.write(buffer, offset, data)
    }

    fn read_buffer(
        &self,
        buffer: &DeviceBuffer,
        range: std::ops::Range<u64>,
    ) -> Result<Vec<u8>, BackendError> {
        self.resident.read(buffer, range)
    }

    fn execute_sequence(&self, steps: &[PreparedStep<'_>]) -> Result<(), BackendError> {
        self.resident.sequence(steps, |step, memory| {
            let code = self.compiled(&step.program)?;
            run_on::<false>(&code, &step.plan, memory, (step.config, self.subgroup_size)).map(drop)
        })
    }
}
