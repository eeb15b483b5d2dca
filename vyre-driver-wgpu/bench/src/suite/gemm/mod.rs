//! `gemm`: a register-blocked tiled SGEMM, `C = A x B` in `f32`, through vyre against the same
//! tiling hand-written in WGSL (issue 34), on the same buffers, in alternating batches of
//! GPU-timestamped dispatches.
//!
//! Sides, all over one shape's `A`, `B` and `C` (`tiling.rs` has the tiling, `wgsl.rs` the raw
//! kernels, `program.rs` vyre's):
//!
//! - **raw**: the hand-written kernel at its best ([`Variant::RAW`]: `vec4` loads, `vec4` tiles).
//! - **raw scalar tiles**: the same with `f32` workgroup tiles ([`Variant::SCALAR`]), which is what
//!   vyre, having no vector type, can express: vyre / raw scalar tiles is the cost of vyre's
//!   lowering alone, raw scalar tiles / raw the cost of the missing vector type.
//! - **vyre**: vyre's emitted module for the program (`EmittedKernel`, the module a dispatch runs),
//!   and the same program with its tile indices masked so that the lowering proves them in bounds.
//! - **raw, vec4 tiles read one element at a time** ([`LANES`]), against raw.
//! - **raw with one of vyre's differences** ([`LADDER`]): raw scalar tiles plus vyre's guards on
//!   workgroup accesses, plus vyre's storage accesses, plus both (vyre's module written by hand),
//!   so that each difference's cost is measured apart.
//!
//! Every side's `C` is checked exactly against the CPU on 2052 elements before it is timed, and
//! vyre's program is also dispatched once through `WgpuBackend` at the run's first shape and
//! checked. Only device time is reported: the product is compute-bound, and its upload and
//! read-back are the `bandwidth` workload's business.

pub(crate) mod program;
pub(crate) mod tiling;
mod wgsl;

use vyre_driver::DispatchConfig;

use self::program::{Indexing, gemm_program};
use self::tiling::{Expected, Shape, Tiling};
use self::wgsl::{Storage, Tiles, Variant, gemm_wgsl};
use super::{RowBase, Suite};
use crate::gpu::{BenchResult, Gpu, Kernel};
use crate::measure;
use crate::report::{Goal, Measure, Stat};
use crate::vyre::backend_error;
use crate::vyre_wgpu::EmittedKernel;

/// Raw scalar tiles with one or more of the ways vyre's module accesses memory, each against raw
/// scalar tiles: the figure's name says which.
const LADDER: [(&str, Variant); 3] = [
    (
        "device time, raw scalar tiles + vyre's guards on tile accesses",
        Variant {
            tile_guards: true,
            ..Variant::SCALAR
        },
    ),
    (
        "device time, raw scalar tiles + vyre's storage accesses",
        Variant {
            storage: Storage::AsVyre,
            ..Variant::SCALAR
        },
    ),
    (
        "device time, raw scalar tiles + both (vyre's module by hand)",
        Variant {
            tiles: Tiles::Scalar,
            tile_guards: true,
            storage: Storage::AsVyre,
        },
    ),
];

/// Raw with `vec4` tiles whose fragment is read one element at a time (a whole `vec4` load per
/// element, [`Tiles::Vec4Lanes`]), against raw: whether the driver merges repeated loads of one
/// workgroup `vec4`, i.e. whether a lowering to `vec4` tiles would need to share rows across
/// statements.
const LANES: &str = "device time, raw vec4 tiles read one element at a time";

/// Raw scalar tiles' accesses, element by element, to tiles declared as `vec4` rows
/// ([`Tiles::Vec4Rows`]), against raw: what a lowering that declares vyre's workgroup buffers as
/// rows would emit without any alignment proof.
const ROWS: &str = "device time, raw scalar accesses to vec4-row tiles";

/// vyre's module compiled without wgpu's runtime bounds checks (trusted modules), against raw.
const TRUSTED: &str = "device time, vyre with a trusted module (first column)";

/// The devices issue 34's absolute goal is for.
const GOAL_DEVICES: &[&str] = &["H100", "H200"];

/// A product above this many operations is timed with a third of `--reps` (at least 5): 8192^3
/// takes tens of milliseconds a dispatch even on an H100.
const LARGE_FLOPS: u64 = 1 << 38;

/// One kernel of a case, bound to the case's buffers.
enum Bound {
    Raw {
        kernel: Kernel,
        group: wgpu::BindGroup,
        grid: [u32; 3],
    },
    Vyre(EmittedKernel),
}

impl Bound {
    fn device_times(&self, gpu: &Gpu, reps: usize, spin: f64) -> BenchResult<Option<Vec<f64>>> {
        match self {
            Bound::Raw {
                kernel,
                group,
                grid,
            } => {
                gpu.spin_up(kernel, group, *grid, spin)?;
                gpu.device_times(kernel, group, *grid, reps)
            }
            Bound::Vyre(emitted) => emitted.device_times(gpu, reps, spin),
        }
    }

    fn encode(&self, encoder: &mut wgpu::CommandEncoder) {
        match self {
            Bound::Raw {
                kernel,
                group,
                grid,
            } => Gpu::record(encoder, kernel, group, *grid),
            Bound::Vyre(emitted) => emitted.encode(encoder),
        }
    }
}

/// The inputs of one shape, on the host (for the check) and on the device.
struct Case {
    shape: Shape,
    a: Vec<f32>,
    b: Vec<f32>,
    expected: Expected,
    buffers: [wgpu::Buffer; 3],
    staging: wgpu::Buffer,
}

impl Case {
    fn new(gpu: &Gpu, shape: Shape) -> Self {
        let (m, n, k) = (u64::from(shape.m), u64::from(shape.n), u64::from(shape.k));
        let a = tiling::matrix(m * k, 11);
        let b = tiling::matrix(k * n, 12);
        let buffers = [
            gpu.storage("gemm a", m * k * 4),
            gpu.storage("gemm b", k * n * 4),
            gpu.storage("gemm c", m * n * 4),
        ];
        gpu.queue.write_buffer(&buffers[0], 0, &tiling::bytes(&a));
        gpu.queue.write_buffer(&buffers[1], 0, &tiling::bytes(&b));
        let staging = gpu.staging("gemm c read-back", m * n * 4);
        let expected = Expected::of(shape, &a, &b);
        Self {
            shape,
            a,
            b,
            expected,
            buffers,
            staging,
        }
    }

    fn grid(&self, t: Tiling) -> [u32; 3] {
        [self.shape.n / t.bn, self.shape.m / t.bm, 1]
    }

    /// The raw kernel of `variant`, bound.
    fn raw(&self, gpu: &Gpu, t: Tiling, variant: Variant) -> BenchResult<Bound> {
        let kernel = gpu.kernel("raw gemm", &gemm_wgsl(self.shape, t, variant))?;
        let [a, b, c] = &self.buffers;
        let group = gpu.bind(&kernel, &[a, b, c]);
        Ok(Bound::Raw {
            kernel,
            group,
            grid: self.grid(t),
        })
    }

    /// vyre's emitted kernel for the program with `indexing`, bound.
    fn vyre(&self, gpu: &Gpu, t: Tiling, indexing: Indexing) -> BenchResult<Bound> {
        let program = gemm_program(self.shape, t, indexing);
        let counts: Vec<u32> = program.buffers.iter().map(|b| b.count).collect();
        let [a, b, c] = &self.buffers;
        let emitted = EmittedKernel::new(gpu, &program, &[a, b, c], self.grid(t), &counts)?;
        Ok(Bound::Vyre(emitted))
    }

    /// vyre's emitted kernel compiled as the backend compiles it with trusted modules on (no wgpu
    /// runtime bounds checks), bound.
    fn vyre_trusted(&self, gpu: &Gpu, t: Tiling) -> BenchResult<Bound> {
        let program = gemm_program(self.shape, t, Indexing::Plain);
        let counts: Vec<u32> = program.buffers.iter().map(|b| b.count).collect();
        let [a, b, c] = &self.buffers;
        let emitted = EmittedKernel::trusted(gpu, &program, &[a, b, c], self.grid(t), &counts)?;
        Ok(Bound::Vyre(emitted))
    }

    /// One dispatch of `kernel` into a cleared `C`, read back and checked.
    fn check(&self, gpu: &Gpu, what: &str, kernel: &Bound) -> BenchResult<()> {
        let c = &self.buffers[2];
        let bytes = c.size();
        let mut encoder = gpu.device.create_command_encoder(&Default::default());
        encoder.clear_buffer(c, 0, None);
        kernel.encode(&mut encoder);
        encoder.copy_buffer_to_buffer(c, 0, &self.staging, 0, bytes);
        gpu.queue.submit([encoder.finish()]);
        let mut got = Vec::new();
        gpu.read_back(&self.staging, bytes, &mut got)?;
        gpu.check_errors(what)?;
        self.expected.check(what, &got)
    }
}

/// The named sides of a case, in the order they are timed.
struct Side {
    name: &'static str,
    kernel: Bound,
}

impl Suite<'_> {
    /// The `gemm` workload (see the module docs): every shape of the run that fits, for each
    /// tiling of `--gemm-tiling`, or when none is given at the tiling chosen for each shape and
    /// device ([`Tiling::for_shape`]).
    pub(in crate::suite) fn gemm(&mut self) -> BenchResult<()> {
        let quick = self.options.quick;
        // `None`: each shape's own tiling.
        let tilings: Vec<Option<Tiling>> = if self.options.gemm_tilings.is_empty() {
            vec![None]
        } else {
            self.options
                .gemm_tilings
                .iter()
                .copied()
                .map(Some)
                .collect()
        };
        let workgroup_bytes = self.gpu.limits.max_compute_workgroup_storage_size;
        let device = self.gpu.info.device_type;
        let mut checked_dispatch = false;
        for chosen in tilings {
            for shape in tiling::shapes(quick) {
                let t = chosen.unwrap_or_else(|| Tiling::for_shape(shape, device));
                if (t.bm + t.bn) * t.bk * 4 > workgroup_bytes {
                    self.notes.push(format!(
                        "gemm: {} skipped with tiling {}, its tiles pass the device's {workgroup_bytes} bytes of workgroup memory",
                        shape.name(),
                        t.name()
                    ));
                    continue;
                }
                if !shape.fits(t) || shape.max_bytes() > self.cap() {
                    self.notes.push(format!(
                        "gemm: {} skipped with tiling {} (not a multiple of the tile, or a buffer passes --max-bytes or the binding limit)",
                        shape.name(),
                        t.name()
                    ));
                    continue;
                }
                let case = Case::new(self.gpu, shape);
                if !checked_dispatch {
                    self.gemm_dispatch_check(&case, t)?;
                    checked_dispatch = true;
                }
                self.gemm_case(&case, t)?;
            }
        }
        Ok(())
    }

    /// vyre's program dispatched once through the backend, as a user runs it, and checked.
    fn gemm_dispatch_check(&self, case: &Case, t: Tiling) -> BenchResult<()> {
        let Some(vyre) = self.vyre else {
            return Ok(());
        };
        let program = gemm_program(case.shape, t, Indexing::Plain);
        let config = DispatchConfig::default().with_grid(case.grid(t));
        let inputs = [tiling::bytes(&case.a), tiling::bytes(&case.b)];
        let out = vyre
            .dispatch(&program, &inputs, &config)
            .map_err(|e| backend_error("gemm dispatch", &e))?;
        let c = out.first().map_or(&[][..], Vec::as_slice);
        case.expected.check("vyre gemm through dispatch", c)
    }

    /// Every side of one shape: built, checked, timed in alternating batches, reported.
    fn gemm_case(&mut self, case: &Case, t: Tiling) -> BenchResult<()> {
        let gpu = self.gpu;
        let raw = [
            ("raw", Variant::RAW),
            ("raw scalar tiles", Variant::SCALAR),
            (LANES, Variant::LANES),
            (ROWS, Variant::ROWS),
        ];
        let mut sides = raw
            .into_iter()
            .chain(LADDER)
            .map(|(name, variant)| {
                let kernel = case.raw(gpu, t, variant)?;
                Ok(Side { name, kernel })
            })
            .collect::<BenchResult<Vec<_>>>()?;
        if self.wgpu.is_some() {
            sides.push(Side {
                name: "vyre",
                kernel: case.vyre(gpu, t, Indexing::Plain)?,
            });
            sides.push(Side {
                name: "vyre, masked tile indices",
                kernel: case.vyre(gpu, t, Indexing::Masked)?,
            });
            sides.push(Side {
                name: TRUSTED,
                kernel: case.vyre_trusted(gpu, t)?,
            });
        }
        for side in &sides {
            let what = format!("gemm {} {}, {}", case.shape.name(), t.name(), side.name);
            case.check(gpu, &what, &side.kernel)?;
        }
        let flops = case.shape.flops();
        let reps = if flops > LARGE_FLOPS {
            (self.options.reps / 3).max(5)
        } else {
            self.options.reps
        };
        // The products keep a GPU busy for milliseconds a batch, so a short burst before each
        // batch is enough to raise its clocks.
        let spin = self.options.spin.min(0.1);
        let mut batches: Vec<_> = sides
            .iter()
            .map(|side| move |count| side.kernel.device_times(gpu, count, spin))
            .collect();
        let mut refs: Vec<measure::Batch<'_>> = batches
            .iter_mut()
            .map(|b| b as measure::Batch<'_>)
            .collect();
        let samples = measure::interleave_batches(reps, 2, &mut refs)?;
        gpu.check_errors("gemm")?;
        let of = |name: &str| {
            sides
                .iter()
                .position(|s| s.name == name)
                .and_then(|i| samples[i].as_deref())
        };
        self.gemm_rows(case.shape, t, &of);
        Ok(())
    }

    /// The rows of one shape from each side's samples (`of(name)`).
    fn gemm_rows<'s>(&mut self, shape: Shape, t: Tiling, of: &dyn Fn(&str) -> Option<&'s [f64]>) {
        let measure = Measure::Flops {
            flops: shape.flops(),
        };
        let case = format!("{} f32, tiles {}", shape.name(), t.name());
        let base = |baseline_name| RowBase {
            workload: "gemm",
            case: case.clone(),
            baseline_name,
        };
        let mut goals = Vec::new();
        if shape.m >= 1024 && shape.n >= 1024 {
            goals.push(Goal::RatioAtLeast(0.9));
        }
        if (shape.m, shape.n, shape.k) == (4096, 4096, 4096) {
            goals.push(Goal::TflopsAtLeast(30.0, GOAL_DEVICES));
        }
        let vyre_raw = (of("vyre"), of("raw"));
        let goals = if goals.is_empty() {
            vec![None]
        } else {
            goals.into_iter().map(Some).collect()
        };
        for goal in goals {
            self.rows
                .push(base("raw").row("device time", measure, Stat::P50, vyre_raw, goal));
        }
        let mut push = |figure, first: &str, baseline| {
            let sides = (of(first), of(baseline));
            self.rows
                .push(base(baseline).row(figure, measure, Stat::P50, sides, None));
        };
        push("device time", "vyre", "raw scalar tiles");
        push(
            "device time, raw scalar tiles (first column)",
            "raw scalar tiles",
            "raw",
        );
        push(LANES, LANES, "raw");
        push(ROWS, ROWS, "raw");
        for (figure, _) in LADDER {
            push(figure, figure, "raw scalar tiles");
        }
        push(
            "device time, vyre with masked tile indices (first column)",
            "vyre, masked tile indices",
            "vyre",
        );
        push(TRUSTED, TRUSTED, "raw");
    }
}

/// vyre's GEMM program at a small shape, for `--show-programs`.
pub(crate) fn programs() -> Vec<(&'static str, vyre_foundation::ir::Program)> {
    let shape = Shape {
        m: 256,
        n: 256,
        k: 256,
    };
    vec![
        (
            "gemm 256^3, tiles 64x64x16/4x4",
            gemm_program(shape, Tiling::SMALL, Indexing::Plain),
        ),
        (
            "gemm 256^3, tiles 64x64x16/4x4, masked tile indices",
            gemm_program(shape, Tiling::SMALL, Indexing::Masked),
        ),
    ]
}
