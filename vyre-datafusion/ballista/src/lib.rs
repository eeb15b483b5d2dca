//! vyre functions on an [Apache Ballista](https://datafusion.apache.org/ballista/) cluster.
//!
//! Ballista runs DataFusion queries past one machine: a *client* plans a query and sends its
//! logical plan to a *scheduler*, which cuts the physical plan into stages and sends each stage's
//! tasks to *executors*, which run them and exchange shuffle data. A vyre function
//! ([`vyre_datafusion::VyreUdf`]) takes part as follows:
//!
//! - **The client** ([`ClientBuilder`]) registers the functions (built on the reference backend:
//!   the client only plans) and [`VyreLogicalCodec`], which writes each function's program into
//!   the logical plan as its wire bytes.
//! - **The scheduler** (the `vyre-ballista-scheduler` binary, or [`scheduler_config`] with
//!   Ballista's own entry points) decodes and re-validates the functions with the same codec,
//!   plans on the reference backend, and writes them into each stage plan with
//!   [`VyrePhysicalCodec`].
//! - **An executor** (the `vyre-ballista-executor` binary, or [`executor_config`]) rebuilds each
//!   function from the stage plan's bytes and runs it on its own backend (`vyre::select` on that
//!   machine, or `--backend`), so no executor needs to know a function in advance.
//!
//! Bytes that are not a program, or a program that fails validation, are vyre-datafusion's
//! `UdfError`s naming the function and ending in `Fix: ...`; the query fails with that message.
//!
//! ```no_run
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! // A scheduler and one executor inside this process; a real cluster runs the binaries:
//! //   vyre-ballista-scheduler --bind-port 50050
//! //   vyre-ballista-executor --scheduler-host HOST --scheduler-port 50050
//! let cluster = vyre_ballista::LocalCluster::start(2, None).await?;
//! let ctx = vyre_ballista::ClientBuilder::new(cluster.scheduler_url()).build()?;
//! ctx.sql("SELECT 1").await?.show().await?;
//! # Ok(())
//! # }
//! ```

mod client;
mod cluster;
mod codec;
mod logging;

pub use client::ClientBuilder;
pub use cluster::{
    LocalCluster, executor_config, free_port, parse_policy, run_scheduler, scheduler_config,
};
pub use codec::{VyreLogicalCodec, VyrePhysicalCodec};
pub use logging::{log_to_stderr, parse_level};
