//! `VyreOptions`: vyre-datafusion's session options, a DataFusion config extension under the
//! prefix `vyre`, so they are set the way DataFusion's own are (`SET vyre.coalesce_rows = 65536`)
//! and travel with the session's configuration.

use datafusion::common::config::{ConfigExtension, ConfigOptions};
use datafusion::common::extensions_options;

extensions_options! {
    /// vyre-datafusion's options for a session: register them with
    /// `SessionConfig::new().with_option_extension(VyreOptions::default())`, then set them in
    /// Rust or with SQL (`SET vyre.coalesce_rows = 65536`). A session without them runs with the
    /// defaults.
    ///
    /// ```
    /// use datafusion::prelude::{SessionConfig, SessionContext};
    /// use vyre_datafusion::VyreOptions;
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> datafusion::error::Result<()> {
    /// let config = SessionConfig::new().with_option_extension(VyreOptions::default());
    /// let ctx = SessionContext::new_with_config(config);
    /// ctx.sql("SET vyre.coalesce_rows = 65536").await?;
    /// let state = ctx.state();
    /// let options = state.config().options().extensions.get::<VyreOptions>();
    /// assert_eq!(options.and_then(|o| o.coalesce_rows), Some(65536));
    /// # Ok(())
    /// # }
    /// ```
    pub struct VyreOptions {
        /// A `VyreExec` runs input batches shorter than this many rows together, consecutive
        /// ones up to this many rows in one dispatch, and cuts the results back at the batches'
        /// boundaries; `0` runs every batch alone. Unset: the session's batch size
        /// (`datafusion.execution.batch_size`), the size DataFusion itself coalesces to.
        pub coalesce_rows: Option<usize>, default = None
    }
}

impl ConfigExtension for VyreOptions {
    const PREFIX: &'static str = "vyre";
}

impl VyreOptions {
    /// The coalescing target for a session of `options` (see [`VyreOptions::coalesce_rows`]).
    pub(crate) fn coalesce_target(options: &ConfigOptions) -> usize {
        options
            .extensions
            .get::<VyreOptions>()
            .and_then(|o| o.coalesce_rows)
            .unwrap_or(options.execution.batch_size.get())
    }
}
