//! Bind groups a compiled pipeline reuses from one launch to the next.
//!
//! A launch binds two groups: the program's buffers and vyre's `params` words. Making them anew on
//! every launch costs a pooled buffer, a queue write and two `create_bind_group` calls, which on a
//! real driver is a fixed cost of the same order as a small dispatch itself. Most launches of a
//! pipeline repeat the previous shape, so each pipeline keeps:
//! - the `params` groups of its last few shapes, each over a small buffer of its own that holds those
//!   words and is never written again (so launches in flight may share it);
//! - the program-buffer group of its last launch, only while every buffer it binds is small (see
//!   [`USER_GROUP_BYTES`]): a cached group keeps its buffers alive, and a large buffer must go back
//!   to the system when vyre's pool lets it go.
//!
//! Resident launches reuse `params` groups only: their buffers are the application's, and a
//! `DeviceBuffer` is freed when its last clone drops, which a cached group would delay.

use std::ops::Range;
use std::sync::Mutex;

use vyre_driver::BackendError;

use crate::device::DeviceState;
use crate::stats::{Counters, bump};

/// The `params` shapes each pipeline keeps.
const PARAMS_SHAPES: usize = 4;

/// The most bytes a cached program-buffer group may bind in all.
pub(crate) const USER_GROUP_BYTES: u64 = 1 << 20;

/// One bound range: the buffer, by identity, and the byte range bound.
pub(crate) type BoundRange = (wgpu::Buffer, Range<u64>);

/// A pipeline's reusable bind groups (see the module docs).
#[derive(Default)]
pub(crate) struct LaunchGroups {
    /// Most recently used first.
    params: Mutex<Vec<(Vec<u32>, wgpu::BindGroup)>>,
    user: Mutex<Option<(Vec<BoundRange>, wgpu::BindGroup)>>,
}

impl LaunchGroups {
    /// The `params` group (binding 0 of `layout`) holding `words`: a kept one, or a new one over a
    /// buffer of its own.
    pub(crate) fn params(
        &self,
        state: &DeviceState,
        layout: &wgpu::BindGroupLayout,
        words: &[u32],
        counters: &Counters,
    ) -> Result<wgpu::BindGroup, BackendError> {
        let device = &state.device;
        let mut kept = self.params.lock().map_err(|_| poisoned())?;
        if let Some(at) = kept.iter().position(|(w, _)| w.as_slice() == words) {
            let hit = kept.remove(at);
            let group = hit.1.clone();
            kept.insert(0, hit);
            return Ok(group);
        }
        // A storage binding needs at least one word.
        let contents: &[u8] = if words.is_empty() {
            &[0; 4]
        } else {
            bytemuck::cast_slice(words)
        };
        // Written through a mapping at creation (no queue write to order), by hand: wgpu's
        // `create_buffer_init` panics when the mapping fails, as it does once the device is lost.
        let buffer = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("vyre params"),
            size: contents.len() as u64,
            usage: wgpu::BufferUsages::STORAGE,
            mapped_at_creation: true,
        });
        buffer
            .get_mapped_range_mut(..)
            .map_err(|e| state.lost_error(&format!("mapping vyre's params buffer failed: {e}")))?
            .copy_from_slice(contents);
        buffer.unmap();
        let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("vyre internal"),
            layout,
            entries: &[wgpu::BindGroupEntry {
                binding: 0,
                resource: buffer.as_entire_binding(),
            }],
        });
        bump(&counters.bind_groups, 1);
        kept.insert(0, (words.to_vec(), group.clone()));
        kept.truncate(PARAMS_SHAPES);
        Ok(group)
    }

    /// The program-buffer group binding `ranges` at `bindings` in `layout`: the kept one when it
    /// binds exactly these ranges, else a new one, kept when the ranges are small.
    pub(crate) fn user(
        &self,
        device: &wgpu::Device,
        layout: &wgpu::BindGroupLayout,
        bindings: impl Iterator<Item = u32>,
        ranges: Vec<BoundRange>,
        counters: &Counters,
    ) -> Result<wgpu::BindGroup, BackendError> {
        let small = ranges
            .iter()
            .try_fold(0u64, |sum, (_, range)| {
                sum.checked_add(range.end - range.start)
            })
            .is_some_and(|sum| sum <= USER_GROUP_BYTES);
        if small {
            let kept = self.user.lock().map_err(|_| poisoned())?;
            if let Some((key, group)) = kept.as_ref()
                && *key == ranges
            {
                return Ok(group.clone());
            }
        }
        let entries: Vec<wgpu::BindGroupEntry<'_>> = bindings
            .zip(&ranges)
            .map(|(binding, (buffer, range))| entry(binding, buffer, range.clone()))
            .collect();
        let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("vyre program buffers"),
            layout,
            entries: &entries,
        });
        drop(entries);
        bump(&counters.bind_groups, 1);
        if small {
            *self.user.lock().map_err(|_| poisoned())? = Some((ranges, group.clone()));
        }
        Ok(group)
    }
}

/// The bind group entry of `range` of `buffer` at `binding`.
pub(crate) fn entry(
    binding: u32,
    buffer: &wgpu::Buffer,
    range: Range<u64>,
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

/// The error for a lock poisoned by a panic elsewhere.
pub(crate) fn poisoned() -> BackendError {
    BackendError::new(
        "a vyre lock was poisoned by a panic in another thread. Fix: drop this backend and acquire a new one.",
    )
}
