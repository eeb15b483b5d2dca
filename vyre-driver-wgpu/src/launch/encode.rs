//! The encode stage: the two bind groups, one encoder that clears the zeroed buffers, records the one
//! dispatch, and copies every readback range into a staging buffer.

use std::ops::Range;

use vyre_driver::BackendError;

use super::LaunchContext;
use super::job::{Init, Job};
use super::upload::{Uploaded, lease};
use crate::groups::entry;
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

/// The command buffer of the launch and its staging buffers, in readback order.
pub(super) fn encode(
    ctx: LaunchContext<'_>,
    compiled: &Compiled,
    job: &Job<'_>,
    uploaded: &Uploaded,
) -> Result<(wgpu::CommandBuffer, Vec<Staging>), BackendError> {
    let device = &ctx.state.device;
    let ranges = uploaded
        .buffers
        .iter()
        .zip(&job.buffers)
        .map(|(buffer, jb)| (buffer.clone(), jb.bytes))
        .collect();
    let user_group = compiled.groups.user(
        device,
        &compiled.user_layout,
        compiled.bindings.iter().map(|b| b.binding),
        ranges,
        ctx.counters,
    )?;
    let internal_group = match &uploaded.items {
        // The items table changes with every batch: its group is made anew.
        Some(((params, params_len), (items, len))) => {
            bump(&ctx.counters.bind_groups, 1);
            device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("vyre internal"),
                layout: &compiled.internal_layout,
                entries: &[entry(0, params, *params_len), entry(1, items, *len)],
            })
        }
        None => {
            compiled
                .groups
                .params(device, &compiled.internal_layout, &job.params, ctx.counters)?
        }
    };

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
        pass.set_bind_group(0, &user_group, &[]);
        pass.set_bind_group(1, &internal_group, &[]);
        let [x, y, z] = job.physical_grid;
        pass.dispatch_workgroups(x, y, z);
    }
    bump(&ctx.counters.dispatch_calls, 1);
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
