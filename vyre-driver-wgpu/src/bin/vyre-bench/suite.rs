//! Runs each workload on both sides and turns the timings into report rows.
//!
//! Sizes are cut to the device: no buffer passes `--max-bytes`, `max_storage_buffer_binding_size` or
//! `max_buffer_size`. End-to-end repetitions shrink for large transfers (each run of a 1 GiB case moves
//! 3 GiB over the bus) but never below three. Every side's output is checked against the CPU
//! reference after it is timed.

use vyre_driver::{DispatchConfig, VyreBackend};
use vyre_driver_wgpu::WgpuBackend;
use vyre_foundation::ir::Program;

use crate::Options;
use crate::gpu::{BenchResult, Gpu};
use crate::measure::{self, Reps};
use crate::raw::{RawAddOne, RawElementwise, RawReduction};
use crate::report::{Goal, Measure, Row, Stat};
use crate::stats::Summary;
use crate::vyre::{self, VyreCase};
use crate::vyre_wgpu::{self, EmittedKernel};
use crate::wgsl;
use crate::workloads::{self, Elem, MIB, Workload};

/// The rows and notes of one run.
pub(crate) struct Suite<'g> {
    gpu: &'g Gpu,
    options: &'g Options,
    vyre: Option<&'g dyn VyreBackend>,
    wgpu: Option<&'g WgpuBackend>,
    /// Every row, in the order measured.
    pub(crate) rows: Vec<Row>,
    /// Things the reader of the table must know (skipped cases, missing features).
    pub(crate) notes: Vec<String>,
}

/// Rows that share a workload, case and sides; only figure, measure, stat and goal vary.
struct RowBase {
    workload: &'static str,
    case: String,
    baseline_name: &'static str,
}

impl RowBase {
    fn row(
        &self,
        figure: &'static str,
        measure: Measure,
        stat: Stat,
        (vyre, baseline): (Option<&[f64]>, Option<&[f64]>),
        goal: Option<Goal>,
    ) -> Row {
        Row {
            workload: self.workload,
            case: self.case.clone(),
            figure,
            baseline_name: self.baseline_name,
            measure,
            stat,
            vyre: vyre.and_then(Summary::of),
            baseline: baseline.and_then(Summary::of),
            goal,
        }
    }
}

/// One side's samples, `None` when that side did not run or cannot time itself.
type Samples = Option<Vec<f64>>;

/// Device-time and end-to-end samples of one side.
struct Timings {
    device: Option<Vec<f64>>,
    end_to_end: Vec<f64>,
}

impl<'g> Suite<'g> {
    /// An empty suite: raw baselines on `gpu`, the vyre side on `vyre` (`None`: raw only).
    pub(crate) fn new(gpu: &'g Gpu, options: &'g Options, wgpu: Option<&'g WgpuBackend>) -> Self {
        let mut notes = Vec::new();
        if wgpu.is_none() {
            notes.push("no vyre backend: vyre columns stay empty".to_string());
        }
        Self {
            gpu,
            options,
            vyre: wgpu.map(|b| b as &dyn VyreBackend),
            wgpu,
            rows: Vec::new(),
            notes,
        }
    }

    /// The biggest buffer this run may allocate.
    fn cap(&self) -> u64 {
        self.options.max_bytes.min(self.gpu.max_binding_bytes())
    }

    fn reps(&self) -> Reps {
        Reps {
            warmup: 2,
            timed: self.options.reps,
            spin: self.options.spin,
        }
    }

    /// End-to-end repetitions for a case that moves `bytes` per buffer: all of `--reps` up to
    /// 16 MiB, proportionally fewer above, never fewer than 3.
    fn reps_for(&self, bytes: u64) -> Reps {
        let r = self.options.reps as u64;
        let timed = (r * 16 * MIB / bytes.max(1)).clamp(3.min(r), r) as usize;
        Reps {
            warmup: if bytes >= 256 * MIB { 1 } else { 2 },
            timed,
            ..self.reps()
        }
    }

    /// Host-clock samples of the raw step and, when there is a vyre backend, the vyre step,
    /// interleaved round by round.
    fn timed_pair(
        &self,
        reps: Reps,
        raw: measure::Step<'_>,
        vyre: measure::Step<'_>,
    ) -> BenchResult<(Vec<f64>, Option<Vec<f64>>)> {
        if self.vyre.is_none() {
            let mut samples = measure::interleave(reps, &mut [raw])?;
            return Ok((samples.pop().unwrap_or_default(), None));
        }
        let mut samples = measure::interleave(reps, &mut [raw, vyre])?;
        let vyre = samples.pop();
        Ok((samples.pop().unwrap_or_default(), vyre))
    }

    /// Runs one workload and appends its rows.
    pub(crate) fn run(&mut self, workload: Workload) -> BenchResult<()> {
        match workload {
            Workload::RoundTrip => self.round_trip(),
            Workload::Bandwidth => self.bandwidth(),
            Workload::Fused => self.fused(),
            Workload::Reduction => self.reduction(),
            Workload::Coalesced => self.coalesced(),
            Workload::Compile => self.compile(),
        }
    }

    fn round_trip(&mut self) -> BenchResult<()> {
        let gpu = self.gpu;
        let mut raw = RawAddOne::new(gpu, 1)?;
        let mut counter = 0u64;
        let mut raw_step = || {
            let value = workloads::word(3, counter);
            counter += 1;
            let out = raw.run_words(gpu, &value.to_le_bytes())?;
            workloads::verify_sample("raw round trip", out, 1, 1, |_| value.wrapping_add(1))
        };
        let mut vyre_case = self
            .vyre
            .map(|b| {
                VyreCase::new(
                    b,
                    "round trip",
                    workloads::round_trip_program(),
                    DispatchConfig::default(),
                )
            })
            .transpose()?;
        let mut vyre_counter = 0u64;
        let mut vyre_step = || {
            let Some(case) = vyre_case.as_mut() else {
                return Ok(());
            };
            let value = workloads::word(3, vyre_counter);
            vyre_counter += 1;
            case.run(&[value.to_le_bytes().to_vec()])?;
            workloads::verify_sample("vyre round trip", case.output(0), 1, 1, |_| {
                value.wrapping_add(1)
            })
        };
        let samples = self.timed_pair(self.reps(), &mut raw_step, &mut vyre_step)?;
        let base = RowBase {
            workload: "roundtrip",
            case: "1 u32, cached pipeline".into(),
            baseline_name: "raw",
        };
        let sides = (samples.1.as_deref(), Some(samples.0.as_slice()));
        let goal = Some(Goal::RatioAtMost(1.1));
        self.rows
            .push(base.row("end-to-end", Measure::Time, Stat::P50, sides, goal));
        self.rows
            .push(base.row("end-to-end", Measure::Time, Stat::P99, sides, None));
        Ok(())
    }

    /// Device and end-to-end rows of one elementwise case, throughput counting `bytes_moved`.
    fn elementwise_rows(
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

    /// Adds what the wgpu backend did since `before` to the notes.
    fn note_stats(&mut self, what: &str, before: Option<vyre_driver_wgpu::WgpuStats>, reps: u64) {
        if let (Some(before), Some(backend)) = (before, self.wgpu) {
            let line = vyre_wgpu::stats_line(what, &before, &backend.stats(), reps);
            self.notes.push(line);
        }
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

    fn bandwidth(&mut self) -> BenchResult<()> {
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

    fn fused(&mut self) -> BenchResult<()> {
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

    fn reduction(&mut self) -> BenchResult<()> {
        let counts = workloads::reduction_counts(self.cap());
        if counts.is_empty() {
            self.notes.push(
                "reduction skipped: 2^24 u32 (64 MiB) passes --max-bytes or the device limit"
                    .into(),
            );
        }
        for n in counts {
            let (raw, vyre) = self.reduction_case(n)?;
            let base = RowBase {
                workload: "reduction",
                case: format!("sum 2^{} u32", n.trailing_zeros()),
                baseline_name: "raw vec4",
            };
            self.elementwise_rows(
                &base,
                n * 4,
                (vyre.as_ref(), &raw),
                &[Goal::RatioAtLeast(0.9)],
            );
        }
        Ok(())
    }

    fn reduction_case(&mut self, n: u64) -> BenchResult<(Timings, Option<Timings>)> {
        let gpu = self.gpu;
        let inputs = [workloads::input_bytes(Elem::U32, n, 5)];
        let data = &inputs[0];
        let want = workloads::sum_reference(data);
        let reps = self.reps_for(n * 4);
        let mut raw = RawReduction::new(gpu, data)?;
        let program = workloads::reduction_program();
        let groups = workloads::reduction_groups(n);
        let emitted = match self.wgpu {
            Some(_) => Some(EmittedKernel::new(
                gpu,
                &program,
                &raw.buffers(),
                [groups, 1, 1],
                &[n as u32, 1, crate::gpu::WORKGROUP],
            )?),
            None => None,
        };
        let (device, vyre_device) = self.device_pair(
            &mut |count| raw.device_times(gpu, count, reps.spin),
            emitted.as_ref(),
        )?;
        let mut raw_step = || raw.run(gpu, data).map(|_| ());
        let config = DispatchConfig::default().with_grid([workloads::reduction_groups(n), 1, 1]);
        let mut vyre_case = self.vyre_case("reduction", program, config)?;
        let mut vyre_step = || vyre_case.as_mut().map_or(Ok(()), |c| c.run(&inputs));
        let before = self.wgpu.map(WgpuBackend::stats);
        let (raw_e2e, vyre_e2e) = self.timed_pair(reps, &mut raw_step, &mut vyre_step)?;
        self.note_stats("reduction", before, (reps.warmup + reps.timed) as u64);
        workloads::verify_sample("raw reduction", raw.last(), 1, 1, |_| want)?;
        if let Some(case) = &vyre_case {
            workloads::verify_sample("vyre reduction", case.output(0), 1, 1, |_| want)?;
        }
        gpu.check_errors("the reduction")?;
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

    fn coalesced(&mut self) -> BenchResult<()> {
        let gpu = self.gpu;
        for n in workloads::COALESCED_ITEMS {
            let items: Vec<Vec<u8>> = (0..n as u32).map(workloads::item_payload).collect();
            let mut raw = RawAddOne::new(gpu, n as u64)?;
            let mut raw_step = || raw.run_items(gpu, &items);
            let program = workloads::item_program();
            let (mut coalesced_results, mut launches) = (Vec::new(), 0);
            let mut coalesced_step = || match self.wgpu {
                Some(b) => {
                    launches = vyre_wgpu::persistent(b, &program, &items, &mut coalesced_results)?;
                    Ok(())
                }
                None => Ok(()),
            };
            let before = self.wgpu.map(WgpuBackend::stats);
            let (raw_times, coalesced_times) =
                self.timed_pair(self.reps(), &mut raw_step, &mut coalesced_step)?;
            self.note_stats(
                &format!("coalesced {n} items (run_persistent_kernel, {launches} launch(es))"),
                before,
                (self.reps().warmup + self.reps().timed) as u64,
            );
            check_items("raw batched", &items, raw.results())?;
            let mut separate_times = None;
            if let Some(b) = self.vyre {
                check_items("vyre run_persistent_kernel", &items, &coalesced_results)?;
                // N separate dispatches take N round trips: fewer repetitions keep 10 000 short.
                let reps = Reps {
                    warmup: 1,
                    timed: (self.options.reps * 100 / n)
                        .clamp(3.min(self.options.reps), self.options.reps),
                    ..self.reps()
                };
                let mut separate = Vec::new();
                let mut step = || vyre::separate_dispatches(b, &program, &items, &mut separate);
                separate_times = measure::interleave(reps, &mut [&mut step])?.pop();
                check_items("vyre separate dispatches", &items, &separate)?;
            }
            let base = RowBase {
                workload: "coalesced",
                case: format!("{n} items"),
                baseline_name: "raw batched",
            };
            let sides = (separate_times.as_deref(), Some(raw_times.as_slice()));
            self.rows.push(base.row(
                "end-to-end, vyre = N dispatch() calls",
                Measure::Time,
                Stat::P50,
                sides,
                None,
            ));
            let coalesced = coalesced_times.as_deref();
            let goal = Some(Goal::RatioAtMost(1.2));
            let persistent = (coalesced, Some(raw_times.as_slice()));
            self.rows.push(base.row(
                "end-to-end, vyre = run_persistent_kernel",
                Measure::Time,
                Stat::P50,
                persistent,
                goal,
            ));
            if n == 10_000 {
                let against_separate = RowBase {
                    baseline_name: "vyre separate",
                    ..base
                };
                let sides = (coalesced, separate_times.as_deref());
                self.rows.push(against_separate.row(
                    "end-to-end, coalesced vs separate",
                    Measure::Time,
                    Stat::P50,
                    sides,
                    Some(Goal::RatioAtMost(0.05)),
                ));
            }
        }
        Ok(())
    }

    fn compile(&mut self) -> BenchResult<()> {
        let gpu = self.gpu;
        let mut rep = 0u32;
        // Every repetition compiles a shader no cache has seen: the chain's multiplier changes
        // (odd salts for vyre, even offsets for raw, so neither side warms the other's driver cache).
        let mut raw_step = || {
            rep += 1;
            let source = wgsl::chain_wgsl(false, workloads::CHAIN_SALT.wrapping_add(2 * rep));
            gpu.kernel("raw compile", &source).map(drop)
        };
        let mut vyre_rep = 0u32;
        let mut vyre_step = || match self.wgpu {
            Some(b) => {
                vyre_rep += 1;
                let salt = workloads::CHAIN_SALT.wrapping_add(2 * vyre_rep + 1);
                vyre_wgpu::compile(b, &workloads::chain_program(1 << 20, salt))
            }
            None => Ok(()),
        };
        let before = self.wgpu.map(WgpuBackend::stats);
        let (raw_times, vyre_times) =
            self.timed_pair(self.reps(), &mut raw_step, &mut vyre_step)?;
        self.note_stats(
            "cold compile",
            before,
            (self.reps().warmup + self.reps().timed) as u64,
        );
        let base = RowBase {
            workload: "compile",
            case: "10-op chain, new program each rep".into(),
            baseline_name: "raw WGSL",
        };
        let sides = (vyre_times.as_deref(), Some(raw_times.as_slice()));
        self.rows.push(base.row(
            "cold compile",
            Measure::Time,
            Stat::P50,
            sides,
            Some(Goal::RatioAtMost(1.0)),
        ));
        let hits = match self.wgpu {
            Some(b) => {
                let program = workloads::chain_program(1 << 20, workloads::CHAIN_SALT);
                vyre_wgpu::compile(b, &program)?;
                let mut step = || vyre_wgpu::compile(b, &program);
                let reps = Reps {
                    timed: self.options.reps * 10,
                    ..self.reps()
                };
                measure::interleave(reps, &mut [&mut step])?.pop()
            }
            None => None,
        };
        let hit = RowBase {
            case: "same program again (cache hit)".into(),
            baseline_name: "none",
            ..base
        };
        self.rows.push(hit.row(
            "cache hit",
            Measure::Time,
            Stat::P50,
            (hits.as_deref(), None),
            Some(Goal::SecondsAtMost(5e-6)),
        ));
        Ok(())
    }
}

/// Checks that item `i`'s result is its payload word plus one.
fn check_items(what: &str, items: &[Vec<u8>], results: &[Vec<u8>]) -> BenchResult<()> {
    if items.len() != results.len() {
        return Err(format!(
            "{what}: {} results for {} items. Fix: this side drops or invents items.",
            results.len(),
            items.len()
        ));
    }
    for (i, (item, result)) in items.iter().zip(results).enumerate() {
        let want = workloads::word_at(item, 0).wrapping_add(1);
        workloads::verify_sample(&format!("{what} item {i}"), result, 1, 1, |_| want)?;
    }
    Ok(())
}
