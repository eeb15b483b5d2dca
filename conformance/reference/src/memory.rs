//! The buffers of one dispatch: bound buffers as shared atomic words, and the rules for indexing them.
//!
//! Bound buffers are `AtomicU32` words so workgroups running on several threads share them soundly
//! without `unsafe`: plain loads and stores are `Relaxed` (the program's own data races are its
//! business, `SEMANTICS.md` section 1), atomics are `SeqCst` (section 8).

use std::sync::atomic::{AtomicU32, Ordering};

use vyre_driver::{BackendError, DispatchPlan};
use vyre_foundation::ir::{BufferAccess, BufferDecl, Program};

use crate::inst::AtomicKind;

/// The bound buffers of one dispatch, in declaration order (workgroup buffers excluded).
#[derive(Debug)]
pub(crate) struct Memory {
    pub(crate) storage: Vec<Vec<AtomicU32>>,
}

/// An empty vector with room for `count` words; the count is checked against the address space.
fn allocate(count: u64, name: &str) -> Result<(Vec<AtomicU32>, usize), BackendError> {
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
                words.extend(
                    bytes
                        .chunks_exact(4)
                        .map(|c| AtomicU32::new(u32::from_le_bytes([c[0], c[1], c[2], c[3]]))),
                );
            }
            words.resize_with(count, || AtomicU32::new(0));
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
fn readback(decl: &BufferDecl, words: &[AtomicU32]) -> Vec<u8> {
    let Some(len) = words.len().checked_mul(4) else {
        return Vec::new();
    };
    let range = decl.readback_range(len);
    // Only the words the range touches are converted.
    let first = range.start / 4;
    let last = range.end.div_ceil(4).min(words.len());
    let mut bytes = Vec::with_capacity(last.saturating_sub(first).saturating_mul(4));
    for word in words.get(first..last).unwrap_or_default() {
        bytes.extend_from_slice(&word.load(Ordering::Relaxed).to_le_bytes());
    }
    // `first * 4 <= range.start`, so the subtraction cannot wrap.
    let skip = range.start - first * 4;
    let take = range.end.saturating_sub(range.start);
    skip.checked_add(take)
        .and_then(|end| bytes.get(skip..end))
        .map(<[u8]>::to_vec)
        .unwrap_or_default()
}

/// The element a lane's index word designates, or `None` when it is out of bounds (`SEMANTICS.md`
/// section 3): a negative `i32` index or one at or past the element count.
#[inline(always)]
pub(crate) fn element(index: u32, signed: bool, len: usize) -> Option<usize> {
    if signed && (index as i32) < 0 {
        return None;
    }
    let i = index as usize;
    (i < len).then_some(i)
}

/// The new value an atomic operation writes, given the old one. `None` when nothing is written.
#[inline(always)]
pub(crate) fn atomic_update(op: AtomicKind, old: u32, expected: u32, value: u32) -> Option<u32> {
    Some(match op {
        AtomicKind::Add => old.wrapping_add(value),
        AtomicKind::Sub => old.wrapping_sub(value),
        AtomicKind::MinU => old.min(value),
        AtomicKind::MaxU => old.max(value),
        AtomicKind::MinS => (old as i32).min(value as i32) as u32,
        AtomicKind::MaxS => (old as i32).max(value as i32) as u32,
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

/// One indivisible read-modify-write of a shared word; yields the old value.
pub(crate) fn atomic_rmw(word: &AtomicU32, op: AtomicKind, expected: u32, value: u32) -> u32 {
    let sc = Ordering::SeqCst;
    match op {
        AtomicKind::Add => word.fetch_add(value, sc),
        AtomicKind::Sub => word.fetch_sub(value, sc),
        AtomicKind::MinU => word.fetch_min(value, sc),
        AtomicKind::MaxU => word.fetch_max(value, sc),
        AtomicKind::And => word.fetch_and(value, sc),
        AtomicKind::Or => word.fetch_or(value, sc),
        AtomicKind::Xor => word.fetch_xor(value, sc),
        AtomicKind::Exchange => word.swap(value, sc),
        AtomicKind::CompareExchange => match word.compare_exchange(expected, value, sc, sc) {
            Ok(old) | Err(old) => old,
        },
        AtomicKind::MinS | AtomicKind::MaxS => {
            match word.fetch_update(sc, sc, |old| atomic_update(op, old, expected, value)) {
                Ok(old) | Err(old) => old,
            }
        }
    }
}
