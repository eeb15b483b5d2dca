//! The encode stage: the bind groups of every piece, one encoder that clears the zeroed buffers and
//! records the dispatches, and the ranges to read back (copied by the readback stage's ring).

use vyre_driver::BackendError;

use super::LaunchContext;
use super::job::{Init, Job};
use super::readback::Read;
use super::upload::Uploaded;
use crate::pipeline::Compiled;
use crate::stats::bump;

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

/// The encoder of the launch (its work recorded, not yet finished) and what to read back, in order.
pub(super) fn encode<'u>(
    ctx: LaunchContext<'_>,
    compiled: &Compiled,
    job: &Job<'_>,
    uploaded: &'u Uploaded,
) -> Result<(wgpu::CommandEncoder, Vec<Read<'u>>), BackendError> {
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
    let reads = uploaded
        .buffers
        .iter()
        .zip(&job.buffers)
        .filter_map(|(buffer, jb)| {
            jb.readback.as_ref().map(|range| Read {
                source: buffer,
                bytes: jb.bytes,
                range: range.clone(),
            })
        })
        .collect();
    Ok((encoder, reads))
}
