//! What the benchmark measures: the six workloads, their sizes, their input data, their CPU
//! references, and the vyre programs that express them.
//!
//! Both sides of every comparison get the same inputs from here and are checked against the same CPU
//! reference on a sample of elements, so a fast but wrong kernel can never win.

use vyre_foundation::ir::{BufferDecl, DataType, Expr, Node, Program};

use crate::gpu::{BenchResult, WORKGROUP};

/// One of the six workloads of issue 8.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Workload {
    /// A one-word program, end-to-end latency.
    RoundTrip,
    /// `out[i] = a[i] + b[i]` over u32 and f32.
    Bandwidth,
    /// A ten-operation elementwise expression.
    Fused,
    /// A sum of many u32 through workgroup memory and barriers.
    Reduction,
    /// The same sum with `subgroup_add` and one atomic per subgroup, against raw wgpu's
    /// hand-written `subgroupAdd` kernel and vyre's own tree reduction. Skipped (with a note) on a
    /// device without subgroups.
    SubgroupReduction,
    /// Many small items through one coalesced launch.
    Coalesced,
    /// Program to pipeline, cold and cached.
    Compile,
    /// Ten elementwise kernels over resident data in one `dispatch_sequence`.
    Chain,
    /// A tiled, register-blocked SGEMM against the same tiling in hand-written WGSL (issue 34).
    Gemm,
    /// An f16 GEMM with f32 accumulation on tensor cores: vyre's matrix tiles against the same
    /// blocking in hand-written WGSL cooperative matrices (issue 34); skipped without tiles.
    Hgemm,
    /// The search for `hgemm`'s raw baseline: one parameterised hand-written kernel over the
    /// choices fast tensor-core kernels make (subgroups per workgroup, step along `k`, padding,
    /// the stage's element). Not in the default run; pick it with `--only hgemm_tuning`.
    HgemmTuning,
    /// The host link, raw wgpu: upload and read-back, each step timed apart.
    Link,
    /// A second process compiling 50 programs, vyre's disk pipeline cache on and off.
    DiskCache,
    /// What each driver workaround costs: device time of vyre's kernel with the workaround against
    /// the same kernel without it, on kernels full of the workaround's pattern and on the add and
    /// the 10-op chain (no pattern: the modules must be the same).
    Workarounds,
    /// `vyre::Sharded` over several devices against one device: a 10 000-item queue and a large
    /// elementwise add (`--shard-bytes`). Not in the default run (it allocates gigabytes); pick it
    /// with `--only sharded`.
    Sharded,
}

impl Workload {
    /// Every workload, in the order they run and print.
    pub(crate) const ALL: [Workload; 13] = [
        Workload::RoundTrip,
        Workload::Bandwidth,
        Workload::Fused,
        Workload::Reduction,
        Workload::SubgroupReduction,
        Workload::Coalesced,
        Workload::Compile,
        Workload::Chain,
        Workload::Link,
        Workload::DiskCache,
        Workload::Workarounds,
        Workload::Gemm,
        Workload::Hgemm,
    ];

    /// Every workload `--only` accepts: [`Workload::ALL`] and the opt-in ones.
    pub(crate) const NAMED: [Workload; 15] = [
        Workload::RoundTrip,
        Workload::Bandwidth,
        Workload::Fused,
        Workload::Reduction,
        Workload::SubgroupReduction,
        Workload::Coalesced,
        Workload::Compile,
        Workload::Chain,
        Workload::Link,
        Workload::DiskCache,
        Workload::Workarounds,
        Workload::Gemm,
        Workload::Hgemm,
        Workload::HgemmTuning,
        Workload::Sharded,
    ];

    /// The name used on the command line and in the report.
    pub(crate) const fn name(self) -> &'static str {
        match self {
            Workload::RoundTrip => "roundtrip",
            Workload::Bandwidth => "bandwidth",
            Workload::Fused => "fused",
            Workload::Reduction => "reduction",
            Workload::SubgroupReduction => "subgroup_reduction",
            Workload::Coalesced => "coalesced",
            Workload::Compile => "compile",
            Workload::Chain => "chain",
            Workload::Link => "link",
            Workload::DiskCache => "diskcache",
            Workload::Workarounds => "workarounds",
            Workload::Gemm => "gemm",
            Workload::Hgemm => "hgemm",
            Workload::HgemmTuning => "hgemm_tuning",
            Workload::Sharded => "sharded",
        }
    }

    /// The workload called `name`.
    pub(crate) fn parse(name: &str) -> BenchResult<Self> {
        Self::NAMED
            .into_iter()
            .find(|w| w.name() == name)
            .ok_or_else(|| {
                let names: Vec<&str> = Self::NAMED.iter().map(|w| w.name()).collect();
                format!(
                    "unknown workload `{name}`. Fix: pick from {}.",
                    names.join(", ")
                )
            })
    }
}

/// The element type of a bandwidth run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Elem {
    /// Unsigned 32-bit integers (wrapping add).
    U32,
    /// 32-bit floats.
    F32,
}

impl Elem {
    /// The WGSL and report name.
    pub(crate) const fn name(self) -> &'static str {
        match self {
            Elem::U32 => "u32",
            Elem::F32 => "f32",
        }
    }

    /// The vyre data type.
    pub(crate) const fn data_type(self) -> DataType {
        match self {
            Elem::U32 => DataType::U32,
            Elem::F32 => DataType::F32,
        }
    }
}

/// One MiB.
pub(crate) const MIB: u64 = 1 << 20;

/// The per-buffer sizes of the bandwidth sweep: 1 MiB, 4 MiB, ... up to 1 GiB, cut at `max_bytes`.
pub(crate) fn bandwidth_sizes(max_bytes: u64) -> Vec<u64> {
    (0..=5)
        .map(|k| MIB << (2 * k))
        .filter(|&size| size <= max_bytes)
        .collect()
}

/// The element counts of the reduction sweep: 2^24, 2^26, 2^28 u32, cut where the buffer would pass
/// `max_bytes`.
pub(crate) fn reduction_counts(max_bytes: u64) -> Vec<u64> {
    [24u32, 26, 28]
        .into_iter()
        .map(|p| 1u64 << p)
        .filter(|&n| n * 4 <= max_bytes)
        .collect()
}

/// A deterministic pseudo-random word for index `i` of stream `seed` (splitmix64, high half).
pub(crate) fn word(seed: u64, i: u64) -> u32 {
    let mut z = seed
        .wrapping_mul(0x9e37_79b9_7f4a_7c15)
        .wrapping_add(i.wrapping_mul(0xbf58_476d_1ce4_e5b9));
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    ((z ^ (z >> 31)) >> 32) as u32
}

/// The bytes of `n` elements of stream `seed`. Floats are small multiples of 1/4, so every sum of two
/// is exact and both sides must agree bit for bit.
pub(crate) fn input_bytes(elem: Elem, n: u64, seed: u64) -> Vec<u8> {
    let mut out = Vec::with_capacity((n * 4) as usize);
    for i in 0..n {
        let w = word(seed, i);
        let bits = match elem {
            Elem::U32 => w,
            Elem::F32 => ((w & 0xffff) as f32 * 0.25).to_bits(),
        };
        out.extend_from_slice(&bits.to_le_bytes());
    }
    out
}

/// The 32-bit word at element `i` of little-endian bytes (0 past the end).
pub(crate) fn word_at(bytes: &[u8], i: usize) -> u32 {
    bytes
        .get(i * 4..i * 4 + 4)
        .map_or(0, |c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
}

/// The reference result of `a + b` on the bits of one element.
pub(crate) fn add_reference(elem: Elem, a: u32, b: u32) -> u32 {
    match elem {
        Elem::U32 => a.wrapping_add(b),
        Elem::F32 => (f32::from_bits(a) + f32::from_bits(b)).to_bits(),
    }
}

/// The ten-operation chain, the same steps as [`chain_program`] and the raw WGSL.
pub(crate) fn chain_reference(a: u32, b: u32, salt: u32) -> u32 {
    let v = a.wrapping_add(b); // 1
    let v = v.wrapping_mul(3); // 2
    let s = v >> 5; // 3
    let v = v ^ s; // 4
    let v = v.wrapping_add(b); // 5
    let v = v.wrapping_mul(salt); // 6
    let v = v ^ a; // 7
    let v = v | 1; // 8
    let v = v.wrapping_sub(7); // 9
    v.max(b) // 10
}

/// The multiplier the fused chain uses; the compile workload varies it to defeat every cache.
pub(crate) const CHAIN_SALT: u32 = 0x9e37_79b1;

/// The wrapping sum of the `n` words of stream `seed`, computed as the data is generated.
pub(crate) fn sum_reference(bytes: &[u8]) -> u32 {
    bytes.chunks_exact(4).fold(0u32, |acc, c| {
        acc.wrapping_add(u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
    })
}

/// Checks `out` on about `samples` indices spread over its `n` elements (always the first and the
/// last) against `expected(i)`.
pub(crate) fn verify_sample(
    what: &str,
    out: &[u8],
    n: usize,
    samples: usize,
    expected: impl Fn(usize) -> u32,
) -> BenchResult<()> {
    if n == 0 || out.len() != n * 4 {
        return Err(format!(
            "{what}: the output has {} bytes, expected {}. Fix: this side computes the wrong thing; see the kernel.",
            out.len(),
            n * 4
        ));
    }
    let step = (n / samples.max(1)).max(1);
    let picks = (0..n).step_by(step).chain(std::iter::once(n - 1));
    for i in picks {
        let (got, want) = (word_at(out, i), expected(i));
        if got != want {
            return Err(format!(
                "{what}: element {i} is {got:#010x}, expected {want:#010x}. Fix: this side computes the wrong thing; see the kernel."
            ));
        }
    }
    Ok(())
}

/// The round-trip program: one word in, the word plus one out.
pub(crate) fn round_trip_program() -> Program {
    Program::wrapped(
        vec![
            BufferDecl::read("input", 0, DataType::U32).with_count(1),
            BufferDecl::output("out", 1, DataType::U32).with_count(1),
        ],
        [64, 1, 1],
        vec![Node::store(
            "out",
            Expr::gid_x(),
            Expr::add(Expr::load("input", Expr::gid_x()), Expr::u32(1)),
        )],
    )
}

/// `out[i] = a[i] + b[i]` over `n` elements. Out-of-range invocations need no guard: their loads
/// yield 0 and their stores are dropped (SEMANTICS.md section 3).
pub(crate) fn add_program(elem: Elem, n: u32) -> Program {
    let ty = elem.data_type();
    let i = Expr::gid_x();
    Program::wrapped(
        vec![
            BufferDecl::read("a", 0, ty).with_count(n),
            BufferDecl::read("b", 1, ty).with_count(n),
            BufferDecl::output("out", 2, ty).with_count(n),
        ],
        [WORKGROUP, 1, 1],
        vec![Node::store(
            "out",
            i.clone(),
            Expr::add(Expr::load("a", i.clone()), Expr::load("b", i)),
        )],
    )
}

/// The chain of [`chain_program`] written as one nested expression, as a user writes it when
/// nothing makes them name intermediate values: `a[i]` is loaded twice, `b[i]` three times and
/// `(a[i] + b[i]) * 3` computed twice. The IR passes (`cse`) give it the shape of
/// [`chain_program`] again; without them every repetition is emitted and compiled.
pub(crate) fn chain_nested_program(n: u32, salt: u32) -> Program {
    let i = Expr::gid_x;
    let (a, b) = (|| Expr::load("a", i()), || Expr::load("b", i()));
    let v2 = || Expr::mul(Expr::add(a(), b()), Expr::u32(3));
    let v4 = Expr::bit_xor(v2(), Expr::shr(v2(), Expr::u32(5)));
    let v6 = Expr::mul(Expr::add(v4, b()), Expr::u32(salt));
    let v9 = Expr::sub(
        Expr::bit_or(Expr::bit_xor(v6, a()), Expr::u32(1)),
        Expr::u32(7),
    );
    Program::wrapped(
        vec![
            BufferDecl::read("a", 0, DataType::U32).with_count(n),
            BufferDecl::read("b", 1, DataType::U32).with_count(n),
            BufferDecl::output("out", 2, DataType::U32).with_count(n),
        ],
        [WORKGROUP, 1, 1],
        vec![Node::store("out", i(), Expr::max(v9, b()))],
    )
}

/// The fused chain over `n` u32, one `let` per operation so nothing is computed twice.
pub(crate) fn chain_program(n: u32, salt: u32) -> Program {
    let i = Expr::gid_x();
    let v = |k: u32| Expr::var(format!("v{k}"));
    let body = vec![
        Node::let_bind("a0", Expr::load("a", i.clone())),
        Node::let_bind("b0", Expr::load("b", i.clone())),
        Node::let_bind("v1", Expr::add(Expr::var("a0"), Expr::var("b0"))),
        Node::let_bind("v2", Expr::mul(v(1), Expr::u32(3))),
        Node::let_bind("v3", Expr::shr(v(2), Expr::u32(5))),
        Node::let_bind("v4", Expr::bit_xor(v(2), v(3))),
        Node::let_bind("v5", Expr::add(v(4), Expr::var("b0"))),
        Node::let_bind("v6", Expr::mul(v(5), Expr::u32(salt))),
        Node::let_bind("v7", Expr::bit_xor(v(6), Expr::var("a0"))),
        Node::let_bind("v8", Expr::bit_or(v(7), Expr::u32(1))),
        Node::let_bind("v9", Expr::sub(v(8), Expr::u32(7))),
        Node::store("out", i, Expr::max(v(9), Expr::var("b0"))),
    ];
    Program::wrapped(
        vec![
            BufferDecl::read("a", 0, DataType::U32).with_count(n),
            BufferDecl::read("b", 1, DataType::U32).with_count(n),
            BufferDecl::output("out", 2, DataType::U32).with_count(n),
        ],
        [WORKGROUP, 1, 1],
        body,
    )
}

/// The number of workgroups both reductions launch: enough to fill a large GPU (2048 x 256
/// invocations), few enough that each invocation sums at least 64 words in registers before the
/// barrier-heavy tree in workgroup memory (which costs the same however much each invocation summed).
pub(crate) fn reduction_groups(n: u64) -> u32 {
    let per_group = u64::from(WORKGROUP) * 64;
    n.div_ceil(per_group).clamp(1, 2048) as u32
}

/// How each invocation of a reduction reads `data` on each trip of its grid-strided loop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Trip {
    /// Four consecutive words, `data[4r] + .. + data[4r + 3]`, which vyre reads as one `vec4`
    /// row (`lower::rows`): the same memory access as the raw kernels' `vec4` loads.
    Four,
    /// One word, `data[r]`: what the reductions were before row loads existed.
    One,
}

/// The statements that leave in `acc` the sum of the invocation's grid-strided share of `data`:
/// `stride = num_workgroups.x * W` invocations, each summing `trip`'s words at row
/// `k * stride + gid.x` for every `k` that reaches `data`. Words past the end read zero, so every
/// length sums exactly.
fn strided_sum(trip: Trip) -> Vec<Node> {
    let stride = Expr::mul(Expr::num_workgroups_x(), Expr::u32(WORKGROUP));
    let width = match trip {
        Trip::Four => 4,
        Trip::One => 1,
    };
    // ceil(ceil(len / width) / stride) trips.
    let rows = Expr::div(
        Expr::add(Expr::buf_len("data"), Expr::u32(width - 1)),
        Expr::u32(width),
    );
    let trips = Expr::div(
        Expr::add(rows, Expr::sub(Expr::var("stride"), Expr::u32(1))),
        Expr::var("stride"),
    );
    let row = Expr::add(
        Expr::mul(Expr::var("k"), Expr::var("stride")),
        Expr::gid_x(),
    );
    let step = match trip {
        Trip::One => vec![Node::assign(
            "acc",
            Expr::add(Expr::var("acc"), Expr::load("data", row)),
        )],
        Trip::Four => {
            // Four running sums, one per lane, as the raw kernel's `vec4` accumulator keeps them
            // (the same algorithm; u32 addition wraps, so the order does not change the total).
            let r = || Expr::var("r");
            let mut step = vec![Node::let_bind("r", Expr::mul(row, Expr::u32(4)))];
            for c in 0..4u32 {
                let at = if c == 0 {
                    r()
                } else {
                    Expr::add(r(), Expr::u32(c))
                };
                let lane = format!("acc{c}");
                step.push(Node::assign(
                    lane.as_str(),
                    Expr::add(Expr::var(lane.as_str()), Expr::load("data", at)),
                ));
            }
            step
        }
    };
    let mut body = vec![Node::let_bind("stride", stride)];
    match trip {
        Trip::One => {
            body.push(Node::let_bind("acc", Expr::u32(0)));
            body.push(Node::loop_for("k", Expr::u32(0), trips, step));
        }
        Trip::Four => {
            for c in 0..4 {
                body.push(Node::let_bind(format!("acc{c}"), Expr::u32(0)));
            }
            body.push(Node::loop_for("k", Expr::u32(0), trips, step));
            let lanes = (0..4).map(|c| Expr::var(format!("acc{c}")));
            let total = lanes.reduce(Expr::add).unwrap_or(Expr::u32(0));
            body.push(Node::let_bind("acc", total));
        }
    }
    body
}

/// Sum of a runtime-sized u32 buffer: each invocation sums a grid-strided run ([`strided_sum`]),
/// the workgroup folds its 256 partial sums in workgroup memory over eight barriers, and
/// invocation 0 adds the result to `total[0]` atomically. Run it with the grid
/// `[reduction_groups(n), 1, 1]`.
pub(crate) fn reduction_program(trip: Trip) -> Program {
    let lid = Expr::local_x();
    let mut body = strided_sum(trip);
    body.extend([
        Node::store("partial", lid.clone(), Expr::var("acc")),
        Node::barrier(),
    ]);
    let mut half = WORKGROUP / 2;
    while half > 0 {
        let other = Expr::load("partial", Expr::add(lid.clone(), Expr::u32(half)));
        let mine = Expr::load("partial", lid.clone());
        body.push(Node::if_then(
            Expr::lt(lid.clone(), Expr::u32(half)),
            vec![Node::store("partial", lid.clone(), Expr::add(mine, other))],
        ));
        body.push(Node::barrier());
        half /= 2;
    }
    body.push(Node::if_then(
        Expr::eq(lid, Expr::u32(0)),
        vec![Node::let_bind(
            "previous",
            Expr::atomic_add("total", Expr::u32(0), Expr::load("partial", Expr::u32(0))),
        )],
    ));
    Program::wrapped(
        vec![
            BufferDecl::read("data", 0, DataType::U32),
            BufferDecl::output("total", 1, DataType::U32).with_count(1),
            BufferDecl::workgroup("partial", WORKGROUP, DataType::U32),
        ],
        [WORKGROUP, 1, 1],
        body,
    )
}

/// The subgroup reduction: each invocation sums a grid-strided share of `data` four words a trip
/// ([`strided_sum`]), `subgroup_add` sums the subgroup's partial sums, and lane 0 of every subgroup
/// adds it into `total[0]` atomically; no workgroup memory, no barrier. The total does not depend
/// on the subgroup size. Run it with the grid `[reduction_groups(n), 1, 1]`.
pub(crate) fn subgroup_reduction_program() -> Program {
    let mut body = strided_sum(Trip::Four);
    body.extend([
        Node::let_bind("sum", Expr::subgroup_add(Expr::var("acc"))),
        Node::if_then(
            Expr::eq(Expr::subgroup_invocation_id(), Expr::u32(0)),
            vec![Node::let_bind(
                "previous",
                Expr::atomic_add("total", Expr::u32(0), Expr::var("sum")),
            )],
        ),
    ]);
    Program::new(
        vec![
            BufferDecl::read("data", 0, DataType::U32),
            BufferDecl::output("total", 1, DataType::U32).with_count(1),
        ],
        [WORKGROUP, 1, 1],
        body,
    )
}

/// Step `k` of the resident chain: `dst[i] = src[i] * 3 + k` over `n` u32.
pub(crate) fn chain_step_program(n: u32, k: u32) -> Program {
    let i = Expr::gid_x();
    Program::wrapped(
        vec![
            BufferDecl::read("src", 0, DataType::U32).with_count(n),
            BufferDecl::output("dst", 1, DataType::U32).with_count(n),
        ],
        [WORKGROUP, 1, 1],
        vec![Node::store(
            "dst",
            i.clone(),
            Expr::add(Expr::mul(Expr::load("src", i), Expr::u32(3)), Expr::u32(k)),
        )],
    )
}

/// The steps of the resident chain.
pub(crate) const CHAIN_STEPS: u32 = 10;

/// The item sizes of the coalesced sweep.
pub(crate) const COALESCED_ITEMS: [usize; 3] = [1, 100, 10_000];

/// The per-item program of the coalesced workload: one word in, the word plus one out (the same
/// shape as the round trip, so the two figures can be read together).
pub(crate) fn item_program() -> Program {
    round_trip_program()
}

/// The payload of item `id`.
pub(crate) fn item_payload(id: u32) -> Vec<u8> {
    word(7, u64::from(id)).to_le_bytes().to_vec()
}

/// Every vyre program the benchmark runs, by name, at a small size (for `--show-programs`).
pub(crate) fn programs() -> Vec<(&'static str, Program)> {
    vec![
        ("roundtrip", round_trip_program()),
        ("bandwidth u32", add_program(Elem::U32, 1024)),
        ("bandwidth f32", add_program(Elem::F32, 1024)),
        ("fused chain", chain_program(1024, CHAIN_SALT)),
        ("reduction", reduction_program(Trip::Four)),
        ("reduction, one word a trip", reduction_program(Trip::One)),
        ("subgroup_reduction", subgroup_reduction_program()),
        ("coalesced item", item_program()),
        ("chain step", chain_step_program(1024, 1)),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_program_validates() {
        for (_, p) in &programs() {
            if let Err(e) = vyre_foundation::validate(p) {
                panic!("{p}\n{e}");
            }
        }
    }

    #[test]
    fn workload_names_round_trip_and_unknown_names_fail() {
        for w in Workload::NAMED {
            assert_eq!(Workload::parse(w.name()), Ok(w));
        }
        let err = Workload::parse("nope").unwrap_err();
        assert!(err.contains("Fix:"), "{err}");
    }

    #[test]
    fn sweeps_respect_the_byte_cap() {
        assert_eq!(bandwidth_sizes(u64::MAX).len(), 6);
        assert_eq!(bandwidth_sizes(u64::MAX)[5], 1 << 30);
        assert_eq!(bandwidth_sizes(16 * MIB), vec![MIB, 4 * MIB, 16 * MIB]);
        assert_eq!(reduction_counts(128 * MIB), vec![1 << 24]);
        assert!(reduction_counts(MIB).is_empty());
    }

    #[test]
    fn float_inputs_add_exactly() {
        let a = input_bytes(Elem::F32, 64, 1);
        let b = input_bytes(Elem::F32, 64, 2);
        for i in 0..64 {
            let (x, y) = (word_at(&a, i), word_at(&b, i));
            let sum = f64::from(f32::from_bits(x)) + f64::from(f32::from_bits(y));
            assert_eq!(
                f64::from(f32::from_bits(add_reference(Elem::F32, x, y))),
                sum
            );
        }
    }

    #[test]
    fn verify_sample_catches_a_wrong_element_and_a_wrong_length() {
        let good: Vec<u8> = (0..100u32).flat_map(|i| (i * 2).to_le_bytes()).collect();
        assert!(verify_sample("t", &good, 100, 100, |i| i as u32 * 2).is_ok());
        let mut bad = good.clone();
        bad[99 * 4] ^= 1;
        assert!(verify_sample("t", &bad, 100, 10, |i| i as u32 * 2).is_err());
        assert!(verify_sample("t", &good[..8], 100, 10, |i| i as u32 * 2).is_err());
    }

    #[test]
    fn chain_reference_depends_on_both_inputs_and_the_salt() {
        let base = chain_reference(5, 9, CHAIN_SALT);
        assert_ne!(base, chain_reference(6, 9, CHAIN_SALT));
        assert_ne!(base, chain_reference(5, 10, CHAIN_SALT));
        assert_ne!(base, chain_reference(5, 9, CHAIN_SALT + 2));
    }

    #[test]
    fn sum_reference_wraps() {
        let bytes: Vec<u8> = [u32::MAX, 2].iter().flat_map(|w| w.to_le_bytes()).collect();
        assert_eq!(sum_reference(&bytes), 1);
    }
}
