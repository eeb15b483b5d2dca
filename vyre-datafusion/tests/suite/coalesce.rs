//! `VyreExec` runs consecutive small batches as one dispatch (`vyre.coalesce_rows`): a thousand
//! batches of 7 rows, with nulls, give batch for batch and row for row what running each batch
//! alone gives and what DataFusion's CPU path gives, in a tenth of the dispatches or fewer
//! (counted). On the reference backend and on wgpu.

use std::sync::Arc;

use crate::common::{Counting, Values, assert_same, program, register, rust_udf};
use datafusion::arrow::array::{ArrayRef, Int64Array, RecordBatch};
use datafusion::arrow::datatypes::DataType as ArrowType;
use datafusion::common::ScalarValue;
use datafusion::execution::SessionStateBuilder;
use datafusion::logical_expr::ScalarUDF;
use datafusion::physical_plan::{collect_partitioned, displayable};
use datafusion::prelude::{SessionConfig, SessionContext};
use vyre::VyreBackend;
use vyre::ir::{BinOp, DataType, Expr};
use vyre_datafusion::{VyreOptions, VyreRule, VyreUdf};

/// A thousand batches of seven rows, in two partitions.
const BATCHES: usize = 1_000;
const BATCH: usize = 7;
const PARTITIONS: usize = 2;

fn int64(v: &ScalarValue) -> i64 {
    match v {
        ScalarValue::Int64(Some(x)) => *x,
        other => panic!("not an Int64: {other:?}"),
    }
}

/// `a` null every 5th row, `b` every 3rd: the nulls fall at other places in every batch.
fn table(ctx: &SessionContext) {
    let mut v = Values::new(11);
    let mut column = |nulls: usize| -> ArrayRef {
        Arc::new(
            (0..BATCHES * BATCH)
                .map(|r| (!Values::null_every(r, nulls)).then(|| (v.next() % 2001) as i64 - 1000))
                .collect::<Int64Array>(),
        )
    };
    let (a, b) = (column(5), column(3));
    register(ctx, "t", vec![("a", a), ("b", b)], PARTITIONS, BATCH);
}

/// A session with `mix(a, b) = a * 31 + b` and `pos(a) = a > 0`: vyre functions on `backend`
/// with the rule and `coalesce_rows` (`None`: unset), or Rust functions on the CPU.
fn session(backend: Option<&Arc<dyn VyreBackend>>, coalesce_rows: Option<usize>) -> SessionContext {
    let mut options = VyreOptions::default();
    options.coalesce_rows = coalesce_rows;
    let config = SessionConfig::new()
        .with_target_partitions(PARTITIONS)
        .with_option_extension(options);
    let i64s = [DataType::I64, DataType::I64];
    let ctx = match backend {
        Some(backend) => {
            let state = SessionStateBuilder::new()
                .with_config(config)
                .with_default_features()
                .with_physical_optimizer_rule(Arc::new(VyreRule))
                .build();
            let ctx = SessionContext::new_with_state(state);
            let vyre = |name: &str, p| {
                let udf = VyreUdf::builder(name, p).backend(Arc::clone(backend));
                ScalarUDF::new_from_impl(udf.build().expect("elementwise"))
            };
            ctx.register_udf(vyre(
                "mix",
                program(&i64s, DataType::I64, |x| {
                    x[0].clone() * 31i64 + x[1].clone()
                }),
            ));
            ctx.register_udf(vyre(
                "pos",
                program(&i64s[..1], DataType::Bool, |x| {
                    Expr::binary(BinOp::Gt, x[0].clone(), Expr::i64(0))
                }),
            ));
            ctx
        }
        None => {
            let ctx = SessionContext::new_with_config(config);
            ctx.register_udf(rust_udf(
                "mix",
                vec![ArrowType::Int64; 2],
                ArrowType::Int64,
                |a| {
                    ScalarValue::Int64(Some(
                        int64(&a[0]).wrapping_mul(31).wrapping_add(int64(&a[1])),
                    ))
                },
            ));
            ctx.register_udf(rust_udf(
                "pos",
                vec![ArrowType::Int64],
                ArrowType::Boolean,
                |a| ScalarValue::Boolean(Some(int64(&a[0]) > 0)),
            ));
            ctx
        }
    };
    table(&ctx);
    ctx
}

/// Runs `sql` on `ctx`: each partition's batches, in order (no merge, so boundaries show).
async fn run(ctx: &SessionContext, sql: &str) -> (String, Vec<Vec<RecordBatch>>) {
    let plan = ctx.sql(sql).await.expect("plans");
    let plan = plan.create_physical_plan().await.expect("a physical plan");
    let text = displayable(plan.as_ref()).indent(true).to_string();
    let parts = collect_partitioned(plan, ctx.task_ctx())
        .await
        .expect("runs");
    (text, parts)
}

/// Runs `sql` with vyre at `coalesce_rows` and on the CPU; asserts the same batches (row counts)
/// and rows; returns the number of dispatches vyre made.
async fn dispatches(
    backend: &Arc<dyn VyreBackend>,
    sql: &str,
    coalesce_rows: Option<usize>,
) -> usize {
    let counting = Counting::new(Arc::clone(backend));
    let as_backend = Arc::clone(&counting) as Arc<dyn VyreBackend>;
    let (plan, got) = run(&session(Some(&as_backend), coalesce_rows), sql).await;
    assert_eq!(plan.matches("VyreExec").count(), 1, "{sql}:\n{plan}");
    let (_, want) = run(&session(None, coalesce_rows), sql).await;
    let lengths = |parts: &[Vec<RecordBatch>]| -> Vec<Vec<usize>> {
        parts
            .iter()
            .map(|p| p.iter().map(RecordBatch::num_rows).collect())
            .collect()
    };
    assert_eq!(
        lengths(&got),
        lengths(&want),
        "{sql}: the batches' boundaries"
    );
    for (g, w) in got.iter().flatten().zip(want.iter().flatten()) {
        for (gc, wc) in g.columns().iter().zip(w.columns()) {
            assert_same(sql, gc, wc);
        }
    }
    counting.sequences()
}

async fn small_batches_run_as_one_dispatch_per_target(backend: Arc<dyn VyreBackend>) {
    let sql = "SELECT a, mix(a, b) AS m, b FROM t";
    // Alone: one dispatch per batch.
    assert_eq!(dispatches(&backend, sql, Some(0)).await, BATCHES, "{sql}");
    // 700 rows: 100 batches of 7 per dispatch, 500 batches in each partition.
    assert_eq!(
        dispatches(&backend, sql, Some(700)).await,
        BATCHES / 100,
        "{sql}"
    );
    // 701 rows hold no more whole batches than 700.
    assert_eq!(
        dispatches(&backend, sql, Some(701)).await,
        BATCHES / 100,
        "{sql}"
    );
    // Unset: the session's batch size (8192), so each partition's 3500 rows are one dispatch.
    assert_eq!(dispatches(&backend, sql, None).await, PARTITIONS, "{sql}");
}

async fn a_coalesced_filter_keeps_each_batchs_rows(backend: Arc<dyn VyreBackend>) {
    let sql = "SELECT a, b FROM t WHERE pos(mix(a, b))";
    assert_eq!(
        dispatches(&backend, sql, Some(350)).await,
        BATCHES / 50,
        "{sql}"
    );
}

async fn a_limit_pushed_into_a_coalesced_filter_stops_each_partition(
    backend: Arc<dyn VyreBackend>,
) {
    let sql = "SELECT a, b FROM t WHERE pos(mix(a, b)) LIMIT 10";
    let ctx = session(Some(&backend), Some(350));
    let plan = ctx.sql(sql).await.expect("plans");
    let plan = plan.create_physical_plan().await.expect("a physical plan");
    let text = displayable(plan.as_ref()).indent(true).to_string();
    // DataFusion pushes the limit into the filter (`fetch`), below the merge of the partitions.
    let filter = plan
        .children()
        .first()
        .map(|c| Arc::clone(c))
        .filter(|c| c.name() == "VyreExec")
        .unwrap_or_else(|| panic!("{sql}: no VyreExec under the merge:\n{text}"));
    assert_eq!(filter.fetch(), Some(10), "{sql}:\n{text}");
    let parts = collect_partitioned(filter, ctx.task_ctx())
        .await
        .expect("runs");
    for part in parts {
        let rows: usize = part.iter().map(RecordBatch::num_rows).sum();
        assert_eq!(rows, 10, "{sql}: each partition stops at the limit");
    }
}

on_every_backend!(
    a_limit_pushed_into_a_coalesced_filter_stops_each_partition,
    small_batches_run_as_one_dispatch_per_target,
    a_coalesced_filter_keeps_each_batchs_rows,
);
