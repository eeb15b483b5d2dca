//! `Chain`: the expressions of a projection or filter, compiled into one [`Sequence`] so that
//! nested and neighbouring vyre functions run in one `dispatch_sequence` per batch.
//!
//! An expression compiles when it is a column (passed through untouched) or a tree whose root is
//! a vyre function: each vyre function in the tree becomes a call, each maximal subtree without
//! one (a column, a literal, a cast DataFusion inserted) becomes a *leaf*, evaluated by
//! DataFusion on the CPU and uploaded into a slot. Equal leaves share a slot. Anything else (a
//! vyre function under a CPU operator, `f(x) + 1`, or functions on different backends) leaves
//! the plan as it was.
//!
//! Nulls: every vyre function is strict (a null argument makes a null row), so a row of a tree is
//! null exactly when a row of one of its leaves is; that is the validity each result gets.

use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, RecordBatch};
use datafusion::arrow::compute::concat;
use datafusion::arrow::datatypes::Schema;
use datafusion::error::Result;
use datafusion::logical_expr::{ColumnarValue, ScalarUDFImpl};
use datafusion::physical_expr::{PhysicalExpr, ScalarFunctionExpr};
use datafusion::physical_plan::expressions::Column as ColumnExpr;
use vyre::VyreBackend;

use crate::columns::{self, Column};
use crate::error::UdfError;
use crate::sequence::Sequence;
use crate::types::vyre_type;
use crate::udf::VyreUdf;

/// One output of a chain.
#[derive(Debug)]
enum Output {
    /// Column `index` of the input batch, as it is.
    Pass(usize),
    /// A vyre function's result: its slot, and the leaves its validity comes from.
    Device { slot: usize, leaves: Vec<usize> },
}

/// Compiled expressions (see the module docs).
pub(crate) struct Chain {
    /// The CPU-evaluated subtrees, each with its slot.
    leaves: Vec<(Arc<dyn PhysicalExpr>, usize)>,
    outputs: Vec<Output>,
    sequence: Sequence,
    backend: Arc<dyn VyreBackend>,
    max_rows: u64,
    /// The functions' names, for messages and the plan's display.
    names: Vec<String>,
}

impl std::fmt::Debug for Chain {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Chain")
            .field("functions", &self.names)
            .field("outputs", &self.outputs)
            .field("backend", &self.backend.id())
            .finish_non_exhaustive()
    }
}

/// The vyre function `expr` calls, if it is a call of one.
pub(crate) fn vyre_call(expr: &Arc<dyn PhysicalExpr>) -> Option<(&VyreUdf, &ScalarFunctionExpr)> {
    let call = expr.downcast_ref::<ScalarFunctionExpr>()?;
    let udf = call.fun().inner().downcast_ref::<VyreUdf>()?;
    Some((udf, call))
}

/// True when `expr` calls a vyre function anywhere.
fn has_vyre_call(expr: &Arc<dyn PhysicalExpr>) -> bool {
    vyre_call(expr).is_some() || expr.children().into_iter().any(has_vyre_call)
}

impl Chain {
    /// Compiles `exprs` over batches of `schema`; `None` when some expression does not compile
    /// or none calls a vyre function.
    pub(crate) fn compile(exprs: &[Arc<dyn PhysicalExpr>], schema: &Schema) -> Option<Self> {
        let mut chain = Builder {
            schema,
            leaves: Vec::new(),
            sequence: Sequence::default(),
            backend: None,
            names: Vec::new(),
        };
        let mut outputs = Vec::with_capacity(exprs.len());
        for expr in exprs {
            if let Some(column) = expr.downcast_ref::<ColumnExpr>() {
                outputs.push(Output::Pass(column.index()));
                continue;
            }
            vyre_call(expr)?;
            let mut leaves = Vec::new();
            let slot = chain.node(expr, &mut leaves)?;
            leaves.sort_unstable();
            leaves.dedup();
            outputs.push(Output::Device { slot, leaves });
        }
        let backend = chain.backend?;
        let max_rows = chain
            .sequence
            .max_rows(backend.capabilities().max_storage_buffer_bytes);
        Some(Self {
            leaves: chain.leaves,
            outputs,
            sequence: chain.sequence,
            backend,
            max_rows,
            names: chain.names,
        })
    }

    /// The id of the backend the functions run on.
    pub(crate) fn backend_id(&self) -> &str {
        self.backend.id()
    }

    /// The vyre functions, in call order.
    pub(crate) fn names(&self) -> &[String] {
        &self.names
    }

    /// The most rows one run of the chain holds (a longer batch is [`UdfError::TooLong`]).
    pub(crate) fn max_rows(&self) -> u64 {
        self.max_rows
    }

    /// The outputs' columns for each of `batches`: their own columns passed through, and every
    /// vyre result computed in one sequence over all their rows, cut back at the batches'
    /// boundaries.
    ///
    /// Running consecutive batches as one is exact: every function is elementwise, so a row's
    /// result depends on that row of the leaves alone, wherever it sits in the dispatch. Only the
    /// leaves are concatenated (one host copy of the columns the device reads), never the columns
    /// passed through; a single batch is uploaded from Arrow's memory as it is.
    pub(crate) fn evaluate(&self, batches: &[RecordBatch]) -> Result<Vec<Vec<ArrayRef>>> {
        let lengths: Vec<usize> = batches.iter().map(RecordBatch::num_rows).collect();
        let rows: usize = lengths.iter().sum();
        let name = self.names.join(", ");
        let columns = self
            .leaves
            .iter()
            .enumerate()
            .map(|(i, (expr, slot))| {
                let ty = self.sequence.slot_type(*slot);
                Column::new(&name, i, &leaf_value(expr, batches)?, ty, rows)
            })
            .collect::<Result<Vec<_>>>()?;
        let reads: Vec<usize> = self
            .outputs
            .iter()
            .filter_map(|o| match o {
                Output::Device { slot, .. } => Some(*slot),
                Output::Pass(_) => None,
            })
            .collect();
        let results = if rows == 0 {
            vec![Vec::new(); reads.len()]
        } else if rows as u64 > self.max_rows {
            return Err(UdfError::TooLong {
                name,
                rows,
                max: self.max_rows,
                backend: self.backend.id().to_string(),
            }
            .into());
        } else {
            let uploads: Vec<(usize, &[u8])> = self
                .leaves
                .iter()
                .zip(&columns)
                .map(|((_, slot), column)| (*slot, column.bytes()))
                .collect();
            let backend = self.backend.as_ref();
            self.sequence
                .run(backend, self.max_rows, &uploads, &reads, rows)
                .map_err(|source| UdfError::Backend {
                    name,
                    backend: self.backend.id().to_string(),
                    source,
                })?
        };
        // Each output over all the rows: a vyre result with its validity, or a passed column.
        let mut results = results.into_iter();
        let whole = self
            .outputs
            .iter()
            .map(|output| match output {
                Output::Pass(index) => Ok(Whole::Pass(*index)),
                Output::Device { slot, leaves } => {
                    let bytes = results.next().unwrap_or_default();
                    let nulls = columns::validity_of(leaves.iter().map(|&l| &columns[l]));
                    let ty = self.sequence.slot_type(*slot);
                    columns::result(bytes, ty, rows, nulls).map(Whole::Device)
                }
            })
            .collect::<Result<Vec<_>>>()?;
        let mut at = 0;
        Ok(batches
            .iter()
            .zip(lengths)
            .map(|(batch, len)| {
                let out = whole
                    .iter()
                    .map(|column| match column {
                        Whole::Pass(index) => Arc::clone(batch.column(*index)),
                        Whole::Device(column) => column.slice(at, len),
                    })
                    .collect();
                at += len;
                out
            })
            .collect())
    }
}

/// One output of [`Chain::evaluate`] over all its batches' rows.
enum Whole {
    /// Column `index` of each batch.
    Pass(usize),
    /// A vyre result over every row.
    Device(ArrayRef),
}

/// The value of leaf `expr` over all of `batches`: as DataFusion evaluates it for one batch, the
/// concatenation of its arrays for several.
fn leaf_value(expr: &Arc<dyn PhysicalExpr>, batches: &[RecordBatch]) -> Result<ColumnarValue> {
    if let [one] = batches {
        return expr.evaluate(one);
    }
    let arrays = batches
        .iter()
        .map(|b| expr.evaluate(b)?.into_array(b.num_rows()))
        .collect::<Result<Vec<_>>>()?;
    let refs: Vec<&dyn Array> = arrays.iter().map(AsRef::as_ref).collect();
    Ok(ColumnarValue::Array(concat(&refs)?))
}

/// The state of one compilation.
struct Builder<'s> {
    schema: &'s Schema,
    leaves: Vec<(Arc<dyn PhysicalExpr>, usize)>,
    sequence: Sequence,
    backend: Option<Arc<dyn VyreBackend>>,
    names: Vec<String>,
}

impl Builder<'_> {
    /// The slot holding `expr`'s value, adding its calls and leaves; the leaves it reads are
    /// pushed to `used`.
    fn node(&mut self, expr: &Arc<dyn PhysicalExpr>, used: &mut Vec<usize>) -> Option<usize> {
        let Some((udf, call)) = vyre_call(expr) else {
            return self.leaf(expr, used);
        };
        match &self.backend {
            Some(backend) if !Arc::ptr_eq(backend, udf.backend()) => return None,
            Some(_) => {}
            None => self.backend = Some(Arc::clone(udf.backend())),
        }
        let kernel = udf.kernel();
        if call.args().len() != kernel.args().len() {
            return None;
        }
        let mut args = Vec::with_capacity(call.args().len());
        for (arg, &ty) in call.args().iter().zip(kernel.args()) {
            let slot = self.node(arg, used)?;
            if self.sequence.slot_type(slot) != ty {
                return None;
            }
            args.push(slot);
        }
        self.names.push(ScalarUDFImpl::name(udf).to_string());
        Some(self.sequence.call(Arc::clone(kernel), args))
    }

    /// The slot of a subtree without vyre functions, evaluated on the CPU.
    fn leaf(&mut self, expr: &Arc<dyn PhysicalExpr>, used: &mut Vec<usize>) -> Option<usize> {
        if has_vyre_call(expr) {
            return None;
        }
        let ty = vyre_type(&expr.data_type(self.schema).ok()?)?;
        let index = match self.leaves.iter().position(|(e, _)| e == expr) {
            Some(index) => index,
            None => {
                let slot = self.sequence.slot(ty);
                self.leaves.push((Arc::clone(expr), slot));
                self.leaves.len() - 1
            }
        };
        used.push(index);
        Some(self.leaves[index].1)
    }
}
