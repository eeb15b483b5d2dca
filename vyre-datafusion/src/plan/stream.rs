//! A `VyreExec`'s output stream for one partition: input batches gathered into groups
//! (`coalesce.rs`), each group run as one sequence (`chain.rs`), and the results turned into
//! the node's output the way the replaced plan produces it.
//!
//! A projection's output is one batch per input batch, in order, as `ProjectionExec`'s is. A
//! filter's kept rows go through DataFusion's own `LimitedBatchCoalescer` with the replaced
//! `FilterExec`'s batch size and `fetch`, so the output batches are that node's, and a `LIMIT`
//! pushed into the filter stops reading the input once it has its rows.

use std::collections::VecDeque;
use std::sync::Arc;

use datafusion::arrow::array::{ArrayRef, AsArray, RecordBatch, RecordBatchOptions};
use datafusion::arrow::compute::filter_record_batch;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::error::{DataFusionError, Result};
use datafusion::execution::SendableRecordBatchStream;
use datafusion::physical_plan::coalesce::{LimitedBatchCoalescer, PushBatchStatus};
use futures::StreamExt;

use super::chain::Chain;
use super::coalesce::Coalescer;

/// What the node does with the chain's outputs.
#[derive(Clone, Debug)]
pub(super) enum Kind {
    /// The outputs are the batch.
    Projection,
    /// The one output is a predicate; then the kept rows' columns `projection` (all: `None`),
    /// in batches of `batch_size` rows, at most `fetch` rows in all (as the `FilterExec`).
    Filter {
        projection: Option<Vec<usize>>,
        batch_size: usize,
        fetch: Option<usize>,
    },
}

/// Where output batches wait to be returned.
enum Pending {
    /// A projection's, one per input batch.
    Each(VecDeque<RecordBatch>),
    /// A filter's, gathered into the `FilterExec`'s batches.
    Filtered(LimitedBatchCoalescer),
}

/// The state of one partition's output stream.
pub(super) struct NodeStream {
    input: SendableRecordBatchStream,
    groups: Coalescer,
    pending: Pending,
    /// True once no more input is read (it ended, or a filter has its `fetch` rows).
    done: bool,
    chain: Arc<Chain>,
    kind: Kind,
    schema: SchemaRef,
}

impl NodeStream {
    /// The stream of `input` through `chain`, running groups of at most `target` rows, its
    /// batches of schema `schema`.
    pub(super) fn new(
        input: SendableRecordBatchStream,
        chain: Arc<Chain>,
        kind: Kind,
        schema: SchemaRef,
        target: usize,
    ) -> Self {
        let pending = match &kind {
            Kind::Projection => Pending::Each(VecDeque::new()),
            Kind::Filter {
                batch_size, fetch, ..
            } => Pending::Filtered(LimitedBatchCoalescer::new(
                Arc::clone(&schema),
                *batch_size,
                *fetch,
            )),
        };
        Self {
            input,
            groups: Coalescer::new(target),
            pending,
            done: false,
            chain,
            kind,
            schema,
        }
    }

    /// The next output batch and the stream's state: a waiting batch, else input read and run
    /// until one is ready; `None` at the end.
    pub(super) async fn next(mut self) -> Option<(Result<RecordBatch>, Self)> {
        loop {
            let ready = match &mut self.pending {
                Pending::Each(queue) => queue.pop_front(),
                Pending::Filtered(coalescer) => coalescer.next_completed_batch(),
            };
            if let Some(batch) = ready {
                return Some((Ok(batch), self));
            }
            if self.done {
                return None;
            }
            if let Err(error) = self.step().await {
                return Some((Err(error), self));
            }
        }
    }

    /// Reads one input batch and runs the groups it completes (all that is left, at the end).
    async fn step(&mut self) -> Result<()> {
        let groups = match self.input.next().await {
            Some(batch) => self.groups.push(batch?),
            None => {
                self.done = true;
                self.groups.flush().into_iter().collect()
            }
        };
        for group in groups {
            let outputs = self.chain.evaluate(&group)?;
            for (batch, columns) in group.iter().zip(outputs) {
                if self.output(batch, columns)? == PushBatchStatus::LimitReached {
                    self.done = true;
                    break;
                }
            }
            if self.done {
                break;
            }
        }
        if self.done
            && let Pending::Filtered(coalescer) = &mut self.pending
        {
            coalescer.finish()?;
        }
        Ok(())
    }

    /// Adds the node's output for `batch`, whose chain outputs are `columns`, to the waiting
    /// batches; `LimitReached` once a filter has its `fetch` rows.
    fn output(&mut self, batch: &RecordBatch, columns: Vec<ArrayRef>) -> Result<PushBatchStatus> {
        match (&self.kind, &mut self.pending) {
            (Kind::Projection, Pending::Each(queue)) => {
                let options = RecordBatchOptions::new().with_row_count(Some(batch.num_rows()));
                let schema = Arc::clone(&self.schema);
                queue.push_back(RecordBatch::try_new_with_options(
                    schema, columns, &options,
                )?);
                Ok(PushBatchStatus::Continue)
            }
            (Kind::Filter { projection, .. }, Pending::Filtered(coalescer)) => {
                let mask = columns
                    .first()
                    .and_then(|c| c.as_boolean_opt())
                    .ok_or_else(|| bug("a vyre filter's predicate gave no boolean column"))?;
                // A null predicate row is not kept, as in `FilterExec`.
                let kept = filter_record_batch(batch, mask)?;
                let kept = match projection {
                    Some(indices) => kept.project(indices)?,
                    None => kept,
                };
                coalescer.push_batch(kept)
            }
            (Kind::Projection, Pending::Filtered(_)) | (Kind::Filter { .. }, Pending::Each(_)) => {
                Err(bug("a VyreExec stream's output does not match its kind"))
            }
        }
    }
}

fn bug(what: &str) -> DataFusionError {
    DataFusionError::Internal(format!(
        "{what}. Fix: this is a bug in vyre-datafusion; report it with the query."
    ))
}
