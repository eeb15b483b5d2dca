//! `VyreUdf` in SQL queries, every row compared with a Rust UDF of the same meaning run by
//! DataFusion on the CPU: each type, nulls, scalars, filters, many partitions and batches, and each
//! error. One suite, instantiated for the reference backend and for wgpu (lavapipe in CI).

use std::sync::Arc;

use crate::common::{
    Values, assert_same, bools, check_same, program, query, register, rust_udf, session,
};
use datafusion::arrow::array::{
    ArrayRef, Float16Array, Float32Array, Int32Array, Int64Array, UInt32Array, UInt64Array,
};
use datafusion::arrow::datatypes::DataType as ArrowType;
use datafusion::common::ScalarValue;
use datafusion::logical_expr::ScalarUDF;
use datafusion::prelude::SessionContext;
use half::f16;
use vyre::VyreBackend;
use vyre::ir::{BinOp, DataType, Expr, UnOp};
use vyre_datafusion::VyreUdf;

const ROWS: usize = 3_001;

fn vyre_udf(backend: &Arc<dyn VyreBackend>, name: &str, program: vyre::ir::Program) -> ScalarUDF {
    let udf = VyreUdf::builder(name, program)
        .backend(Arc::clone(backend))
        .build()
        .expect("an elementwise program");
    ScalarUDF::new_from_impl(udf)
}

/// Columns of every type, `ROWS` rows, with nulls at different strides.
fn table(ctx: &SessionContext) {
    let mut v = Values::new(7);
    let i32s: ArrayRef = Arc::new(
        (0..ROWS)
            .map(|r| (!Values::null_every(r, 7)).then(|| v.next() as i32))
            .collect::<Int32Array>(),
    );
    let i32b: ArrayRef = Arc::new(
        (0..ROWS)
            .map(|r| (!Values::null_every(r, 11)).then(|| v.next() as i32))
            .collect::<Int32Array>(),
    );
    let i64s: ArrayRef = Arc::new(
        (0..ROWS)
            .map(|r| (!Values::null_every(r, 5)).then(|| v.next() as i64))
            .collect::<Int64Array>(),
    );
    let u32s: ArrayRef = Arc::new(
        (0..ROWS)
            .map(|r| (!Values::null_every(r, 13)).then(|| v.next() as u32))
            .collect::<UInt32Array>(),
    );
    let u64s: ArrayRef = Arc::new(
        (0..ROWS)
            .map(|r| (!Values::null_every(r, 3)).then(|| v.next()))
            .collect::<UInt64Array>(),
    );
    // Quarters in [-256, 256): sums and products of two are exact in f32, so any correct
    // evaluation order (fused or not) gives the same bits.
    let quarter = |v: &mut Values| (v.next() % 2048) as f32 / 4.0 - 256.0;
    let f32a: ArrayRef = Arc::new(
        (0..ROWS)
            .map(|r| (!Values::null_every(r, 9)).then(|| quarter(&mut v)))
            .collect::<Float32Array>(),
    );
    let f32b: ArrayRef = Arc::new(
        (0..ROWS)
            .map(|r| (!Values::null_every(r, 4)).then(|| quarter(&mut v)))
            .collect::<Float32Array>(),
    );
    // Halves in [-64, 64): their sums are exact in f16.
    let f16s: ArrayRef = Arc::new(
        (0..ROWS)
            .map(|r| {
                (!Values::null_every(r, 6))
                    .then(|| f16::from_f32((v.next() % 256) as f32 / 2.0 - 64.0))
            })
            .collect::<Float16Array>(),
    );
    register(
        ctx,
        "t",
        vec![
            ("i", i32s),
            ("j", i32b),
            ("l", i64s),
            ("u", u32s),
            ("w", u64s),
            ("f", f32a),
            ("g", f32b),
            ("h", f16s),
            ("p", bools(ROWS, 1, 8)),
            ("q", bools(ROWS, 2, 0)),
        ],
        3,
        700,
    );
}

/// Registers `vyre_NAME` (the program) and the Rust function `cpu`, runs
/// `SELECT vyre_NAME(ARGS), CPU(ARGS) FROM t` and compares every row.
async fn compare(
    backend: &Arc<dyn VyreBackend>,
    name: &str,
    program: vyre::ir::Program,
    cpu: ScalarUDF,
    args: &str,
) {
    if let Err(difference) = try_compare(backend, name, program, cpu, args).await {
        panic!("{difference}");
    }
}

/// [`compare`], returning the first difference.
async fn try_compare(
    backend: &Arc<dyn VyreBackend>,
    name: &str,
    program: vyre::ir::Program,
    cpu: ScalarUDF,
    args: &str,
) -> Result<(), String> {
    let ctx = session(512);
    table(&ctx);
    ctx.register_udf(vyre_udf(backend, &format!("vyre_{name}"), program));
    let sql = format!("SELECT vyre_{name}({args}), {}({args}) FROM t", cpu.name());
    ctx.register_udf(cpu);
    let columns = query(&ctx, &sql).await.expect("the query runs");
    assert_eq!(columns[0].len(), ROWS);
    check_same(&columns[0], &columns[1]).map_err(|d| format!("{sql}: {d}"))
}

fn int32(v: &ScalarValue) -> i32 {
    match v {
        ScalarValue::Int32(Some(x)) => *x,
        other => panic!("not an Int32: {other:?}"),
    }
}

fn int64(v: &ScalarValue) -> i64 {
    match v {
        ScalarValue::Int64(Some(x)) => *x,
        other => panic!("not an Int64: {other:?}"),
    }
}

async fn i32_wrapping_affine(backend: Arc<dyn VyreBackend>) {
    let p = program(&[DataType::I32, DataType::I32], DataType::I32, |x| {
        x[0].clone() * 3i32 + x[1].clone()
    });
    let cpu = rust_udf("rust", vec![ArrowType::Int32; 2], ArrowType::Int32, |a| {
        ScalarValue::Int32(Some(
            int32(&a[0]).wrapping_mul(3).wrapping_add(int32(&a[1])),
        ))
    });
    compare(&backend, "affine", p, cpu, "i, j").await;
}

async fn i64_wrapping_square_minus(backend: Arc<dyn VyreBackend>) {
    let p = program(&[DataType::I64, DataType::I32], DataType::I64, |x| {
        x[0].clone() * x[0].clone() - Expr::cast(DataType::I64, x[1].clone())
    });
    let cpu = rust_udf(
        "rust",
        vec![ArrowType::Int64, ArrowType::Int32],
        ArrowType::Int64,
        |a| {
            let l = int64(&a[0]);
            ScalarValue::Int64(Some(
                l.wrapping_mul(l).wrapping_sub(i64::from(int32(&a[1]))),
            ))
        },
    );
    compare(&backend, "sq", p, cpu, "l, i").await;
}

async fn u32_and_u64_hash(backend: Arc<dyn VyreBackend>) {
    let p = program(&[DataType::U64, DataType::U32], DataType::U64, |x| {
        let mixed = (x[0].clone() ^ Expr::cast(DataType::U64, x[1].clone()))
            * Expr::u64(0x9e37_79b9_7f4a_7c15);
        mixed.clone() ^ (mixed >> 29u32)
    });
    let cpu = rust_udf(
        "rust",
        vec![ArrowType::UInt64, ArrowType::UInt32],
        ArrowType::UInt64,
        |a| {
            let (ScalarValue::UInt64(Some(w)), ScalarValue::UInt32(Some(u))) = (&a[0], &a[1])
            else {
                panic!("types: {a:?}")
            };
            let mixed = (w ^ u64::from(*u)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
            ScalarValue::UInt64(Some(mixed ^ (mixed >> 29)))
        },
    );
    compare(&backend, "hash", p, cpu, "w, u").await;
}

async fn f32_multiply_add(backend: Arc<dyn VyreBackend>) {
    let p = program(&[DataType::F32, DataType::F32], DataType::F32, |x| {
        x[0].clone() * x[1].clone() + Expr::f32(1.5)
    });
    let cpu = rust_udf(
        "rust",
        vec![ArrowType::Float32; 2],
        ArrowType::Float32,
        |a| {
            let (ScalarValue::Float32(Some(f)), ScalarValue::Float32(Some(g))) = (&a[0], &a[1])
            else {
                panic!("types: {a:?}")
            };
            ScalarValue::Float32(Some(f * g + 1.5))
        },
    );
    compare(&backend, "fma", p, cpu, "f, g").await;
}

async fn f16_add_and_widen(backend: Arc<dyn VyreBackend>) {
    let p = program(&[DataType::F16, DataType::F16], DataType::F16, |x| {
        x[0].clone() + x[1].clone()
    });
    let cpu = rust_udf(
        "rust",
        vec![ArrowType::Float16; 2],
        ArrowType::Float16,
        |a| {
            let (ScalarValue::Float16(Some(h)), ScalarValue::Float16(Some(k))) = (&a[0], &a[1])
            else {
                panic!("types: {a:?}")
            };
            ScalarValue::Float16(Some(f16::from_f32(h.to_f32() + k.to_f32())))
        },
    );
    // `h` with itself reversed in sign: exact sums of halves.
    compare(&backend, "hadd", p, cpu, "h, h").await;
}

async fn bool_logic_and_comparison(backend: Arc<dyn VyreBackend>) {
    let logic = program(&[DataType::Bool, DataType::Bool], DataType::Bool, |x| {
        Expr::binary(
            BinOp::And,
            x[0].clone(),
            Expr::unary(UnOp::Not, x[1].clone()),
        )
    });
    let cpu = rust_udf(
        "rust",
        vec![ArrowType::Boolean; 2],
        ArrowType::Boolean,
        |a| {
            let (ScalarValue::Boolean(Some(p)), ScalarValue::Boolean(Some(q))) = (&a[0], &a[1])
            else {
                panic!("types: {a:?}")
            };
            ScalarValue::Boolean(Some(*p && !q))
        },
    );
    compare(&backend, "andnot", logic, cpu, "p, q").await;
    let less = program(&[DataType::F32, DataType::F32], DataType::Bool, |x| {
        Expr::binary(BinOp::Lt, x[0].clone(), x[1].clone())
    });
    let cpu = rust_udf(
        "rust",
        vec![ArrowType::Float32; 2],
        ArrowType::Boolean,
        |a| {
            let (ScalarValue::Float32(Some(f)), ScalarValue::Float32(Some(g))) = (&a[0], &a[1])
            else {
                panic!("types: {a:?}")
            };
            ScalarValue::Boolean(Some(f < g))
        },
    );
    compare(&backend, "lt", less, cpu, "f, g").await;
}

async fn scalars_broadcast_and_widen(backend: Arc<dyn VyreBackend>) {
    let p = program(&[DataType::I64, DataType::I64], DataType::I64, |x| {
        x[0].clone() * x[1].clone() + 1i64
    });
    let cpu = rust_udf("rust", vec![ArrowType::Int64; 2], ArrowType::Int64, |a| {
        ScalarValue::Int64(Some(
            int64(&a[0]).wrapping_mul(int64(&a[1])).wrapping_add(1),
        ))
    });
    // A literal on either side, and an Int32 column DataFusion widens to Int64.
    compare(&backend, "mul1", p.clone(), cpu.clone(), "l, 7").await;
    compare(&backend, "mul1", p.clone(), cpu.clone(), "-3, i").await;
    // A null scalar makes every row null.
    let ctx = session(512);
    table(&ctx);
    ctx.register_udf(vyre_udf(&backend, "mul1", p));
    let columns = query(&ctx, "SELECT mul1(l, NULL) FROM t")
        .await
        .expect("runs");
    assert_eq!(columns[0].null_count(), ROWS);
}

async fn in_a_filter_and_over_no_rows(backend: Arc<dyn VyreBackend>) {
    let positive = program(&[DataType::I64], DataType::Bool, |x| {
        Expr::binary(BinOp::Gt, x[0].clone(), Expr::i64(0))
    });
    let ctx = session(512);
    table(&ctx);
    ctx.register_udf(vyre_udf(&backend, "positive", positive));
    let vyre = query(&ctx, "SELECT l FROM t WHERE positive(l) ORDER BY l")
        .await
        .expect("runs");
    let cpu = query(&ctx, "SELECT l FROM t WHERE l > 0 ORDER BY l")
        .await
        .expect("runs");
    assert!(cpu[0].len() > ROWS / 4, "the filter keeps rows");
    assert_same("WHERE positive(l)", &vyre[0], &cpu[0]);
    // A filter that keeps nothing calls the function on empty batches or not at all.
    let none = query(&ctx, "SELECT positive(l) FROM t WHERE l IS NULL AND l > 0")
        .await
        .expect("runs");
    assert!(none.is_empty() || none[0].is_empty());
}

/// The comparison catches a wrong vyre function: `affine` plus one is not `affine`.
async fn a_wrong_function_is_caught(backend: Arc<dyn VyreBackend>) {
    let wrong = program(&[DataType::I32, DataType::I32], DataType::I32, |x| {
        x[0].clone() * 3i32 + x[1].clone() + 1i32
    });
    let cpu = rust_udf("rust", vec![ArrowType::Int32; 2], ArrowType::Int32, |a| {
        ScalarValue::Int32(Some(
            int32(&a[0]).wrapping_mul(3).wrapping_add(int32(&a[1])),
        ))
    });
    let difference = try_compare(&backend, "wrong", wrong, cpu, "i, j").await;
    let difference = difference.expect_err("the comparison passed a wrong function");
    assert!(
        difference.contains("row 0: vyre gave Int32("),
        "{difference}"
    );
}

on_every_backend!(
    i32_wrapping_affine,
    i64_wrapping_square_minus,
    u32_and_u64_hash,
    f32_multiply_add,
    f16_add_and_widen,
    bool_logic_and_comparison,
    scalars_broadcast_and_widen,
    in_a_filter_and_over_no_rows,
    a_wrong_function_is_caught,
);
