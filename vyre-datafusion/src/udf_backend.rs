//! `UdfBackend`: any vyre backend behind a DataFusion query, so that the conformance fuzzer and
//! catalogue can check the whole path a [`VyreUdf`] takes (`vyre-conform fuzz --datafusion`).
//!
//! A dispatch of a program whose grid is its rows becomes one query: the inputs become a record
//! batch with one column per `read` buffer (`c0`, `c1`, ... in declaration order, built from the
//! input bytes: little-endian elements, booleans from 32-bit words, inputs shorter than their
//! buffer zero-extended as `SEMANTICS.md` says), the program becomes a [`VyreUdf`] on the inner
//! backend, the query `SELECT f(c0, c1, ...)` over the batch runs on a [`SessionContext`] and a
//! tokio runtime the adapter owns, and the result column's bytes (booleans back to words `0`/`1`)
//! are the output buffer's. So what comes back went through DataFusion's planning and type
//! coercion, the function's argument and result mapping, its resident buffers and resized program,
//! and the inner backend's `dispatch_sequence`.
//!
//! A program a function cannot be, or a dispatch that is not one row per invocation, is
//! [`BackendError::Unsupported`] (a differential run counts it as skipped, not as a mismatch):
//! the function's own rule (`VyreUdf::new`), plus at least one `read` buffer (DataFusion
//! evaluates a function of no argument once, as a constant), a one-dimensional workgroup and a
//! grid of exactly as many invocations as the output has elements, each `read` buffer as long as
//! the output. Those last rules are what makes the function's run the dispatch's: `VyreUdf` runs the
//! program over a power-of-two capacity of rows with its buffers resized, and rows past the batch
//! compute on whatever the buffers hold, which reaches a row of the batch only through a
//! workgroup it shares with them (workgroup memory), or through `buf_len` and `num_workgroups`,
//! which a differential generator keeps out (`vyre_conformance::gen::GenConfig::udf`).
//!
//! ```
//! use std::sync::Arc;
//! use vyre::ir::{BufferDecl, DataType, Expr, Node, Program};
//! use vyre::{DispatchConfig, VyreBackend};
//! use vyre_datafusion::UdfBackend;
//!
//! let x = Expr::load("x", Expr::gid_x());
//! let program = Program::new(
//!     vec![
//!         BufferDecl::read("x", 0, DataType::U32).with_count(4),
//!         BufferDecl::output("y", 1, DataType::U32).with_count(4),
//!     ],
//!     [4, 1, 1],
//!     vec![Node::store("y", Expr::gid_x(), x * 3u32)],
//! );
//! let backend = UdfBackend::new(Arc::new(vyre::ReferenceBackend::new()))?;
//! let input: Vec<u8> = [1u32, 2, 3, 4].iter().flat_map(|v| v.to_le_bytes()).collect();
//! let outputs = backend.dispatch(&program, &[input], &DispatchConfig::new().with_grid([1, 1, 1]))?;
//! let expected: Vec<u8> = [3u32, 6, 9, 12].iter().flat_map(|v| v.to_le_bytes()).collect();
//! assert_eq!(outputs, [expected]);
//! # Ok::<(), vyre::BackendError>(())
//! ```

use std::sync::Arc;

use datafusion::arrow::array::{
    Array, ArrayRef, AsArray, BooleanArray, PrimitiveArray, RecordBatch,
};
use datafusion::arrow::buffer::{Buffer, ScalarBuffer};
use datafusion::arrow::datatypes::{
    ArrowPrimitiveType, Float16Type, Float32Type, Int32Type, Int64Type, UInt32Type, UInt64Type,
};
use datafusion::error::DataFusionError;
use datafusion::logical_expr::ScalarUDF;
use datafusion::prelude::{SessionConfig, SessionContext, col};
use vyre::ir::{BufferAccess, DataType, Program};
use vyre::{BackendError, Capabilities, DispatchConfig, DispatchPlan, Validated, VyreBackend};

use crate::error::UdfError;
use crate::types::arrow_type;
use crate::udf::VyreUdf;

/// A backend that runs every dispatch as a [`VyreUdf`] on `inner` inside a DataFusion query (see
/// the module docs): the fuzzer's DataFusion mode compares it with the reference.
///
/// Its id is the inner id with `+datafusion` appended; its capabilities are the inner backend's.
/// Many threads may dispatch at once (each query is planned and run on its own).
pub struct UdfBackend {
    inner: Arc<dyn VyreBackend>,
    id: String,
    /// One session for every query: planning state is built once, not per dispatch.
    session: SessionContext,
    /// Drives the queries; current-thread, since a one-partition query spawns nothing.
    runtime: tokio::runtime::Runtime,
}

impl UdfBackend {
    /// `inner` behind DataFusion.
    ///
    /// # Errors
    ///
    /// [`BackendError::Other`] when the tokio runtime cannot be made (the system refused a thread
    /// resource).
    pub fn new(inner: Arc<dyn VyreBackend>) -> Result<Self, BackendError> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .map_err(|e| {
                BackendError::new(format!(
                    "UdfBackend: could not start a tokio runtime: {e}. Fix: free system resources (threads, file descriptors) and try again."
                ))
            })?;
        // One partition: the batch reaches the function whole, as one call, and nothing spawns.
        let config = SessionConfig::new().with_target_partitions(1);
        Ok(Self {
            id: format!("{}+datafusion", inner.id()),
            inner,
            session: SessionContext::new_with_config(config),
            runtime,
        })
    }

    /// The backend the functions run on.
    #[must_use]
    pub fn inner(&self) -> &Arc<dyn VyreBackend> {
        &self.inner
    }

    /// Runs `udf` over `batch` as `SELECT f(c0, c1, ...)`; the result's batches.
    fn query(&self, udf: VyreUdf, batch: RecordBatch) -> Result<Vec<RecordBatch>, DataFusionError> {
        let args = (0..batch.num_columns())
            .map(|i| col(format!("c{i}")))
            .collect();
        let call = ScalarUDF::new_from_impl(udf).call(args).alias("y");
        self.runtime.block_on(async {
            self.session
                .read_batch(batch)?
                .select(vec![call])?
                .collect()
                .await
        })
    }
}

impl std::fmt::Debug for UdfBackend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("UdfBackend")
            .field("inner", &self.inner.id())
            .finish_non_exhaustive()
    }
}

impl VyreBackend for UdfBackend {
    fn id(&self) -> &str {
        &self.id
    }

    fn capabilities(&self) -> Capabilities {
        self.inner.capabilities()
    }

    fn execute(
        &self,
        validated: &Validated<'_>,
        plan: &DispatchPlan,
        inputs: &[Vec<u8>],
        _config: &DispatchConfig,
    ) -> Result<Vec<Vec<u8>>, BackendError> {
        let program = validated.program();
        let rows = rows(program, plan)?;
        let udf = VyreUdf::builder("program", program.clone())
            .backend(Arc::clone(&self.inner))
            .build()
            .map_err(backend_error)?;
        let batch = arguments(program, plan, inputs, rows)?;
        let batches = self
            .query(udf, batch)
            .map_err(|e| datafusion_error(e, &self.id))?;
        let output = program
            .buffers
            .iter()
            .find(|d| d.access == BufferAccess::Output)
            .ok_or_else(|| unsupported("it has no `output` buffer"))?;
        let mut bytes = Vec::with_capacity(rows * output.element.size_bytes());
        for batch in &batches {
            for column in batch.columns() {
                append_bytes(&mut bytes, column, output.element)?;
            }
        }
        if bytes.len() != rows * output.element.size_bytes() {
            return Err(BackendError::new(format!(
                "UdfBackend: the query returned {} bytes for {rows} rows of {:?}. Fix: this is a bug in vyre-datafusion; report it with the program.",
                bytes.len(),
                output.element
            )));
        }
        let range = output.readback_range(bytes.len());
        Ok(vec![bytes.get(range).unwrap_or_default().to_vec()])
    }

    fn device_lost(&self) -> bool {
        self.inner.device_lost()
    }

    fn try_recover(&self) -> Result<(), BackendError> {
        self.inner.try_recover()
    }
}

/// The rows of a dispatch of `program` as a function: one per invocation of a one-dimensional
/// grid, as many as the output has elements and each `read` buffer has.
fn rows(program: &Program, plan: &DispatchPlan) -> Result<usize, BackendError> {
    let [wx, wy, wz] = program.workgroup_size;
    let [gx, gy, gz] = plan.grid;
    if wy != 1 || wz != 1 || gy != 1 || gz != 1 {
        return Err(unsupported(
            "its workgroup or grid is not one-dimensional, so an invocation is not a row",
        ));
    }
    let invocations = u64::from(wx) * u64::from(gx);
    let mut output = None;
    for (decl, buffer) in program.buffers.iter().zip(&plan.buffers) {
        let rows_here = match decl.access {
            BufferAccess::Output => {
                output = Some(buffer.element_count);
                buffer.element_count
            }
            BufferAccess::Read => buffer.element_count,
            BufferAccess::ReadWrite | BufferAccess::Uniform | BufferAccess::Workgroup => continue,
        };
        if rows_here != invocations {
            return Err(unsupported(&format!(
                "buffer `{}` has {rows_here} elements for {invocations} invocations, so its elements are not the rows",
                decl.name
            )));
        }
    }
    if !program
        .buffers
        .iter()
        .any(|d| d.access == BufferAccess::Read)
    {
        // DataFusion evaluates a function of no argument once, as a constant.
        return Err(unsupported(
            "it has no `read` buffer, and a function of no argument is a constant",
        ));
    }
    let rows = output.ok_or_else(|| unsupported("it has no `output` buffer"))?;
    usize::try_from(rows).map_err(|_| unsupported("it has more rows than this host addresses"))
}

/// The record batch of the function's arguments: column `c{i}` from the input of the `i`th `read`
/// buffer.
fn arguments(
    program: &Program,
    plan: &DispatchPlan,
    inputs: &[Vec<u8>],
    rows: usize,
) -> Result<RecordBatch, BackendError> {
    let mut columns: Vec<(String, ArrayRef)> = Vec::new();
    for (decl, buffer) in program.buffers.iter().zip(&plan.buffers) {
        if decl.access != BufferAccess::Read {
            continue;
        }
        let input = buffer.input.and_then(|i| inputs.get(i));
        let mut bytes = input.cloned().unwrap_or_default();
        // A shorter input is zero-extended to the buffer's length (SEMANTICS.md section 1).
        bytes.resize(rows * decl.element.size_bytes(), 0);
        columns.push((
            format!("c{}", columns.len()),
            column(decl.element, &bytes, rows),
        ));
    }
    RecordBatch::try_from_iter(columns).map_err(|e| {
        BackendError::new(format!(
            "UdfBackend: could not make the argument batch: {e}. Fix: this is a bug in vyre-datafusion; report it with the program."
        ))
    })
}

/// `rows` elements of vyre type `ty` from little-endian `bytes`, as an Arrow column.
fn column(ty: DataType, bytes: &[u8], rows: usize) -> ArrayRef {
    fn primitive<T: ArrowPrimitiveType>(bytes: &[u8], rows: usize) -> ArrayRef {
        // `from_slice_ref` copies into an allocation aligned for any Arrow type.
        let values = ScalarBuffer::<T::Native>::new(Buffer::from_slice_ref(bytes), 0, rows);
        Arc::new(PrimitiveArray::<T>::new(values, None))
    }
    match ty {
        DataType::Bool => Arc::new(BooleanArray::from(
            bytes
                .chunks_exact(4)
                .map(|w| w.iter().any(|&b| b != 0))
                .collect::<Vec<bool>>(),
        )),
        DataType::U32 => primitive::<UInt32Type>(bytes, rows),
        DataType::I32 => primitive::<Int32Type>(bytes, rows),
        DataType::F32 => primitive::<Float32Type>(bytes, rows),
        DataType::F16 => primitive::<Float16Type>(bytes, rows),
        DataType::U64 => primitive::<UInt64Type>(bytes, rows),
        DataType::I64 => primitive::<Int64Type>(bytes, rows),
    }
}

/// Appends the elements of result column `array` (of vyre type `ty`) to `out`, as vyre lays them
/// out.
fn append_bytes(out: &mut Vec<u8>, array: &ArrayRef, ty: DataType) -> Result<(), BackendError> {
    fn primitive<T: ArrowPrimitiveType>(out: &mut Vec<u8>, array: &ArrayRef) -> Option<()> {
        let values = array.as_primitive_opt::<T>()?.values();
        out.extend_from_slice(values.inner().as_slice());
        Some(())
    }
    let wrong = || {
        BackendError::new(format!(
            "UdfBackend: the query returned a column of {} ({} nulls) for a result of {}. Fix: this is a bug in vyre-datafusion; report it with the program.",
            array.data_type(),
            array.null_count(),
            arrow_type(ty)
        ))
    };
    if array.null_count() != 0 || *array.data_type() != arrow_type(ty) {
        return Err(wrong());
    }
    let done = match ty {
        DataType::Bool => array.as_boolean_opt().map(|a| {
            out.extend(a.values().iter().flat_map(|b| u32::from(b).to_le_bytes()));
        }),
        DataType::U32 => primitive::<UInt32Type>(out, array),
        DataType::I32 => primitive::<Int32Type>(out, array),
        DataType::F32 => primitive::<Float32Type>(out, array),
        DataType::F16 => primitive::<Float16Type>(out, array),
        DataType::U64 => primitive::<UInt64Type>(out, array),
        DataType::I64 => primitive::<Int64Type>(out, array),
    };
    done.ok_or_else(wrong)
}

/// [`BackendError::Unsupported`]: the program or its dispatch is not a function's.
fn unsupported(reason: &str) -> BackendError {
    BackendError::unsupported(format!(
        "UdfBackend runs only what a DataFusion function computes, and this dispatch is not: {reason}. Fix: dispatch an elementwise program over a one-dimensional grid of exactly one invocation per element of its `output` and of each `read` buffer (vyre_datafusion::VyreUdf's rule), or run it on the inner backend."
    ))
}

/// The backend error a function's error stands for: the inner backend's own error where it
/// failed, [`BackendError::Unsupported`] where the program is no function, a limit where a batch
/// is too long.
fn backend_error(error: UdfError) -> BackendError {
    match error {
        UdfError::Backend { source, .. } | UdfError::NoBackend { source, .. } => source,
        UdfError::InvalidProgram { errors, .. } => BackendError::InvalidProgram(errors),
        UdfError::NotElementwise { .. } => unsupported(&error.to_string()),
        UdfError::TooLong { .. } => BackendError::limit_exceeded(error.to_string()),
        // A function's bytes in a serialized plan: no plan is (de)serialized here.
        UdfError::ArgumentCount { .. }
        | UdfError::ArgumentType { .. }
        | UdfError::Malformed { .. } => BackendError::new(format!(
            "UdfBackend called its function wrongly: {error}. Fix: this is a bug in vyre-datafusion; report it with the program."
        )),
    }
}

/// The backend error a failed query stands for: the function's (see [`backend_error`]) where it
/// is one, else DataFusion's own, which no correct run gives.
fn datafusion_error(error: DataFusionError, id: &str) -> BackendError {
    match error {
        DataFusionError::External(boxed) => match boxed.downcast::<UdfError>() {
            Ok(udf) => backend_error(*udf),
            Err(other) => query_failed(&other.to_string(), id),
        },
        DataFusionError::Context(_, inner) => datafusion_error(*inner, id),
        other => query_failed(&other.to_string(), id),
    }
}

fn query_failed(message: &str, id: &str) -> BackendError {
    BackendError::new(format!(
        "`{id}`: the DataFusion query failed: {message}. Fix: this is a bug in vyre-datafusion (or DataFusion); report it with the program."
    ))
}
