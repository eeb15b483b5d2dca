//! Every way a vyre function refuses bad input: a DataFusion error naming the function and ending
//! with `Fix: ...`, never a panic. Instantiated for the reference backend and for wgpu.

use std::sync::Arc;

use crate::common::{program, query, register, session};
use datafusion::arrow::array::{ArrayRef, Float32Array, Int32Array, StringArray};
use datafusion::arrow::datatypes::{DataType as ArrowType, Field};
use datafusion::config::ConfigOptions;
use datafusion::error::DataFusionError;
use datafusion::logical_expr::{ColumnarValue, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl};
use vyre::ir::{BufferDecl, DataType, Expr, Node, Program};
use vyre::{BackendError, Capabilities, DeviceBuffer, Step, VyreBackend};
use vyre_datafusion::{UdfError, VyreUdf};

/// `backend`, claiming buffers of at most `max_bytes` and failing every dispatch when `fail`.
struct Limited {
    inner: Arc<dyn VyreBackend>,
    max_bytes: u64,
    fail: bool,
}

impl VyreBackend for Limited {
    fn id(&self) -> &str {
        "limited"
    }
    fn capabilities(&self) -> Capabilities {
        let mut caps = self.inner.capabilities();
        caps.max_storage_buffer_bytes = self.max_bytes;
        caps
    }
    fn create_buffer(&self, bytes: u64) -> Result<DeviceBuffer, BackendError> {
        self.inner.create_buffer(bytes)
    }
    fn write_buffer(&self, b: &DeviceBuffer, at: u64, data: &[u8]) -> Result<(), BackendError> {
        self.inner.write_buffer(b, at, data)
    }
    fn read_buffer(
        &self,
        b: &DeviceBuffer,
        range: std::ops::Range<u64>,
    ) -> Result<Vec<u8>, BackendError> {
        self.inner.read_buffer(b, range)
    }
    fn dispatch_sequence(&self, steps: &[Step<'_>]) -> Result<(), BackendError> {
        if self.fail {
            return Err(BackendError::device_lost(
                "the test's device is gone. Fix: none needed; the test expects this.",
            ));
        }
        self.inner.dispatch_sequence(steps)
    }
}

fn add_i32() -> Program {
    program(&[DataType::I32, DataType::I32], DataType::I32, |x| {
        x[0].clone() + x[1].clone()
    })
}

fn udf(backend: Arc<dyn VyreBackend>, name: &str, program: Program) -> Result<VyreUdf, UdfError> {
    VyreUdf::builder(name, program).backend(backend).build()
}

fn ctx_with(udf: VyreUdf) -> datafusion::prelude::SessionContext {
    let ctx = session(512);
    let ints: ArrayRef = Arc::new((0..1000).map(Some).collect::<Int32Array>());
    let floats: ArrayRef = Arc::new((0..1000).map(|v| Some(v as f32)).collect::<Float32Array>());
    let text: ArrayRef = Arc::new(
        (0..1000)
            .map(|v| Some(v.to_string()))
            .collect::<StringArray>(),
    );
    register(
        &ctx,
        "t",
        vec![("i", ints), ("f", floats), ("s", text)],
        2,
        300,
    );
    ctx.register_udf(ScalarUDF::new_from_impl(udf));
    ctx
}

/// Checks a planning error: DataFusion turns an error of `coerce_types` into text inside its own
/// message, so only the text of `expected` can be found there.
fn planning_error(error: &DataFusionError, expected: &UdfError) {
    let message = error.to_string();
    assert!(
        message.contains(&expected.to_string()),
        "{message}\nlacks: {expected}"
    );
    assert!(expected.to_string().contains("Fix: "), "{expected}");
}

/// The `UdfError` inside `error`, after checking what its message says.
fn vyre_error<'e>(error: &'e DataFusionError, function: &str) -> &'e UdfError {
    let message = error.to_string();
    assert!(message.contains(&format!("`{function}`")), "{message}");
    assert!(message.contains("Fix: "), "{message}");
    let DataFusionError::External(inner) = error.find_root() else {
        panic!("not a vyre error: {error:?}");
    };
    let inner = inner.downcast_ref::<UdfError>().expect("a UdfError");
    assert_eq!(inner.function(), function);
    assert!(inner.to_string().contains("Fix: "), "{inner}");
    inner
}

async fn an_argument_of_another_type(backend: Arc<dyn VyreBackend>) {
    let ctx = ctx_with(udf(backend, "add", add_i32()).expect("valid"));
    for (args, index, found) in [
        ("f, i", 0, ArrowType::Float32),
        ("i, s", 1, ArrowType::Utf8),
    ] {
        let error = query(&ctx, &format!("SELECT add({args}) FROM t"))
            .await
            .expect_err("a type mismatch");
        let expected = UdfError::ArgumentType {
            name: "add".into(),
            index,
            expected: Box::new(ArrowType::Int32),
            found: Box::new(found),
            cast: "arrow_cast(x, 'Int32')".into(),
        };
        planning_error(&error, &expected);
    }
    // The cast the message proposes works.
    let fixed = query(&ctx, "SELECT add(arrow_cast(f, 'Int32'), i) FROM t").await;
    assert_eq!(fixed.expect("the fix works")[0].len(), 1000);
}

async fn the_wrong_number_of_arguments(backend: Arc<dyn VyreBackend>) {
    let ctx = ctx_with(udf(backend, "add", add_i32()).expect("valid"));
    let error = query(&ctx, "SELECT add(i) FROM t")
        .await
        .expect_err("one argument");
    let expected = UdfError::ArgumentCount {
        name: "add".into(),
        expected: 2,
        found: 1,
    };
    planning_error(&error, &expected);
}

async fn programs_that_are_not_functions(backend: Arc<dyn VyreBackend>) {
    // Reads the next row.
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
    // Writes an argument.
    let writes = Program::new(
        vec![
            BufferDecl::read_write("a", 0, DataType::U32).with_count(1),
            BufferDecl::output("y", 1, DataType::U32).with_count(1),
        ],
        [64, 1, 1],
        vec![Node::store("a", Expr::gid_x(), Expr::u32(0))],
    );
    // No output.
    let silent = Program::new(
        vec![BufferDecl::read("a", 0, DataType::U32)],
        [64, 1, 1],
        vec![],
    );
    for (name, p) in [("shifted", shifted), ("writes", writes), ("silent", silent)] {
        let error = udf(Arc::clone(&backend), name, p).expect_err("not a function");
        assert!(
            matches!(error, UdfError::NotElementwise { .. }),
            "{error:?}"
        );
        vyre_error(&DataFusionError::from(error), name);
    }
    // Stores a u32 into an i32 buffer: invalid.
    let invalid = Program::new(
        vec![BufferDecl::output("y", 0, DataType::I32).with_count(1)],
        [64, 1, 1],
        vec![Node::store("y", Expr::gid_x(), Expr::u32(1))],
    );
    let error = udf(backend, "invalid", invalid).expect_err("invalid");
    assert!(
        matches!(error, UdfError::InvalidProgram { .. }),
        "{error:?}"
    );
    vyre_error(&DataFusionError::from(error), "invalid");
}

async fn a_batch_longer_than_the_device_takes(backend: Arc<dyn VyreBackend>) {
    // 256 rows of i32 per buffer at most; the batches hold 300.
    let small = Arc::new(Limited {
        inner: backend,
        max_bytes: 1024,
        fail: false,
    });
    let udf = udf(small, "add", add_i32()).expect("valid");
    assert_eq!(udf.max_rows(), 256);
    let ctx = ctx_with(udf);
    let error = query(&ctx, "SELECT add(i, i) FROM t")
        .await
        .expect_err("too long");
    let inner = vyre_error(&error, "add");
    assert!(
        matches!(
            inner,
            UdfError::TooLong {
                rows: 300,
                max: 256,
                ..
            }
        ),
        "{inner:?}"
    );
    // The fix the message gives works.
    ctx.sql("SET datafusion.execution.batch_size = 256")
        .await
        .expect("set");
    let fixed = query(&ctx, "SELECT add(i, i) FROM t").await;
    assert_eq!(fixed.expect("the fix works")[0].len(), 1000);
}

async fn a_failing_backend(backend: Arc<dyn VyreBackend>) {
    let failing = Arc::new(Limited {
        inner: backend,
        max_bytes: u64::MAX,
        fail: true,
    });
    let ctx = ctx_with(udf(failing, "add", add_i32()).expect("valid"));
    let error = query(&ctx, "SELECT add(i, i) FROM t")
        .await
        .expect_err("fails");
    let inner = vyre_error(&error, "add");
    assert!(matches!(inner, UdfError::Backend { .. }), "{inner:?}");
}

async fn a_call_that_bypasses_planning(backend: Arc<dyn VyreBackend>) {
    // A plan built by hand (or read from another process) can hand the function anything.
    let udf = udf(backend, "add", add_i32()).expect("valid");
    let floats: ArrayRef = Arc::new(Float32Array::from(vec![1.0, 2.0]));
    let call = |args: Vec<ColumnarValue>| ScalarFunctionArgs {
        args,
        arg_fields: (0..2)
            .map(|_| Arc::new(Field::new("x", ArrowType::Int32, true)))
            .collect(),
        number_rows: 2,
        return_field: Arc::new(Field::new("y", ArrowType::Int32, true)),
        config_options: Arc::new(ConfigOptions::default()),
    };
    let two = ColumnarValue::Array(Arc::clone(&floats));
    let error = udf
        .invoke_with_args(call(vec![two.clone(), two.clone()]))
        .expect_err("floats");
    assert!(matches!(
        vyre_error(&error, "add"),
        UdfError::ArgumentType { .. }
    ));
    let error = udf
        .invoke_with_args(call(vec![two]))
        .expect_err("one argument");
    assert!(matches!(
        vyre_error(&error, "add"),
        UdfError::ArgumentCount { .. }
    ));
}

on_every_backend!(
    an_argument_of_another_type,
    the_wrong_number_of_arguments,
    programs_that_are_not_functions,
    a_batch_longer_than_the_device_takes,
    a_failing_backend,
    a_call_that_bypasses_planning,
);
