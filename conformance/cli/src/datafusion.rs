//! `vyre-conform fuzz --datafusion`: the backend under test behind DataFusion queries
//! (`vyre_datafusion::UdfBackend`), present when the `datafusion` feature is on (the default).

use vyre::VyreBackend;

/// `backend` behind DataFusion: each dispatch runs as a `VyreUdf` in a query.
#[cfg(feature = "datafusion")]
pub(crate) fn candidate(backend: Box<dyn VyreBackend>) -> Result<Box<dyn VyreBackend>, String> {
    let udf = vyre_datafusion::UdfBackend::new(std::sync::Arc::from(backend))
        .map_err(|e| e.to_string())?;
    Ok(Box::new(udf))
}

/// Without the `datafusion` feature there is no DataFusion to run: a usage error.
#[cfg(not(feature = "datafusion"))]
pub(crate) fn candidate(backend: Box<dyn VyreBackend>) -> Result<Box<dyn VyreBackend>, String> {
    drop(backend);
    Err("--datafusion: this vyre-conform was built without its `datafusion` feature. Fix: build it with default features (`cargo install vyre-conform`), or leave --datafusion out.".to_string())
}
