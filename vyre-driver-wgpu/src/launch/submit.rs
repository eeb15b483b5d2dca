//! The submit and wait stages: the one submit, the error scopes that classify what it did, and the
//! wait for the submission and every readback map.

use std::time::{Duration, Instant};

use vyre_driver::BackendError;

use super::context::LaunchContext;
use super::ring::MapSlots;
use crate::device::DeviceState;
use crate::groups::poisoned;
use crate::stats::bump;

/// How long a readback map may stay pending after its submission finished, when the dispatch has no
/// timeout of its own.
const MAP_GRACE: Duration = Duration::from_secs(10);

/// The error scopes around a launch's uploads, encoding and submit.
pub(super) struct Scopes {
    // Fields drop in declaration order and wgpu pops scopes innermost first, so the inner (out of
    // memory) scope comes first: an early return drops them in the order they must be popped.
    oom: wgpu::ErrorScopeGuard,
    validation: wgpu::ErrorScopeGuard,
}

impl Scopes {
    pub(super) fn push(device: &wgpu::Device) -> Self {
        let validation = device.push_error_scope(wgpu::ErrorFilter::Validation);
        let oom = device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
        Self { oom, validation }
    }
}

/// Submits `commands` and classifies any error the scopes caught since they were pushed.
pub(super) fn submit(
    ctx: LaunchContext<'_>,
    scopes: Scopes,
    commands: wgpu::CommandBuffer,
) -> Result<wgpu::SubmissionIndex, BackendError> {
    let state = ctx.state;
    let submission = state.queue.submit(Some(commands));
    bump(&ctx.counters.submits, 1);
    check(state, scopes)?;
    Ok(submission)
}

/// Classifies any error the scopes caught since they were pushed (writes queued with
/// `queue.write_buffer`, encoding, a submit): a loss, running out of memory, or a vyre bug.
pub(super) fn check(state: &DeviceState, scopes: Scopes) -> Result<(), BackendError> {
    // The scopes nest: the inner (out of memory) one is popped first.
    let oom_error = pollster::block_on(scopes.oom.pop());
    let validation_error = pollster::block_on(scopes.validation.pop());
    if (oom_error.is_some() || validation_error.is_some()) && state.confirm_lost() {
        // Work on a destroyed device fails validation ("buffer is invalid"); that is the loss
        // showing, not a bug, and recovery is the answer.
        return Err(state.lost_error("the submission failed on the lost device"));
    }
    if let Some(e) = oom_error {
        return Err(BackendError::out_of_memory(format!(
            "the device ran out of memory: {e}. Fix: use smaller buffers or free device memory."
        )));
    }
    if let Some(e) = validation_error {
        return Err(BackendError::new(format!(
            "wgpu rejected the dispatch: {e}. Fix: this is a vyre bug unless a device limit was exceeded; report it with the program text."
        )));
    }
    Ok(())
}

/// Waits for `submission` (if any) and every staging map, then reports a loss or an uncaptured
/// error.
pub(super) fn wait(
    state: &DeviceState,
    submission: Option<wgpu::SubmissionIndex>,
    slots: &MapSlots,
    timeout: Option<Duration>,
) -> Result<(), BackendError> {
    let started = Instant::now();
    if let Some(submission) = submission {
        state.poll(wgpu::PollType::Wait {
            submission_index: Some(submission),
            timeout,
        })?;
    }
    await_maps(state, slots, started, timeout)?;
    if state.is_lost() {
        return Err(state.lost_error("during the dispatch"));
    }
    if let Some(error) = state.uncaptured.lock().ok().and_then(|mut e| e.take()) {
        if state.confirm_lost() {
            return Err(state.lost_error(&format!("during the dispatch: {error}")));
        }
        return Err(BackendError::new(format!(
            "wgpu reported an error during the dispatch: {error}. Fix: this is a vyre bug unless a device limit was exceeded; report it with the program text."
        )));
    }
    Ok(())
}

/// Waits until every staging map's callback has run. The wait for the submission normally fires them,
/// but with several threads polling one device, another thread's poll may be the one running our
/// callbacks, a moment after our own wait returned; treating that moment as a failed map would send a
/// healthy device through recovery.
fn await_maps(
    state: &DeviceState,
    results: &MapSlots,
    started: Instant,
    timeout: Option<Duration>,
) -> Result<(), BackendError> {
    let limit = timeout.unwrap_or(MAP_GRACE);
    loop {
        let pending = results
            .lock()
            .map_err(|_| poisoned())?
            .iter()
            .any(Option::is_none);
        if !pending || state.is_lost() {
            return Ok(());
        }
        if started.elapsed() > limit {
            return Err(BackendError::timeout(format!(
                "the readback was not mapped within {limit:?}. Fix: raise `DispatchConfig::timeout`, or check the device's health."
            )));
        }
        state.poll(wgpu::PollType::Poll)?;
        std::thread::yield_now();
    }
}
