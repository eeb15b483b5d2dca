//! The issue-35 benchmark: a compute-heavy function over many rows, as a vyre function on the GPU
//! inside DataFusion, against the same function as DataFusion's native expression on the CPU, and
//! against a plain resident vyre dispatch of the same program over the same batches.
//!
//! The function is 64 rounds of `lowbias32` (Chris Wellons' 32-bit integer hash:
//! `x ^= x >> 16; x *= 0x7feb352d; x ^= x >> 15; x *= 0x846ca68b; x ^= x >> 16`) on `UInt32`
//! rows `x = 0, 1, 2, ...`, and each side computes `sum(hash(x))` (`UInt64`), so every side reads
//! every row's result and the output is one value, which is also the checksum. Sides, each over
//! every row, several times (the median is reported):
//!
//! - **cpu**: DataFusion's own expression: `>>`, `^` (bitwise xor) and `*` on `UInt32`, which
//!   DataFusion evaluates with Arrow's wrapping kernels, so the bits are the GPU's. A round reads
//!   its value twice (`x ^ (x >> 16)`), and an expression tree of 64 rounds would double at every
//!   step, so each step is a projection of the previous one (192 `ProjectionExec`s; this is also
//!   what DataFusion's common-subexpression elimination makes of a repeated subexpression).
//! - **gpu udf**: the same aggregate over a `VyreUdf` running the function as one vyre program
//!   (a loop of 64 rounds) on the backend `vyre::select` picks, one resident dispatch per batch.
//! - **gpu udf, rows summed in Rust**: `SELECT hash64(x)` with the same function, partition by
//!   partition on tasks of their own, each result batch summed in Rust as the resident side sums
//!   its rows: the UDF path (DataFusion's scan and projection, the function's upload, dispatch,
//!   read-back and Arrow column) without DataFusion's aggregate, which casts every `UInt32` row to
//!   `UInt64` before it sums (the CPU side pays that cast too, so the speedup keeps the aggregate).
//! - **resident dispatch**: the same program on the same backend without DataFusion, the same
//!   batches in the same number of threads: per batch, write the rows into a resident buffer from
//!   Arrow's memory, `dispatch_resident`, read the result back, sum it. The UDF's overhead is the
//!   time of the UDF path (the side above) over this one's; the aggregate query's is printed too.
//! - **kernel only**: the program's dispatches with the data already on the device, no copies (one
//!   thread, one buffer of a batch dispatched once per batch).
//!
//! Every side's sum must equal the sum computed in Rust; a mismatch exits non-zero. Output: one
//! markdown table row per measurement, then the two ratios of the issue's goal, and with
//! `--json PATH` the same as JSON.
//!
//! ```text
//! cargo build --release -p vyre-datafusion --example bench_udf
//! target/release/examples/bench_udf --rows 100000000 --json bench_udf.json
//! target/release/examples/bench_udf --rows 2000000 --reps 3   # lavapipe, a check that it runs
//! ```
//!
//! Options: `--rows N` (100000000), `--reps N` (5), `--cpu-batch LIST` (8192,131072,1048576 rows),
//! `--gpu-batch LIST` (1048576,4194304,8388608 rows), `--partitions N` (the CPU's cores),
//! `--gpu-partitions N` (the smaller of 8 and the cores), `--json PATH`. Every batch size of a list
//! is measured; each side's ratio uses its fastest.

// A benchmark is a program: its report goes to stdout.
#![allow(clippy::print_stdout)]

use std::fmt::Write as _;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

use datafusion::arrow::array::{AsArray, RecordBatch, UInt32Array};
use datafusion::arrow::datatypes::{DataType as ArrowType, Field, Schema, UInt32Type, UInt64Type};
use datafusion::catalog::MemTable;
use datafusion::functions_aggregate::expr_fn::sum;
use datafusion::logical_expr::{Operator, ScalarUDF, binary_expr};
use datafusion::physical_plan::{ExecutionPlan, collect, displayable, execute_stream_partitioned};
use datafusion::prelude::{DataFrame, Expr as DfExpr, SessionConfig, SessionContext, col, lit};
use futures::StreamExt as _;
use vyre::ir::{BufferDecl, DataType, Expr, Node, Program};
use vyre::{DispatchConfig, VyreBackend};
use vyre_datafusion::VyreUdf;

const ROUNDS: u32 = 64;
const M1: u32 = 0x7feb_352d;
const M2: u32 = 0x846c_a68b;
/// The program's workgroup size.
const WORKGROUP: u32 = 256;

/// The function in Rust: what every side's sum is checked against.
fn hash(mut x: u32) -> u32 {
    for _ in 0..ROUNDS {
        x ^= x >> 16;
        x = x.wrapping_mul(M1);
        x ^= x >> 15;
        x = x.wrapping_mul(M2);
        x ^= x >> 16;
    }
    x
}

/// The function as a vyre program over `rows` rows (the UDF resizes it per batch).
fn program(rows: u32) -> Program {
    let h = || Expr::var("h");
    let xorshift = |k: u32| Node::assign("h", h() ^ (h() >> k));
    Program::new(
        vec![
            BufferDecl::read("x", 0, DataType::U32).with_count(rows),
            BufferDecl::output("y", 1, DataType::U32).with_count(rows),
        ],
        [WORKGROUP, 1, 1],
        vec![
            Node::let_bind("h", Expr::load("x", Expr::gid_x())),
            Node::loop_for(
                "round",
                Expr::u32(0),
                Expr::u32(ROUNDS),
                vec![
                    xorshift(16),
                    Node::assign("h", h() * M1),
                    xorshift(15),
                    Node::assign("h", h() * M2),
                    xorshift(16),
                ],
            ),
            Node::store("y", Expr::gid_x(), h()),
        ],
    )
}

/// `h ^ (h >> k)` in DataFusion, on `UInt32`.
fn df_xorshift(k: u32) -> DfExpr {
    let shifted = binary_expr(col("h"), Operator::BitwiseShiftRight, lit(k));
    binary_expr(col("h"), Operator::BitwiseXor, shifted)
}

/// `sum(hash(x))` as DataFusion's native expression: one projection per step.
fn cpu_frame(table: DataFrame) -> datafusion::error::Result<DataFrame> {
    let mut frame = table.select(vec![col("x").alias("h")])?;
    for _ in 0..ROUNDS {
        frame = frame.select(vec![(df_xorshift(16) * lit(M1)).alias("h")])?;
        frame = frame.select(vec![(df_xorshift(15) * lit(M2)).alias("h")])?;
        frame = frame.select(vec![df_xorshift(16).alias("h")])?;
    }
    frame.aggregate(vec![], vec![sum(col("h")).alias("s")])
}

/// The command line.
struct Options {
    rows: usize,
    reps: usize,
    cpu_batches: Vec<usize>,
    gpu_batches: Vec<usize>,
    partitions: usize,
    gpu_partitions: usize,
    json: Option<String>,
}

impl Options {
    fn parse() -> Result<Self, String> {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let mut options = Self {
            rows: 100_000_000,
            reps: 5,
            cpu_batches: vec![8192, 131_072, 1_048_576],
            gpu_batches: vec![1_048_576, 4_194_304, 8_388_608],
            partitions: cores,
            gpu_partitions: cores.min(8),
            json: None,
        };
        let mut args = std::env::args().skip(1);
        while let Some(flag) = args.next() {
            let value = args
                .next()
                .ok_or_else(|| format!("`{flag}` needs a value. Fix: write `{flag} VALUE`."))?;
            let number = |v: &str| {
                v.parse::<usize>().ok().filter(|&n| n > 0).ok_or_else(|| {
                    format!(
                        "`{flag} {v}`: not a positive whole number. Fix: write e.g. `{flag} 4`."
                    )
                })
            };
            let list = |v: &str| v.split(',').map(number).collect::<Result<Vec<_>, _>>();
            match flag.as_str() {
                "--rows" => options.rows = number(&value)?,
                "--reps" => options.reps = number(&value)?,
                "--cpu-batch" => options.cpu_batches = list(&value)?,
                "--gpu-batch" => options.gpu_batches = list(&value)?,
                "--partitions" => options.partitions = number(&value)?,
                "--gpu-partitions" => options.gpu_partitions = number(&value)?,
                "--json" => options.json = Some(value),
                other => {
                    return Err(format!(
                        "unknown option `{other}`. Fix: use --rows, --reps, --cpu-batch, --gpu-batch, --partitions, --gpu-partitions or --json."
                    ));
                }
            }
        }
        if u32::try_from(options.rows).is_err() {
            return Err(format!(
                "--rows {} does not fit the u32 rows `x = 0, 1, ...`. Fix: at most {}.",
                options.rows,
                u32::MAX
            ));
        }
        Ok(options)
    }
}

/// One side at one batch size: its times in seconds.
struct Measurement {
    side: &'static str,
    batch: usize,
    partitions: usize,
    seconds: Vec<f64>,
}

impl Measurement {
    fn median(&self) -> f64 {
        let mut s = self.seconds.clone();
        s.sort_by(f64::total_cmp);
        s[s.len() / 2]
    }

    fn rows_per_second(&self, rows: usize) -> f64 {
        rows as f64 / self.median()
    }
}

#[tokio::main]
async fn main() -> ExitCode {
    match run().await {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("bench_udf: {message}");
            ExitCode::FAILURE
        }
    }
}

async fn run() -> Result<(), String> {
    let options = Options::parse()?;
    let rows = options.rows;
    let udf = VyreUdf::new("hash64", program(1)).map_err(|e| e.to_string())?;
    let backend = Arc::clone(udf.backend());
    let device = backend.capabilities().device_name;
    println!(
        "bench_udf: {rows} rows, {ROUNDS} rounds of lowbias32; backend `{}`, adapter `{device}`; CPU: {} cores",
        backend.id(),
        std::thread::available_parallelism().map_or(1, |n| n.get())
    );
    if backend.id() == "reference" {
        return Err("vyre chose the reference interpreter: there is no GPU (or Vulkan driver) to measure. Fix: run on a machine with a GPU, or install mesa-vulkan-drivers for lavapipe.".into());
    }
    let hash_udf = ScalarUDF::new_from_impl(udf);
    let x = Arc::new(UInt32Array::from_iter_values(0..rows as u32));
    let want = reference_sum(rows);

    let mut measurements = Vec::new();
    let mut sums = Vec::new();
    for &batch in &options.cpu_batches {
        let ctx = session(&x, batch, options.partitions)?;
        let plan = plan(cpu_frame(table(&ctx).await?)).await?;
        let text = displayable(plan.as_ref()).indent(true).to_string();
        println!(
            "cpu plan, batches of {batch}: {} ProjectionExec nodes under the aggregate",
            text.matches("ProjectionExec").count()
        );
        let (m, got) = time("cpu", batch, options.partitions, options.reps, || {
            query(&ctx, &plan)
        })
        .await?;
        sums.push((m.side, batch, got));
        measurements.push(m);
    }
    for &batch in &options.gpu_batches {
        let ctx = session(&x, batch, options.gpu_partitions)?;
        let frame = table(&ctx).await?;
        let summed = sum(hash_udf.call(vec![col("x")])).alias("s");
        let aggregate = plan(frame.aggregate(vec![], vec![summed])).await?;
        let (m, got) = time(
            "gpu udf",
            batch,
            options.gpu_partitions,
            options.reps,
            || query(&ctx, &aggregate),
        )
        .await?;
        sums.push((m.side, batch, got));
        measurements.push(m);

        let projected = plan(
            table(&ctx)
                .await?
                .select(vec![hash_udf.call(vec![col("x")]).alias("h")]),
        )
        .await?;
        let (m, got) = time(
            "gpu udf, rows summed in Rust",
            batch,
            options.gpu_partitions,
            options.reps,
            || stream_sum(&ctx, &projected),
        )
        .await?;
        sums.push((m.side, batch, got));
        measurements.push(m);

        let threads = options.gpu_partitions;
        let (m, got) = time(
            "resident dispatch",
            batch,
            threads,
            options.reps,
            || async { resident(backend.as_ref(), &x, batch, threads) },
        )
        .await?;
        sums.push((m.side, batch, got));
        measurements.push(m);

        // The kernel-only side reads one word back, not every row: no sum to compare.
        let (m, _word) = time("kernel only", batch, 1, options.reps, || async {
            kernel_only(backend.as_ref(), &x, batch)
        })
        .await?;
        measurements.push(m);
    }

    report(&options, &device, backend.id(), &measurements, want)?;
    let wrong: Vec<String> = sums
        .iter()
        .filter(|(_, _, got)| *got != want)
        .map(|(side, batch, got)| format!("{side} at batches of {batch}: {got}"))
        .collect();
    if !wrong.is_empty() {
        return Err(format!(
            "sums differ from Rust's {want}: {}. Fix: this is a bug in vyre or in the benchmark; report it with this output.",
            wrong.join("; ")
        ));
    }
    println!("checksum: every side's sum(hash(x)) = {want}, equal to Rust's");
    Ok(())
}

/// A session of `partitions` partitions whose table `t` is `x` in batches of `batch` rows, each a
/// slice of `x` (no copy), batch `k` in partition `k % partitions`.
fn session(
    x: &Arc<UInt32Array>,
    batch: usize,
    partitions: usize,
) -> Result<SessionContext, String> {
    let config = SessionConfig::new()
        .with_target_partitions(partitions)
        .with_batch_size(batch);
    let ctx = SessionContext::new_with_config(config);
    let schema = Arc::new(Schema::new(vec![Field::new("x", ArrowType::UInt32, false)]));
    let mut parts = vec![Vec::new(); partitions];
    for (k, at) in (0..x.len()).step_by(batch).enumerate() {
        let slice = x.slice(at, batch.min(x.len() - at));
        let batch = RecordBatch::try_new(Arc::clone(&schema), vec![Arc::new(slice)])
            .map_err(|e| e.to_string())?;
        parts[k % partitions].push(batch);
    }
    let table = MemTable::try_new(schema, parts).map_err(|e| e.to_string())?;
    ctx.register_table("t", Arc::new(table))
        .map_err(|e| e.to_string())?;
    Ok(ctx)
}

async fn table(ctx: &SessionContext) -> Result<DataFrame, String> {
    ctx.table("t").await.map_err(|e| e.to_string())
}

/// The physical plan of `frame`: planned once, executed once per repetition.
async fn plan(
    frame: datafusion::error::Result<DataFrame>,
) -> Result<Arc<dyn ExecutionPlan>, String> {
    let frame = frame.map_err(|e| e.to_string())?;
    frame
        .create_physical_plan()
        .await
        .map_err(|e| e.to_string())
}

/// Runs `plan` and returns its one `UInt64` value.
async fn query(ctx: &SessionContext, plan: &Arc<dyn ExecutionPlan>) -> Result<u64, String> {
    let batches = collect(Arc::clone(plan), ctx.task_ctx())
        .await
        .map_err(|e| e.to_string())?;
    let column = batches
        .first()
        .and_then(|b| b.column(0).as_primitive_opt::<UInt64Type>().cloned())
        .ok_or_else(|| {
            "the query gave no UInt64 sum. Fix: this is a bug in the benchmark.".to_string()
        })?;
    Ok(column.value(0))
}

/// Runs `plan` (one `UInt32` column) partition by partition, each partition's stream on a task of
/// its own, and sums its rows in Rust as the resident side does.
async fn stream_sum(ctx: &SessionContext, plan: &Arc<dyn ExecutionPlan>) -> Result<u64, String> {
    let streams =
        execute_stream_partitioned(Arc::clone(plan), ctx.task_ctx()).map_err(|e| e.to_string())?;
    let tasks: Vec<_> = streams
        .into_iter()
        .map(|mut stream| {
            tokio::spawn(async move {
                let mut total = 0u64;
                while let Some(batch) = stream.next().await {
                    let batch = batch.map_err(|e| e.to_string())?;
                    let column = batch.column(0).as_primitive_opt::<UInt32Type>().ok_or_else(|| {
                        "the projection gave no UInt32 column. Fix: this is a bug in the benchmark."
                            .to_string()
                    })?;
                    total += column.values().iter().map(|&v| u64::from(v)).sum::<u64>();
                }
                Ok::<u64, String>(total)
            })
        })
        .collect();
    let mut total = 0u64;
    for task in tasks {
        total += task.await.map_err(|e| e.to_string())??;
    }
    Ok(total)
}

/// Runs `f` once untimed (compiles pipelines, warms caches) and `reps` times timed.
async fn time<F, Fut>(
    side: &'static str,
    batch: usize,
    partitions: usize,
    reps: usize,
    mut f: F,
) -> Result<(Measurement, u64), String>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<u64, String>>,
{
    let got = f().await?;
    let mut seconds = Vec::with_capacity(reps);
    for _ in 0..reps {
        let start = Instant::now();
        let again = f().await?;
        seconds.push(start.elapsed().as_secs_f64());
        if again != got {
            return Err(format!(
                "{side} gave {got}, then {again}. Fix: this is a bug in vyre or in the benchmark."
            ));
        }
    }
    eprintln!("bench_udf: {side}, batches of {batch}: done");
    Ok((
        Measurement {
            side,
            batch,
            partitions,
            seconds,
        },
        got,
    ))
}

/// `sum(hash(x))` for `x` in `0..rows`, in Rust, on every core.
fn reference_sum(rows: usize) -> u64 {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let per = rows.div_ceil(threads);
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|t| {
                scope.spawn(move || {
                    let range = (t * per).min(rows)..((t + 1) * per).min(rows);
                    range.map(|x| u64::from(hash(x as u32))).sum::<u64>()
                })
            })
            .collect();
        workers.into_iter().map(|w| w.join().unwrap_or(0)).sum()
    })
}

/// The batches of `x` (`batch` rows each) that thread `t` of `threads` takes, as in `session`.
fn batches_of(
    x: &UInt32Array,
    batch: usize,
    t: usize,
    threads: usize,
) -> impl Iterator<Item = UInt32Array> + '_ {
    (0..x.len())
        .step_by(batch)
        .enumerate()
        .filter(move |(k, _)| k % threads == t)
        .map(move |(_, at)| x.slice(at, batch.min(x.len() - at)))
}

/// The capacity a UDF dispatch of `batch` rows has (`sequence.rs`): a power of two.
fn capacity(batch: usize) -> Result<u32, String> {
    u32::try_from(batch.next_power_of_two().max(256)).map_err(|_| {
        format!(
            "batches of {batch} rows are too long for one dispatch. Fix: a smaller --gpu-batch."
        )
    })
}

/// The resident-dispatch side: `threads` threads, each with its own two buffers, each batch
/// written, dispatched, read back and summed.
fn resident(
    backend: &dyn VyreBackend,
    x: &UInt32Array,
    batch: usize,
    threads: usize,
) -> Result<u64, String> {
    let capacity = capacity(batch)?;
    let program = program(capacity);
    let bytes = u64::from(capacity) * 4;
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|t| {
                let program = &program;
                scope.spawn(move || -> Result<u64, vyre::BackendError> {
                    let (input, output) =
                        (backend.create_buffer(bytes)?, backend.create_buffer(bytes)?);
                    let mut total = 0u64;
                    for rows in batches_of(x, batch, t, threads) {
                        backend.write_buffer(&input, 0, rows.values().inner().as_slice())?;
                        backend.dispatch_resident(
                            program,
                            &[&input, &output],
                            &DispatchConfig::default(),
                        )?;
                        let out = backend.read_buffer(&output, 0..rows.len() as u64 * 4)?;
                        total += out
                            .chunks_exact(4)
                            .map(|w| u64::from(u32::from_le_bytes([w[0], w[1], w[2], w[3]])))
                            .sum::<u64>();
                    }
                    Ok(total)
                })
            })
            .collect();
        let mut total = 0u64;
        for worker in workers {
            let part = worker.join().map_err(|_| {
                "a dispatch thread panicked. Fix: report it with this output.".to_string()
            })?;
            total += part.map_err(|e| e.to_string())?;
        }
        Ok(total)
    })
}

/// The kernel-only side: one batch's buffers written once, the program dispatched once per batch
/// of the table, then one word read back (which waits for the device). Returns that word.
fn kernel_only(backend: &dyn VyreBackend, x: &UInt32Array, batch: usize) -> Result<u64, String> {
    let capacity = capacity(batch)?;
    let program = program(capacity);
    let bytes = u64::from(capacity) * 4;
    let e = |e: vyre::BackendError| e.to_string();
    let (input, output) = (
        backend.create_buffer(bytes).map_err(e)?,
        backend.create_buffer(bytes).map_err(e)?,
    );
    let first = x.slice(0, batch.min(x.len()));
    backend
        .write_buffer(&input, 0, first.values().inner().as_slice())
        .map_err(e)?;
    for _ in (0..x.len()).step_by(batch) {
        backend
            .dispatch_resident(&program, &[&input, &output], &DispatchConfig::default())
            .map_err(e)?;
    }
    let word = backend.read_buffer(&output, 0..4).map_err(e)?;
    Ok(u64::from(u32::from_le_bytes([
        word[0], word[1], word[2], word[3],
    ])))
}

/// Prints the table and the ratios, and writes the JSON.
fn report(
    options: &Options,
    device: &str,
    backend: &str,
    measurements: &[Measurement],
    checksum: u64,
) -> Result<(), String> {
    let rows = options.rows;
    println!();
    println!("| side | batch rows | partitions | median s | min s | rows/s |");
    println!("|---|---|---|---|---|---|");
    for m in measurements {
        let min = m.seconds.iter().copied().fold(f64::INFINITY, f64::min);
        println!(
            "| {} | {} | {} | {:.4} | {:.4} | {:.3e} |",
            m.side,
            m.batch,
            m.partitions,
            m.median(),
            min,
            m.rows_per_second(rows)
        );
    }
    let best = |side: &str| {
        measurements
            .iter()
            .filter(|m| m.side == side)
            .min_by(|a, b| a.median().total_cmp(&b.median()))
    };
    let (Some(cpu), Some(udf)) = (best("cpu"), best("gpu udf")) else {
        return Err(
            "no measurement. Fix: give --cpu-batch and --gpu-batch at least one size.".into(),
        );
    };
    let at = |side: &str, batch: usize| {
        measurements
            .iter()
            .find(|m| m.side == side && m.batch == batch)
    };
    let speedup = udf.rows_per_second(rows) / cpu.rows_per_second(rows);
    // The UDF path's overhead at its fastest batch size, against the resident dispatch of the
    // same batches; and the aggregate query's, at the aggregate's fastest.
    let path = best("gpu udf, rows summed in Rust");
    let overhead = path
        .and_then(|p| Some(p.median() / at("resident dispatch", p.batch)?.median()))
        .unwrap_or(f64::NAN);
    let query_overhead =
        at("resident dispatch", udf.batch).map_or(f64::NAN, |d| udf.median() / d.median());
    println!();
    println!(
        "gpu udf (batches of {}) / cpu (batches of {}) rows per second: {speedup:.2} (goal >= 5)",
        udf.batch, cpu.batch
    );
    println!(
        "gpu udf (rows summed in Rust) time / resident dispatch time, batches of {}: {overhead:.3} (goal <= 1.3)",
        path.map_or(0, |p| p.batch)
    );
    println!(
        "gpu udf (the aggregate query) time / resident dispatch time, batches of {}: {query_overhead:.3}",
        udf.batch
    );
    if let Some(path) = &options.json {
        let mut json = String::new();
        let _ = write!(
            json,
            "{{\"rows\":{rows},\"rounds\":{ROUNDS},\"backend\":\"{backend}\",\"adapter\":{device:?},\"checksum\":{checksum},\"speedup\":{speedup},\"overhead\":{overhead},\"query_overhead\":{query_overhead},\"measurements\":["
        );
        for (i, m) in measurements.iter().enumerate() {
            let seconds: Vec<String> = m.seconds.iter().map(|s| s.to_string()).collect();
            let _ = write!(
                json,
                "{}{{\"side\":\"{}\",\"batch\":{},\"partitions\":{},\"median_s\":{},\"rows_per_s\":{},\"seconds\":[{}]}}",
                if i == 0 { "" } else { "," },
                m.side,
                m.batch,
                m.partitions,
                m.median(),
                m.rows_per_second(rows),
                seconds.join(",")
            );
        }
        json.push_str("]}\n");
        std::fs::write(path, json)
            .map_err(|e| format!("cannot write {path}: {e}. Fix: give --json a writable path."))?;
    }
    Ok(())
}
