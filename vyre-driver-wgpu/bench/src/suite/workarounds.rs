//! `workarounds`: what each driver workaround (`vyre_driver_wgpu::workarounds`) costs on this
//! device. Each row is the device time of vyre's emitted kernel with a workaround against the same
//! kernel without it, on the same buffers, in alternating batches: kernels dense in the pattern
//! the workaround rewrites (its worst case), and the add and the 10-op chain, which have no such
//! pattern, with every workaround on (the modules are then the same, so the ratio must be 1 within
//! the noise: the goal is 1.02). Every kernel's output with its workaround is checked against the
//! reference backend on its first elements.

use vyre_driver::{DispatchConfig, VyreBackend};
use vyre_driver_wgpu::{Workaround, Workarounds};
use vyre_foundation::ir::Program;

use super::{RowBase, Suite};
use crate::gpu::{BenchResult, WORKGROUP};
use crate::measure;
use crate::report::{Goal, Measure, Stat};
use crate::vyre_wgpu::EmittedKernel;
use crate::workloads;

/// Elements checked against the reference (a multiple of the workgroup size).
const CHECKED: u32 = 4096;

/// One kernel of the workload.
struct CostKernel {
    name: &'static str,
    /// The workarounds of the "with" side; the other side has none.
    with: Workarounds,
    /// The input's and the output's element types in the text form, and the output's bytes.
    input: &'static str,
    output: &'static str,
    output_bytes: u64,
    /// What the kernel computes, `x` being the element's input.
    body: &'static str,
    /// No pattern of any workaround: the ratio must stay within 2%.
    unaffected: bool,
}

impl CostKernel {
    /// The bytes of one input element.
    fn input_bytes(&self) -> usize {
        if self.input == "f16" { 2 } else { 4 }
    }

    /// The program over `n` elements.
    fn program(&self, n: u32) -> BenchResult<Program> {
        let text = format!(
            "program @workgroup_size({WORKGROUP}, 1, 1) {{\n  buffer a: read {}[{n}] @binding(0);\n  buffer out: output {}[{n}] @binding(1);\n  let i = gid.x;\n  let x = a[i];\n  {}\n}}",
            self.input, self.output, self.body
        );
        text.parse().map_err(|e| {
            format!(
                "the workaround kernel `{}` does not parse: {e}. Fix: this is a harness bug.",
                self.name
            )
        })
    }
}

fn kernels() -> Vec<CostKernel> {
    let only = |w| Workarounds::NONE.with(w);
    vec![
        CostKernel {
            name: "int min/max, 6 an element",
            with: only(Workaround::IntMinMax),
            input: "i32",
            output: "i32",
            output_bytes: 4,
            body: "let y = (x ^ 1234567i); out[i] = ((max(min(x, -y), min(y, 7i)) + max(min(x, y), -x)) + min(max((x ^ y), 0i), 100000i));",
            unaffected: false,
        },
        CostKernel {
            name: "i32 to i64 widening then shift, 2 an element",
            with: only(Workaround::OpaqueWidening),
            input: "i32",
            output: "u64",
            output_bytes: 8,
            body: "out[i] = ((u64(x) << 7u) ^ bitcast<u64>((i64((x ^ 77i)) >> 3u)));",
            unaffected: false,
        },
        CostKernel {
            name: "u64 division and remainder by constants, 2 an element",
            with: only(Workaround::OpaqueDivisor),
            input: "i32",
            output: "u64",
            output_bytes: 8,
            body: "let w = bitcast<u64>(i64(x)); out[i] = ((w % 1000003u64) + (w / 97u64));",
            unaffected: false,
        },
        CostKernel {
            name: "u64 division and remainder by constants, vyre's multiply-high, 2 an element",
            with: only(Workaround::SoftWideDivision),
            input: "i32",
            output: "u64",
            output_bytes: 8,
            body: "let w = bitcast<u64>(i64(x)); out[i] = ((w % 1000003u64) + ((w / 97u64) & 1u64));",
            unaffected: false,
        },
        CostKernel {
            name: "u64 division by a run-time divisor, vyre's loop, 1 an element",
            with: only(Workaround::SoftWideDivision),
            input: "i32",
            output: "u64",
            output_bytes: 8,
            body: "let w = bitcast<u64>(i64(x)); out[i] = (w / ((w >> 7u) | 1u64));",
            unaffected: false,
        },
        CostKernel {
            name: "u64 to u32 narrowing, 2 an element",
            with: only(Workaround::OpaqueNarrowing),
            input: "u32",
            output: "u32",
            output_bytes: 4,
            body: "let w = (u64(x) * 2654435761u64); out[i] = (u32(w) + u32((w >> 29u)));",
            unaffected: false,
        },
        CostKernel {
            name: "i64 comparisons, 2 an element",
            with: only(Workaround::OpaqueWideCompare),
            input: "i32",
            output: "u64",
            output_bytes: 8,
            body: "let w = (i64(x) << 7u); out[i] = bitcast<u64>((select((w < -5000000000i64), w, -w) + i64((w >= 123i64))));",
            unaffected: false,
        },
        CostKernel {
            name: "f32 to f16 conversion, 2 an element",
            with: only(Workaround::F16Rounding),
            input: "f32",
            output: "f32",
            output_bytes: 4,
            body: "out[i] = (f32(f16(x)) + f32(f16((x * 0.33333334f))));",
            unaffected: false,
        },
        CostKernel {
            // `f16` inputs (small integers, exact) and no product added to a sum: no conversion
            // to `f16` (that is `f16_rounding`'s) and nothing a driver may contract into an `fma`.
            name: "f16 sums and differences under a product, 2 an element",
            with: only(Workaround::OpaqueF16Sum),
            input: "f16",
            output: "f32",
            output_bytes: 4,
            body: "out[i] = f32(((x + 1.5h) * (x - 0.25h)));",
            unaffected: false,
        },
        CostKernel {
            name: "u32 add, every workaround",
            with: Workarounds::ALL,
            input: "u32",
            output: "u32",
            output_bytes: 4,
            body: "out[i] = (x + 1u);",
            unaffected: true,
        },
        CostKernel {
            name: "10-op u32 chain, every workaround",
            with: Workarounds::ALL,
            input: "u32",
            output: "u32",
            output_bytes: 4,
            body: "out[i] = ((((((((x * 3u) + 7u) ^ (x >> 3u)) * 5u) + (x << 2u)) ^ 2654435761u) + (x & 255u)) * 9u);",
            unaffected: true,
        },
    ]
}

/// The input words of the kernel `k`: small floats for `f32` (so that the f16 conversions stay in
/// range), the integers 0 to 63 for `f16` (exact, and every product of two sums below in range),
/// any word otherwise.
fn input(k: &CostKernel, n: u32) -> Vec<u8> {
    if k.input == "f16" {
        return (0..u64::from(n))
            .flat_map(|i| {
                let v = (workloads::word(41, i) & 63) as f32;
                vyre_foundation::ir::f32_to_f16_bits(v).to_le_bytes()
            })
            .collect();
    }
    (0..u64::from(n))
        .flat_map(|i| {
            let w = workloads::word(41, i);
            let bits = if k.input == "f32" {
                (((w & 0xffff) as f32) * 0.37 - 12000.0).to_bits()
            } else {
                w
            };
            bits.to_le_bytes()
        })
        .collect()
}

impl Suite<'_> {
    /// The `workarounds` workload (see the module docs).
    pub(super) fn workarounds(&mut self) -> BenchResult<()> {
        let gpu = self.gpu;
        let n = (self.cap() / 8).clamp(u64::from(CHECKED), 16 << 20) as u32 / WORKGROUP * WORKGROUP;
        for k in kernels() {
            let (f16, int64) = (
                k.input == "f16" || (k.input == "f32" && k.body.contains("f16")),
                k.output == "u64" || k.body.contains("u64"),
            );
            if (f16 && !gpu.f16) || (int64 && !gpu.int64) {
                self.notes.push(format!(
                    "workarounds: `{}` skipped, the device has no {}",
                    k.name,
                    if f16 { "f16" } else { "64-bit integers" }
                ));
                continue;
            }
            let program = k.program(n)?;
            let data = input(&k, n);
            let a = gpu.storage("workaround input", u64::from(n) * 4);
            gpu.queue.write_buffer(&a, 0, &data);
            let out = gpu.storage("workaround output", u64::from(n) * k.output_bytes);
            let grid = [n / WORKGROUP, 1, 1];
            let emit = |set| {
                EmittedKernel::with_workarounds(gpu, &program, &[&a, &out], grid, &[n, n], set)
            };
            let without = emit(Workarounds::NONE)?;
            let with = emit(k.with)?;
            let spin = self.options.spin;
            let mut off = |count| without.device_times(gpu, count, spin);
            let mut on = |count| with.device_times(gpu, count, spin);
            let mut both =
                measure::interleave_batches(self.options.reps, 2, &mut [&mut off, &mut on])?;
            let on_samples = both.pop().flatten();
            let off_samples = both.pop().flatten();
            self.check_workaround_kernel(&k, &with, &out, &data)?;
            gpu.check_errors(k.name)?;
            let base = RowBase {
                workload: "workarounds",
                case: format!("{} ({} elements)", k.name, n),
                baseline_name: "no workaround",
            };
            let goal = k.unaffected.then_some(Goal::RatioAtMost(1.02));
            self.rows.push(base.row(
                "device",
                Measure::Time,
                Stat::P50,
                (on_samples.as_deref(), off_samples.as_deref()),
                goal,
            ));
        }
        Ok(())
    }

    /// Runs `kernel` (with its workaround) once more and compares its first [`CHECKED`] output
    /// elements with the reference backend's on the same inputs.
    fn check_workaround_kernel(
        &self,
        k: &CostKernel,
        kernel: &EmittedKernel,
        out: &wgpu::Buffer,
        data: &[u8],
    ) -> BenchResult<()> {
        let gpu = self.gpu;
        let mut encoder = gpu.device.create_command_encoder(&Default::default());
        encoder.clear_buffer(out, 0, None);
        gpu.queue.submit([encoder.finish()]);
        kernel.device_times(gpu, 1, 0.0)?;
        let bytes = u64::from(CHECKED) * k.output_bytes;
        let staging = gpu.staging("workaround check", bytes);
        let mut encoder = gpu.device.create_command_encoder(&Default::default());
        encoder.copy_buffer_to_buffer(out, 0, &staging, 0, bytes);
        gpu.queue.submit([encoder.finish()]);
        let mut got = Vec::new();
        gpu.read_back(&staging, bytes, &mut got)?;
        let small = k.program(CHECKED)?;
        let config = DispatchConfig::default().with_grid([CHECKED / WORKGROUP, 1, 1]);
        let want = vyre::ReferenceBackend::new()
            .dispatch(
                &small,
                &[data[..CHECKED as usize * k.input_bytes()].to_vec()],
                &config,
            )
            .map_err(|e| {
                format!(
                    "the reference refused `{}`: {e}. Fix: this is a harness bug.",
                    k.name
                )
            })?;
        if want.first().map(Vec::as_slice) != Some(got.as_slice()) {
            let at = want
                .first()
                .and_then(|w| w.iter().zip(&got).position(|(a, b)| a != b))
                .unwrap_or(0);
            return Err(format!(
                "workarounds: `{}` with its workaround differs from the reference at byte {at}. Fix: the workaround's rewrite is wrong on this device; see DRIVER_BUGS.md and run the driver probes.",
                k.name
            ));
        }
        Ok(())
    }
}
