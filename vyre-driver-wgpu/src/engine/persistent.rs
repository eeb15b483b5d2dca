//! Persistent kernels: one pipeline compiled once, many work items drained through it in the fewest
//! real launches (one, unless the items exceed a launch's limits), with automatic device-loss recovery.

use std::ops::Range;

use smallvec::SmallVec;
use vyre_driver::{BackendError, DispatchConfig};
use vyre_foundation::ir::Program;

use crate::backend::WgpuBackend;
use crate::engine::batch::{Batch, Strided};

/// One unit of persistent-kernel work.
///
/// ```
/// use vyre_driver_wgpu::engine::persistent::PersistentPayloadWorkItem;
///
/// // The payload is the bytes of the program's one input buffer: here four u32s.
/// let payload: Vec<u8> = [1u32, 2, 3, 4].iter().flat_map(|v| v.to_le_bytes()).collect();
/// let item = PersistentPayloadWorkItem { id: 42, payload };
/// assert_eq!(item.payload.len(), 16);
/// ```
#[derive(Clone, Debug, Eq, PartialEq)]
pub struct PersistentPayloadWorkItem {
    /// Stable work identifier.
    pub id: u32,
    /// The bytes of the program's single input buffer for this item.
    pub payload: Vec<u8>,
}

/// Output produced for one work item.
///
/// ```
/// use vyre_driver::DispatchConfig;
/// use vyre_driver_wgpu::WgpuBackend;
/// use vyre_driver_wgpu::engine::persistent::{
///     PersistentPayloadWorkItem, PersistentQueue, run_persistent_kernel,
/// };
/// use vyre_foundation::ir::{BufferDecl, DataType, Expr, Node, Program};
///
/// let Ok(backend) = WgpuBackend::acquire() else { return Ok(()) };
/// let negate = Program::new(
///     vec![
///         BufferDecl::read("x", 0, DataType::U32).with_count(1),
///         BufferDecl::output("y", 1, DataType::U32).with_count(1),
///     ],
///     [64, 1, 1],
///     vec![Node::store("y", Expr::gid_x(), Expr::bit_not(Expr::load("x", Expr::gid_x())))],
/// );
/// let mut queue = PersistentQueue::new();
/// for id in [30, 10, 20] {
///     queue.push(PersistentPayloadWorkItem { id, payload: id.to_le_bytes().to_vec() });
/// }
/// let report = run_persistent_kernel(&backend, &negate, &DispatchConfig::default(), queue)?;
/// // One result per item, in queue order, carrying the item's id.
/// let ids: Vec<u32> = report.results.iter().map(|r| r.id).collect();
/// assert_eq!(ids, [30, 10, 20]);
/// assert_eq!(report.results[1].payload, (!10u32).to_le_bytes());
/// # Ok::<(), vyre_driver::BackendError>(())
/// ```
#[derive(Clone, Debug, Eq, PartialEq)]
pub struct WorkResult {
    /// The identifier of the input item.
    pub id: u32,
    /// The bytes of the program's single output buffer for this item (its readback range).
    pub payload: Vec<u8>,
}

/// A queue of work items, drained in order.
///
/// ```
/// use vyre_driver_wgpu::engine::persistent::{PersistentPayloadWorkItem, PersistentQueue};
///
/// let mut queue = PersistentQueue::new();
/// queue.push(PersistentPayloadWorkItem { id: 7, payload: vec![0; 16] });
/// assert_eq!(queue.len(), 1);
/// ```
/// See [`run_persistent_kernel`] for draining it.
#[derive(Clone, Debug, Default, Eq, PartialEq)]
pub struct PersistentQueue {
    items: SmallVec<[PersistentPayloadWorkItem; 16]>,
}

impl PersistentQueue {
    /// An empty queue.
    ///
    /// ```
    /// let queue = vyre_driver_wgpu::engine::persistent::PersistentQueue::new();
    /// assert!(queue.is_empty());
    /// assert_eq!(queue.len(), 0);
    /// ```
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends a work item.
    ///
    /// ```
    /// use vyre_driver_wgpu::engine::persistent::{PersistentPayloadWorkItem, PersistentQueue};
    ///
    /// let mut queue = PersistentQueue::new();
    /// for id in 0..20 {
    ///     queue.push(PersistentPayloadWorkItem { id, payload: id.to_le_bytes().to_vec() });
    /// }
    /// assert_eq!(queue.len(), 20); // more than the 16 kept inline: the queue grows
    /// ```
    pub fn push(&mut self, item: PersistentPayloadWorkItem) {
        self.items.push(item);
    }

    /// The number of queued items.
    ///
    /// ```
    /// use vyre_driver_wgpu::engine::persistent::{PersistentPayloadWorkItem, PersistentQueue};
    ///
    /// let mut queue = PersistentQueue::new();
    /// queue.push(PersistentPayloadWorkItem { id: 1, payload: vec![0; 4] });
    /// queue.push(PersistentPayloadWorkItem { id: 1, payload: vec![0; 4] }); // ids may repeat
    /// assert_eq!(queue.len(), 2);
    /// ```
    #[must_use]
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// True when nothing is queued.
    ///
    /// ```
    /// use vyre_driver_wgpu::engine::persistent::{PersistentPayloadWorkItem, PersistentQueue};
    ///
    /// let mut queue = PersistentQueue::new();
    /// assert!(queue.is_empty());
    /// queue.push(PersistentPayloadWorkItem { id: 0, payload: vec![0; 4] });
    /// assert!(!queue.is_empty());
    /// ```
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
}

/// What draining a queue did.
///
/// ```
/// use vyre_driver::DispatchConfig;
/// use vyre_driver_wgpu::WgpuBackend;
/// use vyre_driver_wgpu::engine::persistent::{
///     PersistentPayloadWorkItem, PersistentQueue, run_persistent_kernel,
/// };
/// use vyre_foundation::ir::{BufferDecl, DataType, Expr, Node, Program};
///
/// let Ok(backend) = WgpuBackend::acquire() else { return Ok(()) };
/// let copy = Program::new(
///     vec![
///         BufferDecl::read("x", 0, DataType::U32).with_count(1),
///         BufferDecl::output("y", 1, DataType::U32).with_count(1),
///     ],
///     [64, 1, 1],
///     vec![Node::store("y", Expr::gid_x(), Expr::load("x", Expr::gid_x()))],
/// );
/// let config = DispatchConfig::default();
/// // An empty queue launches nothing.
/// let empty = run_persistent_kernel(&backend, &copy, &config, PersistentQueue::new())?;
/// assert_eq!((empty.kernel_launches, empty.results.len()), (0, 0));
/// let mut queue = PersistentQueue::new();
/// for id in 0..1000 {
///     queue.push(PersistentPayloadWorkItem { id, payload: id.to_le_bytes().to_vec() });
/// }
/// let report = run_persistent_kernel(&backend, &copy, &config, queue)?;
/// assert_eq!(report.kernel_launches, 1); // a thousand one-word items fit one launch
/// assert_eq!(report.results[999].payload, 999u32.to_le_bytes());
/// # Ok::<(), vyre_driver::BackendError>(())
/// ```
#[derive(Clone, Debug, Eq, PartialEq)]
pub struct PersistentKernelReport {
    /// Real `dispatch_workgroups` calls whose results drained the queue (a launch lost with the device
    /// and redone after recovery counts once).
    pub kernel_launches: u32,
    /// One result per item, in queue order.
    pub results: Vec<WorkResult>,
}

/// The queue's items as the coalesced run's batch: each payload is the item's one input, and is
/// overwritten by its result once delivered (a delivered item's input is never read again).
struct Payloads<'a>(&'a mut [PersistentPayloadWorkItem]);

impl Batch for Payloads<'_> {
    fn count(&self) -> usize {
        self.0.len()
    }
    fn inputs(&self, _: usize) -> usize {
        1
    }
    fn input(&self, k: usize, _: usize) -> &[u8] {
        &self.0[k].payload
    }
    fn deliver(&mut self, k: usize, outputs: &[&[u8]]) {
        let payload = &mut self.0[k].payload;
        payload.clear();
        // The program has exactly one output buffer (checked before the run).
        payload.extend_from_slice(outputs.first().copied().unwrap_or(&[]));
    }

    // The bulk methods below do what the provided ones do, in one loop over the items rather than a
    // call per item through the run's `dyn Batch`: for a queue of one-word items these loops are
    // most of vyre's host work.

    fn all_lengths(&self, range: Range<usize>, lens: &[usize]) -> bool {
        match lens {
            [len] => self.0[range].iter().all(|item| item.payload.len() == *len),
            _ => range.is_empty(),
        }
    }

    fn gather(&self, range: Range<usize>, _: usize, stride: usize, out: &mut Vec<u8>) {
        let items = &self.0[range];
        let start = out.len();
        // The caller checked that `range.len() * stride` bytes fit a usize.
        out.resize(start + items.len() * stride, 0);
        let slots = &mut out[start..];
        // A payload's width known at compile time makes each copy one load and one store instead
        // of a `memcpy` call: most of the loop's time for one-word items.
        match stride {
            4 => gather_fixed::<4>(items, slots),
            8 => gather_fixed::<8>(items, slots),
            16 => gather_fixed::<16>(items, slots),
            _ => {
                for (item, slot) in items.iter().zip(slots.chunks_exact_mut(stride.max(1))) {
                    copy_prefix(&item.payload, slot);
                }
            }
        }
    }

    fn deliver_strided(&mut self, range: Range<usize>, outputs: &[Strided<'_>]) {
        let items = &mut self.0[range];
        let Some(output) = outputs.first() else {
            for item in items {
                item.payload.clear();
            }
            return;
        };
        match output.readback.len() {
            4 => deliver_fixed::<4>(items, output),
            8 => deliver_fixed::<8>(items, output),
            16 => deliver_fixed::<16>(items, output),
            _ => {
                for (k, item) in items.iter_mut().enumerate() {
                    item.payload.clear();
                    item.payload.extend_from_slice(output.item(k));
                }
            }
        }
    }
}

/// Copies `from` into the start of `slot`, cut to the slot (the rest of the slot stays zero).
fn copy_prefix(from: &[u8], slot: &mut [u8]) {
    let n = from.len().min(slot.len());
    slot[..n].copy_from_slice(&from[..n]);
}

/// [`Payloads::gather`] for a stride of `N` bytes: `slots` holds one zeroed slot per item.
fn gather_fixed<const N: usize>(items: &[PersistentPayloadWorkItem], slots: &mut [u8]) {
    let (slots, _) = slots.as_chunks_mut::<N>();
    for (item, slot) in items.iter().zip(slots) {
        match <&[u8; N]>::try_from(item.payload.as_slice()) {
            Ok(payload) => *slot = *payload,
            // Shorter payloads are zero-padded, longer ones cut, as in the provided `gather`.
            Err(_) => copy_prefix(&item.payload, slot),
        }
    }
}

/// [`Payloads::deliver_strided`] for a readback range of `N` bytes.
fn deliver_fixed<const N: usize>(items: &mut [PersistentPayloadWorkItem], output: &Strided<'_>) {
    if output.stride == N && output.readback.start == 0 {
        // The results lie end to end, one whole slot each (one-word items): walked as fixed-width
        // chunks, with no offset arithmetic per item.
        let (results, _) = output.bytes.as_chunks::<N>();
        if results.len() >= items.len() {
            for (item, result) in items.iter_mut().zip(results) {
                overwrite(&mut item.payload, result);
            }
            return;
        }
    }
    for (k, item) in items.iter_mut().enumerate() {
        match <&[u8; N]>::try_from(output.item(k)) {
            Ok(result) => overwrite(&mut item.payload, result),
            Err(_) => {
                item.payload.clear();
                item.payload.extend_from_slice(output.item(k));
            }
        }
    }
}

/// Replaces `payload` with `result`: in place when the payload is as long (the usual case, an
/// item's input as long as its result).
fn overwrite<const N: usize>(payload: &mut Vec<u8>, result: &[u8; N]) {
    match <&mut [u8; N]>::try_from(payload.as_mut_slice()) {
        Ok(slot) => *slot = *result,
        Err(_) => {
            payload.clear();
            payload.extend_from_slice(result);
        }
    }
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
/// buffer, a limit is exceeded, or the device is lost and cannot be recovered. A program with an
/// `f16`, `u64` or `i64` buffer is `Unsupported` (coalesced launches lay items out in 32-bit words):
/// run such items with `VyreBackend::dispatch_batch`, which dispatches them one by one.
///
/// ```
/// use vyre_driver::DispatchConfig;
/// use vyre_driver_wgpu::WgpuBackend;
/// use vyre_driver_wgpu::engine::persistent::{
///     PersistentPayloadWorkItem, PersistentQueue, run_persistent_kernel,
/// };
/// use vyre_foundation::ir::{BufferDecl, DataType, Expr, Node, Program};
///
/// let Ok(backend) = WgpuBackend::acquire() else { return Ok(()) };
/// // One input and one output buffer: each item's payload is its input, each result its output.
/// let double = Program::new(
///     vec![
///         BufferDecl::read("x", 0, DataType::U32).with_count(4),
///         BufferDecl::output("y", 1, DataType::U32).with_count(4),
///     ],
///     [64, 1, 1],
///     vec![Node::store("y", Expr::gid_x(), Expr::mul(Expr::load("x", Expr::gid_x()), Expr::u32(2)))],
/// );
/// let mut queue = PersistentQueue::new();
/// for id in 0..100u32 {
///     let payload = [id, id + 1, id + 2, id + 3].iter().flat_map(|v| v.to_le_bytes()).collect();
///     queue.push(PersistentPayloadWorkItem { id, payload });
/// }
/// let report = run_persistent_kernel(&backend, &double, &DispatchConfig::default(), queue)?;
/// assert_eq!(report.results.len(), 100);
/// assert_eq!(report.results[5].payload[0..4], 10u32.to_le_bytes());
/// println!("{} launch(es) for 100 items", report.kernel_launches);
/// # Ok::<(), vyre_driver::BackendError>(())
/// ```
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
    // Each item's payload vector is reused for its result: no allocation or free per item.
    let mut items = queue.items.into_vec();
    let kernel_launches = pipeline.run_coalesced(&mut Payloads(&mut items), config)?;
    let results = items
        .into_iter()
        .map(|item| WorkResult {
            id: item.id,
            payload: item.payload,
        })
        .collect();
    Ok(PersistentKernelReport {
        kernel_launches,
        results,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn items(lens: &[usize]) -> Vec<PersistentPayloadWorkItem> {
        lens.iter()
            .enumerate()
            .map(|(k, &len)| PersistentPayloadWorkItem {
                id: k as u32,
                payload: (0..len).map(|b| (k * 31 + b * 7 + 1) as u8).collect(),
            })
            .collect()
    }

    /// The fixed-width loops give exactly what the plain per-item copy gives, for every stride and
    /// payload length, shorter (zero-padded), equal and longer (cut).
    #[test]
    fn gather_pads_and_cuts_like_the_plain_copy_at_every_width() {
        for stride in [4, 8, 12, 16, 20] {
            let lens: Vec<usize> = [0, 1, stride - 4, stride, stride + 4, stride, 3]
                .into_iter()
                .cycle()
                .take(23)
                .collect();
            let mut queue = items(&lens);
            let mut expected = vec![0xEE];
            for item in &queue {
                let start = expected.len();
                expected.extend_from_slice(&item.payload[..item.payload.len().min(stride)]);
                expected.resize(start + stride, 0);
            }
            let mut out = vec![0xEE];
            Payloads(&mut queue).gather(2..20, 0, stride, &mut out);
            let skip = 1 + 2 * stride;
            assert_eq!(
                out[1..],
                expected[skip..skip + 18 * stride],
                "stride {stride}"
            );
            assert_eq!(out[0], 0xEE, "what was already there stays");
        }
    }

    /// Each delivered payload is exactly the item's readback bytes, whatever the payload held
    /// before and however long the readback range is.
    #[test]
    fn delivery_replaces_each_payload_with_its_result_at_every_width() {
        let bytes: Vec<u8> = (0..24 * 20).map(|b| (b * 13 + 5) as u8).collect();
        for (stride, readback) in [
            (4, 0..4),
            (8, 0..8),
            (8, 4..8),
            (16, 0..16),
            (16, 0..12),
            (20, 4..20),
            (12, 0..0),
        ] {
            let output = Strided {
                bytes: &bytes,
                stride,
                readback: readback.clone(),
            };
            let lens: Vec<usize> = (0..24).map(|k| [0, 4, 8, 16, 20, 3][k % 6]).collect();
            let mut queue = items(&lens);
            Payloads(&mut queue).deliver_strided(3..21, &[output]);
            for (k, item) in queue.iter().enumerate() {
                if (3..21).contains(&k) {
                    let base = (k - 3) * stride;
                    let want = &bytes[base + readback.start..base + readback.end];
                    assert_eq!(item.payload, want, "item {k}, stride {stride}");
                } else {
                    assert_eq!(item.payload.len(), lens[k], "item {k} is not in the range");
                }
            }
        }
    }
}
