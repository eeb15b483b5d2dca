//! `vyre-ballista-executor`: Ballista's executor process with the vyre codecs registered, so that
//! vyre functions arriving in stage plans are rebuilt from their bytes and run on this machine's
//! backend. Its flags follow Ballista's own executor's.

use std::sync::Arc;

use ballista_core::config::TaskSchedulingPolicy;
use ballista_executor::executor_process::start_executor_process;
use clap::Parser;
use log::LevelFilter;
use vyre::{Choice, VyreBackend};

/// A Ballista executor that runs vyre functions.
#[derive(Parser, Debug)]
#[command(version, about)]
struct Args {
    /// The scheduler's host.
    #[arg(long, default_value = "localhost")]
    scheduler_host: String,
    /// The scheduler's gRPC port.
    #[arg(long, default_value_t = 50050)]
    scheduler_port: u16,
    /// How long to keep trying to reach the scheduler at start (0: fail at the first try).
    #[arg(long, default_value_t = 0)]
    scheduler_connect_timeout_seconds: u16,
    /// The local address to bind to.
    #[arg(long, default_value = "0.0.0.0")]
    bind_host: String,
    /// The host name other executors and the scheduler reach this one by (default: the address
    /// the scheduler sees it connect from).
    #[arg(long)]
    external_host: Option<String>,
    /// The Arrow Flight (shuffle data) port.
    #[arg(short = 'p', long, default_value_t = 50051)]
    bind_port: u16,
    /// The gRPC (task) port.
    #[arg(long, default_value_t = 50052)]
    bind_grpc_port: u16,
    /// Tasks run at once (0: one per CPU core).
    #[arg(short = 'c', long, default_value_t = 0)]
    concurrent_tasks: usize,
    /// Where shuffle files go (default: a new temporary directory).
    #[arg(long)]
    work_dir: Option<String>,
    /// `pull-staged` (the executor polls) or `push-staged` (the scheduler pushes); must match
    /// the scheduler's.
    #[arg(long, default_value = "push-staged", value_parser = vyre_ballista::parse_policy)]
    task_scheduling_policy: TaskSchedulingPolicy,
    /// Seconds between heartbeats to the scheduler.
    #[arg(long, default_value_t = 60)]
    executor_heartbeat_interval_seconds: u64,
    /// The vyre backend functions run on: `auto` (what `vyre::select` picks on this machine) or a
    /// backend's name (`wgpu`, `reference`, ...).
    #[arg(long, default_value = "auto")]
    backend: String,
    /// The least severe log level written to standard error.
    #[arg(long, default_value = "info", value_parser = vyre_ballista::parse_level)]
    log_level: LevelFilter,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = Args::parse();
    vyre_ballista::log_to_stderr(args.log_level);
    let choice = match args.backend.as_str() {
        "auto" => Choice::Auto,
        name => Choice::Named(name),
    };
    let selected = vyre::select(choice)?;
    eprintln!("vyre-ballista-executor: {}", selected.reason);
    let backend: Arc<dyn VyreBackend> = Arc::from(selected.backend);

    let mut config =
        vyre_ballista::executor_config(&args.scheduler_host, args.scheduler_port, Some(backend));
    config.scheduler_connect_timeout_seconds = args.scheduler_connect_timeout_seconds;
    config.bind_host = args.bind_host;
    config.external_host = args.external_host;
    config.port = args.bind_port;
    config.grpc_port = args.bind_grpc_port;
    if args.concurrent_tasks > 0 {
        config.vcores = args.concurrent_tasks;
    }
    config.work_dir = args.work_dir;
    config.task_scheduling_policy = args.task_scheduling_policy;
    config.executor_heartbeat_interval_seconds = args.executor_heartbeat_interval_seconds;

    // Ballista's own executor runs on the default multi-threaded runtime too.
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(start_executor_process(Arc::new(config)))?;
    Ok(())
}
