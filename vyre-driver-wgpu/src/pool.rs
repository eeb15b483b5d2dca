//! A pool of device buffers keyed by size class and usage, reused across dispatches, with a bound on
//! the idle bytes it keeps.
//!
//! A pooled buffer may be larger than a dispatch needs and may hold an earlier dispatch's bytes past the
//! used length. That is safe: inputs are written in full (zero-extended), outputs are cleared, and every
//! access in the generated code is guarded by the dispatch's own lengths, never the buffer's size.

use std::collections::HashMap;

/// Idle bytes kept at most; buffers returned beyond it are freed.
pub(crate) const POOL_LIMIT_BYTES: u64 = 256 << 20;

#[derive(Default)]
pub(crate) struct BufferPool {
    free: HashMap<(u64, u32), Vec<wgpu::Buffer>>,
    held: u64,
}

/// The size class of a request: the next power of two, at least 256 bytes.
pub(crate) fn size_class(bytes: u64) -> u64 {
    bytes.max(256).next_power_of_two()
}

impl BufferPool {
    /// Takes an idle buffer of the class of `bytes` and `usage`, if any.
    pub(crate) fn take(&mut self, bytes: u64, usage: wgpu::BufferUsages) -> Option<wgpu::Buffer> {
        let class = size_class(bytes);
        let buffer = self.free.get_mut(&(class, usage.bits()))?.pop()?;
        self.held -= class;
        Some(buffer)
    }

    /// Returns a buffer for reuse, or frees it when the pool is full.
    pub(crate) fn give(&mut self, buffer: wgpu::Buffer) {
        let class = buffer.size();
        if self.held + class > POOL_LIMIT_BYTES || !class.is_power_of_two() {
            return;
        }
        self.held += class;
        self.free
            .entry((class, buffer.usage().bits()))
            .or_default()
            .push(buffer);
    }

    pub(crate) fn held_bytes(&self) -> u64 {
        self.held
    }

    pub(crate) fn clear(&mut self) {
        self.free.clear();
        self.held = 0;
    }
}
