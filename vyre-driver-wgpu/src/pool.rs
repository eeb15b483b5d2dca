//! A pool of device buffers keyed by size class and usage, reused across dispatches, with a bound on
//! the idle bytes it keeps, sized from the device and the host (see [`pool_limit`]).
//!
//! A pooled buffer may be larger than a dispatch needs and may hold an earlier dispatch's bytes past the
//! used length. That is safe: inputs are written in full (zero-extended), outputs are cleared, and every
//! access in the generated code is guarded by the dispatch's own lengths, never the buffer's size.

use std::collections::HashMap;

/// The pool's bound when neither the host's memory nor the device's limits say more: the bound vyre
/// had before it sized the pool, enough for the small dispatches that dominate most programs.
const FLOOR_BYTES: u64 = 256 << 20;

/// The host memory assumed where it cannot be read (not Linux, or `/proc` hidden): a small machine, so
/// the pool stays modest there.
const ASSUMED_HOST_BYTES: u64 = 8 << 30;

/// The idle bytes a pool may keep on a device with `limits`, on a host with `host_bytes` of memory
/// (`None`: unknown, [`ASSUMED_HOST_BYTES`]).
///
/// A large dispatch binds a few buffers of up to `max_buffer_size` bytes each and reads back through
/// staging; keeping a few of them idle lets the next dispatch of that size reuse them instead of
/// allocating (and, on a discrete GPU, the driver pinning) gigabytes again. So the pool may keep four
/// of the largest buffers the device allows (an add's two inputs and output, plus staging), but never
/// more than an eighth of the host's memory: on a CPU device (lavapipe) and for the host-visible
/// staging buffers of a discrete one, idle pool bytes are host memory other programs cannot use.
/// wgpu reports no device memory size, so `max_buffer_size` is the device's side of the bound.
pub(crate) fn pool_limit(limits: &wgpu::Limits, host_bytes: Option<u64>) -> u64 {
    let device = limits.max_buffer_size.saturating_mul(4);
    let host = host_bytes.unwrap_or(ASSUMED_HOST_BYTES) / 8;
    device.min(host).max(FLOOR_BYTES.min(host))
}

/// The host's total memory in bytes: `MemTotal` of `/proc/meminfo`, or `None` where it cannot be read.
pub(crate) fn host_memory_bytes() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    parse_mem_total(&text)
}

/// `MemTotal: <n> kB` of a `/proc/meminfo` text, in bytes.
fn parse_mem_total(text: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
    let mut words = line.split_whitespace().skip(1);
    let value: u64 = words.next()?.parse().ok()?;
    let unit = match words.next() {
        Some("kB") => 1024,
        None => 1,
        Some(_) => return None,
    };
    value.checked_mul(unit)
}

pub(crate) struct BufferPool {
    free: HashMap<(u64, u32), Vec<wgpu::Buffer>>,
    held: u64,
    /// How many buffers `free` holds.
    buffers: u64,
    /// Idle bytes kept at most; buffers returned beyond it are freed.
    limit: u64,
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
    /// An empty pool that keeps at most `limit` idle bytes.
    pub(crate) fn new(limit: u64) -> Self {
        Self {
            free: HashMap::new(),
            held: 0,
            buffers: 0,
            limit,
            generation: 0,
        }
    }

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
        self.buffers = self.buffers.saturating_sub(1);
        Some(buffer)
    }

    /// Returns a buffer made on device `generation` for reuse, or frees it when the pool is full or
    /// the buffer belongs to another device.
    pub(crate) fn give(&mut self, buffer: wgpu::Buffer, generation: u64) {
        let class = buffer.size();
        if generation != self.generation
            || self.held.saturating_add(class) > self.limit
            || !class.is_power_of_two()
        {
            return;
        }
        self.held += class;
        self.buffers += 1;
        self.free
            .entry((class, buffer.usage().bits()))
            .or_default()
            .push(buffer);
    }

    pub(crate) fn held_bytes(&self) -> u64 {
        self.held
    }

    pub(crate) fn held_buffers(&self) -> u64 {
        self.buffers
    }

    pub(crate) fn limit_bytes(&self) -> u64 {
        self.limit
    }

    /// Drops every idle buffer and from now on holds buffers of device `generation` only, at most
    /// `limit` bytes of them (the replacement device's bound).
    pub(crate) fn reset(&mut self, generation: u64, limit: u64) {
        self.free.clear();
        self.held = 0;
        self.buffers = 0;
        self.generation = generation;
        self.limit = limit;
    }
}

#[cfg(test)]
mod tests {
    use super::{parse_mem_total, pool_limit, size_class};

    fn limits(max_buffer_size: u64) -> wgpu::Limits {
        wgpu::Limits {
            max_buffer_size,
            ..wgpu::Limits::default()
        }
    }

    #[test]
    fn the_pool_keeps_four_largest_buffers_but_at_most_an_eighth_of_the_host() {
        let gib = 1u64 << 30;
        // An H200-like device on a 128 GiB host: four 4 GiB buffers.
        assert_eq!(pool_limit(&limits(4 * gib), Some(128 * gib)), 16 * gib);
        // The same device on a 24 GiB host: an eighth of the host.
        assert_eq!(pool_limit(&limits(4 * gib), Some(24 * gib)), 3 * gib);
        // A device of small buffers keeps the old 256 MiB floor.
        assert_eq!(pool_limit(&limits(32 << 20), Some(24 * gib)), 256 << 20);
        // A tiny host never gives the pool more than its eighth, floor or not.
        assert_eq!(pool_limit(&limits(4 * gib), Some(gib)), gib / 8);
        // Unknown host memory: 8 GiB assumed.
        assert_eq!(pool_limit(&limits(4 * gib), None), gib);
        assert_eq!(pool_limit(&limits(u64::MAX), Some(u64::MAX)), u64::MAX / 8);
    }

    #[test]
    fn mem_total_is_read_in_bytes_and_odd_text_is_none() {
        let text = "MemTotal:       24576000 kB\nMemFree:         1000 kB\n";
        assert_eq!(parse_mem_total(text), Some(24_576_000 * 1024));
        assert_eq!(parse_mem_total("MemFree: 1 kB\n"), None);
        assert_eq!(parse_mem_total("MemTotal: lots kB\n"), None);
        assert_eq!(parse_mem_total("MemTotal: 1 MB\n"), None);
        assert_eq!(parse_mem_total("MemTotal: 18446744073709551615 kB"), None);
    }

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
