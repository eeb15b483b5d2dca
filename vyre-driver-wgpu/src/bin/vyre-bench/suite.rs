//! Runs each workload on both sides and turns the timings into report rows.
//!
//! Sizes are cut to the device: no buffer passes `--max-bytes`, `max_storage_buffer_binding_size` or
//! `max_buffer_size`. Repetitions shrink for large transfers (each end-to-end run of a 1 GiB case
//! moves 3 GiB over the bus) but never below three.

use crate::Options;
use crate::gpu::{BenchResult, Gpu};
use crate::raw::{self, Reps, Timings};
use crate::report::{Goal, Measure, Row, Stat};
use crate::stats::Summary;
use crate::workloads::{self, Elem, MIB, Workload};

/// The rows and notes of one run.
pub(crate) struct Suite<'g> {
    gpu: &'g Gpu,
    options: &'g Options,
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

impl<'g> Suite<'g> {
    /// An empty suite on `gpu`.
    pub(crate) fn new(gpu: &'g Gpu, options: &'g Options) -> Self {
        let notes = vec![
            "the vyre side needs the wgpu backend (branch `wgpu`), which is not merged yet: vyre columns stay empty".to_string(),
        ];
        Self {
            gpu,
            options,
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
            heavy: self.options.reps,
        }
    }

    /// Repetitions for a case that moves `bytes` per buffer: full below 16 MiB, fewer above, >= 3.
    fn reps_for(&self, bytes: u64) -> Reps {
        let r = self.options.reps as u64;
        let heavy = (r * 16 * MIB / bytes.max(1)).clamp(3.min(r), r) as usize;
        Reps {
            warmup: if bytes >= 256 * MIB { 1 } else { 2 },
            heavy,
            ..self.reps()
        }
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
        let raw = raw::round_trip(self.gpu, self.reps_for(4))?;
        let base = RowBase {
            workload: "roundtrip",
            case: "1 u32, cached pipeline".into(),
            baseline_name: "raw",
        };
        let sides = (None, Some(raw.as_slice()));
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
        device_goal: Option<Goal>,
    ) {
        let measure = Measure::Throughput { bytes: bytes_moved };
        let device = (
            vyre.and_then(|t| t.device.as_deref()),
            raw.device.as_deref(),
        );
        self.rows
            .push(base.row("device time", measure, Stat::P50, device, device_goal));
        let e2e = (
            vyre.map(|t| t.end_to_end.as_slice()),
            Some(raw.end_to_end.as_slice()),
        );
        self.rows
            .push(base.row("end-to-end", measure, Stat::P50, e2e, None));
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
            let wgsl = raw::add_wgsl(elem);
            for &size in &sizes {
                let n = size / 4;
                let a = workloads::input_bytes(elem, n, 1);
                let b = workloads::input_bytes(elem, n, 2);
                let expected = |i: usize| {
                    workloads::add_reference(
                        elem,
                        workloads::word_at(&a, i),
                        workloads::word_at(&b, i),
                    )
                };
                let label = format!("raw add {} {} MiB", elem.name(), size / MIB);
                let timings = raw::elementwise(
                    self.gpu,
                    &label,
                    &wgsl,
                    (&a, &b),
                    &expected,
                    self.reps_for(size),
                )?;
                let base = RowBase {
                    workload: "bandwidth",
                    case: format!("add {} {} MiB", elem.name(), size / MIB),
                    baseline_name: "raw vec4",
                };
                let goal = Some(Goal::RatioAtLeast(0.95));
                self.elementwise_rows(&base, size * 3, (None, &timings), goal);
                if size == 1024 * MIB {
                    let row = base.row(
                        "device time",
                        Measure::Throughput { bytes: size * 3 },
                        Stat::P50,
                        (None, timings.device.as_deref()),
                        Some(Goal::GbpsAtLeast(3400.0, "H200")),
                    );
                    self.rows.push(row);
                }
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
        let a = workloads::input_bytes(Elem::U32, n, 1);
        let b = workloads::input_bytes(Elem::U32, n, 2);
        let salt = workloads::CHAIN_SALT;
        let expected = |i: usize| {
            workloads::chain_reference(workloads::word_at(&a, i), workloads::word_at(&b, i), salt)
        };
        let label = format!("raw chain {} MiB", size / MIB);
        let wgsl = raw::chain_wgsl(true, salt);
        let timings = raw::elementwise(
            self.gpu,
            &label,
            &wgsl,
            (&a, &b),
            &expected,
            self.reps_for(size),
        )?;
        let base = RowBase {
            workload: "fused",
            case: format!("10-op chain u32 {} MiB", size / MIB),
            baseline_name: "raw vec4",
        };
        self.elementwise_rows(
            &base,
            size * 3,
            (None, &timings),
            Some(Goal::RatioAtLeast(0.95)),
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
            let data = workloads::input_bytes(Elem::U32, n, 5);
            let expected = workloads::sum_reference(&data);
            let timings = raw::reduction(self.gpu, &data, expected, self.reps_for(n * 4))?;
            let base = RowBase {
                workload: "reduction",
                case: format!("sum 2^{} u32", n.trailing_zeros()),
                baseline_name: "raw vec4",
            };
            self.elementwise_rows(
                &base,
                n * 4,
                (None, &timings),
                Some(Goal::RatioAtLeast(0.9)),
            );
        }
        Ok(())
    }

    fn coalesced(&mut self) -> BenchResult<()> {
        for n in workloads::COALESCED_ITEMS {
            let items: Vec<Vec<u8>> = (0..n as u32).map(workloads::item_payload).collect();
            let reps = self.reps_for(4);
            let (raw_times, results) = raw::batched_items(self.gpu, &items, reps)?;
            check_items("raw batched", &items, &results)?;
            let base = RowBase {
                workload: "coalesced",
                case: format!("{n} items"),
                baseline_name: "raw batched",
            };
            let sides = (None, Some(raw_times.as_slice()));
            let goal = Some(Goal::RatioAtMost(1.2));
            self.rows
                .push(base.row("end-to-end", Measure::Time, Stat::P50, sides, goal));
        }
        Ok(())
    }

    fn compile(&mut self) -> BenchResult<()> {
        let wgsl_for = |rep: usize| {
            raw::chain_wgsl(
                false,
                workloads::CHAIN_SALT.wrapping_add(2 * rep as u32 + 2),
            )
        };
        let raw_times = raw::compile(self.gpu, &wgsl_for, self.reps())?;
        let base = RowBase {
            workload: "compile",
            case: "10-op chain, new program each rep".into(),
            baseline_name: "raw WGSL",
        };
        let sides = (None, Some(raw_times.as_slice()));
        self.rows.push(base.row(
            "cold compile",
            Measure::Time,
            Stat::P50,
            sides,
            Some(Goal::RatioAtMost(1.0)),
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
