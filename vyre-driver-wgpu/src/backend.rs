//! `WgpuBackend`: the device, the pipeline cache, the buffer pool, plain dispatch, and recovery.
//!
//! The backend owns every piece of shared state; the layers below it (device, pool, pipeline, launch,
//! cache) never see it, and get only what one call needs (a [`LaunchContext`] for a launch).

mod asynch;
pub(crate) mod form;
mod grid;
mod recovery;
mod resident;
mod split;

use std::borrow::Cow;
use std::sync::{Arc, Mutex, RwLock};
use std::time::Instant;

use vyre_driver::{BackendError, DispatchConfig, DispatchPlan, InstanceId};
use vyre_foundation::ir::Program;
use vyre_foundation::validate::Validated;

use crate::cache::{CACHE_LIMIT, PipelineCache, PipelineKey};
use crate::device::{self, AdapterOptions, DeviceState};
use crate::disk::DiskCacheStatus;
use crate::known::{Known, KnownPrograms};
#[cfg(feature = "fault-injection")]
use crate::launch::FaultPoint;
use crate::launch::{
    self, BufferSpec, Faults, Init, Job, LaunchContext, Readback, job_buffers, poisoned,
};
use crate::lifecycle::{TeardownTurn, Turn};
use crate::lower::{self, Form};
use crate::pipeline::{self, Compiled};
use crate::pool::{self, BufferPool};
use crate::stats::{Counters, Phase, PoolCounts, WgpuStats};

pub(crate) use grid::fold_grid;

struct Shared {
    instance: wgpu::Instance,
    /// How the adapter was chosen (recovery chooses again the same way).
    options: AdapterOptions,
    state: RwLock<Arc<DeviceState>>,
    cache: Mutex<PipelineCache>,
    /// The IR passes every program goes through before lowering (`passes`).
    passes: vyre_foundation::pass::Pipeline,
    /// `passes.key()`, and its XXH3-64, part of every pipeline cache key.
    passes_key: String,
    passes_id: u64,
    /// The programs dispatched lately, so that a repeated dispatch skips validation and analysis.
    known: KnownPrograms,
    pool: Arc<Mutex<BufferPool>>,
    counters: Counters,
    recovery: Mutex<()>,
    faults: Faults,
    /// Marks the `DeviceBuffer`s this backend (and its clones) made.
    owner: InstanceId,
    /// Held while the fields above are dropped (declared last so it outlives them): the instance,
    /// the device and the pooled buffers go one backend at a time (see `lifecycle`).
    teardown: TeardownTurn,
}

impl Drop for Shared {
    fn drop(&mut self) {
        self.teardown.take();
    }
}

/// The wgpu backend. Cheap to clone (clones share the device, cache and pool); `Send + Sync`, so many
/// threads may dispatch at once.
///
/// ```
/// use vyre_driver::{DispatchConfig, VyreBackend};
/// use vyre_driver_wgpu::WgpuBackend;
/// use vyre_foundation::ir::{BufferDecl, DataType, Expr, Node, Program};
///
/// let Ok(backend) = WgpuBackend::acquire() else {
///     return Ok(()); // no Vulkan, Metal or DX12 adapter on this machine
/// };
/// println!("on {}", backend.adapter_name());
/// let program = Program::new(
///     vec![BufferDecl::output("out", 0, DataType::U32).with_count(4)],
///     [64, 1, 1],
///     vec![Node::store("out", Expr::gid_x(), Expr::mul(Expr::gid_x(), Expr::u32(10)))],
/// );
/// let outputs = backend.dispatch(&program, &[], &DispatchConfig::default())?;
/// assert_eq!(outputs[0][4..8], 10u32.to_le_bytes());
/// // The second dispatch of the same program reuses its pipeline.
/// backend.dispatch(&program, &[], &DispatchConfig::default())?;
/// assert_eq!(backend.stats().pipelines_created, 1);
/// # Ok::<(), vyre_driver::BackendError>(())
/// ```
#[derive(Clone)]
pub struct WgpuBackend {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for WgpuBackend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WgpuBackend")
            .field("adapter", &self.adapter_name())
            .finish_non_exhaustive()
    }
}

impl WgpuBackend {
    /// Opens the best adapter: discrete GPU, then integrated, then a CPU driver such as lavapipe; never
    /// the GL backend. `VYRE_WGPU_ADAPTER=<substring>` picks an adapter by name.
    ///
    /// # Errors
    ///
    /// [`BackendError::NoDevice`] when no adapter or device is available, with a `Fix:` saying how to
    /// get one (never [`BackendError::DeviceLost`], so a recovery loop does not retry forever).
    ///
    /// ```
    /// let backend = match vyre_driver_wgpu::WgpuBackend::acquire() {
    ///     Ok(backend) => backend,
    ///     Err(e) => {
    ///         // `NoDevice`, with a `Fix:` (install a Vulkan driver, or unset VYRE_WGPU_ADAPTER).
    ///         eprintln!("{e}");
    ///         return;
    ///     }
    /// };
    /// println!("{:?}", backend.adapter_info().map(|info| info.device_type));
    /// ```
    pub fn acquire() -> Result<Self, BackendError> {
        Self::acquire_with(&AdapterOptions::default())
    }

    /// Opens the best adapter as `options` say (power preference, a name filter).
    ///
    /// ```
    /// use vyre_driver_wgpu::{AdapterOptions, WgpuBackend, wgpu};
    ///
    /// let options = AdapterOptions::new().with_power_preference(wgpu::PowerPreference::LowPower);
    /// match WgpuBackend::acquire_with(&options) {
    ///     Ok(backend) => println!("running on {}", backend.adapter_name()),
    ///     Err(e) => println!("no adapter here: {e}"),
    /// }
    /// ```
    ///
    /// # Errors
    ///
    /// As [`WgpuBackend::acquire`].
    pub fn acquire_with(options: &AdapterOptions) -> Result<Self, BackendError> {
        let _turn = Turn::take();
        let instance = device::shared_instance();
        let adapter = device::pick_adapter(&instance, options)?;
        let state = device::open(adapter, 0, options)?;
        Self::with_state(instance, options.clone(), state)
    }

    /// One backend per usable adapter of this machine, best first: every GPU (each physical device
    /// once, even when it shows up on several wgpu backends), or the CPU drivers when there is no
    /// GPU. `VYRE_WGPU_ADAPTER=<substring>` filters them as it does for [`WgpuBackend::acquire`].
    /// Hand them to `vyre::Sharded` to spread work over every GPU of a host.
    ///
    /// # Errors
    ///
    /// [`BackendError::NoDevice`] when no adapter is usable or an adapter refuses its device.
    ///
    /// ```
    /// use vyre_driver_wgpu::WgpuBackend;
    ///
    /// match WgpuBackend::acquire_all() {
    ///     Ok(all) => {
    ///         assert!(!all.is_empty()); // never an empty list: no adapter is an error
    ///         for backend in &all {
    ///             println!("{}", backend.adapter_name());
    ///         }
    ///     }
    ///     Err(e) => println!("no adapter here: {e}"),
    /// }
    /// ```
    pub fn acquire_all() -> Result<Vec<Self>, BackendError> {
        Self::acquire_all_with(&AdapterOptions::default())
    }

    /// [`WgpuBackend::acquire_all`] as `options` say (power preference, a name filter, the disk
    /// pipeline cache).
    ///
    /// # Errors
    ///
    /// As [`WgpuBackend::acquire_all`].
    ///
    /// ```
    /// use vyre_driver_wgpu::{AdapterOptions, WgpuBackend};
    ///
    /// // Every adapter whose name contains "nvidia".
    /// let options = AdapterOptions::new().with_name("nvidia");
    /// match WgpuBackend::acquire_all_with(&options) {
    ///     Ok(all) => println!("{} NVIDIA device(s)", all.len()),
    ///     Err(e) => assert_eq!(e.kind_name(), "NoDevice"),
    /// }
    /// ```
    pub fn acquire_all_with(options: &AdapterOptions) -> Result<Vec<Self>, BackendError> {
        let _turn = Turn::take();
        let instance = device::shared_instance();
        device::usable_adapters(&instance, options)?
            .into_iter()
            .map(|adapter| {
                let state = device::open(adapter, 0, options)?;
                Self::with_state(instance.clone(), options.clone(), state)
            })
            .collect()
    }

    /// `count` backends, each with a device of its own, all on the adapter [`WgpuBackend::acquire_with`]
    /// would open: independent devices (own queue, pipeline cache, buffer pool and device-loss
    /// recovery) that share one physical device. For sharding on a machine with one adapter (a test
    /// on lavapipe, the harness on one GPU); they add no compute a single backend lacks.
    ///
    /// # Errors
    ///
    /// As [`WgpuBackend::acquire_with`]; [`BackendError::InvalidConfig`] for a `count` of zero.
    ///
    /// ```
    /// use vyre_driver::VyreBackend;
    /// use vyre_driver_wgpu::{AdapterOptions, WgpuBackend};
    ///
    /// let Ok(two) = WgpuBackend::acquire_devices(&AdapterOptions::new(), 2) else { return Ok(()) };
    /// assert_eq!(two.len(), 2);
    /// // Independent devices: losing one leaves the other as it was.
    /// two[0].force_device_lost()?;
    /// assert!(two[0].device_lost() && !two[1].device_lost());
    /// # Ok::<(), vyre_driver::BackendError>(())
    /// ```
    pub fn acquire_devices(
        options: &AdapterOptions,
        count: usize,
    ) -> Result<Vec<Self>, BackendError> {
        if count == 0 {
            return Err(BackendError::invalid_config(
                "acquire_devices was asked for 0 devices. Fix: ask for at least one.",
            ));
        }
        let _turn = Turn::take();
        let instance = device::shared_instance();
        let adapter = device::pick_adapter(&instance, options)?;
        (0..count)
            .map(|_| {
                let state = device::open(adapter.clone(), 0, options)?;
                Self::with_state(instance.clone(), options.clone(), state)
            })
            .collect()
    }

    /// A backend on a device the application opened itself, so vyre's dispatches and the
    /// application's own passes share it (and its buffers: see [`WgpuBackend::import_buffer`] and
    /// [`WgpuBackend::wgpu_buffer`]). Caches and pools work as usual. vyre installs its own
    /// device-lost callback and uncaptured-error handler on `device`. After a loss of this device
    /// vyre does not open another behind the application's back: calls report
    /// [`BackendError::DeviceLost`], saying to hand over a new device.
    ///
    /// ```
    /// use vyre_driver_wgpu::{WgpuBackend, wgpu};
    ///
    /// let instance = wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle());
    /// let Ok(adapter) = pollster::block_on(instance.request_adapter(&Default::default())) else {
    ///     return Ok(()); // no adapter on this machine
    /// };
    /// let (device, queue) =
    ///     pollster::block_on(adapter.request_device(&Default::default())).expect("a device");
    /// let backend = WgpuBackend::from_device(adapter, device, queue)?;
    /// println!("vyre shares {}", backend.adapter_name());
    /// # Ok::<(), vyre_driver::BackendError>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`BackendError::NoDevice`] for a GL adapter, whose WGSL translation breaks vyre's integer
    /// rules.
    pub fn from_device(
        adapter: wgpu::Adapter,
        device: wgpu::Device,
        queue: wgpu::Queue,
    ) -> Result<Self, BackendError> {
        let info = adapter.get_info();
        if info.backend == wgpu::Backend::Gl {
            return Err(BackendError::no_device(format!(
                "adapter {} runs on wgpu's GL backend, which breaks WGSL's integer rules. Fix: open the device on Vulkan, Metal or DX12.",
                device::describe(&info)
            )));
        }
        let _turn = Turn::take();
        let instance = device::shared_instance();
        let state = device::adopt(adapter, device, queue)?;
        Self::with_state(instance, AdapterOptions::default(), state)
    }

    fn with_state(
        instance: wgpu::Instance,
        options: AdapterOptions,
        state: DeviceState,
    ) -> Result<Self, BackendError> {
        let pool_limit = pool::pool_limit(&state.limits, pool::host_memory_bytes());
        let passes = crate::passes::in_force(options.passes)?;
        let passes_key = passes.key();
        let passes_id = xxhash_rust::xxh3::xxh3_64(passes_key.as_bytes());
        Ok(Self {
            shared: Arc::new(Shared {
                instance,
                options,
                passes,
                passes_key,
                passes_id,
                state: RwLock::new(Arc::new(state)),
                cache: Mutex::new(PipelineCache::new(CACHE_LIMIT)),
                known: KnownPrograms::default(),
                pool: Arc::new(Mutex::new(BufferPool::new(pool_limit))),
                counters: Counters::default(),
                recovery: Mutex::new(()),
                faults: Faults::default(),
                owner: InstanceId::fresh(),
                teardown: TeardownTurn::default(),
            }),
        })
    }

    /// The device dispatches run on now.
    pub(crate) fn state(&self) -> Result<Arc<DeviceState>, BackendError> {
        self.shared
            .state
            .read()
            .map(|s| Arc::clone(&s))
            .map_err(|_| poisoned())
    }

    /// The counters launches and engines bump.
    pub(crate) fn counters(&self) -> &Counters {
        &self.shared.counters
    }

    /// What a launch on the device `state` needs of this backend: its pool, counters and faults.
    pub(crate) fn context<'a>(&'a self, state: &'a Arc<DeviceState>) -> LaunchContext<'a> {
        LaunchContext {
            state,
            pool: &self.shared.pool,
            counters: &self.shared.counters,
            faults: &self.shared.faults,
        }
    }

    /// Runs `job` on `compiled` on the device `state`, with this backend's pool, counters and faults.
    pub(crate) fn launch(
        &self,
        state: &Arc<DeviceState>,
        compiled: &Compiled,
        job: Job<'_>,
    ) -> Result<Vec<Vec<u8>>, BackendError> {
        launch::run(self.context(state), compiled, job)
    }

    /// The adapter's name and type, e.g. `NVIDIA H200 (Vulkan, DiscreteGpu)`.
    ///
    /// ```
    /// use vyre_driver::VyreBackend;
    /// use vyre_driver_wgpu::WgpuBackend;
    ///
    /// let Ok(backend) = WgpuBackend::acquire() else { return Ok(()) };
    /// let info = backend.adapter_info()?;
    /// assert!(backend.adapter_name().starts_with(&info.name));
    /// assert_eq!(backend.capabilities().device_name, backend.adapter_name());
    /// # Ok::<(), vyre_driver::BackendError>(())
    /// ```
    #[must_use]
    pub fn adapter_name(&self) -> String {
        self.state()
            .map(|s| device::describe(&s.info))
            .unwrap_or_default()
    }

    /// The IR passes every program goes through before lowering, as [`Pipeline::key`] names them
    /// (`name@version` joined by `,`; empty when they are off: see [`AdapterOptions::with_passes`]).
    ///
    /// [`Pipeline::key`]: vyre_foundation::pass::Pipeline::key
    ///
    /// ```
    /// use vyre_driver_wgpu::WgpuBackend;
    ///
    /// let Ok(backend) = WgpuBackend::acquire() else { return };
    /// println!("{}: passes {}", backend.adapter_name(), backend.passes());
    /// ```
    #[must_use]
    pub fn passes(&self) -> &str {
        &self.shared.passes_key
    }

    /// The driver workarounds the current device lowers its modules with (see
    /// [`crate::workarounds`]): those the adapter's entries in [`crate::workarounds::DRIVER_BUGS`]
    /// prescribe, unless [`AdapterOptions::with_workarounds`] or `VYRE_WORKAROUNDS` chose others.
    ///
    /// ```
    /// use vyre_driver_wgpu::{WgpuBackend, Workarounds};
    ///
    /// let Ok(backend) = WgpuBackend::acquire() else { return };
    /// println!("{}: workarounds {}", backend.adapter_name(), backend.workarounds());
    /// # let _: Workarounds = backend.workarounds();
    /// ```
    #[must_use]
    pub fn workarounds(&self) -> crate::workarounds::Workarounds {
        self.state().map(|s| s.workarounds).unwrap_or_default()
    }

    /// Whether the current device compiles vyre's modules without wgpu's runtime bounds checks
    /// ([`AdapterOptions::with_trusted_modules`], `VYRE_TRUSTED_MODULES`; on by default).
    ///
    /// ```
    /// use vyre_driver_wgpu::WgpuBackend;
    ///
    /// let Ok(backend) = WgpuBackend::acquire() else { return };
    /// println!("{}: trusted modules {}", backend.adapter_name(), backend.trusted_modules());
    /// ```
    #[must_use]
    pub fn trusted_modules(&self) -> bool {
        self.state().is_ok_and(|s| s.trusted_modules)
    }

    /// The wgpu device dispatches run on now, to create buffers for [`WgpuBackend::import_buffer`]
    /// or to record the application's own work on it.
    ///
    /// # Errors
    ///
    /// Only when an internal lock was poisoned.
    ///
    /// ```
    /// use vyre_driver::VyreBackend;
    /// use vyre_driver_wgpu::WgpuBackend;
    ///
    /// let Ok(backend) = WgpuBackend::acquire() else { return Ok(()) };
    /// let device = backend.wgpu_device()?;
    /// // The very device vyre runs on: its limits are the backend's capabilities.
    /// let limits = device.limits();
    /// let caps = backend.capabilities();
    /// assert_eq!(caps.max_workgroups_per_dimension, limits.max_compute_workgroups_per_dimension);
    /// assert_eq!(caps.max_storage_buffer_bytes, limits.max_storage_buffer_binding_size);
    /// # Ok::<(), vyre_driver::BackendError>(())
    /// ```
    pub fn wgpu_device(&self) -> Result<wgpu::Device, BackendError> {
        Ok(self.state()?.device.clone())
    }

    /// The queue of the device vyre runs on (see [`WgpuBackend::wgpu_device`]): for submitting
    /// work of your own next to vyre's.
    ///
    /// # Errors
    ///
    /// Only when an internal lock was poisoned.
    pub fn wgpu_queue(&self) -> Result<wgpu::Queue, BackendError> {
        Ok(self.state()?.queue.clone())
    }

    /// The adapter the device vyre runs on was opened on.
    ///
    /// # Errors
    ///
    /// Only when an internal lock was poisoned.
    pub fn wgpu_adapter(&self) -> Result<wgpu::Adapter, BackendError> {
        Ok(self.state()?.adapter.clone())
    }

    /// The adapter's full information.
    ///
    /// # Errors
    ///
    /// Only when an internal lock was poisoned.
    ///
    /// ```
    /// use vyre_driver_wgpu::{WgpuBackend, wgpu};
    ///
    /// let Ok(backend) = WgpuBackend::acquire() else { return Ok(()) };
    /// let info = backend.adapter_info()?;
    /// assert_ne!(info.backend, wgpu::Backend::Gl); // vyre never opens a GL adapter
    /// if info.device_type == wgpu::DeviceType::Cpu {
    ///     println!("running on a CPU driver ({}): fine for tests, slow for work", info.name);
    /// }
    /// # Ok::<(), vyre_driver::BackendError>(())
    /// ```
    pub fn adapter_info(&self) -> Result<wgpu::AdapterInfo, BackendError> {
        Ok(self.state()?.info.clone())
    }

    /// The backend's counters (see [`WgpuStats`] for each).
    ///
    /// ```
    /// use vyre_driver::{DispatchConfig, VyreBackend};
    /// use vyre_driver_wgpu::WgpuBackend;
    /// use vyre_foundation::ir::{BufferDecl, DataType, Expr, Node, Program};
    ///
    /// let Ok(backend) = WgpuBackend::acquire() else { return Ok(()) };
    /// let program = Program::new(
    ///     vec![BufferDecl::output("o", 0, DataType::U32).with_count(64)],
    ///     [64, 1, 1],
    ///     vec![Node::store("o", Expr::gid_x(), Expr::u32(1))],
    /// );
    /// let before = backend.stats();
    /// backend.dispatch(&program, &[], &DispatchConfig::default())?;
    /// backend.dispatch(&program, &[], &DispatchConfig::default())?;
    /// let after = backend.stats();
    /// // Compiled once, found in the cache the second time, one submit per dispatch.
    /// assert_eq!(after.cache_misses - before.cache_misses, 1);
    /// assert_eq!(after.cache_hits - before.cache_hits, 1);
    /// assert_eq!(after.submits - before.submits, 2);
    /// # Ok::<(), vyre_driver::BackendError>(())
    /// ```
    #[must_use]
    pub fn stats(&self) -> WgpuStats {
        let cache = self
            .shared
            .cache
            .lock()
            .map(|c| c.counts())
            .unwrap_or_default();
        let mut pool = self
            .shared
            .pool
            .lock()
            .map(|p| PoolCounts {
                bytes_held: p.held_bytes(),
                buffers_held: p.held_buffers(),
                bytes_limit: p.limit_bytes(),
                reclaims_pending: 0,
            })
            .unwrap_or_default();
        pool.reclaims_pending = self
            .state()
            .map_or(0, |state| state.poller.reclaims_pending());
        self.shared.counters.snapshot(cache, pool)
    }

    /// What the current device's disk pipeline cache did: its file, how it was loaded (or why it was
    /// ignored) and how many saves it made. See [`PipelineCacheDir`](crate::PipelineCacheDir).
    ///
    /// ```
    /// use vyre_driver_wgpu::{AdapterOptions, DiskCacheLoad, PipelineCacheDir, WgpuBackend};
    ///
    /// let options = AdapterOptions::new().with_pipeline_cache(PipelineCacheDir::Off);
    /// let Ok(backend) = WgpuBackend::acquire_with(&options) else { return };
    /// let status = backend.disk_cache();
    /// assert!(matches!(status.load, DiskCacheLoad::Off(_)));
    /// assert_eq!((status.path, status.saves), (None, 0));
    /// ```
    #[must_use]
    pub fn disk_cache(&self) -> DiskCacheStatus {
        match self.state() {
            Ok(state) => state.disk.status(),
            Err(_) => DiskCacheStatus::unavailable("an internal lock was poisoned"),
        }
    }

    /// Saves the disk pipeline cache now when pipelines were compiled since its last save (it is
    /// also saved when the backend is dropped, and at most every two seconds after compiles). True
    /// when a file was written; a failure is logged as a warning, never returned.
    ///
    /// ```
    /// use vyre_driver::{DispatchConfig, VyreBackend};
    /// use vyre_driver_wgpu::{AdapterOptions, PipelineCacheDir, WgpuBackend};
    /// use vyre_foundation::ir::{BufferDecl, DataType, Expr, Node, Program};
    ///
    /// let dir = std::env::temp_dir().join(format!("vyre-doc-save-{}", std::process::id()));
    /// let options = AdapterOptions::new().with_pipeline_cache(PipelineCacheDir::At(dir.clone()));
    /// let Ok(backend) = WgpuBackend::acquire_with(&options) else { return Ok(()) };
    /// let program = Program::new(
    ///     vec![BufferDecl::output("o", 0, DataType::U32).with_count(4)],
    ///     [64, 1, 1],
    ///     vec![Node::store("o", Expr::gid_x(), Expr::u32(0x5a7e))],
    /// );
    /// backend.dispatch(&program, &[], &DispatchConfig::default())?;
    /// // A file is written only when the device keeps a disk cache (Vulkan)...
    /// let has_cache = backend.disk_cache().path.is_some();
    /// assert_eq!(backend.save_pipeline_cache(), has_cache);
    /// // ...and only when something was compiled since the last save.
    /// assert!(!backend.save_pipeline_cache());
    /// if let Some(path) = backend.disk_cache().path {
    ///     assert!(path.starts_with(&dir) && path.exists());
    /// }
    /// drop(backend);
    /// let _ = std::fs::remove_dir_all(&dir);
    /// # Ok::<(), vyre_driver::BackendError>(())
    /// ```
    pub fn save_pipeline_cache(&self) -> bool {
        self.state().is_ok_and(|state| state.disk.save(true))
    }

    /// Which device this is: 0 for the first, bumped by every recovery.
    ///
    /// ```
    /// use vyre_driver::VyreBackend;
    /// use vyre_driver_wgpu::WgpuBackend;
    ///
    /// let Ok(backend) = WgpuBackend::acquire() else { return Ok(()) };
    /// assert_eq!(backend.device_generation(), 0);
    /// backend.force_device_lost()?;
    /// backend.try_recover()?;
    /// assert_eq!(backend.device_generation(), 1);
    /// # Ok::<(), vyre_driver::BackendError>(())
    /// ```
    #[must_use]
    pub fn device_generation(&self) -> u64 {
        self.state().map(|s| s.generation).unwrap_or(0)
    }

    /// Destroys the device for real (tests of recovery): the device-lost callback wgpu fires is what
    /// sets [`vyre_driver::VyreBackend::device_lost`].
    ///
    /// # Errors
    ///
    /// Only when an internal lock was poisoned.
    ///
    /// ```
    /// use vyre_driver::{DispatchConfig, VyreBackend};
    /// use vyre_driver_wgpu::WgpuBackend;
    /// use vyre_foundation::ir::{BufferDecl, DataType, Expr, Node, Program};
    ///
    /// let Ok(backend) = WgpuBackend::acquire() else { return Ok(()) };
    /// let program = Program::new(
    ///     vec![BufferDecl::output("o", 0, DataType::U32).with_count(4)],
    ///     [64, 1, 1],
    ///     vec![Node::store("o", Expr::gid_x(), Expr::u32(3))],
    /// );
    /// backend.force_device_lost()?;
    /// assert!(backend.device_lost());
    /// // Either recover explicitly with `try_recover`, or let the next dispatch do it.
    /// let outputs = backend.dispatch(&program, &[], &DispatchConfig::default())?;
    /// assert_eq!(outputs[0][12..16], 3u32.to_le_bytes());
    /// assert!(!backend.device_lost());
    /// assert_eq!(backend.stats().recoveries, 1);
    /// # Ok::<(), vyre_driver::BackendError>(())
    /// ```
    pub fn force_device_lost(&self) -> Result<(), BackendError> {
        self.state()?.lose();
        Ok(())
    }

    /// Makes the device get lost at `point` of the next launch (fault-injection for tests; needs the
    /// `fault-injection` feature).
    #[cfg(feature = "fault-injection")]
    #[doc(hidden)]
    pub fn inject_fault(&self, point: FaultPoint) {
        self.inject_fault_after(0, point);
    }

    /// Makes the device get lost at `point` of the launch after the next `skip` launches
    /// (fault-injection for tests: a loss in the middle of a run of several launches; needs the
    /// `fault-injection` feature).
    #[cfg(feature = "fault-injection")]
    #[doc(hidden)]
    pub fn inject_fault_after(&self, skip: u32, point: FaultPoint) {
        self.shared.faults.arm(skip, point);
    }

    /// The known program equal to `program`: the kept one, or `program` validated and analysed now
    /// (each counted in [`WgpuStats`]) and kept.
    ///
    /// # Errors
    ///
    /// [`BackendError::InvalidProgram`] for an invalid program.
    pub(crate) fn known(&self, program: &Program) -> Result<Arc<Known>, BackendError> {
        if let Some(known) = self.shared.known.find(program)? {
            return Ok(known);
        }
        let evidence = self.validate(program)?;
        self.known_validated(&evidence)
    }

    /// The known program of a program the caller validated (the driver's shared checks did).
    pub(crate) fn known_validated(
        &self,
        evidence: &Validated<'_>,
    ) -> Result<Arc<Known>, BackendError> {
        self.shared
            .known
            .of(evidence, &self.shared.passes, &self.shared.counters)
    }

    /// The known program equal to `program`, if the backend knows one (see `known`).
    ///
    /// # Errors
    ///
    /// Only when an internal lock was poisoned.
    pub(crate) fn find_known(&self, program: &Program) -> Result<Option<Arc<Known>>, BackendError> {
        self.shared.known.find(program)
    }

    /// Runs `validation`, counted in [`WgpuStats::validations`] and timed as the compile step
    /// `validate`.
    fn counted_validation<T>(&self, validation: impl FnOnce() -> T) -> T {
        let counters = &self.shared.counters;
        crate::stats::bump(&counters.validations, 1);
        let start = std::time::Instant::now();
        let result = validation();
        counters.step(crate::stats::Step::Validate, start);
        result
    }

    /// The driver's `prepare` (validation, then the plan) of a program the backend does not know,
    /// counted and timed as a validation.
    ///
    /// # Errors
    ///
    /// As `vyre_driver::prepare`.
    pub(crate) fn prepare<'p>(
        &self,
        program: &'p Program,
        inputs: &[Vec<u8>],
        config: &DispatchConfig,
    ) -> Result<(Validated<'p>, DispatchPlan), BackendError> {
        self.counted_validation(|| vyre_driver::prepare(program, inputs, config))
    }

    /// `program` validated, counted in [`WgpuStats::validations`].
    ///
    /// # Errors
    ///
    /// [`BackendError::InvalidProgram`] for an invalid program.
    pub(crate) fn validate<'p>(&self, program: &'p Program) -> Result<Validated<'p>, BackendError> {
        Ok(self.counted_validation(|| vyre_foundation::validate(program))?)
    }

    /// The pipeline of the known program in `form` on the device `state`: the cached one, or
    /// compiled now from the kept evidence and facts (after the device's features are checked
    /// against the program's: a cached pipeline passed that check when it was compiled on the
    /// same device). The cache needs no comparison of programs: a known program is the program
    /// its fingerprint was taken from.
    ///
    /// # Errors
    ///
    /// [`BackendError::Unsupported`] for a program needing features the device lacks;
    /// [`BackendError::Compile`] or [`BackendError::LimitExceeded`] when the device cannot run it.
    pub(crate) fn get_or_compile(
        &self,
        state: &DeviceState,
        known: &Arc<Known>,
        form: Form,
    ) -> Result<Arc<Compiled>, BackendError> {
        let key = PipelineKey {
            fingerprint: known.fingerprint,
            form,
            workarounds: state.workarounds,
            passes: self.shared.passes_id,
            trusted_modules: state.trusted_modules,
            generation: state.generation,
        };
        if let Some(hit) = self.shared.cache.lock().map_err(|_| poisoned())?.get(&key) {
            return Ok(hit);
        }
        vyre_driver::require_features(&state.info.name, state.features, known.features())?;
        if known
            .features()
            .contains(vyre_foundation::ir::Features::TILES)
        {
            // What `check_tiles` reads of the capabilities: the shapes and subgroup sizes.
            let mut caps = vyre_driver::Capabilities::unlimited(state.info.name.clone());
            caps.matrix_tiles = state.matrix_tiles.clone();
            caps.subgroup_sizes = [state.info.subgroup_min_size, state.info.subgroup_max_size];
            vyre_driver::check_tiles(&caps, &known.validated()?)?;
        }
        let compiled = Arc::new(pipeline::compile(
            state,
            known,
            form,
            &self.shared.counters,
        )?);
        self.shared
            .cache
            .lock()
            .map_err(|_| poisoned())?
            .insert(key, Arc::clone(&compiled));
        Ok(compiled)
    }

    /// One attempt at a dispatch of the known program as `plan` says.
    pub(crate) fn execute_known(
        &self,
        known: &Arc<Known>,
        plan: &DispatchPlan,
        inputs: &[Vec<u8>],
        config: &DispatchConfig,
    ) -> Result<Vec<Vec<u8>>, BackendError> {
        let state = self.state()?;
        let ctx = self.context(&state);
        self.start_known(&state, known, plan, inputs, config, launch::Staging::Ring)?
            .wait(ctx)
    }

    /// One attempt at a dispatch of the known program as `plan` says, on the device `state`, up to
    /// its submit: the launch is under way when this returns (see `launch::start`).
    pub(crate) fn start_known(
        &self,
        state: &Arc<DeviceState>,
        known: &Arc<Known>,
        plan: &DispatchPlan,
        inputs: &[Vec<u8>],
        config: &DispatchConfig,
        staging: launch::Staging,
    ) -> Result<launch::InFlight, BackendError> {
        let started = Instant::now();
        let program = known.program();
        let per_piece = split::piece_elements(state, program, &known.facts, plan)?;
        let limits = &state.limits;
        // Pooled buffers come in power-of-two sizes of at least 256 bytes, so whole rows need only
        // fit the binding and buffer limits.
        let launch = match per_piece {
            Some(_) => form::split(plan),
            None => form::choose(
                &known.facts,
                program,
                plan,
                limits.max_compute_workgroups_per_dimension,
                |_, bytes| {
                    bytes <= limits.max_storage_buffer_binding_size
                        && bytes <= limits.max_buffer_size
                },
            )?,
        };
        let compiled = self.get_or_compile(state, known, launch.form)?;
        let workgroup_x = program.workgroup_size[0];
        let buffers = job_buffers(&compiled, Readback::Declared, |b| {
            let resolved = plan.buffers[b.buffer_index];
            let overwritten = compiled.fully_written().contains(&b.buffer_index)
                && lower::covers(plan.grid[0], workgroup_x, resolved.element_count);
            let init = match resolved.input {
                Some(i) => Init::Bytes(Cow::Borrowed(inputs[i].as_slice())),
                None if overwritten => Init::Overwritten,
                None => Init::Zero,
            };
            Ok(BufferSpec {
                elements: resolved.element_count,
                init,
            })
        })?;
        let pieces = match per_piece {
            Some(n) => {
                let bytes: Vec<u64> = buffers.iter().map(|b| b.bytes).collect();
                split::pieces(state, &compiled, plan, &bytes, n)?
            }
            None => launch.pieces(plan)?,
        };
        let job = Job {
            buffers,
            pieces,
            items: None,
            timeout: config.timeout,
        };
        self.counters().lap(Phase::Prepare, started);
        launch::start(self.context(state), &compiled, job, staging)
    }
}
