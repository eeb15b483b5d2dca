//! `Coalescer`: which consecutive input batches a `VyreExec` runs as one dispatch.
//!
//! A GPU dispatch costs a fixed time (a submit, a fence, a readback) that a batch of a few
//! thousand rows does not pay back; DataFusion produces such batches after a selective filter, at
//! the end of each partition, or from small sources. So batches shorter than the target are
//! gathered, in order, while their rows together stay within it, and run as one; a batch at least
//! as long as the target runs alone, after the gathered ones. The results are cut back at the
//! batches' boundaries (`Chain::evaluate`), so the node's output is batch for batch, row for row,
//! what running each batch alone gives: only the number of dispatches changes.
//!
//! Why not `VyreBackend::dispatch_batch`, which coalesces many small work items into one
//! launch: it takes every item's inputs as host byte vectors and returns each item's outputs, one
//! program at a time, while a chain is a `dispatch_sequence` of several calls over resident
//! buffers. Concatenating rows keeps the sequence, and an elementwise function cannot tell a
//! row's position in the dispatch apart (`kernel.rs`).

use datafusion::arrow::array::RecordBatch;

/// Gathers batches into the groups that run as one dispatch each (see the module docs).
#[derive(Debug)]
pub(crate) struct Coalescer {
    /// The most rows a group of several batches holds; `0` makes every batch its own group.
    target: usize,
    pending: Vec<RecordBatch>,
    rows: usize,
}

impl Coalescer {
    /// Groups of at most `target` rows (`0`: no coalescing).
    pub(crate) fn new(target: usize) -> Self {
        Self {
            target,
            pending: Vec::new(),
            rows: 0,
        }
    }

    /// Takes the next input batch; returns the groups now ready to run, in order.
    pub(crate) fn push(&mut self, batch: RecordBatch) -> Vec<Vec<RecordBatch>> {
        let rows = batch.num_rows();
        let mut ready = Vec::new();
        if rows >= self.target {
            ready.extend(self.flush());
            ready.push(vec![batch]);
            return ready;
        }
        if self.rows + rows > self.target {
            ready.extend(self.flush());
        }
        self.rows += rows;
        self.pending.push(batch);
        if self.rows == self.target {
            ready.extend(self.flush());
        }
        ready
    }

    /// The gathered batches, as the last group (at the end of the input).
    pub(crate) fn flush(&mut self) -> Option<Vec<RecordBatch>> {
        self.rows = 0;
        (!self.pending.is_empty()).then(|| std::mem::take(&mut self.pending))
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use datafusion::arrow::array::{Array, UInt32Array};
    use datafusion::arrow::datatypes::{DataType, Field, Schema};

    use super::*;

    fn batch(rows: u32) -> RecordBatch {
        let schema = Arc::new(Schema::new(vec![Field::new("x", DataType::UInt32, false)]));
        let column = UInt32Array::from_iter_values(0..rows);
        RecordBatch::try_new(schema, vec![Arc::new(column)]).expect("a batch")
    }

    /// The row counts of each group `push`es and a final `flush` produce for batches of `rows`.
    fn groups(target: usize, rows: &[u32]) -> Vec<Vec<usize>> {
        let mut coalescer = Coalescer::new(target);
        let mut out: Vec<Vec<RecordBatch>> = Vec::new();
        for &r in rows {
            out.extend(coalescer.push(batch(r)));
        }
        out.extend(coalescer.flush());
        out.iter()
            .map(|g| g.iter().map(|b| b.column(0).len()).collect())
            .collect()
    }

    #[test]
    fn small_batches_are_gathered_up_to_the_target_in_order() {
        assert_eq!(
            groups(10, &[3, 3, 3, 3, 4, 5]),
            [vec![3, 3, 3], vec![3, 4], vec![5]]
        );
        // A group that reaches the target exactly runs at once.
        assert_eq!(groups(6, &[3, 3, 1]), [vec![3, 3], vec![1]]);
    }

    #[test]
    fn a_long_batch_runs_alone_after_the_gathered_ones() {
        assert_eq!(
            groups(10, &[2, 2, 10, 1, 25]),
            [vec![2, 2], vec![10], vec![1], vec![25]]
        );
    }

    #[test]
    fn a_target_of_zero_runs_every_batch_alone() {
        assert_eq!(groups(0, &[1, 0, 2]), [vec![1], vec![0], vec![2]]);
    }
}
