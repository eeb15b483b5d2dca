//! Device-loss recovery: a lost device is replaced (same adapter first), the pool and the cache
//! forget the old one, and a failed call is retried once.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use vyre_driver::{BackendError, VyreBackend};

use super::WgpuBackend;
use crate::device;
use crate::launch::poisoned;
use crate::lifecycle::Turn;
use crate::pool;

impl WgpuBackend {
    /// Runs `f`, and once more after recovering if it failed because the device was lost.
    pub(crate) fn with_recovery<T>(
        &self,
        mut f: impl FnMut() -> Result<T, BackendError>,
    ) -> Result<T, BackendError> {
        if self.device_lost() {
            self.try_recover()?;
        }
        match f() {
            Err(e) if e.is_device_lost() => {
                self.try_recover()?;
                f()
            }
            other => other,
        }
    }

    /// Replaces a lost device; does nothing when the device is healthy (another thread recovered).
    pub(crate) fn recover(&self) -> Result<(), BackendError> {
        let shared = &self.shared;
        let _guard = shared.recovery.lock().map_err(|_| poisoned())?;
        let old = self.state()?;
        if !old.is_lost() {
            return Ok(());
        }
        if !old.owned {
            return Err(BackendError::device_lost(format!(
                "the device {} the application handed to vyre was lost, and vyre does not replace a device it did not create. Fix: open a new device and build a new backend with `WgpuBackend::from_device`.",
                device::describe(&old.info)
            )));
        }
        // Same adapter first; re-enumerate when it refuses (the adapter itself may be gone). The
        // turn covers opening the device only: a thread holding the pipeline cache's lock may be
        // dropping a pipeline, which takes the turn, so the turn is never held while waiting for that
        // lock (the 8-thread loss test deadlocked on exactly this).
        let fresh = {
            let _turn = Turn::take();
            // A device existed and is gone: failing to replace it is still a loss, not `NoDevice`.
            let options = &shared.options;
            device::open(old.adapter.clone(), old.generation + 1, options)
                .or_else(|_| {
                    let adapter = device::pick_adapter(&shared.instance, options)?;
                    device::open(adapter, old.generation + 1, options)
                })
                .map_err(|e| old.lost_error(&format!("no replacement device: {e}")))?
        };
        let limit = pool::pool_limit(&fresh.limits, pool::host_memory_bytes());
        *shared.state.write().map_err(|_| poisoned())? = Arc::new(fresh);
        shared
            .pool
            .lock()
            .map_err(|_| poisoned())?
            .reset(old.generation + 1, limit);
        shared
            .cache
            .lock()
            .map_err(|_| poisoned())?
            .retire(old.generation);
        shared.counters.recoveries.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }
}
