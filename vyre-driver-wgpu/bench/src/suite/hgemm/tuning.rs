//! `hgemm_tuning`: the search for the raw f16 GEMM baseline (issue 34). Every kernel of the
//! `hgemm` workload runs at about 50 TFLOP/s at 4096^3 on an H100 while the hand-written
//! probe reached 139-172 with the same cooperative matrices staged through workgroup memory, so the
//! baseline is not yet the best raw wgpu. This opt-in workload (`--only hgemm_tuning`) times one
//! parameterised kernel ([`tuned_wgsl`]) over the choices fast tensor-core kernels make, each
//! against `hgemm`'s four-subgroup kernel in the same run, so one GPU sitting names the ones that
//! matter:
//!
//! - **subgroups per workgroup and their blocks** ([`Tuning::grid`], [`Tuning::tiles`]): four
//!   subgroups of 64x64 (a 128x128 block of `C`), eight of 32x64 or 64x32 (128x128), eight of
//!   64x64 (256x128), four of 32x32 (64x64);
//! - **the step along `k`** ([`Tuning::bk`]): 16 or 32 elements staged per barrier (two stages of
//!   a 128x128 block at 64 pass the 48 KiB of workgroup memory NVIDIA's Vulkan driver grants);
//! - **padding** ([`Tuning::pad`]): each staged row 8 elements longer, so the 16 rows of a tile do
//!   not all start in the same bank of workgroup memory (a 128-element row of `B` is 256 bytes);
//! - **the stage's element** ([`Stage`](super::kernels::Stage)): `f16`, written an element at a time from 8-byte words,
//!   8-byte words (`vec4<f16>`) or 16-byte words (`vec4<u32>`) written whole, with `coopLoadT`
//!   reading `f16` elements through them (SPV_KHR_cooperative_matrix reinterprets a pointer of another component type; the stride
//!   counts the pointer's elements). A device that reads them otherwise computes a wrong `C`, which
//!   the exact check below reports as a note for that kernel.
//!
//! Every kernel stages two steps (step `t + 1`'s words loaded into registers before step `t`'s
//! multiply-adds and stored into the other stage after them, one barrier a step), needs subgroups of
//! exactly 32 lanes, and is compiled with wgpu's runtime checks. The inputs are `hgemm`'s
//! (multiples of 1/16 in `[-1, 1]`): each kernel's `C` must equal the CPU's exactly on 2048 sampled
//! elements before it is timed.

use super::kernels::{LANES, TUNINGS, Tuning, tuned_program, tuned_wgsl};
use super::{Operands, Side};
use crate::gpu::{BenchResult, Gpu};
use crate::report::{Measure, Stat};
use crate::suite::{RowBase, Suite};

/// The shapes `(m, n, k)` of a run.
fn shapes(quick: bool) -> Vec<(u32, u32, u32)> {
    if quick {
        vec![(1024, 1024, 1024)]
    } else {
        vec![(4096, 4096, 4096), (2048, 2048, 2048)]
    }
}

impl Suite<'_> {
    /// The `hgemm_tuning` workload (see the module docs).
    pub(in crate::suite) fn hgemm_tuning(&mut self) -> BenchResult<()> {
        if let Some(bad) = self.options.tunings.iter().find(|&&i| i >= TUNINGS.len()) {
            return Err(format!(
                "--tuning {bad}: hgemm_tuning has kernels 0 to {}. Fix: pass positions below {}.",
                TUNINGS.len() - 1,
                TUNINGS.len()
            ));
        }
        let exactly = format!("exactly {LANES}");
        let Some((gpu, _)) =
            self.tensor_cores("hgemm_tuning", |sizes| sizes == [LANES, LANES], &exactly)?
        else {
            return Ok(());
        };
        for (m, n, k) in shapes(self.options.quick) {
            self.hgemm_tuning_case(&gpu, m, n, k)?;
        }
        Ok(())
    }

    fn hgemm_tuning_case(&mut self, gpu: &Gpu, m: u32, n: u32, k: u32) -> BenchResult<()> {
        let operands = Operands::new(gpu, "hgemm_tuning", (m, n, k));
        // Every side that fits, compiles and computes `C` exactly: the tuning and which side.
        let mut sides: Vec<(&Tuning, Kind, Side)> = Vec::new();
        let room = gpu.device.limits().max_compute_workgroup_storage_size;
        let chosen =
            |i: &usize| self.options.tunings.is_empty() || self.options.tunings.contains(i);
        let tunings: Vec<&Tuning> = (0..TUNINGS.len())
            .filter(chosen)
            .map(|i| &TUNINGS[i])
            .filter(|t| t.fits(m, n, k))
            .collect();
        for tuning in tunings {
            if tuning.workgroup_bytes() > room {
                self.notes.push(format!(
                    "hgemm_tuning {m}x{n}x{k}, {}: skipped, {} bytes of workgroup memory (the device grants {room})",
                    tuning.name,
                    tuning.workgroup_bytes()
                ));
                continue;
            }
            let [bm, bn] = tuning.block();
            let grid = [n / bn, m / bm, 1];
            let mut made: Vec<(Kind, BenchResult<Side>)> = Vec::new();
            made.push((
                Kind::Raw,
                operands.raw(gpu, tuning.name, &tuned_wgsl(tuning, n, k), grid),
            ));
            if let Some(p) = tuned_program(tuning, m, n, k) {
                made.push((Kind::Vyre, operands.vyre(gpu, &p, grid, false)));
                made.push((Kind::VyreTrusted, operands.vyre(gpu, &p, grid, true)));
            }
            for (kind, side) in made {
                let verdict = match side {
                    Err(e) => Err(format!("does not compile: {e}")),
                    Ok(side) => match operands.first_wrong(gpu, &side)? {
                        Some(wrong) => Err(format!("not timed, {wrong}")),
                        None => Ok(side),
                    },
                };
                match verdict {
                    Ok(side) => sides.push((tuning, kind, side)),
                    Err(why) => self.notes.push(format!(
                        "hgemm_tuning {m}x{n}x{k}, {} ({}): {why}",
                        tuning.name,
                        kind.name()
                    )),
                }
            }
        }
        if sides.is_empty() {
            return Ok(());
        }
        let samples = operands.time(gpu, self.options, sides.iter().map(|(_, _, side)| side))?;
        let measure = Measure::Flops {
            flops: operands.flops(),
        };
        // Every raw kernel against the first (hgemm's four-subgroup kernel as written here), and
        // every vyre side against its own tuning's raw kernel.
        let first = sides
            .iter()
            .position(|(_, kind, _)| *kind == Kind::Raw)
            .and_then(|i| samples[i].as_deref());
        for (i, (tuning, kind, _)) in sides.iter().enumerate() {
            let own_raw = sides
                .iter()
                .position(|(t, kd, _)| std::ptr::eq(*t, *tuning) && *kd == Kind::Raw)
                .and_then(|r| samples[r].as_deref());
            let (baseline_name, baseline) = match kind {
                Kind::Raw => ("raw, the first kernel", first),
                Kind::Vyre | Kind::VyreTrusted => ("raw, this kernel", own_raw),
            };
            let base = RowBase {
                workload: "hgemm_tuning",
                case: format!("{m}x{n}x{k} f16 -> f32, {}", tuning.name),
                baseline_name,
            };
            self.rows.push(base.row(
                kind.name(),
                measure,
                Stat::P50,
                (samples[i].as_deref(), baseline),
                None,
            ));
        }
        Ok(())
    }
}

/// Which side of a tuning a kernel is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// [`tuned_wgsl`], compiled with wgpu's runtime checks.
    Raw,
    /// [`tuned_program`] as `emit_launch` lowers it, compiled with wgpu's runtime checks.
    Vyre,
    /// [`tuned_program`] as the backend compiles it with trusted modules on.
    VyreTrusted,
}

impl Kind {
    /// The figure's name in the report.
    const fn name(self) -> &'static str {
        match self {
            Kind::Raw => "raw, checked",
            Kind::Vyre => "vyre, checked",
            Kind::VyreTrusted => "vyre, trusted module",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::kernels::{Stage, TUNINGS, tuned_program, tuned_wgsl};
    use wgpu::naga;

    /// Every vyre program of the search computes `C` exactly on the reference (32-lane subgroups,
    /// two steps along `k` at least), and lowers to a module with the tiles in it.
    #[test]
    fn the_programs_compute_c_on_the_reference() {
        let (m, n, k) = (128u32, 256u32, 64u32);
        let mut programs = 0;
        for tuning in TUNINGS.iter().filter(|t| t.stage == Stage::Halves) {
            let p = tuned_program(tuning, m, n, k).expect("a halves tuning has a program");
            let [bm, bn] = tuning.block();
            let grid = [n / bn, m / bm, 1];
            super::super::tests::assert_computes_c(&p, grid, (m, n, k), tuning.name);
            let lengths: Vec<u64> = super::super::counts(&p)
                .into_iter()
                .map(u64::from)
                .collect();
            let launch = vyre_driver_wgpu::emit_launch(&p, grid, &lengths, 65_535)
                .unwrap_or_else(|e| panic!("{}: {e}", tuning.name));
            assert!(launch.wgsl.contains("coopMultiplyAdd"), "{}", launch.wgsl);
            assert!(!launch.wgsl.contains("vyre_tile_stage"), "{}", launch.wgsl);
            // The staging copies read `A` and `B` as `vec4<f16>` rows (`lower::rows`).
            for operand in ["a", "b"] {
                let declared = format!("var<storage> {operand}: array<vec4<f16>>;");
                assert!(launch.wgsl.contains(&declared), "{}", launch.wgsl);
            }
            // The stage is `vec4<f16>` rows, written a row at a time (quad stores) and read by
            // the tiles through its rows: the "quad" kernels' shape.
            assert!(
                launch.wgsl.contains("var<workgroup> st: array<vec4<f16>,"),
                "{}",
                launch.wgsl
            );
            assert!(launch.wgsl.contains("= vec4<f16>("), "{}", launch.wgsl);
            assert!(!launch.wgsl.contains("].x = "), "{}", launch.wgsl);
            programs += 1;
        }
        assert!(programs >= 3, "the halves tunings have programs");
    }

    /// Every kernel of the search is WGSL naga accepts with every check, at the shapes it fits.
    #[test]
    fn every_tuning_is_valid_wgsl() {
        for tuning in &TUNINGS {
            for (m, n, k) in [(256, 256, 128), (4096, 4096, 4096)] {
                assert!(tuning.fits(m, n, k), "{}", tuning.name);
                assert!(tuning.workgroup_bytes() <= 49_152, "{}", tuning.name);
                let text = tuned_wgsl(tuning, n, k);
                let module = naga::front::wgsl::parse_str(&text)
                    .unwrap_or_else(|e| panic!("{}\n{text}", e.emit_to_string(&text)));
                naga::valid::Validator::new(
                    naga::valid::ValidationFlags::all(),
                    naga::valid::Capabilities::COOPERATIVE_MATRIX
                        | naga::valid::Capabilities::SHADER_FLOAT16,
                )
                .validate(&module)
                .unwrap_or_else(|e| panic!("{}: {e:?}\n{text}", tuning.name));
            }
        }
    }
}
