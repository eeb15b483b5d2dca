//! Persistent kernels: one pipeline compiled once, many work items drained through it in the fewest
//! real launches (one, unless the items exceed a launch's limits), with automatic device-loss recovery.

use smallvec::SmallVec;
use vyre_driver::{BackendError, DispatchConfig};
use vyre_foundation::ir::Program;

use crate::WgpuBackend;

/// One unit of persistent-kernel work.
#[derive(Clone, Debug, Eq, PartialEq)]
pub struct PersistentPayloadWorkItem {
    /// Stable work identifier.
    pub id: u32,
    /// The bytes of the program's single input buffer for this item.
    pub payload: Vec<u8>,
}

/// Output produced for one work item.
#[derive(Clone, Debug, Eq, PartialEq)]
pub struct WorkResult {
    /// The identifier of the input item.
    pub id: u32,
    /// The bytes of the program's single output buffer for this item (its readback range).
    pub payload: Vec<u8>,
}

/// A queue of work items, drained in order.
#[derive(Clone, Debug, Default, Eq, PartialEq)]
pub struct PersistentQueue {
    items: SmallVec<[PersistentPayloadWorkItem; 16]>,
}

impl PersistentQueue {
    /// An empty queue.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends a work item.
    pub fn push(&mut self, item: PersistentPayloadWorkItem) {
        self.items.push(item);
    }

    /// The number of queued items.
    #[must_use]
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// True when nothing is queued.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
}

/// What draining a queue did.
#[derive(Clone, Debug, Eq, PartialEq)]
pub struct PersistentKernelReport {
    /// Real `dispatch_workgroups` calls used to drain the queue.
    pub kernel_launches: u32,
    /// One result per item, in queue order.
    pub results: Vec<WorkResult>,
}

/// Compiles `program` once (or takes it from the cache) and runs every queued item through it in the
/// fewest launches. A lost device is recovered and the launch retried once, recompiling the pipeline for
/// the new device.
///
/// The program must have exactly one input buffer (fed by each item's payload) and one output buffer
/// (each result's payload).
///
/// # Errors
///
/// [`BackendError`] when the program is invalid or has another shape, a payload does not fit the input
/// buffer, a limit is exceeded, or the device is lost and cannot be recovered.
pub fn run_persistent_kernel(
    backend: &WgpuBackend,
    program: &Program,
    config: &DispatchConfig,
    queue: PersistentQueue,
) -> Result<PersistentKernelReport, BackendError> {
    if queue.is_empty() {
        return Ok(PersistentKernelReport {
            kernel_launches: 0,
            results: Vec::new(),
        });
    }
    u32::try_from(queue.len()).map_err(|_| {
        BackendError::limit_exceeded("the persistent queue holds more than u32::MAX items. Fix: shard the work into several queues.")
    })?;
    let inputs = program.input_buffers().count();
    let outputs = program.output_buffers().count();
    if inputs != 1 || outputs != 1 {
        return Err(BackendError::unsupported(format!(
            "run_persistent_kernel needs a program with one input and one output buffer; this one has {inputs} input(s) and {outputs} output(s). Fix: use `WgpuPipeline::dispatch_coalesced` for items with several inputs or outputs."
        )));
    }
    let pipeline = backend.compile_persistent(program, config)?;
    let payloads: Vec<[&[u8]; 1]> = queue
        .items
        .iter()
        .map(|item| [item.payload.as_slice()])
        .collect();
    let items: Vec<&[&[u8]]> = payloads.iter().map(|p| p.as_slice()).collect();
    let run = pipeline.run_coalesced(&items, config)?;
    if run.outputs.len() != queue.len() {
        return Err(BackendError::new(format!(
            "the coalesced launch returned {} output sets for {} items. Fix: report this vyre bug.",
            run.outputs.len(),
            queue.len()
        )));
    }
    let mut results = Vec::with_capacity(queue.len());
    for (index, (item, outputs)) in queue.items.into_iter().zip(run.outputs).enumerate() {
        let mut outputs = outputs.into_iter();
        let (Some(payload), None) = (outputs.next(), outputs.next()) else {
            return Err(BackendError::new(format!(
                "work item {index} (id {}) did not get exactly one output payload. Fix: report this vyre bug.",
                item.id
            )));
        };
        results.push(WorkResult {
            id: item.id,
            payload,
        });
    }
    Ok(PersistentKernelReport {
        kernel_launches: run.launches,
        results,
    })
}
