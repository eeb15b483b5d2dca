//! The raw wgpu context the hand-written baselines run on, and the measuring tools they share with
//! the vyre side: GPU timestamps around dispatches, pooled buffers, and read-back into host memory.
//!
//! The device asks for the adapter's own limits (not wgpu's conservative defaults) so the baselines
//! can bind buffers up to `max_storage_buffer_binding_size`, and for `TIMESTAMP_QUERY` when the adapter
//! has it, so device time can be told apart from end-to-end time.

use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// Every failure of the benchmark is a message that ends with a `Fix:` sentence.
pub(crate) type BenchResult<T> = Result<T, String>;

/// Workgroup size of every hand-written baseline kernel (and of the vyre programs that mirror them).
pub(crate) const WORKGROUP: u32 = 256;

/// One wgpu device with its queue, limits and timestamp support.
pub(crate) struct Gpu {
    /// The adapter the device was opened on.
    pub(crate) adapter: wgpu::Adapter,
    /// The device.
    pub(crate) device: wgpu::Device,
    /// Its queue.
    pub(crate) queue: wgpu::Queue,
    /// What the adapter says about itself.
    pub(crate) info: wgpu::AdapterInfo,
    /// The limits the device was created with (the adapter's).
    pub(crate) limits: wgpu::Limits,
    /// Nanoseconds per timestamp tick, or `None` when the adapter cannot time passes.
    pub(crate) timestamp_period_ns: Option<f64>,
    /// True when the device runs subgroup operations (wgpu's `Features::SUBGROUP`).
    pub(crate) subgroups: bool,
    /// The device has `f16` and 64-bit integers in shaders (for the workaround costs).
    pub(crate) f16: bool,
    pub(crate) int64: bool,
    errors: Arc<Mutex<Vec<String>>>,
}

/// A compute pipeline with an automatically derived bind group layout.
/// One dispatch of a pass: a kernel, its bind groups `0..groups.len()` and its grid.
pub(crate) struct Dispatch<'a> {
    pub(crate) kernel: &'a Kernel,
    pub(crate) groups: &'a [&'a wgpu::BindGroup],
    pub(crate) grid: [u32; 3],
}

pub(crate) struct Kernel {
    /// The pipeline.
    pub(crate) pipeline: wgpu::ComputePipeline,
    /// Group 0 of its layout.
    pub(crate) layout: wgpu::BindGroupLayout,
}

impl Gpu {
    /// Opens the first high-performance Vulkan, Metal or DX12 adapter (never GL: its integer and
    /// bounds behaviour differs, see the WGSL notes) with its full limits.
    pub(crate) fn acquire() -> BenchResult<Self> {
        let mut desc = wgpu::InstanceDescriptor::new_without_display_handle();
        desc.backends = wgpu::Backends::VULKAN | wgpu::Backends::METAL | wgpu::Backends::DX12;
        let instance = wgpu::Instance::new(desc);
        let options = wgpu::RequestAdapterOptions {
            power_preference: wgpu::PowerPreference::HighPerformance,
            ..Default::default()
        };
        let adapter = pollster::block_on(instance.request_adapter(&options)).map_err(|e| {
            format!("no Vulkan, Metal or DX12 adapter was found ({e}). Fix: install a Vulkan driver (Mesa lavapipe works on CPUs) or point VK_DRIVER_FILES at one.")
        })?;
        let timestamps = adapter.features().contains(wgpu::Features::TIMESTAMP_QUERY);
        // Subgroups when offered, for the raw subgroup reduction.
        let subgroups = adapter.features().contains(wgpu::Features::SUBGROUP);
        let mut features = wgpu::Features::empty();
        if timestamps {
            features |= wgpu::Features::TIMESTAMP_QUERY;
        }
        if subgroups {
            features |= wgpu::Features::SUBGROUP;
        }
        // f16 and 64-bit integers when offered, for the kernels of the `workarounds` workload.
        let f16 = adapter.features().contains(wgpu::Features::SHADER_F16);
        let int64 = adapter.features().contains(wgpu::Features::SHADER_INT64);
        if f16 {
            features |= wgpu::Features::SHADER_F16;
        }
        if int64 {
            features |= wgpu::Features::SHADER_INT64;
        }
        let limits = adapter.limits();
        let device_desc = wgpu::DeviceDescriptor {
            label: Some("vyre-bench raw"),
            required_features: features,
            required_limits: limits.clone(),
            ..Default::default()
        };
        let (device, queue) = pollster::block_on(adapter.request_device(&device_desc))
            .map_err(|e| format!("the adapter refused a device with its own limits ({e}). Fix: update the GPU driver."))?;
        let errors = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&errors);
        device.on_uncaptured_error(Arc::new(move |error: wgpu::Error| {
            if let Ok(mut list) = sink.lock() {
                list.push(error.to_string());
            }
        }));
        let timestamp_period_ns = timestamps.then(|| f64::from(queue.get_timestamp_period()));
        Ok(Self {
            info: adapter.get_info(),
            adapter,
            device,
            queue,
            limits,
            timestamp_period_ns,
            subgroups,
            f16,
            int64,
            errors,
        })
    }

    /// The device a vyre backend runs on, shared: for kernels that need what vyre's devices
    /// have and the bench's own does not ask for (cooperative matrices, an experimental wgpu
    /// feature). vyre keeps its own uncaptured-error handler there, so [`Gpu::check_errors`]
    /// reports nothing on such a `Gpu`: its kernels are checked by their results.
    pub(crate) fn sharing(backend: &vyre_driver_wgpu::WgpuBackend) -> BenchResult<Self> {
        let error = |e: vyre_driver::BackendError| format!("the vyre backend's device: {e}");
        let adapter = backend.wgpu_adapter().map_err(error)?;
        let device = backend.wgpu_device().map_err(error)?;
        let queue = backend.wgpu_queue().map_err(error)?;
        let features = device.features();
        let timestamps = features.contains(wgpu::Features::TIMESTAMP_QUERY);
        let timestamp_period_ns = timestamps.then(|| f64::from(queue.get_timestamp_period()));
        Ok(Self {
            info: adapter.get_info(),
            adapter,
            limits: device.limits(),
            subgroups: features.contains(wgpu::Features::SUBGROUP),
            f16: features.contains(wgpu::Features::SHADER_F16),
            int64: features.contains(wgpu::Features::SHADER_INT64),
            device,
            queue,
            timestamp_period_ns,
            errors: Arc::new(Mutex::new(Vec::new())),
        })
    }

    /// The largest buffer one binding can take: the smaller of the binding and buffer limits.
    pub(crate) fn max_binding_bytes(&self) -> u64 {
        self.limits
            .max_storage_buffer_binding_size
            .min(self.limits.max_buffer_size)
    }

    /// Fails with every wgpu validation or allocation error raised since the last call.
    pub(crate) fn check_errors(&self, during: &str) -> BenchResult<()> {
        let drained: Vec<String> = match self.errors.lock() {
            Ok(mut list) => list.drain(..).collect(),
            Err(_) => vec!["the error list was poisoned by a panic".to_string()],
        };
        if drained.is_empty() {
            return Ok(());
        }
        Err(format!(
            "wgpu reported errors during {during}: {}. Fix: lower --max-bytes if this is an allocation failure, otherwise report it as a harness bug.",
            drained.join("; ")
        ))
    }

    /// A buffer of `size` bytes for the given usages.
    pub(crate) fn buffer(&self, label: &str, size: u64, usage: wgpu::BufferUsages) -> wgpu::Buffer {
        self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size,
            usage,
            mapped_at_creation: false,
        })
    }

    /// A storage buffer the host can fill with `write_buffer` and copy out of.
    pub(crate) fn storage(&self, label: &str, size: u64) -> wgpu::Buffer {
        let usage = wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::COPY_DST
            | wgpu::BufferUsages::COPY_SRC;
        self.buffer(label, size, usage)
    }

    /// A host-readable buffer that results are copied into.
    pub(crate) fn staging(&self, label: &str, size: u64) -> wgpu::Buffer {
        let usage = wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST;
        self.buffer(label, size, usage)
    }

    /// Compiles WGSL text into a pipeline with an automatic layout (the path every wgpu user takes).
    pub(crate) fn kernel(&self, label: &str, wgsl: &str) -> BenchResult<Kernel> {
        self.kernel_at(label, wgsl, None)
    }

    /// [`Gpu::kernel`] of entry point `entry` (`None`: the module's only one).
    pub(crate) fn kernel_at(
        &self,
        label: &str,
        wgsl: &str,
        entry: Option<&str>,
    ) -> BenchResult<Kernel> {
        self.kernel_from(label, wgpu::ShaderSource::Wgsl(wgsl.into()), entry)
    }

    /// [`Gpu::kernel_at`] from any shader source (vyre's naga module included).
    pub(crate) fn kernel_from(
        &self,
        label: &str,
        source: wgpu::ShaderSource<'_>,
        entry: Option<&str>,
    ) -> BenchResult<Kernel> {
        let module = self.module(label, source);
        self.kernel_of(label, &module, entry)
    }

    /// The shader module of `source` (for WGSL: parsed and validated by wgpu).
    pub(crate) fn module(&self, label: &str, source: wgpu::ShaderSource<'_>) -> wgpu::ShaderModule {
        self.device
            .create_shader_module(wgpu::ShaderModuleDescriptor {
                label: Some(label),
                source,
            })
    }

    /// [`Gpu::kernel_at`] of a shader module already made (vyre's trusted modules).
    pub(crate) fn kernel_of(
        &self,
        label: &str,
        module: &wgpu::ShaderModule,
        entry: Option<&str>,
    ) -> BenchResult<Kernel> {
        let pipeline = self
            .device
            .create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some(label),
                layout: None,
                module,
                entry_point: entry,
                compilation_options: wgpu::PipelineCompilationOptions::default(),
                cache: None,
            });
        self.check_errors(&format!("compiling `{label}`"))?;
        let layout = pipeline.get_bind_group_layout(0);
        Ok(Kernel { pipeline, layout })
    }

    /// Binds `buffers[i]` at binding `i` of group 0.
    pub(crate) fn bind(&self, kernel: &Kernel, buffers: &[&wgpu::Buffer]) -> wgpu::BindGroup {
        let entries: Vec<wgpu::BindGroupEntry<'_>> = buffers
            .iter()
            .enumerate()
            .map(|(i, b)| wgpu::BindGroupEntry {
                binding: i as u32,
                resource: b.as_entire_binding(),
            })
            .collect();
        self.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: None,
            layout: &kernel.layout,
            entries: &entries,
        })
    }

    /// Blocks until every submitted command has finished.
    pub(crate) fn wait(&self) -> BenchResult<()> {
        self.device
            .poll(wgpu::PollType::wait_indefinitely())
            .map(|_| ())
            .map_err(|e| format!("waiting for the GPU failed ({e}). Fix: check the driver; the device may be lost."))
    }

    /// Maps the first `bytes` of `staging`, copies them into `dst` (replacing its contents) and
    /// unmaps it again, so the staging buffer can be reused by the next repetition.
    pub(crate) fn read_back(
        &self,
        staging: &wgpu::Buffer,
        bytes: u64,
        dst: &mut Vec<u8>,
    ) -> BenchResult<()> {
        let slice = staging.slice(..bytes);
        let (tx, rx) = mpsc::channel();
        slice.map_async(wgpu::MapMode::Read, move |r| {
            let _ = tx.send(r);
        });
        self.wait()?;
        let mapped = rx.recv().map_err(|_| {
            "the map callback never ran. Fix: report this as a harness bug.".to_string()
        })?;
        mapped.map_err(|e| {
            format!("mapping the read-back buffer failed ({e}). Fix: check the driver.")
        })?;
        {
            let view = slice.get_mapped_range().map_err(|e| {
                format!("the mapped range was refused ({e}). Fix: report this as a harness bug.")
            })?;
            dst.clear();
            dst.extend_from_slice(&view);
        }
        staging.unmap();
        Ok(())
    }

    /// Runs `reps` dispatches of `kernel` over `grid`, back to back in one submission, each in its
    /// own compute pass with timestamps at its start and end, and returns each one's device time in
    /// seconds. `None` when the adapter has no timestamp queries.
    pub(crate) fn device_times(
        &self,
        kernel: &Kernel,
        group: &wgpu::BindGroup,
        grid: [u32; 3],
        reps: usize,
    ) -> BenchResult<Option<Vec<f64>>> {
        self.device_times_groups(kernel, &[group], grid, reps)
    }

    /// [`Gpu::device_times`] for a kernel with bind groups `0..groups.len()`.
    pub(crate) fn device_times_groups(
        &self,
        kernel: &Kernel,
        groups: &[&wgpu::BindGroup],
        grid: [u32; 3],
        reps: usize,
    ) -> BenchResult<Option<Vec<f64>>> {
        self.device_times_dispatches(
            &[Dispatch {
                kernel,
                groups,
                grid,
            }],
            reps,
        )
    }

    /// [`Gpu::device_times`] for a pass of several dispatches, each timed repetition being the
    /// whole pass.
    pub(crate) fn device_times_dispatches(
        &self,
        dispatches: &[Dispatch<'_>],
        reps: usize,
    ) -> BenchResult<Option<Vec<f64>>> {
        let Some(period) = self.timestamp_period_ns else {
            return Ok(None);
        };
        let reps = reps.clamp(1, (wgpu::QUERY_SET_MAX_QUERIES / 2) as usize);
        let queries = (reps * 2) as u32;
        let set = self.device.create_query_set(&wgpu::QuerySetDescriptor {
            label: Some("device times"),
            ty: wgpu::QueryType::Timestamp,
            count: queries,
        });
        let bytes = u64::from(queries) * u64::from(wgpu::QUERY_SIZE);
        let resolve = self.buffer(
            "timestamps",
            bytes,
            wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
        );
        let staging = self.staging("timestamps read-back", bytes);
        let mut encoder = self.device.create_command_encoder(&Default::default());
        for rep in 0..reps as u32 {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: None,
                timestamp_writes: Some(wgpu::ComputePassTimestampWrites {
                    query_set: &set,
                    beginning_of_pass_write_index: Some(rep * 2),
                    end_of_pass_write_index: Some(rep * 2 + 1),
                }),
            });
            Self::dispatch_all(&mut pass, dispatches);
        }
        encoder.resolve_query_set(&set, 0..queries, &resolve, 0);
        encoder.copy_buffer_to_buffer(&resolve, 0, &staging, 0, bytes);
        self.queue.submit([encoder.finish()]);
        let mut raw = Vec::new();
        self.read_back(&staging, bytes, &mut raw)?;
        self.check_errors("timed dispatches")?;
        let ticks: Vec<u64> = raw
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]))
            .collect();
        let times: Vec<f64> = ticks
            .chunks_exact(2)
            .map(|pair| pair[1].saturating_sub(pair[0]) as f64 * period * 1e-9)
            .collect();
        if std::env::var_os("VYRE_BENCH_TRACE").is_some() {
            let us: Vec<String> = times.iter().map(|t| format!("{:.1}", t * 1e6)).collect();
            eprintln!("trace: device times (us, in order): {}", us.join(" "));
        }
        Ok(Some(times))
    }

    /// Keeps the GPU busy with `kernel` for at least `seconds` of wall time, in growing batches of
    /// back-to-back dispatches, so that its clock governor has raised the clocks before anything is
    /// timed. On the H200 the SM clock was seen to sit at 345-615 MHz after a few seconds of mostly
    /// idle GPU (uploads, data generation) and to stay there through short timed bursts, which
    /// more than halved the bandwidth of a 1 GiB add; a sustained burst first brings it back up.
    pub(crate) fn spin_up(
        &self,
        kernel: &Kernel,
        group: &wgpu::BindGroup,
        grid: [u32; 3],
        seconds: f64,
    ) -> BenchResult<()> {
        self.spin_up_groups(kernel, &[group], grid, seconds)
    }

    /// [`Gpu::spin_up`] for a kernel with bind groups `0..groups.len()`.
    pub(crate) fn spin_up_groups(
        &self,
        kernel: &Kernel,
        groups: &[&wgpu::BindGroup],
        grid: [u32; 3],
        seconds: f64,
    ) -> BenchResult<()> {
        self.spin_up_dispatches(
            &[Dispatch {
                kernel,
                groups,
                grid,
            }],
            seconds,
        )
    }

    /// [`Gpu::spin_up`] with a pass of several dispatches.
    pub(crate) fn spin_up_dispatches(
        &self,
        dispatches: &[Dispatch<'_>],
        seconds: f64,
    ) -> BenchResult<()> {
        let start = Instant::now();
        let mut batch = 1u32;
        while start.elapsed().as_secs_f64() < seconds {
            let round = Instant::now();
            let mut encoder = self.device.create_command_encoder(&Default::default());
            for _ in 0..batch {
                Self::record_dispatches(&mut encoder, dispatches);
            }
            self.queue.submit([encoder.finish()]);
            self.wait()?;
            if round.elapsed().as_secs_f64() < 0.02 {
                batch = (batch * 2).min(4096);
            }
        }
        self.check_errors("the clock warm-up")
    }

    /// Records one dispatch of `kernel` into `encoder`.
    pub(crate) fn record(
        encoder: &mut wgpu::CommandEncoder,
        kernel: &Kernel,
        group: &wgpu::BindGroup,
        grid: [u32; 3],
    ) {
        Self::record_groups(encoder, kernel, &[group], grid);
    }

    /// Records one dispatch of `kernel` with bind groups `0..groups.len()`.
    pub(crate) fn record_groups(
        encoder: &mut wgpu::CommandEncoder,
        kernel: &Kernel,
        groups: &[&wgpu::BindGroup],
        grid: [u32; 3],
    ) {
        Self::record_dispatches(
            encoder,
            &[Dispatch {
                kernel,
                groups,
                grid,
            }],
        );
    }

    /// Records `dispatches` in one compute pass.
    pub(crate) fn record_dispatches(
        encoder: &mut wgpu::CommandEncoder,
        dispatches: &[Dispatch<'_>],
    ) {
        let mut pass = encoder.begin_compute_pass(&Default::default());
        Self::dispatch_all(&mut pass, dispatches);
    }

    fn dispatch_all(pass: &mut wgpu::ComputePass<'_>, dispatches: &[Dispatch<'_>]) {
        for d in dispatches {
            pass.set_pipeline(&d.kernel.pipeline);
            for (i, group) in d.groups.iter().enumerate() {
                pass.set_bind_group(i as u32, *group, &[]);
            }
            pass.dispatch_workgroups(d.grid[0], d.grid[1], d.grid[2]);
        }
    }

    /// The most workgroups one dispatch may have along one axis.
    pub(crate) fn max_groups_per_dim(&self) -> u32 {
        self.limits.max_compute_workgroups_per_dimension
    }
}

/// A grid of at least `groups` workgroups, folded into y when x would pass the device's per-axis
/// limit. Kernels compute their linear workgroup index as `wid.x + wid.y * nwg.x` and guard the
/// surplus workgroups of the last row.
pub(crate) fn fold_grid(groups: u64, max_per_dim: u32) -> [u32; 3] {
    let max = u64::from(max_per_dim.max(1));
    let groups = groups.max(1);
    if groups <= max {
        return [groups as u32, 1, 1];
    }
    let y = groups.div_ceil(max);
    let x = groups.div_ceil(y);
    [x as u32, y as u32, 1]
}

#[cfg(test)]
mod tests {
    use super::fold_grid;

    #[test]
    fn small_grids_stay_one_dimensional() {
        assert_eq!(fold_grid(10, 65535), [10, 1, 1]);
        assert_eq!(fold_grid(0, 65535), [1, 1, 1]);
    }

    #[test]
    fn large_grids_fold_into_y_and_cover_every_group() {
        let groups = 1u64 << 20;
        let g = fold_grid(groups, 65535);
        assert!(g[0] <= 65535 && g[1] <= 65535);
        assert!(u64::from(g[0]) * u64::from(g[1]) >= groups);
        assert!(u64::from(g[0]) * u64::from(g[1]) < groups + u64::from(g[1]));
    }
}
