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
//! - **the stage's element** ([`Stage`]): `f16`, written an element at a time from 8-byte words, or
//!   16-byte words (`vec4<u32>`) written whole, with `coopLoadT` reading `f16` elements through
//!   them (SPV_KHR_cooperative_matrix reinterprets a pointer of another component type; the stride
//!   counts the pointer's elements). A device that reads them otherwise computes a wrong `C`, which
//!   the exact check below reports as a note for that kernel.
//!
//! Every kernel stages two steps (step `t + 1`'s words loaded into registers before step `t`'s
//! multiply-adds and stored into the other stage after them, one barrier a step), needs subgroups of
//! exactly 32 lanes, and is compiled with wgpu's runtime checks. The inputs are `hgemm`'s
//! (multiples of 1/16 in `[-1, 1]`): each kernel's `C` must equal the CPU's exactly on 2048 sampled
//! elements before it is timed.

use vyre_foundation::ir::{DataType, TileShape, f16_bits_to_f32, f32_to_f16_bits};

use super::{RowBase, Suite};
use crate::gpu::{BenchResult, Gpu, Kernel};
use crate::measure;
use crate::report::{Measure, Stat};

/// The side of a tile.
const SIDE: u32 = 16;
/// Lanes per subgroup the kernels are written for.
const LANES: u32 = 32;

/// How a stage holds its elements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Stage {
    /// `array<f16>`, written from 8-byte words (`vec4<f16>` views of `A` and `B`) an element at a
    /// time.
    Halves,
    /// `array<vec4<u32>>`, written from 16-byte words (`vec4<u32>` views) one word at a time; the
    /// tiles load `f16` elements through those words.
    Words,
}

impl Stage {
    /// Elements of `f16` per word read from `A` and `B`.
    const fn width(self) -> u32 {
        match self {
            Stage::Halves => 4,
            Stage::Words => 8,
        }
    }
}

/// One kernel of the search.
#[derive(Clone, Copy, Debug)]
pub(super) struct Tuning {
    /// The name in the report.
    pub(super) name: &'static str,
    /// Subgroups along the rows and the columns of the workgroup's block of `C`.
    pub(super) grid: [u32; 2],
    /// Tiles of `C` per subgroup along rows and columns.
    pub(super) tiles: [u32; 2],
    /// Elements of `k` per stage (a multiple of 16).
    pub(super) bk: u32,
    /// Extra elements at the end of every staged row (a multiple of 8).
    pub(super) pad: u32,
    /// The stage's element.
    pub(super) stage: Stage,
}

impl Tuning {
    /// Invocations per workgroup.
    pub(super) const fn invocations(&self) -> u32 {
        self.grid[0] * self.grid[1] * LANES
    }

    /// Elements of `C` per workgroup along rows and columns.
    pub(super) const fn block(&self) -> [u32; 2] {
        [
            self.grid[0] * self.tiles[0] * SIDE,
            self.grid[1] * self.tiles[1] * SIDE,
        ]
    }

    /// Words of `A` and of `B` each invocation copies per step (`None`: the stage does not split
    /// evenly over the invocations).
    fn copies(&self) -> Option<[u32; 2]> {
        let [bm, bn] = self.block();
        let (w, t) = (self.stage.width(), self.invocations());
        let (ua, ub) = (bm * self.bk / w, self.bk * bn / w);
        (ua % t == 0 && ub % t == 0 && ua >= t && ub >= t).then_some([ua / t, ub / t])
    }

    /// Bytes of workgroup memory: two stages of `A`'s and `B`'s blocks, rows padded.
    pub(super) const fn workgroup_bytes(&self) -> u32 {
        let [bm, bn] = self.block();
        2 * 2 * (bm * (self.bk + self.pad) + self.bk * (bn + self.pad))
    }

    /// Whether the kernel can run `m x n x k`.
    pub(super) fn fits(&self, m: u32, n: u32, k: u32) -> bool {
        let [bm, bn] = self.block();
        self.copies().is_some()
            && m.is_multiple_of(bm)
            && n.is_multiple_of(bn)
            && k.is_multiple_of(self.bk)
            && k / self.bk >= 1
    }
}

/// The kernels of the search; the first is `hgemm`'s four-subgroup kernel as this generator writes
/// it (the row every other is measured against).
pub(super) const TUNINGS: [Tuning; 10] = [
    Tuning {
        name: "4 subgroups of 64x64, k 16, no pad, f16 stage",
        grid: [2, 2],
        tiles: [4, 4],
        bk: 16,
        pad: 0,
        stage: Stage::Halves,
    },
    Tuning {
        name: "4 subgroups of 64x64, k 16, pad 8, f16 stage",
        grid: [2, 2],
        tiles: [4, 4],
        bk: 16,
        pad: 8,
        stage: Stage::Halves,
    },
    Tuning {
        name: "4 subgroups of 64x64, k 32, pad 8, f16 stage",
        grid: [2, 2],
        tiles: [4, 4],
        bk: 32,
        pad: 8,
        stage: Stage::Halves,
    },
    Tuning {
        name: "4 subgroups of 64x64, k 16, no pad, word stage",
        grid: [2, 2],
        tiles: [4, 4],
        bk: 16,
        pad: 0,
        stage: Stage::Words,
    },
    Tuning {
        name: "4 subgroups of 64x64, k 32, no pad, word stage",
        grid: [2, 2],
        tiles: [4, 4],
        bk: 32,
        pad: 0,
        stage: Stage::Words,
    },
    Tuning {
        name: "4 subgroups of 64x64, k 32, pad 8, word stage",
        grid: [2, 2],
        tiles: [4, 4],
        bk: 32,
        pad: 8,
        stage: Stage::Words,
    },
    Tuning {
        name: "8 subgroups of 64x32, k 32, pad 8, word stage",
        grid: [2, 4],
        tiles: [4, 2],
        bk: 32,
        pad: 8,
        stage: Stage::Words,
    },
    Tuning {
        name: "8 subgroups of 32x64, k 32, pad 8, word stage",
        grid: [4, 2],
        tiles: [2, 4],
        bk: 32,
        pad: 8,
        stage: Stage::Words,
    },
    Tuning {
        name: "8 subgroups of 64x64, k 16, pad 8, word stage",
        grid: [4, 2],
        tiles: [4, 4],
        bk: 16,
        pad: 8,
        stage: Stage::Words,
    },
    Tuning {
        name: "4 subgroups of 32x32, k 32, pad 8, word stage",
        grid: [2, 2],
        tiles: [2, 2],
        bk: 32,
        pad: 8,
        stage: Stage::Words,
    },
];

/// The kernel `tuning` for an `n`-column `B` and `C` and a `k`-column `A` (see the module docs).
pub(super) fn tuned_wgsl(tuning: &Tuning, n: u32, k: u32) -> String {
    let Tuning {
        grid: [_, gc],
        tiles: [tm, tn],
        bk,
        pad,
        stage,
        ..
    } = *tuning;
    let [ca, cb] = tuning
        .copies()
        .expect("a tuning whose stages split over its invocations");
    let [bm, bn] = tuning.block();
    let (w, t) = (stage.width(), tuning.invocations());
    let steps = k / bk;
    // Row lengths of the stages in elements, and in the stage array's elements.
    let (ra, rb) = (bk + pad, bn + pad);
    let unit = match stage {
        Stage::Halves => 1,
        Stage::Words => 8,
    };
    let stage_len = (bm * ra + bk * rb) / unit;
    let (word, stage_ty) = match stage {
        Stage::Halves => ("vec4<f16>", "f16"),
        Stage::Words => ("vec4<u32>", "vec4<u32>"),
    };
    let mut s = String::new();
    s.push_str("enable f16;\nenable wgpu_cooperative_matrix;\n\n");
    s.push_str(&format!(
        "@group(0) @binding(0) var<storage, read> a: array<{word}>;\n"
    ));
    s.push_str(&format!(
        "@group(0) @binding(1) var<storage, read> b: array<{word}>;\n"
    ));
    s.push_str("@group(0) @binding(2) var<storage, read_write> c: array<f32>;\n");
    // Two stages, each `A`'s block then `B`'s.
    s.push_str(&format!(
        "var<workgroup> st: array<{stage_ty}, {}>;\n\n",
        2 * stage_len
    ));
    s.push_str(&format!("@compute @workgroup_size({t})\n"));
    s.push_str("fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {\n");
    s.push_str(&format!(
        "    let row0 = wid.y * {bm}u;\n    let col0 = wid.x * {bn}u;\n"
    ));
    s.push_str(&format!(
        "    let sg = lid / {LANES}u;\n    let rs = (sg / {gc}u) * {}u;\n    let cs = (sg % {gc}u) * {}u;\n",
        tm * SIDE,
        tn * SIDE
    ));
    for i in 0..tm {
        for j in 0..tn {
            s.push_str(&format!("    var acc{i}_{j}: coop_mat16x16<f32, C>;\n"));
        }
    }
    for q in 0..ca {
        s.push_str(&format!("    var wa{q}: {word};\n"));
    }
    for q in 0..cb {
        s.push_str(&format!("    var wb{q}: {word};\n"));
    }
    // Word `q` of this invocation's copies: its row and column (in words) within the operand's
    // staged block.
    let (wa_row, wb_row) = (bk / w, bn / w);
    let a_word = |q: u32| format!("(lid + {}u)", q * t);
    // Loads of step `step` (a WGSL expression) into the registers.
    let load = |step: &str| {
        let mut out = String::new();
        for q in 0..ca {
            let u = a_word(q);
            out.push_str(&format!(
                "        wa{q} = a[(row0 + {u} / {wa_row}u) * {}u + {step} * {}u + {u} % {wa_row}u];\n",
                k / w,
                bk / w
            ));
        }
        for q in 0..cb {
            let u = a_word(q);
            out.push_str(&format!(
                "        wb{q} = b[({step} * {bk}u + {u} / {wb_row}u) * {}u + col0 / {w}u + {u} % {wb_row}u];\n",
                n / w
            ));
        }
        out
    };
    // Stores of the registers into the stage starting at array element `base`.
    let store = |base: &str| {
        let mut out = String::new();
        for q in 0..ca {
            let u = a_word(q);
            let at = format!(
                "{base} + ({u} / {wa_row}u) * {}u + ({u} % {wa_row}u) * {}u",
                ra / unit,
                w / unit
            );
            match stage {
                Stage::Halves => {
                    for lane in 0..4 {
                        out.push_str(&format!("        st[{at} + {lane}u] = wa{q}[{lane}];\n"));
                    }
                }
                Stage::Words => out.push_str(&format!("        st[{at}] = wa{q};\n")),
            }
        }
        for q in 0..cb {
            let u = a_word(q);
            let at = format!(
                "{base} + {}u + ({u} / {wb_row}u) * {}u + ({u} % {wb_row}u) * {}u",
                bm * ra / unit,
                rb / unit,
                w / unit
            );
            match stage {
                Stage::Halves => {
                    for lane in 0..4 {
                        out.push_str(&format!("        st[{at} + {lane}u] = wb{q}[{lane}];\n"));
                    }
                }
                Stage::Words => out.push_str(&format!("        st[{at}] = wb{q};\n")),
            }
        }
        out
    };
    s.push_str(&load("0u"));
    s.push_str(&store("0u"));
    s.push_str("    workgroupBarrier();\n");
    s.push_str(&format!("    for (var t = 0u; t < {steps}u; t++) {{\n"));
    s.push_str(&format!(
        "        let cur = (t % 2u) * {stage_len}u;\n        let nxt = {stage_len}u - cur;\n        let more = t + 1u < {steps}u;\n"
    ));
    s.push_str("        if (more) {\n");
    s.push_str(&load("(t + 1u)"));
    s.push_str("        }\n");
    for kq in 0..bk / SIDE {
        for i in 0..tm {
            s.push_str(&format!(
                "        let a{kq}_{i} = coopLoadT<coop_mat16x16<f16, A>>(&st[cur + ((rs + {}u) * {ra}u + {}u) / {unit}u], {}u);\n",
                i * SIDE,
                kq * SIDE,
                ra / unit
            ));
        }
        for j in 0..tn {
            s.push_str(&format!(
                "        let b{kq}_{j} = coopLoadT<coop_mat16x16<f16, B>>(&st[cur + ({}u + cs + {}u) / {unit}u], {}u);\n",
                bm * ra + kq * SIDE * rb,
                j * SIDE,
                rb / unit
            ));
        }
        for i in 0..tm {
            for j in 0..tn {
                s.push_str(&format!(
                    "        acc{i}_{j} = coopMultiplyAdd(a{kq}_{i}, b{kq}_{j}, acc{i}_{j});\n"
                ));
            }
        }
    }
    s.push_str("        if (more) {\n");
    s.push_str(&store("nxt"));
    s.push_str("        }\n        workgroupBarrier();\n    }\n");
    for i in 0..tm {
        for j in 0..tn {
            s.push_str(&format!(
                "    coopStoreT(acc{i}_{j}, &c[(row0 + rs + {}u) * {n}u + col0 + cs + {}u], {n}u);\n",
                i * SIDE,
                j * SIDE
            ));
        }
    }
    s.push_str("}\n");
    s
}

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
        let Some(wgpu) = self.wgpu else {
            self.notes
                .push("hgemm_tuning: skipped, no vyre wgpu backend".to_owned());
            return Ok(());
        };
        let shape = TileShape {
            m: SIDE,
            n: SIDE,
            k: SIDE,
            input: DataType::F16,
            accumulator: DataType::F32,
        };
        let caps = vyre_driver::VyreBackend::capabilities(wgpu);
        if !caps.matrix_tiles.contains(&shape) || caps.subgroup_sizes != [LANES, LANES] {
            self.notes.push(format!(
                "hgemm_tuning: skipped, {} has no {shape} matrix tiles in subgroups of exactly {LANES} lanes",
                caps.device_name
            ));
            return Ok(());
        }
        let gpu = Gpu::sharing(wgpu)?;
        for (m, n, k) in shapes(self.options.quick) {
            self.hgemm_tuning_case(&gpu, m, n, k)?;
        }
        Ok(())
    }

    fn hgemm_tuning_case(&mut self, gpu: &Gpu, m: u32, n: u32, k: u32) -> BenchResult<()> {
        let (mk, kn, mn) = (
            u64::from(m) * u64::from(k),
            u64::from(k) * u64::from(n),
            u64::from(m) * u64::from(n),
        );
        let a: Vec<u16> = (0..mk)
            .map(|i| f32_to_f16_bits(super::hgemm::value(i, 1)))
            .collect();
        let b: Vec<u16> = (0..kn)
            .map(|i| f32_to_f16_bits(super::hgemm::value(i, 2)))
            .collect();
        let halves = |v: &[u16]| v.iter().flat_map(|h| h.to_le_bytes()).collect::<Vec<u8>>();
        let buffers = [
            gpu.storage("hgemm_tuning a", mk * 2),
            gpu.storage("hgemm_tuning b", kn * 2),
            gpu.storage("hgemm_tuning c", mn * 4),
        ];
        gpu.queue.write_buffer(&buffers[0], 0, &halves(&a));
        gpu.queue.write_buffer(&buffers[1], 0, &halves(&b));
        let staging = gpu.staging("hgemm_tuning c read-back", mn * 4);
        let [ba, bb, bc] = &buffers;
        // Every kernel that fits, compiles and computes `C` exactly.
        let mut sides: Vec<(&'static str, Kernel, wgpu::BindGroup, [u32; 3])> = Vec::new();
        let room = gpu.device.limits().max_compute_workgroup_storage_size;
        for tuning in TUNINGS.iter().filter(|t| t.fits(m, n, k)) {
            if tuning.workgroup_bytes() > room {
                self.notes.push(format!(
                    "hgemm_tuning {m}x{n}x{k}, {}: skipped, {} bytes of workgroup memory (the device grants {room})",
                    tuning.name,
                    tuning.workgroup_bytes()
                ));
                continue;
            }
            let text = tuned_wgsl(tuning, n, k);
            let kernel = match gpu.kernel(tuning.name, &text) {
                Ok(kernel) => kernel,
                Err(e) => {
                    self.notes.push(format!(
                        "hgemm_tuning {m}x{n}x{k}, {}: does not compile: {e}",
                        tuning.name
                    ));
                    continue;
                }
            };
            let group = gpu.bind(&kernel, &[ba, bb, bc]);
            let [bm, bn] = tuning.block();
            let grid = [n / bn, m / bm, 1];
            let mut encoder = gpu.device.create_command_encoder(&Default::default());
            encoder.clear_buffer(bc, 0, None);
            Gpu::record(&mut encoder, &kernel, &group, grid);
            encoder.copy_buffer_to_buffer(bc, 0, &staging, 0, mn * 4);
            gpu.queue.submit([encoder.finish()]);
            let mut got = Vec::new();
            gpu.read_back(&staging, mn * 4, &mut got)?;
            let wrong = (0..2048u64).find_map(|t| {
                let (i, j) = ((t * 7919) % u64::from(m), (t * 104_729) % u64::from(n));
                let expected: f64 = (0..u64::from(k))
                    .map(|l| {
                        f64::from(f16_bits_to_f32(a[(i * u64::from(k) + l) as usize]))
                            * f64::from(f16_bits_to_f32(b[(l * u64::from(n) + j) as usize]))
                    })
                    .sum();
                let at = ((i * u64::from(n) + j) * 4) as usize;
                let word = got
                    .get(at..at + 4)
                    .map(|w| f32::from_le_bytes([w[0], w[1], w[2], w[3]]));
                (word != Some(expected as f32))
                    .then(|| format!("C[{i}, {j}] is {word:?}, the CPU's is {expected}"))
            });
            if let Some(wrong) = wrong {
                self.notes.push(format!(
                    "hgemm_tuning {m}x{n}x{k}, {}: not timed, {wrong}",
                    tuning.name
                ));
                continue;
            }
            sides.push((tuning.name, kernel, group, grid));
        }
        if sides.is_empty() {
            return Ok(());
        }
        let reps = if mn * u64::from(k) > 1 << 34 {
            (self.options.reps / 3).max(5)
        } else {
            self.options.reps
        };
        let spin = self.options.spin.min(0.1);
        let mut batches: Vec<_> = sides
            .iter()
            .map(|(_, kernel, group, grid)| {
                move |count: usize| {
                    gpu.spin_up(kernel, group, *grid, spin)?;
                    gpu.device_times(kernel, group, *grid, count)
                }
            })
            .collect();
        let mut refs: Vec<measure::Batch<'_>> = batches
            .iter_mut()
            .map(|b| b as measure::Batch<'_>)
            .collect();
        let samples = measure::interleave_batches(reps, 2, &mut refs)?;
        let measure = Measure::Flops {
            flops: 2 * mn * u64::from(k),
        };
        let baseline_name = sides[0].0;
        let base = RowBase {
            workload: "hgemm_tuning",
            case: format!("{m}x{n}x{k} f16 -> f32, raw kernels, two stages"),
            baseline_name,
        };
        for (i, (name, ..)) in sides.iter().enumerate() {
            self.rows.push(base.row(
                name,
                measure,
                Stat::P50,
                (samples[i].as_deref(), samples[0].as_deref()),
                None,
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::{TUNINGS, tuned_wgsl};
    use wgpu::naga;

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
