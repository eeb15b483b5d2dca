//! # vyre-driver-wgpu: the wgpu backend for vyre
//!
//! [`WgpuBackend::acquire`] opens the best adapter (a discrete GPU, then an integrated one, then a CPU
//! Vulkan driver such as Mesa's lavapipe; never wgpu's GL backend, which breaks WGSL's integer rules).
//! Set `VYRE_WGPU_ADAPTER=<substring>` to pick an adapter by name.
//!
//! A program is validated, lowered straight to a `naga::Module` (no WGSL text; see [`emit_wgsl`] to read
//! it), compiled once into a pipeline cached by the program's fingerprint, and dispatched with pooled
//! buffers, one encoder and one submit, reading back only each output's byte range. Every load, store and
//! atomic is bounds-guarded in the generated code, so out-of-bounds accesses behave as `SEMANTICS.md`
//! says on every driver; wgpu's own bounds checks would only repeat them, so vyre's modules are
//! compiled without them (see [`AdapterOptions::with_trusted_modules`], and `src/trusted.rs` for the
//! proof). Grids beyond the device's per-dimension limit are folded transparently.
//!
//! [`engine::persistent::run_persistent_kernel`] and [`WgpuPipeline::dispatch_coalesced`] run many work
//! items in one real launch. A lost device (driver reset, `destroy`) is noticed through wgpu's
//! device-lost callback and recovered: a dispatch that meets a lost device opens a new one, recompiles,
//! and retries once.
//!
//! On Vulkan, compiled pipelines also persist across processes: each device has a
//! `wgpu::PipelineCache`, loaded from a file per adapter in `VYRE_CACHE_DIR` (or the user's cache
//! directory; `VYRE_CACHE_DIR=off` turns it off, [`AdapterOptions::with_pipeline_cache`] chooses in
//! code) and saved when the backend is dropped, after new compiles at most every two seconds, or on
//! [`WgpuBackend::save_pipeline_cache`]. A file is used only when vyre's header (versions, adapter,
//! driver) matches and its checksum verifies; anything else is ignored with a `log` warning, and
//! [`WgpuBackend::disk_cache`] says what happened.
//!
//! ## Async calls
//!
//! The async methods of [`vyre_driver::VyreBackend`] (`dispatch_async`, `read_buffer_async`,
//! `dispatch_sequence_async`, ...) run the very steps of the blocking ones: a launch is *started*
//! (uploads, encoding, one submit, the readback maps requested) and then waited for, by blocking the
//! thread or as a future. A future does its start in its first poll and never blocks afterwards:
//! each device has one poller thread, started by the first future that waits and stopped with the
//! device, that calls `Device::poll(PollType::Wait)` for the oldest submission a future waits on
//! and sleeps on a condition variable while none does; `map_async` and `on_submitted_work_done`
//! callbacks wake the futures. A lost device wakes them too: they recover and retry once, like the
//! blocking calls, or end in `BackendError::DeviceLost`. A future dropped mid-flight leaves its
//! submitted work to finish; its pooled buffers go back to the pool once the device is done with
//! them ([`WgpuStats::reclaims_pending`] counts those still waiting). RELIABILITY.md ("Async
//! calls") has the design, including what a WebGPU (wasm32) build needs.
//!
//! ```
//! use vyre_driver::{DispatchConfig, VyreBackend};
//! use vyre_driver_wgpu::WgpuBackend;
//! use vyre_foundation::ir::{BufferDecl, DataType, Expr, Node, Program};
//!
//! let Ok(backend) = WgpuBackend::acquire() else {
//!     return Ok(()); // no adapter on this machine
//! };
//! let program = Program::new(
//!     vec![BufferDecl::output("o", 0, DataType::U32).with_count(8)],
//!     [64, 1, 1],
//!     vec![Node::store("o", Expr::gid_x(), Expr::u32(7))],
//! );
//! let config = DispatchConfig::default();
//! // Inside tokio or any other runtime: `backend.dispatch_async(&program, &[], &config).await?`.
//! let outputs = vyre_driver::block_on(backend.dispatch_async(&program, &[], &config))?;
//! assert_eq!(outputs[0][28..32], 7u32.to_le_bytes());
//! assert_eq!(backend.stats().reclaims_pending, 0);
//! # Ok::<(), vyre_driver::BackendError>(())
//! ```
//!
//! ## A driver deviation to know about
//!
//! Mesa's lavapipe (llvmpipe) ends every loop of a shader once the invocation has run 65535 loop
//! iterations *in total, across all its loops* (gallivm's `LP_MAX_TGSI_LOOP_ITERATIONS`): two loops of
//! 40 000 iterations each run 65 534 iterations together, without any error. Programs whose loops run
//! longer than that per invocation compute wrong results on lavapipe (not on GPU drivers); keep
//! conformance and fuzzing programs below that bound when they run there.

// The modules form layers, each using only those listed before it (`tests/layers.rs` checks this):
// the driver workarounds table; the lowering, trusted modules and the counters; the lifecycle, the disk pipeline cache, the poller and the device; the buffer pool; compiled pipelines;
// one launch; the pipeline cache; the backend and its recovery; the engines; the `VyreBackend`
// implementation; the test helpers.
mod api;
mod backend;
mod cache;
mod device;
mod disk;
pub mod engine;
mod groups;
mod known;
mod launch;
mod lifecycle;
mod lower;
mod passes;
mod pipeline;
mod poller;
mod pool;
mod stats;
pub mod testing;
mod trusted;
pub mod workarounds;

pub use backend::WgpuBackend;
pub use device::{ADAPTER_ENV, AdapterEntry, AdapterOptions, list_adapters};
pub use disk::{CACHE_DIR_ENV, DiskCacheLoad, DiskCacheStatus, PipelineCacheDir};
pub use engine::WgpuPipeline;
#[cfg(feature = "fault-injection")]
pub use launch::FaultPoint;
#[doc(hidden)]
pub use lower::Miscompile;
#[doc(hidden)]
#[cfg(feature = "planted-miscompiles")]
pub use lower::plant_miscompile;
pub use passes::PASSES_ENV;
pub use stats::{CompileTimes, PhaseTimes, WgpuStats};
pub use trusted::TRUSTED_MODULES_ENV;
/// The wgpu this backend is built on, for applications that share their device or buffers with it.
pub use wgpu;
pub use workarounds::{WORKAROUNDS_ENV, Workaround, Workarounds};

use vyre_driver::BackendError;
use vyre_foundation::ir::Program;

/// The WGSL text (naga's writer) of what runs for `program`, for people who want to read it: the
/// folded form, which a plain dispatch runs when its grid exceeds the device's per-dimension limit
/// (within the limit the same body runs with the builtins taken straight from the hardware).
///
/// # Errors
///
/// [`BackendError::InvalidProgram`] for invalid programs, [`BackendError::Compile`] if lowering fails.
///
/// ```
/// use vyre_foundation::ir::{BufferDecl, DataType, Expr, Node, Program};
///
/// let program = Program::new(
///     vec![BufferDecl::output("out", 0, DataType::U32).with_count(8)],
///     [64, 1, 1],
///     vec![Node::store("out", Expr::gid_x(), Expr::u32(1))],
/// );
/// // No device needed: this only lowers the program.
/// let wgsl = vyre_driver_wgpu::emit_wgsl(&program)?;
/// assert!(wgsl.contains("@compute"));
/// # Ok::<(), vyre_driver::BackendError>(())
/// ```
pub fn emit_wgsl(program: &Program) -> Result<String, BackendError> {
    let program = &passes::as_run(program)?;
    let evidence = vyre_foundation::validate(program)?;
    let facts = lower::ProgramFacts::of(&evidence);
    let lowered = lower::lower(
        &evidence,
        &facts,
        &lower::Form::default(),
        Workarounds::NONE,
    )?;
    lower::to_wgsl(&lowered)
}

/// The forms of module the engine launches for one program; [`emit_wgsl_as`] writes any of them.
#[doc(hidden)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LaunchForm {
    /// A plain dispatch whose grid fits the device's per-dimension limit: the builtins come straight
    /// from the hardware. In this form and the vectorised ones, a program with row buffers
    /// (read-only buffers read four elements at a time, see `lower::rows`) has them declared as
    /// `vec4` rows, as the backend launches it when their bindings span whole rows (a plain
    /// dispatch folded for a wide grid has them too; [`LaunchForm::Folded`] does not).
    Direct,
    /// A plain dispatch of any grid, folded into y and z when it is too wide (what [`emit_wgsl`]
    /// writes and [`WgpuBackend::compile_persistent`] compiles): the virtual grid comes from `params`.
    Folded,
    /// Many work items in one launch ([`WgpuPipeline::dispatch_coalesced`], the persistent queue):
    /// each item's slices come from the `items` table.
    Coalesced,
    /// Coalesced items of equal lengths laid end to end; the engine uses it only for programs whose
    /// every effect is a store at `gid.x` (see `lower::packed`).
    Packed,
    /// One piece of an elementwise dispatch split over several launches because a buffer is larger
    /// than the device binds at once (see `lower::elementwise`): the builtins are the whole grid's and
    /// every storage index is rebased onto the piece's bound range.
    Split,
    /// A plain dispatch of a one-dimensional grid of an elementwise program, four virtual
    /// invocations per invocation with `vec4` rows, over `ceil(grid.x / 4)` workgroups that fit the
    /// device's per-dimension limit (see `lower::vector`).
    Vectorised,
    /// [`LaunchForm::Vectorised`] with its workgroups folded into y and z.
    VectorisedFolded,
}

/// The WGSL text of the module the engine launches for `program` in `form`, so that snapshots and
/// readers can see the coalesced, packed and direct modules too, not only the folded one.
///
/// # Errors
///
/// As [`emit_wgsl`]; [`BackendError::Unsupported`] for [`LaunchForm::Packed`] when the engine would
/// never run `program` packed, because that module would not mean what the program means.
#[doc(hidden)]
pub fn emit_wgsl_as(program: &Program, form: LaunchForm) -> Result<String, BackendError> {
    emit_wgsl_with(program, form, Workarounds::NONE)
}

/// [`emit_wgsl_as`] with the driver workarounds `workarounds` applied, as a device that has them in
/// force lowers the program: for reading what a workaround emits (DRIVER_BUGS.md, snapshots).
///
/// # Errors
///
/// As [`emit_wgsl_as`].
///
/// ```
/// use vyre_driver_wgpu::{LaunchForm, Workaround, Workarounds, emit_wgsl_with};
/// use vyre_foundation::ir::Program;
///
/// let program: Program = "program @workgroup_size(1, 1, 1) {
///   buffer out: output i32[1] @binding(0);
///   out[0u] = min(bitcast<i32>(gid.x), 3i);
/// }"
/// .parse()?;
/// let plain = emit_wgsl_with(&program, LaunchForm::Folded, Workarounds::NONE)?;
/// let rewritten = emit_wgsl_with(
///     &program,
///     LaunchForm::Folded,
///     Workarounds::NONE.with(Workaround::IntMinMax),
/// )?;
/// assert!(plain.contains("min(") && !rewritten.contains("min("));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[doc(hidden)]
pub fn emit_wgsl_with(
    program: &Program,
    form: LaunchForm,
    workarounds: Workarounds,
) -> Result<String, BackendError> {
    let program = passes::as_run(program)?;
    lower::to_wgsl(&lowered_as(&program, form, workarounds)?)
}

/// [`emit_wgsl_with`] of `program` exactly as written, without the IR passes: the lowering's own
/// output, which the WGSL snapshots pin.
///
/// # Errors
///
/// As [`emit_wgsl_as`].
#[doc(hidden)]
pub fn emit_wgsl_written(
    program: &Program,
    form: LaunchForm,
    workarounds: Workarounds,
) -> Result<String, BackendError> {
    lower::to_wgsl(&lowered_as(program, form, workarounds)?)
}

/// The module the engine launches for `program` in `form` with `workarounds` (see
/// [`emit_wgsl_as`]), lowered as it is: the callers run the IR passes first where they should.
fn lowered_as(
    program: &Program,
    form: LaunchForm,
    workarounds: Workarounds,
) -> Result<lower::Lowered, BackendError> {
    let evidence = vyre_foundation::validate(program)?;
    let facts = lower::ProgramFacts::of(&evidence);
    if form == LaunchForm::Packed && facts.packed_stores.is_none() {
        return Err(BackendError::unsupported(
            "this program cannot run packed (it has a store not at `gid.x`, an atomic, a barrier, workgroup memory, or a 2- or 3-dimensional workgroup). Fix: emit it as `LaunchForm::Coalesced`, the form the engine uses for it.",
        ));
    }
    if form == LaunchForm::Split && !facts.elementwise {
        return Err(BackendError::unsupported(
            "this program is not elementwise (some storage access is not at `gid.x`, or it has a uniform buffer), so vyre never splits it. Fix: emit it as `LaunchForm::Folded`.",
        ));
    }
    let vectorised = matches!(form, LaunchForm::Vectorised | LaunchForm::VectorisedFolded);
    if vectorised && facts.vector.is_none() {
        return Err(BackendError::unsupported(
            "this program cannot run vectorised (it accesses a writable buffer elsewhere than at `gid.x`, or has an atomic, a barrier, a loop, a `return`, workgroup memory, a 2- or 3-dimensional workgroup, or no storage buffer accessed only at `gid.x`). Fix: emit it as `LaunchForm::Direct`, the form the backend uses for it.",
        ));
    }
    // The same forms as `backend::form` (scalar or vectorised, direct or folded, or split) and
    // `engine::plan`'s `COALESCED` and `PACKED`. Row loads as `backend::form` chooses them for a
    // plain launch whose row bindings span whole rows (vyre's pooled buffers do whenever they fit
    // the binding limit); `Folded` stays what `emit_wgsl` writes and `compile_persistent`
    // compiles, without rows (a plain dispatch folded for its grid has them as the direct form
    // does).
    use lower::{Form, Grid, Lanes};
    let rows = facts.rows.is_some();
    let plain = |grid, lanes, rows| Form::Plain { grid, lanes, rows };
    let options = match form {
        LaunchForm::Direct => plain(Grid::Direct, Lanes::Scalar, rows),
        LaunchForm::Folded => plain(Grid::Folded, Lanes::Scalar, false),
        LaunchForm::Vectorised => plain(Grid::Direct, Lanes::Vectorised, rows),
        LaunchForm::VectorisedFolded => plain(Grid::Folded, Lanes::Vectorised, rows),
        LaunchForm::Coalesced => Form::Coalesced,
        LaunchForm::Packed => Form::Packed,
        LaunchForm::Split => Form::Split,
    };
    lower::lower(&evidence, &facts, &options, workarounds)
}

/// The SPIR-V words naga writes for `program` in `form` with `workarounds`, with the options wgpu 30
/// uses for vyre's modules on a Vulkan 1.3 device with `robustBufferAccess2` (SPIR-V 1.6, unchecked
/// buffers, bounded loops, and index clamping only where trusted modules are off:
/// `VYRE_TRUSTED_MODULES`, see [`AdapterOptions::with_trusted_modules`]): near enough to what a
/// driver compiles to report a driver bug with it (`spirv-dis` disassembles it; DRIVER_BUGS.md).
/// wgpu itself compiles the naga module, not these words, and its options follow the device.
///
/// # Errors
///
/// As [`emit_wgsl_as`]; [`BackendError::Compile`] when naga cannot write SPIR-V;
/// [`BackendError::InvalidConfig`] for a `VYRE_TRUSTED_MODULES` that is neither `on` nor `off`.
///
/// ```
/// use vyre_driver_wgpu::{LaunchForm, Workarounds, emit_spirv_with};
/// use vyre_foundation::ir::Program;
///
/// let program: Program = "program @workgroup_size(1, 1, 1) {
///   buffer out: output u32[1] @binding(0);
///   out[0u] = 7u;
/// }"
/// .parse()?;
/// let words = emit_spirv_with(&program, LaunchForm::Direct, Workarounds::NONE)?;
/// assert_eq!(words[0], 0x0723_0203); // the SPIR-V magic number
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[doc(hidden)]
pub fn emit_spirv_with(
    program: &Program,
    form: LaunchForm,
    workarounds: Workarounds,
) -> Result<Vec<u32>, BackendError> {
    use naga::back::spv;
    let program = passes::as_run(program)?;
    let lowered = lowered_as(&program, form, workarounds)?;
    let info = lower::validate_module(&lowered.module)?;
    let index = if trusted::applies(trusted::in_force(None)?) {
        naga::proc::BoundsCheckPolicy::Unchecked
    } else {
        naga::proc::BoundsCheckPolicy::Restrict
    };
    let options = spv::Options {
        lang_version: (1, 6),
        flags: spv::WriterFlags::LABEL_VARYINGS | spv::WriterFlags::FORCE_POINT_SIZE,
        bounds_check_policies: naga::proc::BoundsCheckPolicies {
            index,
            buffer: naga::proc::BoundsCheckPolicy::Unchecked,
            image_load: naga::proc::BoundsCheckPolicy::Unchecked,
            binding_array: naga::proc::BoundsCheckPolicy::Unchecked,
        },
        force_loop_bounding: true,
        ..spv::Options::default()
    };
    spv::write_vec(&lowered.module, &info, &options, None).map_err(|e| {
        BackendError::compile(format!(
            "naga could not write SPIR-V: {e}. Fix: this is a vyre lowering bug; report it with the program text."
        ))
    })
}

/// [`emit_launch_with`], and its module compiled on `device` as the backend compiles it with
/// trusted modules on (`AdapterOptions::with_trusted_modules`): without wgpu's runtime bounds
/// checks, vyre's own guards standing (`src/trusted.rs` has the proof). The module is compiled
/// here before anything else can touch it, so only what vyre's lowering made reaches wgpu
/// unchecked. For harnesses that time vyre's trusted kernels (`vyre-bench`); with a miscompile
/// planted the module is compiled with every check, as the backend does.
///
/// # Errors
///
/// As [`emit_launch`].
#[doc(hidden)]
pub fn emit_launch_trusted(
    program: &Program,
    grid: [u32; 3],
    counts: &[u64],
    max_groups: u32,
    device: &wgpu::Device,
) -> Result<(EmittedLaunch, wgpu::ShaderModule), BackendError> {
    let launch = emit_launch_with(program, grid, counts, max_groups, Workarounds::NONE)?;
    let module = trusted::create_module(device, launch.module.clone(), trusted::applies(true));
    Ok((launch, module))
}

/// What a plain dispatch runs, as [`emit_launch`] writes it.
#[doc(hidden)]
#[derive(Clone, Debug)]
pub struct EmittedLaunch {
    /// The module's WGSL text.
    pub wgsl: String,
    /// The module itself, as the backend hands it to wgpu: a harness that compiles this rather
    /// than the text runs exactly what the backend runs (the text is naga's rendering of it).
    pub module: naga::Module,
    /// The module reads vyre's `params` buffer (`@group(1) @binding(0)`): bind it. A module that
    /// reads none of it declares no group 1.
    pub params: bool,
    /// The dispatches the launch records, in order, in one compute pass with the same bind groups:
    /// each one's entry point and physical grid. A vectorised launch runs `main` over its full rows
    /// and `vyre_tail` over the rows the grid or a buffer ends inside, each only when it has rows.
    pub dispatches: Vec<(&'static str, [u32; 3])>,
}

/// The WGSL text of the module a plain dispatch of `program` runs over the virtual `grid` with
/// `counts[j]` elements in program buffer `j`, on a device allowing `max_groups` workgroups per
/// dimension, and the dispatches it records: the scalar or vectorised form, direct or folded, as
/// the backend chooses, assuming every vectorised buffer can be bound in whole 16-byte rows (vyre's
/// pooled buffers can whenever they fit the binding limit). For harnesses that time vyre's kernel
/// on their own buffers (`vyre-bench`), which then fill `params` as the backend does.
///
/// # Errors
///
/// As [`emit_wgsl`]; [`BackendError::InvalidConfig`] when `counts` does not have one entry per
/// program buffer, or the grid has no workgroups.
#[doc(hidden)]
pub fn emit_launch(
    program: &Program,
    grid: [u32; 3],
    counts: &[u64],
    max_groups: u32,
) -> Result<EmittedLaunch, BackendError> {
    emit_launch_with(program, grid, counts, max_groups, Workarounds::NONE)
}

/// [`emit_launch`] with the driver workarounds `workarounds` applied, as a device that has them in
/// force lowers the program (`vyre-bench`'s workaround costs).
///
/// # Errors
///
/// As [`emit_launch`].
#[doc(hidden)]
pub fn emit_launch_with(
    program: &Program,
    grid: [u32; 3],
    counts: &[u64],
    max_groups: u32,
    workarounds: Workarounds,
) -> Result<EmittedLaunch, BackendError> {
    let program = &passes::as_run(program)?;
    let evidence = vyre_foundation::validate(program)?;
    if counts.len() != program.buffers.len() {
        return Err(BackendError::invalid_config(format!(
            "{} element counts were given for {} program buffers. Fix: give one count per declared buffer.",
            counts.len(),
            program.buffers.len()
        )));
    }
    let plan = vyre_driver::DispatchPlan {
        buffers: counts
            .iter()
            .map(|&element_count| vyre_driver::ResolvedBuffer {
                element_count,
                input: None,
            })
            .collect(),
        grid,
    };
    let facts = lower::ProgramFacts::of(&evidence);
    let launch = backend::form::choose(&facts, program, &plan, max_groups, |_, _| true)?;
    let lowered = lower::lower(&evidence, &facts, &launch.form, workarounds)?;
    let dispatches = launch
        .dispatches
        .iter()
        .map(|&(entry, grid)| (entry.name(), grid))
        .collect();
    Ok(EmittedLaunch {
        wgsl: lower::to_wgsl(&lowered)?,
        params: lowered.uses_params,
        module: lowered.module,
        dispatches,
    })
}
