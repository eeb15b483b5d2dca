//! Driver workarounds as data: the driver bugs vyre knows, which adapters each one affects, and the
//! rewrite of the emitted module that avoids it.
//!
//! A driver compiler may get a valid module wrong. vyre's answer is the one Dawn's toggles and
//! ANGLE's feature workarounds give: a table, one entry per bug ([`DRIVER_BUGS`]), each saying which
//! adapters it affects (vendor, driver, driver version range), what goes wrong, where it was seen,
//! the [`Workaround`] (a rewrite the lowering applies) that avoids it, and the probe test that runs
//! the bug's program and its variants on a device. The workarounds in force on a device are the
//! union of the entries that match its [`wgpu::AdapterInfo`] ([`Workarounds::for_adapter`]), unless
//! the code ([`crate::AdapterOptions::with_workarounds`]) or `VYRE_WORKAROUNDS=all|none|name,...`
//! ([`WORKAROUNDS_ENV`]) says otherwise.
//!
//! Every rewrite is exact under SEMANTICS.md on every driver: it changes how a value is computed,
//! never which value. That is what lets CI force all of them on lavapipe and run the whole
//! catalogue there, proving each rewrite on a second driver, and what lets a workaround stay on a
//! driver that has long fixed its bug without changing any result (only a little speed).
//!
//! The set in force is part of the pipeline cache's key and of the disk cache's header, so a module
//! compiled with one set is never reused for another. `vyre-conform list-adapters` and the
//! `vyre-conform` report name the workarounds in force; DRIVER_BUGS.md has each bug's minimal
//! program, WGSL, SPIR-V and the report for upstream.

use std::fmt;
use std::str::FromStr;

/// The environment variable that overrides the workarounds the table chooses: `all`, `none`, or a
/// comma-separated list of [`Workaround::name`]s (exactly those). A set chosen in code
/// ([`crate::AdapterOptions::with_workarounds`]) wins over it.
///
/// ```
/// use vyre_driver_wgpu::{WORKAROUNDS_ENV, Workarounds};
///
/// assert_eq!(WORKAROUNDS_ENV, "VYRE_WORKAROUNDS");
/// // What `VYRE_WORKAROUNDS=int_min_max,f16_rounding` asks for:
/// let set: Workarounds = "int_min_max,f16_rounding".parse()?;
/// assert_eq!(set.to_string(), "int_min_max,f16_rounding");
/// # Ok::<(), vyre_driver::BackendError>(())
/// ```
pub const WORKAROUNDS_ENV: &str = "VYRE_WORKAROUNDS";

/// One rewrite of the emitted module, each avoiding a class of driver miscompiles. Every one keeps
/// the module's meaning exactly (SEMANTICS.md); it only changes the shape a driver compiler sees.
///
/// Several rewrites read an *opaque zero*: word 7 of vyre's `params` buffer, which every launch
/// writes as 0 and which no compiler can know, so it can neither fold a value through it nor match
/// the pattern it hides.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Workaround {
    /// Integer `min` and `max` (every width, signed or not) as a compare and a select, the compare
    /// made on one operand xored with the opaque zero: the driver sees no min or max to fold or to
    /// match against a negation, and cannot fold the compare of two constants (`min(a, b)` is
    /// `select(b, a, (a ^ z) < b)`).
    IntMinMax,
    /// Integer widening (`u64(x)` and `i64(x)` of 32-bit `x`) as a shift left and back by `32 + z`
    /// with the opaque zero `z`, an arithmetic shift back for a signed source: the driver cannot
    /// tell the result is an extension, so it cannot move the extension past a shift that follows.
    OpaqueWidening,
    /// A conversion to `f16` (from `f32` or an integer) rounds the value to the nearest `f16` (ties
    /// to even) in 32-bit integer arithmetic first, and converts that exactly representable value:
    /// a driver that drops the conversion (folding `f32(f16(x))` to `x`) then drops nothing.
    F16Rounding,
    /// The divisor of a 64-bit integer division or remainder goes through the opaque zero
    /// (`d ^ z`): the driver cannot strength-reduce a division by a constant, which it gets wrong
    /// for widened dividends. No table entry prescribes it any more: [`Self::SoftWideDivision`]
    /// keeps every 64-bit division from the driver, and on the H100 a run-time division (what
    /// this rewrite forces) was itself wrong in other shapes. It stays for `VYRE_WORKAROUNDS`.
    OpaqueDivisor,
    /// A 64-bit integer narrowed to 32 bits (`u32(x)`, `i32(x)`) is the low word xored with the
    /// opaque zero: the driver cannot relate the narrowed value to the 64-bit one it came from, so
    /// it cannot carry what it knows of that value (its range, its sign) into the 32-bit arithmetic
    /// that follows.
    OpaqueNarrowing,
    /// An ordering comparison (`<`, `<=`, `>`, `>=`) of 64-bit integers compares its left operand
    /// xored with the opaque zero: the driver cannot fold it, nor order the two values by their low
    /// words.
    OpaqueWideCompare,
    /// A 64-bit integer division or remainder is computed by vyre itself, a shift-and-subtract loop
    /// over the dividend's 64 bits in 64-bit adds, shifts and bitwise operations (no compare, no
    /// divide): the driver never sees a 64-bit division, whose run-time routine it gets wrong when
    /// only some bits of the result are used (`(x % d) & 1u64`), or when the dividend's `abs` is
    /// also used elsewhere.
    SoftWideDivision,
    /// An `f16` sum or difference passes through the opaque zero as bits (`f16(bitcast<f32>(
    /// bitcast<u32>(f32(s)) ^ z))`, exact: `f16` to `f32` and back is the identity): the driver
    /// cannot see a sum under a product that follows, so it cannot distribute the product over it
    /// (`nvidia-f16-distributed-product`, DRIVER_BUGS.md).
    OpaqueF16Sum,
}

impl Workaround {
    /// Every workaround, in the order of [`Workarounds`]' bits.
    pub const ALL: [Workaround; 8] = [
        Workaround::IntMinMax,
        Workaround::OpaqueWidening,
        Workaround::F16Rounding,
        Workaround::OpaqueDivisor,
        Workaround::OpaqueNarrowing,
        Workaround::OpaqueWideCompare,
        Workaround::SoftWideDivision,
        Workaround::OpaqueF16Sum,
    ];

    /// The name `VYRE_WORKAROUNDS` and the reports use, e.g. `int_min_max`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Workaround::IntMinMax => "int_min_max",
            Workaround::OpaqueWidening => "opaque_widening",
            Workaround::F16Rounding => "f16_rounding",
            Workaround::OpaqueDivisor => "opaque_divisor",
            Workaround::OpaqueNarrowing => "opaque_narrowing",
            Workaround::OpaqueWideCompare => "opaque_wide_compare",
            Workaround::SoftWideDivision => "soft_wide_division",
            Workaround::OpaqueF16Sum => "opaque_f16_sum",
        }
    }

    /// The workaround called `name`.
    #[must_use]
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|w| w.name() == name)
    }

    const fn bit(self) -> u8 {
        1 << (self as u8)
    }
}

impl fmt::Display for Workaround {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A set of [`Workaround`]s: the ones a device lowers its modules with.
///
/// ```
/// use vyre_driver_wgpu::{Workaround, Workarounds};
///
/// let set = Workarounds::NONE.with(Workaround::IntMinMax);
/// assert!(set.contains(Workaround::IntMinMax));
/// assert!(!set.contains(Workaround::F16Rounding));
/// assert_eq!(Workarounds::ALL.iter().count(), Workaround::ALL.len());
/// assert_eq!(Workarounds::NONE.to_string(), "none");
/// assert_eq!("all".parse::<Workarounds>()?, Workarounds::ALL);
/// assert!("int_min_mix".parse::<Workarounds>().unwrap_err().to_string().contains("Fix:"));
/// # Ok::<(), vyre_driver::BackendError>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Workarounds(u8);

impl Workarounds {
    /// No workaround.
    pub const NONE: Self = Self(0);
    /// Every workaround.
    pub const ALL: Self = Self(
        Workaround::IntMinMax.bit()
            | Workaround::OpaqueWidening.bit()
            | Workaround::F16Rounding.bit()
            | Workaround::OpaqueDivisor.bit()
            | Workaround::OpaqueNarrowing.bit()
            | Workaround::OpaqueWideCompare.bit()
            | Workaround::SoftWideDivision.bit()
            | Workaround::OpaqueF16Sum.bit(),
    );

    /// This set with `workaround` added.
    #[must_use]
    pub const fn with(self, workaround: Workaround) -> Self {
        Self(self.0 | workaround.bit())
    }

    /// This set without `workaround`.
    #[must_use]
    pub const fn without(self, workaround: Workaround) -> Self {
        Self(self.0 & !workaround.bit())
    }

    /// Whether `workaround` is in the set.
    #[must_use]
    pub const fn contains(self, workaround: Workaround) -> bool {
        self.0 & workaround.bit() != 0
    }

    /// Whether the set is empty.
    #[must_use]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The workarounds in the set, in [`Workaround::ALL`] order.
    pub fn iter(self) -> impl Iterator<Item = Workaround> {
        Workaround::ALL
            .into_iter()
            .filter(move |w| self.contains(*w))
    }

    /// The names of the workarounds in the set.
    #[must_use]
    pub fn names(self) -> Vec<String> {
        self.iter().map(|w| w.name().to_string()).collect()
    }

    /// The workarounds [`DRIVER_BUGS`] prescribes for the adapter `info`: the union over the
    /// entries that match it.
    ///
    /// ```
    /// use vyre_driver_wgpu::{Workaround, Workarounds, wgpu};
    ///
    /// let mut h100 = wgpu::AdapterInfo::new(wgpu::DeviceType::DiscreteGpu, wgpu::Backend::Vulkan);
    /// h100.name = "NVIDIA H100 80GB HBM3".to_string();
    /// h100.vendor = 0x10de;
    /// h100.driver = "NVIDIA".to_string();
    /// h100.driver_info = "580.159.04".to_string();
    /// assert!(Workarounds::for_adapter(&h100).contains(Workaround::IntMinMax));
    /// // NVK (Mesa's open driver for NVIDIA GPUs) has its own compiler, not this one's bugs.
    /// h100.driver = "NVK".to_string();
    /// assert_eq!(Workarounds::for_adapter(&h100), Workarounds::NONE);
    /// ```
    #[must_use]
    pub fn for_adapter(info: &wgpu::AdapterInfo) -> Self {
        DRIVER_BUGS
            .iter()
            .filter(|bug| bug.affects.matches(info))
            .fold(Self::NONE, |set, bug| set.with(bug.workaround))
    }
}

impl fmt::Display for Workarounds {
    /// The names joined by commas, or `none`: what [`FromStr`] reads back.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_empty() {
            return f.write_str("none");
        }
        f.write_str(&self.names().join(","))
    }
}

impl FromStr for Workarounds {
    type Err = vyre_driver::BackendError;

    /// `all`, `none` (or nothing), or comma-separated [`Workaround::name`]s, spaces ignored.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let text = text.trim();
        match text {
            "all" => return Ok(Self::ALL),
            "none" | "" => return Ok(Self::NONE),
            _ => {}
        }
        let mut set = Self::NONE;
        for name in text.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            let workaround = Workaround::from_name(name).ok_or_else(|| {
                let known: Vec<&str> = Workaround::ALL.iter().map(|w| w.name()).collect();
                vyre_driver::BackendError::invalid_config(format!(
                    "`{name}` is no driver workaround (in `{text}`). Fix: write `all`, `none`, or a comma-separated list of {}.",
                    known.join(", ")
                ))
            })?;
            set = set.with(workaround);
        }
        Ok(set)
    }
}

/// Where the workarounds in force came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Source {
    /// [`DRIVER_BUGS`], for the adapter.
    Table,
    /// `VYRE_WORKAROUNDS`.
    Env,
    /// [`crate::AdapterOptions::with_workarounds`].
    Code,
}

/// The workarounds in force for the adapter `info`: the set chosen in code when there is one, else
/// `VYRE_WORKAROUNDS` when it is set to something, else the table's. An empty `VYRE_WORKAROUNDS=`
/// counts as unset, as a shell script's `VYRE_WORKAROUNDS=$CHOICE` with no choice means: only
/// `none` turns the table off.
///
/// # Errors
///
/// [`vyre_driver::BackendError::InvalidConfig`] when `VYRE_WORKAROUNDS` names no workaround.
pub(crate) fn in_force(
    info: &wgpu::AdapterInfo,
    chosen: Option<Workarounds>,
) -> Result<(Workarounds, Source), vyre_driver::BackendError> {
    if let Some(set) = chosen {
        return Ok((set, Source::Code));
    }
    match std::env::var(WORKAROUNDS_ENV) {
        Ok(text) if !text.trim().is_empty() => {
            text.parse()
                .map(|set| (set, Source::Env))
                .map_err(|e: vyre_driver::BackendError| {
                    vyre_driver::BackendError::invalid_config(format!("{WORKAROUNDS_ENV}: {e}"))
                })
        }
        Ok(_) | Err(_) => Ok((Workarounds::for_adapter(info), Source::Table)),
    }
}

/// Which adapters a driver bug affects. Every field that is set must match.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Affects {
    /// The PCI vendor id (`wgpu::AdapterInfo::vendor`), e.g. `0x10de` for NVIDIA.
    pub vendor: Option<u32>,
    /// Drivers whose name (`wgpu::AdapterInfo::driver`, case-insensitive) contains one of these are
    /// not affected (another compiler for the same hardware, such as Mesa's NVK).
    pub other_drivers: &'static [&'static str],
    /// The first affected driver version, as the leading numbers of `driver_info`
    /// (`580.159.04` is `[580, 159, 4]`); `None`: every version up to [`Affects::fixed_in`].
    pub from: Option<[u32; 3]>,
    /// The first version with the bug fixed; `None`: not fixed in any version seen.
    pub fixed_in: Option<[u32; 3]>,
}

impl Affects {
    /// Whether the adapter `info` has the bug.
    #[must_use]
    pub fn matches(&self, info: &wgpu::AdapterInfo) -> bool {
        if self.vendor.is_some_and(|v| v != info.vendor) {
            return false;
        }
        let driver = info.driver.to_lowercase();
        if self
            .other_drivers
            .iter()
            .any(|d| driver.contains(&d.to_lowercase()))
        {
            return false;
        }
        if self.from.is_none() && self.fixed_in.is_none() {
            return true;
        }
        // A version that cannot be read is taken as affected: a workaround never changes a result.
        let Some(version) = driver_version(&info.driver_info) else {
            return true;
        };
        self.from.is_none_or(|from| version >= from)
            && self.fixed_in.is_none_or(|fixed| version < fixed)
    }
}

/// The leading dotted numbers of a driver version string (`580.159.04` -> `[580, 159, 4]`, missing
/// parts 0), or `None` when it does not start with a number.
fn driver_version(text: &str) -> Option<[u32; 3]> {
    let mut parts = [0u32; 3];
    let mut numbers = text
        .trim()
        .split(|c: char| !c.is_ascii_digit())
        .take_while(|p| !p.is_empty());
    for part in &mut parts {
        match numbers.next() {
            Some(digits) => *part = digits.parse().ok()?,
            None => break,
        }
    }
    text.trim()
        .starts_with(|c: char| c.is_ascii_digit())
        .then_some(parts)
}

/// One driver bug vyre works around.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct DriverBug {
    /// A short stable name, e.g. `nvidia-max-negated-loop-counter`; DRIVER_BUGS.md has a section
    /// of this name.
    pub id: &'static str,
    /// What goes wrong.
    pub summary: &'static str,
    /// The minimal program, in vyre's text form (one invocation per element of `out`).
    pub program: &'static str,
    /// The devices and drivers it was seen on.
    pub seen: &'static str,
    /// Which adapters have it.
    pub affects: Affects,
    /// The rewrite that avoids it.
    pub workaround: Workaround,
    /// The test that runs its program and variants on a device: `file: test` under
    /// `vyre-driver-wgpu/tests/`.
    pub probe: &'static str,
}

/// NVIDIA's proprietary driver compiler (not Mesa's NVK or nouveau for the same GPUs). No fixed
/// version is known, so every version is affected; the bugs were seen at 580.159.04.
const NVIDIA: Affects = Affects {
    vendor: Some(0x10de),
    other_drivers: &["nvk", "nouveau"],
    from: None,
    fixed_in: None,
};

/// Where NVIDIA's bugs were seen.
const SEEN_NVIDIA: &str =
    "NVIDIA H100 80GB HBM3 and H200, Vulkan, driver 580.159.04 (wgpu 30.0.2, naga 30.0.2)";

/// Every driver bug vyre knows, one entry per bug.
pub const DRIVER_BUGS: &[DriverBug] = &[
    DriverBug {
        id: "nvidia-max-negated-loop-counter",
        summary: "`max(out[0], max(i2, -i1))` of two one-trip loop counters (i1 = 72237995, i2 = 12541355) stores 72237995 (i1 itself) where the law gives 12541355 (fuzz seed 29210)",
        program: "program @workgroup_size(1, 1, 1) {\n  buffer out: output i32[1] @binding(0);\n  for i1 in 72237995i..(72237995i + 1i) {\n    for i2 in 12541355i..(12541355i + 1i) {\n      out[0u] = max(out[0u], max(i2, -i1));\n    }\n  }\n}\n",
        seen: SEEN_NVIDIA,
        affects: NVIDIA,
        workaround: Workaround::IntMinMax,
        probe: "driver_probes.rs: max_of_a_negated_loop_counter",
    },
    DriverBug {
        id: "nvidia-min-of-negation",
        summary: "`min(min(v, -v), 0i) % 17i` of `v = i32(gid.x)` stores 0.0 for gid.x = 1 where the law gives -1.0",
        program: "program @workgroup_size(1, 1, 1) {\n  buffer out: output f32[2] @binding(0);\n  let v = i32(gid.x);\n  v = min(min(v, -v), 0i);\n  out[gid.x] = f32((v % 17i));\n}\n",
        seen: SEEN_NVIDIA,
        affects: NVIDIA,
        workaround: Workaround::IntMinMax,
        probe: "driver_probes.rs: min_of_a_value_and_its_negation",
    },
    DriverBug {
        id: "nvidia-i64-min-low-word",
        summary: "`min(-3, -9223372036836883621)` of values the driver can fold stores -3: the 64-bit min is ordered by the low words (-3 and 17892187)",
        program: "program @workgroup_size(1, 1, 1) {\n  buffer out: output i64[1] @binding(0);\n  let v1 = (abs(min(5i64, 3i64)) * -1i64);\n  out[0u] = min(v1, -9223372036836883621i64);\n}\n",
        seen: SEEN_NVIDIA,
        affects: NVIDIA,
        workaround: Workaround::IntMinMax,
        probe: "driver_probes.rs: min_of_64_bit_constants",
    },
    DriverBug {
        id: "nvidia-sign-extension-past-shift",
        summary: "`u64(i32(gid.x)) << 959816159u` (a shift by 31) stores 0xffffffff80000000 for gid.x = 1 where the law gives 0x80000000: the sign extension is applied after a 32-bit shift",
        program: "program @workgroup_size(1, 1, 1) {\n  buffer out: output u64[2] @binding(0);\n  out[gid.x] = (u64(i32(gid.x)) << 959816159u);\n}\n",
        seen: SEEN_NVIDIA,
        affects: NVIDIA,
        workaround: Workaround::OpaqueWidening,
        probe: "driver_probes.rs: widening_then_shift",
    },
    DriverBug {
        id: "nvidia-u64-remainder-of-widened",
        summary: "`u64(i32(gid.x) + -8i) % 32u64` stores 0x00000c8800000018 for gid.x = 0 where the law gives 0x18, and `u64(-2147483648i) % 32u64` 0xffffffff00000000 where it gives 0: the remainder by a power of two keeps a high word (catalogue `driver.u64_of_i32.rem`, with `opaque_widening` in force)",
        program: "program @workgroup_size(8, 1, 1) {\n  buffer out: output u64[8] @binding(0);\n  out[gid.x] = (u64((i32(gid.x) + -8i)) % u64(32u));\n}\n",
        seen: SEEN_NVIDIA,
        affects: NVIDIA,
        workaround: Workaround::SoftWideDivision,
        probe: "driver_probes.rs: remainder_of_a_widened_value",
    },
    DriverBug {
        id: "nvidia-remainder-chain-of-narrowed",
        summary: "`(u32(i32(i64(i32(gid.x)) % -1702928622i64)) % 2147483649u) % 2u` as an index stores into `out[1]` for gid.x = 0 where the law stores into `out[0]`: a 64-bit value narrowed to 32 bits, a remainder by a constant above 2^31, then a second remainder, comes out 1 where every step gives 0 (fuzz seeds 52013 and 65002; each step alone is right)",
        program: "program @workgroup_size(1, 1, 1) {\n  buffer out: output u32[2] @binding(0);\n  out[((gid.x * 2u) + ((u32(i32((i64(i32(gid.x)) % -1702928622i64))) % 2147483649u) % 2u))] = 1u;\n}\n",
        seen: SEEN_NVIDIA,
        affects: NVIDIA,
        workaround: Workaround::OpaqueNarrowing,
        probe: "driver_probes.rs: remainder_chain_of_a_narrowed_value",
    },
    DriverBug {
        id: "nvidia-i64-compare-low-word",
        summary: "`bitcast<i64>(9223372038027439179u64) < (ld1 << 1u)` of a loaded `ld1 = 0` (`ld1` loaded before `out[gid.x]` is overwritten) stores 0 where the law gives 1: the negative constant is ordered against 0 as if by its low word 0x45e58a4b (fuzz seed 80012)",
        program: "program @workgroup_size(1, 1, 1) {\n  buffer out: output i64[2] @binding(0);\n  let ld1 = out[gid.x];\n  out[gid.x] = (i64(gid.x) / 2i64);\n  let v3 = (bitcast<i64>(9223372038027439179u64) < (ld1 << 1u));\n  out[gid.x] = i64(v3);\n}\n",
        seen: "NVIDIA H100 80GB HBM3, Vulkan, driver 580.159.04 (wgpu 30.0.2, naga 30.0.2)",
        affects: NVIDIA,
        workaround: Workaround::OpaqueWideCompare,
        probe: "driver_probes.rs: compare_of_a_64_bit_constant",
    },
    DriverBug {
        id: "nvidia-wide-quotient-low-bit",
        summary: "`((u64(gid.x) % (18446744073709551615u64 ^ z)) & 1u64) * 39238535u64` of a divisor the driver cannot know (`z` a loaded 0) stores 39238535 for gid.x = 0 where the law gives 0: the lowest bit of a 64-bit quotient or remainder computed at run time, multiplied by a constant, comes out 1 (fuzz seeds 84001 and 85001, with `opaque_divisor` in force and with a loaded dividend without it; xoring the result with the opaque zero did not mend it on the H100, so vyre divides by itself)",
        program: "program @workgroup_size(1, 1, 1) {\n  buffer out: output u64[4] @binding(0);\n  let z = out[gid.x];\n  out[gid.x] = (((u64(gid.x) % (18446744073709551615u64 ^ z)) & 1u64) * 39238535u64);\n}\n",
        seen: "NVIDIA H100 80GB HBM3, Vulkan, driver 580.159.04 (wgpu 30.0.2, naga 30.0.2)",
        affects: NVIDIA,
        workaround: Workaround::SoftWideDivision,
        probe: "driver_probes.rs: low_bit_of_a_64_bit_quotient",
    },
    DriverBug {
        id: "nvidia-abs-beside-wide-division",
        summary: "`max(abs(a1) * -1i64, -1i64)` of `a1 = atomic_add(out1[0], 0i64)` (0) stores -1 where the law gives 0 when the program also stores `f32(a1 % 17i64)` (or `a1 / 17i64`); without the division, or with `a1 % 16i64`, it is right, with every other workaround in force or none (fuzz seed 84001; seed 63031 on the H200 had the same shape)",
        program: "program @workgroup_size(1, 1, 1) {\n  buffer out0: output f32[2] @binding(0);\n  buffer out1: output i64[2] @binding(1);\n  let a1 = atomic_add(out1[0u], 0i64);\n  out1[1u] = max((abs(a1) * -1i64), -1i64);\n  out0[1u] = f32((a1 % 17i64));\n}\n",
        seen: "NVIDIA H100 80GB HBM3, Vulkan, driver 580.159.04 (wgpu 30.0.2, naga 30.0.2)",
        affects: NVIDIA,
        workaround: Workaround::SoftWideDivision,
        probe: "driver_probes.rs: abs_beside_a_64_bit_division",
    },
    DriverBug {
        id: "nvidia-f16-round-trip",
        summary: "`f32(f16(x))` with x = f32(1/3) stores 0.33333334 where the law gives 0.33325195: the conversion to f16 is dropped, not rounded",
        program: "program @workgroup_size(1, 1, 1) {\n  buffer out: output f32[1] @binding(0);\n  out[0u] = f32(f16(f32_bits(0x3eaaaaab)));\n}\n",
        seen: SEEN_NVIDIA,
        affects: NVIDIA,
        workaround: Workaround::F16Rounding,
        probe: "driver_probes.rs: f16_round_trip",
    },
    DriverBug {
        id: "nvidia-f16-distributed-product",
        summary: "`(13.75h - x) * -15.75h` of a loaded `x = 13.75h` stores 0.0625h where the law gives -0.0h: the driver distributes the product over the sum of a constant, `fma(x, 15.75, 13.75 * -15.75)` with the constant product rounded to `f16` first (fuzz seed 99011; `f32` is right)",
        program: "program @workgroup_size(1, 1, 1) {\n  buffer out0: output f16[5] @binding(0);\n  buffer in1: read f16[25] @binding(1);\n  let tid = gid.x;\n  out0[tid] = ((13.75h - in1[((tid << 2u) + 2u)]) * -15.75h);\n}\n",
        seen: "NVIDIA H100 80GB HBM3, Vulkan, driver 580.159.04 (wgpu 30.0.2, naga 30.0.2)",
        affects: NVIDIA,
        workaround: Workaround::OpaqueF16Sum,
        probe: "driver_probes.rs: distributed_f16_product",
    },
];

#[cfg(test)]
mod tests {
    use super::{DRIVER_BUGS, Workaround, Workarounds, driver_version};

    fn info(vendor: u32, driver: &str, version: &str) -> wgpu::AdapterInfo {
        let mut info = wgpu::AdapterInfo::new(wgpu::DeviceType::DiscreteGpu, wgpu::Backend::Vulkan);
        info.vendor = vendor;
        info.driver = driver.to_string();
        info.driver_info = version.to_string();
        info
    }

    #[test]
    fn nvidia_gets_every_workaround_but_the_opaque_divisor_and_lavapipe_none() {
        let nvidia = info(0x10de, "NVIDIA", "580.159.04");
        assert_eq!(
            Workarounds::for_adapter(&nvidia),
            Workarounds::ALL.without(Workaround::OpaqueDivisor)
        );
        let lavapipe = info(0x10005, "llvmpipe", "Mesa 22.3.6 (LLVM 15.0.6)");
        assert_eq!(Workarounds::for_adapter(&lavapipe), Workarounds::NONE);
        let nvk = info(0x10de, "NVK", "Mesa 25.0");
        assert_eq!(Workarounds::for_adapter(&nvk), Workarounds::NONE);
    }

    #[test]
    fn a_version_range_bounds_the_affected_drivers() {
        let mut bug = DRIVER_BUGS[0].affects;
        bug.from = Some([550, 0, 0]);
        bug.fixed_in = Some([590, 12, 0]);
        assert!(bug.matches(&info(0x10de, "NVIDIA", "580.159.04")));
        assert!(bug.matches(&info(0x10de, "NVIDIA", "550.0")));
        assert!(!bug.matches(&info(0x10de, "NVIDIA", "590.12.1")));
        assert!(!bug.matches(&info(0x10de, "NVIDIA", "545.29.06")));
        // Unreadable versions are taken as affected.
        assert!(bug.matches(&info(0x10de, "NVIDIA", "")));
    }

    #[test]
    fn driver_versions_read_their_leading_numbers() {
        assert_eq!(driver_version("580.159.04"), Some([580, 159, 4]));
        assert_eq!(driver_version("31.0.101.5333"), Some([31, 0, 101]));
        assert_eq!(driver_version("550"), Some([550, 0, 0]));
        assert_eq!(driver_version("Mesa 22.3.6"), None);
    }

    #[test]
    fn every_workaround_parses_back_from_its_name_and_every_entry_has_a_probe() {
        for w in Workaround::ALL {
            let set: Workarounds = w.name().parse().expect("its own name");
            assert_eq!(set, Workarounds::NONE.with(w));
        }
        assert_eq!(
            Workarounds::ALL.to_string().parse::<Workarounds>().ok(),
            Some(Workarounds::ALL)
        );
        assert_eq!(
            " none ".parse::<Workarounds>().ok(),
            Some(Workarounds::NONE)
        );
        for bug in DRIVER_BUGS {
            let (file, test) = bug.probe.split_once(": ").expect("`file: test`");
            let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests")
                .join(file);
            let source = std::fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("{}: no probe {}: {e}", bug.id, path.display()));
            assert!(
                source.contains(&format!("fn {test}()")),
                "{}: {file} has no test `{test}`",
                bug.id
            );
        }
        for bug in DRIVER_BUGS {
            let program: vyre_foundation::ir::Program = bug
                .program
                .parse()
                .unwrap_or_else(|e| panic!("{}: the program does not parse: {e}", bug.id));
            vyre_foundation::validate(&program)
                .unwrap_or_else(|e| panic!("{}: the program is invalid: {e}", bug.id));
        }
        let ids: std::collections::HashSet<_> = DRIVER_BUGS.iter().map(|b| b.id).collect();
        assert_eq!(ids.len(), DRIVER_BUGS.len(), "duplicate ids");
    }
}
