//! The encode stage: the bind groups of every piece, one encoder that clears the zeroed buffers and
//! records the dispatches, and the ranges to read back (copied by the readback stage's ring).

use vyre_driver::BackendError;

use super::context::LaunchContext;
use super::job::{Init, Job};
use super::readback::Read;
use super::upload::Uploaded;
use crate::groups::entry;
use crate::pipeline::Compiled;
use crate::stats::bump;

/// The encoder of the launch (its work recorded, not yet finished) and what to read back, in order.
pub(super) fn encode(
    ctx: LaunchContext<'_>,
    compiled: &Compiled,
    job: &Job<'_>,
    uploaded: &Uploaded,
) -> Result<(wgpu::CommandEncoder, Vec<Read>), BackendError> {
    let device = &ctx.state.device;
    let mut groups = Vec::with_capacity(job.pieces.len());
    for piece in &job.pieces {
        let ranges = uploaded
            .buffers
            .iter()
            .zip(&job.buffers)
            .enumerate()
            .map(|(i, (buffer, jb))| (buffer.clone(), piece.range(i, jb.bytes)))
            .collect();
        let user_group = compiled.groups.user(
            device,
            &compiled.user_layout,
            compiled.bindings.iter().map(|b| b.binding),
            ranges,
            ctx.counters,
        )?;
        let internal_group = match &uploaded.items {
            // The module reads nothing of `params`: no group 1.
            None if !compiled.uses_params => None,
            // The items table changes with every batch (a coalesced launch is one piece): its group
            // is made anew.
            Some(((params, params_len), (items, len))) => {
                bump(&ctx.counters.bind_groups, 1);
                Some(device.create_bind_group(&wgpu::BindGroupDescriptor {
                    label: Some("vyre internal"),
                    layout: &compiled.internal_layout,
                    entries: &[entry(0, params, 0..*params_len), entry(1, items, 0..*len)],
                }))
            }
            None => Some(compiled.groups.params(
                ctx.state,
                &compiled.internal_layout,
                &piece.params,
                ctx.counters,
            )?),
        };
        let pipeline = compiled.pipeline_for(piece.entry, ctx.state, ctx.counters)?;
        groups.push((user_group, internal_group, piece.physical_grid, pipeline));
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
        let mut current = None;
        for (user_group, internal_group, [x, y, z], pipeline) in &groups {
            if current != Some(pipeline) {
                pass.set_pipeline(pipeline);
                current = Some(pipeline);
            }
            pass.set_bind_group(0, user_group, &[]);
            if let Some(internal_group) = internal_group {
                pass.set_bind_group(1, internal_group, &[]);
            }
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
                source: buffer.clone(),
                bytes: jb.bytes,
                range: range.clone(),
            })
        })
        .collect();
    Ok((encoder, reads))
}
