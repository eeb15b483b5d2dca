//! What the cluster tests share: a scheduler and executors started as separate processes on free
//! loopback ports (killed when the guard drops, panics included), a Parquet table written as
//! several files, the vyre programs and Rust UDFs of the same meaning, and row comparison.

#![allow(dead_code, unreachable_pub)]

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use datafusion::arrow::array::{Array, ArrayRef, Int64Array, RecordBatch};
use datafusion::arrow::datatypes::{DataType as ArrowType, Field, Schema};
use datafusion::common::ScalarValue;
use datafusion::logical_expr::{ColumnarValue, ScalarUDF, Volatility, create_udf};
use datafusion::parquet::arrow::ArrowWriter;
use datafusion::prelude::SessionContext;
use vyre::ir::{BufferDecl, DataType, Expr, Node, Program};

/// How long one query may take before the test fails instead of hanging CI.
pub const QUERY_TIMEOUT: Duration = Duration::from_secs(120);

/// One cluster at a time: the tests run on two CPU cores, and three processes each are plenty.
/// (Each test has a runtime of its own, so the lock is tokio's, which any runtime can wait on.)
pub async fn one_at_a_time() -> tokio::sync::MutexGuard<'static, ()> {
    static LOCK: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());
    LOCK.lock().await
}

/// The vyre backend the executors use: `wgpu` when this machine has an adapter; `None` after
/// printing that `test` skipped (and a panic instead under `VYRE_REQUIRE_GPU=1`).
pub fn gpu_backend(test: &str) -> Option<&'static str> {
    vyre::wgpu::testing::backend_or_skip(test).map(|_| "wgpu")
}

/// A running process whose standard error lines are kept (and errors echoed).
pub struct Process {
    name: String,
    child: Child,
    lines: Arc<Mutex<Vec<String>>>,
}

impl Process {
    fn spawn(name: &str, program: &str, args: &[String]) -> Self {
        let mut child = Command::new(program)
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {name} ({program}): {e}"));
        let lines = Arc::new(Mutex::new(Vec::new()));
        if let Some(stderr) = child.stderr.take() {
            let lines = Arc::clone(&lines);
            let name = name.to_string();
            std::thread::spawn(move || {
                for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                    if line.starts_with("ERROR")
                        || line.starts_with("WARN")
                        || line.starts_with("vyre-ballista")
                    {
                        eprintln!("[{name}] {line}");
                    }
                    lines
                        .lock()
                        .unwrap_or_else(PoisonError::into_inner)
                        .push(line);
                }
            });
        }
        Self {
            name: name.to_string(),
            child,
            lines,
        }
    }

    /// Whether a line of its standard error so far contains `text`.
    pub fn said(&self, text: &str) -> bool {
        self.lines
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
            .any(|l| l.contains(text))
    }

    /// Waits until it says `text`, failing the test after `limit`.
    pub fn wait_for(&mut self, text: &str, limit: Duration) {
        let start = Instant::now();
        while !self.said(text) {
            if let Ok(Some(status)) = self.child.try_wait() {
                panic!("{} exited ({status}) before saying `{text}`", self.name);
            }
            assert!(
                start.elapsed() < limit,
                "{} did not say `{text}` within {limit:?}",
                self.name
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Kills it now and waits for it to end.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        self.kill();
    }
}

/// A scheduler and executors on loopback, each its own process; all killed when it drops.
pub struct Cluster {
    pub scheduler_port: u16,
    pub scheduler: Process,
    pub executors: Vec<Process>,
    work: PathBuf,
}

impl Cluster {
    /// Starts a scheduler and `executors` executors running vyre functions on `backend`, and
    /// waits until every executor has registered.
    pub fn start(name: &str, executors: usize, backend: &str) -> Self {
        let work = scratch(&format!("{name}-work"));
        let scheduler_port = free_port();
        let scheduler = Process::spawn(
            "scheduler",
            env!("CARGO_BIN_EXE_vyre-ballista-scheduler"),
            &strings(&[
                "--bind-host",
                "127.0.0.1",
                "--bind-port",
                &scheduler_port.to_string(),
                // A killed executor counts as lost after 5 s without a heartbeat.
                "--executor-timeout-seconds",
                "5",
                "--expire-dead-executor-interval-seconds",
                "1",
                "--log-level",
                "warn",
            ]),
        );
        let mut cluster = Self {
            scheduler_port,
            scheduler,
            executors: Vec::new(),
            work,
        };
        for i in 0..executors {
            let dir = cluster.work.join(format!("executor-{i}"));
            std::fs::create_dir_all(&dir).expect("an executor work directory");
            let executor = Process::spawn(
                &format!("executor-{i}"),
                env!("CARGO_BIN_EXE_vyre-ballista-executor"),
                &strings(&[
                    "--scheduler-host",
                    "127.0.0.1",
                    "--scheduler-port",
                    &scheduler_port.to_string(),
                    "--scheduler-connect-timeout-seconds",
                    "60",
                    "--bind-host",
                    "127.0.0.1",
                    "--external-host",
                    "127.0.0.1",
                    "--bind-port",
                    &free_port().to_string(),
                    "--bind-grpc-port",
                    &free_port().to_string(),
                    "--concurrent-tasks",
                    "2",
                    "--work-dir",
                    &dir.to_string_lossy(),
                    "--executor-heartbeat-interval-seconds",
                    "1",
                    "--backend",
                    backend,
                ]),
            );
            cluster.executors.push(executor);
        }
        for executor in &mut cluster.executors {
            executor.wait_for("Executor registration succeed", Duration::from_secs(120));
        }
        cluster
    }

    /// The URL clients connect to.
    pub fn url(&self) -> String {
        format!("df://127.0.0.1:{}", self.scheduler_port)
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        for executor in &mut self.executors {
            executor.kill();
        }
        self.scheduler.kill();
        let _ = std::fs::remove_dir_all(&self.work);
    }
}

fn strings(args: &[&str]) -> Vec<String> {
    args.iter().map(|s| (*s).to_string()).collect()
}

/// A free loopback port.
pub fn free_port() -> u16 {
    vyre_ballista::free_port().expect("a free port")
}

/// An empty directory of its own under the system's temporary directory.
pub fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("vyre-ballista-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    dir
}

/// Writes table `(id, a, b)` of `files * rows_per_file` Int64 rows as `files` Parquet files in
/// `dir`; every 11th `a` is null.
pub fn write_table(dir: &Path, files: usize, rows_per_file: usize) {
    let schema = Arc::new(Schema::new(vec![
        Field::new("id", ArrowType::Int64, false),
        Field::new("a", ArrowType::Int64, true),
        Field::new("b", ArrowType::Int64, true),
    ]));
    let mut state = 0x5eed_u64;
    let mut next = move || {
        // SplitMix64: deterministic values, so a failure reproduces.
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    };
    for file in 0..files {
        let ids = (0..rows_per_file).map(|r| (file * rows_per_file + r) as i64);
        let id: Int64Array = ids.clone().map(Some).collect();
        let a: Int64Array = ids
            .clone()
            .map(|i| (i % 11 != 10).then(|| (next() % 2001) as i64 - 1000))
            .collect();
        let b: Int64Array = ids.map(|_| Some((next() % 101) as i64 - 50)).collect();
        let batch = RecordBatch::try_new(
            Arc::clone(&schema),
            vec![Arc::new(id), Arc::new(a), Arc::new(b)],
        )
        .expect("a batch");
        let path = dir.join(format!("part-{file:02}.parquet"));
        let out = std::fs::File::create(&path).expect("a Parquet file");
        let mut writer = ArrowWriter::try_new(out, schema.clone(), None).expect("a writer");
        writer.write(&batch).expect("written");
        writer.close().expect("closed");
    }
}

/// `y = body(a, b, ...)` over Int64 read buffers `a`, `b`, ... and an Int64 output.
pub fn program(args: usize, body: impl Fn(&[Expr]) -> Expr) -> Program {
    let names = ["a", "b", "c"];
    let mut buffers: Vec<BufferDecl> = (0..args)
        .map(|i| BufferDecl::read(names[i], i as u32, DataType::I64))
        .collect();
    buffers.push(BufferDecl::output("y", args as u32, DataType::I64).with_count(1));
    let loads: Vec<Expr> = names[..args]
        .iter()
        .map(|n| Expr::load(*n, Expr::gid_x()))
        .collect();
    Program::new(
        buffers,
        [64, 1, 1],
        vec![Node::store("y", Expr::gid_x(), body(&loads))],
    )
}

/// `affine(a) = 3a + 1`.
pub fn affine() -> Program {
    program(1, |x| x[0].clone() * 3i64 + 1i64)
}

/// `madd(a, b) = a * b + 7`.
pub fn madd() -> Program {
    program(2, |x| x[0].clone() * x[1].clone() + 7i64)
}

/// The Rust UDFs of the same meanings, for the CPU's answer.
pub fn cpu_functions(ctx: &SessionContext) {
    ctx.register_udf(int_udf("affine", 1, |v| {
        v[0].wrapping_mul(3).wrapping_add(1)
    }));
    ctx.register_udf(int_udf("madd", 2, |v| {
        v[0].wrapping_mul(v[1]).wrapping_add(7)
    }));
}

fn int_udf(name: &str, args: usize, f: fn(&[i64]) -> i64) -> ScalarUDF {
    create_udf(
        name,
        vec![ArrowType::Int64; args],
        ArrowType::Int64,
        Volatility::Immutable,
        Arc::new(move |values: &[ColumnarValue]| {
            let arrays = ColumnarValue::values_to_arrays(values)?;
            let rows = arrays.first().map_or(1, |a| a.len());
            let column: Int64Array = (0..rows)
                .map(|row| {
                    let row_args: Option<Vec<i64>> = arrays
                        .iter()
                        .map(|a| {
                            let a = a.as_any().downcast_ref::<Int64Array>()?;
                            a.is_valid(row).then(|| a.value(row))
                        })
                        .collect();
                    row_args.map(|v| f(&v))
                })
                .collect();
            Ok(ColumnarValue::Array(Arc::new(column)))
        }),
    )
}

/// Runs `sql` (failing the test after [`QUERY_TIMEOUT`]) and returns its columns concatenated.
pub async fn query(ctx: &SessionContext, sql: &str) -> datafusion::error::Result<Vec<ArrayRef>> {
    let run = async {
        let batches = ctx.sql(sql).await?.collect().await?;
        let Some(first) = batches.first() else {
            return Ok(Vec::new());
        };
        let all = datafusion::arrow::compute::concat_batches(&first.schema(), &batches)?;
        Ok(all.columns().to_vec())
    };
    tokio::time::timeout(QUERY_TIMEOUT, run)
        .await
        .unwrap_or_else(|_| panic!("`{sql}` took longer than {QUERY_TIMEOUT:?}"))
}

/// Asserts the cluster's columns equal the CPU's, row by row, naming the first difference.
pub fn assert_same(sql: &str, got: &[ArrayRef], want: &[ArrayRef]) {
    assert_eq!(got.len(), want.len(), "{sql}: column counts differ");
    for (c, (g, w)) in got.iter().zip(want).enumerate() {
        assert_eq!(g.len(), w.len(), "{sql}: column {c}: row counts differ");
        for row in 0..g.len() {
            let gv = ScalarValue::try_from_array(g, row).expect("a value");
            let wv = ScalarValue::try_from_array(w, row).expect("a value");
            assert_eq!(gv, wv, "{sql}: column {c}, row {row}");
        }
    }
}
