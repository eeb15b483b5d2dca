//! What the vyre-datafusion tests share: the backends they run on, tables, Rust UDFs of the same
//! meaning as the vyre programs, and a row-by-row comparison.

#![allow(dead_code, unreachable_pub, unused_macros)]

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

use datafusion::arrow::array::{Array, ArrayRef, BooleanArray, RecordBatch};
use datafusion::arrow::datatypes::{DataType as ArrowType, Field, Schema};
use datafusion::catalog::MemTable;
use datafusion::common::ScalarValue;
use datafusion::logical_expr::{ColumnarValue, ScalarUDF, Volatility, create_udf};
use datafusion::prelude::{SessionConfig, SessionContext};
use vyre::ir::{BufferDecl, DataType, Expr, Node, Program};
use vyre::{BackendError, Capabilities, DeviceBuffer, Step, VyreBackend};

/// One test per named `async fn NAME(backend: Arc<dyn VyreBackend>)` of the file, on each backend:
/// `on_reference::NAME` and `on_wgpu::NAME` (skipped, saying so, without an adapter).
macro_rules! on_every_backend {
    ($($name:ident),* $(,)?) => {
        mod on_reference {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $name() {
                    let Some(backend) = crate::common::reference() else {
                        return;
                    };
                    super::$name(backend).await;
                }
            )*
        }

        mod on_wgpu {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $name() {
                    let Some(backend) = crate::common::wgpu(stringify!($name)) else {
                        return;
                    };
                    super::$name(backend).await;
                }
            )*
        }
    };
}

/// The reference backend, the oracle every GPU result must equal.
pub fn reference() -> Option<Arc<dyn VyreBackend>> {
    Some(Arc::new(vyre::ReferenceBackend::new()))
}

/// One wgpu backend shared by every test of the binary (lavapipe in CI); `None` after printing
/// that the test skipped when there is no adapter, and a panic then under `VYRE_REQUIRE_GPU=1`.
pub fn wgpu(test: &str) -> Option<Arc<dyn VyreBackend>> {
    static SHARED: OnceLock<Option<Arc<dyn VyreBackend>>> = OnceLock::new();
    let shared = SHARED.get_or_init(|| {
        vyre::wgpu::testing::backend_or_skip("vyre-datafusion GPU tests")
            .map(|b| Arc::new(b) as Arc<dyn VyreBackend>)
    });
    if shared.is_none() {
        eprintln!("skipped {test}: no GPU adapter");
    }
    shared.clone()
}

/// A session whose batches hold `batch_size` rows.
pub fn session(batch_size: usize) -> SessionContext {
    SessionContext::new_with_config(SessionConfig::new().with_batch_size(batch_size))
}

/// Registers table `name` of `columns`, cut into `partitions` partitions of batches of at most
/// `batch_rows` rows; every batch is a slice of one big batch, so its arrays have offsets.
pub fn register(
    ctx: &SessionContext,
    name: &str,
    columns: Vec<(&str, ArrayRef)>,
    partitions: usize,
    batch_rows: usize,
) {
    let schema = Arc::new(Schema::new(
        columns
            .iter()
            .map(|(n, a)| Field::new(*n, a.data_type().clone(), true))
            .collect::<Vec<_>>(),
    ));
    let whole = RecordBatch::try_new(
        Arc::clone(&schema),
        columns.into_iter().map(|(_, a)| a).collect(),
    )
    .expect("a batch");
    let rows = whole.num_rows();
    let mut parts = vec![Vec::new(); partitions.max(1)];
    let mut at = 0;
    let mut k = 0;
    while at < rows {
        let len = batch_rows.min(rows - at);
        let part = k % parts.len();
        parts[part].push(whole.slice(at, len));
        at += len;
        k += 1;
    }
    let table = MemTable::try_new(schema, parts).expect("a table");
    ctx.register_table(name, Arc::new(table))
        .expect("registered");
}

/// Runs `sql` and returns its columns, each concatenated over the batches.
pub async fn query(ctx: &SessionContext, sql: &str) -> datafusion::error::Result<Vec<ArrayRef>> {
    let batches = ctx.sql(sql).await?.collect().await?;
    let Some(first) = batches.first() else {
        return Ok(Vec::new());
    };
    let schema = first.schema();
    let all = datafusion::arrow::compute::concat_batches(&schema, &batches)?;
    Ok(all.columns().to_vec())
}

/// Asserts that column `got` equals column `want` row by row (nulls included, floats by bits),
/// naming the first row that differs.
pub fn assert_same(what: &str, got: &ArrayRef, want: &ArrayRef) {
    if let Err(difference) = check_same(got, want) {
        panic!("{what}: {difference}");
    }
}

/// `Err` naming the first difference between column `got` (vyre's) and `want` (the CPU's).
pub fn check_same(got: &ArrayRef, want: &ArrayRef) -> Result<(), String> {
    if got.data_type() != want.data_type() || got.len() != want.len() {
        return Err(format!(
            "vyre gave {} rows of {}, the CPU {} rows of {}",
            got.len(),
            got.data_type(),
            want.len(),
            want.data_type()
        ));
    }
    for row in 0..got.len() {
        let g = ScalarValue::try_from_array(got, row).map_err(|e| e.to_string())?;
        let w = ScalarValue::try_from_array(want, row).map_err(|e| e.to_string())?;
        if !same(&g, &w) {
            return Err(format!("row {row}: vyre gave {g:?}, the CPU {w:?}"));
        }
    }
    Ok(())
}

/// Equal values, floats compared by their bits (a NaN equals itself).
fn same(a: &ScalarValue, b: &ScalarValue) -> bool {
    match (a, b) {
        (ScalarValue::Float32(Some(x)), ScalarValue::Float32(Some(y))) => {
            x.to_bits() == y.to_bits()
        }
        (ScalarValue::Float16(Some(x)), ScalarValue::Float16(Some(y))) => {
            x.to_bits() == y.to_bits()
        }
        _ => a == b,
    }
}

/// A Rust UDF `name` over `inputs` returning `output`, computing row by row with `f` on the
/// arguments as `ScalarValue`s (a null argument gives a null row, as for the vyre function).
pub fn rust_udf(
    name: &str,
    inputs: Vec<ArrowType>,
    output: ArrowType,
    f: impl Fn(&[ScalarValue]) -> ScalarValue + Send + Sync + 'static,
) -> ScalarUDF {
    let out = output.clone();
    create_udf(
        name,
        inputs,
        output,
        Volatility::Immutable,
        Arc::new(move |args: &[ColumnarValue]| {
            let arrays = ColumnarValue::values_to_arrays(args)?;
            let rows = arrays.first().map_or(1, |a| a.len());
            let values = (0..rows)
                .map(|row| {
                    let row_args = arrays
                        .iter()
                        .map(|a| ScalarValue::try_from_array(a, row))
                        .collect::<datafusion::error::Result<Vec<_>>>()?;
                    Ok(if row_args.iter().any(ScalarValue::is_null) {
                        ScalarValue::try_from(&out)?
                    } else {
                        f(&row_args)
                    })
                })
                .collect::<datafusion::error::Result<Vec<_>>>()?;
            Ok(ColumnarValue::Array(ScalarValue::iter_to_array(values)?))
        }),
    )
}

/// An elementwise program `y = body(a, b, ...)` over read buffers `args` (named `a`, `b`, ...)
/// and one output of type `out`.
pub fn program(args: &[DataType], out: DataType, body: impl Fn(&[Expr]) -> Expr) -> Program {
    let names = ["a", "b", "c", "d"];
    let mut buffers: Vec<BufferDecl> = args
        .iter()
        .zip(names)
        .enumerate()
        .map(|(i, (&ty, n))| BufferDecl::read(n, i as u32, ty))
        .collect();
    buffers.push(BufferDecl::output("y", args.len() as u32, out).with_count(1));
    let loads: Vec<Expr> = names[..args.len()]
        .iter()
        .map(|n| Expr::load(*n, Expr::gid_x()))
        .collect();
    Program::new(
        buffers,
        [64, 1, 1],
        vec![Node::store("y", Expr::gid_x(), body(&loads))],
    )
}

/// A deterministic stream of values for test columns (SplitMix64), so a failure reproduces.
pub struct Values(u64);

impl Values {
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }

    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Every `k`th row null (never, for `k == 0`).
    pub fn null_every(row: usize, k: usize) -> bool {
        k != 0 && row % k == k - 1
    }
}

/// `rows` booleans, a pattern with nulls.
pub fn bools(rows: usize, seed: u64, nulls: usize) -> ArrayRef {
    let mut v = Values::new(seed);
    Arc::new(
        (0..rows)
            .map(|r| (!Values::null_every(r, nulls)).then(|| v.next() & 1 == 1))
            .collect::<BooleanArray>(),
    )
}

/// A backend that counts the sequences and steps it runs (a sequence is one submit on wgpu).
pub struct Counting {
    pub inner: Arc<dyn VyreBackend>,
    pub sequences: AtomicUsize,
    pub steps: AtomicUsize,
}

impl Counting {
    pub fn new(inner: Arc<dyn VyreBackend>) -> Arc<Self> {
        Arc::new(Self {
            inner,
            sequences: AtomicUsize::new(0),
            steps: AtomicUsize::new(0),
        })
    }

    /// The sequences run so far.
    pub fn sequences(&self) -> usize {
        self.sequences.load(Ordering::Relaxed)
    }
}

impl VyreBackend for Counting {
    fn id(&self) -> &str {
        self.inner.id()
    }
    fn capabilities(&self) -> Capabilities {
        self.inner.capabilities()
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
        self.sequences.fetch_add(1, Ordering::Relaxed);
        self.steps.fetch_add(steps.len(), Ordering::Relaxed);
        self.inner.dispatch_sequence(steps)
    }
}
