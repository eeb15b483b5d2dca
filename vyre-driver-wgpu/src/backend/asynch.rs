//! `WgpuBackend`'s async calls: the same checks, plans and launches as the blocking ones (one
//! `start_*` per call shared by both), waited for as futures instead of by blocking a thread.
//!
//! A future does its host work and its submit in its first poll, on the polling thread (pipeline
//! compiles included: CPU work, not waiting), then parks its waker with the device's poller
//! (`poller`) until the maps or the submission it waits for complete. It never calls
//! `Device::poll(Wait)` itself and never blocks on a map. Inputs larger than one upload chunk go
//! through `queue.write_buffer` rather than the staging ring, whose maps a blocking call waits for
//! (`launch::Staging`).
//!
//! Recovery is the blocking calls' rule: a device lost before or during a call is replaced and the
//! call retried once; a future waiting on a device that is lost under it is woken by the poller and
//! resolves to that retry or to `BackendError::DeviceLost`, never hangs.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use vyre_driver::{BackendError, DispatchConfig, DispatchPlan, Step, VyreBackend};
use vyre_foundation::ir::Program;

use super::WgpuBackend;
use crate::device::DeviceState;
use crate::known::Known;
use crate::launch::{InFlight, Settling, Staging};

/// The most items of an async batch in flight at once: enough to keep the device busy while the
/// first is read back, few enough that the buffers they lease stay a small, bounded set.
const BATCH_WINDOW: usize = 16;

/// A launch under way, as a future: each poll takes what the device has finished and otherwise
/// leaves the waker with the poller. Dropped early, its buffers go back to the pool once the device
/// is done with them (`launch::flight`).
struct Launched<'a> {
    backend: &'a WgpuBackend,
    state: Arc<DeviceState>,
    flight: InFlight,
}

impl Future for Launched<'_> {
    type Output = Result<Vec<Vec<u8>>, BackendError>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.get_mut();
        let ctx = this.backend.context(&this.state);
        this.flight.poll_outputs(ctx, cx)
    }
}

/// A submitted sequence, as a future: ready when the device has finished it.
struct Settled(Settling);

impl Future for Settled {
    type Output = Result<(), BackendError>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        self.get_mut().0.poll_done(cx)
    }
}

impl WgpuBackend {
    /// The known program equal to `program` and the plan of a dispatch of it over `inputs`, in the
    /// order of the blocking `dispatch`: a known program is only planned; another is validated and
    /// planned by the driver's `prepare`, then analysed and kept.
    fn known_and_plan(
        &self,
        program: &Program,
        inputs: &[Vec<u8>],
        config: &DispatchConfig,
    ) -> Result<(Arc<Known>, DispatchPlan), BackendError> {
        if let Some(known) = self.find_known(program)? {
            let lens: Vec<usize> = inputs.iter().map(Vec::len).collect();
            let plan = vyre_driver::plan_dispatch(program, &lens, config)?;
            return Ok((known, plan));
        }
        let (validated, plan) = self.prepare(program, inputs, config)?;
        Ok((self.known_validated(&validated)?, plan))
    }

    /// One attempt at a dispatch, started now (in the caller's poll) and awaited.
    fn launch_known<'a>(
        &'a self,
        known: &Arc<Known>,
        plan: &DispatchPlan,
        inputs: &[Vec<u8>],
        config: &DispatchConfig,
    ) -> Result<Launched<'a>, BackendError> {
        let state = self.state()?;
        let flight = self.start_known(&state, known, plan, inputs, config, Staging::Queue)?;
        Ok(Launched {
            backend: self,
            state,
            flight,
        })
    }

    /// One attempt, then one more after recovering if the device was lost (the rule of
    /// `with_recovery`).
    async fn dispatch_known(
        &self,
        known: &Arc<Known>,
        plan: &DispatchPlan,
        inputs: &[Vec<u8>],
        config: &DispatchConfig,
    ) -> Result<Vec<Vec<u8>>, BackendError> {
        if self.device_lost() {
            self.try_recover()?;
        }
        let first = match self.launch_known(known, plan, inputs, config) {
            Ok(launched) => launched.await,
            Err(e) => Err(e),
        };
        match first {
            Err(e) if e.is_device_lost() => {
                self.try_recover()?;
                self.launch_known(known, plan, inputs, config)?.await
            }
            other => other,
        }
    }

    /// `VyreBackend::dispatch_async`.
    pub(crate) async fn dispatch_async_impl(
        &self,
        program: &Program,
        inputs: &[Vec<u8>],
        config: &DispatchConfig,
    ) -> Result<Vec<Vec<u8>>, BackendError> {
        let (known, plan) = self.known_and_plan(program, inputs, config)?;
        self.dispatch_known(&known, &plan, inputs, config).await
    }

    /// `VyreBackend::dispatch_batch_async`: each item's results are exactly its own dispatch's (the
    /// rule of `vyre_driver::dispatch_each`), with up to [`BATCH_WINDOW`] items on the device at
    /// once; the first failing item's error names it. Unlike the blocking `dispatch_batch`, items
    /// are not coalesced into shared launches: each is a launch of its own.
    pub(crate) async fn dispatch_batch_async_impl(
        &self,
        program: &Program,
        items: &[Vec<Vec<u8>>],
        config: &DispatchConfig,
    ) -> Result<Vec<Vec<Vec<u8>>>, BackendError> {
        let mut outputs = Vec::with_capacity(items.len());
        let mut known: Option<Arc<Known>> = None;
        for window in items.chunks(BATCH_WINDOW) {
            let first = outputs.len();
            // Every item of the window is checked and submitted before the first is awaited, so
            // the device works on the rest while the first is read back.
            let mut started = Vec::with_capacity(window.len());
            for inputs in window {
                let item = self.start_item(program, inputs, config, &mut known);
                let failed = item.is_err();
                started.push(item);
                if failed {
                    // Reported when the items before it are delivered; none after it starts.
                    break;
                }
            }
            for (k, (inputs, started)) in window.iter().zip(started).enumerate() {
                let result = match started {
                    Ok(launched) => launched.await,
                    Err(e) => Err(e),
                };
                let item = match result {
                    Err(e) if e.is_device_lost() => {
                        // The rest of the window ran on the lost device too: each of them comes
                        // here in turn and runs again on the new one.
                        self.try_recover().map_err(|e| e.in_item(first + k))?;
                        self.dispatch_async_impl(program, inputs, config).await
                    }
                    other => other,
                };
                outputs.push(item.map_err(|e| e.in_item(first + k))?);
            }
        }
        Ok(outputs)
    }

    /// One item of a batch, checked and started; `known` is the batch's program once the first
    /// item has made it known.
    fn start_item<'a>(
        &'a self,
        program: &Program,
        inputs: &[Vec<u8>],
        config: &DispatchConfig,
        known: &mut Option<Arc<Known>>,
    ) -> Result<Launched<'a>, BackendError> {
        let (item_known, plan) = match known {
            Some(k) => {
                let lens: Vec<usize> = inputs.iter().map(Vec::len).collect();
                (
                    Arc::clone(k),
                    vyre_driver::plan_dispatch(program, &lens, config)?,
                )
            }
            None => self.known_and_plan(program, inputs, config)?,
        };
        if self.device_lost() {
            self.try_recover()?;
        }
        let launched = self.launch_known(&item_known, &plan, inputs, config)?;
        *known = Some(item_known);
        Ok(launched)
    }

    /// `VyreBackend::read_buffer_async`.
    pub(crate) async fn read_buffer_async_impl(
        &self,
        buffer: &vyre_driver::DeviceBuffer,
        range: std::ops::Range<u64>,
    ) -> Result<Vec<u8>, BackendError> {
        let state = self.state()?;
        let Some(flight) = self.start_read_resident(&state, buffer, range)? else {
            return Ok(Vec::new());
        };
        let mut outputs = Launched {
            backend: self,
            state,
            flight,
        }
        .await?;
        Ok(outputs.pop().unwrap_or_default())
    }

    /// `VyreBackend::dispatch_sequence_async`: the checks and the one submit in the first poll,
    /// then the wait for the device.
    pub(crate) async fn dispatch_sequence_async_impl(
        &self,
        steps: &[Step<'_>],
    ) -> Result<(), BackendError> {
        let settling = {
            let known = self.known_steps(steps)?;
            self.start_sequence(&known)?
        };
        match settling {
            Some(settling) => Settled(settling).await,
            None => Ok(()),
        }
    }
}
