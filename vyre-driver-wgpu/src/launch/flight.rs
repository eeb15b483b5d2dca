//! A launch past its submit: what it waits for, waited for either by blocking the calling thread
//! (the blocking API) or as a future woken by the device's poller (the async API), through the same
//! steps; and what happens to its buffers when it is dropped before it finishes.
//!
//! Cancellation: an [`InFlight`] or [`Settling`] dropped early has already submitted everything it
//! will ever submit, so the device finishes that work whatever happens to the future; dropping only
//! decides where the buffers go. They go back to the pool, but not before the device is done with
//! them: a staging buffer whose map is still pending cannot be used or unmapped, and a pooled buffer
//! reused before its last copy ran would hand another launch bytes still being written. So the
//! buffers are handed to the poller with the maps they wait on, and pooled (unmapped first where
//! mapped) once those have fired; buffers whose map failed, or of a lost device, are freed.

use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use vyre_driver::BackendError;

use super::context::LaunchContext;
use super::readback::{Held, Readback, Slot, Step};
use super::submit;
use super::upload::Uploaded;
use crate::device::DeviceState;
use crate::poller::{Signal, Wait};
use crate::pool::BufferPool;

/// A launch (or a resident read) whose work is submitted and whose readback is under way.
pub(crate) struct InFlight {
    state: Arc<DeviceState>,
    pool: Arc<Mutex<BufferPool>>,
    readback: Readback,
    /// The launch's own buffers (none for a resident read), pooled once the readback is done.
    uploaded: Option<Uploaded>,
    timeout: Option<Duration>,
    /// When an awaited launch gives up: its timeout from its first wait.
    deadline: Option<Instant>,
}

impl InFlight {
    pub(super) fn new(
        ctx: LaunchContext<'_>,
        readback: Readback,
        uploaded: Option<Uploaded>,
        timeout: Option<Duration>,
    ) -> Self {
        Self {
            state: Arc::clone(ctx.state),
            pool: Arc::clone(ctx.pool),
            readback,
            uploaded,
            timeout,
            deadline: None,
        }
    }

    /// Blocks the calling thread until every output is read back.
    pub(crate) fn wait(mut self, ctx: LaunchContext<'_>) -> Result<Vec<Vec<u8>>, BackendError> {
        loop {
            match self.advance(ctx)? {
                Step::Done(outputs) => return Ok(outputs),
                Step::Wait(map) => {
                    submit::wait(ctx.state, map.submission(), Some(&map), self.timeout)?;
                }
            }
        }
    }

    /// Polls the launch as a future: every output once read back, else `Pending` with `cx`'s waker
    /// kept by the map it waits for (woken by the poller, never by a thread blocking for it).
    pub(crate) fn poll_outputs(
        &mut self,
        ctx: LaunchContext<'_>,
        cx: &mut Context<'_>,
    ) -> Poll<Result<Vec<Vec<u8>>, BackendError>> {
        loop {
            let map = match self.advance(ctx) {
                Ok(Step::Done(outputs)) => return Poll::Ready(Ok(outputs)),
                Ok(Step::Wait(map)) => map,
                Err(e) => return Poll::Ready(Err(e)),
            };
            if self.deadline.is_none() {
                self.deadline = self.timeout.map(|t| Instant::now() + t);
            }
            match await_signal(&self.state, &map, cx, self.deadline) {
                Poll::Ready(Ok(())) => {}
                other => return other.map(|r| r.map(|()| Vec::new())),
            }
        }
    }

    fn advance(&mut self, ctx: LaunchContext<'_>) -> Result<Step, BackendError> {
        match self.readback.advance(ctx)? {
            Step::Done(outputs) => {
                submit::settled(ctx.state)?;
                if let Some(uploaded) = self.uploaded.take() {
                    let mut pool = self.pool.lock().map_err(|_| crate::groups::poisoned())?;
                    uploaded.give_back(&mut pool, self.state.generation);
                }
                Ok(Step::Done(outputs))
            }
            wait => Ok(wait),
        }
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        let ring = std::mem::take(&mut self.readback.ring);
        let uploaded = self.uploaded.take();
        if ring.is_empty() && uploaded.is_none() {
            return;
        }
        let pending: Vec<Arc<Signal>> = ring
            .iter()
            .filter(|slot| slot.mapping())
            .map(|slot| Arc::clone(&slot.map))
            .collect();
        let pool = Arc::clone(&self.pool);
        let generation = self.state.generation;
        let reclaim = move || reclaim(&pool, generation, ring, uploaded);
        self.state.poller.abandon(pending, Box::new(reclaim));
    }
}

/// Pools what a dropped launch held, once its maps have all fired.
fn reclaim(pool: &Mutex<BufferPool>, generation: u64, ring: Vec<Slot>, uploaded: Option<Uploaded>) {
    let Ok(mut pool) = pool.lock() else {
        return;
    };
    for slot in ring {
        match slot.held() {
            Held::Idle => pool.give(slot.buffer, generation),
            Held::Mapped => {
                slot.buffer.unmap();
                pool.give(slot.buffer, generation);
            }
            // A failed map (a lost device): the buffer is freed, never pooled.
            Held::Failed | Held::Mapping => {}
        }
    }
    if let Some(uploaded) = uploaded {
        uploaded.give_back(&mut pool, generation);
    }
}

/// A resident sequence whose one submit is made: done when the device has finished it.
pub(crate) struct Settling {
    state: Arc<DeviceState>,
    submission: wgpu::SubmissionIndex,
    done: Arc<Signal>,
    timeout: Option<Duration>,
    deadline: Option<Instant>,
}

impl Settling {
    pub(super) fn new(
        ctx: LaunchContext<'_>,
        submission: wgpu::SubmissionIndex,
        timeout: Option<Duration>,
    ) -> Self {
        let done = Signal::new(Some(submission.clone()));
        let fire = Arc::clone(&done);
        ctx.state
            .queue
            .on_submitted_work_done(move || fire.fire(Ok(())));
        Self {
            state: Arc::clone(ctx.state),
            submission,
            done,
            timeout,
            deadline: None,
        }
    }

    /// Blocks the calling thread until the device has finished the work.
    pub(crate) fn wait(self) -> Result<(), BackendError> {
        submit::wait(&self.state, Some(self.submission), None, self.timeout)
    }

    /// Polls as a future: ready once the device has finished the work (woken by the poller).
    pub(crate) fn poll_done(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), BackendError>> {
        // Unbounded unless the steps' configs bound it, as the blocking wait.
        if self.deadline.is_none() {
            self.deadline = self.timeout.map(|t| Instant::now() + t);
        }
        await_signal(&self.state, &self.done, cx, self.deadline)
            .map(|r| r.and_then(|()| submit::settled(&self.state)))
    }
}

/// `Ready(Ok)` once `signal` has fired; `Ready(Err)` for a lost device or a passed deadline; else
/// `Pending`, the poller keeping `cx`'s waker. Without a deadline the wait is as long as the
/// device's work (the blocking calls wait for their submission without a bound too); a lost device
/// ends it.
fn await_signal(
    state: &DeviceState,
    signal: &Arc<Signal>,
    cx: &mut Context<'_>,
    deadline: Option<Instant>,
) -> Poll<Result<(), BackendError>> {
    if signal.fired() {
        return Poll::Ready(Ok(()));
    }
    if state.is_lost() {
        return Poll::Ready(Err(state.lost_error("while the call waited for the device")));
    }
    if deadline.is_some_and(|d| Instant::now() >= d) {
        return Poll::Ready(Err(BackendError::timeout(
            "the dispatch did not finish within its timeout. Fix: raise `DispatchConfig::timeout` or split the work.",
        )));
    }
    match state.poller.wait_on(signal, cx.waker(), deadline) {
        Wait::Fired => Poll::Ready(Ok(())),
        Wait::Pending => Poll::Pending,
    }
}
