//! The codecs a Ballista cluster needs to carry vyre functions: [`VyreLogicalCodec`] for the
//! logical plan a client sends its scheduler, [`VyrePhysicalCodec`] for the stage plans the
//! scheduler sends its executors.
//!
//! Each wraps Ballista's own codec (shuffle readers and writers, file formats, cache nodes) and
//! adds vyre-datafusion's [`VyreCodec`] for functions: a vyre function travels as its name and its
//! program's wire bytes, and the receiving process rebuilds and re-validates it, so neither the
//! scheduler nor an executor needs to know a function in advance. Bytes that are not a program,
//! or a program that fails validation, give vyre-datafusion's `UdfError` (naming the function,
//! ending in `Fix: ...`) instead of a panic.
//!
//! Where decoded functions run: the logical codec's functions are only ever *planned* (the
//! scheduler asks for their return type), so by default they get the reference backend and the
//! scheduler opens no GPU. The physical codec's functions run, on the backend chosen for the
//! executor ([`VyrePhysicalCodec::with_backend`]) or the one `vyre::select` picks there.

use std::sync::Arc;

use ballista_core::serde::{BallistaLogicalExtensionCodec, BallistaPhysicalExtensionCodec};
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::catalog::TableProvider;
use datafusion::common::TableReference;
use datafusion::datasource::file_format::FileFormatFactory;
use datafusion::error::{DataFusionError, Result};
use datafusion::execution::TaskContext;
use datafusion::logical_expr::{Extension, LogicalPlan, ScalarUDF};
use datafusion::physical_plan::ExecutionPlan;
use datafusion_proto::logical_plan::LogicalExtensionCodec;
use datafusion_proto::physical_plan::{PhysicalExtensionCodec, PhysicalProtoConverterExtension};
use vyre::VyreBackend;
use vyre_datafusion::{VyreCodec, VyreExec};

/// The first bytes of a [`VyreExec`] node as [`VyreCodec`] writes it; any other node is Ballista's.
const VYRE_EXEC_PREFIX: &[u8] = b"vyre-exe";

/// `error` with its `External` source shown by its message even where it is formatted with
/// `{:?}`: Ballista reports a plan that fails to decode by the `Debug` form of the error, which
/// would otherwise bury the function's name and its `Fix:` in struct syntax and escaped quotes.
fn readable(error: DataFusionError) -> DataFusionError {
    match error {
        DataFusionError::External(source) => DataFusionError::External(Box::new(Readable(source))),
        other => other,
    }
}

/// An error whose `Debug` is its `Display`; its source is the error it wraps.
struct Readable(Box<dyn std::error::Error + Send + Sync>);

impl std::fmt::Debug for Readable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(&self.0, f)
    }
}

impl std::fmt::Display for Readable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(&self.0, f)
    }
}

impl std::error::Error for Readable {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(self.0.as_ref())
    }
}

/// Ballista's logical codec plus vyre functions: register it on the client
/// ([`crate::ClientBuilder`] does) and on the scheduler ([`crate::scheduler_config`] does).
#[derive(Debug)]
pub struct VyreLogicalCodec {
    ballista: BallistaLogicalExtensionCodec,
    functions: VyreCodec,
}

impl VyreLogicalCodec {
    /// A codec whose decoded functions are planned on the reference backend.
    #[must_use]
    pub fn new() -> Self {
        Self::with_backend(Arc::new(vyre::ReferenceBackend::new()))
    }

    /// A codec whose decoded functions run on `backend`.
    #[must_use]
    pub fn with_backend(backend: Arc<dyn VyreBackend>) -> Self {
        Self {
            ballista: BallistaLogicalExtensionCodec::default(),
            functions: VyreCodec::with_backend(backend),
        }
    }
}

impl Default for VyreLogicalCodec {
    fn default() -> Self {
        Self::new()
    }
}

impl LogicalExtensionCodec for VyreLogicalCodec {
    fn try_decode(
        &self,
        buf: &[u8],
        inputs: &[LogicalPlan],
        ctx: &TaskContext,
    ) -> Result<Extension> {
        self.ballista.try_decode(buf, inputs, ctx)
    }

    fn try_encode(&self, node: &Extension, buf: &mut Vec<u8>) -> Result<()> {
        self.ballista.try_encode(node, buf)
    }

    fn try_decode_table_provider(
        &self,
        buf: &[u8],
        table_ref: &TableReference,
        schema: SchemaRef,
        ctx: &TaskContext,
    ) -> Result<Arc<dyn TableProvider>> {
        self.ballista
            .try_decode_table_provider(buf, table_ref, schema, ctx)
    }

    fn try_encode_table_provider(
        &self,
        table_ref: &TableReference,
        node: Arc<dyn TableProvider>,
        buf: &mut Vec<u8>,
    ) -> Result<()> {
        self.ballista
            .try_encode_table_provider(table_ref, node, buf)
    }

    fn try_decode_file_format(
        &self,
        buf: &[u8],
        ctx: &TaskContext,
    ) -> Result<Arc<dyn FileFormatFactory>> {
        self.ballista.try_decode_file_format(buf, ctx)
    }

    fn try_encode_file_format(
        &self,
        buf: &mut Vec<u8>,
        node: Arc<dyn FileFormatFactory>,
    ) -> Result<()> {
        self.ballista.try_encode_file_format(buf, node)
    }

    fn try_decode_udf(&self, name: &str, buf: &[u8]) -> Result<Arc<ScalarUDF>> {
        self.functions.try_decode_udf(name, buf).map_err(readable)
    }

    fn try_encode_udf(&self, node: &ScalarUDF, buf: &mut Vec<u8>) -> Result<()> {
        self.functions.try_encode_udf(node, buf)
    }
}

/// Ballista's physical codec plus vyre functions and [`VyreExec`] nodes: register it on the
/// scheduler ([`crate::scheduler_config`]) and on every executor ([`crate::executor_config`]).
#[derive(Debug)]
pub struct VyrePhysicalCodec {
    ballista: BallistaPhysicalExtensionCodec,
    functions: VyreCodec,
}

impl VyrePhysicalCodec {
    /// A codec whose decoded functions run on the backend `vyre::select` picks in this process
    /// (opened once, by the first function that needs it).
    #[must_use]
    pub fn new() -> Self {
        Self {
            ballista: BallistaPhysicalExtensionCodec::default(),
            functions: VyreCodec::new(),
        }
    }

    /// A codec whose decoded functions run on `backend`.
    #[must_use]
    pub fn with_backend(backend: Arc<dyn VyreBackend>) -> Self {
        Self {
            ballista: BallistaPhysicalExtensionCodec::default(),
            functions: VyreCodec::with_backend(backend),
        }
    }
}

impl Default for VyrePhysicalCodec {
    fn default() -> Self {
        Self::new()
    }
}

impl PhysicalExtensionCodec for VyrePhysicalCodec {
    fn try_decode(
        &self,
        buf: &[u8],
        inputs: &[Arc<dyn ExecutionPlan>],
        ctx: &TaskContext,
        proto_converter: &dyn PhysicalProtoConverterExtension,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        if buf.starts_with(VYRE_EXEC_PREFIX) {
            self.functions.try_decode(buf, inputs, ctx, proto_converter)
        } else {
            self.ballista.try_decode(buf, inputs, ctx, proto_converter)
        }
    }

    fn try_encode(
        &self,
        node: Arc<dyn ExecutionPlan>,
        buf: &mut Vec<u8>,
        proto_converter: &dyn PhysicalProtoConverterExtension,
    ) -> Result<()> {
        if (node.as_ref() as &dyn std::any::Any).is::<VyreExec>() {
            self.functions.try_encode(node, buf, proto_converter)
        } else {
            self.ballista.try_encode(node, buf, proto_converter)
        }
    }

    fn try_decode_udf(&self, name: &str, buf: &[u8]) -> Result<Arc<ScalarUDF>> {
        self.functions.try_decode_udf(name, buf).map_err(readable)
    }

    fn try_encode_udf(&self, node: &ScalarUDF, buf: &mut Vec<u8>) -> Result<()> {
        self.functions.try_encode_udf(node, buf)
    }
}
