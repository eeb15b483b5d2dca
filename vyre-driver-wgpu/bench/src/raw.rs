//! The raw baselines: hand-written WGSL (see `wgsl.rs`) on plain wgpu, done the best way we know.
//!
//! What "best" means here: pipelines and bind groups created once and reused, buffers pooled across
//! repetitions, one submission per repetition (dispatch and copy-out recorded together after
//! `write_buffer` uploads), and results copied into host memory exactly as vyre hands them back.
//! Each case is prepared once and then run one repetition at a time, so the harness can interleave
//! the raw and the vyre repetitions and both see the same clocks, caches and bus.

use crate::gpu::{BenchResult, Gpu, Kernel, WORKGROUP, fold_grid};
use crate::workloads;

/// Pooled buffers and a bound kernel for one-word-per-item work over `n` items
/// (`out[i] = input[i] + 1`): the round trip and the hand-batched coalesced baseline.
pub(crate) struct RawAddOne {
    kernel: Kernel,
    input: wgpu::Buffer,
    out: wgpu::Buffer,
    staging: wgpu::Buffer,
    group: wgpu::BindGroup,
    n: u64,
    gathered: Vec<u8>,
    dst: Vec<u8>,
    results: Vec<Vec<u8>>,
    /// Earlier repetitions' results, dropped by [`RawAddOne::drop_retired`] outside the timing.
    retired: Vec<Vec<Vec<u8>>>,
    zeros: Vec<u8>,
    /// The kernel with a params group, its group 0 and its params group (see [`Extras`]).
    with_params: Option<(Kernel, wgpu::BindGroup, wgpu::BindGroup)>,
}

impl RawAddOne {
    /// Compiles the kernel and allocates buffers for `n` one-word items.
    pub(crate) fn new(gpu: &Gpu, n: u64) -> BenchResult<Self> {
        let kernel = gpu.kernel("raw add one", &crate::wgsl::add_one_wgsl())?;
        // At least one 16-byte row, for the row-upload step of the round trip.
        let input = gpu.storage("items in", (n * 4).max(16));
        let out = gpu.storage("items out", n * 4);
        let staging = gpu.staging("items read-back", n * 4);
        let group = gpu.bind(&kernel, &[&input, &out]);
        Ok(Self {
            kernel,
            input,
            out,
            staging,
            group,
            n,
            gathered: Vec::with_capacity((n * 4) as usize),
            dst: Vec::with_capacity((n * 4) as usize),
            results: Vec::new(),
            retired: Vec::new(),
            zeros: Vec::new(),
            with_params: None,
        })
    }

    /// Uploads `words`, runs one dispatch over all of them and reads the results back.
    pub(crate) fn run_words(&mut self, gpu: &Gpu, words: &[u8]) -> BenchResult<&[u8]> {
        self.run_words_with(gpu, words, Extras::default())
    }

    /// [`RawAddOne::run_words`] plus some of the steps vyre's dispatch takes that this one does
    /// not, to attribute vyre's extra latency step by step.
    pub(crate) fn run_words_with(
        &mut self,
        gpu: &Gpu,
        words: &[u8],
        extras: Extras,
    ) -> BenchResult<&[u8]> {
        let scopes = extras.error_scopes.then(|| {
            let validation = gpu.device.push_error_scope(wgpu::ErrorFilter::Validation);
            let oom = gpu.device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
            (oom, validation)
        });
        if extras.row_upload && words.len() < 16 {
            let mut row = [0u8; 16];
            row[..words.len()].copy_from_slice(words);
            gpu.queue.write_buffer(&self.input, 0, &row);
        } else {
            gpu.queue.write_buffer(&self.input, 0, words);
        }
        if extras.zero_output_by_write {
            self.zeros.resize((self.n * 4) as usize, 0);
            gpu.queue.write_buffer(&self.out, 0, &self.zeros);
        }
        let mut encoder = gpu.device.create_command_encoder(&Default::default());
        if extras.clear_output {
            encoder.clear_buffer(&self.out, 0, None);
        }
        let grid = [self.n.div_ceil(64) as u32, 1, 1];
        if extras.params_group {
            let (kernel, group, params) = self.params_kernel(gpu)?;
            Gpu::record_groups(&mut encoder, kernel, &[group, params], grid);
        } else {
            Gpu::record(&mut encoder, &self.kernel, &self.group, grid);
        }
        encoder.copy_buffer_to_buffer(&self.out, 0, &self.staging, 0, self.n * 4);
        gpu.queue.submit([encoder.finish()]);
        if let Some((oom, validation)) = scopes {
            let errors = [
                pollster::block_on(oom.pop()),
                pollster::block_on(validation.pop()),
            ];
            if let Some(e) = errors.into_iter().flatten().next() {
                return Err(format!("raw add one: {e}"));
            }
        }
        gpu.read_back(&self.staging, self.n * 4, &mut self.dst)?;
        Ok(&self.dst)
    }

    /// The params-group kernel and its two groups, made on first use (the params buffer holds the
    /// item count, written once, as vyre keeps a pipeline's params groups).
    fn params_kernel(
        &mut self,
        gpu: &Gpu,
    ) -> BenchResult<(&Kernel, &wgpu::BindGroup, &wgpu::BindGroup)> {
        if self.with_params.is_none() {
            let kernel = gpu.kernel("raw add one, params", &crate::wgsl::add_one_params_wgsl())?;
            let group = gpu.bind(&kernel, &[&self.input, &self.out]);
            let params = gpu.storage("params", 16);
            gpu.queue
                .write_buffer(&params, 0, &(self.n as u32).to_le_bytes());
            let params_group = gpu.device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("params"),
                layout: &kernel.pipeline.get_bind_group_layout(1),
                entries: &[wgpu::BindGroupEntry {
                    binding: 0,
                    resource: params.as_entire_binding(),
                }],
            });
            self.with_params = Some((kernel, group, params_group));
        }
        match &self.with_params {
            Some((kernel, group, params)) => Ok((kernel, group, params)),
            None => Err("the params kernel was not made".into()),
        }
    }

    /// One hand-batched launch over all items: gather the payloads into one upload, one dispatch,
    /// one read-back, then split the result into one vector per item (what vyre's queue returns).
    pub(crate) fn run_items(&mut self, gpu: &Gpu, items: &[Vec<u8>]) -> BenchResult<()> {
        let mut gathered = std::mem::take(&mut self.gathered);
        gathered.clear();
        for item in items {
            gathered.extend_from_slice(item);
        }
        self.run_words(gpu, &gathered)?;
        self.gathered = gathered;
        let results = self.dst.chunks_exact(4).map(<[u8]>::to_vec).collect();
        self.retired
            .push(std::mem::replace(&mut self.results, results));
        Ok(())
    }

    /// Frees the results of earlier [`RawAddOne::run_items`] calls (kept so that no timed
    /// repetition pays for freeing the one before).
    pub(crate) fn drop_retired(&mut self) {
        self.retired.clear();
    }

    /// The per-item results of the last [`RawAddOne::run_items`].
    pub(crate) fn results(&self) -> &[Vec<u8>] {
        &self.results
    }
}

/// Steps of vyre's dispatch added to the raw round trip one at a time (see `round_trip`).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Extras {
    /// Zero the output with `clear_buffer` before the dispatch (vyre's outputs start at zero).
    pub(crate) clear_output: bool,
    /// Read the bound from a params buffer in a second bind group (vyre's modules read their launch
    /// parameters so).
    pub(crate) params_group: bool,
    /// Upload the input as a 16-byte row (vyre's vectorised form rounds a one-word input up to a
    /// `vec4` row).
    pub(crate) row_upload: bool,
    /// Zero the output with `queue.write_buffer` of zeros instead (an upload beside the input's).
    pub(crate) zero_output_by_write: bool,
    /// Push and pop a validation and an out-of-memory error scope around the submit (how vyre
    /// classifies a failed launch).
    pub(crate) error_scopes: bool,
}

/// A prepared streaming kernel over three equal buffers `a`, `b`, `out` (vec4 WGSL).
pub(crate) struct RawElementwise {
    kernel: Kernel,
    a: wgpu::Buffer,
    b: wgpu::Buffer,
    out: wgpu::Buffer,
    group: wgpu::BindGroup,
    grid: [u32; 3],
    bytes: u64,
    staging: Option<wgpu::Buffer>,
    dst: Vec<u8>,
}

impl RawElementwise {
    /// Compiles `wgsl`, allocates the buffers and uploads `a` and `b` once (for device timing).
    pub(crate) fn new(gpu: &Gpu, label: &str, wgsl: &str, a: &[u8], b: &[u8]) -> BenchResult<Self> {
        let kernel = gpu.kernel(label, wgsl)?;
        let bytes = a.len() as u64;
        let (a_buf, b_buf) = (gpu.storage("a", bytes), gpu.storage("b", bytes));
        let out = gpu.storage("out", bytes);
        let group = gpu.bind(&kernel, &[&a_buf, &b_buf, &out]);
        let groups = (bytes / 16).div_ceil(u64::from(WORKGROUP));
        let case = Self {
            kernel,
            a: a_buf,
            b: b_buf,
            out,
            group,
            grid: fold_grid(groups, gpu.max_groups_per_dim()),
            bytes,
            staging: None,
            dst: Vec::new(),
        };
        gpu.queue.write_buffer(&case.a, 0, a);
        gpu.queue.write_buffer(&case.b, 0, b);
        Ok(case)
    }

    /// Device time of `reps` back-to-back dispatches after `spin` seconds of clock warm-up.
    pub(crate) fn device_times(
        &self,
        gpu: &Gpu,
        reps: usize,
        spin: f64,
    ) -> BenchResult<Option<Vec<f64>>> {
        gpu.spin_up(&self.kernel, &self.group, self.grid, spin)?;
        gpu.device_times(&self.kernel, &self.group, self.grid, reps)
    }

    /// The read-back buffer, created on first use: device time is measured before it exists, since
    /// device time must not depend on what the host side holds.
    fn staging(&mut self, gpu: &Gpu) -> wgpu::Buffer {
        self.staging
            .get_or_insert_with(|| gpu.staging("out read-back", self.bytes))
            .clone()
    }

    /// Copies `out` back (dispatching first when `dispatch`) and returns its bytes.
    fn finish(&mut self, gpu: &Gpu, dispatch: bool) -> BenchResult<&[u8]> {
        let staging = self.staging(gpu);
        let mut encoder = gpu.device.create_command_encoder(&Default::default());
        if dispatch {
            Gpu::record(&mut encoder, &self.kernel, &self.group, self.grid);
        }
        encoder.copy_buffer_to_buffer(&self.out, 0, &staging, 0, self.bytes);
        gpu.queue.submit([encoder.finish()]);
        gpu.read_back(&staging, self.bytes, &mut self.dst)?;
        Ok(&self.dst)
    }

    /// The current contents of `out` (after device timing, what the timed dispatches wrote).
    pub(crate) fn output(&mut self, gpu: &Gpu) -> BenchResult<&[u8]> {
        self.finish(gpu, false)
    }

    /// The bytes read back last.
    pub(crate) fn last(&self) -> &[u8] {
        &self.dst
    }

    /// Zeroes `out`, so the next check sees only what the next dispatch writes.
    pub(crate) fn clear_out(&self, gpu: &Gpu) {
        let mut encoder = gpu.device.create_command_encoder(&Default::default());
        encoder.clear_buffer(&self.out, 0, None);
        gpu.queue.submit([encoder.finish()]);
    }

    /// The `a`, `b` and `out` buffers, for timing another kernel on the same memory.
    pub(crate) fn buffers(&self) -> [&wgpu::Buffer; 3] {
        [&self.a, &self.b, &self.out]
    }

    /// One end-to-end repetition: upload both inputs, dispatch, copy out, read back.
    pub(crate) fn run(&mut self, gpu: &Gpu, a: &[u8], b: &[u8]) -> BenchResult<&[u8]> {
        gpu.queue.write_buffer(&self.a, 0, a);
        gpu.queue.write_buffer(&self.b, 0, b);
        self.finish(gpu, true)
    }
}

/// A prepared reduction: the data buffer, the total and its read-back.
pub(crate) struct RawReduction {
    kernel: Kernel,
    data: wgpu::Buffer,
    total: wgpu::Buffer,
    staging: wgpu::Buffer,
    group: wgpu::BindGroup,
    grid: [u32; 3],
    dst: Vec<u8>,
}

impl RawReduction {
    /// Compiles `wgsl` (the tree or the subgroup reduction: bindings `data` and `total`, grid
    /// `[reduction_groups(n), 1, 1]`), allocates the buffers and uploads `data` once (for device
    /// timing).
    pub(crate) fn with_kernel(
        gpu: &Gpu,
        data: &[u8],
        label: &str,
        wgsl: &str,
    ) -> BenchResult<Self> {
        let kernel = gpu.kernel(label, wgsl)?;
        let n = (data.len() / 4) as u64;
        let data_buf = gpu.storage("data", n * 4);
        let total = gpu.storage("total", 4);
        let staging = gpu.staging("total read-back", 4);
        let group = gpu.bind(&kernel, &[&data_buf, &total]);
        gpu.queue.write_buffer(&data_buf, 0, data);
        Ok(Self {
            kernel,
            data: data_buf,
            total,
            staging,
            group,
            grid: [workloads::reduction_groups(n), 1, 1],
            dst: Vec::with_capacity(4),
        })
    }

    /// Device time of `reps` back-to-back dispatches after `spin` seconds of clock warm-up. The
    /// timed dispatches keep adding into `total`; only their duration matters here.
    pub(crate) fn device_times(
        &self,
        gpu: &Gpu,
        reps: usize,
        spin: f64,
    ) -> BenchResult<Option<Vec<f64>>> {
        gpu.spin_up(&self.kernel, &self.group, self.grid, spin)?;
        gpu.device_times(&self.kernel, &self.group, self.grid, reps)
    }

    /// The total read back last.
    pub(crate) fn last(&self) -> &[u8] {
        &self.dst
    }

    /// The `data` and `total` buffers, for timing another kernel on the same memory.
    pub(crate) fn buffers(&self) -> [&wgpu::Buffer; 2] {
        [&self.data, &self.total]
    }

    /// One end-to-end repetition: upload, zero the total, dispatch, read the total back.
    pub(crate) fn run(&mut self, gpu: &Gpu, data: &[u8]) -> BenchResult<&[u8]> {
        gpu.queue.write_buffer(&self.data, 0, data);
        let mut encoder = gpu.device.create_command_encoder(&Default::default());
        encoder.clear_buffer(&self.total, 0, None);
        Gpu::record(&mut encoder, &self.kernel, &self.group, self.grid);
        encoder.copy_buffer_to_buffer(&self.total, 0, &self.staging, 0, 4);
        gpu.queue.submit([encoder.finish()]);
        gpu.read_back(&self.staging, 4, &mut self.dst)?;
        Ok(&self.dst)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wgsl;
    use crate::workloads::Elem;

    /// The GPU, or `None` after saying the test skipped; fails when `VYRE_REQUIRE_GPU=1`.
    pub(crate) fn gpu_or_skip(test: &str) -> Option<Gpu> {
        match Gpu::acquire() {
            Ok(gpu) => Some(gpu),
            Err(e) if std::env::var("VYRE_REQUIRE_GPU").as_deref() == Ok("1") => {
                panic!("{test}: VYRE_REQUIRE_GPU=1 but {e}")
            }
            Err(e) => {
                eprintln!("{test}: skipped, no GPU adapter ({e})");
                None
            }
        }
    }

    fn check(what: &str, out: &[u8], n: usize, f: impl Fn(usize) -> u32) {
        workloads::verify_sample(what, out, n, n, f).unwrap();
    }

    #[test]
    fn raw_elementwise_kernels_compute_the_reference_results() {
        let Some(gpu) = gpu_or_skip("raw_elementwise_kernels_compute_the_reference_results") else {
            return;
        };
        let n = 4096 + 64;
        let a = workloads::input_bytes(Elem::U32, n as u64, 1);
        let b = workloads::input_bytes(Elem::U32, n as u64, 2);
        let at = |bytes: &[u8], i| workloads::word_at(bytes, i);
        let mut add = RawElementwise::new(&gpu, "add", &wgsl::add_wgsl(Elem::U32), &a, &b).unwrap();
        let times = add.device_times(&gpu, 3, 0.0).unwrap();
        assert_eq!(times.map(|t| t.len()), gpu.timestamp_period_ns.map(|_| 3));
        if gpu.timestamp_period_ns.is_some() {
            check("add after timing", add.output(&gpu).unwrap(), n, |i| {
                at(&a, i).wrapping_add(at(&b, i))
            });
        }
        check("add", add.run(&gpu, &b, &a).unwrap(), n, |i| {
            at(&a, i).wrapping_add(at(&b, i))
        });
        let salt = workloads::CHAIN_SALT;
        let mut chain =
            RawElementwise::new(&gpu, "chain", &wgsl::chain_wgsl(true, salt), &a, &b).unwrap();
        check("chain", chain.run(&gpu, &a, &b).unwrap(), n, |i| {
            workloads::chain_reference(at(&a, i), at(&b, i), salt)
        });
    }

    #[test]
    fn raw_reduction_and_items_compute_the_reference_results() {
        let Some(gpu) = gpu_or_skip("raw_reduction_and_items_compute_the_reference_results") else {
            return;
        };
        let data = workloads::input_bytes(Elem::U32, 100_000, 4);
        let want = workloads::sum_reference(&data);
        let mut sum =
            RawReduction::with_kernel(&gpu, &data, "tree", &wgsl::reduction_wgsl()).unwrap();
        for _ in 0..2 {
            check("sum", sum.run(&gpu, &data).unwrap(), 1, |_| want);
        }
        if gpu.subgroups {
            let subgroup_wgsl = wgsl::subgroup_reduction_wgsl();
            let mut sum =
                RawReduction::with_kernel(&gpu, &data, "subgroups", &subgroup_wgsl).unwrap();
            check("subgroup sum", sum.run(&gpu, &data).unwrap(), 1, |_| want);
        }
        let items: Vec<Vec<u8>> = (0..100).map(workloads::item_payload).collect();
        let mut batch = RawAddOne::new(&gpu, 100).unwrap();
        batch.run_items(&gpu, &items).unwrap();
        assert_eq!(batch.results().len(), 100);
        for (item, result) in items.iter().zip(batch.results()) {
            assert_eq!(
                workloads::word_at(result, 0),
                workloads::word_at(item, 0) + 1
            );
        }
    }

    #[test]
    fn every_salt_gives_a_new_shader_that_compiles() {
        let Some(gpu) = gpu_or_skip("every_salt_gives_a_new_shader_that_compiles") else {
            return;
        };
        assert_ne!(wgsl::chain_wgsl(false, 1), wgsl::chain_wgsl(false, 3));
        gpu.kernel("scalar chain", &wgsl::chain_wgsl(false, 3))
            .unwrap();
        assert!(gpu.kernel("broken", "fn main( {").is_err());
    }
}
