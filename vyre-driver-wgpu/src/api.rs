//! `impl VyreBackend for WgpuBackend`: each of the trait's methods routed to the backend's own
//! (plain dispatch, resident buffers, sequences, recovery) or to the engine's (batches), so the
//! trait sits above both and neither layer reaches up to the other.

use vyre_driver::{
    BackendError, BackendFuture, Capabilities, DeviceBuffer, DispatchConfig, DispatchPlan,
    PreparedStep, Step, VyreBackend,
};
use vyre_foundation::ir::{Features, Program};
use vyre_foundation::validate::Validated;

use crate::backend::WgpuBackend;

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
            caps.subgroups = state.features.contains(Features::SUBGROUPS);
            if caps.subgroups {
                caps.subgroup_sizes = [state.info.subgroup_min_size, state.info.subgroup_max_size];
            }
            caps.f16 = state.features.contains(Features::F16);
            caps.int64 = state.features.contains(Features::INT64);
            caps.int64_atomics = state.features.contains(Features::INT64_ATOMICS);
            caps.workarounds = state.workarounds.names();
            caps.matrix_tiles = state.matrix_tiles.clone();
        }
        caps
    }

    /// As the provided method (validation, the plan, the features, then `execute`), except that a
    /// program equal to one dispatched lately is not validated and analysed again: its kept facts
    /// stand (`backend::known`).
    fn dispatch(
        &self,
        program: &Program,
        inputs: &[Vec<u8>],
        config: &DispatchConfig,
    ) -> Result<Vec<Vec<u8>>, BackendError> {
        let Some(known) = self.find_known(program)? else {
            // The driver's order: validation, then the plan; the device's features are checked
            // where the program's pipeline is compiled (`get_or_compile`).
            let (validated, plan) = self.prepare(program, inputs, config)?;
            return self.execute(&validated, &plan, inputs, config);
        };
        let lens: Vec<usize> = inputs.iter().map(Vec::len).collect();
        let plan = vyre_driver::plan_dispatch(program, &lens, config)?;
        self.with_recovery(|| self.execute_known(&known, &plan, inputs, config))
    }

    fn execute(
        &self,
        program: &Validated<'_>,
        plan: &DispatchPlan,
        inputs: &[Vec<u8>],
        config: &DispatchConfig,
    ) -> Result<Vec<Vec<u8>>, BackendError> {
        let known = self.known_validated(program)?;
        self.with_recovery(|| self.execute_known(&known, plan, inputs, config))
    }

    /// Every item through one coalesced pipeline in the fewest launches (the pipeline
    /// [`WgpuBackend::compile_persistent`] makes, run by [`crate::engine::WgpuPipeline::dispatch_coalesced`]),
    /// with each item's results exactly those of its own `dispatch`. Coalesced launches lay items
    /// out in 32-bit words, so a program with an f16, u64 or i64 buffer runs one `dispatch` per
    /// item instead, by the driver's own rule (`vyre_driver::dispatch_each`).
    fn dispatch_batch(
        &self,
        program: &Program,
        items: &[Vec<Vec<u8>>],
        config: &DispatchConfig,
    ) -> Result<Vec<Vec<Vec<u8>>>, BackendError> {
        if items.is_empty() {
            // As the provided method: no item, no dispatch, nothing to check.
            return Ok(Vec::new());
        }
        if program.buffers.iter().any(|b| !b.element.is_word()) {
            return vyre_driver::dispatch_each(self, program, items, config);
        }
        self.compile_persistent(program, config)?
            .dispatch_coalesced(items, config)
    }

    fn create_buffer(&self, bytes: u64) -> Result<DeviceBuffer, BackendError> {
        self.create_resident(bytes)
    }

    fn write_buffer(
        &self,
        buffer: &DeviceBuffer,
        offset: u64,
        data: &[u8],
    ) -> Result<(), BackendError> {
        self.write_resident(buffer, offset, data)
    }

    fn read_buffer(
        &self,
        buffer: &DeviceBuffer,
        range: std::ops::Range<u64>,
    ) -> Result<Vec<u8>, BackendError> {
        self.read_resident(buffer, range)
    }

    /// As the provided method (the shared checks, then the steps in one submit), except that a
    /// step's program known to the backend is not validated again (`known`).
    fn dispatch_sequence(&self, steps: &[Step<'_>]) -> Result<(), BackendError> {
        let steps = self.known_steps(steps)?;
        self.sequence(&steps)
    }

    fn execute_sequence(&self, steps: &[PreparedStep<'_>]) -> Result<(), BackendError> {
        let steps = self.prepared_steps(steps)?;
        self.sequence(&steps)
    }

    fn device_lost(&self) -> bool {
        self.state().map(|s| s.is_lost()).unwrap_or(true)
    }

    fn try_recover(&self) -> Result<(), BackendError> {
        self.recover()
    }

    /// As `dispatch`, never blocking a thread: the host work and the submit in the first poll,
    /// then the future waits for the device's poller (`WgpuBackend`'s async calls).
    fn dispatch_async<'a>(
        &'a self,
        program: &'a Program,
        inputs: &'a [Vec<u8>],
        config: &'a DispatchConfig,
    ) -> BackendFuture<'a, Vec<Vec<u8>>> {
        Box::pin(self.dispatch_async_impl(program, inputs, config))
    }

    /// Each item a launch of its own, up to 16 on the device at once, never blocking a thread (the
    /// blocking `dispatch_batch` coalesces items into shared launches; this does not yet).
    fn dispatch_batch_async<'a>(
        &'a self,
        program: &'a Program,
        items: &'a [Vec<Vec<u8>>],
        config: &'a DispatchConfig,
    ) -> BackendFuture<'a, Vec<Vec<Vec<u8>>>> {
        Box::pin(self.dispatch_batch_async_impl(program, items, config))
    }

    fn read_buffer_async<'a>(
        &'a self,
        buffer: &'a DeviceBuffer,
        range: std::ops::Range<u64>,
    ) -> BackendFuture<'a, Vec<u8>> {
        Box::pin(self.read_buffer_async_impl(buffer, range))
    }

    fn dispatch_resident_async<'a>(
        &'a self,
        program: &'a Program,
        buffers: &'a [&'a DeviceBuffer],
        config: &'a DispatchConfig,
    ) -> BackendFuture<'a, ()> {
        Box::pin(async move {
            let steps = [Step::new(program, buffers, config)];
            self.dispatch_sequence_async_impl(&steps).await
        })
    }

    fn dispatch_sequence_async<'a>(&'a self, steps: &'a [Step<'a>]) -> BackendFuture<'a, ()> {
        Box::pin(self.dispatch_sequence_async_impl(steps))
    }
}
