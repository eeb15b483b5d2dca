//! `VyreRule`: the physical optimizer rule that puts a [`VyreExec`] in place of each projection
//! or filter made of vyre functions.

use std::sync::Arc;

use datafusion::common::tree_node::{Transformed, TransformedResult, TreeNode};
use datafusion::config::ConfigOptions;
use datafusion::error::Result;
use datafusion::physical_optimizer::PhysicalOptimizerRule;
use datafusion::physical_plan::ExecutionPlan;

use super::exec::VyreExec;

/// Replaces each `ProjectionExec` and `FilterExec` whose expressions are vyre functions (over
/// columns and CPU-evaluated leaves, `chain.rs`) with a [`VyreExec`]; leaves every other node
/// as it is. Add it last, after DataFusion's own rules:
///
/// ```
/// use std::sync::Arc;
/// use datafusion::execution::SessionStateBuilder;
/// use datafusion::prelude::SessionContext;
///
/// let state = SessionStateBuilder::new()
///     .with_default_features()
///     .with_physical_optimizer_rule(Arc::new(vyre_datafusion::VyreRule))
///     .build();
/// let ctx = SessionContext::new_with_state(state);
/// # let _ = ctx;
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct VyreRule;

impl PhysicalOptimizerRule for VyreRule {
    fn optimize(
        &self,
        plan: Arc<dyn ExecutionPlan>,
        _config: &ConfigOptions,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        plan.transform_up(|node| {
            Ok(match VyreExec::try_new(Arc::clone(&node)) {
                Some(exec) => Transformed::yes(Arc::new(exec) as Arc<dyn ExecutionPlan>),
                None => Transformed::no(node),
            })
        })
        .data()
    }

    fn name(&self) -> &str {
        "vyre"
    }

    fn schema_check(&self) -> bool {
        true
    }
}
