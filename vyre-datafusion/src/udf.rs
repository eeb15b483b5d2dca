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
use vyre::{Choice, DispatchConfig, VyreBackend};

use crate::columns::{self, Column};
use crate::error::UdfError;
use crate::kernel::Kernel;
use crate::pool::Pool;
use crate::types::{arrow_type, coercible, sql_cast};

/// The smallest capacity a dispatch is sized for: batches shorter than this share one program.
const MIN_CAPACITY: u64 = 256;

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
    kernel: Kernel,
    signature: Signature,
    backend: Arc<dyn VyreBackend>,
    /// The most rows one dispatch on `backend` holds.
    max_rows: u64,
    /// Resident buffers kept between calls; shared by clones of the function.
    pool: Arc<Pool>,
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
        let bytes = self
            .dispatch(&columns, rows)
            .map_err(|source| UdfError::Backend {
                name: self.name.clone(),
                backend: self.backend.id().to_string(),
                source,
            })?;
        columns::result(bytes, output, rows, columns::validity(&columns))
    }

    /// Uploads the columns, runs the program at a power-of-two capacity and reads the result's
    /// first `rows` elements back.
    fn dispatch(&self, columns: &[Column], rows: usize) -> Result<Vec<u8>, vyre::BackendError> {
        let wanted = (rows as u64).next_power_of_two().max(MIN_CAPACITY);
        // `max_rows` fits a u32 and `rows <= max_rows`.
        let capacity = u32::try_from(wanted.min(self.max_rows)).unwrap_or(u32::MAX);
        let backend = self.backend.as_ref();
        let set = self
            .pool
            .take(backend, capacity, &self.kernel.buffer_bytes(capacity))?;
        for (column, slot) in columns.iter().zip(self.kernel.arg_slots()) {
            backend.write_buffer(&set.buffers[slot], 0, column.bytes())?;
        }
        let program = self.kernel.sized(capacity);
        let refs: Vec<_> = set.buffers.iter().collect();
        backend.dispatch_resident(&program, &refs, &DispatchConfig::default())?;
        let size = self.kernel.output().size_bytes() as u64;
        let out = &set.buffers[self.kernel.output_slot()];
        let bytes = backend.read_buffer(out, 0..rows as u64 * size)?;
        self.pool.give(set);
        Ok(bytes)
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
        let kernel = Kernel::new(&self.name, self.program)?;
        let backend = match self.backend {
            Some(backend) => backend,
            None => default_backend().map_err(|source| UdfError::NoBackend {
                name: self.name.clone(),
                source,
            })?,
        };
        let caps = backend.capabilities();
        let by_memory = caps.max_storage_buffer_bytes / kernel.widest_element();
        Ok(VyreUdf {
            name: self.name,
            kernel,
            signature: Signature::user_defined(Volatility::Immutable),
            max_rows: by_memory.min(u64::from(u32::MAX)),
            backend,
            pool: Arc::default(),
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
