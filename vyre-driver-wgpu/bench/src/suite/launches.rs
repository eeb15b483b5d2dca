//! The launch-bound workloads: coalesced items and compile.

use std::time::Instant;

use vyre_driver_wgpu::WgpuBackend;

use crate::gpu::BenchResult;
use crate::measure::{self, Reps};
use crate::raw::RawAddOne;
use crate::report::{Goal, Measure, Stat};
use crate::vyre;
use crate::vyre_wgpu;
use crate::wgsl;
use crate::workloads;

use super::{RowBase, Suite};

impl Suite<'_> {
    /// Coalesced items: `run_persistent_kernel` against one hand-batched raw launch and N `dispatch` calls.
    pub(super) fn coalesced(&mut self) -> BenchResult<()> {
        let gpu = self.gpu;
        for n in workloads::COALESCED_ITEMS {
            let items: Vec<Vec<u8>> = (0..n as u32).map(workloads::item_payload).collect();
            let mut raw = RawAddOne::new(gpu, n as u64)?;
            let mut raw_step = || {
                let start = Instant::now();
                raw.run_items(gpu, &items)?;
                Ok(start.elapsed().as_secs_f64())
            };
            let program = workloads::item_program();
            let (mut coalesced_results, mut launches) = (Vec::new(), 0);
            let mut retired = Vec::new();
            let reps = self.reps();
            // The queue is built in each repetition, untimed, just before the run: as warm in the
            // host's caches as a caller's freshly built queue, and as the raw side's items, which
            // every repetition reads. (Queues all built before the first repetition were cold by
            // their turn: 10 000 items' payloads fetched from memory, 2-3x the loops' warm time.)
            let mut coalesced_step = || match self.wgpu {
                Some(b) => {
                    let queue = vyre_wgpu::queue(&items);
                    let start = Instant::now();
                    launches = vyre_wgpu::persistent(
                        b,
                        &program,
                        queue,
                        &mut coalesced_results,
                        &mut retired,
                    )?;
                    Ok(start.elapsed().as_secs_f64())
                }
                None => Ok(0.0),
            };
            let before = self.wgpu.map(WgpuBackend::stats);
            let (raw_times, coalesced_times) =
                self.self_timed_pair(reps, &mut raw_step, &mut coalesced_step)?;
            // Each side's earlier results go only now, outside the timing (see `persistent`).
            retired.clear();
            raw.drop_retired();
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
                // Each side alone, one after the other in this process (the paired figures
                // alternate two devices every round, which costs each side a switch; see the
                // round trip). Each queue is built just before its run, untimed, as above.
                let mut alone_step = || match self.wgpu {
                    Some(b) => {
                        let queue = vyre_wgpu::queue(&items);
                        let start = Instant::now();
                        vyre_wgpu::persistent(
                            b,
                            &program,
                            queue,
                            &mut coalesced_results,
                            &mut retired,
                        )?;
                        Ok(start.elapsed().as_secs_f64())
                    }
                    None => Ok(0.0),
                };
                let before = self.wgpu.map(WgpuBackend::stats);
                let vyre_alone = match self.wgpu {
                    Some(_) => measure::interleave_timed(reps, &mut [&mut alone_step])?.pop(),
                    None => None,
                };
                self.note_stats(
                    "coalesced 10000 items, vyre alone",
                    before,
                    (reps.warmup + reps.timed) as u64,
                );
                if self.wgpu.is_some() {
                    check_items(
                        "vyre run_persistent_kernel alone",
                        &items,
                        &coalesced_results,
                    )?;
                }
                let mut raw_alone_step = || raw.run_items(gpu, &items);
                let raw_alone = measure::interleave(reps, &mut [&mut raw_alone_step])?
                    .pop()
                    .unwrap_or_default();
                retired.clear();
                raw.drop_retired();
                self.rows.push(base.row(
                    "end-to-end, run_persistent_kernel, each side alone",
                    Measure::Time,
                    Stat::P50,
                    (vyre_alone.as_deref(), Some(raw_alone.as_slice())),
                    None,
                ));
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

    /// Cold compile (vyre and raw) and the cache hit.
    pub(super) fn compile(&mut self) -> BenchResult<()> {
        let gpu = self.gpu;
        let mut rep = 0u32;
        // Every repetition compiles a shader no cache has seen: the chain's multiplier changes
        // (odd salts for vyre, even offsets for raw, so neither side warms the other's driver cache).
        // Raw's host time in `create_shader_module` (WGSL parsing and validation) and in the
        // pipeline (SPIR-V and the driver's compile), beside vyre's steps (`WgpuStats::compile`).
        let mut raw_ns = [0u128; 2];
        let mut raw_step = || {
            rep += 1;
            let source = wgsl::chain_wgsl(false, workloads::CHAIN_SALT.wrapping_add(2 * rep));
            let start = Instant::now();
            let module = gpu.module("raw compile", wgpu::ShaderSource::Wgsl(source.into()));
            let made = Instant::now();
            let kernel = gpu.kernel_of("raw compile", &module, None);
            raw_ns[0] += made.duration_since(start).as_nanos();
            raw_ns[1] += made.elapsed().as_nanos();
            kernel.map(drop)
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
        let reps = (self.reps().warmup + self.reps().timed) as u64;
        self.note_stats("cold compile", before, reps);
        let per_rep_us = |ns: u128| ns as f64 / reps.max(1) as f64 / 1000.0;
        self.notes.push(format!(
            "cold compile: raw's host us per repetition: module {:.1}, pipeline {:.1}",
            per_rep_us(raw_ns[0]),
            per_rep_us(raw_ns[1]),
        ));
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
        self.compile_same_shader(&base)?;
        self.compile_nested(&base)?;
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

impl Suite<'_> {
    /// Cold compile of vyre's program against raw wgpu compiling the WGSL text vyre emits for the
    /// same program in the form `compile_persistent` compiles (packed): the same shader both ways, so only the path differs (vyre hands naga's module
    /// over directly and skips WGSL parsing; raw parses the text).
    /// Cold compile of the chain written as one nested expression, against the same raw WGSL as
    /// the first row: what the IR passes (on unless `VYRE_PASSES=off`) give back to a user who
    /// did not name intermediate values.
    fn compile_nested(&mut self, base: &RowBase) -> BenchResult<()> {
        let Some(backend) = self.wgpu else {
            return Ok(());
        };
        let gpu = self.gpu;
        // Salts far from the other compile rows so no shader repeats.
        let (mut raw_rep, mut vyre_rep) = (0u32, 0u32);
        let mut raw_step = || {
            raw_rep += 1;
            let source = wgsl::chain_wgsl(
                false,
                workloads::CHAIN_SALT.wrapping_add(8192 + 2 * raw_rep),
            );
            gpu.kernel("raw compile", &source).map(drop)
        };
        let mut vyre_step = || {
            vyre_rep += 1;
            let salt = workloads::CHAIN_SALT.wrapping_add(8193 + 2 * vyre_rep);
            vyre_wgpu::compile(backend, &workloads::chain_nested_program(1 << 20, salt))
        };
        let before = backend.stats();
        let (raw_times, vyre_times) =
            self.timed_pair(self.reps(), &mut raw_step, &mut vyre_step)?;
        let reps = (self.reps().warmup + self.reps().timed) as u64;
        self.note_stats("cold compile, nested chain", Some(before), reps);
        let passes = if backend.passes().is_empty() {
            "off"
        } else {
            "on"
        };
        let nested = RowBase {
            case: format!("10-op chain as one nested expression, passes {passes}"),
            workload: base.workload,
            baseline_name: base.baseline_name,
        };
        self.rows.push(nested.row(
            "cold compile",
            Measure::Time,
            Stat::P50,
            (vyre_times.as_deref(), Some(raw_times.as_slice())),
            Some(Goal::RatioAtMost(1.0)),
        ));
        Ok(())
    }

    fn compile_same_shader(&mut self, base: &RowBase) -> BenchResult<()> {
        let Some(backend) = self.wgpu else {
            return Ok(());
        };
        let gpu = self.gpu;
        let program_for = |salt: u32| workloads::chain_program(1 << 20, salt);
        // Salts far from the other compile rows so no shader repeats.
        let (mut raw_rep, mut vyre_rep) = (0u32, 0u32);
        let mut raw_step = || {
            raw_rep += 1;
            let program = program_for(workloads::CHAIN_SALT.wrapping_add(4096 + 2 * raw_rep));
            // The form `compile_persistent` compiles for this program (packed: it is elementwise).
            let text =
                vyre_driver_wgpu::emit_wgsl_as(&program, vyre_driver_wgpu::LaunchForm::Packed)
                    .map_err(|e| vyre::backend_error("emit_wgsl_as", &e))?;
            gpu.kernel("raw compile of vyre's WGSL", &text).map(drop)
        };
        let mut vyre_step = || {
            vyre_rep += 1;
            vyre_wgpu::compile(
                backend,
                &program_for(workloads::CHAIN_SALT.wrapping_add(4097 + 2 * vyre_rep)),
            )
        };
        let (raw_times, vyre_times) =
            self.timed_pair(self.reps(), &mut raw_step, &mut vyre_step)?;
        let same = RowBase {
            case: "10-op chain, raw compiles vyre's emitted WGSL".into(),
            baseline_name: "raw same WGSL",
            workload: base.workload,
        };
        self.rows.push(same.row(
            "cold compile",
            Measure::Time,
            Stat::P50,
            (vyre_times.as_deref(), Some(raw_times.as_slice())),
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
