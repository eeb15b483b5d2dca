//! Runs each workload on both sides and turns the timings into report rows.
//!
//! Sizes are cut to the device: no buffer passes `--max-bytes`, `max_storage_buffer_binding_size` or
//! `max_buffer_size`. End-to-end repetitions shrink for large transfers (each run of a 1 GiB case moves
//! 3 GiB over the bus) but never below three. Every side's output is checked against the CPU
//! reference after it is timed.

use vyre_driver::{DispatchConfig, VyreBackend};
use vyre_driver_wgpu::WgpuBackend;

use crate::Options;
use crate::gpu::{BenchResult, Gpu};
use crate::measure::{self, Reps};
use crate::raw::{Extras, RawAddOne};
use crate::report::{Goal, Measure, Row, Stat};
use crate::stats::Summary;
use crate::vyre::VyreCase;
use crate::vyre_wgpu;
use crate::workloads::{self, MIB, Workload};

mod chain;
pub(crate) mod disk;
pub(crate) mod gemm;
mod hgemm;
mod launches;
mod link;
mod sharded;
mod streaming;
mod subgroup;
mod workarounds;

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
    fn timed_pair<'a>(
        &self,
        reps: Reps,
        raw: measure::Step<'a>,
        vyre: measure::Step<'a>,
    ) -> BenchResult<(Vec<f64>, Option<Vec<f64>>)> {
        self.pair([raw, vyre], |sides| measure::interleave(reps, sides))
    }

    /// [`Suite::timed_pair`] for steps that time themselves (see [`measure::TimedStep`]).
    fn self_timed_pair<'a>(
        &self,
        reps: Reps,
        raw: measure::TimedStep<'a>,
        vyre: measure::TimedStep<'a>,
    ) -> BenchResult<(Vec<f64>, Option<Vec<f64>>)> {
        self.pair([raw, vyre], |sides| measure::interleave_timed(reps, sides))
    }

    /// The raw side's samples and the vyre side's, which runs only when there is a vyre backend.
    fn pair<S>(
        &self,
        [raw, vyre]: [S; 2],
        interleave: impl FnOnce(&mut [S]) -> BenchResult<Vec<Vec<f64>>>,
    ) -> BenchResult<(Vec<f64>, Option<Vec<f64>>)> {
        if self.vyre.is_none() {
            let mut samples = interleave(&mut [raw])?;
            return Ok((samples.pop().unwrap_or_default(), None));
        }
        let mut samples = interleave(&mut [raw, vyre])?;
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
            Workload::SubgroupReduction => self.subgroup_reduction(),
            Workload::Coalesced => self.coalesced(),
            Workload::Compile => self.compile(),
            Workload::Chain => self.chain(),
            Workload::Link => self.link(),
            Workload::DiskCache => self.disk_cache(),
            Workload::Workarounds => self.workarounds(),
            Workload::Gemm => self.gemm(),
            Workload::Hgemm => self.hgemm(),
            Workload::HgemmTuning => self.hgemm_tuning(),
            Workload::Sharded => self.sharded(),
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
        // The interleaved figures alternate two wgpu devices round by round; on a GPU that
        // time-slices devices (each is its own context) every round trip may pay a context switch.
        // Each side alone, one after the other in this process, shows what a user of one device sees.
        let raw_alone = measure::interleave(self.reps(), &mut [&mut raw_step])?
            .pop()
            .unwrap_or_default();
        let before = self.wgpu.map(vyre_driver_wgpu::WgpuBackend::stats);
        let vyre_alone = match self.vyre {
            Some(_) => measure::interleave(self.reps(), &mut [&mut vyre_step])?.pop(),
            None => None,
        };
        let reps = self.reps();
        self.note_stats(
            "round trip, vyre alone",
            before,
            (reps.warmup + reps.timed) as u64,
        );
        let alone = (vyre_alone.as_deref(), Some(raw_alone.as_slice()));
        self.rows.push(base.row(
            "end-to-end, each side alone",
            Measure::Time,
            Stat::P50,
            alone,
            None,
        ));
        self.round_trip_steps(&mut raw, &raw_alone)
    }

    /// The raw round trip again with vyre's extra steps added one at a time, each measured alone
    /// against the plain raw round trip: what each step costs on this device. In these rows the
    /// first time column is the raw round trip with the step, not vyre.
    fn round_trip_steps(&mut self, raw: &mut RawAddOne, plain: &[f64]) -> BenchResult<()> {
        let gpu = self.gpu;
        let base = RowBase {
            workload: "roundtrip",
            case: "1 u32, raw with one of vyre's steps".into(),
            baseline_name: "raw",
        };
        let steps = [
            (
                "raw + clear_buffer of the output, alone",
                Extras {
                    clear_output: true,
                    ..Extras::default()
                },
            ),
            (
                "raw + zeros written to the output with write_buffer, alone",
                Extras {
                    zero_output_by_write: true,
                    ..Extras::default()
                },
            ),
            (
                "raw + the bound read from a params group, alone",
                Extras {
                    params_group: true,
                    ..Extras::default()
                },
            ),
            (
                "raw + the input uploaded as a 16-byte row, alone",
                Extras {
                    row_upload: true,
                    ..Extras::default()
                },
            ),
            (
                "raw + two error scopes, alone",
                Extras {
                    error_scopes: true,
                    ..Extras::default()
                },
            ),
            (
                "raw + both, alone",
                Extras {
                    clear_output: true,
                    error_scopes: true,
                    ..Extras::default()
                },
            ),
        ];
        for (figure, extras) in steps {
            let mut counter = 0u64;
            let mut step = || {
                let value = workloads::word(5, counter);
                counter += 1;
                let out = raw.run_words_with(gpu, &value.to_le_bytes(), extras)?;
                workloads::verify_sample("raw round trip with a step", out, 1, 1, |_| {
                    value.wrapping_add(1)
                })
            };
            let with_step = measure::interleave(self.reps(), &mut [&mut step])?
                .pop()
                .unwrap_or_default();
            let sides = (Some(with_step.as_slice()), Some(plain));
            self.rows
                .push(base.row(figure, Measure::Time, Stat::P50, sides, None));
        }
        Ok(())
    }

    /// Adds what the wgpu backend did since `before` to the notes.
    fn note_stats(&mut self, what: &str, before: Option<vyre_driver_wgpu::WgpuStats>, reps: u64) {
        if let (Some(before), Some(backend)) = (before, self.wgpu) {
            let line = vyre_wgpu::stats_line(what, &before, &backend.stats(), reps);
            self.notes.push(line);
        }
    }
}
