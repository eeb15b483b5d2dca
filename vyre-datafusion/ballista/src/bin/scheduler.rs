//! `vyre-ballista-scheduler`: Ballista's scheduler process with the vyre codecs registered, so that
//! plans from vyre clients decode (their functions re-validated and planned on the reference
//! backend) and their stage plans carry the functions to the executors. Its flags follow
//! Ballista's own scheduler's.

use ballista_core::config::TaskSchedulingPolicy;
use clap::Parser;
use log::LevelFilter;

/// A Ballista scheduler for queries with vyre functions.
#[derive(Parser, Debug)]
#[command(version, about)]
struct Args {
    /// The local address to bind to.
    #[arg(long, default_value = "0.0.0.0")]
    bind_host: String,
    /// The host name executors and clients reach this scheduler by.
    #[arg(long)]
    external_host: Option<String>,
    /// The gRPC port.
    #[arg(short = 'p', long, default_value_t = 50050)]
    bind_port: u16,
    /// `pull-staged` (executors poll) or `push-staged` (the scheduler pushes); executors must use
    /// the same.
    #[arg(long, default_value = "push-staged", value_parser = vyre_ballista::parse_policy)]
    scheduler_policy: TaskSchedulingPolicy,
    /// Seconds without a heartbeat after which an executor counts as lost and its tasks run
    /// elsewhere.
    #[arg(long, default_value_t = 180)]
    executor_timeout_seconds: u64,
    /// Seconds between checks for lost executors.
    #[arg(long, default_value_t = 15)]
    expire_dead_executor_interval_seconds: u64,
    /// Times a task may fail before its job fails.
    #[arg(long, default_value_t = 4)]
    task_max_failures: usize,
    /// The least severe log level written to standard error.
    #[arg(long, default_value = "info", value_parser = vyre_ballista::parse_level)]
    log_level: LevelFilter,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = Args::parse();
    vyre_ballista::log_to_stderr(args.log_level);
    let mut config = vyre_ballista::scheduler_config(&args.bind_host, args.bind_port);
    if let Some(host) = args.external_host {
        config.external_host = host;
    }
    config.scheduling_policy = args.scheduler_policy;
    config.executor_timeout_seconds = args.executor_timeout_seconds;
    config.expire_dead_executor_interval_seconds = args.expire_dead_executor_interval_seconds;
    config.no_executors_grace_period_seconds = args
        .executor_timeout_seconds
        .max(config.no_executors_grace_period_seconds);
    config.task_max_failures = args.task_max_failures;

    // Ballista's scheduler binary gives its threads 32 MiB stacks: planning recurses over deep plans.
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_stack_size(32 * 1024 * 1024)
        .build()?;
    runtime.block_on(async {
        let address = format!("{}:{}", args.bind_host, args.bind_port);
        let listener = tokio::net::TcpListener::bind(&address).await?;
        eprintln!("vyre-ballista-scheduler: listening on {address}");
        vyre_ballista::run_scheduler(listener, config).await?;
        Ok(())
    })
}
