//! `VyreUdf`: an elementwise vyre program as a DataFusion scalar function.

use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, Mutex, PoisonError};

use datafusion::arrow::array::ArrayRef;
use datafusion::arrow::datatypes::DataType as ArrowType;
use datafusion::error::Result;
use datafusion::logical_expr::{
    ColumnarValue, ScalarFunctionArgs, ScalarUDFImpl, Signature, Volatility,
};
use vyre::ir::Program;
use vyre::{Choice, VyreBackend};

use crate::columns::{self, Column};
use crate::error::UdfError;
use crate::kernel::Kernel;
use crate::sequence::Sequence;
use crate::types::{arrow_type, coercible, sql_cast};

/// An elementwise vyre program as a DataFusion scalar function (see the crate docs for the rule).
///
/// Register it with `ScalarUDF::new_from_impl(udf)` (or `ScalarUDF::from(udf)`). Two functions are
/// equal when their names, programs and backends (the same `Arc`) are.
///
/// ```
/// use std::sync::Arc;
/// use datafusion::logical_expr::ScalarUDF;
/// use vyre::ir::{BufferDecl, DataType, Expr, Node, Program};
/// use vyre_datafusion::VyreUdf;
///
/// // `y = x * x`
/// let x = Expr::load("x", Expr::gid_x());
/// let square = Program::new(
///     vec![
///         BufferDecl::read("x", 0, DataType::I64),
///         BufferDecl::output("y", 1, DataType::I64).with_count(1),
///     ],
///     [64, 1, 1],
///     vec![Node::store("y", Expr::gid_x(), x.clone() * x)],
/// );
/// let udf = VyreUdf::builder("square", square)
///     .backend(Arc::new(vyre::ReferenceBackend::new()))
///     .build()?;
/// let udf = ScalarUDF::new_from_impl(udf);
/// assert_eq!(udf.name(), "square");
/// # Ok::<(), vyre_datafusion::UdfError>(())
/// ```
pub struct VyreUdf {
    name: String,
    kernel: Arc<Kernel>,
    signature: Signature,
    backend: Arc<dyn VyreBackend>,
    /// The most rows one dispatch on `backend` holds.
    max_rows: u64,
    /// The one call, and the resident buffers kept between calls.
    sequence: Sequence,
}

impl VyreUdf {
    /// A function named `name` that runs `program` on the backend `vyre::select(Choice::Auto)`
    /// chooses (one backend for the whole process, opened by the first function that needs it).
    ///
    /// # Errors
    ///
    /// [`UdfError::InvalidProgram`] or [`UdfError::NotElementwise`] when `program` is not an
    /// elementwise function of its `read` buffers, [`UdfError::NoBackend`] when no backend opens.
    pub fn new(name: impl Into<String>, program: Program) -> Result<Self, UdfError> {
        Self::builder(name, program).build()
    }

    /// A builder, to choose the backend.
    pub fn builder(name: impl Into<String>, program: Program) -> VyreUdfBuilder {
        VyreUdfBuilder {
            name: name.into(),
            program,
            backend: None,
        }
    }

    /// The program, as given.
    #[must_use]
    pub fn program(&self) -> &Program {
        self.kernel.program()
    }

    /// The backend it runs on.
    #[must_use]
    pub fn backend(&self) -> &Arc<dyn VyreBackend> {
        &self.backend
    }

    /// The most rows one call runs (a batch past it is [`UdfError::TooLong`]).
    #[must_use]
    pub fn max_rows(&self) -> u64 {
        self.max_rows
    }

    /// Runs the function over `rows` rows of `args` (the arguments already of their buffers'
    /// types): one resident dispatch.
    fn run(&self, args: &[ColumnarValue], rows: usize) -> Result<ArrayRef> {
        let columns = args
            .iter()
            .zip(self.kernel.args())
            .enumerate()
            .map(|(i, (value, &ty))| Column::new(&self.name, i, value, ty, rows))
            .collect::<Result<Vec<_>>>()?;
        let output = self.kernel.output();
        if rows == 0 {
            return columns::result(Vec::new(), output, 0, None);
        }
        if columns::all_null(&columns, rows) {
            return Ok(columns::null_column(output, rows));
        }
        if rows as u64 > self.max_rows {
            return Err(UdfError::TooLong {
                name: self.name.clone(),
                rows,
                max: self.max_rows,
                backend: self.backend.id().to_string(),
            }
            .into());
        }
        // The sequence's slots are the arguments, in order, then the result.
        let uploads: Vec<(usize, &[u8])> = columns.iter().map(Column::bytes).enumerate().collect();
        let out = self.kernel.args().len();
        let mut bytes = self
            .sequence
            .run(self.backend.as_ref(), self.max_rows, &uploads, &[out], rows)
            .map_err(|source| UdfError::Backend {
                name: self.name.clone(),
                backend: self.backend.id().to_string(),
                source,
            })?;
        columns::result(
            bytes.pop().unwrap_or_default(),
            output,
            rows,
            columns::validity(&columns),
        )
    }

    /// The checked program.
    pub(crate) fn kernel(&self) -> &Arc<Kernel> {
        &self.kernel
    }
}

/// Builds a [`VyreUdf`]; from [`VyreUdf::builder`].
#[must_use]
pub struct VyreUdfBuilder {
    name: String,
    program: Program,
    backend: Option<Arc<dyn VyreBackend>>,
}

impl VyreUdfBuilder {
    /// Runs the function on `backend` instead of the one `vyre::select` chooses.
    pub fn backend(mut self, backend: Arc<dyn VyreBackend>) -> Self {
        self.backend = Some(backend);
        self
    }

    /// The function.
    ///
    /// # Errors
    ///
    /// As [`VyreUdf::new`].
    pub fn build(self) -> Result<VyreUdf, UdfError> {
        let kernel = Arc::new(Kernel::new(&self.name, self.program)?);
        let backend = match self.backend {
            Some(backend) => backend,
            None => default_backend().map_err(|source| UdfError::NoBackend {
                name: self.name.clone(),
                source,
            })?,
        };
        let mut sequence = Sequence::default();
        let args = kernel.args().iter().map(|&ty| sequence.slot(ty)).collect();
        sequence.call(Arc::clone(&kernel), args);
        Ok(VyreUdf {
            name: self.name,
            kernel,
            signature: Signature::user_defined(Volatility::Immutable),
            max_rows: sequence.max_rows(backend.capabilities().max_storage_buffer_bytes),
            backend,
            sequence,
        })
    }
}

/// The process's backend for functions built without one: `vyre::select(Choice::Auto)`, opened
/// once (a second wgpu device per function would waste memory and compile everything twice).
fn default_backend() -> Result<Arc<dyn VyreBackend>, vyre::BackendError> {
    static DEFAULT: Mutex<Option<Arc<dyn VyreBackend>>> = Mutex::new(None);
    let mut held = DEFAULT.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(backend) = held.as_ref() {
        return Ok(Arc::clone(backend));
    }
    let backend: Arc<dyn VyreBackend> = Arc::from(vyre::select(Choice::Auto)?.backend);
    *held = Some(Arc::clone(&backend));
    Ok(backend)
}

impl fmt::Debug for VyreUdf {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("VyreUdf")
            .field("name", &self.name)
            .field("args", &self.kernel.args())
            .field("output", &self.kernel.output())
            .field("backend", &self.backend.id())
            .field("max_rows", &self.max_rows)
            .finish_non_exhaustive()
    }
}

impl PartialEq for VyreUdf {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
            && self.kernel == other.kernel
            && Arc::ptr_eq(&self.backend, &other.backend)
    }
}

impl Eq for VyreUdf {}

impl Hash for VyreUdf {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.name.hash(state);
        self.kernel.hash(state);
        self.backend.id().hash(state);
    }
}

impl ScalarUDFImpl for VyreUdf {
    fn name(&self) -> &str {
        &self.name
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, _arg_types: &[ArrowType]) -> Result<ArrowType> {
        Ok(arrow_type(self.kernel.output()))
    }

    /// Each argument to its buffer's type: as it is, or widened without loss; anything else is
    /// [`UdfError::ArgumentType`] at planning time.
    fn coerce_types(&self, arg_types: &[ArrowType]) -> Result<Vec<ArrowType>> {
        let params = self.kernel.args();
        if arg_types.len() != params.len() {
            return Err(UdfError::ArgumentCount {
                name: self.name.clone(),
                expected: params.len(),
                found: arg_types.len(),
            }
            .into());
        }
        arg_types
            .iter()
            .zip(params)
            .enumerate()
            .map(|(index, (found, &ty))| {
                if coercible(found, ty) {
                    Ok(arrow_type(ty))
                } else {
                    Err(UdfError::ArgumentType {
                        name: self.name.clone(),
                        index,
                        expected: Box::new(arrow_type(ty)),
                        found: Box::new(found.clone()),
                        cast: sql_cast(ty),
                    }
                    .into())
                }
            })
            .collect()
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let expected = self.kernel.args().len();
        if args.args.len() != expected {
            return Err(UdfError::ArgumentCount {
                name: self.name.clone(),
                expected,
                found: args.args.len(),
            }
            .into());
        }
        self.run(&args.args, args.number_rows)
            .map(ColumnarValue::Array)
    }
}
