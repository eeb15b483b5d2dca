//! The client side: a DataFusion `SessionContext` whose queries run on a Ballista cluster and may
//! call vyre functions.
//!
//! The client only plans. Its vyre functions are built on the reference backend (their SQL
//! signatures and return types come from the program; no GPU is opened), the logical plan goes to
//! the scheduler through [`VyreLogicalCodec`] with each function's program inside it, and the
//! executors run the functions on their own backends.

use std::sync::Arc;

use ballista_core::extension::{SessionConfigExt, SessionStateExt};
use datafusion::error::{DataFusionError, Result};
use datafusion::execution::SessionStateBuilder;
use datafusion::logical_expr::ScalarUDF;
use datafusion::prelude::{SessionConfig, SessionContext};
use datafusion_proto::logical_plan::LogicalExtensionCodec;
use vyre::ir::Program;
use vyre_datafusion::VyreUdf;

use crate::codec::{VyreLogicalCodec, VyrePhysicalCodec};

/// Builds a client [`SessionContext`] for the Ballista scheduler at a URL, with vyre functions.
///
/// ```no_run
/// use vyre::ir::{BufferDecl, DataType, Expr, Node, Program};
/// use vyre_ballista::ClientBuilder;
///
/// # async fn run() -> datafusion::error::Result<()> {
/// let x = Expr::load("x", Expr::gid_x());
/// let square = Program::new(
///     vec![
///         BufferDecl::read("x", 0, DataType::I64),
///         BufferDecl::output("y", 1, DataType::I64).with_count(1),
///     ],
///     [64, 1, 1],
///     vec![Node::store("y", Expr::gid_x(), x.clone() * x)],
/// );
/// let ctx = ClientBuilder::new("df://localhost:50050")
///     .function("square", square)
///     .build()?;
/// ctx.register_parquet("t", "/data/t", Default::default()).await?;
/// ctx.sql("SELECT square(v) FROM t WHERE square(v) > 10").await?.show().await?;
/// # Ok(())
/// # }
/// ```
#[derive(Debug)]
#[must_use]
pub struct ClientBuilder {
    scheduler_url: String,
    config: SessionConfig,
    functions: Vec<(String, Program)>,
    logical_codec: Option<Arc<dyn LogicalExtensionCodec>>,
}

impl ClientBuilder {
    /// A client of the scheduler at `scheduler_url`: `df://host:port`, `http://host:port` or
    /// `host:port`.
    pub fn new(scheduler_url: impl Into<String>) -> Self {
        Self {
            scheduler_url: scheduler_url.into(),
            config: SessionConfig::new(),
            functions: Vec::new(),
            logical_codec: None,
        }
    }

    /// Starts from `config` (batch size, partitions, Ballista settings) instead of DataFusion's
    /// defaults; the vyre codecs are added to it.
    pub fn config(mut self, config: SessionConfig) -> Self {
        self.config = config;
        self
    }

    /// Registers the vyre function `name` running `program` (an elementwise program, as for
    /// [`VyreUdf`]).
    pub fn function(mut self, name: impl Into<String>, program: Program) -> Self {
        self.functions.push((name.into(), program));
        self
    }

    /// Sends plans through `codec` instead of a [`VyreLogicalCodec`]: for a codec that adds
    /// extension nodes of its own and hands functions to a `VyreLogicalCodec` it wraps. The
    /// scheduler must decode what it writes.
    pub fn logical_codec(mut self, codec: Arc<dyn LogicalExtensionCodec>) -> Self {
        self.logical_codec = Some(codec);
        self
    }

    /// The session.
    ///
    /// # Errors
    ///
    /// A `UdfError` (inside `DataFusionError::External`) for a program that is not an elementwise
    /// function; `DataFusionError::Configuration` for a URL without a host.
    pub fn build(self) -> Result<SessionContext> {
        let url = http_url(&self.scheduler_url)?;
        let config = self
            .config
            .with_ballista_logical_extension_codec(
                self.logical_codec
                    .unwrap_or_else(|| Arc::new(VyreLogicalCodec::new())),
            )
            .with_ballista_physical_extension_codec(Arc::new(VyrePhysicalCodec::new()));
        let state = SessionStateBuilder::new()
            .with_config(config)
            .with_default_features()
            .build()
            .upgrade_for_ballista(url)?;
        let ctx = SessionContext::new_with_state(state);
        let planner: Arc<dyn vyre::VyreBackend> = Arc::new(vyre::ReferenceBackend::new());
        for (name, program) in self.functions {
            let udf = VyreUdf::builder(name, program)
                .backend(Arc::clone(&planner))
                .build()?;
            ctx.register_udf(ScalarUDF::new_from_impl(udf));
        }
        Ok(ctx)
    }
}

/// `http://host:port` from the forms [`ClientBuilder::new`] accepts.
fn http_url(url: &str) -> Result<String> {
    let rest = url
        .strip_prefix("df://")
        .or_else(|| url.strip_prefix("http://"))
        .unwrap_or(url)
        .trim_end_matches('/');
    if rest.is_empty() || rest.starts_with(':') || rest.contains("://") {
        return Err(DataFusionError::Configuration(format!(
            "`{url}` is not a scheduler URL. Fix: write `df://HOST:PORT`, e.g. `df://localhost:50050`."
        )));
    }
    let with_port = if rest.contains(':') {
        rest.to_string()
    } else {
        format!("{rest}:50050")
    };
    Ok(format!("http://{with_port}"))
}

#[cfg(test)]
mod tests {
    use super::http_url;

    #[test]
    fn scheduler_urls_become_http_urls() {
        assert_eq!(http_url("df://h:1").ok().as_deref(), Some("http://h:1"));
        assert_eq!(http_url("http://h:1/").ok().as_deref(), Some("http://h:1"));
        assert_eq!(http_url("h").ok().as_deref(), Some("http://h:50050"));
        let err = http_url("grpc://h:1").err().map(|e| e.to_string());
        assert!(err.is_some_and(|e| e.contains("Fix: ")));
    }
}
