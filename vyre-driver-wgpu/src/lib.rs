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
//! says on every driver. Grids beyond the device's per-dimension limit are folded transparently.
//!
//! [`engine::persistent::run_persistent_kernel`] and [`WgpuPipeline::dispatch_coalesced`] run many work
//! items in one real launch. A lost device (driver reset, `destroy`) is noticed through wgpu's
//! device-lost callback and recovered: a dispatch that meets a lost device opens a new one, recompiles,
//! and retries once.

mod backend;
mod device;
pub mod engine;
mod exec;
mod lower;
mod pipeline;
mod pool;
mod stats;
pub mod testing;

pub use backend::WgpuBackend;
pub use device::ADAPTER_ENV;
pub use exec::FaultPoint;
pub use pipeline::WgpuPipeline;
pub use stats::WgpuStats;

use vyre_driver::BackendError;
use vyre_foundation::ir::Program;

/// The WGSL text (naga's writer) of what runs for `program`, for people who want to read it.
///
/// # Errors
///
/// [`BackendError::InvalidProgram`] for invalid programs, [`BackendError::Compile`] if lowering fails.
pub fn emit_wgsl(program: &Program) -> Result<String, BackendError> {
    vyre_foundation::validate(program)?;
    let lowered = lower::lower(program, &lower::LowerOptions::default())?;
    lower::to_wgsl(&lowered)
}
