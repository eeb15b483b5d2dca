//! The resident chain: ten elementwise kernels over a resident buffer in one `dispatch_sequence`,
//! against raw wgpu running vyre's own emitted WGSL for the same ten kernels in one submit, and
//! against the same chain as ten plain `dispatch` calls.

use vyre_driver::{DeviceBuffer, DispatchConfig, Step};
use vyre_foundation::ir::Program;

use crate::gpu::BenchResult;
use crate::measure;
use crate::report::{Goal, Measure, Stat};
use crate::vyre::backend_error;
use crate::vyre_wgpu::EmittedKernel;
use crate::workloads::{self, CHAIN_STEPS, MIB};

use super::{RowBase, Suite};

/// The chain's result for element value `v`.
fn chained(v: u32) -> u32 {
    (0..CHAIN_STEPS).fold(v, |acc, k| acc.wrapping_mul(3).wrapping_add(k))
}

impl Suite<'_> {
    pub(super) fn chain(&mut self) -> BenchResult<()> {
        let gpu = self.gpu;
        let bytes = (256 * MIB).min(self.cap()) / 4 * 4;
        let n = u32::try_from(bytes / 4).map_err(|_| "chain size past u32".to_string())?;
        let start: Vec<u8> = (0..n)
            .flat_map(|i| workloads::word(11, u64::from(i)).to_le_bytes())
            .collect();
        let programs: Vec<Program> = (0..CHAIN_STEPS)
            .map(|k| workloads::chain_step_program(n, k))
            .collect();
        let grid = [n.div_ceil(crate::gpu::WORKGROUP), 1, 1];
        let reps = self.reps_for(bytes);

        // Raw wgpu: vyre's emitted WGSL, ten passes, one submit, alternating two buffers.
        let x = gpu.storage("chain x", bytes);
        let y = gpu.storage("chain y", bytes);
        let kernels: Vec<EmittedKernel> = programs
            .iter()
            .enumerate()
            .map(|(k, p)| {
                let (src, dst) = if k % 2 == 0 { (&x, &y) } else { (&y, &x) };
                EmittedKernel::new(gpu, p, &[src, dst], grid, &[n, n])
            })
            .collect::<BenchResult<_>>()?;
        let reset_raw = || gpu.queue.write_buffer(&x, 0, &start);
        let mut raw_step = || {
            let mut encoder = gpu.device.create_command_encoder(&Default::default());
            for kernel in &kernels {
                kernel.encode(&mut encoder);
            }
            gpu.queue.submit([encoder.finish()]);
            gpu.wait()
        };
        reset_raw();
        raw_step()?;
        let staging = gpu.staging("chain check", 64);
        let mut encoder = gpu.device.create_command_encoder(&Default::default());
        encoder.copy_buffer_to_buffer(&x, 0, &staging, 0, 64);
        gpu.queue.submit([encoder.finish()]);
        let mut head = Vec::new();
        gpu.read_back(&staging, 64, &mut head)?;
        workloads::verify_sample("raw chain", &head, 16, 16, |i| {
            chained(workloads::word(11, i as u64))
        })?;

        let Some(backend) = self.vyre else {
            let samples = measure::interleave(reps, &mut [&mut raw_step])?;
            let base = RowBase {
                workload: "chain",
                case: format!("{CHAIN_STEPS} steps over {} MiB u32", bytes / MIB),
                baseline_name: "raw",
            };
            self.rows.push(base.row(
                "end-to-end",
                Measure::Time,
                Stat::P50,
                (None, samples.first().map(Vec::as_slice)),
                None,
            ));
            return Ok(());
        };
        let create = |what: &str| {
            backend
                .create_buffer(bytes)
                .map_err(|e| backend_error(what, &e))
        };
        let vx: DeviceBuffer = create("chain x")?;
        let vy: DeviceBuffer = create("chain y")?;
        backend
            .write_buffer(&vx, 0, &start)
            .map_err(|e| backend_error("write", &e))?;
        let config = DispatchConfig::default();
        let forward = [&vx, &vy];
        let back = [&vy, &vx];
        let steps: Vec<Step<'_>> = programs
            .iter()
            .enumerate()
            .map(|(k, p)| Step::new(p, if k % 2 == 0 { &forward } else { &back }, &config))
            .collect();
        let mut vyre_step = || {
            backend
                .dispatch_sequence(&steps)
                .map_err(|e| backend_error("dispatch_sequence", &e))
        };
        vyre_step()?;
        let got = backend
            .read_buffer(&vx, 0..64)
            .map_err(|e| backend_error("read", &e))?;
        workloads::verify_sample("vyre chain", &got, 16, 16, |i| {
            chained(workloads::word(11, i as u64))
        })?;
        // The values drift with every repetition; only the first run is checked, and every run
        // does the same work.
        let samples = self.timed_pair(reps, &mut raw_step, &mut vyre_step)?;
        let base = RowBase {
            workload: "chain",
            case: format!(
                "{CHAIN_STEPS} steps over {} MiB u32, one submit",
                bytes / MIB
            ),
            baseline_name: "raw (vyre's WGSL)",
        };
        self.rows.push(base.row(
            "end-to-end",
            Measure::Time,
            Stat::P50,
            (samples.1.as_deref(), Some(samples.0.as_slice())),
            Some(Goal::RatioAtMost(1.05)),
        ));

        // The same chain as ten plain dispatches: every step uploads its input and reads its
        // output back.
        let mut plain_step = || {
            let mut data = start.clone();
            for p in &programs {
                let mut out = backend
                    .dispatch(p, &[data], &config)
                    .map_err(|e| backend_error("dispatch", &e))?;
                data = out.pop().unwrap_or_default();
            }
            workloads::verify_sample("plain chain", &data, n as usize, 16, |i| {
                chained(workloads::word(11, i as u64))
            })
        };
        let plain_reps = measure::Reps {
            warmup: 1,
            timed: 3.min(reps.timed).max(1),
            ..reps
        };
        let plain = measure::interleave(plain_reps, &mut [&mut plain_step, &mut vyre_step])?;
        let base = RowBase {
            workload: "chain",
            case: format!(
                "{CHAIN_STEPS} steps over {} MiB u32: one sequence vs {CHAIN_STEPS} dispatch calls",
                bytes / MIB
            ),
            baseline_name: "vyre dispatch x10",
        };
        self.rows.push(base.row(
            "end-to-end",
            Measure::Time,
            Stat::P50,
            (
                plain.get(1).map(Vec::as_slice),
                plain.first().map(Vec::as_slice),
            ),
            Some(Goal::RatioAtMost(0.05)),
        ));
        Ok(())
    }
}
