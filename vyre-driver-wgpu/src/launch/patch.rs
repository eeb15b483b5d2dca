//! Edits of part of a 4-byte word, on the queue's timeline.
//!
//! wgpu writes, copies and clears only whole words. A write that starts or ends inside a word, and
//! the clear of an `f16` output whose declared elements end inside one, patch that word instead: a
//! one-invocation compute pass sets `word = (word & keep) | value`. Being a pass in a submission, a
//! patch is ordered with every other submission that touches the buffer. Reading the word back to
//! the host and writing it again was not: two threads writing different bytes of one word could
//! each undo the other's bytes, and so could a dispatch storing into the word between the read and
//! the write.

use vyre_driver::BackendError;

use crate::device::DeviceState;

/// One word's edit: bytes outside `keep` take `value`'s bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Patch {
    /// The word's byte offset in the buffer (a multiple of 4).
    pub(crate) at: u64,
    /// The bits that keep their value.
    pub(crate) keep: u32,
    /// The new bits (zero wherever `keep` is set).
    pub(crate) value: u32,
}

impl Patch {
    /// The patch writing `data` into the word at byte `at` (a multiple of 4), from byte `from` of
    /// the word on; `from + data.len()` is at most 4.
    pub(crate) fn bytes(at: u64, from: usize, data: &[u8]) -> Self {
        debug_assert!(at.is_multiple_of(4) && from + data.len() <= 4);
        let mut word = [0u8; 4];
        let mut mask = [0u8; 4];
        word[from..from + data.len()].copy_from_slice(data);
        mask[from..from + data.len()].fill(0xff);
        Patch {
            at,
            keep: !u32::from_le_bytes(mask),
            value: u32::from_le_bytes(word),
        }
    }

    /// The patches writing `data` at byte `offset`, for the parts of words it covers at its ends;
    /// and the word-aligned range of `data` between them, written whole. `offset` need not be
    /// aligned.
    pub(crate) fn split(offset: u64, data: &[u8]) -> (Vec<Patch>, u64, &[u8]) {
        let mut patches = Vec::new();
        let mut at = offset;
        let mut rest = data;
        let into = (at % 4) as usize;
        if into != 0 && !rest.is_empty() {
            let n = rest.len().min(4 - into);
            patches.push(Patch::bytes(at - into as u64, into, &rest[..n]));
            at += n as u64;
            rest = &rest[n..];
        }
        let whole = rest.len() / 4 * 4;
        let (middle, tail) = rest.split_at(whole);
        if !tail.is_empty() {
            patches.push(Patch::bytes(at + whole as u64, 0, tail));
        }
        (patches, at, middle)
    }
}

/// Records `patches` of `buffer` into `encoder`, one pass each, in order. Each binds only a small
/// window around its word, so the buffer may be larger than a binding may be.
pub(crate) fn encode(
    state: &DeviceState,
    encoder: &mut wgpu::CommandEncoder,
    buffer: &wgpu::Buffer,
    patches: &[Patch],
) -> Result<(), BackendError> {
    if patches.is_empty() {
        return Ok(());
    }
    let patcher = state.patcher()?;
    let align = u64::from(state.limits.min_storage_buffer_offset_alignment).max(4);
    for patch in patches {
        let window = patch.at / align * align;
        let index = u32::try_from((patch.at - window) / 4).unwrap_or(0);
        // Filled through a mapping whose failure (a lost device) is an error: wgpu's
        // `create_buffer_init` unwraps it and panics.
        let edit = state.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("vyre patch edit"),
            size: 16,
            usage: wgpu::BufferUsages::STORAGE,
            mapped_at_creation: true,
        });
        edit.get_mapped_range_mut(..)
            .map_err(|e| state.lost_error(&format!("mapping vyre's patch buffer failed: {e}")))?
            .copy_from_slice(bytemuck::cast_slice(&[index, patch.keep, patch.value, 0]));
        edit.unmap();
        let group = state.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("vyre patch"),
            layout: &patcher.layout,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                        buffer,
                        offset: window,
                        size: std::num::NonZeroU64::new(patch.at + 4 - window),
                    }),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: edit.as_entire_binding(),
                },
            ],
        });
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("vyre patch"),
            timestamp_writes: None,
        });
        pass.set_pipeline(&patcher.pipeline);
        pass.set_bind_group(0, &group, &[]);
        pass.dispatch_workgroups(1, 1, 1);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::Patch;

    #[test]
    fn a_patch_keeps_the_bytes_it_does_not_write() {
        let p = Patch::bytes(8, 1, &[0xaa, 0xbb]);
        assert_eq!((p.at, p.keep, p.value), (8, 0xff00_00ff, 0x00bb_aa00));
        let old = 0x1122_3344u32;
        assert_eq!((old & p.keep) | p.value, 0x11bb_aa44);
    }

    #[test]
    fn a_split_covers_every_byte_once() {
        for offset in 0..9u64 {
            for len in 0..14usize {
                let data: Vec<u8> = (1..=len as u8).collect();
                let (patches, at, middle) = Patch::split(offset, &data);
                let mut memory = vec![0u8; 32];
                memory[at as usize..at as usize + middle.len()].copy_from_slice(middle);
                assert!(at.is_multiple_of(4) || middle.is_empty());
                assert!(middle.len().is_multiple_of(4));
                for p in &patches {
                    assert!(p.at.is_multiple_of(4));
                    let word = &mut memory[p.at as usize..p.at as usize + 4];
                    let old = u32::from_le_bytes(word.try_into().unwrap());
                    assert_eq!(old & !p.keep, 0, "patches never overlap the middle");
                    word.copy_from_slice(&((old & p.keep) | p.value).to_le_bytes());
                }
                let mut expected = vec![0u8; 32];
                expected[offset as usize..offset as usize + len].copy_from_slice(&data);
                assert_eq!(memory, expected, "offset {offset}, {len} bytes");
            }
        }
    }
}
