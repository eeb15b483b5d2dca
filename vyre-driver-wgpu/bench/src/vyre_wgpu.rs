//! The parts of the vyre side that only the wgpu backend has: device time of the kernel vyre
//! generates, `run_persistent_kernel`, `compile_persistent`, and the backend's counters.
//!
//! **Device time of vyre's kernel.** The backend does not time its passes, so the harness compiles
//! the naga module that `emit_launch` returns for the program and grid (the very module a plain
//! dispatch runs: scalar or vectorised, direct or folded, handed to wgpu as the backend hands it)
//! on its own device, launches the
//! physical grid the backend would, and times it with the same timestamps as the raw kernel, on the
//! same buffers. The backend's internal bind group (`@group(1) @binding(0) vyre_params`) is filled the way
//! the backend fills it: the grid, the item count 1, and each buffer's element count from word 8.

use vyre_driver::DispatchConfig;
use vyre_driver_wgpu::engine::persistent::{
    PersistentPayloadWorkItem, PersistentQueue, run_persistent_kernel,
};
use vyre_driver_wgpu::{WgpuBackend, WgpuStats, Workarounds};
use vyre_foundation::ir::Program;

use crate::gpu::{BenchResult, Dispatch, Gpu, Kernel};
use crate::vyre::backend_error;

/// Word offset of the element counts in the backend's params buffer.
const PARAM_LENGTHS: usize = 8;

/// vyre's emitted kernel for one program, bound to harness buffers, ready to be timed: one
/// dispatch per entry point the backend's launch runs (two for a vectorised launch with partial
/// rows), in one compute pass.
pub(crate) struct EmittedKernel {
    parts: Vec<EmittedPart>,
    _params: wgpu::Buffer,
}

/// One dispatch of an [`EmittedKernel`].
struct EmittedPart {
    kernel: Kernel,
    user: wgpu::BindGroup,
    internal: Option<wgpu::BindGroup>,
    grid: [u32; 3],
}

impl EmittedKernel {
    /// Compiles `emit_wgsl(program)` and binds `buffers` (one per bound program buffer, in binding
    /// order) for a dispatch over the logical `grid`, with `counts[i]` elements in program buffer `i`.
    pub(crate) fn new(
        gpu: &Gpu,
        program: &Program,
        buffers: &[&wgpu::Buffer],
        grid: [u32; 3],
        counts: &[u32],
    ) -> BenchResult<Self> {
        Self::with_workarounds(gpu, program, buffers, grid, counts, Workarounds::NONE)
    }

    /// [`EmittedKernel::new`] lowered with the driver workarounds `workarounds`, as a device that
    /// has them in force lowers it.
    pub(crate) fn with_workarounds(
        gpu: &Gpu,
        program: &Program,
        buffers: &[&wgpu::Buffer],
        grid: [u32; 3],
        counts: &[u32],
        workarounds: Workarounds,
    ) -> BenchResult<Self> {
        let lengths: Vec<u64> = counts.iter().map(|&c| u64::from(c)).collect();
        let launch = vyre_driver_wgpu::emit_launch_with(
            program,
            grid,
            &lengths,
            gpu.max_groups_per_dim(),
            workarounds,
        )
        .map_err(|e| backend_error("emit_launch", &e))?;
        Self::from_launch(gpu, &launch, None, (buffers, grid, counts))
    }

    /// [`EmittedKernel::new`] with the module compiled as the backend compiles it with trusted
    /// modules on (no wgpu runtime bounds checks; `emit_launch_trusted`).
    pub(crate) fn trusted(
        gpu: &Gpu,
        program: &Program,
        buffers: &[&wgpu::Buffer],
        grid: [u32; 3],
        counts: &[u32],
    ) -> BenchResult<Self> {
        let lengths: Vec<u64> = counts.iter().map(|&c| u64::from(c)).collect();
        let (launch, module) = vyre_driver_wgpu::emit_launch_trusted(
            program,
            grid,
            &lengths,
            gpu.max_groups_per_dim(),
            &gpu.device,
        )
        .map_err(|e| backend_error("emit_launch_trusted", &e))?;
        Self::from_launch(gpu, &launch, Some(&module), (buffers, grid, counts))
    }

    /// Pipelines of `launch`'s entry points (from `module` when given, else from the launch's own
    /// module, checked) with `buffers` and vyre's params bound.
    fn from_launch(
        gpu: &Gpu,
        launch: &vyre_driver_wgpu::EmittedLaunch,
        module: Option<&wgpu::ShaderModule>,
        (buffers, grid, counts): (&[&wgpu::Buffer], [u32; 3], &[u32]),
    ) -> BenchResult<Self> {
        let mut words = vec![0u32; PARAM_LENGTHS];
        words[..3].copy_from_slice(&grid);
        words[3] = 1;
        words.extend_from_slice(counts);
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        let params = gpu.storage("vyre params", bytes.len() as u64);
        gpu.queue.write_buffer(&params, 0, &bytes);
        let mut parts = Vec::with_capacity(launch.dispatches.len());
        for &(entry, physical) in &launch.dispatches {
            // The module itself, not its text: the text is naga's rendering, which may place an
            // expression differently from the module the backend runs.
            let kernel = match module {
                Some(module) => gpu.kernel_of("vyre emitted, trusted", module, Some(entry))?,
                None => {
                    let source =
                        wgpu::ShaderSource::Naga(std::borrow::Cow::Owned(launch.module.clone()));
                    gpu.kernel_from("vyre emitted", source, Some(entry))?
                }
            };
            let user = gpu.bind(&kernel, buffers);
            // A module that reads nothing of `params` has no group 1 (as the backend binds it).
            let internal = launch.params.then(|| {
                gpu.device.create_bind_group(&wgpu::BindGroupDescriptor {
                    label: Some("vyre params"),
                    layout: &kernel.pipeline.get_bind_group_layout(1),
                    entries: &[wgpu::BindGroupEntry {
                        binding: 0,
                        resource: params.as_entire_binding(),
                    }],
                })
            });
            parts.push(EmittedPart {
                kernel,
                user,
                internal,
                grid: physical,
            });
        }
        gpu.check_errors("binding vyre's emitted kernel")?;
        Ok(Self {
            parts,
            _params: params,
        })
    }

    /// Records this kernel's dispatches into `encoder`, in a pass of their own.
    pub(crate) fn encode(&self, encoder: &mut wgpu::CommandEncoder) {
        let groups = self.groups();
        Gpu::record_dispatches(encoder, &self.dispatches(&groups));
    }

    /// Device time of `reps` back-to-back dispatches after `spin` seconds of clock warm-up.
    pub(crate) fn device_times(
        &self,
        gpu: &Gpu,
        reps: usize,
        spin: f64,
    ) -> BenchResult<Option<Vec<f64>>> {
        let groups = self.groups();
        let dispatches = self.dispatches(&groups);
        gpu.spin_up_dispatches(&dispatches, spin)?;
        gpu.device_times_dispatches(&dispatches, reps)
    }

    fn groups(&self) -> Vec<Vec<&wgpu::BindGroup>> {
        self.parts
            .iter()
            .map(|p| {
                std::iter::once(&p.user)
                    .chain(p.internal.as_ref())
                    .collect()
            })
            .collect()
    }

    fn dispatches<'a>(&'a self, groups: &'a [Vec<&'a wgpu::BindGroup>]) -> Vec<Dispatch<'a>> {
        self.parts
            .iter()
            .zip(groups)
            .map(|(p, g)| Dispatch {
                kernel: &p.kernel,
                groups: g,
                grid: p.grid,
            })
            .collect()
    }
}

/// The queue of `items`, ids in order. Built outside the timed region, as the raw side's item vectors
/// are: the user's data already exists before either side runs.
pub(crate) fn queue(items: &[Vec<u8>]) -> PersistentQueue {
    let mut queue = PersistentQueue::new();
    for (id, payload) in items.iter().enumerate() {
        queue.push(PersistentPayloadWorkItem {
            id: id as u32,
            payload: payload.clone(),
        });
    }
    queue
}

/// One `run_persistent_kernel` call over `queue`, its payloads placed in `results`. The previous
/// payloads are moved to `retired`, not dropped: freeing one small vector per item is the caller's
/// work, not the run's (10 000 frees took 155 us on lavapipe's host), and the raw side retires its
/// results the same way ([`crate::raw::RawAddOne::run_items`]).
pub(crate) fn persistent(
    backend: &WgpuBackend,
    program: &Program,
    queue: PersistentQueue,
    results: &mut Vec<Vec<u8>>,
    retired: &mut Vec<Vec<Vec<u8>>>,
) -> BenchResult<u32> {
    let report = run_persistent_kernel(backend, program, &DispatchConfig::default(), queue)
        .map_err(|e| backend_error("run_persistent_kernel", &e))?;
    let payloads = report.results.into_iter().map(|r| r.payload).collect();
    retired.push(std::mem::replace(results, payloads));
    Ok(report.kernel_launches)
}

/// `compile_persistent` of `program` (cold the first time, a cache hit after).
pub(crate) fn compile(backend: &WgpuBackend, program: &Program) -> BenchResult<()> {
    backend
        .compile_persistent(program, &DispatchConfig::default())
        .map(drop)
        .map_err(|e| backend_error("compile_persistent", &e))
}

/// What the backend did between two snapshots, per repetition, as one line for the notes.
pub(crate) fn stats_line(what: &str, before: &WgpuStats, after: &WgpuStats, reps: u64) -> String {
    let per = |a: u64, b: u64| (b.saturating_sub(a)) as f64 / reps.max(1) as f64;
    let us = |a: u64, b: u64| per(a, b) / 1000.0;
    let (p, q) = (&before.phases, &after.phases);
    let mut line = format!(
        "{what}: per vyre repetition {:.1} dispatch calls, {:.1} submits, {:.1} buffers created, {:.1} pipelines, {:.1} shader modules, {:.1} cache hits; pool holds {} MiB; host us per repetition: prepare {:.1}, upload {:.1}, record {:.1}, submit {:.1}, wait {:.1}, read {:.1}, deliver {:.1}",
        per(before.dispatch_calls, after.dispatch_calls),
        per(before.submits, after.submits),
        per(before.buffers_created, after.buffers_created),
        per(before.pipelines_created, after.pipelines_created),
        per(before.shader_modules_created, after.shader_modules_created),
        per(before.cache_hits, after.cache_hits),
        after.pool_bytes_held >> 20,
        us(p.prepare_ns, q.prepare_ns),
        us(p.upload_ns, q.upload_ns),
        us(p.record_ns, q.record_ns),
        us(p.submit_ns, q.submit_ns),
        us(p.wait_ns, q.wait_ns),
        us(p.read_ns, q.read_ns),
        us(p.deliver_ns, q.deliver_ns),
    );
    let (c, d) = (&before.compile, &after.compile);
    if d.total_ns() > c.total_ns() {
        line.push_str(&format!(
            "; compile us per repetition: validate {:.1}, know {:.1}, lower {:.1}, module {:.1}, pipeline {:.1}",
            us(c.validate_ns, d.validate_ns),
            us(c.know_ns, d.know_ns),
            us(c.lower_ns, d.lower_ns),
            us(c.module_ns, d.module_ns),
            us(c.pipeline_ns, d.pipeline_ns),
        ));
    }
    line
}
