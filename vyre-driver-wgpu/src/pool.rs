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
    /// The device generation whose buffers the pool holds. A dispatch still running on a lost device
    /// when recovery replaced it returns buffers of that dead device; they must never be handed to a
    /// dispatch on the new one (wgpu rejects them as invalid), so every take and give names its
    /// generation and mismatches are dropped.
    generation: u64,
}

/// The size class of a request: the next power of two, at least 256 bytes; `None` past 2^63 bytes,
/// where no power of two fits a `u64` (such a buffer is never pooled).
pub(crate) fn size_class(bytes: u64) -> Option<u64> {
    bytes.max(256).checked_next_power_of_two()
}

impl BufferPool {
    /// Takes an idle buffer of the class of `bytes` and `usage` made on device `generation`, if any.
    pub(crate) fn take(
        &mut self,
        bytes: u64,
        usage: wgpu::BufferUsages,
        generation: u64,
    ) -> Option<wgpu::Buffer> {
        if generation != self.generation {
            return None;
        }
        let class = size_class(bytes)?;
        let buffer = self.free.get_mut(&(class, usage.bits()))?.pop()?;
        // Every pooled buffer was counted in `held` when it was given back.
        self.held = self.held.saturating_sub(class);
        Some(buffer)
    }

    /// Returns a buffer made on device `generation` for reuse, or frees it when the pool is full or
    /// the buffer belongs to another device.
    pub(crate) fn give(&mut self, buffer: wgpu::Buffer, generation: u64) {
        let class = buffer.size();
        if generation != self.generation
            || self.held.saturating_add(class) > POOL_LIMIT_BYTES
            || !class.is_power_of_two()
        {
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

    /// Drops every idle buffer and from now on holds buffers of device `generation` only.
    pub(crate) fn reset(&mut self, generation: u64) {
        self.free.clear();
        self.held = 0;
        self.generation = generation;
    }
}

#[cfg(test)]
mod tests {
    use super::size_class;

    #[test]
    fn size_classes_are_powers_of_two_up_to_2_pow_63_and_none_past() {
        assert_eq!(size_class(0), Some(256));
        assert_eq!(size_class((1 << 32) + 1), Some(1 << 33));
        assert_eq!(size_class(1 << 63), Some(1 << 63));
        // Unchecked, the next power of two wraps to 0 (release) or panics (debug).
        assert_eq!(size_class((1 << 63) + 1), None);
        assert_eq!(size_class(u64::MAX), None);
    }
}
