//! `VyreExec`: a projection or filter whose expressions are vyre functions, run as one
//! `dispatch_sequence` per batch, small batches together (see `chain.rs` for what compiles,
//! `coalesce.rs` for which batches run together, `stream.rs` for the output).

use std::fmt;
use std::sync::Arc;

use datafusion::arrow::datatypes::DataType as ArrowType;
use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::error::{DataFusionError, Result};
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::physical_expr::PhysicalExpr;
use datafusion::physical_plan::filter::FilterExec;
use datafusion::physical_plan::projection::ProjectionExec;
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::{DisplayAs, DisplayFormatType, ExecutionPlan, PlanProperties};

use super::chain::Chain;
use super::stream::{Kind, NodeStream};
use crate::options::VyreOptions;

/// A `ProjectionExec` or `FilterExec` made of vyre functions, which [`crate::VyreRule`] puts in
/// its place. It keeps the plan it replaced (its schema, properties and expressions are that
/// plan's), and evaluates each batch as one resident `dispatch_sequence`: nested and neighbouring
/// vyre functions read each other's results on the device. Consecutive batches shorter than
/// [`crate::VyreOptions::coalesce_rows`] (by default the session's batch size) run as one
/// sequence; the output batches are still those of the replaced plan (`stream.rs`).
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
                let kind = Kind::Filter {
                    projection,
                    batch_size: filter.batch_size(),
                    fetch: filter.fetch(),
                };
                (vec![Arc::clone(filter.predicate())], kind)
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

    fn fetch(&self) -> Option<usize> {
        self.original.fetch()
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
            .execute(partition, Arc::clone(&context))?;
        let schema = self.schema();
        // Never more rows than one dispatch of the chain holds.
        let most = usize::try_from(self.chain.max_rows()).unwrap_or(usize::MAX);
        let target = VyreOptions::coalesce_target(context.session_config().options()).min(most);
        let state = NodeStream::new(
            input,
            Arc::clone(&self.chain),
            self.kind.clone(),
            Arc::clone(&schema),
            target,
        );
        let stream = futures::stream::unfold(state, NodeStream::next);
        Ok(Box::pin(RecordBatchStreamAdapter::new(schema, stream)))
    }
}
