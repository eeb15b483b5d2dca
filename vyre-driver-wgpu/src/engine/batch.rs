//! The items of a coalesced run, however the caller holds them: the [`Batch`] trait, the packed
//! form's strided outputs, and the view of a run's undelivered rest that lets a retried run resume
//! after the last delivered item.

use std::ops::Range;

/// A run's items, however the caller holds them: their inputs, and where their outputs go.
pub(crate) trait Batch {
    /// How many items.
    fn count(&self) -> usize;
    /// How many input vectors item `k` has.
    fn inputs(&self, k: usize) -> usize;
    /// Input vector `i` of item `k`.
    fn input(&self, k: usize, i: usize) -> &[u8];
    /// Receives item `k`'s output slices, one per output buffer. Items are delivered in order, each
    /// exactly once, and an item's inputs are never read after its delivery: a run retried after a
    /// device loss resumes after the last delivered item.
    fn deliver(&mut self, k: usize, outputs: &[&[u8]]);

    /// True when every item of `range` has exactly the input byte lengths `lens`.
    fn all_lengths(&self, range: Range<usize>, lens: &[usize]) -> bool {
        range.into_iter().all(|k| {
            self.inputs(k) == lens.len()
                && lens
                    .iter()
                    .enumerate()
                    .all(|(i, &len)| self.input(k, i).len() == len)
        })
    }

    /// Appends input `i` of every item in `range` to `out`, each zero-padded (or cut) to `stride`
    /// bytes: the packed form's upload of one binding.
    fn gather(&self, range: Range<usize>, i: usize, stride: usize, out: &mut Vec<u8>) {
        for k in range {
            let start = out.len();
            out.extend_from_slice(self.input(k, i));
            // The caller checked that `range.len() * stride` bytes fit a usize, so this cannot wrap.
            out.resize(start.saturating_add(stride), 0);
        }
    }

    /// Delivers the items of `range`, in order, whose outputs lie end to end: item `range.start + k`'s
    /// output `o` is `outputs[o].item(k)`.
    fn deliver_strided(&mut self, range: Range<usize>, outputs: &[Strided<'_>]) {
        let mut slices: Vec<&[u8]> = Vec::with_capacity(outputs.len());
        for (k, item) in range.enumerate() {
            slices.clear();
            slices.extend(outputs.iter().map(|o| o.item(k)));
            self.deliver(item, &slices);
        }
    }
}

/// One output buffer of a packed launch: every item's slice of `stride` bytes, end to end, of which
/// `readback` is read back.
pub(crate) struct Strided<'a> {
    pub(crate) bytes: &'a [u8],
    pub(crate) stride: usize,
    pub(crate) readback: Range<usize>,
}

impl Strided<'_> {
    /// The launch's `k`-th item's readback bytes (empty where the readback range leaves the slice).
    pub(crate) fn item(&self, k: usize) -> &[u8] {
        // The launch's whole size was checked, so these cannot wrap for a real item; checked all the
        // same so that a wrapped offset can never alias another item's bytes.
        let range = k.checked_mul(self.stride).and_then(|base| {
            Some(base.checked_add(self.readback.start)?..base.checked_add(self.readback.end)?)
        });
        range.and_then(|r| self.bytes.get(r)).unwrap_or(&[])
    }
}

/// Items as [`crate::WgpuPipeline::dispatch_coalesced`] takes them (one input set each), and the output sets
/// it returns.
pub(super) struct ItemSets<'a> {
    pub(super) items: &'a [Vec<Vec<u8>>],
    pub(super) outputs: Vec<Vec<Vec<u8>>>,
}

impl Batch for ItemSets<'_> {
    fn count(&self) -> usize {
        self.items.len()
    }
    fn inputs(&self, k: usize) -> usize {
        self.items[k].len()
    }
    fn input(&self, k: usize, i: usize) -> &[u8] {
        &self.items[k][i]
    }
    fn deliver(&mut self, _: usize, outputs: &[&[u8]]) {
        self.outputs
            .push(outputs.iter().map(|s| s.to_vec()).collect());
    }
}

/// How far a run has come, across a retry: items delivered and real launches made.
#[derive(Default)]
pub(super) struct Progress {
    pub(super) delivered: usize,
    pub(super) launches: u32,
}

/// The items of `batch` not yet delivered, renumbered from 0; records each delivery in `progress`.
pub(super) struct Rest<'a, 'b> {
    pub(super) batch: &'a mut dyn Batch,
    pub(super) start: usize,
    pub(super) progress: &'b mut Progress,
}

impl Rest<'_, '_> {
    /// `range` of the rest, as indices of the whole batch.
    pub(super) fn whole(&self, range: Range<usize>) -> Range<usize> {
        self.start + range.start..self.start + range.end
    }
}

impl Batch for Rest<'_, '_> {
    fn count(&self) -> usize {
        self.batch.count() - self.start
    }
    fn inputs(&self, k: usize) -> usize {
        self.batch.inputs(self.start + k)
    }
    fn input(&self, k: usize, i: usize) -> &[u8] {
        self.batch.input(self.start + k, i)
    }
    fn deliver(&mut self, k: usize, outputs: &[&[u8]]) {
        self.batch.deliver(self.start + k, outputs);
        self.progress.delivered = self.start + k + 1;
    }
    fn all_lengths(&self, range: Range<usize>, lens: &[usize]) -> bool {
        self.batch.all_lengths(self.whole(range), lens)
    }
    fn gather(&self, range: Range<usize>, i: usize, stride: usize, out: &mut Vec<u8>) {
        self.batch.gather(self.whole(range), i, stride, out);
    }
    fn deliver_strided(&mut self, range: Range<usize>, outputs: &[Strided<'_>]) {
        let range = self.whole(range);
        let end = range.end;
        self.batch.deliver_strided(range, outputs);
        self.progress.delivered = end;
    }
}
