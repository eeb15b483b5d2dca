//! The buffers of one dispatch: bound buffers as shared atomic elements, and the rules for indexing
//! them.
//!
//! Bound buffers are `AtomicU64` cells, one per element whatever its width (the bits of a 16- or
//! 32-bit element zero-extended), so workgroups running on several threads share them soundly
//! without `unsafe`: plain loads and stores are `Relaxed` (the program's own data races are its
//! business, `SEMANTICS.md` section 1), atomics are `SeqCst` (section 8).

use std::sync::atomic::{AtomicU64, Ordering};

use vyre_driver::{BackendError, DispatchPlan};
use vyre_foundation::ir::{BufferAccess, BufferDecl, Program};

use crate::inst::AtomicKind;

/// The bound buffers of one dispatch, in declaration order (workgroup buffers excluded).
#[derive(Debug)]
pub(crate) struct Memory {
    pub(crate) storage: Vec<Vec<AtomicU64>>,
}

/// The elements of `bytes`, `size` bytes each, little-endian, zero-extended to 64 bits.
pub(crate) fn elements(bytes: &[u8], size: usize) -> impl Iterator<Item = u64> + '_ {
    bytes.chunks_exact(size).map(|c| {
        let mut word = [0u8; 8];
        word[..c.len()].copy_from_slice(c);
        u64::from_le_bytes(word)
    })
}

/// Writes `value`'s low `chunk.len()` bytes into `chunk`, little-endian.
pub(crate) fn put_element(chunk: &mut [u8], value: u64) {
    let n = chunk.len();
    chunk.copy_from_slice(&value.to_le_bytes()[..n]);
}

/// An empty vector with room for `count` elements; the count is checked against the address space.
fn allocate(count: u64, name: &str) -> Result<(Vec<AtomicU64>, usize), BackendError> {
    let oom = || {
        BackendError::out_of_memory(format!(
            "the reference backend could not allocate {count} words for buffer `{name}`. Fix: use a smaller buffer or split the work over several dispatches."
        ))
    };
    let n = usize::try_from(count).map_err(|_| oom())?;
    let mut words = Vec::new();
    words.try_reserve_exact(n).map_err(|_| oom())?;
    Ok((words, n))
}

impl Memory {
    /// Builds the bound buffers from the caller's inputs, zero-extended to their element counts.
    pub(crate) fn new(
        program: &Program,
        plan: &DispatchPlan,
        inputs: &[Vec<u8>],
    ) -> Result<Self, BackendError> {
        let mut storage = Vec::new();
        for (decl, resolved) in program.buffers.iter().zip(&plan.buffers) {
            if decl.access == BufferAccess::Workgroup {
                continue;
            }
            let (mut words, count) = allocate(resolved.element_count, &decl.name)?;
            if let Some(bytes) = resolved.input.and_then(|i| inputs.get(i)) {
                words.extend(elements(bytes, decl.element.size_bytes()).map(AtomicU64::new));
            }
            words.resize_with(count, || AtomicU64::new(0));
            storage.push(words);
        }
        Ok(Self { storage })
    }

    /// The bytes of every `output` buffer, trimmed to its output byte range.
    pub(crate) fn outputs(self, program: &Program) -> Vec<Vec<u8>> {
        let bound = program.buffers.iter().filter(|b| b.access.is_bound());
        bound
            .zip(self.storage)
            .filter(|(decl, _)| decl.access == BufferAccess::Output)
            .map(|(decl, words)| readback(decl, &words))
            .collect()
    }
}

/// The bytes of `words` in `decl`'s output byte range. Validation keeps the range inside the
/// buffer; an output the host could not even count in bytes reads back as nothing rather than as a
/// wrapped range.
fn readback(decl: &BufferDecl, words: &[AtomicU64]) -> Vec<u8> {
    let size = decl.element.size_bytes();
    let Some(len) = words.len().checked_mul(size) else {
        return Vec::new();
    };
    let range = decl.readback_range(len);
    // Only the elements the range touches are converted.
    let first = range.start / size;
    let last = range.end.div_ceil(size).min(words.len());
    let mut bytes = Vec::with_capacity(last.saturating_sub(first).saturating_mul(size));
    for word in words.get(first..last).unwrap_or_default() {
        bytes.extend_from_slice(&word.load(Ordering::Relaxed).to_le_bytes()[..size]);
    }
    // `first * size <= range.start`, so the subtraction cannot wrap.
    let skip = range.start - first * size;
    let take = range.end.saturating_sub(range.start);
    skip.checked_add(take)
        .and_then(|end| bytes.get(skip..end))
        .map(<[u8]>::to_vec)
        .unwrap_or_default()
}

/// The element a lane's index designates, or `None` when it is out of bounds (`SEMANTICS.md`
/// section 3): a negative `i32` index or one at or past the element count. Indices are `u32` or
/// `i32` (validation), held zero-extended.
#[inline(always)]
pub(crate) fn element(index: u64, signed: bool, len: usize) -> Option<usize> {
    let index = index as u32;
    if signed && (index as i32) < 0 {
        return None;
    }
    let i = index as usize;
    (i < len).then_some(i)
}

/// The new value an atomic operation writes, given the old one. `None` when nothing is written.
/// Values are zero-extended; the 32-bit operations keep their results in the low 32 bits.
#[inline(always)]
pub(crate) fn atomic_update(op: AtomicKind, old: u64, expected: u64, value: u64) -> Option<u64> {
    let (o, v) = (old as u32, value as u32);
    Some(match op {
        AtomicKind::Add => u64::from(o.wrapping_add(v)),
        AtomicKind::Sub => u64::from(o.wrapping_sub(v)),
        AtomicKind::MinS => u64::from((o as i32).min(v as i32) as u32),
        AtomicKind::MaxS => u64::from((o as i32).max(v as i32) as u32),
        AtomicKind::Add64 => old.wrapping_add(value),
        AtomicKind::Sub64 => old.wrapping_sub(value),
        AtomicKind::MinS64 => (old as i64).min(value as i64) as u64,
        AtomicKind::MaxS64 => (old as i64).max(value as i64) as u64,
        AtomicKind::MinU => old.min(value),
        AtomicKind::MaxU => old.max(value),
        AtomicKind::And => old & value,
        AtomicKind::Or => old | value,
        AtomicKind::Xor => old ^ value,
        AtomicKind::Exchange => value,
        AtomicKind::CompareExchange => {
            if old == expected {
                value
            } else {
                return None;
            }
        }
    })
}

/// One indivisible read-modify-write of a shared element; yields the old value.
pub(crate) fn atomic_rmw(word: &AtomicU64, op: AtomicKind, expected: u64, value: u64) -> u64 {
    let sc = Ordering::SeqCst;
    match op {
        AtomicKind::Add64 => word.fetch_add(value, sc),
        AtomicKind::Sub64 => word.fetch_sub(value, sc),
        AtomicKind::MinU => word.fetch_min(value, sc),
        AtomicKind::MaxU => word.fetch_max(value, sc),
        AtomicKind::And => word.fetch_and(value, sc),
        AtomicKind::Or => word.fetch_or(value, sc),
        AtomicKind::Xor => word.fetch_xor(value, sc),
        AtomicKind::Exchange => word.swap(value, sc),
        AtomicKind::CompareExchange => match word.compare_exchange(expected, value, sc, sc) {
            Ok(old) | Err(old) => old,
        },
        // These must stay within 32 bits or compare with a sign: one update function for all.
        AtomicKind::Add
        | AtomicKind::Sub
        | AtomicKind::MinS
        | AtomicKind::MaxS
        | AtomicKind::MinS64
        | AtomicKind::MaxS64 => {
            match word.fetch_update(sc, sc, |old| atomic_update(op, old, expected, value)) {
                Ok(old) | Err(old) => old,
            }
        }
    }
}
