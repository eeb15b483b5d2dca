//! The execution budget of one dispatch: fuel (IR operations) and a wall-clock deadline.
//!
//! Executors count operations locally and flush them here every [`FLUSH_OPS`] operations and at the
//! end of every block, so the hot loop pays one addition and one comparison per instruction, and the
//! clock is read only at flushes. Fuel decisions are exact: the total is compared after every flush.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use vyre_driver::{BackendError, DispatchConfig};

/// Operations an executor may count before it flushes them and looks at the clock.
pub(crate) const FLUSH_OPS: u64 = 1 << 16;

/// Shared by every executor of one dispatch.
#[derive(Debug)]
pub(crate) struct Budget {
    fuel: Option<u64>,
    timeout: Option<Duration>,
    deadline: Option<Instant>,
    used: AtomicU64,
    stopped: AtomicBool,
    indeterminate: AtomicBool,
    error: Mutex<Option<BackendError>>,
}

/// Why an executor stopped; the error itself is kept in the [`Budget`].
#[derive(Debug)]
pub(crate) struct Stopped;

impl Budget {
    /// The budget `config` asks for, starting now.
    pub(crate) fn new(config: &DispatchConfig) -> Self {
        Self {
            fuel: config.fuel,
            timeout: config.timeout,
            // A timeout past what an `Instant` can hold (`Duration::MAX`) is no deadline at all,
            // not a panic.
            deadline: config.timeout.and_then(|t| Instant::now().checked_add(t)),
            used: AtomicU64::new(0),
            stopped: AtomicBool::new(false),
            indeterminate: AtomicBool::new(false),
            error: Mutex::new(None),
        }
    }

    /// Adds `ops` to the total and checks fuel, deadline and whether another executor failed.
    pub(crate) fn flush(&self, ops: u64) -> Result<(), Stopped> {
        // Saturating: a total past u64 is past every fuel limit, never a small wrapped count.
        let total = self
            .used
            .fetch_add(ops, Ordering::Relaxed)
            .saturating_add(ops);
        if self.stopped.load(Ordering::Relaxed) {
            return Err(Stopped);
        }
        if let Some(fuel) = self.fuel
            && total > fuel
        {
            return Err(self.fail(BackendError::timeout(format!(
                "the dispatch needed more than its fuel of {fuel} IR operations. Fix: raise `DispatchConfig::fuel`, or run fewer invocations (a smaller grid) or fewer loop iterations."
            ))));
        }
        if let Some(deadline) = self.deadline
            && Instant::now() >= deadline
        {
            let timeout = self.timeout.unwrap_or_default();
            return Err(self.fail(BackendError::timeout(format!(
                "the dispatch ran past its timeout of {timeout:?} after {total} IR operations. Fix: raise `DispatchConfig::timeout`, or run fewer invocations (a smaller grid) or fewer loop iterations."
            ))));
        }
        Ok(())
    }

    /// Records `error` as the dispatch's outcome (the first one wins) and stops every executor.
    pub(crate) fn fail(&self, error: BackendError) -> Stopped {
        if let Ok(mut slot) = self.error.lock()
            && slot.is_none()
        {
            *slot = Some(error);
        }
        self.stopped.store(true, Ordering::Relaxed);
        Stopped
    }

    /// Notes that an indeterminate float result happened.
    pub(crate) fn mark_indeterminate(&self) {
        self.indeterminate.store(true, Ordering::Relaxed);
    }

    /// The recorded error, for a dispatch that stopped.
    pub(crate) fn take_error(&self) -> BackendError {
        self.error
            .lock()
            .ok()
            .and_then(|mut slot| slot.take())
            .unwrap_or_else(|| {
                BackendError::new("the reference backend stopped without recording why.")
            })
    }

    /// Operations executed so far.
    pub(crate) fn used(&self) -> u64 {
        self.used.load(Ordering::Relaxed)
    }

    /// True when an indeterminate float result happened.
    pub(crate) fn indeterminate(&self) -> bool {
        self.indeterminate.load(Ordering::Relaxed)
    }
}

impl Budget {
    /// True once some executor failed or ran out of budget.
    pub(crate) fn stopped(&self) -> bool {
        self.stopped.load(Ordering::Relaxed)
    }
}
