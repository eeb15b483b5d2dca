//! The submit and wait stages: the one submit, the error scopes that classify what it did, and the
//! wait for the submission and every readback map.

use std::time::{Duration, Instant};

use vyre_driver::BackendError;

use std::future::Future;
use std::task::{Context, Poll, Waker};

use super::context::LaunchContext;
use crate::device::DeviceState;
use crate::poller::Signal;
use crate::stats::bump;

/// How long a readback map may stay pending after its submission finished, when the dispatch has no
/// timeout of its own.
pub(super) const MAP_GRACE: Duration = Duration::from_secs(10);

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
    let oom = settle(scopes.oom.pop());
    let validation = settle(scopes.validation.pop());
    classify(state, oom, validation)
}

/// The output of `future`, which on native wgpu is ready at once (wgpu-core resolves an error
/// scope's pop immediately): polled once, so that an async call does not reach a blocking executor.
/// A future that is not ready (WebGPU, whose pops are promises) is waited for; the async path of a
/// WebGPU build must await these instead (RELIABILITY.md, "Async calls").
fn settle<F: Future>(future: F) -> F::Output {
    let mut future = std::pin::pin!(future);
    match future
        .as_mut()
        .poll(&mut Context::from_waker(Waker::noop()))
    {
        Poll::Ready(output) => output,
        Poll::Pending => pollster::block_on(future),
    }
}

/// What the scopes caught, as a loss, running out of memory, or a vyre bug.
fn classify(
    state: &DeviceState,
    oom_error: Option<wgpu::Error>,
    validation_error: Option<wgpu::Error>,
) -> Result<(), BackendError> {
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

/// Waits for `submission` (if any) and the callback of `signal` (if any), then reports a loss or
/// an uncaptured error: the blocking calls' wait.
pub(super) fn wait(
    state: &DeviceState,
    submission: Option<wgpu::SubmissionIndex>,
    signal: Option<&Signal>,
    timeout: Option<Duration>,
) -> Result<(), BackendError> {
    let started = Instant::now();
    if let Some(submission) = submission {
        state.poll(wgpu::PollType::Wait {
            submission_index: Some(submission),
            timeout,
        })?;
    }
    if let Some(signal) = signal {
        await_map(state, signal, started, timeout)?;
    }
    settled(state)
}

/// After the work a call waited for: a loss, or an error wgpu reported outside any scope.
pub(super) fn settled(state: &DeviceState) -> Result<(), BackendError> {
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

/// The error of a call that waited past its deadline.
pub(super) fn map_timeout(limit: Duration) -> BackendError {
    BackendError::timeout(format!(
        "the readback was not mapped within {limit:?}. Fix: raise `DispatchConfig::timeout`, or check the device's health."
    ))
}

/// Waits until the staging map's callback has run. The wait for the submission normally fires it,
/// but with several threads polling one device, another thread's poll may be the one running our
/// callback, a moment after our own wait returned; treating that moment as a failed map would send
/// a healthy device through recovery.
fn await_map(
    state: &DeviceState,
    signal: &Signal,
    started: Instant,
    timeout: Option<Duration>,
) -> Result<(), BackendError> {
    let limit = timeout.unwrap_or(MAP_GRACE);
    loop {
        if signal.fired() || state.is_lost() {
            return Ok(());
        }
        if started.elapsed() > limit {
            return Err(map_timeout(limit));
        }
        state.poll(wgpu::PollType::Poll)?;
        std::thread::yield_now();
    }
}
