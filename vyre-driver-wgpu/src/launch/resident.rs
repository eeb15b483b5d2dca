//! Launches over buffers that stay on the device: creating, writing and reading them, and running a
//! sequence of dispatches over them in one encoder and one submit.

use std::sync::Arc;
use std::time::Duration;

use vyre_driver::BackendError;

use super::context::LaunchContext;
use super::flight::{InFlight, Settling};
use super::job::Piece;
use super::patch::{self, Patch};
use super::{readback, stage, submit};
use crate::groups::entry;
use crate::pipeline::Compiled;
use crate::stats::bump;

/// What a `DeviceBuffer` of the wgpu backend holds: the device buffer and the device generation it
/// was created on (a buffer of a lost device holds nothing any more).
#[derive(Debug)]
pub(crate) struct WgpuBuffer {
    pub(crate) buffer: wgpu::Buffer,
    pub(crate) generation: u64,
    /// The device buffer's size (at least the `DeviceBuffer`'s length: vyre rounds its own up).
    pub(crate) allocated: u64,
}

/// The usages of every resident buffer: bound as storage or uniform, copied in and out.
pub(crate) const RESIDENT_USAGE: wgpu::BufferUsages = wgpu::BufferUsages::STORAGE
    .union(wgpu::BufferUsages::UNIFORM)
    .union(wgpu::BufferUsages::COPY_SRC)
    .union(wgpu::BufferUsages::COPY_DST);

/// The bytes a resident buffer of `bytes` allocates: whole 16-byte rows (a uniform binding reads
/// `vec4`s), at least one.
pub(crate) fn allocated_bytes(bytes: u64) -> Option<u64> {
    bytes.max(1).checked_next_multiple_of(16)
}

/// A new zero-filled buffer of `bytes` bytes (wgpu zero-initialises new buffers).
pub(crate) fn create(ctx: LaunchContext<'_>, bytes: u64) -> Result<wgpu::Buffer, BackendError> {
    let state = ctx.state;
    let size = allocated_bytes(bytes)
        .filter(|&s| s <= state.limits.max_buffer_size)
        .ok_or_else(|| {
            BackendError::limit_exceeded(format!(
                "a buffer of {bytes} bytes exceeds this device's largest buffer of {} bytes. Fix: split the data over several buffers.",
                state.limits.max_buffer_size
            ))
        })?;
    let device = &state.device;
    let validation = device.push_error_scope(wgpu::ErrorFilter::Validation);
    let oom = device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
    let buffer = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("vyre resident"),
        size,
        usage: RESIDENT_USAGE,
        mapped_at_creation: false,
    });
    bump(&ctx.counters.buffers_created, 1);
    let oom_error = pollster::block_on(oom.pop());
    let validation_error = pollster::block_on(validation.pop());
    if (oom_error.is_some() || validation_error.is_some()) && state.confirm_lost() {
        return Err(state.lost_error("while creating a buffer"));
    }
    if let Some(e) = oom_error {
        return Err(BackendError::out_of_memory(format!(
            "the device has no memory for a {bytes}-byte buffer: {e}. Fix: drop buffers no longer needed, or use smaller ones."
        )));
    }
    if let Some(e) = validation_error {
        return Err(BackendError::new(format!(
            "wgpu refused a {bytes}-byte buffer: {e}. Fix: this is a vyre bug unless a device limit was exceeded; report it."
        )));
    }
    Ok(buffer)
}

/// Writes `data` at `offset`; the write reaches the device before the next submission. Whole words
/// are written as they are; the parts of words at an unaligned start or end are patched on the
/// queue's timeline (see `patch`), so a concurrent write to the rest of such a word, or a dispatch
/// storing into it, is never undone. The caller checks that those words lie inside `buffer`.
pub(crate) fn write(
    ctx: LaunchContext<'_>,
    buffer: &wgpu::Buffer,
    offset: u64,
    data: &[u8],
) -> Result<(), BackendError> {
    let state = ctx.state;
    if state.is_lost() {
        return Err(state.lost_error("before the write"));
    }
    // Scoped here, on this thread: an unscoped `queue.write_buffer` error (a buffer destroyed by
    // its application, a lost device) went to the uncaptured-error slot, and whichever dispatch
    // waited next, on any thread, reported it as its own.
    let scopes = submit::Scopes::push(&state.device);
    let (patches, at, middle) = Patch::split(offset, data);
    write_aligned(ctx, buffer, at, middle)?;
    if patches.is_empty() {
        return submit::check(state, scopes);
    }
    let mut encoder = state
        .device
        .create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("vyre write"),
        });
    patch::encode(state, &mut encoder, buffer, &patches)?;
    submit::submit(ctx, scopes, encoder.finish()).map(drop)
}

/// Writes `data` at the word-aligned `offset` (`offset` and `data.len()` are multiples of 4). Large
/// writes go through the staging ring (see `stage`).
fn write_aligned(
    ctx: LaunchContext<'_>,
    buffer: &wgpu::Buffer,
    offset: u64,
    data: &[u8],
) -> Result<(), BackendError> {
    if stage::streams(data.len() as u64) {
        let state = ctx.state;
        if state.is_lost() {
            return Err(state.lost_error("before the write"));
        }
        return stage::write(
            ctx,
            &mut stage::Ring::default(),
            buffer,
            offset,
            data,
            0,
            None,
        );
    }
    if !data.is_empty() {
        ctx.state.queue.write_buffer(buffer, offset, data);
    }
    Ok(())
}

/// Starts reading the bytes `range` of `buffer` (`bytes` long), after every submission before this
/// one; `None` for an empty range, which reads nothing.
pub(crate) fn start_read(
    ctx: LaunchContext<'_>,
    buffer: &wgpu::Buffer,
    bytes: u64,
    range: std::ops::Range<u64>,
    timeout: Option<Duration>,
) -> Result<Option<InFlight>, BackendError> {
    let state = ctx.state;
    if state.is_lost() {
        return Err(state.lost_error("before the read"));
    }
    if range.is_empty() {
        return Ok(None);
    }
    let scopes = submit::Scopes::push(&state.device);
    let encoder = state
        .device
        .create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("vyre read"),
        });
    let reads = vec![readback::Read {
        source: buffer.clone(),
        bytes,
        range,
    }];
    let readback = readback::start(ctx, scopes, encoder, reads, None)?;
    Ok(Some(InFlight::new(ctx, readback, None, timeout)))
}

/// One bound program buffer of a resident launch: the device buffer and the bytes bound.
pub(crate) struct Bound<'a> {
    pub(crate) buffer: &'a wgpu::Buffer,
    pub(crate) bytes: u64,
    /// For `output` buffers, the bytes cleared to zero before the launch: exactly the declared
    /// elements', which may end inside a word (`f16`) or before the bound rows end; the bytes past
    /// them are the caller's and are never touched.
    pub(crate) clear: Option<u64>,
}

/// One launch of a sequence: one dispatch, or the pieces of a split elementwise one.
pub(crate) struct ResidentLaunch<'a> {
    pub(crate) compiled: Arc<Compiled>,
    /// In the pipeline's binding order.
    pub(crate) bound: Vec<Bound<'a>>,
    pub(crate) pieces: Vec<Piece>,
}

/// Records `launches` in order in one encoder and submits them at once: the sequence is under way
/// (all of it, never a part) when this returns, and waited for by the caller.
pub(crate) fn start_sequence(
    ctx: LaunchContext<'_>,
    launches: &[ResidentLaunch<'_>],
    timeout: Option<Duration>,
) -> Result<Settling, BackendError> {
    let state = ctx.state;
    if state.is_lost() {
        return Err(state.lost_error("detected before the sequence"));
    }
    let device = &state.device;
    let scopes = submit::Scopes::push(device);
    let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
        label: Some("vyre sequence"),
    });
    for launch in launches {
        let compiled = &launch.compiled;
        // Outputs are cleared whole before the first piece: a piece binds only its own range.
        for bound in &launch.bound {
            if let Some(bytes) = bound.clear {
                let whole = bytes / 4 * 4;
                if whole > 0 {
                    encoder.clear_buffer(bound.buffer, 0, Some(whole));
                }
                let part = (bytes - whole) as usize;
                if part > 0 {
                    let zero = Patch::bytes(whole, 0, &[0; 4][..part]);
                    patch::encode(state, &mut encoder, bound.buffer, &[zero])?;
                }
            }
        }
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("vyre step"),
            timestamp_writes: None,
        });
        let mut current = None;
        for piece in &launch.pieces {
            if current != Some(piece.entry) {
                pass.set_pipeline(&compiled.pipeline_for(piece.entry, state, ctx.counters)?);
                current = Some(piece.entry);
            }
            let entries: Vec<wgpu::BindGroupEntry<'_>> = compiled
                .bindings
                .iter()
                .zip(&launch.bound)
                .enumerate()
                .map(|(i, (b, bound))| entry(b.binding, bound.buffer, piece.range(i, bound.bytes)))
                .collect();
            // Made per launch: a kept group would hold the application's buffers past their last
            // drop (see `groups`).
            bump(&ctx.counters.bind_groups, 1);
            let user_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("vyre resident buffers"),
                layout: &compiled.user_layout,
                entries: &entries,
            });
            pass.set_bind_group(0, &user_group, &[]);
            if compiled.uses_params {
                let internal_group = compiled.groups.params(
                    ctx.state,
                    &compiled.internal_layout,
                    &piece.params,
                    ctx.counters,
                )?;
                pass.set_bind_group(1, &internal_group, &[]);
            }
            let [x, y, z] = piece.physical_grid;
            pass.dispatch_workgroups(x, y, z);
            bump(&ctx.counters.dispatch_calls, 1);
        }
        drop(pass);
    }
    let submission = submit::submit(ctx, scopes, encoder.finish())?;
    Ok(Settling::new(ctx, submission, timeout))
}
