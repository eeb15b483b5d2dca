//! What the generators may draw from, and how big their programs may get.

/// One feature a generated program may use. Swarm testing switches a random subset off per case, so
/// that rare interactions (say, atomics with no stores around them) are not drowned out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Feature {
    /// `add sub mul div rem min max` on integers.
    IntArith,
    /// `bit_and bit_or bit_xor bit_not popcount clz ctz reverse_bits`.
    Bitwise,
    /// `shl shr`.
    Shifts,
    /// `eq ne lt le gt ge`.
    Compare,
    /// `and or not` on bools.
    Logic,
    /// `select`.
    Select,
    /// `cast` between types.
    Casts,
    /// `bitcast` between numeric types.
    Bitcasts,
    /// `add sub mul min max neg abs floor ceil round trunc fract` on f32 and `fma`.
    FloatArith,
    /// `div sqrt inverse_sqrt exp exp2 log log2 sin cos` on f32, guarded to stay finite.
    FloatMath,
    /// Builtins (`gid`, `lid`, `wid`, `nwg`) and `buf_len` as leaves.
    Builtins,
    /// Loads from buffers.
    Loads,
    /// Stores other than the output stores every program has.
    Stores,
    /// `let` and `assign`.
    Variables,
    /// `if` / `else`.
    Ifs,
    /// Bounded `loop_for`.
    Loops,
    /// Workgroup buffers and barriers.
    Workgroup,
    /// Atomic read-modify-writes.
    Atomics,
    /// `return` inside nested control flow.
    Returns,
    /// Indices that are out of bounds on purpose.
    WildIndices,
    /// Elementwise programs: a one-dimensional grid, `tid` is exactly `gid.x`, one slot per
    /// invocation, own-slot buffers shorter and longer than the grid, loads at `tid`, and no
    /// workgroup memory, atomics or returns (what the wgpu lowering vectorises, tails included).
    /// With it on, every other case (by a shape word) takes this form.
    Elementwise,
    /// Subgroup operations and builtins (`subgroup_add`, `subgroup_ballot`, `subgroup_shuffle`,
    /// `subgroup_size`...), in workgroup-uniform control flow only (the top level, before any
    /// `return`, never in a `while` condition or a guarded store). Needs the device feature
    /// [`vyre_foundation::ir::Features::SUBGROUPS`]; results that depend on the subgroup size are
    /// compared with the reference run at the backend's size.
    Subgroups,
    /// `f16` values, buffers, literals and casts (needs the device feature `f16`).
    F16,
    /// `u64` and `i64` values, buffers, literals and casts (needs the device feature `int64`).
    Int64,
    /// Atomics on `u64`/`i64` elements, where `Atomics` and `Int64` are on as well (needs the device
    /// features `int64` and `int64 atomics`).
    Int64Atomics,
    /// Row loads: some read-only buffers are loaded only at `4 * b + c` style indices (`b * 4 + c`,
    /// `(b << 2) | c`, `c + b * 4`, literals), in bounds, in the last partial row and past the end,
    /// which the wgpu lowering reads as `vec4` rows.
    RowLoads,
    /// Edge operands (`gen/edges.rs`): `min`/`max` of a value and its negation (`min(v, -v)`,
    /// `max(i2, -i1)`, `min(v, 0 - v)`), of `abs` and of literals at 0, ±1 and the type's MIN and
    /// MAX, 64-bit literals whose low 32 bits order differently from the whole value
    /// (`i64::MIN + 17892187`), and one-trip loops from large literal bounds whose counters feed
    /// these. Shapes an NVIDIA driver miscompiled (FUZZING.md, "Driver shapes").
    EdgeOperands,
    /// Casts between integer widths and signedness right next to shifts and remainders
    /// (`gen/widths.rs`): `u64(i32(x)) << k`, `i64(x) >> k`, `i64(i32 x) % k`, narrowing then
    /// widening, and the shift done before the widening, with shift amounts near 32 and 64 and
    /// large literal ones.
    WidthCasts,
    /// `f16` round trips (`gen/round_trips.rs`): `f32(f16(x))` with `x` at f16 rounding
    /// boundaries (ties, just above and below them, the subnormal range, near 65504), `f16(f32(h))`,
    /// and f16 variables holding a rounded value (needs the device feature `f16`).
    F16RoundTrips,
    /// Shapes IR passes act on (`gen/pass_exprs.rs`, `gen/pass_stmts.rs`): constant
    /// subexpressions over every operator at edge literals (`i32::MAX + 1i`, `x / 0`, shifts by
    /// 32 and more), operations by constants (powers of two, negative, 0, 1, MIN), repeated
    /// subexpressions and loads around stores to the same element, dead lets and overwritten
    /// stores, counted loops with literal bounds (zero-trip, with `break` and `continue`) whose
    /// every trip shows, loop-invariant lets, and barriers inside uniform loops.
    PassShapes,
    /// Per-invocation arrays (`gen/arrays.rs`): a `let` in six becomes an array, stores into it at
    /// literal, `tid % n` and arbitrary indices (in bounds and out), and a `let` of an element.
    PrivateArrays,
    /// Matrix tiles (`gen/tiles.rs`): at the top level, 16x16 `f16` tiles loaded from `tsrc` in
    /// and out of bounds, multiply-added, and stored into a region of `tdst` of their own (needs
    /// the device features `matrix tiles` and `f16`; the workgroup becomes `[32, 1, 1]`).
    Tiles,
}

impl Feature {
    /// Every feature, in the order of the bits of a [`Features`] mask.
    pub const ALL: [Feature; 32] = [
        Feature::IntArith,
        Feature::Bitwise,
        Feature::Shifts,
        Feature::Compare,
        Feature::Logic,
        Feature::Select,
        Feature::Casts,
        Feature::Bitcasts,
        Feature::FloatArith,
        Feature::FloatMath,
        Feature::Builtins,
        Feature::Loads,
        Feature::Stores,
        Feature::Variables,
        Feature::Ifs,
        Feature::Loops,
        Feature::Workgroup,
        Feature::Atomics,
        Feature::Returns,
        Feature::WildIndices,
        Feature::Elementwise,
        Feature::Subgroups,
        Feature::F16,
        Feature::Int64,
        Feature::Int64Atomics,
        Feature::RowLoads,
        Feature::EdgeOperands,
        Feature::WidthCasts,
        Feature::F16RoundTrips,
        Feature::PassShapes,
        Feature::PrivateArrays,
        Feature::Tiles,
    ];

    const fn bit(self) -> u32 {
        1 << (self as u32)
    }

    /// The optional device features a program that uses this generator feature may need: the one
    /// place a generator feature is tied to what a backend must support, so that a fuzzer can
    /// switch off what the backend under test lacks ([`Features::supported_by`]).
    #[must_use]
    pub const fn device_features(self) -> DeviceFeatures {
        match self {
            Feature::Subgroups => DeviceFeatures::SUBGROUPS,
            Feature::F16 | Feature::F16RoundTrips => DeviceFeatures::F16,
            Feature::Int64 => DeviceFeatures::INT64,
            Feature::Int64Atomics => DeviceFeatures::INT64.union(DeviceFeatures::INT64_ATOMICS),
            Feature::Tiles => DeviceFeatures::TILES.union(DeviceFeatures::F16),
            Feature::IntArith
            | Feature::Bitwise
            | Feature::Shifts
            | Feature::Compare
            | Feature::Logic
            | Feature::Select
            | Feature::Casts
            | Feature::Bitcasts
            | Feature::FloatArith
            | Feature::FloatMath
            | Feature::Builtins
            | Feature::Loads
            | Feature::Stores
            | Feature::Variables
            | Feature::Ifs
            | Feature::Loops
            | Feature::Workgroup
            | Feature::Atomics
            | Feature::Returns
            | Feature::WildIndices
            | Feature::Elementwise
            | Feature::RowLoads
            | Feature::EdgeOperands
            | Feature::WidthCasts
            | Feature::PassShapes
            | Feature::PrivateArrays => DeviceFeatures::NONE,
        }
    }
}

use vyre_foundation::ir::Features as DeviceFeatures;

/// A set of [`Feature`]s, as a bit mask (bit `i` is `Feature::ALL[i]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Features(u32);

impl Features {
    /// Every feature.
    #[must_use]
    pub const fn all() -> Self {
        Features(u32::MAX >> (32 - Feature::ALL.len()))
    }

    /// No feature: programs of literals, lets and output stores only.
    #[must_use]
    pub const fn none() -> Self {
        Features(0)
    }

    /// The set whose bits are `mask` (bits past the last feature are ignored).
    #[must_use]
    pub const fn from_mask(mask: u32) -> Self {
        Features(mask & Self::all().0)
    }

    /// The bit mask.
    #[must_use]
    pub const fn mask(self) -> u32 {
        self.0
    }

    /// True when `feature` is in the set.
    #[must_use]
    pub const fn has(self, feature: Feature) -> bool {
        self.0 & feature.bit() != 0
    }

    /// The set with `feature` added.
    #[must_use]
    pub const fn with(self, feature: Feature) -> Self {
        Features(self.0 | feature.bit())
    }

    /// The set with `feature` removed.
    #[must_use]
    pub const fn without(self, feature: Feature) -> Self {
        Features(self.0 & !feature.bit())
    }

    /// The features in either set.
    #[must_use]
    pub const fn union(self, other: Features) -> Self {
        Features(self.0 | other.0)
    }

    /// The features in both sets.
    #[must_use]
    pub const fn intersect(self, other: Features) -> Self {
        Features(self.0 & other.0)
    }

    /// The set without the features whose programs need device features `available` lacks (see
    /// [`Feature::device_features`]): what a fuzzer may draw from for a backend whose
    /// `capabilities().features()` are `available`.
    ///
    /// ```
    /// use vyre_conformance::r#gen::{Feature, Features};
    /// use vyre_foundation::ir::Features as Device;
    ///
    /// let all = Features::all();
    /// assert!(!all.supported_by(Device::NONE).has(Feature::Subgroups));
    /// assert!(all.supported_by(Device::SUBGROUPS).has(Feature::Subgroups));
    /// assert!(all.supported_by(Device::NONE).has(Feature::Atomics));
    /// ```
    #[must_use]
    pub fn supported_by(self, available: DeviceFeatures) -> Self {
        Feature::ALL
            .into_iter()
            .filter(|f| !f.device_features().missing_from(available).is_empty())
            .fold(self, Features::without)
    }
}

/// What the recipe generator draws from and how large its programs may be.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GenConfig {
    /// The features programs may use.
    pub features: Features,
    /// Swarm testing: when true each case keeps only a random subset of `features`.
    pub swarm: bool,
    /// Features of `features` every case keeps whatever its swarm mask: what a run is about
    /// (`fuzz::check_pass` keeps [`Feature::PassShapes`], the shapes passes act on).
    pub kept: Features,
    /// When true, programs obey the differential discipline: race-free (every invocation writes only
    /// its own slots, contended atomics use order-independent operations and their old values are
    /// dropped, workgroup memory is written and read in phases separated by barriers) and no float
    /// value flows into an integer, a bool, an index or a control decision. Such programs have one
    /// correct output (floats up to rounding), so two backends can be compared on them.
    pub comparable: bool,
    /// The most statement recipes per program (opening and closing markers count).
    pub max_stmts: usize,
    /// The deepest expression tree.
    pub max_expr_depth: u32,
    /// The deepest nesting of `if`, `loop` and blocks.
    pub max_nesting: usize,
    /// The most buffers besides the one output every program has.
    pub max_buffers: usize,
    /// The most iterations of one loop.
    pub max_trip: u32,
    /// The most invocations per workgroup.
    pub max_workgroup_invocations: u32,
    /// The most workgroups per dispatch.
    pub max_workgroups: u32,
    /// The most elements of a buffer whose size is not tied to the invocation count.
    pub max_elements: u32,
    /// When true, every program has the shape of a DataFusion scalar function
    /// (`vyre_datafusion::VyreUdf`): one row per invocation of a one-dimensional grid, `read`
    /// buffers of one element per row as the arguments, one `output` buffer as the result
    /// (`gen/udf.rs` has the rules and why). Off, programs decode as they did before it existed.
    pub udf_shape: bool,
}

impl GenConfig {
    /// The configuration of the differential property: every feature, swarm on, race-free programs
    /// small enough that a case runs in well under a millisecond on the reference.
    #[must_use]
    pub fn differential() -> Self {
        Self {
            features: Features::all(),
            swarm: true,
            kept: Features::none(),
            comparable: true,
            max_stmts: 24,
            max_expr_depth: 4,
            max_nesting: 3,
            max_buffers: 5,
            max_trip: 4,
            max_workgroup_invocations: 16,
            max_workgroups: 6,
            max_elements: 32,
            udf_shape: false,
        }
    }

    /// Like [`GenConfig::differential`] but without the race and float discipline: for properties that
    /// only need valid programs (the validator accepts them, backends do not panic on them).
    #[must_use]
    pub fn valid_only() -> Self {
        Self {
            comparable: false,
            ..Self::differential()
        }
    }

    /// The configuration with `features` instead.
    #[must_use]
    pub fn with_features(mut self, features: Features) -> Self {
        self.features = features;
        self
    }

    /// The configuration of IR pass checks (`fuzz::check_pass`): [`GenConfig::differential`]
    /// with [`Feature::PassShapes`] in every case.
    #[must_use]
    pub fn passes() -> Self {
        Self {
            kept: Features::none().with(Feature::PassShapes),
            ..Self::differential()
        }
    }

    /// The configuration of the DataFusion mode (`vyre-conform fuzz --datafusion`):
    /// [`GenConfig::differential`] with every program shaped as a scalar function of its `read`
    /// buffers ([`GenConfig::udf_shape`]).
    #[must_use]
    pub fn udf() -> Self {
        Self {
            udf_shape: true,
            ..Self::differential()
        }
    }

    /// The configuration with swarm testing on or off.
    #[must_use]
    pub fn with_swarm(mut self, swarm: bool) -> Self {
        self.swarm = swarm;
        self
    }

    /// The features of one case whose recipe drew `swarm_mask`.
    #[must_use]
    pub fn case_features(&self, swarm_mask: u32) -> Features {
        if self.swarm {
            let mask = Features::from_mask(swarm_mask).union(self.kept);
            self.features.intersect(mask)
        } else {
            self.features
        }
    }
}

impl Default for GenConfig {
    fn default() -> Self {
        Self::differential()
    }
}
