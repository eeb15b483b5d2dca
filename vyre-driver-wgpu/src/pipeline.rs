//! Compiled pipelines: lowering, shader module, bind group layouts and compute pipeline, made once per
//! (program fingerprint, launch form, driver workarounds, IR passes, module checks, device
//! generation) and cached by `cache`.

use std::sync::{Arc, Mutex};
use std::time::Instant;

use vyre_driver::BackendError;
use vyre_foundation::ir::Program;

use crate::device::{DeviceState, storage_entry};
use crate::groups::LaunchGroups;
use crate::known::Known;
use crate::lifecycle::TeardownTurn;
use crate::lower::{self, BindingKind, Form, LoweredBinding};
use crate::stats::{Counters, Step, bump};

/// A compiled pipeline for one program in one lowering form on one device generation: what a launch
/// binds and runs.
pub(crate) struct Compiled {
    /// The program, its evidence and its facts.
    pub(crate) known: Arc<Known>,
    pub(crate) form: Form,
    pub(crate) generation: u64,
    pub(crate) bindings: Vec<LoweredBinding>,
    pub(crate) pipeline: wgpu::ComputePipeline,
    pub(crate) user_layout: wgpu::BindGroupLayout,
    pub(crate) internal_layout: wgpu::BindGroupLayout,
    /// The module reads vyre's `params`: launches bind `internal_layout` as group 1. A module that
    /// reads none of it (a direct one whose lengths are all declared) has group 0 alone.
    pub(crate) uses_params: bool,
    /// A vectorised module's second entry point (`lower::TAIL_ENTRY`), compiled the first time a
    /// launch has partial rows.
    pub(crate) tail: Option<Tail>,
    /// The bind groups its launches reuse.
    pub(crate) groups: LaunchGroups,
    /// Held while the fields above are dropped: a pipeline outliving its backend may hold the
    /// device's last reference (see `lifecycle`).
    pub(crate) teardown: TeardownTurn,
}

/// What compiling a vectorised module's tail entry point needs, and the pipeline once made.
pub(crate) struct Tail {
    module: wgpu::ShaderModule,
    layout: wgpu::PipelineLayout,
    pipeline: Mutex<Option<wgpu::ComputePipeline>>,
}

impl Compiled {
    /// The program.
    pub(crate) fn program(&self) -> &Program {
        self.known.program()
    }

    /// The buffers the program stores to when it may run packed (see `lower::packed`).
    pub(crate) fn packed_stores(&self) -> Option<&[usize]> {
        self.known.facts.packed_stores.as_deref()
    }

    /// Every analysis of the program (`lower::ProgramFacts`).
    pub(crate) fn facts(&self) -> &crate::lower::ProgramFacts {
        &self.known.facts
    }

    /// The output buffers the program writes in full (see `lower::coverage`): a launch whose grid
    /// covers them need not zero them first.
    pub(crate) fn fully_written(&self) -> &[usize] {
        &self.known.facts.fully_written
    }

    /// The pipeline that runs `entry` of this module: the main one, or the tail, compiled on first
    /// use.
    ///
    /// # Errors
    ///
    /// As [`compile`], for the tail; [`BackendError::Compile`] when the module has no tail.
    pub(crate) fn pipeline_for(
        &self,
        entry: Entry,
        state: &DeviceState,
        counters: &Counters,
    ) -> Result<wgpu::ComputePipeline, BackendError> {
        let tail = match entry {
            Entry::Main => return Ok(self.pipeline.clone()),
            Entry::Tail => self.tail.as_ref().ok_or_else(|| {
                BackendError::compile(
                    "a launch asked for the tail of a module that has none. Fix: this is a vyre bug; report it with the program text (Display).",
                )
            })?,
        };
        let mut made = tail
            .pipeline
            .lock()
            .map_err(|_| crate::groups::poisoned())?;
        if let Some(pipeline) = made.as_ref() {
            return Ok(pipeline.clone());
        }
        let start = Instant::now();
        let pipeline = create_pipeline(
            state,
            &tail.layout,
            &tail.module,
            lower::TAIL_ENTRY,
            counters,
        )?;
        counters.step(Step::Pipeline, start);
        *made = Some(pipeline.clone());
        Ok(pipeline)
    }
}

/// Which entry point of a compiled module a dispatch runs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum Entry {
    /// `main`: the whole program, or a vectorised module's full rows.
    #[default]
    Main,
    /// A vectorised module's partial rows (`lower::TAIL_ENTRY`).
    Tail,
}

impl Entry {
    /// The entry point's name in the module.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Entry::Main => lower::ENTRY,
            Entry::Tail => lower::TAIL_ENTRY,
        }
    }
}

/// Creates the compute pipeline of `entry` in `module`, checking wgpu's errors.
fn create_pipeline(
    state: &DeviceState,
    layout: &wgpu::PipelineLayout,
    module: &wgpu::ShaderModule,
    entry: &str,
    counters: &Counters,
) -> Result<wgpu::ComputePipeline, BackendError> {
    let device = &state.device;
    let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
    let oom = device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
    let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some("vyre"),
        layout: Some(layout),
        module,
        entry_point: Some(entry),
        compilation_options: wgpu::PipelineCompilationOptions {
            zero_initialize_workgroup_memory: true,
            ..Default::default()
        },
        cache: state.disk.pipeline_cache(),
    });
    bump(&counters.pipelines, 1);
    check_scopes(oom, scope, "the pipeline")?;
    state.disk.compiled();
    Ok(pipeline)
}

/// Pops an out-of-memory and a validation error scope (pushed in that order's reverse) around the
/// creation of `what`: an error caught by either is the error of that creation.
fn check_scopes(
    oom: wgpu::ErrorScopeGuard,
    validation: wgpu::ErrorScopeGuard,
    what: &str,
) -> Result<(), BackendError> {
    if let Some(e) = pollster::block_on(oom.pop()) {
        return Err(BackendError::out_of_memory(format!(
            "creating {what} ran out of memory: {e}. Fix: free device memory or use a smaller program."
        )));
    }
    if let Some(e) = pollster::block_on(validation.pop()) {
        return Err(BackendError::compile(format!(
            "wgpu rejected {what}: {e}. Fix: this is a vyre lowering bug unless the device lacks a feature; report it with the program text."
        )));
    }
    Ok(())
}

impl Drop for Compiled {
    fn drop(&mut self) {
        self.teardown.take();
    }
}

impl std::fmt::Debug for Compiled {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Compiled")
            .field("fingerprint", &self.known.fingerprint)
            .field("coalesced", &self.form.coalesced())
            .field("generation", &self.generation)
            .finish_non_exhaustive()
    }
}

fn layout_entry(b: &LoweredBinding) -> wgpu::BindGroupLayoutEntry {
    match b.kind {
        BindingKind::StorageReadOnly => storage_entry(b.binding, true),
        BindingKind::StorageReadWrite => storage_entry(b.binding, false),
        BindingKind::Uniform => wgpu::BindGroupLayoutEntry {
            binding: b.binding,
            visibility: wgpu::ShaderStages::COMPUTE,
            ty: wgpu::BindingType::Buffer {
                ty: wgpu::BufferBindingType::Uniform,
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        },
    }
}

/// Checks the program against the device's limits before any wgpu call can fail on them.
fn check_limits(
    program: &Program,
    lowered: &lower::Lowered,
    limits: &wgpu::Limits,
) -> Result<(), BackendError> {
    let [x, y, z] = program.workgroup_size;
    // `None` is a product past u64, which no device allows either.
    let invocations_fit = program
        .invocations_per_workgroup()
        .is_some_and(|n| n <= u64::from(limits.max_compute_invocations_per_workgroup));
    if x > limits.max_compute_workgroup_size_x
        || y > limits.max_compute_workgroup_size_y
        || z > limits.max_compute_workgroup_size_z
        || !invocations_fit
    {
        return Err(BackendError::limit_exceeded(format!(
            "workgroup size {:?} exceeds this device's limits ({} x {} x {}, {} invocations). Fix: use a smaller workgroup size.",
            program.workgroup_size,
            limits.max_compute_workgroup_size_x,
            limits.max_compute_workgroup_size_y,
            limits.max_compute_workgroup_size_z,
            limits.max_compute_invocations_per_workgroup
        )));
    }
    if lowered.workgroup_bytes > u64::from(limits.max_compute_workgroup_storage_size) {
        return Err(BackendError::limit_exceeded(format!(
            "the program declares {} bytes of workgroup memory; this device allows {}. Fix: shrink the workgroup buffers.",
            lowered.workgroup_bytes, limits.max_compute_workgroup_storage_size
        )));
    }
    let storage = lowered
        .bindings
        .iter()
        .filter(|b| b.kind != BindingKind::Uniform)
        .count();
    let uniform = lowered.bindings.len() - storage;
    // vyre's own params (and items) buffers count against the storage limit too. Counted in usize:
    // casting the counts to u32 first could wrap a huge program's count into an accepted one.
    let fits = |count: usize, limit: u32| usize::try_from(limit).is_ok_and(|limit| count <= limit);
    if !fits(
        storage.saturating_add(2),
        limits.max_storage_buffers_per_shader_stage,
    ) || !fits(uniform, limits.max_uniform_buffers_per_shader_stage)
    {
        return Err(BackendError::limit_exceeded(format!(
            "the program binds {storage} storage and {uniform} uniform buffers; this device allows {} storage (2 are vyre's) and {} uniform. Fix: merge buffers.",
            limits.max_storage_buffers_per_shader_stage,
            limits.max_uniform_buffers_per_shader_stage
        )));
    }
    if let Some(b) = lowered
        .bindings
        .iter()
        .find(|b| b.binding >= limits.max_bindings_per_bind_group)
    {
        return Err(BackendError::limit_exceeded(format!(
            "binding {} is past this device's limit of {} bindings per group. Fix: use smaller binding numbers.",
            b.binding, limits.max_bindings_per_bind_group
        )));
    }
    Ok(())
}

/// Lowers and compiles the known program in `form` on `state`, from its kept evidence and facts.
pub(crate) fn compile(
    state: &DeviceState,
    known: &Arc<Known>,
    form: Form,
    counters: &Counters,
) -> Result<Compiled, BackendError> {
    let start = Instant::now();
    let evidence = known.validated()?;
    let program = known.program();
    let lowered = lower::lower(&evidence, &known.facts, &form, state.workarounds)?;
    let start = counters.step(Step::Lower, start);
    check_limits(program, &lowered, &state.limits)?;
    let has_tail = lowered
        .module
        .entry_points
        .iter()
        .any(|e| e.name == lower::TAIL_ENTRY);
    let device = &state.device;
    let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
    let oom = device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
    let trusted = crate::trusted::applies(state.trusted_modules);
    let module = crate::trusted::create_module(device, lowered.module, trusted);
    let start = counters.step(Step::Module, start);
    bump(&counters.shader_modules, 1);
    bump(&counters.trusted_modules, u64::from(trusted));
    let user_entries: Vec<_> = lowered.bindings.iter().map(layout_entry).collect();
    let user_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some("vyre program buffers"),
        entries: &user_entries,
    });
    let mut internal_entries = vec![storage_entry(0, true)];
    if form.items_table() {
        internal_entries.push(storage_entry(1, true));
    }
    let internal_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some("vyre internal"),
        entries: &internal_entries,
    });
    bump(&counters.layouts, 2);
    let uses_params = lowered.uses_params;
    let groups = [Some(&user_layout), Some(&internal_layout)];
    let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: Some("vyre"),
        bind_group_layouts: if uses_params { &groups } else { &groups[..1] },
        immediate_size: 0,
    });
    // The module's own errors (and memory) are checked with the main pipeline's.
    let made = create_pipeline(state, &layout, &module, lower::ENTRY, counters);
    check_scopes(oom, scope, "the shader module")?;
    counters.step(Step::Pipeline, start);
    let pipeline = made?;
    let tail = has_tail.then(|| Tail {
        module,
        layout,
        pipeline: Mutex::new(None),
    });
    Ok(Compiled {
        known: Arc::clone(known),
        form,
        generation: state.generation,
        bindings: lowered.bindings,
        pipeline,
        user_layout,
        internal_layout,
        uses_params,
        tail,
        groups: LaunchGroups::default(),
        teardown: TeardownTurn::default(),
    })
}
