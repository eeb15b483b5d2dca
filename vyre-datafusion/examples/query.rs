//! A DataFusion SQL query that calls a vyre function: `mix(a, b)`, a 32-bit integer hash of two
//! columns, over 200 000 rows in several partitions, in a projection and in a filter, on the backend
//! `vyre::select` picks (a GPU, then a CPU Vulkan driver, then the reference interpreter). The
//! query's result is checked against the same hash computed in Rust, row by row; a mismatch exits
//! non-zero.
//!
//! ```text
//! cargo run -p vyre-datafusion --example query
//! ```

// An example is a program: its result goes to stdout.
#![allow(clippy::print_stdout)]

use std::process::ExitCode;
use std::sync::Arc;

use datafusion::arrow::array::{AsArray, RecordBatch, UInt32Array};
use datafusion::arrow::datatypes::{DataType as ArrowType, Field, Schema, UInt32Type};
use datafusion::catalog::MemTable;
use datafusion::logical_expr::ScalarUDF;
use datafusion::prelude::SessionContext;
use vyre::ir::{BufferDecl, DataType, Expr, Node, Program};
use vyre_datafusion::VyreUdf;

const ROWS: u32 = 200_000;
const PARTITIONS: u32 = 4;

/// The function in Rust: what every row must equal.
fn mix(a: u32, b: u32) -> u32 {
    let mut h = a.wrapping_mul(0x9e37_79b1) ^ b;
    for _ in 0..4 {
        h ^= h >> 15;
        h = h.wrapping_mul(0x2c1b_3c6d);
        h ^= h >> 12;
    }
    h
}

/// The same function as a vyre program: one `read` buffer per argument, one `output`.
fn mix_program() -> Program {
    let mut h = (Expr::load("a", Expr::gid_x()) * 0x9e37_79b1u32) ^ Expr::load("b", Expr::gid_x());
    for _ in 0..4 {
        h = h.clone() ^ (h >> 15u32);
        h = h * 0x2c1b_3c6du32;
        h = h.clone() ^ (h >> 12u32);
    }
    Program::new(
        vec![
            BufferDecl::read("a", 0, DataType::U32),
            BufferDecl::read("b", 1, DataType::U32),
            // The count is a placeholder: each batch runs with its own.
            BufferDecl::output("h", 2, DataType::U32).with_count(1),
        ],
        [256, 1, 1],
        vec![Node::store("h", Expr::gid_x(), h)],
    )
}

#[tokio::main]
async fn main() -> ExitCode {
    match run().await {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("query: {message}");
            ExitCode::FAILURE
        }
    }
}

async fn run() -> Result<(), String> {
    let udf = VyreUdf::new("mix", mix_program()).map_err(|e| e.to_string())?;
    eprintln!("query: `mix` runs on `{}`", udf.backend().id());
    // CI runs this on lavapipe: there, falling back to the reference would test nothing new.
    if std::env::var("VYRE_REQUIRE_GPU").as_deref() == Ok("1") && udf.backend().id() != "wgpu" {
        return Err("VYRE_REQUIRE_GPU=1 but vyre chose no GPU backend".to_string());
    }
    let ctx = SessionContext::new();
    ctx.register_udf(ScalarUDF::new_from_impl(udf));
    ctx.register_table("t", Arc::new(table()?))
        .map_err(|e| e.to_string())?;

    let sql = "SELECT a, b, mix(a, b) AS h FROM t WHERE mix(a, b) % 3 = 0";
    let batches = ctx
        .sql(sql)
        .await
        .map_err(|e| e.to_string())?
        .collect()
        .await
        .map_err(|e| e.to_string())?;
    let mut rows = 0u32;
    for batch in &batches {
        let (a, b, h) = (
            batch.column(0).as_primitive::<UInt32Type>(),
            batch.column(1).as_primitive::<UInt32Type>(),
            batch.column(2).as_primitive::<UInt32Type>(),
        );
        for row in 0..batch.num_rows() {
            let want = mix(a.value(row), b.value(row));
            if h.value(row) != want || !want.is_multiple_of(3) {
                return Err(format!(
                    "mix({}, {}) = {} on the device, {want} on the CPU",
                    a.value(row),
                    b.value(row),
                    h.value(row)
                ));
            }
            rows += 1;
        }
    }
    let expected = (0..ROWS).filter(|&k| mix(k, !k).is_multiple_of(3)).count() as u32;
    if rows != expected {
        return Err(format!(
            "{rows} rows passed the filter; the CPU expects {expected}"
        ));
    }
    println!("query: `{sql}` gave {rows} rows, each equal to the CPU's");
    Ok(())
}

/// `a = k`, `b = !k` for `k < ROWS`, in `PARTITIONS` partitions.
fn table() -> Result<MemTable, String> {
    let schema = Arc::new(Schema::new(vec![
        Field::new("a", ArrowType::UInt32, false),
        Field::new("b", ArrowType::UInt32, false),
    ]));
    let per = ROWS / PARTITIONS;
    let partitions = (0..PARTITIONS)
        .map(|p| {
            let keys = p * per..if p + 1 == PARTITIONS {
                ROWS
            } else {
                (p + 1) * per
            };
            let a = UInt32Array::from_iter_values(keys.clone());
            let b = UInt32Array::from_iter_values(keys.map(|k| !k));
            RecordBatch::try_new(Arc::clone(&schema), vec![Arc::new(a), Arc::new(b)])
                .map(|batch| vec![batch])
                .map_err(|e| e.to_string())
        })
        .collect::<Result<Vec<_>, _>>()?;
    MemTable::try_new(schema, partitions).map_err(|e| e.to_string())
}
