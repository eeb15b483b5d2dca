//! What every side of the `gemm` workload shares: the tiling, the shapes, the inputs and the CPU
//! reference that checks each side's `C`.
//!
//! **The tiling.** A workgroup computes a `bm x bn` tile of `C = A x B` (row-major, `A` is `m x k`,
//! `B` is `k x n`), walking `k` in steps of `bk`: each step it copies a `bm x bk` tile of `A`
//! (transposed, so that `k` is the outer index) and a `bk x bn` tile of `B` into workgroup memory,
//! four consecutive elements a load, waits at a barrier, and each invocation adds the products of
//! its `tm x tn` block, whose values it keeps in `tm * tn` accumulators. An invocation's block is
//! not contiguous: it owns `tm / 4` runs of four rows, `bm / (tm / 4)` rows apart, and likewise for
//! columns, so that neighbouring invocations read neighbouring 16-byte words of the tiles (on NVIDIA
//! a warp's `vec4` reads of a tile row then hit every bank once).
//!
//! **The inputs.** Every element of `A` and `B` is a multiple of 1/16 in [-1, 1], so every product is
//! a multiple of 1/256 and every partial sum of at most 65 536 of them is below 2^16 in magnitude:
//! representable exactly in `f32` (24-bit significand). Every side's result is therefore exact
//! whatever order it sums in, and the check compares exactly: a tolerance for rounding (k eps
//! sum |a b|, about 2^-11 of the sum at k = 8192) would hide a dropped or doubled product of a
//! small term, the bug a tiled kernel is most likely to have.

use crate::gpu::BenchResult;
use crate::workloads;

/// A workgroup tile of `bm x bn` elements of `C`, `bk` deep, and a `tm x tn` block per invocation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Tiling {
    pub(crate) bm: u32,
    pub(crate) bn: u32,
    pub(crate) bk: u32,
    pub(crate) tm: u32,
    pub(crate) tn: u32,
}

impl Tiling {
    /// 128 x 128 x 8 with an 8 x 8 block: 256 invocations, one `vec4` of each tile loaded by each
    /// invocation per step. The default on a CPU adapter ([`Tiling::for_shape`]): on lavapipe it
    /// ran raw 1.5-4x as fast as [`Tiling::SMALL`] (2026-12-05, BENCHMARKS.md); on the H100 the
    /// sweep of `bench/gemm-gpu.sh` found [`Tiling::DEEP`] and [`Tiling::NARROW`] faster.
    pub(crate) const DEFAULT: Tiling = Tiling {
        bm: 128,
        bn: 128,
        bk: 8,
        tm: 8,
        tn: 8,
    };

    /// 64 x 64 x 16 with a 4 x 4 block: 256 invocations, 16 accumulators each. The other tiling
    /// the tests run, and the one `--show-programs` prints (its program is a quarter as long).
    pub(crate) const SMALL: Tiling = Tiling {
        bm: 64,
        bn: 64,
        bk: 16,
        tm: 4,
        tn: 4,
    };

    /// 128 x 128 x 16 with an 8 x 8 block: [`Tiling::DEFAULT`] twice as deep, so each barrier
    /// pair serves twice the products. The fastest in the H100 sweep at 4096^3 (BENCHMARKS.md,
    /// 2026-12-06: raw 28.6, vyre 30.1 TFLOP/s), and the slowest against raw where `k` is short.
    pub(crate) const DEEP: Tiling = Tiling {
        bm: 128,
        bn: 128,
        bk: 16,
        tm: 8,
        tn: 8,
    };

    /// 128 x 64 x 16 with an 8 x 4 block: 256 invocations on half [`Tiling::DEEP`]'s tile of `C`,
    /// so twice the workgroups for one product. The sweep's best where `DEEP` leaves an H100's
    /// 132 SMs short of work (1024^3: 17.9 TFLOP/s against `DEFAULT`'s 10.0) or `k` is short.
    pub(crate) const NARROW: Tiling = Tiling {
        bm: 128,
        bn: 64,
        bk: 16,
        tm: 8,
        tn: 4,
    };

    /// The tiling the `gemm` workload uses for `shape` on a device of type `device` when
    /// `--gemm-tiling` names none, chosen per shape and device as a GEMM library chooses (and
    /// the same for raw and vyre, which are compared at one tiling). On a GPU:
    /// [`Tiling::DEEP`] where it yields at least 256 workgroups and `k` is at least 1024 (enough
    /// steps for the deeper tiles to pay off), else [`Tiling::NARROW`], else [`Tiling::DEFAULT`]
    /// for a shape neither covers. On a CPU (lavapipe), [`Tiling::DEFAULT`], which ran fastest
    /// there (NARROW at about two thirds of its speed on this bench's quick shapes).
    pub(crate) fn for_shape(shape: Shape, device: wgpu::DeviceType) -> Tiling {
        if device == wgpu::DeviceType::Cpu && shape.fits(Self::DEFAULT) {
            return Self::DEFAULT;
        }
        let deep_groups = (shape.m / Self::DEEP.bm) * (shape.n / Self::DEEP.bn);
        if shape.k >= 1024 && deep_groups >= 256 && shape.fits(Self::DEEP) {
            Self::DEEP
        } else if shape.fits(Self::NARROW) {
            Self::NARROW
        } else {
            Self::DEFAULT
        }
    }

    /// Invocations per workgroup.
    pub(crate) const fn threads(self) -> u32 {
        (self.bm / self.tm) * (self.bn / self.tn)
    }

    /// Invocations along a row of the workgroup's block grid (the `tx` range).
    pub(crate) const fn across(self) -> u32 {
        self.bn / self.tn
    }

    /// `vec4` loads of the `A` tile per invocation and step.
    pub(crate) const fn a_loads(self) -> u32 {
        self.bm * self.bk / 4 / self.threads()
    }

    /// `vec4` loads of the `B` tile per invocation and step.
    pub(crate) const fn b_loads(self) -> u32 {
        self.bn * self.bk / 4 / self.threads()
    }

    /// Row `i` of an invocation's block, relative to `ty * 4` (see the module docs).
    pub(crate) const fn row(self, i: u32) -> u32 {
        (i / 4) * (self.bm / (self.tm / 4)) + i % 4
    }

    /// Column `j` of an invocation's block, relative to `tx * 4`.
    pub(crate) const fn col(self, j: u32) -> u32 {
        (j / 4) * (self.bn / (self.tn / 4)) + j % 4
    }

    /// `bm x bn x bk / tm x tn`, as `--gemm-tiling` takes it.
    pub(crate) fn name(self) -> String {
        format!(
            "{}x{}x{}/{}x{}",
            self.bm, self.bn, self.bk, self.tm, self.tn
        )
    }

    /// Parses `BMxBNxBK/TMxTN` and checks that the kernels can be built from it.
    pub(crate) fn parse(text: &str) -> BenchResult<Self> {
        let bad = |why: &str| {
            format!(
                "`{text}` is not a GEMM tiling ({why}). Fix: pass BMxBNxBK/TMxTN, e.g. 128x128x8/8x8 or 64x64x16/4x4."
            )
        };
        let (tile, block) = text.split_once('/').ok_or_else(|| bad("no `/`"))?;
        let numbers = |part: &str| -> Option<Vec<u32>> {
            part.split('x').map(|n| n.parse::<u32>().ok()).collect()
        };
        let (Some(tile), Some(block)) = (numbers(tile), numbers(block)) else {
            return Err(bad("a part is not a number"));
        };
        let (&[bm, bn, bk], &[tm, tn]) = (tile.as_slice(), block.as_slice()) else {
            return Err(bad("three tile sizes and two block sizes are needed"));
        };
        let tiling = Tiling { bm, bn, bk, tm, tn };
        tiling.check().map_err(|why| bad(&why))?;
        Ok(tiling)
    }

    /// Why the kernels cannot be built from this tiling, if they cannot.
    fn check(self) -> Result<(), String> {
        let Tiling { bm, bn, bk, tm, tn } = self;
        if [bm, bn, bk, tm, tn].iter().any(|&v| v == 0 || v % 4 != 0) {
            return Err("every size must be a positive multiple of 4".into());
        }
        if bm % tm != 0 || bn % tn != 0 {
            return Err("the block must divide the tile".into());
        }
        let threads = self.threads();
        if !(32..=1024).contains(&threads) {
            return Err(format!(
                "{threads} invocations per workgroup, not 32 to 1024"
            ));
        }
        if (bm * bk / 4) % threads != 0 || (bn * bk / 4) % threads != 0 || self.a_loads() == 0 {
            return Err(format!(
                "each of the {threads} invocations must load a whole number of vec4s of each tile"
            ));
        }
        if (bm + bn) * bk * 4 > 16 * 1024 {
            return Err("the two tiles pass 16 KiB of workgroup memory".into());
        }
        Ok(())
    }
}

/// `C (m x n) = A (m x k) x B (k x n)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Shape {
    pub(crate) m: u32,
    pub(crate) n: u32,
    pub(crate) k: u32,
}

impl Shape {
    const fn new(m: u32, n: u32, k: u32) -> Self {
        Shape { m, n, k }
    }

    /// Floating-point operations of one product: a multiply and an add per term.
    pub(crate) fn flops(self) -> u64 {
        2 * u64::from(self.m) * u64::from(self.n) * u64::from(self.k)
    }

    /// The largest of the three buffers, in bytes.
    pub(crate) fn max_bytes(self) -> u64 {
        let (m, n, k) = (u64::from(self.m), u64::from(self.n), u64::from(self.k));
        4 * (m * k).max(k * n).max(m * n)
    }

    /// `m x n x k`, or `n^3` when square.
    pub(crate) fn name(self) -> String {
        if self.m == self.n && self.n == self.k {
            format!("{}^3", self.m)
        } else {
            format!("{}x{}x{}", self.m, self.n, self.k)
        }
    }

    /// Whether the tiling covers this shape exactly (the kernels have no partial tiles).
    pub(crate) fn fits(self, t: Tiling) -> bool {
        self.m.is_multiple_of(t.bm) && self.n.is_multiple_of(t.bn) && self.k.is_multiple_of(t.bk)
    }
}

/// The shapes of a run: squares from 1024 (8192 only in a full run), and two that are not square
/// (a wide, shallow product and a tall, thin one); `--quick` takes small ones lavapipe runs in
/// seconds.
pub(crate) fn shapes(quick: bool) -> Vec<Shape> {
    if quick {
        vec![
            Shape::new(256, 256, 256),
            Shape::new(512, 512, 512),
            Shape::new(512, 256, 1024),
        ]
    } else {
        vec![
            Shape::new(1024, 1024, 1024),
            Shape::new(2048, 2048, 2048),
            Shape::new(4096, 4096, 4096),
            Shape::new(8192, 8192, 8192),
            Shape::new(4096, 1024, 4096),
            Shape::new(1024, 4096, 256),
        ]
    }
}

/// `count` elements of stream `seed`: multiples of 1/16 in [-1, 1] (see the module docs).
pub(crate) fn matrix(count: u64, seed: u64) -> Vec<f32> {
    (0..count)
        .map(|i| (workloads::word(seed, i) % 33) as f32 / 16.0 - 1.0)
        .collect()
}

/// The little-endian bytes of `values`.
pub(crate) fn bytes(values: &[f32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

/// Elements of `C` checked against the CPU: the four corners, then spread pseudo-randomly.
const CHECKED: u64 = 2048;

/// The CPU's `A x B` at the checked elements, computed once per shape (at 8192^3 it reads 17
/// million scattered elements of `B`), then compared with each side's `C`.
pub(crate) struct Expected {
    shape: Shape,
    /// Row, column and value of each checked element.
    picks: Vec<(usize, usize, f64)>,
}

impl Expected {
    /// `A x B` at the four corners and [`CHECKED`] elements spread pseudo-randomly.
    pub(crate) fn of(shape: Shape, a: &[f32], b: &[f32]) -> Self {
        let (m, n, k) = (shape.m as usize, shape.n as usize, shape.k as usize);
        let corners = [(0, 0), (0, n - 1), (m - 1, 0), (m - 1, n - 1)];
        let spread = (0..CHECKED).map(|s| {
            let w = u64::from(workloads::word(97, s));
            ((w % m as u64) as usize, ((w >> 16) % n as u64) as usize)
        });
        let picks = corners
            .into_iter()
            .chain(spread)
            .map(|(row, col)| {
                let want = (0..k)
                    .map(|t| f64::from(a[row * k + t]) * f64::from(b[t * n + col]))
                    .sum();
                (row, col, want)
            })
            .collect();
        Self { shape, picks }
    }

    /// Checks `got` (the bytes of `C`) exactly (see the module docs).
    pub(crate) fn check(&self, what: &str, got: &[u8]) -> BenchResult<()> {
        let (m, n) = (self.shape.m as usize, self.shape.n as usize);
        if got.len() != m * n * 4 {
            return Err(format!(
                "{what}: C has {} bytes, expected {}. Fix: this side computes the wrong thing; see its kernel.",
                got.len(),
                m * n * 4
            ));
        }
        for &(row, col, want) in &self.picks {
            let got = f32::from_bits(workloads::word_at(got, row * n + col));
            if f64::from(got) != want {
                return Err(format!(
                    "{what}: C[{row}][{col}] is {got}, expected {want} (every sum of these inputs is exact in f32). Fix: this side computes the wrong thing; see its kernel."
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_built_in_tilings_are_valid_and_parse_back() {
        for t in [Tiling::DEFAULT, Tiling::SMALL, Tiling::DEEP, Tiling::NARROW] {
            assert_eq!(Tiling::parse(&t.name()), Ok(t));
            assert_eq!(t.threads(), 256);
        }
    }

    #[test]
    fn each_shape_gets_a_tiling_that_covers_it() {
        let gpu = wgpu::DeviceType::DiscreteGpu;
        let full = shapes(false);
        let chosen: Vec<_> = full.iter().map(|&s| Tiling::for_shape(s, gpu)).collect();
        // Deep tiles where there are 256 workgroups of them and k is long; narrow ones otherwise.
        let expected = [
            Tiling::NARROW, // 1024^3: 64 deep workgroups
            Tiling::DEEP,
            Tiling::DEEP,
            Tiling::DEEP,
            Tiling::DEEP,   // 4096x1024x4096: 256 deep workgroups
            Tiling::NARROW, // 1024x4096x256: k is short
        ];
        assert_eq!(chosen, expected);
        for shape in full.into_iter().chain(shapes(true)) {
            assert!(shape.fits(Tiling::for_shape(shape, gpu)), "{shape:?}");
            assert_eq!(
                Tiling::for_shape(shape, wgpu::DeviceType::Cpu),
                Tiling::DEFAULT
            );
        }
    }

    #[test]
    fn bad_tilings_are_refused_with_a_fix() {
        for bad in [
            "128x128x8",
            "128x128/8x8",
            "130x128x8/8x8",
            "64x64x4/4x4",
            "8x8x8/4x4",
        ] {
            let err = Tiling::parse(bad).unwrap_err();
            assert!(err.contains("Fix:"), "{bad}: {err}");
        }
    }

    #[test]
    fn an_invocations_block_rows_cover_the_tile_once() {
        for t in [Tiling::DEFAULT, Tiling::SMALL] {
            let mut seen = vec![0u32; t.bm as usize];
            for ty in 0..t.bm / t.tm {
                for i in 0..t.tm {
                    seen[(ty * 4 + t.row(i)) as usize] += 1;
                }
            }
            assert!(seen.iter().all(|&c| c == 1), "{t:?}: {seen:?}");
        }
    }

    #[test]
    fn every_shape_fits_the_built_in_tilings() {
        for s in shapes(false).into_iter().chain(shapes(true)) {
            assert!(s.fits(Tiling::DEFAULT) && s.fits(Tiling::SMALL), "{s:?}");
        }
    }

    #[test]
    fn the_check_catches_a_dropped_product() {
        let shape = Shape::new(4, 4, 8);
        let (a, b) = (matrix(32, 1), matrix(32, 2));
        let c: Vec<f32> = (0..16)
            .map(|e| (0..8).map(|t| a[e / 4 * 8 + t] * b[t * 4 + e % 4]).sum())
            .collect();
        let expected = Expected::of(shape, &a, &b);
        assert!(expected.check("t", &bytes(&c)).is_ok());
        let mut dropped = c.clone();
        // The smallest nonzero product is 1/256.
        dropped[5] -= 1.0 / 256.0;
        assert!(expected.check("t", &bytes(&dropped)).is_err());
    }
}
