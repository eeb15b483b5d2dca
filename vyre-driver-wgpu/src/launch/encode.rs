//! The encode stage: the two bind groups, one encoder that clears the zeroed buffers, records the one
//! dispatch, and copies every readback range into a staging buffer.

use std::ops::Range;

use vyre_driver::BackendError;

use super::LaunchContext;
use super::job::{Init, Job};
use super::upload::{Uploaded, lease};
use crate::pipeline::Compiled;
use crate::stats::bump;

/// One readback: the staging buffer, the word-aligned span `start..end` of the source copied into
/// it, and the byte range the caller asked for.
pub(super) struct Staging {
    pub(super) buffer: wgpu::Buffer,
    pub(super) start: u64,
    pub(super) end: u64,
    pub(super) range: Range<u64>,
}

impl Staging {
    /// The mapped span (at least one word: wgpu maps no empty range).
    pub(super) fn mapped(&self) -> Range<u64> {
        0..(self.end - self.start).max(4)
    }
}

/// The bind group entry of `range` of `buffer` at `binding`.
pub(super) fn entry(
    binding: u32,
    buffer: &wgpu::Buffer,
    range: std::ops::Range<u64>,
) -> wgpu::BindGroupEntry<'_> {
    wgpu::BindGroupEntry {
        binding,
        resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
            buffer,
            offset: range.start,
            size: wgpu::BufferSize::new(range.end - range.start),
        }),
    }
}

/// The command buffer of the launch and its staging buffers, in readback order.
pub(super) fn encode(
    ctx: LaunchContext<'_>,
    compiled: &Compiled,
    job: &Job<'_>,
    uploaded: &Uploaded,
) -> Result<(wgpu::CommandBuffer, Vec<Staging>), BackendError> {
    let device = &ctx.state.device;
    let mut groups = Vec::with_capacity(job.pieces.len());
    for (piece, (params, params_len)) in job.pieces.iter().zip(&uploaded.params) {
        let entries: Vec<wgpu::BindGroupEntry<'_>> = compiled
            .bindings
            .iter()
            .zip(&uploaded.buffers)
            .zip(&job.buffers)
            .enumerate()
            .map(|(i, ((b, buffer), jb))| entry(b.binding, buffer, piece.range(i, jb.bytes)))
            .collect();
        let user_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("vyre program buffers"),
            layout: &compiled.user_layout,
            entries: &entries,
        });
        let mut internal_entries = vec![entry(0, params, 0..*params_len)];
        if let Some((items, len)) = &uploaded.items {
            internal_entries.push(entry(1, items, 0..*len));
        }
        let internal_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("vyre internal"),
            layout: &compiled.internal_layout,
            entries: &internal_entries,
        });
        groups.push((user_group, internal_group, piece.physical_grid));
    }

    let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
        label: Some("vyre"),
    });
    for (buffer, jb) in uploaded.buffers.iter().zip(&job.buffers) {
        if matches!(jb.init, Init::Zero) {
            encoder.clear_buffer(buffer, 0, Some(jb.bytes));
        }
    }
    {
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("vyre"),
            timestamp_writes: None,
        });
        pass.set_pipeline(&compiled.pipeline);
        for (user_group, internal_group, [x, y, z]) in &groups {
            pass.set_bind_group(0, user_group, &[]);
            pass.set_bind_group(1, internal_group, &[]);
            pass.dispatch_workgroups(*x, *y, *z);
        }
    }
    bump(&ctx.counters.dispatch_calls, groups.len() as u64);
    let mut staging = Vec::new();
    for (buffer, jb) in uploaded.buffers.iter().zip(&job.buffers) {
        if let Some(range) = &jb.readback {
            staging.push(copy_out(ctx, &mut encoder, buffer, jb.bytes, range)?);
        }
    }
    Ok((encoder.finish(), staging))
}

/// Records the copy of `range` of `source` (`bytes` long) into a new staging buffer.
pub(super) fn copy_out(
    ctx: LaunchContext<'_>,
    encoder: &mut wgpu::CommandEncoder,
    source: &wgpu::Buffer,
    bytes: u64,
    range: &Range<u64>,
) -> Result<Staging, BackendError> {
    if range.start > range.end || range.end > bytes {
        return Err(BackendError::new(format!(
            "the readback range {range:?} lies outside its {bytes}-byte buffer. Fix: report this vyre bug with the program text."
        )));
    }
    // `range.end <= bytes`, a multiple of 4, so rounding up to 4 cannot pass it or wrap.
    let start = range.start / 4 * 4;
    let end = range.end.next_multiple_of(4).min(bytes);
    let len = (end - start).max(4);
    let buffer = lease(
        ctx,
        len,
        wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
    )?;
    if end > start {
        encoder.copy_buffer_to_buffer(source, start, &buffer, 0, end - start);
    }
    Ok(Staging {
        buffer,
        start,
        end,
        range: range.clone(),
    })
}
