//! The streaming workloads: bandwidth, fused chain and reduction, device time and end to end.

use vyre_driver::DispatchConfig;
use vyre_driver_wgpu::WgpuBackend;
use vyre_foundation::ir::Program;

use crate::gpu::BenchResult;
use crate::measure;
use crate::raw::{RawElementwise, RawReduction};
use crate::report::{Goal, Measure, Stat};
use crate::vyre::VyreCase;
use crate::vyre_wgpu::EmittedKernel;
use crate::wgsl;
use crate::workloads::{self, Elem, MIB, Trip};

use super::{RowBase, Samples, Suite, Timings};

impl<'g> Suite<'g> {
    /// Device and end-to-end rows of one elementwise case, throughput counting `bytes_moved`.
    pub(super) fn elementwise_rows(
        &mut self,
        base: &RowBase,
        bytes_moved: u64,
        (vyre, raw): (Option<&Timings>, &Timings),
        device_goals: &[Goal],
    ) {
        let measure = Measure::Throughput { bytes: bytes_moved };
        let device = (
            vyre.and_then(|t| t.device.as_deref()),
            raw.device.as_deref(),
        );
        if device_goals.is_empty() {
            self.rows
                .push(base.row("device time", measure, Stat::P50, device, None));
        }
        for &goal in device_goals {
            self.rows
                .push(base.row("device time", measure, Stat::P50, device, Some(goal)));
        }
        let e2e = (
            vyre.map(|t| t.end_to_end.as_slice()),
            Some(raw.end_to_end.as_slice()),
        );
        self.rows
            .push(base.row("end-to-end", measure, Stat::P50, e2e, None));
    }

    /// Times one streaming kernel over `inputs` (`a`, `b`), the raw WGSL against the vyre
    /// `program`: device time, then end to end. Returns the raw and the vyre timings.
    fn elementwise_case(
        &mut self,
        label: &str,
        (raw_wgsl, program): (&str, Program),
        inputs: &[Vec<u8>],
        expected: &dyn Fn(usize) -> u32,
    ) -> BenchResult<(Timings, Option<Timings>)> {
        let gpu = self.gpu;
        let (a, b) = (&inputs[0], &inputs[1]);
        let n = a.len() / 4;
        let reps = self.reps_for(a.len() as u64);
        let mut raw = RawElementwise::new(gpu, label, raw_wgsl, a, b)?;
        let emitted = match self.wgpu {
            Some(_) => Some(EmittedKernel::new(
                gpu,
                &program,
                &raw.buffers(),
                [
                    (n as u64).div_ceil(u64::from(crate::gpu::WORKGROUP)) as u32,
                    1,
                    1,
                ],
                &[n as u32; 3],
            )?),
            None => None,
        };
        let (device, vyre_device) = self.device_pair(
            &mut |count| raw.device_times(gpu, count, reps.spin),
            emitted.as_ref(),
        )?;
        if let (Some(emitted), Some(_)) = (&emitted, &vyre_device) {
            // One more dispatch of vyre's kernel alone into a cleared `out`, then check it.
            raw.clear_out(gpu);
            emitted.device_times(gpu, 1, 0.0)?;
            let what = format!("vyre emitted {label}");
            workloads::verify_sample(&what, raw.output(gpu)?, n, 4096, expected)?;
        }
        if device.is_some() {
            workloads::verify_sample(label, raw.output(gpu)?, n, 4096, expected)?;
        }
        let mut raw_step = || raw.run(gpu, a, b).map(|_| ());
        let mut vyre_case = self.vyre_case(label, program, DispatchConfig::default())?;
        let mut vyre_step = || vyre_case.as_mut().map_or(Ok(()), |c| c.run(inputs));
        let before = self.wgpu.map(WgpuBackend::stats);
        let (raw_e2e, vyre_e2e) = self.timed_pair(reps, &mut raw_step, &mut vyre_step)?;
        self.note_stats(label, before, (reps.warmup + reps.timed) as u64);
        workloads::verify_sample(label, raw.last(), n, 4096, expected)?;
        if let Some(case) = &vyre_case {
            workloads::verify_sample(&format!("vyre {label}"), case.output(0), n, 4096, expected)?;
        }
        gpu.check_errors(label)?;
        let raw = Timings {
            device,
            end_to_end: raw_e2e,
        };
        let vyre = vyre_e2e.map(|end_to_end| Timings {
            device: vyre_device,
            end_to_end,
        });
        Ok((raw, vyre))
    }

    /// Device-time samples of the raw batch and, when there is one, vyre's emitted kernel, in
    /// alternating batches. Returns the raw and the vyre side.
    fn device_pair(
        &self,
        raw: measure::Batch<'_>,
        emitted: Option<&EmittedKernel>,
    ) -> BenchResult<(Samples, Samples)> {
        let gpu = self.gpu;
        let spin = self.options.spin;
        let reps = self.options.reps;
        let Some(emitted) = emitted else {
            let raw = measure::interleave_batches(reps, 2, &mut [raw])?
                .pop()
                .flatten();
            return Ok((raw, None));
        };
        let mut vyre = |count| emitted.device_times(gpu, count, spin);
        let mut both = measure::interleave_batches(reps, 2, &mut [raw, &mut vyre])?;
        let vyre = both.pop().flatten();
        Ok((both.pop().flatten(), vyre))
    }

    /// The vyre case of `program`, when there is a vyre backend.
    fn vyre_case(
        &self,
        label: &str,
        program: Program,
        config: DispatchConfig,
    ) -> BenchResult<Option<VyreCase<'g>>> {
        self.vyre
            .map(|b| VyreCase::new(b, label, program, config))
            .transpose()
    }

    /// `out = a + b` over u32 and f32 at every size that fits.
    pub(super) fn bandwidth(&mut self) -> BenchResult<()> {
        let sizes = workloads::bandwidth_sizes(self.cap());
        if sizes.last() != Some(&(1024 * MIB)) {
            self.notes.push(format!(
                "bandwidth stops at {} MiB per buffer (--max-bytes and the device's binding limit)",
                sizes.last().copied().unwrap_or(0) / MIB
            ));
        }
        for elem in [Elem::U32, Elem::F32] {
            let raw_wgsl = wgsl::add_wgsl(elem);
            for &size in &sizes {
                let n = size / 4;
                let inputs = vec![
                    workloads::input_bytes(elem, n, 1),
                    workloads::input_bytes(elem, n, 2),
                ];
                let expected = |i: usize| {
                    let (x, y) = (&inputs[0], &inputs[1]);
                    workloads::add_reference(
                        elem,
                        workloads::word_at(x, i),
                        workloads::word_at(y, i),
                    )
                };
                let case = format!("add {} {} MiB", elem.name(), size / MIB);
                let program = workloads::add_program(elem, n as u32);
                let (raw, vyre) =
                    self.elementwise_case(&case, (&raw_wgsl, program), &inputs, &expected)?;
                let base = RowBase {
                    workload: "bandwidth",
                    case,
                    baseline_name: "raw vec4",
                };
                let mut goals = vec![Goal::RatioAtLeast(0.95)];
                if size == 1024 * MIB {
                    goals.push(Goal::GbpsAtLeast(3400.0, "H200"));
                }
                self.elementwise_rows(&base, size * 3, (vyre.as_ref(), &raw), &goals);
            }
        }
        Ok(())
    }

    /// The ten-operation chain at the largest size that fits.
    pub(super) fn fused(&mut self) -> BenchResult<()> {
        let Some(&size) = workloads::bandwidth_sizes(self.cap()).last() else {
            self.notes.push("fused chain skipped: no size fits".into());
            return Ok(());
        };
        let n = size / 4;
        let inputs = vec![
            workloads::input_bytes(Elem::U32, n, 1),
            workloads::input_bytes(Elem::U32, n, 2),
        ];
        let salt = workloads::CHAIN_SALT;
        let expected = |i: usize| {
            let (x, y) = (&inputs[0], &inputs[1]);
            workloads::chain_reference(workloads::word_at(x, i), workloads::word_at(y, i), salt)
        };
        let case = format!("10-op chain u32 {} MiB", size / MIB);
        let sides = (
            wgsl::chain_wgsl(true, salt),
            workloads::chain_program(n as u32, salt),
        );
        let (raw, vyre) =
            self.elementwise_case(&case, (sides.0.as_str(), sides.1), &inputs, &expected)?;
        let base = RowBase {
            workload: "fused",
            case,
            baseline_name: "raw vec4",
        };
        self.elementwise_rows(
            &base,
            size * 3,
            (vyre.as_ref(), &raw),
            &[Goal::RatioAtLeast(0.95)],
        );
        Ok(())
    }

    /// Sums of 2^24, 2^26 and 2^28 u32 where they fit.
    pub(super) fn reduction(&mut self) -> BenchResult<()> {
        let counts = workloads::reduction_counts(self.cap());
        if counts.is_empty() {
            self.notes.push(
                "reduction skipped: 2^24 u32 (64 MiB) passes --max-bytes or the device limit"
                    .into(),
            );
        }
        // vyre's program reads four words a trip, as the raw kernel's `vec4` does (row loads);
        // the one-word-a-trip program shows what the scalar access costs.
        let trips = [
            (Trip::Four, "", Some(Goal::RatioAtLeast(0.9))),
            (Trip::One, ", one word a trip", None),
        ];
        for n in counts {
            for (trip, suffix, goal) in trips {
                let tree = crate::wgsl::reduction_wgsl();
                let kernel = ("raw reduction", tree.as_str());
                let program = ("reduction", workloads::reduction_program(trip));
                let (raw, vyre) = self.reduction_case_with(n, kernel, program)?;
                let base = RowBase {
                    workload: "reduction",
                    case: format!("sum 2^{} u32{suffix}", n.trailing_zeros()),
                    baseline_name: "raw vec4",
                };
                let goals: Vec<Goal> = goal.into_iter().collect();
                self.elementwise_rows(&base, n * 4, (vyre.as_ref(), &raw), &goals);
            }
        }
        Ok(())
    }

    /// Times a sum of `n` u32: the raw WGSL `kernel` (label, text) against the vyre `program`
    /// (label, program), both on the grid `[reduction_groups(n), 1, 1]` with the bindings `data`
    /// and `total`, both checked against the CPU sum.
    pub(super) fn reduction_case_with(
        &mut self,
        n: u64,
        (raw_label, raw_wgsl): (&str, &str),
        (label, program): (&str, Program),
    ) -> BenchResult<(Timings, Option<Timings>)> {
        let gpu = self.gpu;
        let inputs = [workloads::input_bytes(Elem::U32, n, 5)];
        let data = &inputs[0];
        let want = workloads::sum_reference(data);
        let reps = self.reps_for(n * 4);
        let mut raw = RawReduction::with_kernel(gpu, data, raw_label, raw_wgsl)?;
        let groups = workloads::reduction_groups(n);
        // One element count per program buffer: `data` holds n words, the rest their declared
        // counts (`total`, and the tree's workgroup `partial`).
        let counts: Vec<u32> = program
            .buffers
            .iter()
            .map(|b| if b.name == "data" { n as u32 } else { b.count })
            .collect();
        let emitted = match self.wgpu {
            Some(_) => Some(EmittedKernel::new(
                gpu,
                &program,
                &raw.buffers(),
                [groups, 1, 1],
                &counts,
            )?),
            None => None,
        };
        let (device, vyre_device) = self.device_pair(
            &mut |count| raw.device_times(gpu, count, reps.spin),
            emitted.as_ref(),
        )?;
        let mut raw_step = || raw.run(gpu, data).map(|_| ());
        let config = DispatchConfig::default().with_grid([workloads::reduction_groups(n), 1, 1]);
        let mut vyre_case = self.vyre_case(label, program, config)?;
        let mut vyre_step = || vyre_case.as_mut().map_or(Ok(()), |c| c.run(&inputs));
        let before = self.wgpu.map(WgpuBackend::stats);
        let (raw_e2e, vyre_e2e) = self.timed_pair(reps, &mut raw_step, &mut vyre_step)?;
        self.note_stats(label, before, (reps.warmup + reps.timed) as u64);
        workloads::verify_sample(raw_label, raw.last(), 1, 1, |_| want)?;
        if let Some(case) = &vyre_case {
            workloads::verify_sample(&format!("vyre {label}"), case.output(0), 1, 1, |_| want)?;
        }
        gpu.check_errors(label)?;
        let raw = Timings {
            device,
            end_to_end: raw_e2e,
        };
        let vyre = vyre_e2e.map(|end_to_end| Timings {
            device: vyre_device,
            end_to_end,
        });
        Ok((raw, vyre))
    }
}
