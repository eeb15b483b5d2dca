//! Large uploads through a small ring of host-mappable staging buffers.
//!
//! `queue.write_buffer` already stages: it copies the bytes into a staging buffer that wgpu allocates
//! for that one call, and the device copies them at the next submit. For small writes that is the
//! fastest path (one host copy, no wait), and vyre keeps it. For a write larger than
//! [`UPLOAD_CHUNK`] it means a fresh host-visible allocation of the whole size on every call (1 GiB
//! for a 1 GiB input; pinned memory the driver maps and frees each time) and no overlap of the host
//! copy with the device copy. Here such a write goes through at most [`RING`] staging buffers of
//! [`UPLOAD_CHUNK`] bytes instead: the host fills chunk `k + 1` while the device copies chunk `k`.
//! `vyre-bench --only link` times both ways on the device at hand (see `BENCHMARKS.md`).
//!
//! The ring is made for each launch (shared by its inputs) and freed after it, never kept in the
//! pool. Upload buffers
//! (`MAP_WRITE`) come from the same host-visible memory type as the staging buffers
//! `queue.write_buffer` allocates, in the same blocks of wgpu's allocator (`gpu-allocator`, blocks of
//! 64-128 MiB, one empty block kept). Idle ring buffers in the pool filled those blocks, so every
//! later `write_buffer` of the device, vyre's and the application's alike, had to allocate a block of
//! pinned memory and free it again when done: on the H200 an f32 64 MiB add after the 256 MiB and
//! 1 GiB cases spent 31 ms uploading instead of 20, and once a 1 MiB add spent 3.4 ms
//! (`BENCHMARKS.md`, 2026-12-05).

use std::time::Duration;

use vyre_driver::BackendError;

use super::context::LaunchContext;
use super::ring::{RING, lease};
use super::submit;
use crate::poller::Signal;

/// The largest piece of a streamed write, and the largest write `queue.write_buffer` takes. A ring
/// of [`RING`] such buffers (48 MiB) fits in one of the allocator's smallest host blocks (64 MiB),
/// and the allocator keeps its last block when it empties (`gpu-allocator` 0.28, `free`): a ring
/// made for each launch then takes its memory from that kept block, not from new pinned memory.
/// Counted on lavapipe with `strace` (a 128 MiB add, two inputs): one ring per launch maps no
/// memory beyond the dispatch's own vectors, as the old pooled ring did; a ring per input, of 16 or
/// 64 MiB chunks, mapped and unmapped a 128 MiB block on every dispatch.
pub(crate) const UPLOAD_CHUNK: u64 = 16 << 20;

/// True when a write of `len` bytes goes through the ring rather than `queue.write_buffer`.
pub(super) fn streams(len: u64) -> bool {
    len > UPLOAD_CHUNK
}

/// The upload staging buffers of one launch (or one resident write), shared by all its streamed
/// writes and freed with it: at most [`RING`] buffers of [`UPLOAD_CHUNK`] bytes, made on first use.
/// Sharing matters: a launch's second input leasing a ring of its own while the first one's last
/// copies still hold theirs needed a second allocator block, pinned and freed on every dispatch.
#[derive(Default)]
pub(super) struct Ring {
    slots: Vec<(wgpu::Buffer, Option<wgpu::SubmissionIndex>)>,
    /// The slot the next chunk takes, cycling across writes.
    next: usize,
}

/// Writes `data` into `dest` from the word-aligned `offset` (the last word padded with zeros), then
/// zeros `dest` up to `zero_to` (a multiple of 4) when that lies further, through `ring`. The copies
/// are submitted before this returns, so every later submission sees them.
pub(super) fn write(
    ctx: LaunchContext<'_>,
    ring: &mut Ring,
    dest: &wgpu::Buffer,
    offset: u64,
    data: &[u8],
    zero_to: u64,
    timeout: Option<Duration>,
) -> Result<(), BackendError> {
    let state = ctx.state;
    let chunk = usize::try_from(UPLOAD_CHUNK).unwrap_or(usize::MAX);
    let chunks: Vec<&[u8]> = data.chunks(chunk).collect();
    if chunks.is_empty() {
        if zero_to > offset {
            let scopes = submit::Scopes::push(&state.device);
            let mut encoder =
                state
                    .device
                    .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                        label: Some("vyre upload"),
                    });
            encoder.clear_buffer(dest, offset, Some(zero_to - offset));
            submit::submit(ctx, scopes, encoder.finish())?;
        }
        return Ok(());
    }
    while ring.slots.len() < RING.min(chunks.len()) {
        let buffer = lease(
            ctx,
            UPLOAD_CHUNK,
            wgpu::BufferUsages::MAP_WRITE | wgpu::BufferUsages::COPY_SRC,
        )?;
        ring.slots.push((buffer, None));
    }
    let mut at = offset;
    for (k, bytes) in chunks.iter().enumerate() {
        let slot = ring.next % ring.slots.len();
        ring.next = slot + 1;
        let (staging, submitted) = &mut ring.slots[slot];
        let len = bytes.len();
        let padded = len.next_multiple_of(4) as u64;
        // Mapping for writing waits until the device has finished copying this slot's last chunk.
        let map = Signal::new(None);
        staging
            .slice(0..padded)
            .map_async(wgpu::MapMode::Write, map.map_callback());
        submit::wait(state, submitted.take(), Some(&map), timeout)?;
        if map.outcome() != Some(Ok(())) {
            if state.confirm_lost() {
                return Err(state.lost_error("an upload staging buffer could not be mapped"));
            }
            return Err(BackendError::new(
                "wgpu could not map an upload staging buffer although the device is healthy. Fix: retry; report it to the vyre developers if it persists.",
            ));
        }
        {
            let mut view = staging
                .slice(0..padded)
                .get_mapped_range_mut()
                .map_err(|e| state.lost_error(&format!("mapping failed: {e}")))?;
            view.slice(..len).copy_from_slice(bytes);
            view.slice(len..).fill(0);
        }
        staging.unmap();
        let scopes = submit::Scopes::push(&state.device);
        let mut encoder = state
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("vyre upload"),
            });
        encoder.copy_buffer_to_buffer(staging, 0, dest, at, padded);
        at += padded;
        if k + 1 == chunks.len() && zero_to > at {
            encoder.clear_buffer(dest, at, Some(zero_to - at));
        }
        *submitted = Some(submit::submit(ctx, scopes, encoder.finish())?);
    }
    // The ring is freed with its owner, never pooled (wgpu frees it once these copies are done):
    // see the module docs.
    Ok(())
}
