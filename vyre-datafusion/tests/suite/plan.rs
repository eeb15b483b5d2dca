//! `VyreRule` and `VyreExec`: the rule puts the node in place of projections and filters made of
//! vyre functions, each batch runs as one `dispatch_sequence` (counted), and every row equals the
//! same query with Rust UDFs of the same names on DataFusion's CPU path. On the reference backend
//! and on wgpu.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::common::{Counting, Values, assert_same, program, register, rust_udf};
use datafusion::arrow::array::{ArrayRef, Int64Array, RecordBatch};
use datafusion::arrow::datatypes::DataType as ArrowType;
use datafusion::common::ScalarValue;
use datafusion::execution::SessionStateBuilder;
use datafusion::logical_expr::ScalarUDF;
use datafusion::physical_plan::{collect, displayable};
use datafusion::prelude::{SessionConfig, SessionContext};
use vyre::VyreBackend;
use vyre::ir::{BinOp, DataType, Expr};
use vyre_datafusion::{VyreRule, VyreUdf};

const ROWS: usize = 5_000;
const BATCH: usize = 1_000;

fn int64(v: &ScalarValue) -> i64 {
    match v {
        ScalarValue::Int64(Some(x)) => *x,
        other => panic!("not an Int64: {other:?}"),
    }
}

/// `mix(a, b) = a * 31 + b`, `sq(a) = a * a`, `pos(a) = a > 0`: as vyre functions on
/// `backend`, and as Rust functions of the same names.
fn functions(backend: &Arc<dyn VyreBackend>) -> (Vec<ScalarUDF>, Vec<ScalarUDF>) {
    let i64s = [DataType::I64, DataType::I64];
    let vyre = |name: &str, p| {
        let udf = VyreUdf::builder(name, p)
            .backend(Arc::clone(backend))
            .build();
        ScalarUDF::new_from_impl(udf.expect("elementwise"))
    };
    let device = vec![
        vyre(
            "mix",
            program(&i64s, DataType::I64, |x| {
                x[0].clone() * 31i64 + x[1].clone()
            }),
        ),
        vyre(
            "sq",
            program(&i64s[..1], DataType::I64, |x| x[0].clone() * x[0].clone()),
        ),
        vyre(
            "pos",
            program(&i64s[..1], DataType::Bool, |x| {
                Expr::binary(BinOp::Gt, x[0].clone(), Expr::i64(0))
            }),
        ),
    ];
    let cpu = vec![
        rust_udf("mix", vec![ArrowType::Int64; 2], ArrowType::Int64, |a| {
            ScalarValue::Int64(Some(
                int64(&a[0]).wrapping_mul(31).wrapping_add(int64(&a[1])),
            ))
        }),
        rust_udf("sq", vec![ArrowType::Int64], ArrowType::Int64, |a| {
            ScalarValue::Int64(Some(int64(&a[0]).wrapping_mul(int64(&a[0]))))
        }),
        rust_udf("pos", vec![ArrowType::Int64], ArrowType::Boolean, |a| {
            ScalarValue::Boolean(Some(int64(&a[0]) > 0))
        }),
    ];
    (device, cpu)
}

fn table(ctx: &SessionContext) {
    let mut v = Values::new(3);
    let mut column = |nulls: usize| -> ArrayRef {
        Arc::new(
            (0..ROWS)
                .map(|r| (!Values::null_every(r, nulls)).then(|| (v.next() % 2001) as i64 - 1000))
                .collect::<Int64Array>(),
        )
    };
    let (a, b, c) = (column(7), column(0), column(5));
    register(ctx, "t", vec![("a", a), ("b", b), ("c", c)], 2, BATCH);
}

/// A session with the rule (and `udfs`), and one without (the CPU's).
fn sessions(device: Vec<ScalarUDF>, cpu: Vec<ScalarUDF>) -> (SessionContext, SessionContext) {
    let config = SessionConfig::new()
        .with_batch_size(BATCH)
        .with_target_partitions(2);
    let state = SessionStateBuilder::new()
        .with_config(config.clone())
        .with_default_features()
        .with_physical_optimizer_rule(Arc::new(VyreRule))
        .build();
    let gpu = SessionContext::new_with_state(state);
    let plain = SessionContext::new_with_config(config);
    for udf in device {
        gpu.register_udf(udf);
    }
    for udf in cpu {
        plain.register_udf(udf);
    }
    table(&gpu);
    table(&plain);
    (gpu, plain)
}

/// Runs `sql` in `ctx`: its physical plan as text, and its result (rows in `ORDER BY` order).
async fn run(ctx: &SessionContext, sql: &str) -> (String, Vec<ArrayRef>) {
    let plan = ctx
        .sql(sql)
        .await
        .expect("plans")
        .create_physical_plan()
        .await
        .expect("a physical plan");
    let text = displayable(plan.as_ref()).indent(true).to_string();
    let batches: Vec<RecordBatch> = collect(plan, ctx.task_ctx()).await.expect("runs");
    let columns = match batches.first() {
        Some(first) => {
            let all = datafusion::arrow::compute::concat_batches(&first.schema(), &batches);
            all.expect("concatenates").columns().to_vec()
        }
        None => Vec::new(),
    };
    (text, columns)
}

/// Runs `sql` with vyre (through the rule) and on the CPU, checks the plan shows `VyreExec`
/// `nodes` times, compares every row, and returns the vyre side's (sequences, steps).
async fn compare(backend: Arc<dyn VyreBackend>, sql: &str, nodes: usize) -> (usize, usize) {
    let counting = Arc::new(Counting {
        inner: backend,
        sequences: AtomicUsize::new(0),
        steps: AtomicUsize::new(0),
    });
    let as_backend: Arc<dyn VyreBackend> = Arc::clone(&counting) as Arc<dyn VyreBackend>;
    let (device, cpu) = functions(&as_backend);
    let (gpu, plain) = sessions(device, cpu);
    let (plan, got) = run(&gpu, sql).await;
    assert_eq!(plan.matches("VyreExec").count(), nodes, "{sql}:\n{plan}");
    let (cpu_plan, want) = run(&plain, sql).await;
    assert!(!cpu_plan.contains("VyreExec"));
    assert_eq!(got.len(), want.len());
    assert!(
        want.first().is_some_and(|c| c.len() > 100),
        "{sql} keeps rows"
    );
    for (g, w) in got.iter().zip(&want) {
        assert_same(sql, g, w);
    }
    (
        counting.sequences.load(Ordering::Relaxed),
        counting.steps.load(Ordering::Relaxed),
    )
}

async fn nested_functions_run_as_one_sequence_per_batch(backend: Arc<dyn VyreBackend>) {
    let sql = "SELECT a, mix(sq(a), b) AS m, sq(mix(a, c)) AS n FROM t ORDER BY a, b, c";
    let (sequences, steps) = compare(backend, sql, 1).await;
    // Five batches; four calls each (sq, mix, mix, sq), in one sequence per batch.
    assert_eq!(sequences, ROWS / BATCH, "{sql}");
    assert_eq!(steps, 4 * ROWS / BATCH, "{sql}");
}

async fn a_filter_of_vyre_functions(backend: Arc<dyn VyreBackend>) {
    let sql = "SELECT a, b FROM t WHERE pos(mix(a, b)) ORDER BY a, b, c";
    let (sequences, steps) = compare(backend, sql, 1).await;
    assert_eq!(
        (sequences, steps),
        (ROWS / BATCH, 2 * ROWS / BATCH),
        "{sql}"
    );
}

async fn a_filter_and_a_projection(backend: Arc<dyn VyreBackend>) {
    let sql = "SELECT sq(a) AS s, mix(b, c) AS m FROM t WHERE pos(c) ORDER BY s, m";
    compare(backend, sql, 2).await;
}

async fn a_cpu_operator_over_a_vyre_function_keeps_datafusions_plan(backend: Arc<dyn VyreBackend>) {
    // `+ 1` is DataFusion's: the projection stays a ProjectionExec and `sq` runs as a UDF.
    let sql = "SELECT sq(a) + 1 AS s FROM t ORDER BY s";
    let (sequences, steps) = compare(backend, sql, 0).await;
    assert_eq!(sequences, steps, "one call per UDF dispatch");
}

on_every_backend!(
    nested_functions_run_as_one_sequence_per_batch,
    a_filter_of_vyre_functions,
    a_filter_and_a_projection,
    a_cpu_operator_over_a_vyre_function_keeps_datafusions_plan,
);
