//! Adapters and devices: choosing an adapter, opening a device with vyre's handlers installed, and
//! noticing when it is lost.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use vyre_driver::BackendError;
use vyre_foundation::ir::{DataType, Features, TILE_SIZES, TileShape};

use crate::disk::{DiskCache, PipelineCacheDir};
use crate::lifecycle::{TeardownTurn, Turn};
use crate::poller::Poller;
use crate::workarounds::{self, Workarounds};

/// The environment variable that picks an adapter by a case-insensitive substring of its name.
///
/// It applies when [`AdapterOptions::name`] is `None` (the default); a name set in code wins.
///
/// ```
/// use vyre_driver_wgpu::{ADAPTER_ENV, AdapterOptions};
///
/// assert_eq!(ADAPTER_ENV, "VYRE_WGPU_ADAPTER"); // e.g. `VYRE_WGPU_ADAPTER=llvmpipe cargo test`
/// match std::env::var(ADAPTER_ENV) {
///     Ok(filter) => println!("only adapters whose name contains {filter:?}"),
///     Err(_) => println!("the best adapter, whatever its name"),
/// }
/// assert_eq!(AdapterOptions::new().name, None); // so the variable decides
/// ```
pub const ADAPTER_ENV: &str = "VYRE_WGPU_ADAPTER";

/// One open device and what it reported.
pub(crate) struct DeviceState {
    pub(crate) adapter: wgpu::Adapter,
    pub(crate) device: wgpu::Device,
    pub(crate) queue: wgpu::Queue,
    pub(crate) info: wgpu::AdapterInfo,
    pub(crate) limits: wgpu::Limits,
    /// The optional vyre features the device was opened with.
    pub(crate) features: Features,
    /// The matrix-tile shapes the device runs (`Capabilities::matrix_tiles`): what the adapter
    /// reports and the IR can express; empty without cooperative matrices.
    pub(crate) matrix_tiles: Vec<TileShape>,
    /// The driver workarounds its modules are lowered with (see `workarounds`).
    pub(crate) workarounds: Workarounds,
    /// Its modules are compiled without wgpu's bounds checks (see `trusted`).
    pub(crate) trusted_modules: bool,
    /// Set by the device-lost callback (never by vyre itself).
    pub(crate) lost: Arc<AtomicBool>,
    /// The last uncaptured error, kept instead of wgpu's default panic.
    pub(crate) uncaptured: Arc<Mutex<Option<String>>>,
    /// Bumped for every new device; pipelines record the generation they were made for.
    pub(crate) generation: u64,
    /// False for a device the application handed over ([`adopt`]): vyre never replaces it.
    pub(crate) owned: bool,
    /// The device's pipeline cache and its file (see `disk`).
    pub(crate) disk: DiskCache,
    /// The pipeline that edits parts of words (see `launch::patch`), made when first needed.
    pub(crate) patcher: std::sync::OnceLock<Patcher>,
    /// The thread that drives wgpu's callbacks for async calls on this device (see `poller`);
    /// stopped when the state is dropped, which no future on this device outlives.
    pub(crate) poller: Poller,
    /// Held while the fields above are dropped: the device may go with them (see `lifecycle`).
    pub(crate) teardown: TeardownTurn,
}

impl Drop for DeviceState {
    fn drop(&mut self) {
        // Saved before the turn is taken: writing a file needs no turn, and other backends need not
        // wait for it. A lost device has nothing to save.
        if !self.is_lost() {
            self.disk.save(true);
        }
        self.teardown.take();
    }
}

/// The backends vyre trusts: never GL, which breaks WGSL's integer rules.
fn trusted_backends() -> wgpu::Backends {
    wgpu::Backends::VULKAN | wgpu::Backends::METAL | wgpu::Backends::DX12
}

fn rank(info: &wgpu::AdapterInfo) -> u8 {
    match info.device_type {
        wgpu::DeviceType::DiscreteGpu => 0,
        wgpu::DeviceType::IntegratedGpu => 1,
        wgpu::DeviceType::VirtualGpu => 2,
        wgpu::DeviceType::Cpu => 3,
        wgpu::DeviceType::Other => 4,
    }
}

/// Human-readable adapter description, e.g. `llvmpipe (LLVM 15.0.6, 256 bits) (Vulkan, Cpu)`.
pub(crate) fn describe(info: &wgpu::AdapterInfo) -> String {
    format!("{} ({:?}, {:?})", info.name, info.backend, info.device_type)
}

fn no_adapter(detail: &str) -> BackendError {
    BackendError::no_device(format!(
        "no usable GPU adapter: {detail}. Fix: install a Vulkan driver (on a CPU-only Debian or Ubuntu machine: `apt-get install mesa-vulkan-drivers libvulkan1`), or unset {ADAPTER_ENV} if it names no adapter here."
    ))
}

/// Which adapter [`crate::WgpuBackend::acquire_with`] opens.
///
/// ```
/// use vyre_driver_wgpu::{AdapterOptions, WgpuBackend, wgpu};
///
/// // An integrated GPU first, and only adapters whose name contains "intel".
/// let options = AdapterOptions::new()
///     .with_power_preference(wgpu::PowerPreference::LowPower)
///     .with_name("intel");
/// match WgpuBackend::acquire_with(&options) {
///     Ok(backend) => println!("on {}", backend.adapter_name()),
///     Err(e) => println!("{e}"), // says which filter matched nothing
/// }
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct AdapterOptions {
    /// `None` (the default) and `HighPerformance` rank discrete GPUs first, `LowPower` integrated
    /// ones; CPU drivers such as lavapipe come last either way.
    pub power_preference: wgpu::PowerPreference,
    /// Only adapters whose name contains this (case-insensitive). `None` reads `VYRE_WGPU_ADAPTER`.
    pub name: Option<String>,
    /// Where the disk pipeline cache lives (Vulkan only): by default `VYRE_CACHE_DIR`, else the
    /// user's cache directory; see [`PipelineCacheDir`].
    pub pipeline_cache: PipelineCacheDir,
    /// The driver workarounds to lower modules with: `None` (the default) reads `VYRE_WORKAROUNDS`,
    /// else takes those the table prescribes for the adapter ([`Workarounds::for_adapter`]).
    pub workarounds: Option<Workarounds>,
    /// Whether programs go through the standard IR passes (`vyre_foundation::pass::Pipeline::standard`)
    /// before lowering: `None` (the default) reads `VYRE_PASSES` (`on` or `off`), else on.
    pub passes: Option<bool>,
    /// Whether vyre's modules are compiled without wgpu's runtime bounds checks, which repeat
    /// vyre's own guards: `None` (the default) reads `VYRE_TRUSTED_MODULES` (`on` or `off`), else on.
    pub trusted_modules: Option<bool>,
}

impl AdapterOptions {
    /// The default options: the fastest adapter, filtered by `VYRE_WGPU_ADAPTER` if set.
    ///
    /// ```
    /// use vyre_driver_wgpu::{AdapterOptions, PipelineCacheDir, wgpu};
    ///
    /// let options = AdapterOptions::new();
    /// // wgpu's default preference, `None`, ranks adapters as `HighPerformance` does.
    /// assert_eq!(options.power_preference, wgpu::PowerPreference::None);
    /// assert_eq!(options.name, None);
    /// assert_eq!(options.pipeline_cache, PipelineCacheDir::FromEnv);
    /// ```
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Prefers low-power (integrated) adapters or high-performance (discrete) ones.
    ///
    /// ```
    /// use vyre_driver_wgpu::{AdapterOptions, list_adapters, wgpu};
    ///
    /// let options = AdapterOptions::new().with_power_preference(wgpu::PowerPreference::LowPower);
    /// assert_eq!(options.power_preference, wgpu::PowerPreference::LowPower);
    /// // Whatever the preference, at most one adapter is the one vyre would open.
    /// assert!(list_adapters(&options).iter().filter(|e| e.chosen).count() <= 1);
    /// ```
    #[must_use]
    pub fn with_power_preference(mut self, preference: wgpu::PowerPreference) -> Self {
        self.power_preference = preference;
        self
    }

    /// Only adapters whose name contains `name` (case-insensitive).
    ///
    /// ```
    /// use vyre_driver_wgpu::{AdapterOptions, WgpuBackend, list_adapters};
    ///
    /// let options = AdapterOptions::new().with_name("no adapter is called this");
    /// // No adapter matches: none is chosen, each says why, and acquiring fails with `NoDevice`.
    /// assert!(list_adapters(&options).iter().all(|e| !e.chosen && e.excluded.is_some()));
    /// let err = WgpuBackend::acquire_with(&options).unwrap_err();
    /// assert_eq!(err.kind_name(), "NoDevice");
    /// assert!(err.to_string().contains("Fix:"));
    /// ```
    #[must_use]
    pub fn with_name(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }

    /// Keeps the disk pipeline cache where `dir` says ([`PipelineCacheDir::At`] a directory,
    /// [`PipelineCacheDir::Off`], or the default [`PipelineCacheDir::FromEnv`]).
    ///
    /// ```
    /// use vyre_driver_wgpu::{AdapterOptions, PipelineCacheDir};
    ///
    /// let options = AdapterOptions::new()
    ///     .with_pipeline_cache(PipelineCacheDir::At(std::env::temp_dir().join("my-app-vyre")));
    /// assert_ne!(options.pipeline_cache, PipelineCacheDir::Off);
    /// ```
    #[must_use]
    pub fn with_pipeline_cache(mut self, dir: PipelineCacheDir) -> Self {
        self.pipeline_cache = dir;
        self
    }

    /// Lowers every module with exactly the driver workarounds `set`, whatever the adapter and
    /// `VYRE_WORKAROUNDS` say: [`Workarounds::ALL`] to prove the rewrites exact on a driver that
    /// does not need them, [`Workarounds::NONE`] to see a driver's bugs.
    ///
    /// ```
    /// use vyre_driver_wgpu::{AdapterOptions, WgpuBackend, Workarounds};
    ///
    /// let options = AdapterOptions::new().with_workarounds(Workarounds::ALL);
    /// let Ok(backend) = WgpuBackend::acquire_with(&options) else { return };
    /// assert_eq!(backend.workarounds(), Workarounds::ALL);
    /// ```
    #[must_use]
    pub fn with_workarounds(mut self, set: Workarounds) -> Self {
        self.workarounds = Some(set);
        self
    }

    /// Turns the standard IR passes on (the default) or off, whatever `VYRE_PASSES` says: off, the
    /// backend lowers each program exactly as written (to compare, or to rule the passes out).
    ///
    /// ```
    /// use vyre_driver_wgpu::{AdapterOptions, WgpuBackend};
    ///
    /// let options = AdapterOptions::new().with_passes(false);
    /// assert_eq!(options.passes, Some(false));
    /// if let Ok(backend) = WgpuBackend::acquire_with(&options) {
    ///     assert_eq!(backend.passes(), "");
    /// }
    /// ```
    #[must_use]
    pub fn with_passes(mut self, on: bool) -> Self {
        self.passes = Some(on);
        self
    }

    /// Compiles vyre's modules without wgpu's runtime bounds checks (`true`, the default) or with
    /// them (`false`), whatever `VYRE_TRUSTED_MODULES` says. vyre guards or proves every access
    /// itself (the proof is in `src/trusted.rs`), so wgpu's checks only cost time; turn them back
    /// on to rule vyre's proof out when a result looks wrong.
    ///
    /// ```
    /// use vyre_driver_wgpu::{AdapterOptions, WgpuBackend};
    ///
    /// let options = AdapterOptions::new().with_trusted_modules(false);
    /// assert_eq!(options.trusted_modules, Some(false));
    /// if let Ok(backend) = WgpuBackend::acquire_with(&options) {
    ///     assert!(!backend.trusted_modules());
    /// }
    /// ```
    #[must_use]
    pub fn with_trusted_modules(mut self, on: bool) -> Self {
        self.trusted_modules = Some(on);
        self
    }
}

/// The name filter in force (lower-cased) and where it came from: the options, else `VYRE_WGPU_ADAPTER`.
fn name_filter(options: &AdapterOptions) -> Option<NameFilter> {
    match &options.name {
        Some(name) => Some((name.to_lowercase(), "AdapterOptions::name".to_string())),
        None => std::env::var(ADAPTER_ENV)
            .ok()
            .map(|v| (v.to_lowercase(), format!("{ADAPTER_ENV}={v}"))),
    }
}

/// Why vyre would not open an adapter, or `None` when it is a candidate.
fn exclusion(info: &wgpu::AdapterInfo, filter: Option<&NameFilter>) -> Option<String> {
    if !trusted_backends().contains(wgpu::Backends::from(info.backend)) {
        return Some(format!(
            "vyre never uses the {:?} backend: its WGSL translation breaks vyre's integer rules",
            info.backend
        ));
    }
    match filter {
        Some((name, source)) if !info.name.to_lowercase().contains(name.as_str()) => {
            Some(format!("its name does not contain {name:?} ({source})"))
        }
        _ => None,
    }
}

/// The sort key among candidates: lower is better.
fn order(info: &wgpu::AdapterInfo, preference: wgpu::PowerPreference) -> u8 {
    let low_power = preference == wgpu::PowerPreference::LowPower;
    match rank(info) {
        0 if low_power => 1,
        1 if low_power => 0,
        r => r,
    }
}

/// An adapter and why vyre would not open it (`None`: a candidate).
type Ranked = (wgpu::Adapter, Option<String>);

/// A lower-cased name filter and where it came from.
type NameFilter = (String, String);

/// Every adapter `instance` sees with whether vyre would exclude it, candidates first, best first
/// (a stable sort, so equal ranks keep wgpu's order).
fn ranked(
    instance: &wgpu::Instance,
    options: &AdapterOptions,
) -> (Vec<Ranked>, Option<NameFilter>) {
    let filter = name_filter(options);
    let mut adapters: Vec<Ranked> =
        pollster::block_on(instance.enumerate_adapters(wgpu::Backends::all()))
            .into_iter()
            .map(|a| {
                let excluded = exclusion(&a.get_info(), filter.as_ref());
                (a, excluded)
            })
            .collect();
    adapters.sort_by_key(|(a, excluded)| {
        (
            excluded.is_some(),
            order(&a.get_info(), options.power_preference),
        )
    });
    (adapters, filter)
}

/// Picks the best trusted adapter: discrete > integrated > virtual > CPU (integrated first for
/// `LowPower`), filtered by the options' name or `VYRE_WGPU_ADAPTER`.
pub(crate) fn pick_adapter(
    instance: &wgpu::Instance,
    options: &AdapterOptions,
) -> Result<wgpu::Adapter, BackendError> {
    let (adapters, filter) = ranked(instance, options);
    match adapters.into_iter().next() {
        Some((adapter, None)) => Ok(adapter),
        _ => Err(match filter {
            Some((f, _)) => no_adapter(&format!("no adapter's name contains {f:?}")),
            None => no_adapter("wgpu found no Vulkan, Metal or DX12 adapter"),
        }),
    }
}

/// Every adapter [`crate::WgpuBackend::acquire_all_with`] opens: the candidates of `options`, best
/// first, one per physical device (the first backend a device shows up on, by vendor, device id
/// and PCI bus), and no CPU driver when a GPU is among them (a CPU driver beside GPUs would only
/// hold the GPUs back). Errors as [`pick_adapter`] when there is no candidate.
pub(crate) fn usable_adapters(
    instance: &wgpu::Instance,
    options: &AdapterOptions,
) -> Result<Vec<wgpu::Adapter>, BackendError> {
    let best = pick_adapter(instance, options)?;
    let (adapters, _) = ranked(instance, options);
    let any_gpu = matches!(
        best.get_info().device_type,
        wgpu::DeviceType::DiscreteGpu
            | wgpu::DeviceType::IntegratedGpu
            | wgpu::DeviceType::VirtualGpu
    );
    let mut seen: Vec<(u32, u32, String, String)> = Vec::new();
    let mut usable = Vec::new();
    for (adapter, excluded) in adapters {
        let info = adapter.get_info();
        if excluded.is_some() || (any_gpu && info.device_type == wgpu::DeviceType::Cpu) {
            continue;
        }
        // Without a PCI bus id (software drivers) the name tells devices apart.
        let key = (
            info.vendor,
            info.device,
            info.device_pci_bus_id.clone(),
            if info.device_pci_bus_id.is_empty() {
                info.name.clone()
            } else {
                String::new()
            },
        );
        if !seen.contains(&key) {
            seen.push(key);
            usable.push(adapter);
        }
    }
    Ok(usable)
}

/// One adapter wgpu sees, and what vyre makes of it (see [`list_adapters`]).
///
/// ```
/// use vyre_driver_wgpu::{AdapterOptions, WgpuBackend, list_adapters};
///
/// let options = AdapterOptions::new();
/// let entries = list_adapters(&options);
/// let chosen: Vec<_> = entries.iter().filter(|e| e.chosen).collect();
/// assert!(chosen.len() <= 1);
/// assert!(chosen.iter().all(|e| e.excluded.is_none()));
/// // The chosen entry is the adapter `acquire_with` opens.
/// if let (Ok(backend), [entry]) = (WgpuBackend::acquire_with(&options), chosen.as_slice()) {
///     assert_eq!(backend.adapter_info().ok().map(|i| i.name), Some(entry.info.name.clone()));
/// }
/// ```
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct AdapterEntry {
    /// What the driver reports: name, backend, device type, driver.
    pub info: wgpu::AdapterInfo,
    /// Why vyre would not open this adapter (a backend it never uses, or a name filter that leaves
    /// it out); `None` for a candidate.
    pub excluded: Option<String>,
    /// Whether [`crate::WgpuBackend::acquire_with`] with the same options opens this adapter.
    pub chosen: bool,
    /// A sentence saying why it is chosen, passed over, or excluded.
    pub reason: String,
    /// The optional vyre features (subgroups, f16, 64-bit integers, matrix tiles) the adapter
    /// offers; a device vyre opens on it has exactly these, unless the driver refuses wgpu's
    /// experimental cooperative matrices (then it has no tiles).
    pub features: Features,
    /// The tile shapes a device vyre opens on it runs (`Capabilities::matrix_tiles`), as
    /// `features` says.
    pub matrix_tiles: Vec<TileShape>,
    /// The driver workarounds a device vyre opens on it lowers its modules with (the options'
    /// set, else `VYRE_WORKAROUNDS`, else the table's for this adapter), or why they cannot be
    /// chosen (a `VYRE_WORKAROUNDS` naming no workaround).
    pub workarounds: Result<Workarounds, String>,
}

/// Every adapter wgpu sees on this machine, best first, marking the one
/// [`crate::WgpuBackend::acquire_with`]`(options)` opens and saying why; `vyre-conform
/// list-adapters` prints this. Nothing is opened: a listed adapter may still refuse a device.
///
/// ```
/// use vyre_driver_wgpu::{AdapterOptions, list_adapters};
///
/// for entry in list_adapters(&AdapterOptions::new()) {
///     let mark = if entry.chosen { "*" } else { " " };
///     println!("{mark} {} ({:?}): {}", entry.info.name, entry.info.backend, entry.reason);
/// }
/// ```
#[must_use]
pub fn list_adapters(options: &AdapterOptions) -> Vec<AdapterEntry> {
    // Every backend this build of wgpu has, so an adapter vyre excludes is still listed, with why.
    let mut desc = wgpu::InstanceDescriptor::new_without_display_handle();
    desc.backends = wgpu::Backends::all();
    let instance = wgpu::Instance::new(desc);
    let (adapters, _) = ranked(&instance, options);
    let candidates = adapters.iter().filter(|(_, e)| e.is_none()).count();
    let preference = match options.power_preference {
        wgpu::PowerPreference::LowPower => {
            "integrated before discrete before virtual before CPU (LowPower)"
        }
        _ => "discrete before integrated before virtual before CPU (HighPerformance)",
    };
    adapters
        .into_iter()
        .enumerate()
        .map(|(i, (adapter, excluded))| {
            let chosen = i == 0 && excluded.is_none();
            let reason = match (&excluded, chosen) {
                (Some(why), _) => format!("excluded: {why}"),
                (None, true) => {
                    format!("chosen: the best of {candidates} candidate(s), ranked {preference}")
                }
                (None, false) => "a candidate, ranked below the chosen one".to_string(),
            };
            let info = adapter.get_info();
            let (features, matrix_tiles) = offered(adapter.features(), &adapter);
            let workarounds = workarounds::in_force(&info, options.workarounds)
                .map(|(set, _)| set)
                .map_err(|e| e.to_string());
            AdapterEntry {
                info,
                excluded,
                chosen,
                reason,
                features,
                matrix_tiles,
                workarounds,
            }
        })
        .collect()
}

/// The one wgpu instance of every backend vyre opens, made on first use and kept for the process.
///
/// wgpu names a buffer by an id within its instance, so a buffer of another instance handed to a
/// device is an id wgpu cannot resolve: a panic inside wgpu, or worse another buffer of this
/// instance that happens to hold the same id. Within one instance wgpu knows each buffer's device
/// and refuses a mismatch with a validation error, which `WgpuBackend::import_buffer` turns into
/// `InvalidConfig`. Keeping one instance also means no instance is ever destroyed beside a device
/// (see `lifecycle`). Callers hold the creation turn.
pub(crate) fn shared_instance() -> wgpu::Instance {
    static INSTANCE: OnceLock<wgpu::Instance> = OnceLock::new();
    INSTANCE
        .get_or_init(|| {
            let mut desc = wgpu::InstanceDescriptor::new_without_display_handle();
            desc.backends = trusted_backends();
            wgpu::Instance::new(desc)
        })
        .clone()
}

/// The wgpu features behind vyre's optional [`Features`], requested whenever the adapter has them.
const OPTIONAL: wgpu::Features = wgpu::Features::SUBGROUP
    .union(wgpu::Features::SHADER_F16)
    .union(wgpu::Features::SHADER_INT64)
    .union(wgpu::Features::SHADER_INT64_ATOMIC_ALL_OPS)
    .union(wgpu::Features::EXPERIMENTAL_COOPERATIVE_MATRIX);

/// The matrix-tile shapes among `properties` (an adapter's cooperative matrix configurations)
/// that vyre lowers: square, sides of 8 or 16 (naga's `coop_mat8x8` and `coop_mat16x16`), `f16`
/// inputs, `f16` or `f32` accumulators. An NVIDIA H200 also lists 16x8x16 and 16x8x8, which
/// WGSL cannot write; they are left out.
pub(crate) fn tile_shapes(properties: &[wgpu::CooperativeMatrixProperties]) -> Vec<TileShape> {
    let scalar = |t: wgpu::CooperativeScalarType| match t {
        wgpu::CooperativeScalarType::F16 => Some(DataType::F16),
        wgpu::CooperativeScalarType::F32 => Some(DataType::F32),
        wgpu::CooperativeScalarType::I32 | wgpu::CooperativeScalarType::U32 => None,
    };
    let mut out: Vec<TileShape> = Vec::new();
    for p in properties {
        let (Some(input), Some(accumulator)) = (scalar(p.ab_type), scalar(p.cr_type)) else {
            continue;
        };
        let shape = TileShape {
            m: p.m_size,
            n: p.n_size,
            k: p.k_size,
            input,
            accumulator,
        };
        let sides = [shape.m, shape.n, shape.k];
        if input == DataType::F16
            && sides
                .iter()
                .all(|s| TILE_SIZES.contains(s) && *s == shape.m)
            && !out.contains(&shape)
        {
            out.push(shape);
        }
    }
    out
}

/// vyre's optional features and tile shapes on a device with the wgpu features `wgpu_features`
/// opened on `adapter` (or offered by it): tiles need wgpu's cooperative matrices, f16 and
/// subgroups, and at least one shape WGSL can write.
fn offered(wgpu_features: wgpu::Features, adapter: &wgpu::Adapter) -> (Features, Vec<TileShape>) {
    let mut features = vyre_features(wgpu_features);
    let matrix_tiles = if wgpu_features.contains(wgpu::Features::EXPERIMENTAL_COOPERATIVE_MATRIX)
        && features.contains(Features::F16 | Features::SUBGROUPS)
    {
        tile_shapes(&adapter.cooperative_matrix_properties())
    } else {
        Vec::new()
    };
    if !matrix_tiles.is_empty() {
        features |= Features::TILES;
    }
    (features, matrix_tiles)
}

/// vyre's optional features among a device's wgpu features.
pub(crate) fn vyre_features(device: wgpu::Features) -> Features {
    let mut features = Features::NONE;
    for (wgpu_feature, feature) in [
        (wgpu::Features::SUBGROUP, Features::SUBGROUPS),
        (wgpu::Features::SHADER_F16, Features::F16),
        (wgpu::Features::SHADER_INT64, Features::INT64),
        (
            wgpu::Features::SHADER_INT64_ATOMIC_ALL_OPS,
            Features::INT64_ATOMICS,
        ),
    ] {
        if device.contains(wgpu_feature) {
            features |= feature;
        }
    }
    features
}

/// Opens a device on `adapter` with its full limits and vyre's handlers, its driver workarounds
/// and its disk pipeline cache as `options` say (the cache loaded from disk anew for every device,
/// recovered ones too). A refusal is [`BackendError::NoDevice`]; recovery, which replaces a device
/// that existed, reports it as a loss.
pub(crate) fn open(
    adapter: wgpu::Adapter,
    generation: u64,
    options: &AdapterOptions,
) -> Result<DeviceState, BackendError> {
    let info = adapter.get_info();
    let (workarounds, _) = workarounds::in_force(&info, options.workarounds)?;
    let passes = crate::passes::in_force(options.passes)?.key();
    let trusted_modules = crate::trusted::in_force(options.trusted_modules)?;
    let limits = adapter.limits();
    let wanted = wgpu::Features::TIMESTAMP_QUERY | wgpu::Features::PIPELINE_CACHE | OPTIONAL;
    let required_features = adapter.features() & wanted;
    let experimental_features =
        if required_features.contains(wgpu::Features::EXPERIMENTAL_COOPERATIVE_MATRIX) {
            #[allow(unsafe_code)]
            // SAFETY: wgpu asks the caller to accept that an experimental feature's implementation
            // may still have bugs. The one experimental feature vyre requests is cooperative
            // matrices, and it uses them only in modules lowered from validated tile programs
            // (`lower/tile.rs`): every tile load and store guarded in the generated code so that
            // its whole footprint lies inside its buffer, in workgroup-uniform control flow with
            // workgroup-uniform operands (the validator), in workgroups of whole subgroups
            // (`vyre_driver::check_tiles`). No other module touches the feature.
            unsafe {
                wgpu::ExperimentalFeatures::enabled()
            }
        } else {
            wgpu::ExperimentalFeatures::disabled()
        };
    let desc = wgpu::DeviceDescriptor {
        label: Some("vyre"),
        required_features,
        required_limits: limits.clone(),
        experimental_features,
        memory_hints: wgpu::MemoryHints::Performance,
        trace: wgpu::Trace::Off,
    };
    // Cooperative matrices are experimental in wgpu: a device refused with them is asked for
    // again without them (no matrix tiles then), so the feature can never cost a user the device.
    let opened = match pollster::block_on(adapter.request_device(&desc)) {
        Err(_) if desc.experimental_features.is_enabled() => {
            let plain = wgpu::DeviceDescriptor {
                required_features: desc.required_features
                    - wgpu::Features::EXPERIMENTAL_COOPERATIVE_MATRIX,
                experimental_features: wgpu::ExperimentalFeatures::disabled(),
                ..desc
            };
            pollster::block_on(adapter.request_device(&plain))
        }
        other => other,
    };
    let (device, queue) = opened.map_err(|e| {
        BackendError::no_device(format!(
            "adapter {} refused a device: {e}. Fix: check the GPU driver, or pick another adapter with {ADAPTER_ENV}.",
            describe(&info)
        ))
    })?;
    Ok(install(
        adapter,
        device,
        queue,
        Install {
            generation,
            owned: true,
            cache_dir: &options.pipeline_cache,
            workarounds,
            passes,
            trusted_modules,
        },
    ))
}

/// Takes over a device the application opened: vyre's loss and error handlers replace the ones it
/// had; vyre never replaces the device itself. It has a disk pipeline cache when the application
/// enabled `Features::PIPELINE_CACHE` on it, and the driver workarounds `VYRE_WORKAROUNDS` or the
/// table give its adapter.
///
/// # Errors
///
/// [`BackendError::InvalidConfig`] when `VYRE_WORKAROUNDS` names no workaround, or `VYRE_PASSES` or
/// `VYRE_TRUSTED_MODULES` is neither `on` nor `off`.
pub(crate) fn adopt(
    adapter: wgpu::Adapter,
    device: wgpu::Device,
    queue: wgpu::Queue,
) -> Result<DeviceState, BackendError> {
    let (workarounds, _) = workarounds::in_force(&adapter.get_info(), None)?;
    let passes = crate::passes::in_force(None)?.key();
    let trusted_modules = crate::trusted::in_force(None)?;
    Ok(install(
        adapter,
        device,
        queue,
        Install {
            generation: 0,
            owned: false,
            cache_dir: &PipelineCacheDir::FromEnv,
            workarounds,
            passes,
            trusted_modules,
        },
    ))
}

/// How [`install`] sets a device up.
struct Install<'a> {
    generation: u64,
    owned: bool,
    cache_dir: &'a PipelineCacheDir,
    workarounds: Workarounds,
    /// The IR passes' key (`Pipeline::key`), part of the disk cache's header.
    passes: String,
    /// Modules without wgpu's bounds checks (`trusted`), part of the disk cache's header.
    trusted_modules: bool,
}

fn install(
    adapter: wgpu::Adapter,
    device: wgpu::Device,
    queue: wgpu::Queue,
    how: Install<'_>,
) -> DeviceState {
    let Install {
        generation,
        owned,
        cache_dir,
        workarounds,
        passes,
        trusted_modules,
    } = how;
    let info = adapter.get_info();
    let disk = DiskCache::open(
        &device,
        &info,
        cache_dir,
        workarounds,
        &passes,
        trusted_modules,
    );
    let limits = device.limits();
    let (features, matrix_tiles) = offered(device.features(), &adapter);
    let lost = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&lost);
    device.set_device_lost_callback(move |_reason, _message| flag.store(true, Ordering::SeqCst));
    let uncaptured = Arc::new(Mutex::new(None));
    let sink = Arc::clone(&uncaptured);
    device.on_uncaptured_error(Arc::new(move |error: wgpu::Error| {
        if let Ok(mut slot) = sink.lock() {
            *slot = Some(error.to_string());
        }
    }));
    let poller = Poller::new(device.clone(), Arc::clone(&lost));
    DeviceState {
        poller,
        adapter,
        device,
        queue,
        info,
        limits,
        features,
        matrix_tiles,
        workarounds,
        trusted_modules,
        lost,
        uncaptured,
        generation,
        owned,
        disk,
        patcher: std::sync::OnceLock::new(),
        teardown: TeardownTurn::default(),
    }
}

impl DeviceState {
    /// Destroys the device for real and polls, so that wgpu's own device-lost callback sets the flag
    /// (tests of recovery, and injected faults).
    pub(crate) fn lose(&self) {
        {
            let _turn = Turn::take();
            self.device.destroy();
        }
        // A destroyed device is lost, whatever wgpu says yet: its device-lost callback runs from a
        // poll only once the queue has drained, and with work queued on other threads that took
        // past `confirm_lost`'s 50 ms, so the loss read as "invalid buffer" errors (vyre bugs) and
        // recovery found nothing to recover. Polling still lets the callback run.
        self.lost.store(true, Ordering::SeqCst);
        let _ = self.confirm_lost();
    }

    /// The device's patch pipeline, made on first use, in error scopes of its own: one that failed
    /// to be made (out of memory, a device being lost) is not kept.
    pub(crate) fn patcher(&self) -> Result<&Patcher, BackendError> {
        if let Some(made) = self.patcher.get() {
            return Ok(made);
        }
        let validation = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let oom = self.device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
        let made = Patcher::new(&self.device);
        let oom = pollster::block_on(oom.pop());
        let validation = pollster::block_on(validation.pop());
        if let Some(e) = oom.or(validation) {
            if self.confirm_lost() {
                return Err(self.lost_error("making the patch pipeline"));
            }
            return Err(BackendError::out_of_memory(format!(
                "making the pipeline that writes part of a word failed: {e}. Fix: free device memory, or write whole 4-byte words."
            )));
        }
        Ok(self.patcher.get_or_init(|| made))
    }

    pub(crate) fn is_lost(&self) -> bool {
        self.lost.load(Ordering::SeqCst)
    }

    /// Polls the device, turning a panic inside wgpu-hal (seen on device errors) into an error.
    pub(crate) fn poll(&self, poll: wgpu::PollType) -> Result<(), BackendError> {
        let result =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.device.poll(poll)));
        match result {
            Ok(Ok(_)) => Ok(()),
            Ok(Err(wgpu::PollError::Timeout)) => Err(BackendError::timeout(
                "the dispatch did not finish within its timeout. Fix: raise `DispatchConfig::timeout` or split the work.",
            )),
            Ok(Err(e)) => Err(self.lost_error(&e.to_string())),
            Err(_) => Err(self.lost_error("wgpu panicked while polling the device")),
        }
    }

    /// True when the device is lost, after polling for up to 50 ms so that a pending device-lost
    /// callback can run. wgpu fires the callback from a poll, not from `destroy()`, so for a moment a
    /// destroyed device fails every operation ("buffer is invalid") while its flag is still clear;
    /// errors are classified only after this settles.
    pub(crate) fn confirm_lost(&self) -> bool {
        let until = std::time::Instant::now() + std::time::Duration::from_millis(50);
        while !self.is_lost() && std::time::Instant::now() < until {
            let _ = self.poll(wgpu::PollType::Poll);
            std::thread::yield_now();
        }
        self.is_lost()
    }

    pub(crate) fn lost_error(&self, what: &str) -> BackendError {
        BackendError::device_lost(format!(
            "the device {} was lost ({what}). Fix: call `try_recover()` (dispatches recover automatically once), and check the driver if it keeps happening.",
            describe(&self.info)
        ))
    }
}

/// The pipeline that edits part of a word on the queue's timeline (`launch::patch`, which says
/// why), made the first time a patch is needed.
pub(crate) struct Patcher {
    pub(crate) pipeline: wgpu::ComputePipeline,
    pub(crate) layout: wgpu::BindGroupLayout,
}

impl std::fmt::Debug for Patcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Patcher")
    }
}

const PATCH_SHADER: &str = "
@group(0) @binding(0) var<storage, read_write> words: array<u32>;
// x: the word's index in the binding, y: the bits kept, z: the new bits.
@group(0) @binding(1) var<storage, read> edit: vec4<u32>;

@compute @workgroup_size(1)
fn main() {
    words[edit.x] = (words[edit.x] & edit.y) | edit.z;
}
";

impl Patcher {
    fn new(device: &wgpu::Device) -> Self {
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("vyre patch"),
            entries: &[storage_entry(0, false), storage_entry(1, true)],
        });
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("vyre patch"),
            bind_group_layouts: &[Some(&layout)],
            immediate_size: 0,
        });
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("vyre patch"),
            source: wgpu::ShaderSource::Wgsl(PATCH_SHADER.into()),
        });
        let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some("vyre patch"),
            layout: Some(&pipeline_layout),
            module: &module,
            entry_point: Some("main"),
            compilation_options: wgpu::PipelineCompilationOptions::default(),
            cache: None,
        });
        Patcher { pipeline, layout }
    }
}

/// A compute-visible storage buffer entry of a bind group layout.
pub(crate) fn storage_entry(binding: u32, read_only: bool) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Storage { read_only },
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    }
}

#[cfg(test)]
mod tests {
    use vyre_foundation::ir::{DataType, TileShape};
    use wgpu::{CooperativeMatrixProperties as P, CooperativeScalarType as S};

    use super::tile_shapes;

    fn p(m: u32, n: u32, k: u32, ab: S, cr: S) -> P {
        P {
            m_size: m,
            n_size: n,
            k_size: k,
            ab_type: ab,
            cr_type: cr,
            saturating_accumulation: false,
        }
    }

    #[test]
    fn the_tile_shapes_are_the_square_f16_ones_the_adapter_lists() {
        // What an NVIDIA H200 lists through wgpu 30 (issue 34), an f32 8x8 and an integer one.
        let listed = [
            p(16, 16, 16, S::F16, S::F16),
            p(16, 16, 16, S::F16, S::F32),
            p(16, 8, 16, S::F16, S::F32),
            p(16, 8, 8, S::F16, S::F32),
            p(8, 8, 8, S::F32, S::F32),
            p(16, 16, 16, S::I32, S::I32),
            p(16, 16, 16, S::F16, S::F32),
        ];
        let shape = |accumulator| TileShape {
            m: 16,
            n: 16,
            k: 16,
            input: DataType::F16,
            accumulator,
        };
        assert_eq!(
            tile_shapes(&listed),
            [shape(DataType::F16), shape(DataType::F32)]
        );
        assert!(tile_shapes(&[]).is_empty());
    }
}
