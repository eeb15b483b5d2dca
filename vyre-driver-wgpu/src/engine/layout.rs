//! Where every item of a coalesced launch lives in the concatenated bindings: the `items` table the
//! shader reads, the gathering of inputs into it, and the split of the whole outputs back into items.

use std::ops::Range;

use vyre_driver::BackendError;
use vyre_foundation::ir::{BufferAccess, Program};

use super::batch::Batch;
use super::plan::{MAX_BINDING_ELEMENTS, Plans};
use crate::launch::size_overflow;
use crate::lower::ITEM_ROW_WORDS;
use crate::pipeline::Compiled;

/// Where every item of a launch lives in the concatenated bindings.
#[derive(Debug)]
pub(super) struct ItemLayout {
    /// Program buffers per item.
    pub(super) nb: usize,
    /// Element offset of the launch's item `k`'s slice of program buffer `j`, at `k * nb + j`.
    pub(super) offsets: Vec<u64>,
    /// Element count of that slice, at the same place.
    pub(super) counts: Vec<u64>,
    /// Elements of each program buffer over the whole launch (0 for workgroup buffers).
    pub(super) totals: Vec<u64>,
    /// The `items` table the shader reads: `(offset, count)` per item and buffer.
    pub(super) table: Vec<u32>,
}

impl ItemLayout {
    /// The layout of `plans[range]` laid end to end. Every offset and count must be a u32 word of
    /// the table, and every element of a slice must have a u32 slot (`offset + index`) in the shader.
    pub(super) fn new(
        program: &Program,
        plans: &Plans,
        range: Range<usize>,
    ) -> Result<Self, BackendError> {
        let nb = program.buffers.len();
        let cells = range
            .len()
            .checked_mul(nb)
            .ok_or_else(|| size_overflow("the items table of a launch"))?;
        let mut layout = Self {
            nb,
            offsets: Vec::with_capacity(cells),
            counts: Vec::with_capacity(cells),
            totals: vec![0u64; nb],
            table: Vec::with_capacity(cells.saturating_mul(ITEM_ROW_WORDS as usize)),
        };
        for k in range {
            let plan = plans.get(k);
            for (j, decl) in program.buffers.iter().enumerate() {
                let count = plan.buffers[j].element_count;
                // Workgroup memory is the item's own in every workgroup: no slice, no offset.
                let offset = if decl.access == BufferAccess::Workgroup {
                    0
                } else {
                    layout.totals[j]
                };
                let end = offset
                    .checked_add(count)
                    .filter(|&e| e <= MAX_BINDING_ELEMENTS);
                let words = end.and(u32::try_from(offset).ok().zip(u32::try_from(count).ok()));
                let (Some(end), Some((offset_word, count_word))) = (end, words) else {
                    return Err(BackendError::limit_exceeded(format!(
                        "work item {k}'s slice of `{}` ({count} elements from element {offset}) lies past the 2^32 elements a launch's u32 indices reach. Fix: split the items over several dispatches.",
                        decl.name
                    )));
                };
                if decl.access != BufferAccess::Workgroup {
                    layout.totals[j] = end;
                }
                layout.offsets.push(offset);
                layout.counts.push(count);
                layout.table.extend([offset_word, count_word]);
            }
        }
        Ok(layout)
    }

    /// The byte offset and element count of the launch's item `k`'s slice of buffer `j`.
    pub(super) fn slice(&self, k: usize, j: usize) -> (usize, usize) {
        let at = k * self.nb + j;
        // Both were checked to lie within 2^32 elements, so these fit a 64-bit usize.
        let base = self.offsets[at].saturating_mul(4);
        let as_usize = |v: u64| usize::try_from(v).unwrap_or(usize::MAX);
        (as_usize(base), as_usize(self.counts[at]))
    }

    /// The concatenated input bytes of buffer `j` (`bytes` long) for the launch's items `range`.
    pub(super) fn gather(
        &self,
        plans: &Plans,
        range: Range<usize>,
        j: usize,
        bytes: u64,
        items: &dyn Batch,
    ) -> Result<Vec<u8>, BackendError> {
        let len = usize::try_from(bytes).map_err(|_| size_overflow("a launch's input buffer"))?;
        let mut data = vec![0u8; len];
        for (k, item) in range.enumerate() {
            let Some(i) = plans.get(item).buffers[j].input else {
                continue;
            };
            let input = items.input(item, i);
            let (at, _) = self.slice(k, j);
            let target = at
                .checked_add(input.len())
                .and_then(|end| data.get_mut(at..end))
                .ok_or_else(|| {
                    BackendError::new(format!(
                        "work item {item}'s input {i} does not fit its planned slice. Fix: report this vyre bug with the program text."
                    ))
                })?;
            target.copy_from_slice(input);
        }
        Ok(data)
    }
}

/// The program buffers read back from a launch of `compiled`, in the order of its readbacks (binding
/// order): the output buffers.
pub(super) fn output_buffers<'a>(
    program: &'a Program,
    compiled: &'a Compiled,
) -> impl Iterator<Item = usize> + 'a {
    compiled
        .bindings
        .iter()
        .map(|b| b.buffer_index)
        .filter(|&j| program.buffers[j].access == BufferAccess::Output)
}

/// Delivers every item of the launch's `range` its slices of the whole outputs, trimmed to its
/// readback ranges; `slice(k, j)` is the byte offset and element count of the launch's `k`-th item's
/// slice of buffer `j`.
pub(super) fn split_outputs(
    program: &Program,
    compiled: &Compiled,
    whole: &[Vec<u8>],
    range: Range<usize>,
    slice: impl Fn(usize, usize) -> (usize, usize),
    items: &mut dyn Batch,
) {
    let outputs: Vec<usize> = output_buffers(program, compiled).collect();
    let mut slices: Vec<&[u8]> = Vec::with_capacity(outputs.len());
    for (k, item) in range.enumerate() {
        slices.clear();
        for (whole, &j) in whole.iter().zip(&outputs) {
            let (base, count) = slice(k, j);
            // The slice lies inside the launch's checked buffer, so none of this wraps for a real
            // item; checked so that a wrapped offset could never deliver another item's bytes.
            let bytes = count.checked_mul(4).and_then(|len| {
                let range = program.buffers[j].readback_range(len);
                whole.get(base.checked_add(range.start)?..base.checked_add(range.end)?)
            });
            slices.push(bytes.unwrap_or(&[]));
        }
        items.deliver(item, &slices);
    }
}
