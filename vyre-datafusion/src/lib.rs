//! vyre programs as [Apache DataFusion](https://datafusion.apache.org) functions over Arrow data.
//!
//! # The model
//!
//! A DataFusion scalar function maps each row of its argument columns to one value. A vyre
//! [`Program`](vyre::ir::Program) is such a function when it is *elementwise*: invocation
//! `gid.x = i` reads element `i` of each of its `read` buffers and writes element `i` of its one
//! `output` buffer, and indexes every storage buffer with exactly `gid.x`
//! (`vyre_foundation::elementwise` states the rule and why it makes a row depend on that row
//! alone). [`VyreUdf`] wraps such a program:
//!
//! - **Arguments** are the `read` buffers in declaration order, one per argument column; the
//!   result is the `output` buffer. No `read_write` or `uniform` buffer; workgroup buffers are
//!   private scratch and allowed.
//! - **Types** map one to one ([`arrow_type`]): `u32`/`i32`/`f32`/`f16`/`u64`/`i64` to
//!   `UInt32`/`Int32`/`Float32`/`Float16`/`UInt64`/`Int64`, `bool` to `Boolean`. An argument of a
//!   narrower integer type is widened by DataFusion; any other type is an error that says which
//!   cast to write.
//! - **A batch** is one resident dispatch: each primitive column's Arrow values buffer is written
//!   to a device buffer straight from Arrow's memory (no host copy; booleans are widened to
//!   words), the program runs over a power-of-two capacity of rows, and the batch's rows are read
//!   back into an Arrow array. The counts the program declares are ignored (see `kernel.rs`).
//! - **Scalars** (`f(x, 3)`) are broadcast to every row; a null scalar makes the whole result null
//!   without a dispatch.
//! - **Nulls** never reach the device: a row is null when any argument's row is (DataFusion's
//!   strict-function rule), and the value computed for it is dropped.
//! - **Errors** (an invalid or non-elementwise program, a wrong argument count or type, a batch
//!   longer than one dispatch holds, a backend failure) are [`UdfError`]s inside a
//!   `DataFusionError::External`, each naming the function and ending with `Fix: ...`. Nothing
//!   panics on bad input.
//!
//! ```
//! use std::sync::Arc;
//! use datafusion::arrow::array::{Array, Int64Array};
//! use datafusion::logical_expr::ScalarUDF;
//! use datafusion::prelude::SessionContext;
//! use vyre::ir::{BufferDecl, DataType, Expr, Node, Program};
//! use vyre_datafusion::VyreUdf;
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! // `y = 3 * x + 1` over Int64 columns (SQL's integer literals are Int64).
//! let x = Expr::load("x", Expr::gid_x());
//! let program = Program::new(
//!     vec![
//!         BufferDecl::read("x", 0, DataType::I64),
//!         BufferDecl::output("y", 1, DataType::I64).with_count(1),
//!     ],
//!     [64, 1, 1],
//!     vec![Node::store("y", Expr::gid_x(), x * 3i64 + 1i64)],
//! );
//! let udf = VyreUdf::builder("affine", program)
//!     .backend(Arc::new(vyre::ReferenceBackend::new())) // `VyreUdf::new` lets vyre choose
//!     .build()?;
//! let ctx = SessionContext::new();
//! ctx.register_udf(ScalarUDF::new_from_impl(udf));
//! let batches = ctx
//!     .sql("SELECT affine(v) FROM (VALUES (1), (NULL), (5)) AS t(v)")
//!     .await?
//!     .collect()
//!     .await?;
//! let column = batches[0].column(0).as_any().downcast_ref::<Int64Array>().expect("Int64");
//! assert_eq!(column.iter().collect::<Vec<_>>(), [Some(4), None, Some(16)]);
//! # Ok(())
//! # }
//! ```

mod codec;
mod columns;
mod error;
mod kernel;
mod options;
mod plan;
mod pool;
mod sequence;
mod types;
mod udf;
mod udf_backend;

pub use codec::{UDF_MAGIC, VyreCodec};
pub use error::UdfError;
pub use options::VyreOptions;
pub use plan::{VyreExec, VyreRule};
pub use types::{arrow_type, vyre_type};
pub use udf::{VyreUdf, VyreUdfBuilder};
pub use udf_backend::UdfBackend;
