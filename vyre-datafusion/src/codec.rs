//! `VyreCodec`: vyre functions and [`VyreExec`] nodes inside serialized DataFusion plans, so that
//! a plan made on one machine runs on another (Ballista's scheduler and executors).
//!
//! A function travels as its name (DataFusion's own field) and [`UDF_MAGIC`] followed by its
//! program's wire bytes (`WIRE.md`: versioned, checked on read). The receiving side rebuilds the
//! function with [`VyreUdf`]'s checks on *its* backend, so a program that fails validation there,
//! or bytes that are not a program, are [`UdfError`]s with a `Fix:`, never a panic.
//!
//! A [`VyreExec`] travels as the projection or filter it replaced, with its input cut off (an
//! `EmptyExec` of the input's schema stands in; DataFusion ships the real input as the node's
//! child), and is compiled again on arrival.

use std::sync::Arc;

use datafusion::error::{DataFusionError, Result};
use datafusion::execution::TaskContext;
use datafusion::logical_expr::ScalarUDF;
use datafusion::physical_plan::ExecutionPlan;
use datafusion::physical_plan::empty::EmptyExec;
use datafusion_proto::physical_plan::{
    AsExecutionPlan, PhysicalExtensionCodec, PhysicalProtoConverterExtension,
};
use datafusion_proto::protobuf::PhysicalPlanNode;
use vyre::VyreBackend;
use vyre::ir::Program;

use crate::error::UdfError;
use crate::plan::VyreExec;
use crate::udf::VyreUdf;

/// The bytes every serialized vyre function starts with (then the program's wire bytes).
pub const UDF_MAGIC: &[u8; 8] = b"vyre-udf";

/// The bytes every serialized [`VyreExec`] starts with (then the replaced plan, as protobuf).
const EXEC_MAGIC: &[u8; 8] = b"vyre-exe";

/// A `PhysicalExtensionCodec` for vyre functions and [`VyreExec`] nodes. Functions decoded by it
/// run on its backend (by default the one `vyre::select` picks on the decoding machine).
///
/// ```
/// use std::sync::Arc;
/// use datafusion_proto::physical_plan::PhysicalExtensionCodec;
/// use datafusion::logical_expr::ScalarUDF;
/// use vyre::ir::{BufferDecl, DataType, Expr, Node, Program};
/// use vyre_datafusion::{VyreCodec, VyreUdf};
///
/// let program = Program::new(
///     vec![
///         BufferDecl::read("x", 0, DataType::U32),
///         BufferDecl::output("y", 1, DataType::U32).with_count(1),
///     ],
///     [64, 1, 1],
///     vec![Node::store("y", Expr::gid_x(), Expr::load("x", Expr::gid_x()) + 1u32)],
/// );
/// let backend: Arc<dyn vyre::VyreBackend> = Arc::new(vyre::ReferenceBackend::new());
/// let udf = VyreUdf::builder("inc", program.clone()).backend(Arc::clone(&backend)).build()?;
/// let codec = VyreCodec::with_backend(backend);
/// let mut bytes = Vec::new();
/// codec.try_encode_udf(&ScalarUDF::new_from_impl(udf), &mut bytes)?;
/// let back = codec.try_decode_udf("inc", &bytes)?;
/// assert_eq!(back.inner().downcast_ref::<VyreUdf>().map(VyreUdf::program), Some(&program));
/// // Anything else is an error that says what to do.
/// let err = codec.try_decode_udf("inc", b"not a program").unwrap_err();
/// assert!(err.to_string().contains("Fix: "));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Default)]
pub struct VyreCodec {
    backend: Option<Arc<dyn VyreBackend>>,
}

impl VyreCodec {
    /// A codec whose decoded functions run on the backend `vyre::select` picks.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// A codec whose decoded functions run on `backend`.
    #[must_use]
    pub fn with_backend(backend: Arc<dyn VyreBackend>) -> Self {
        Self {
            backend: Some(backend),
        }
    }

    /// The function `name` from the bytes [`PhysicalExtensionCodec::try_encode_udf`] wrote.
    fn decode_udf(&self, name: &str, buf: &[u8]) -> Result<VyreUdf, UdfError> {
        let malformed = |reason: String| UdfError::Malformed {
            name: name.to_string(),
            reason,
        };
        let Some(wire) = buf.strip_prefix(UDF_MAGIC.as_slice()) else {
            return Err(malformed(format!(
                "its {} bytes do not start with `vyre-udf`",
                buf.len()
            )));
        };
        let program = Program::from_bytes(wire).map_err(|e| malformed(e.to_string()))?;
        let builder = VyreUdf::builder(name, program);
        match &self.backend {
            Some(backend) => builder.backend(Arc::clone(backend)).build(),
            None => builder.build(),
        }
    }
}

impl std::fmt::Debug for VyreCodec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VyreCodec")
            .field(
                "backend",
                &self.backend.as_ref().map(|b| b.id().to_string()),
            )
            .finish()
    }
}

/// The error for a plan node this codec does not know.
fn not_ours(what: &str) -> DataFusionError {
    DataFusionError::NotImplemented(format!(
        "VyreCodec does not serialize {what}. Fix: compose VyreCodec with the codec that knows it (`datafusion_proto::physical_plan::ComposedPhysicalExtensionCodec`)."
    ))
}

impl PhysicalExtensionCodec for VyreCodec {
    fn try_decode(
        &self,
        buf: &[u8],
        inputs: &[Arc<dyn ExecutionPlan>],
        ctx: &TaskContext,
        _proto_converter: &dyn PhysicalProtoConverterExtension,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let Some(node) = buf.strip_prefix(EXEC_MAGIC.as_slice()) else {
            return Err(not_ours("this node (its bytes are not a VyreExec's)"));
        };
        let stub = PhysicalPlanNode::try_decode(node)?.try_into_physical_plan(ctx, self)?;
        #[expect(
            deprecated,
            reason = "DataFusion 55 still requires and calls this method"
        )]
        let original = stub.with_new_children(inputs.to_vec())?;
        match VyreExec::try_new(Arc::clone(&original)) {
            Some(exec) => Ok(Arc::new(exec)),
            // The functions decoded, but no longer form a vyre-only node (another codec
            // version?): the plan still runs, function by function.
            None => Ok(original),
        }
    }

    fn try_encode(
        &self,
        node: Arc<dyn ExecutionPlan>,
        buf: &mut Vec<u8>,
        proto_converter: &dyn PhysicalProtoConverterExtension,
    ) -> Result<()> {
        let Some(exec) = (node.as_ref() as &dyn std::any::Any).downcast_ref::<VyreExec>() else {
            return Err(not_ours(&format!("`{}`", node.name())));
        };
        let original = Arc::clone(exec.original());
        let input = original
            .children()
            .first()
            .map(|c| c.schema())
            .ok_or_else(|| not_ours("a VyreExec without an input"))?;
        #[expect(
            deprecated,
            reason = "DataFusion 55 still requires and calls this method"
        )]
        let stub = original.with_new_children(vec![Arc::new(EmptyExec::new(input))])?;
        buf.extend_from_slice(EXEC_MAGIC);
        proto_converter
            .execution_plan_to_proto(&stub, self)?
            .try_encode(buf)
    }

    fn try_decode_udf(&self, name: &str, buf: &[u8]) -> Result<Arc<ScalarUDF>> {
        let udf = self.decode_udf(name, buf)?;
        Ok(Arc::new(ScalarUDF::new_from_impl(udf)))
    }

    fn try_encode_udf(&self, node: &ScalarUDF, buf: &mut Vec<u8>) -> Result<()> {
        // Other functions write nothing, and DataFusion finds them by name on arrival.
        if let Some(udf) = node.inner().downcast_ref::<VyreUdf>() {
            buf.extend_from_slice(UDF_MAGIC);
            buf.extend_from_slice(&udf.program().to_bytes());
        }
        Ok(())
    }
}
