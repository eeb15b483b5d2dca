//! What one launch binds, built the same way for plain, coalesced and packed launches: the caller
//! says how many elements each program buffer holds over the launch and how it starts, and
//! [`job_buffers`] turns that into device sizes and readback ranges.

use std::borrow::Cow;
use std::ops::Range;
use std::time::Duration;

use vyre_driver::BackendError;
use vyre_foundation::ir::{BufferAccess, BufferDecl};

use crate::lower::{BindingKind, LoweredBinding};
use crate::pipeline::{Compiled, Entry};

/// How a bound buffer starts.
pub(crate) enum Init<'a> {
    /// These bytes, then zeros up to the buffer's size.
    Bytes(Cow<'a, [u8]>),
    /// All zeros (outputs).
    Zero,
    /// Whatever the buffer held: the program overwrites every byte the launch can read back before
    /// anything reads it (see `lower::coverage`), so neither a clear nor an upload is needed.
    Overwritten,
}

/// One bound buffer of a launch, in the pipeline's binding order.
pub(crate) struct JobBuffer<'a> {
    /// The bytes the shader may touch (a multiple of 4, at least 4).
    pub(crate) bytes: u64,
    pub(crate) init: Init<'a>,
    /// The byte range to read back, if any.
    pub(crate) readback: Option<Range<u64>>,
}

/// One launch: its buffers, and the dispatches that run over them (one, or the pieces of a split
/// elementwise dispatch), recorded in one encoder and one submit.
pub(crate) struct Job<'a> {
    pub(crate) buffers: Vec<JobBuffer<'a>>,
    pub(crate) pieces: Vec<Piece>,
    pub(crate) items: Option<Vec<u32>>,
    pub(crate) timeout: Option<Duration>,
}

/// One dispatch of a launch: its `params` words, its physical grid, the byte range of each bound
/// buffer it binds, in binding order (`None`: every buffer whole, from byte 0), and the entry point
/// it runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Piece {
    pub(crate) params: Vec<u32>,
    pub(crate) physical_grid: [u32; 3],
    pub(crate) ranges: Option<Vec<Range<u64>>>,
    pub(crate) entry: Entry,
}

impl Piece {
    /// The one dispatch of an unsplit launch.
    pub(crate) fn whole(params: Vec<u32>, physical_grid: [u32; 3]) -> Self {
        Self {
            params,
            physical_grid,
            ranges: None,
            entry: Entry::Main,
        }
    }

    /// The bytes of binding `i` (of `bytes` in all) this piece binds.
    pub(crate) fn range(&self, i: usize, bytes: u64) -> Range<u64> {
        self.ranges
            .as_ref()
            .and_then(|r| r.get(i).cloned())
            .unwrap_or(0..bytes)
    }
}

/// One bound program buffer as its launch sees it.
pub(crate) struct BufferSpec<'a> {
    /// Its elements over the whole launch (every item's slice together).
    pub(crate) elements: u64,
    pub(crate) init: Init<'a>,
}

/// Which bytes of the output buffers come back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Readback {
    /// Each output's declared byte range (a plain dispatch).
    Declared,
    /// Every byte: a launch of many items cuts each item's range from its own slice afterwards.
    Whole,
}

/// The bound buffers of a launch of `compiled`, in binding order, from `spec` of each binding.
pub(crate) fn job_buffers<'a>(
    compiled: &Compiled,
    readback: Readback,
    mut spec: impl FnMut(&LoweredBinding) -> Result<BufferSpec<'a>, BackendError>,
) -> Result<Vec<JobBuffer<'a>>, BackendError> {
    let mut buffers = Vec::with_capacity(compiled.bindings.len());
    for b in &compiled.bindings {
        let decl = &compiled.program().buffers[b.buffer_index];
        let BufferSpec { elements, init } = spec(b)?;
        let bytes = binding_bytes(b, elements)
            .ok_or_else(|| size_overflow(&format!("the size of buffer `{}`", decl.name)))?;
        let readback = match (decl.access, readback) {
            (BufferAccess::Output, Readback::Declared) => Some(readback_bytes(decl, elements)?),
            (BufferAccess::Output, Readback::Whole) => {
                let end = elements.checked_mul(b.element_bytes).ok_or_else(|| {
                    size_overflow(&format!("the concatenated size of `{}`", decl.name))
                })?;
                Some(0..end)
            }
            // Only outputs are read back.
            (
                BufferAccess::Read
                | BufferAccess::ReadWrite
                | BufferAccess::Uniform
                | BufferAccess::Workgroup,
                _,
            ) => None,
        };
        buffers.push(JobBuffer {
            bytes,
            init,
            readback,
        });
    }
    Ok(buffers)
}

/// The bytes a bound buffer occupies on the device for `count` elements, or `None` when that does
/// not fit a `u64` (a concatenation of many items' slices can get there).
///
/// `element_bytes` is 2, 4 or 8; a storage buffer spans whole 4-byte words (wgpu copies and binds
/// in multiples of 4), so an odd count of `f16` elements gets two bytes of padding.
pub(crate) fn device_bytes(kind: BindingKind, element_bytes: u64, count: u64) -> Option<u64> {
    match kind {
        BindingKind::Uniform => count.div_ceil(4).checked_mul(16),
        _ => count
            .max(1)
            .checked_mul(element_bytes)?
            .checked_next_multiple_of(4),
    }
}

/// The bytes binding `b` spans for `count` elements: [`device_bytes`], in whole 16-byte rows for a
/// vectorised module's `vec4` arrays. `None` past `u64`.
pub(crate) fn binding_bytes(b: &LoweredBinding, count: u64) -> Option<u64> {
    let bytes = device_bytes(b.kind, b.element_bytes, count)?;
    if b.rows {
        bytes.checked_next_multiple_of(16)
    } else {
        Some(bytes)
    }
}

/// The error for a size that does not fit the integer it must be held in.
pub(crate) fn size_overflow(what: &str) -> BackendError {
    BackendError::limit_exceeded(format!(
        "{what} does not fit the integer type vyre holds it in. Fix: split the work over several dispatches or use smaller buffers."
    ))
}

/// The byte range of an output of `count` elements that is read back: its output byte range, or the
/// whole buffer.
fn readback_bytes(decl: &BufferDecl, count: u64) -> Result<Range<u64>, BackendError> {
    let overflow = || size_overflow(&format!("the byte size of output `{}`", decl.name));
    let bytes = count
        .checked_mul(decl.element.size_bytes() as u64)
        .and_then(|b| usize::try_from(b).ok())
        .ok_or_else(overflow)?;
    let range = decl.readback_range(bytes);
    match (u64::try_from(range.start), u64::try_from(range.end)) {
        (Ok(start), Ok(end)) => Ok(start..end),
        _ => Err(overflow()),
    }
}

#[cfg(test)]
mod tests {
    use vyre_foundation::ir::{BufferDecl, DataType};

    use super::{device_bytes, readback_bytes};
    use crate::lower::BindingKind;

    #[test]
    fn device_bytes_are_none_past_u64_not_wrapped() {
        let storage = BindingKind::StorageReadWrite;
        assert_eq!(
            device_bytes(storage, 4, u64::from(u32::MAX)),
            Some((1 << 34) - 4)
        );
        assert_eq!(device_bytes(storage, 4, (1 << 62) - 1), Some(u64::MAX - 3));
        assert_eq!(device_bytes(storage, 4, 1 << 62), None);
        // f16 elements pad to whole words; 64-bit ones take 8 bytes each.
        assert_eq!(device_bytes(storage, 2, 3), Some(8));
        assert_eq!(device_bytes(storage, 2, 4), Some(8));
        assert_eq!(device_bytes(storage, 8, 3), Some(24));
        assert_eq!(device_bytes(storage, 8, 1 << 61), None);
        let rows = u64::MAX / 16;
        assert_eq!(
            device_bytes(BindingKind::Uniform, 4, rows * 4),
            Some(u64::MAX - 15)
        );
        assert_eq!(device_bytes(BindingKind::Uniform, 4, rows * 4 + 1), None);
        assert_eq!(device_bytes(BindingKind::Uniform, 4, u64::MAX), None);
    }

    #[test]
    fn readback_ranges_past_u32_bytes_are_exact_and_past_u64_are_errors() {
        let out = BufferDecl::output("out", 0, DataType::U32).with_count(u32::MAX);
        assert_eq!(
            readback_bytes(&out, u64::from(u32::MAX)).ok(),
            Some(0..(1 << 34) - 4)
        );
        assert_eq!(readback_bytes(&out, 1 << 40).ok(), Some(0..1 << 42));
        assert!(readback_bytes(&out, u64::MAX).is_err());
    }
}
