//! `WgpuBackend`: the device, the pipeline cache, the buffer pool, and plain dispatch.

use std::collections::HashMap;
use std::ops::Range;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, RwLock};

use vyre_driver::{
    BackendError, Capabilities, DispatchConfig, DispatchPlan, VyreBackend, plan_dispatch,
};
use vyre_foundation::ir::{BufferAccess, BufferDecl, Program};

use crate::device::{self, DeviceState};
use crate::exec::{self, FaultPoint, Init, Job, JobBuffer, poisoned};
use crate::lifecycle::{TeardownTurn, Turn};
use crate::lower::{self, BindingKind, LowerOptions};
use crate::pipeline::{self, PipelineKey, WgpuPipeline};
use crate::pool::BufferPool;
use crate::stats::{Counters, WgpuStats, bump};

/// The most pipelines the cache keeps.
const CACHE_LIMIT: usize = 256;

pub(crate) struct Shared {
    instance: wgpu::Instance,
    state: RwLock<Arc<DeviceState>>,
    cache: Mutex<HashMap<PipelineKey, Arc<WgpuPipeline>>>,
    pub(crate) pool: Mutex<BufferPool>,
    pub(crate) counters: Counters,
    recovery: Mutex<()>,
    /// An injected fault: the launches to let pass first, and where the device is then lost.
    fault: Mutex<Option<(u32, FaultPoint)>>,
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
#[derive(Clone)]
pub struct WgpuBackend {
    pub(crate) shared: Arc<Shared>,
}

impl std::fmt::Debug for WgpuBackend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WgpuBackend")
            .field("adapter", &self.adapter_name())
            .finish_non_exhaustive()
    }
}

impl Shared {
    /// The fault injected for this launch, if any; counts down the launches to let pass.
    pub(crate) fn take_fault(&self) -> Option<FaultPoint> {
        let mut fault = self.fault.lock().ok()?;
        match fault.as_mut() {
            Some((0, point)) => {
                let point = *point;
                *fault = None;
                Some(point)
            }
            Some((skip, _)) => {
                *skip -= 1;
                None
            }
            None => None,
        }
    }

    /// Destroys the device and polls, so that wgpu's own device-lost callback sets the flag.
    pub(crate) fn lose_device(&self, state: &DeviceState) {
        {
            let _turn = Turn::take();
            state.device.destroy();
        }
        // Polling is what runs wgpu's device-lost callback; the flag is the callback's to set.
        let _ = state.confirm_lost();
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
    pub fn acquire() -> Result<Self, BackendError> {
        let _turn = Turn::take();
        let instance = device::new_instance();
        let adapter = device::pick_adapter(&instance)?;
        let state = device::open(adapter, 0)?;
        Ok(Self {
            shared: Arc::new(Shared {
                instance,
                state: RwLock::new(Arc::new(state)),
                cache: Mutex::new(HashMap::new()),
                pool: Mutex::new(BufferPool::default()),
                counters: Counters::default(),
                recovery: Mutex::new(()),
                fault: Mutex::new(None),
                teardown: TeardownTurn::default(),
            }),
        })
    }

    pub(crate) fn state(&self) -> Result<Arc<DeviceState>, BackendError> {
        self.shared
            .state
            .read()
            .map(|s| Arc::clone(&s))
            .map_err(|_| poisoned())
    }

    /// The adapter's name and type, e.g. `NVIDIA H200 (Vulkan, DiscreteGpu)`.
    #[must_use]
    pub fn adapter_name(&self) -> String {
        self.state()
            .map(|s| device::describe(&s.info))
            .unwrap_or_default()
    }

    /// The adapter's full information.
    ///
    /// # Errors
    ///
    /// Only when an internal lock was poisoned.
    pub fn adapter_info(&self) -> Result<wgpu::AdapterInfo, BackendError> {
        Ok(self.state()?.info.clone())
    }

    /// The backend's counters.
    #[must_use]
    pub fn stats(&self) -> WgpuStats {
        let entries = self
            .shared
            .cache
            .lock()
            .map(|c| c.len() as u64)
            .unwrap_or(0);
        let held = self.shared.pool.lock().map(|p| p.held_bytes()).unwrap_or(0);
        self.shared.counters.snapshot(entries, held)
    }

    /// Which device this is: 0 for the first, bumped by every recovery.
    #[must_use]
    pub fn device_generation(&self) -> u64 {
        self.state().map(|s| s.generation).unwrap_or(0)
    }

    /// Destroys the device for real (tests of recovery): the device-lost callback wgpu fires is what
    /// sets [`VyreBackend::device_lost`].
    ///
    /// # Errors
    ///
    /// Only when an internal lock was poisoned.
    pub fn force_device_lost(&self) -> Result<(), BackendError> {
        let state = self.state()?;
        self.shared.lose_device(&state);
        Ok(())
    }

    /// Makes the device get lost at `point` of the next launch (fault-injection for tests).
    #[doc(hidden)]
    pub fn inject_fault(&self, point: FaultPoint) {
        self.inject_fault_after(0, point);
    }

    /// Makes the device get lost at `point` of the launch after the next `skip` launches
    /// (fault-injection for tests: a loss in the middle of a run of several launches).
    #[doc(hidden)]
    pub fn inject_fault_after(&self, skip: u32, point: FaultPoint) {
        if let Ok(mut f) = self.shared.fault.lock() {
            *f = Some((skip, point));
        }
    }

    /// The cached pipeline for `program` (compiling it on first use) in the plain, folded form.
    ///
    /// # Errors
    ///
    /// [`BackendError::InvalidProgram`] for invalid programs, [`BackendError::Compile`] or
    /// [`BackendError::LimitExceeded`] when the device cannot run it.
    pub fn compile_persistent(
        &self,
        program: &Program,
        config: &DispatchConfig,
    ) -> Result<Arc<WgpuPipeline>, BackendError> {
        let _ = config;
        self.pipeline(program, LowerOptions::default())
    }

    pub(crate) fn pipeline(
        &self,
        program: &Program,
        options: LowerOptions,
    ) -> Result<Arc<WgpuPipeline>, BackendError> {
        // Hashing recurses once per nesting level: a program too deep for the validator must be
        // rejected before it is fingerprinted, or it overflows the stack.
        vyre_foundation::validate::validate_depth(program)?;
        let state = self.state()?;
        let key = PipelineKey {
            fingerprint: program.fingerprint(),
            options,
            generation: state.generation,
        };
        if let Some(hit) = self.shared.cache.lock().map_err(|_| poisoned())?.get(&key)
            && hit.program == *program
        {
            bump(&self.shared.counters.cache_hits, 1);
            return Ok(Arc::clone(hit));
        }
        vyre_foundation::validate(program)?;
        let compiled = Arc::new(pipeline::compile(
            &state,
            program,
            options,
            &self.shared.counters,
            Arc::downgrade(&self.shared),
        )?);
        let mut cache = self.shared.cache.lock().map_err(|_| poisoned())?;
        if cache.len() >= CACHE_LIMIT {
            cache.retain(|k, _| k.generation == state.generation);
            if cache.len() >= CACHE_LIMIT
                && let Some(victim) = cache.keys().next().copied()
            {
                cache.remove(&victim);
            }
        }
        cache.insert(key, Arc::clone(&compiled));
        Ok(compiled)
    }

    /// Runs `f`, and once more after recovering if it failed because the device was lost.
    pub(crate) fn with_recovery<T>(
        &self,
        mut f: impl FnMut() -> Result<T, BackendError>,
    ) -> Result<T, BackendError> {
        if self.device_lost() {
            self.try_recover()?;
        }
        match f() {
            Err(e) if e.is_device_lost() => {
                self.try_recover()?;
                f()
            }
            other => other,
        }
    }

    fn dispatch_once(
        &self,
        program: &Program,
        inputs: &[Vec<u8>],
        config: &DispatchConfig,
    ) -> Result<Vec<Vec<u8>>, BackendError> {
        let lens: Vec<usize> = inputs.iter().map(Vec::len).collect();
        // The reference validates before it checks inputs; an invalid program with wrong inputs
        // must get the same error here (`InvalidProgram`), so validation runs on this error path.
        let plan = plan_dispatch(program, &lens, config).map_err(|e| {
            match vyre_foundation::validate(program) {
                Err(invalid) => BackendError::from(invalid),
                Ok(()) => e,
            }
        })?;
        let state = self.state()?;
        let (physical, direct) = fold_grid(
            plan.grid,
            1,
            state.limits.max_compute_workgroups_per_dimension,
        )?;
        let pipeline = self.pipeline(
            program,
            LowerOptions {
                coalesced: false,
                direct,
                packed: false,
            },
        )?;
        let job = plain_job(&pipeline, &plan, inputs, physical, config)?;
        exec::run(&self.shared, &state, &pipeline, job)
    }
}

/// The physical grid for `items` copies of a virtual grid, and whether it can be dispatched directly.
pub(crate) fn fold_grid(
    grid: [u32; 3],
    items: u64,
    max: u32,
) -> Result<([u32; 3], bool), BackendError> {
    if items == 1 && grid.iter().all(|&g| g <= max) {
        return Ok((grid, true));
    }
    // Three u32 dimensions and an item count reach far past 2^64, so the product is checked: a
    // wrapped total would pass the limit below (2^64 workgroups wrap to 0).
    let total = grid
        .iter()
        .try_fold(items, |product, &g| product.checked_mul(u64::from(g)));
    let total = match total {
        Some(0) => {
            return Err(BackendError::invalid_config(format!(
                "{items} item(s) of grid {grid:?} are no workgroups at all. Fix: give every grid dimension at least 1 and pass at least one item."
            )));
        }
        Some(total) if total < 1 << 32 => total,
        _ => {
            return Err(BackendError::limit_exceeded(format!(
                "{items} item(s) of grid {grid:?} are 2^32 or more workgroups in one launch, past vyre's limit. Fix: use fewer workgroups or items per dispatch."
            )));
        }
    };
    let max = u64::from(max.max(1));
    let x = total.min(max);
    let rest = total.div_ceil(x);
    let y = rest.min(max);
    let z = rest.div_ceil(y);
    // The shader's linear workgroup index is a u32: with more than 2^32 physical workgroups it would
    // wrap, and a surplus workgroup would alias (and re-run) a real one. With a device limit near
    // u32::MAX the physical product itself could pass u64, hence the checked product.
    let physical = x.checked_mul(y).and_then(|xy| xy.checked_mul(z));
    if z > max || physical.is_none_or(|p| p > 1 << 32) {
        return Err(BackendError::limit_exceeded(format!(
            "{total} workgroups cannot be folded into this device's grid limits. Fix: use fewer workgroups."
        )));
    }
    // Each of x, y and z is at most `max`, which came from a u32.
    let dim = |d: u64| u32::try_from(d).unwrap_or(u32::MAX);
    Ok(([dim(x), dim(y), dim(z)], false))
}

/// The bytes a bound buffer occupies on the device for `count` elements, or `None` when that does
/// not fit a `u64` (a concatenation of many items' slices can get there).
pub(crate) fn device_bytes(kind: BindingKind, count: u64) -> Option<u64> {
    match kind {
        BindingKind::Uniform => count.div_ceil(4).checked_mul(16),
        _ => count.max(1).checked_mul(4),
    }
}

/// The error for a size that does not fit the integer it must be held in.
pub(crate) fn size_overflow(what: &str) -> BackendError {
    BackendError::limit_exceeded(format!(
        "{what} does not fit the integer type vyre holds it in. Fix: split the work over several dispatches or use smaller buffers."
    ))
}

fn plain_job<'a>(
    pipeline: &WgpuPipeline,
    plan: &DispatchPlan,
    inputs: &'a [Vec<u8>],
    physical: [u32; 3],
    config: &DispatchConfig,
) -> Result<Job<'a>, BackendError> {
    let program = &pipeline.program;
    let mut buffers = Vec::with_capacity(pipeline.bindings.len());
    for b in &pipeline.bindings {
        let decl = &program.buffers[b.buffer_index];
        let resolved = plan.buffers[b.buffer_index];
        let bytes = device_bytes(b.kind, resolved.element_count)
            .ok_or_else(|| size_overflow(&format!("the size of buffer `{}`", decl.name)))?;
        let init = match resolved.input {
            Some(i) => Init::Bytes(std::borrow::Cow::Borrowed(inputs[i].as_slice())),
            None => Init::Zero,
        };
        let readback = if decl.access == BufferAccess::Output {
            Some(readback_bytes(decl, resolved.element_count)?)
        } else {
            None
        };
        buffers.push(JobBuffer {
            bytes,
            init,
            readback,
        });
    }
    Ok(Job {
        buffers,
        params: params_words(plan, 1, 0)?,
        items: None,
        physical_grid: physical,
        timeout: config.timeout,
    })
}

/// The byte range of an output of `count` elements that is read back: its output byte range, or the
/// whole buffer.
pub(crate) fn readback_bytes(decl: &BufferDecl, count: u64) -> Result<Range<u64>, BackendError> {
    let overflow = || size_overflow(&format!("the byte size of output `{}`", decl.name));
    let bytes = count
        .checked_mul(4)
        .and_then(|b| usize::try_from(b).ok())
        .ok_or_else(overflow)?;
    let range = decl.readback_range(bytes);
    match (u64::try_from(range.start), u64::try_from(range.end)) {
        (Ok(start), Ok(end)) => Ok(start..end),
        _ => Err(overflow()),
    }
}

/// vyre's `params` words for a launch of `items` items shaped like `plan`, `active` invocations each
/// when packed (see `lower::params`).
pub(crate) fn params_words(
    plan: &DispatchPlan,
    items: usize,
    active: u32,
) -> Result<Vec<u32>, BackendError> {
    let lengths: Vec<u64> = plan.buffers.iter().map(|b| b.element_count).collect();
    lower::params_words(&lower::Params {
        grid: plan.grid,
        items,
        active,
        lengths: &lengths,
    })
}

impl VyreBackend for WgpuBackend {
    fn id(&self) -> &str {
        "wgpu"
    }

    fn capabilities(&self) -> Capabilities {
        let mut caps = Capabilities::unlimited(self.adapter_name());
        if let Ok(state) = self.state() {
            let l = &state.limits;
            caps.is_gpu = true;
            caps.max_workgroups_per_dimension = l.max_compute_workgroups_per_dimension;
            caps.max_workgroup_size = [
                l.max_compute_workgroup_size_x,
                l.max_compute_workgroup_size_y,
                l.max_compute_workgroup_size_z,
            ];
            caps.max_invocations_per_workgroup = l.max_compute_invocations_per_workgroup;
            caps.max_workgroup_storage_bytes = l.max_compute_workgroup_storage_size;
            caps.max_storage_buffer_bytes = l.max_storage_buffer_binding_size;
            caps.max_uniform_buffer_bytes = l.max_uniform_buffer_binding_size;
            caps.max_bound_buffers = l.max_storage_buffers_per_shader_stage.saturating_sub(2);
            caps.timestamps = state
                .device
                .features()
                .contains(wgpu::Features::TIMESTAMP_QUERY);
        }
        caps
    }

    fn dispatch(
        &self,
        program: &Program,
        inputs: &[Vec<u8>],
        config: &DispatchConfig,
    ) -> Result<Vec<Vec<u8>>, BackendError> {
        self.with_recovery(|| self.dispatch_once(program, inputs, config))
    }

    fn device_lost(&self) -> bool {
        self.state().map(|s| s.is_lost()).unwrap_or(true)
    }

    fn try_recover(&self) -> Result<(), BackendError> {
        let _guard = self.shared.recovery.lock().map_err(|_| poisoned())?;
        let old = self.state()?;
        if !old.is_lost() {
            return Ok(());
        }
        // Same adapter first; re-enumerate when it refuses (the adapter itself may be gone).
        let _turn = Turn::take();
        // A device existed and is gone: failing to replace it is still a loss, not `NoDevice`.
        let fresh = device::open(old.adapter.clone(), old.generation + 1)
            .or_else(|_| {
                let adapter = device::pick_adapter(&self.shared.instance)?;
                device::open(adapter, old.generation + 1)
            })
            .map_err(|e| old.lost_error(&format!("no replacement device: {e}")))?;
        *self.shared.state.write().map_err(|_| poisoned())? = Arc::new(fresh);
        self.shared
            .pool
            .lock()
            .map_err(|_| poisoned())?
            .reset(old.generation + 1);
        self.shared
            .cache
            .lock()
            .map_err(|_| poisoned())?
            .retain(|k, _| k.generation > old.generation);
        self.shared
            .counters
            .recoveries
            .fetch_add(1, Ordering::Relaxed);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use vyre_driver::BackendError;
    use vyre_foundation::ir::{BufferDecl, DataType};

    use super::{device_bytes, fold_grid, readback_bytes};
    use crate::lower::BindingKind;

    #[test]
    fn launches_of_2_pow_64_workgroups_or_more_are_a_limit_exceeded_not_wrapped() {
        // [1 << 22, 1 << 21, 1 << 21] is exactly 2^64 workgroups: unchecked, the total wrapped to 0
        // and the fold divided by zero.
        for (grid, items) in [
            ([1 << 22, 1 << 21, 1 << 21], 1),
            ([1 << 16, 1 << 16, 1], 1),
            ([1, 1, 1], 1 << 32),
            ([2, 1, 1], u64::MAX),
            ([u32::MAX; 3], u64::MAX),
        ] {
            match fold_grid(grid, items, 65535) {
                Err(BackendError::LimitExceeded(m)) => assert!(m.contains("Fix:"), "{m}"),
                other => panic!("{grid:?} x {items}: {other:?}"),
            }
        }
    }

    #[test]
    fn a_launch_of_no_items_is_an_invalid_config_not_a_division_by_zero() {
        let e = fold_grid([1, 1, 1], 0, 65535).expect_err("no workgroups");
        assert!(matches!(e, BackendError::InvalidConfig(_)), "{e}");
    }

    #[test]
    fn a_device_allowing_u32_max_workgroups_per_axis_folds_without_wrapping() {
        assert_eq!(
            fold_grid([u32::MAX, 1, 1], 1, u32::MAX).ok(),
            Some(([u32::MAX, 1, 1], true))
        );
        assert_eq!(
            fold_grid([u32::MAX, 1, 1], 1, 1 << 16).ok(),
            Some(([1 << 16, 1 << 16, 1], false))
        );
        // Folded into `(2^32 - 2) x 2`, the physical grid has 2^33 - 4 linear ids: refused.
        let e = fold_grid([u32::MAX, 1, 1], 1, u32::MAX - 1).expect_err("past 2^32 ids");
        assert!(matches!(e, BackendError::LimitExceeded(_)), "{e}");
    }

    #[test]
    fn device_bytes_are_none_past_u64_not_wrapped() {
        let storage = BindingKind::StorageReadWrite;
        assert_eq!(
            device_bytes(storage, u64::from(u32::MAX)),
            Some((1 << 34) - 4)
        );
        assert_eq!(device_bytes(storage, (1 << 62) - 1), Some(u64::MAX - 3));
        assert_eq!(device_bytes(storage, 1 << 62), None);
        let rows = u64::MAX / 16;
        assert_eq!(
            device_bytes(BindingKind::Uniform, rows * 4),
            Some(u64::MAX - 15)
        );
        assert_eq!(device_bytes(BindingKind::Uniform, rows * 4 + 1), None);
        assert_eq!(device_bytes(BindingKind::Uniform, u64::MAX), None);
    }

    #[test]
    fn readback_ranges_past_u32_bytes_are_exact_and_past_u64_are_errors() {
        let out = BufferDecl::output("out", 0, DataType::U32).with_count(u32::MAX);
        assert_eq!(
            readback_bytes(&out, u64::from(u32::MAX)).ok(),
            Some(0..(1 << 34) - 4)
        );
        assert_eq!(readback_bytes(&out, 1 << 40).ok(), Some(0..1 << 42));
        assert!(readback_bytes(&out, u64::MAX).is_err());
    }

    #[test]
    fn folded_grids_cover_the_work_without_wrapping_the_linear_index() {
        assert_eq!(fold_grid([7, 3, 2], 1, 65535).ok(), Some(([7, 3, 2], true)));
        assert_eq!(
            fold_grid([70_000, 1, 1], 1, 65535).ok(),
            Some(([65535, 2, 1], false))
        );
        for total in [65_536u64, 4_294_836_225, 4_294_836_226, u64::from(u32::MAX)] {
            match fold_grid([1, 1, 1], total, 65535) {
                Ok(([x, y, z], _)) => {
                    let n = u64::from(x) * u64::from(y) * u64::from(z);
                    assert!(n >= total && n <= 1 << 32, "{total}: {x}x{y}x{z}");
                }
                // Past 65535^2 workgroups the fold needs z = 2 and more than 2^32 physical ids.
                Err(e) => assert!(total > 4_294_836_225, "{total}: {e}"),
            }
        }
    }
}
