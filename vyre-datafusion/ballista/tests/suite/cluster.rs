//! vyre functions on a Ballista cluster of separate processes (a scheduler and two executors on
//! loopback), checked row by row against plain DataFusion on the CPU with Rust UDFs of the same
//! meaning: in projections and filters, with an executor killed mid-query, and with a function
//! whose bytes are corrupt or whose program is invalid.

use std::sync::Arc;
use std::time::Duration;

use crate::common;
use crate::common::{
    Cluster, affine, cpu_functions, gpu_backend, madd, one_at_a_time, query, scratch,
};
use datafusion::error::Result;
use datafusion::logical_expr::{Extension, LogicalPlan, ScalarUDF};
use datafusion::prelude::{ParquetReadOptions, SessionConfig, SessionContext};
use datafusion_proto::logical_plan::LogicalExtensionCodec;
use vyre::ir::{BufferDecl, DataType, Expr, Node, Program};
use vyre_ballista::{ClientBuilder, VyreLogicalCodec};

/// Projections and filters calling both functions, over every row (`ORDER BY id` makes the
/// order the CPU's), then a grouping key and a join key made of one: the plans Ballista splits into
/// stages with a shuffle between them (a hash repartition on the function's value).
const QUERIES: &[&str] = &[
    "SELECT id, affine(a) AS x, madd(a, b) AS y FROM t ORDER BY id",
    "SELECT id, madd(a, b) FROM t WHERE affine(a) % 3 = 1 AND madd(b, a) > 0 ORDER BY id",
    "SELECT id, a FROM t WHERE affine(madd(a, b)) < 100 ORDER BY id",
    "SELECT affine(a) % 5 AS k, count(*) AS n FROM t GROUP BY affine(a) % 5 ORDER BY k",
    "SELECT t1.id, affine(t1.a) FROM t t1 JOIN t t2 ON affine(t1.a) = affine(t2.b) + 1 ORDER BY t1.id, affine(t1.a) LIMIT 50",
];

/// A client of `cluster` with `affine` and `madd`, over the Parquet table in `dir`.
async fn client(cluster: &Cluster, dir: &std::path::Path) -> SessionContext {
    let ctx = ClientBuilder::new(cluster.url())
        .config(SessionConfig::new().with_target_partitions(8))
        .function("affine", affine())
        .function("madd", madd())
        .build()
        .expect("a client");
    register(&ctx, dir).await;
    ctx
}

async fn register(ctx: &SessionContext, dir: &std::path::Path) {
    ctx.register_parquet(
        "t",
        dir.to_string_lossy().as_ref(),
        ParquetReadOptions::default(),
    )
    .await
    .expect("the table");
}

/// The CPU's answer to `sql`.
async fn on_cpu(dir: &std::path::Path, sql: &str) -> Vec<datafusion::arrow::array::ArrayRef> {
    let ctx = SessionContext::new();
    cpu_functions(&ctx);
    register(&ctx, dir).await;
    query(&ctx, sql).await.expect("the CPU's answer")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn vyre_functions_in_projections_and_filters_match_the_cpu() {
    let _one = one_at_a_time().await;
    let Some(backend) = gpu_backend("vyre_functions_in_projections_and_filters_match_the_cpu")
    else {
        return;
    };
    let dir = scratch("match");
    common::write_table(&dir, 8, 500);
    let cluster = Cluster::start("match", 2, backend);
    let ctx = client(&cluster, &dir).await;
    for sql in QUERIES {
        let got = query(&ctx, sql)
            .await
            .unwrap_or_else(|e| panic!("{sql}: {e}"));
        common::assert_same(sql, &got, &on_cpu(&dir, sql).await);
    }
    // Both executors ran tasks, so the functions really travelled to two processes.
    for executor in &cluster.executors {
        assert!(executor.said("Execute task"), "an executor ran no task");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_query_survives_an_executor_killed_mid_query() {
    let _one = one_at_a_time().await;
    let Some(backend) = gpu_backend("a_query_survives_an_executor_killed_mid_query") else {
        return;
    };
    let dir = scratch("kill");
    common::write_table(&dir, 16, 400);
    let mut cluster = Cluster::start("kill", 2, backend);
    let ctx = client(&cluster, &dir).await;
    let sql = QUERIES[1];
    let running = tokio::spawn({
        let ctx = ctx.clone();
        async move { query(&ctx, sql).await }
    });
    // The kill lands while the job runs: right after the second executor starts its first task.
    let victim = &mut cluster.executors[1];
    tokio::task::block_in_place(|| victim.wait_for("Execute task", Duration::from_secs(120)));
    victim.kill();
    let got = running
        .await
        .expect("the query task")
        .unwrap_or_else(|e| panic!("{sql} after an executor was killed: {e}"));
    common::assert_same(sql, &got, &on_cpu(&dir, sql).await);
    // The kill landed mid-task: the victim's first task compiles its pipeline (far longer than
    // the 50 ms the test takes to notice the task and kill), and the scheduler gave it to the
    // other executor.
    assert!(
        cluster.scheduler.said("on lost Executor"),
        "the scheduler reset no task of the killed executor"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Sends every vyre function of a plan as `bytes` instead of its program's.
#[derive(Debug)]
struct Tampering {
    inner: VyreLogicalCodec,
    bytes: Vec<u8>,
}

impl LogicalExtensionCodec for Tampering {
    fn try_decode(
        &self,
        buf: &[u8],
        inputs: &[LogicalPlan],
        ctx: &datafusion::execution::TaskContext,
    ) -> Result<Extension> {
        self.inner.try_decode(buf, inputs, ctx)
    }

    fn try_encode(&self, node: &Extension, buf: &mut Vec<u8>) -> Result<()> {
        self.inner.try_encode(node, buf)
    }

    fn try_decode_table_provider(
        &self,
        buf: &[u8],
        table_ref: &datafusion::common::TableReference,
        schema: datafusion::arrow::datatypes::SchemaRef,
        ctx: &datafusion::execution::TaskContext,
    ) -> Result<Arc<dyn datafusion::catalog::TableProvider>> {
        self.inner
            .try_decode_table_provider(buf, table_ref, schema, ctx)
    }

    fn try_encode_table_provider(
        &self,
        table_ref: &datafusion::common::TableReference,
        node: Arc<dyn datafusion::catalog::TableProvider>,
        buf: &mut Vec<u8>,
    ) -> Result<()> {
        self.inner.try_encode_table_provider(table_ref, node, buf)
    }

    fn try_decode_file_format(
        &self,
        buf: &[u8],
        ctx: &datafusion::execution::TaskContext,
    ) -> Result<Arc<dyn datafusion::datasource::file_format::FileFormatFactory>> {
        self.inner.try_decode_file_format(buf, ctx)
    }

    fn try_encode_file_format(
        &self,
        buf: &mut Vec<u8>,
        node: Arc<dyn datafusion::datasource::file_format::FileFormatFactory>,
    ) -> Result<()> {
        self.inner.try_encode_file_format(buf, node)
    }

    fn try_encode_udf(&self, node: &ScalarUDF, buf: &mut Vec<u8>) -> Result<()> {
        let mut real = Vec::new();
        self.inner.try_encode_udf(node, &mut real)?;
        if !real.is_empty() {
            buf.extend_from_slice(&self.bytes);
        }
        Ok(())
    }
}

/// The error of a query calling `affine` whose bytes the client replaced with `bytes`.
async fn error_with_bytes(cluster: &Cluster, dir: &std::path::Path, bytes: Vec<u8>) -> String {
    let ctx = ClientBuilder::new(cluster.url())
        .function("affine", affine())
        .logical_codec(Arc::new(Tampering {
            inner: VyreLogicalCodec::new(),
            bytes,
        }))
        .build()
        .expect("a client");
    register(&ctx, dir).await;
    match query(&ctx, "SELECT affine(a) FROM t WHERE affine(b) > 0").await {
        Ok(_) => panic!("a query with tampered function bytes succeeded"),
        Err(e) => e.to_string(),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn corrupt_or_invalid_functions_fail_with_a_fix() {
    let _one = one_at_a_time().await;
    let Some(backend) = gpu_backend("corrupt_or_invalid_functions_fail_with_a_fix") else {
        return;
    };
    let dir = scratch("errors");
    common::write_table(&dir, 2, 100);
    let cluster = Cluster::start("errors", 2, backend);

    // Wire bytes cut short: the program cannot be read.
    let mut cut = b"vyre-udf".to_vec();
    cut.extend_from_slice(&affine().to_bytes()[..10]);
    let error = error_with_bytes(&cluster, &dir, cut).await;
    assert!(
        error.contains("vyre function `affine`") && error.contains("malformed"),
        "{error}"
    );
    assert!(error.contains("Fix: "), "{error}");

    // Well-formed bytes of a program that fails validation (it stores to an undeclared buffer).
    let invalid = Program::new(
        vec![
            BufferDecl::read("a", 0, DataType::I64),
            BufferDecl::output("y", 1, DataType::I64).with_count(1),
        ],
        [64, 1, 1],
        vec![Node::store("nowhere", Expr::gid_x(), Expr::i64(1))],
    );
    let mut bytes = b"vyre-udf".to_vec();
    bytes.extend_from_slice(&invalid.to_bytes());
    let error = error_with_bytes(&cluster, &dir, bytes).await;
    assert!(error.contains("vyre function `affine`"), "{error}");
    assert!(error.contains("Fix: "), "{error}");
    let _ = std::fs::remove_dir_all(&dir);
}
