//! Resident buffers in host memory: the same contract as a GPU backend's, so everything written
//! against `DeviceBuffer`s is tested against the reference too.
//!
//! A buffer is a byte vector behind a lock. A step copies the words its program may touch into a
//! [`Memory`] (outputs as zeros), runs, and copies the writable buffers back. One lock per backend
//! orders whole sequences, reads and writes, as a device's queue orders submissions.

use std::ops::Range;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use vyre_driver::{BackendError, DeviceBuffer, InstanceId, PreparedStep};
use vyre_foundation::ir::BufferAccess;

use crate::memory::{Memory, elements, put_element};

fn poisoned() -> BackendError {
    BackendError::new(
        "a reference backend lock was poisoned by a panic in another thread. Fix: drop this backend and create a new one.",
    )
}

/// The backend's side of its resident buffers.
#[derive(Debug)]
pub(crate) struct Resident {
    pub(crate) owner: InstanceId,
    /// Held for each sequence, read and write.
    order: Mutex<()>,
}

/// A buffer's bytes (its length is the `DeviceBuffer`'s).
#[derive(Debug)]
struct HostBuffer {
    bytes: Mutex<Vec<u8>>,
}

impl Resident {
    pub(crate) fn new() -> Self {
        Self {
            owner: InstanceId::fresh(),
            order: Mutex::new(()),
        }
    }

    fn host<'b>(&self, buffer: &'b DeviceBuffer) -> Result<&'b HostBuffer, BackendError> {
        buffer.storage_of::<HostBuffer>(self.owner, "reference")
    }

    pub(crate) fn create(&self, bytes: u64) -> Result<DeviceBuffer, BackendError> {
        let oom = || {
            BackendError::out_of_memory(format!(
                "the host could not allocate a {bytes}-byte buffer. Fix: use a smaller buffer, or drop buffers no longer needed."
            ))
        };
        let len = usize::try_from(bytes).map_err(|_| oom())?;
        let mut data = Vec::new();
        data.try_reserve_exact(len).map_err(|_| oom())?;
        data.resize(len, 0);
        Ok(DeviceBuffer::new(
            self.owner,
            bytes,
            HostBuffer {
                bytes: Mutex::new(data),
            },
        ))
    }

    pub(crate) fn write(
        &self,
        buffer: &DeviceBuffer,
        offset: u64,
        data: &[u8],
    ) -> Result<(), BackendError> {
        let host = self.host(buffer)?;
        buffer.check_span(offset, data.len() as u64, "writing")?;
        let _order = self.order.lock().map_err(|_| poisoned())?;
        let mut bytes = host.bytes.lock().map_err(|_| poisoned())?;
        // Inside the buffer's length, which is the vector's: both fit a usize.
        let start = offset as usize;
        bytes[start..start + data.len()].copy_from_slice(data);
        Ok(())
    }

    pub(crate) fn read(
        &self,
        buffer: &DeviceBuffer,
        range: Range<u64>,
    ) -> Result<Vec<u8>, BackendError> {
        let host = self.host(buffer)?;
        buffer.check_range(&range, "reading")?;
        let _order = self.order.lock().map_err(|_| poisoned())?;
        let bytes = host.bytes.lock().map_err(|_| poisoned())?;
        Ok(bytes[range.start as usize..range.end as usize].to_vec())
    }

    /// Runs the steps in order, each with `run` over the memory built from its buffers.
    pub(crate) fn sequence(
        &self,
        steps: &[PreparedStep<'_>],
        mut run: impl FnMut(&PreparedStep<'_>, &Memory) -> Result<(), BackendError>,
    ) -> Result<(), BackendError> {
        // Every buffer must be ours before anything runs.
        for (i, step) in steps.iter().enumerate() {
            for buffer in step.buffers {
                self.host(buffer).map_err(|e| e.in_step(i))?;
            }
        }
        let _order = self.order.lock().map_err(|_| poisoned())?;
        for (i, step) in steps.iter().enumerate() {
            let memory = self.load(step)?;
            run(step, &memory).map_err(|e| e.in_step(i))?;
            self.store(step, &memory)?;
        }
        Ok(())
    }

    /// The memory of one step: each bound buffer's first `element_count` elements (outputs zeroed).
    fn load(&self, step: &PreparedStep<'_>) -> Result<Memory, BackendError> {
        let program = step.program.program();
        let mut storage = Vec::new();
        for (decl, resolved) in program.buffers.iter().zip(&step.plan.buffers) {
            let Some(index) = resolved.input else {
                continue;
            };
            let count = usize::try_from(resolved.element_count).map_err(|_| too_big())?;
            let mut words = Vec::new();
            words.try_reserve_exact(count).map_err(|_| too_big())?;
            if decl.access == BufferAccess::Output {
                words.resize_with(count, || AtomicU64::new(0));
            } else {
                let host = self.host(step.buffers[index])?;
                let bytes = host.bytes.lock().map_err(|_| poisoned())?;
                let size = decl.element.size_bytes();
                words.extend(elements(&bytes, size).take(count).map(AtomicU64::new));
            }
            storage.push(words);
        }
        Ok(Memory { storage })
    }

    /// Copies the words of every writable buffer back into its `DeviceBuffer`.
    fn store(&self, step: &PreparedStep<'_>, memory: &Memory) -> Result<(), BackendError> {
        let program = step.program.program();
        let bound = program
            .buffers
            .iter()
            .zip(&step.plan.buffers)
            .filter_map(|(decl, r)| r.input.map(|i| (decl, i)));
        for ((decl, index), words) in bound.zip(&memory.storage) {
            if !decl.access.is_writable() {
                continue;
            }
            let host = self.host(step.buffers[index])?;
            let mut bytes = host.bytes.lock().map_err(|_| poisoned())?;
            let size = decl.element.size_bytes();
            for (chunk, word) in bytes.chunks_exact_mut(size).zip(words) {
                put_element(chunk, word.load(Ordering::Relaxed));
            }
        }
        Ok(())
    }
}

fn too_big() -> BackendError {
    BackendError::out_of_memory(
        "the host could not allocate a step's buffers. Fix: use smaller buffers.",
    )
}
