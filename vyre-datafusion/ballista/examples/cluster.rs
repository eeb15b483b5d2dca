//! A Ballista client querying with a vyre function: `affine(v) = 3v + 1` in a projection and a
//! filter over a Parquet table of 4 000 rows in four files. Without an argument it starts its own
//! scheduler and executor inside this process; with a scheduler URL it queries that cluster
//! (whose executors run `vyre-ballista-executor`, and which must see this machine's temporary
//! directory, as a cluster on one machine does). Every row is checked against Rust; a mismatch
//! exits non-zero.
//!
//! ```text
//! cargo run -p vyre-ballista --example cluster                          # in-process cluster
//! cargo run -p vyre-ballista --example cluster -- df://localhost:50050  # a running scheduler
//! ```

// An example is a program: its result goes to stdout.
#![allow(clippy::print_stdout)]

use std::process::ExitCode;

use datafusion::arrow::array::{AsArray, RecordBatch};
use datafusion::arrow::datatypes::Int64Type;
use datafusion::dataframe::DataFrameWriteOptions;
use datafusion::prelude::{ParquetReadOptions, SessionConfig, SessionContext};
use vyre::ir::{BufferDecl, DataType, Expr, Node, Program};
use vyre_ballista::{ClientBuilder, LocalCluster};

const ROWS: i64 = 4_000;

/// `y = 3x + 1` over Int64 (SQL's integers).
fn affine() -> Program {
    let x = Expr::load("x", Expr::gid_x());
    Program::new(
        vec![
            BufferDecl::read("x", 0, DataType::I64),
            BufferDecl::output("y", 1, DataType::I64).with_count(1),
        ],
        [64, 1, 1],
        vec![Node::store("y", Expr::gid_x(), x * 3i64 + 1i64)],
    )
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> ExitCode {
    match run().await {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("cluster: {message}");
            ExitCode::FAILURE
        }
    }
}

async fn run() -> Result<(), Box<dyn std::error::Error>> {
    // Keep the in-process cluster alive until the query is done.
    let (url, _local) = match std::env::args().nth(1) {
        Some(url) => (url, None),
        None => {
            let local = LocalCluster::start(2, None).await?;
            (local.scheduler_url(), Some(local))
        }
    };

    // The table, written by a plain local DataFusion session as four Parquet files.
    let dir = std::env::temp_dir().join(format!("vyre-ballista-example-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let path = dir.to_string_lossy().to_string();
    let writer = SessionContext::new_with_config(SessionConfig::new().with_target_partitions(4));
    writer
        .sql(&format!("SELECT value AS v FROM range(0, {ROWS})"))
        .await?
        .repartition(datafusion::logical_expr::Partitioning::RoundRobinBatch(4))?
        .write_parquet(&path, DataFrameWriteOptions::new(), None)
        .await?;

    let ctx = ClientBuilder::new(&url)
        .function("affine", affine())
        .build()?;
    ctx.register_parquet("t", &path, ParquetReadOptions::default())
        .await?;
    let sql = "SELECT v, affine(v) AS y FROM t WHERE affine(v) % 7 = 0 ORDER BY v";
    let batches: Vec<RecordBatch> = ctx.sql(sql).await?.collect().await?;
    let _ = std::fs::remove_dir_all(&dir);

    let mut rows = Vec::new();
    for batch in &batches {
        let v = batch.column(0).as_primitive::<Int64Type>();
        let y = batch.column(1).as_primitive::<Int64Type>();
        rows.extend(v.iter().zip(y.iter()));
    }
    let want: Vec<_> = (0..ROWS)
        .filter(|v| (3 * v + 1) % 7 == 0)
        .map(|v| (Some(v), Some(3 * v + 1)))
        .collect();
    if rows != want {
        return Err(format!(
            "`{sql}` gave {} rows, the CPU {}; first difference at row {}",
            rows.len(),
            want.len(),
            rows.iter().zip(&want).take_while(|(a, b)| a == b).count()
        )
        .into());
    }
    println!(
        "cluster: `{sql}` on {url} gave {} rows, each equal to the CPU's",
        rows.len()
    );
    Ok(())
}
