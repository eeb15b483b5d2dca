//! The readback stage: every staging buffer mapped, each caller's byte range cut from it, and the
//! staging buffers unmapped and returned to the pool.

use std::sync::{Arc, Mutex};

use vyre_driver::BackendError;

use super::encode::Staging;
use super::poisoned;
use crate::device::DeviceState;
use crate::pool::BufferPool;

/// One slot per staging buffer, filled by its `map_async` callback.
pub(super) type MapSlots = Arc<Mutex<Vec<Option<Result<(), wgpu::BufferAsyncError>>>>>;

/// Requests the mapping of every staging buffer; the slots fill as the callbacks run.
pub(super) fn map(staging: &[Staging]) -> MapSlots {
    let results: MapSlots = Arc::new(Mutex::new(vec![None; staging.len()]));
    for (i, s) in staging.iter().enumerate() {
        let sink = Arc::clone(&results);
        s.buffer
            .slice(s.mapped())
            .map_async(wgpu::MapMode::Read, move |r| {
                if let Ok(mut slots) = sink.lock() {
                    slots[i] = Some(r);
                }
            });
    }
    results
}

/// Each staging buffer's requested bytes, in order, once every map has completed.
pub(super) fn read(
    state: &DeviceState,
    staging: &[Staging],
    slots: &MapSlots,
) -> Result<Vec<Vec<u8>>, BackendError> {
    let mut outputs = Vec::with_capacity(staging.len());
    let slots = slots.lock().map_err(|_| poisoned())?;
    for (slot, s) in slots.iter().zip(staging) {
        match slot {
            Some(Ok(())) => {}
            _ if state.confirm_lost() => {
                return Err(state.lost_error("the readback could not be mapped"));
            }
            _ => {
                return Err(BackendError::new(
                    "wgpu could not map a readback buffer although the device is healthy. Fix: retry the dispatch; report it to the vyre developers if it persists.",
                ));
            }
        }
        let view = s
            .buffer
            .slice(s.mapped())
            .get_mapped_range()
            .map_err(|e| state.lost_error(&format!("mapping failed: {e}")))?;
        // Both offsets are below the staging buffer's length, which was mapped into memory.
        let from = usize::try_from(s.range.start - s.start).unwrap_or(usize::MAX);
        let to = usize::try_from(s.range.end - s.start).unwrap_or(usize::MAX);
        let bytes = view.get(from..to).ok_or_else(|| {
            BackendError::new(
                "a readback range lies outside its mapped staging buffer. Fix: report this vyre bug with the program text.",
            )
        })?;
        outputs.push(bytes.to_vec());
    }
    Ok(outputs)
}

/// Unmaps every staging buffer and returns it to the pool for device `generation`.
pub(super) fn give_back(pool: &mut BufferPool, generation: u64, staging: Vec<Staging>) {
    for s in staging {
        s.buffer.unmap();
        pool.give(s.buffer, generation);
    }
}
