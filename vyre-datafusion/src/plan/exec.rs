//! `VyreExec`: a projection or filter whose expressions are vyre functions, run as one
//! `dispatch_sequence` per batch (see `chain.rs` for what compiles).

use std::fmt;
use std::sync::Arc;

use datafusion::arrow::array::{AsArray, RecordBatch, RecordBatchOptions};
use datafusion::arrow::compute::filter_record_batch;
use datafusion::arrow::datatypes::{DataType as ArrowType, SchemaRef};
use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::error::{DataFusionError, Result};
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::physical_expr::PhysicalExpr;
use datafusion::physical_plan::filter::FilterExec;
use datafusion::physical_plan::projection::ProjectionExec;
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::{DisplayAs, DisplayFormatType, ExecutionPlan, PlanProperties};
use futures::StreamExt;

use super::chain::Chain;

/// What the node does with the chain's outputs.
#[derive(Clone, Debug)]
enum Kind {
    /// The outputs are the batch.
    Projection,
    /// The one output is a predicate; then the kept rows' columns `projection` (all: `None`).
    Filter { projection: Option<Vec<usize>> },
}

/// A `ProjectionExec` or `FilterExec` made of vyre functions, which [`crate::VyreRule`] puts in
/// its place. It keeps the plan it replaced (its schema, properties and expressions are that
/// plan's), and evaluates each batch as one resident `dispatch_sequence`: nested and neighbouring
/// vyre functions read each other's results on the device.
pub struct VyreExec {
    original: Arc<dyn ExecutionPlan>,
    chain: Arc<Chain>,
    kind: Kind,
}

impl VyreExec {
    /// `plan` as a `VyreExec`, or `None` when it is not a projection or filter whose expressions
    /// all compile (`chain.rs`).
    pub fn try_new(plan: Arc<dyn ExecutionPlan>) -> Option<Self> {
        let (exprs, kind): (Vec<Arc<dyn PhysicalExpr>>, Kind) =
            if let Some(projection) = plan.downcast_ref::<ProjectionExec>() {
                let exprs = projection
                    .expr()
                    .iter()
                    .map(|p| Arc::clone(&p.expr))
                    .collect();
                (exprs, Kind::Projection)
            } else if let Some(filter) = plan.downcast_ref::<FilterExec>() {
                let schema = filter.input().schema();
                if filter.predicate().data_type(&schema).ok()? != ArrowType::Boolean {
                    return None;
                }
                let projection = filter.projection().as_ref().map(|p| p.to_vec());
                (
                    vec![Arc::clone(filter.predicate())],
                    Kind::Filter { projection },
                )
            } else {
                return None;
            };
        let input = plan.children().first().map(|c| c.schema())?;
        let chain = Chain::compile(&exprs, &input)?;
        Some(Self {
            original: plan,
            chain: Arc::new(chain),
            kind,
        })
    }

    /// The plan this node replaced.
    #[must_use]
    pub fn original(&self) -> &Arc<dyn ExecutionPlan> {
        &self.original
    }

    /// The node's output for one input batch, of schema `schema`.
    fn evaluate(
        chain: &Chain,
        kind: &Kind,
        schema: &SchemaRef,
        batch: &RecordBatch,
    ) -> Result<RecordBatch> {
        let columns = chain.evaluate(batch)?;
        match kind {
            Kind::Projection => {
                let options = RecordBatchOptions::new().with_row_count(Some(batch.num_rows()));
                Ok(RecordBatch::try_new_with_options(
                    Arc::clone(schema),
                    columns,
                    &options,
                )?)
            }
            Kind::Filter { projection } => {
                let mask = columns
                    .first()
                    .and_then(|c| c.as_boolean_opt())
                    .ok_or_else(|| {
                        DataFusionError::Internal(
                            "a vyre filter's predicate gave no boolean column. Fix: this is a bug in vyre-datafusion; report it with the query.".into(),
                        )
                    })?;
                // A null predicate row is not kept, as in `FilterExec`.
                let kept = filter_record_batch(batch, mask)?;
                match projection {
                    Some(indices) => Ok(kept.project(indices)?),
                    None => Ok(kept),
                }
            }
        }
    }
}

impl fmt::Debug for VyreExec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("VyreExec")
            .field("kind", &self.kind)
            .field("functions", &self.chain.names())
            .finish_non_exhaustive()
    }
}

impl DisplayAs for VyreExec {
    fn fmt_as(&self, _t: DisplayFormatType, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match self.kind {
            Kind::Projection => "projection",
            Kind::Filter { .. } => "filter",
        };
        write!(
            f,
            "VyreExec: {what}, one dispatch_sequence of [{}] on {}",
            self.chain.names().join(", "),
            self.chain.backend_id()
        )
    }
}

impl ExecutionPlan for VyreExec {
    fn name(&self) -> &str {
        "VyreExec"
    }

    fn properties(&self) -> &Arc<PlanProperties> {
        self.original.properties()
    }

    fn children(&self) -> Vec<&Arc<dyn ExecutionPlan>> {
        self.original.children()
    }

    fn apply_expressions(
        &self,
        f: &mut dyn FnMut(&Arc<dyn PhysicalExpr>) -> Result<TreeNodeRecursion>,
    ) -> Result<TreeNodeRecursion> {
        self.original.apply_expressions(f)
    }

    fn with_new_children(
        self: Arc<Self>,
        children: Vec<Arc<dyn ExecutionPlan>>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        #[expect(
            deprecated,
            reason = "DataFusion 55 still requires and calls this method"
        )]
        let original = Arc::clone(&self.original).with_new_children(children)?;
        match Self::try_new(original) {
            Some(exec) => Ok(Arc::new(exec)),
            None => Err(DataFusionError::Internal(
                "VyreExec: the plan with new children no longer compiles. Fix: this is a bug in vyre-datafusion; report it with the query.".into(),
            )),
        }
    }

    fn execute(
        &self,
        partition: usize,
        context: Arc<TaskContext>,
    ) -> Result<SendableRecordBatchStream> {
        let input = self
            .original
            .children()
            .first()
            .map(|c| Arc::clone(c))
            .ok_or_else(|| DataFusionError::Internal("VyreExec without an input".into()))?
            .execute(partition, context)?;
        let schema = self.schema();
        let chain = Arc::clone(&self.chain);
        let kind = self.kind.clone();
        let out = Arc::clone(&schema);
        let stream = input.map(move |batch| Self::evaluate(&chain, &kind, &out, &batch?));
        Ok(Box::pin(RecordBatchStreamAdapter::new(schema, stream)))
    }
}
