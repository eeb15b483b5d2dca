//! What the staging rings of the readback and upload stages share: how many buffers a ring holds,
//! and the pooled buffers they lease.

use vyre_driver::BackendError;

use super::context::LaunchContext;
use crate::groups::poisoned;
use crate::pool::size_class;
use crate::stats::bump;

/// Staging buffers in flight at once: while the host reads one, the device fills the others.
pub(crate) const RING: usize = 3;

/// A pooled buffer of at least `bytes` bytes for `usage`, or a new one.
pub(super) fn lease(
    ctx: LaunchContext<'_>,
    bytes: u64,
    usage: wgpu::BufferUsages,
) -> Result<wgpu::Buffer, BackendError> {
    let state = ctx.state;
    if bytes > state.limits.max_buffer_size {
        return Err(BackendError::limit_exceeded(format!(
            "a buffer of {bytes} bytes exceeds this device's maximum buffer size of {} bytes. Fix: split the data over several dispatches.",
            state.limits.max_buffer_size
        )));
    }
    if let Some(buffer) =
        ctx.pool
            .lock()
            .map_err(|_| poisoned())?
            .take(bytes, usage, state.generation)
    {
        return Ok(buffer);
    }
    // `bytes <= max_buffer_size` here, so rounding it up to 4 cannot wrap; a buffer too large for a
    // size class (or whose class the device refuses) gets its exact rounded size and is not pooled.
    let size = match size_class(bytes) {
        Some(class) if class <= state.limits.max_buffer_size => class,
        _ => bytes.checked_next_multiple_of(4).ok_or_else(|| {
            BackendError::limit_exceeded(format!(
                "a buffer of {bytes} bytes cannot be rounded to whole words. Fix: use smaller buffers."
            ))
        })?,
    };
    bump(&ctx.counters.buffers_created, 1);
    Ok(state.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("vyre pooled"),
        size,
        usage,
        mapped_at_creation: false,
    }))
}
