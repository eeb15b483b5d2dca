//! Running one launch: upload into pooled buffers (large ones through a staging ring), one encoder
//! with its dispatches and the first readback copies in one submit, then the readback streamed
//! through a ring of reused staging buffers.
//!
//! A launch sees only a [`LaunchContext`]: the device it runs on, the buffer pool, the counters and
//! the fault hooks. It never sees the backend, so it cannot recover, recompile or pick another form;
//! those decisions belong to the layers above.

mod context;
mod encode;
mod fault;
mod flight;
mod job;
mod patch;
mod readback;
mod resident;
mod ring;
mod stage;
mod submit;
mod upload;

use std::time::Instant;

use vyre_driver::BackendError;

pub(crate) use crate::groups::poisoned;
use crate::pipeline::Compiled;
use crate::stats::Phase;
pub(crate) use context::LaunchContext;

// With the feature the crate root exports `FaultPoint`; without it only the launch compares against it.
#[cfg(feature = "fault-injection")]
pub use fault::FaultPoint;
#[cfg(not(feature = "fault-injection"))]
pub(crate) use fault::FaultPoint;
pub(crate) use fault::Faults;
pub(crate) use flight::{InFlight, Settling};
pub(crate) use job::{
    BufferSpec, Init, Job, Piece, Readback, binding_bytes, device_bytes, job_buffers, size_overflow,
};
pub(crate) use resident::{
    Bound, ResidentLaunch, WgpuBuffer, create as create_resident, start_read, start_sequence, write,
};
pub(crate) use upload::Staging;

/// Runs `job` on `compiled`, blocking until it is done; returns one byte vector per buffer with a
/// readback, in order.
pub(crate) fn run(
    ctx: LaunchContext<'_>,
    compiled: &Compiled,
    job: Job<'_>,
) -> Result<Vec<Vec<u8>>, BackendError> {
    start(ctx, compiled, job, Staging::Ring)?.wait(ctx)
}

/// Uploads, records and submits `job` on `compiled` and requests its readback maps, without waiting
/// for the device: the launch is under way when this returns, waited for by the caller (blocking,
/// or polled as a future). `staging` says how inputs too large for one `queue.write_buffer` go up.
pub(crate) fn start(
    ctx: LaunchContext<'_>,
    compiled: &Compiled,
    job: Job<'_>,
    staging: Staging,
) -> Result<InFlight, BackendError> {
    let state = ctx.state;
    let fault = ctx.faults.take();
    if state.is_lost() {
        return Err(state.lost_error("detected before the dispatch"));
    }
    if fault == Some(FaultPoint::BeforeUpload) {
        state.lose();
        return Err(state.lost_error("injected before upload"));
    }
    let started = Instant::now();
    let scopes = submit::Scopes::push(&state.device);
    let uploaded = upload::upload(ctx, compiled, &job, staging)?;
    let uploaded_at = ctx.counters.lap(Phase::Upload, started);
    let (encoder, reads) = encode::encode(ctx, compiled, &job, &uploaded)?;
    ctx.counters.lap(Phase::Record, uploaded_at);
    let readback = readback::start(ctx, scopes, encoder, reads, fault)?;
    Ok(InFlight::new(ctx, readback, Some(uploaded), job.timeout))
}
