//! The server side: a Ballista scheduler and executors that carry vyre functions, as
//! configurations for Ballista's own process entry points, and a small in-process cluster.
//!
//! [`scheduler_config`] and [`executor_config`] are Ballista's defaults with the vyre codecs
//! registered; the `vyre-ballista-scheduler` and `vyre-ballista-executor` binaries parse their flags
//! into them and call Ballista's `start_server` and `start_executor_process`. [`LocalCluster`]
//! starts one scheduler and one executor inside the calling process (for examples and trying
//! things out); a real cluster runs the binaries, one executor per machine.

use std::net::SocketAddr;
use std::sync::Arc;

use ballista_core::error::{BallistaError, Result};
use ballista_executor::executor_process::{ExecutorProcessConfig, start_executor_process};
use ballista_scheduler::cluster::BallistaCluster;
use ballista_scheduler::config::SchedulerConfig;
use ballista_scheduler::scheduler_process::{create_scheduler, start_grpc_service_with_listener};
use datafusion_proto::protobuf::{LogicalPlanNode, PhysicalPlanNode};
use tokio::net::TcpListener;
use tokio::task::JoinHandle;
use vyre::VyreBackend;

use crate::codec::{VyreLogicalCodec, VyrePhysicalCodec};

/// Ballista's default scheduler configuration listening on `bind_host:port`, with the vyre
/// codecs: plans from clients decode their vyre functions (planned on the reference backend, so
/// the scheduler needs no GPU), and stage plans carry them on to the executors.
#[must_use]
pub fn scheduler_config(bind_host: &str, port: u16) -> SchedulerConfig {
    let mut config = SchedulerConfig {
        bind_host: bind_host.to_string(),
        bind_port: port,
        override_logical_codec: Some(Arc::new(VyreLogicalCodec::new())),
        override_physical_codec: Some(Arc::new(VyrePhysicalCodec::with_backend(Arc::new(
            vyre::ReferenceBackend::new(),
        )))),
        ..SchedulerConfig::default()
    };
    if bind_host != "0.0.0.0" {
        config.external_host = bind_host.to_string();
    }
    config
}

/// Ballista's default executor configuration for the scheduler at `scheduler_host:scheduler_port`,
/// with the vyre codecs: a vyre function arriving in a stage plan is rebuilt from its bytes and
/// runs on `backend`, or, for `None`, on the backend `vyre::select` picks in this process.
#[must_use]
pub fn executor_config(
    scheduler_host: &str,
    scheduler_port: u16,
    backend: Option<Arc<dyn VyreBackend>>,
) -> ExecutorProcessConfig {
    let physical = match backend {
        Some(backend) => VyrePhysicalCodec::with_backend(backend),
        None => VyrePhysicalCodec::new(),
    };
    ExecutorProcessConfig {
        scheduler_host: scheduler_host.to_string(),
        scheduler_port,
        override_logical_codec: Some(Arc::new(VyreLogicalCodec::new())),
        override_physical_codec: Some(Arc::new(physical)),
        ..ExecutorProcessConfig::default()
    }
}

/// Runs a scheduler configured by `config` on `listener` until the process ends.
///
/// # Errors
///
/// Ballista's, when the scheduler cannot start or its service stops.
pub async fn run_scheduler(listener: TcpListener, config: SchedulerConfig) -> Result<()> {
    config.validate()?;
    let config = Arc::new(config);
    let cluster = BallistaCluster::new_from_config(&config).await?;
    let scheduler =
        create_scheduler::<LogicalPlanNode, PhysicalPlanNode>(cluster, Arc::clone(&config)).await?;
    start_grpc_service_with_listener(listener, scheduler).await
}

/// A scheduler and one executor running inside this process, on free loopback ports; they stop
/// when it is dropped.
#[derive(Debug)]
pub struct LocalCluster {
    scheduler: SocketAddr,
    tasks: Vec<JoinHandle<Result<()>>>,
}

impl LocalCluster {
    /// Starts the scheduler and an executor running `concurrent_tasks` tasks at once on
    /// `backend` (`None`: the one `vyre::select` picks).
    ///
    /// # Errors
    ///
    /// [`BallistaError`] when a port cannot be bound.
    pub async fn start(
        concurrent_tasks: usize,
        backend: Option<Arc<dyn VyreBackend>>,
    ) -> Result<Self> {
        let listener = TcpListener::bind("127.0.0.1:0").await?;
        let scheduler = listener.local_addr()?;
        let config = scheduler_config("127.0.0.1", scheduler.port());
        let mut tasks = vec![tokio::spawn(run_scheduler(listener, config))];

        let mut executor = executor_config("127.0.0.1", scheduler.port(), backend);
        executor.bind_host = "127.0.0.1".to_string();
        executor.port = free_port()?;
        executor.grpc_port = free_port()?;
        executor.vcores = concurrent_tasks.max(1);
        // Executors that start before the scheduler listens keep trying for this long.
        executor.scheduler_connect_timeout_seconds = 30;
        tasks.push(tokio::spawn(start_executor_process(Arc::new(executor))));
        Ok(Self { scheduler, tasks })
    }

    /// The scheduler's URL, for [`crate::ClientBuilder::new`].
    #[must_use]
    pub fn scheduler_url(&self) -> String {
        format!("df://{}", self.scheduler)
    }
}

impl Drop for LocalCluster {
    fn drop(&mut self) {
        for task in &self.tasks {
            task.abort();
        }
    }
}

/// A loopback port no one listens on now (the OS's next free one; taken again by whoever binds
/// it first, which on a test machine is, in practice, the caller).
///
/// # Errors
///
/// [`BallistaError::IoError`] when no port can be bound.
pub fn free_port() -> Result<u16> {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").map_err(BallistaError::from)?;
    Ok(listener.local_addr()?.port())
}

/// The task scheduling policy the command line names, for the scheduler's and the executor's
/// `--*-policy` flags: `pull-staged` or `push-staged`.
///
/// # Errors
///
/// A message with a `Fix:` for any other text.
pub fn parse_policy(
    text: &str,
) -> std::result::Result<ballista_core::config::TaskSchedulingPolicy, String> {
    use ballista_core::config::TaskSchedulingPolicy;
    match text {
        "pull-staged" => Ok(TaskSchedulingPolicy::PullStaged),
        "push-staged" => Ok(TaskSchedulingPolicy::PushStaged),
        other => Err(format!(
            "`{other}` is not a scheduling policy. Fix: write `pull-staged` or `push-staged`."
        )),
    }
}
