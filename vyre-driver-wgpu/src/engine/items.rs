//! What the coalesced and packed forms share: the pipeline of a form for a held program, and the
//! launch of a job of many items with the checks and counters around it.

use std::sync::Arc;
use std::time::Instant;

use vyre_driver::BackendError;

use crate::backend::WgpuBackend;
use crate::launch::Job;
use crate::lower::Form;
use crate::pipeline::Compiled;
use crate::stats::Phase;

/// `held` when it is the form `form` on the current device (what `compile_persistent` compiled),
/// else that form from the backend's cache.
pub(super) fn compiled_for(
    backend: &WgpuBackend,
    held: &Arc<Compiled>,
    form: Form,
) -> Result<Arc<Compiled>, BackendError> {
    let state = backend.state()?;
    if held.form == form && held.generation == state.generation {
        return Ok(Arc::clone(held));
    }
    backend.get_or_compile(&state, &held.known, form)
}

/// Launches `job` on `compiled` (a pipeline taken at `started`, when this run's host work began):
/// refuses a pipeline of a replaced device as a loss (another thread recovered since; the caller's
/// recovery retries with the new device's pipeline), counts the host work so far as preparation, and
/// returns every buffer read back and when delivery starts.
pub(super) fn launch_items(
    backend: &WgpuBackend,
    compiled: &Compiled,
    job: Job<'_>,
    started: Instant,
) -> Result<(Vec<Vec<u8>>, Instant), BackendError> {
    let state = backend.state()?;
    if compiled.generation != state.generation {
        return Err(state.lost_error("the device was replaced during this run"));
    }
    backend.counters().lap(Phase::Prepare, started);
    let whole = backend.launch(&state, compiled, job)?;
    Ok((whole, Instant::now()))
}
