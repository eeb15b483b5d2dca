//! `VyreCodec`: plans with vyre functions and `VyreExec` nodes survive serialization (the decoded
//! plan runs and gives the original's rows), and malformed or invalid function bytes are errors
//! with a `Fix:`, never a panic. On the reference backend and on wgpu.

use std::sync::Arc;

use crate::common::{Values, assert_same, program, register};
use datafusion::arrow::array::{ArrayRef, Int64Array, RecordBatch};
use datafusion::execution::SessionStateBuilder;
use datafusion::logical_expr::ScalarUDF;
use datafusion::physical_plan::{ExecutionPlan, collect, displayable};
use datafusion::prelude::{SessionConfig, SessionContext};
use datafusion_proto::bytes::{
    physical_plan_from_bytes_with_extension_codec, physical_plan_to_bytes_with_extension_codec,
};
use datafusion_proto::physical_plan::PhysicalExtensionCodec;
use vyre::VyreBackend;
use vyre::ir::{BinOp, BufferDecl, DataType, Expr, Node, Program};
use vyre_datafusion::{UDF_MAGIC, VyreCodec, VyreRule, VyreUdf};

fn mix() -> Program {
    program(&[DataType::I64, DataType::I64], DataType::I64, |x| {
        x[0].clone() * 31i64 + x[1].clone()
    })
}

fn positive() -> Program {
    program(&[DataType::I64], DataType::Bool, |x| {
        Expr::binary(BinOp::Gt, x[0].clone(), Expr::i64(0))
    })
}

fn session(backend: &Arc<dyn VyreBackend>) -> SessionContext {
    let state = SessionStateBuilder::new()
        .with_config(SessionConfig::new().with_batch_size(400))
        .with_default_features()
        .with_physical_optimizer_rule(Arc::new(VyreRule))
        .build();
    let ctx = SessionContext::new_with_state(state);
    for (name, p) in [("mix", mix()), ("positive", positive())] {
        let udf = VyreUdf::builder(name, p)
            .backend(Arc::clone(backend))
            .build();
        ctx.register_udf(ScalarUDF::new_from_impl(udf.expect("elementwise")));
    }
    let mut v = Values::new(11);
    let mut column = |nulls: usize| -> ArrayRef {
        Arc::new(
            (0..2_000)
                .map(|r| (!Values::null_every(r, nulls)).then(|| (v.next() % 201) as i64 - 100))
                .collect::<Int64Array>(),
        )
    };
    let (a, b) = (column(9), column(0));
    register(&ctx, "t", vec![("a", a), ("b", b)], 2, 400);
    ctx
}

async fn rows(plan: Arc<dyn ExecutionPlan>, ctx: &SessionContext) -> Vec<ArrayRef> {
    let batches: Vec<RecordBatch> = collect(plan, ctx.task_ctx()).await.expect("runs");
    let first = batches.first().expect("a batch");
    let all = datafusion::arrow::compute::concat_batches(&first.schema(), &batches);
    all.expect("concatenates").columns().to_vec()
}

async fn plans_round_trip(backend: Arc<dyn VyreBackend>) {
    let ctx = session(&backend);
    let codec = VyreCodec::with_backend(Arc::clone(&backend));
    for (sql, nodes) in [
        // Two VyreExec nodes: a filter and a projection.
        (
            "SELECT a, mix(a, b) AS m FROM t WHERE positive(mix(b, a)) ORDER BY a, m",
            2,
        ),
        // No node (a CPU operator over the function): the function travels inside a ProjectionExec.
        ("SELECT mix(a, b) + 1 AS m FROM t ORDER BY m", 0),
    ] {
        let plan = ctx.sql(sql).await.expect("plans");
        let plan = plan.create_physical_plan().await.expect("a physical plan");
        let text = displayable(plan.as_ref()).indent(true).to_string();
        assert_eq!(text.matches("VyreExec").count(), nodes, "{text}");
        let bytes = physical_plan_to_bytes_with_extension_codec(Arc::clone(&plan), &codec)
            .expect("serializes");
        // A session that has never heard of the functions decodes and runs it.
        let fresh = SessionContext::new();
        let back = physical_plan_from_bytes_with_extension_codec(&bytes, &fresh.task_ctx(), &codec)
            .expect("deserializes");
        let back_text = displayable(back.as_ref()).indent(true).to_string();
        assert_eq!(back_text, text, "the decoded plan is the plan");
        let (want, got) = (rows(plan, &ctx).await, rows(back, &fresh).await);
        assert!(want[0].len() > 100, "{sql} keeps rows");
        for (g, w) in got.iter().zip(&want) {
            assert_same(sql, g, w);
        }
    }
}

async fn malformed_function_bytes_are_errors(backend: Arc<dyn VyreBackend>) {
    let codec = VyreCodec::with_backend(Arc::clone(&backend));
    let udf = VyreUdf::builder("mix", mix()).backend(backend).build();
    let mut good = Vec::new();
    codec
        .try_encode_udf(&ScalarUDF::new_from_impl(udf.expect("valid")), &mut good)
        .expect("encodes");
    assert!(good.starts_with(UDF_MAGIC));
    assert!(codec.try_decode_udf("mix", &good).is_ok());
    let mut cases: Vec<Vec<u8>> = vec![Vec::new(), b"garbage".to_vec(), UDF_MAGIC.to_vec()];
    cases.extend((1..good.len()).map(|n| good[..n].to_vec()));
    // Every single-byte corruption either still decodes to a valid function or is an error.
    for at in 0..good.len() {
        for flip in [0x01u8, 0x80, 0xff] {
            let mut bad = good.clone();
            bad[at] ^= flip;
            cases.push(bad);
        }
    }
    let mut errors = 0;
    for bytes in &cases {
        match codec.try_decode_udf("mix", bytes) {
            Ok(_) => {}
            Err(e) => {
                errors += 1;
                let message = e.to_string();
                assert!(
                    message.contains("`mix`") && message.contains("Fix: "),
                    "{message}"
                );
            }
        }
    }
    assert!(
        errors > good.len(),
        "{errors} of {} corruptions refused",
        cases.len()
    );
}

async fn a_function_that_fails_validation_on_arrival(backend: Arc<dyn VyreBackend>) {
    let codec = VyreCodec::with_backend(backend);
    // Valid wire bytes, but each row reads its neighbour: not a function of its row.
    let shifted = Program::new(
        vec![
            BufferDecl::read("a", 0, DataType::U32),
            BufferDecl::output("y", 1, DataType::U32).with_count(1),
        ],
        [64, 1, 1],
        vec![Node::store(
            "y",
            Expr::gid_x(),
            Expr::load("a", Expr::gid_x() + 1u32),
        )],
    );
    let mut bytes = UDF_MAGIC.to_vec();
    bytes.extend_from_slice(&shifted.to_bytes());
    let message = codec
        .try_decode_udf("shifted", &bytes)
        .expect_err("not elementwise")
        .to_string();
    assert!(
        message.contains("not elementwise") && message.contains("Fix: "),
        "{message}"
    );
}

async fn a_corrupted_plan_is_an_error(backend: Arc<dyn VyreBackend>) {
    let ctx = session(&backend);
    let codec = VyreCodec::with_backend(Arc::clone(&backend));
    let plan = ctx.sql("SELECT mix(a, b) FROM t").await.expect("plans");
    let plan = plan.create_physical_plan().await.expect("a physical plan");
    let bytes = physical_plan_to_bytes_with_extension_codec(plan, &codec).expect("serializes");
    // Break the program's wire version, just after the function's magic.
    let at = bytes
        .windows(UDF_MAGIC.len())
        .position(|w| w == UDF_MAGIC)
        .expect("the function travels in the plan");
    let mut bad = bytes.to_vec();
    for byte in &mut bad[at + UDF_MAGIC.len()..at + UDF_MAGIC.len() + 8] {
        *byte ^= 0x5a;
    }
    let fresh = SessionContext::new();
    let error = physical_plan_from_bytes_with_extension_codec(&bad, &fresh.task_ctx(), &codec)
        .expect_err("malformed");
    let message = error.to_string();
    assert!(
        message.contains("`mix`") && message.contains("Fix: "),
        "{message}"
    );
}

on_every_backend!(
    plans_round_trip,
    malformed_function_bytes_are_errors,
    a_function_that_fails_validation_on_arrival,
    a_corrupted_plan_is_an_error,
);
