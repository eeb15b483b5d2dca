//! The raw baselines: hand-written WGSL on plain wgpu, done the best way we know.
//!
//! What "best" means here: vec4 loads and stores where the data allows it, pipelines and bind groups
//! created once and reused, buffers pooled across repetitions, one submission per repetition (upload,
//! dispatch and copy-out recorded together), and results copied into host memory exactly as vyre
//! hands them back. Every result is checked against the CPU reference before it is timed.

use std::time::Instant;

use crate::gpu::{BenchResult, Gpu, Kernel, WORKGROUP, fold_grid};
use crate::workloads::{self, Elem};

/// How many times each kind of figure is measured.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Reps {
    /// Untimed runs before the first timed one (pipelines, allocations and caches warm up).
    pub(crate) warmup: usize,
    /// Timed runs for device-time figures and cheap end-to-end figures.
    pub(crate) timed: usize,
    /// Timed end-to-end runs of large transfers (fewer, since each moves gigabytes over the bus).
    pub(crate) heavy: usize,
}

/// Device time (GPU timestamps) and end-to-end time (upload, dispatch, read-back) of one case.
pub(crate) struct Timings {
    /// Seconds per dispatch between the pass's timestamps, when the adapter has them.
    pub(crate) device: Option<Vec<f64>>,
    /// Seconds per repetition on the host clock.
    pub(crate) end_to_end: Vec<f64>,
}

/// The WGSL of an elementwise kernel over `array<vec4<ty>>` (`vec4 = true`) or `array<ty>`, whose
/// statements `body` read `x = a[i]` and `y = b[i]` and end by storing `out[i]`.
fn elementwise_wgsl(ty: &str, vec4: bool, body: &str) -> String {
    let t = if vec4 {
        format!("vec4<{ty}>")
    } else {
        ty.to_string()
    };
    format!(
        "@group(0) @binding(0) var<storage, read> a: array<{t}>;
@group(0) @binding(1) var<storage, read> b: array<{t}>;
@group(0) @binding(2) var<storage, read_write> out: array<{t}>;

@compute @workgroup_size({WORKGROUP})
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {{
    let i = (wid.x + wid.y * nwg.x) * {WORKGROUP}u + lid;
    if (i >= arrayLength(&out)) {{
        return;
    }}
    let x = a[i];
    let y = b[i];
{body}
}}
"
    )
}

/// `out = a + b` over vec4 of `elem`.
pub(crate) fn add_wgsl(elem: Elem) -> String {
    elementwise_wgsl(elem.name(), true, "    out[i] = x + y;")
}

/// The ten-operation chain of [`workloads::chain_reference`], over vec4<u32> or scalar u32.
pub(crate) fn chain_wgsl(vec4: bool, salt: u32) -> String {
    let k = |v: u32| {
        if vec4 {
            format!("vec4<u32>({v}u)")
        } else {
            format!("{v}u")
        }
    };
    let body = format!(
        "    var v = x + y;
    v = v * {three};
    let s = v >> {five};
    v = v ^ s;
    v = v + y;
    v = v * {salt};
    v = v ^ x;
    v = v | {one};
    v = v - {seven};
    out[i] = max(v, y);",
        three = k(3),
        five = k(5),
        salt = k(salt),
        one = k(1),
        seven = k(7),
    );
    elementwise_wgsl("u32", vec4, &body)
}

/// Grid-strided vec4 sum per invocation, a tree over workgroup memory, one atomic per workgroup.
pub(crate) fn reduction_wgsl() -> String {
    format!(
        "@group(0) @binding(0) var<storage, read> data: array<vec4<u32>>;
@group(0) @binding(1) var<storage, read_write> total: array<atomic<u32>>;
var<workgroup> partial: array<u32, {WORKGROUP}>;

@compute @workgroup_size({WORKGROUP})
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {{
    let stride = nwg.x * {WORKGROUP}u;
    let n = arrayLength(&data);
    var acc = vec4<u32>(0u);
    for (var i = wid.x * {WORKGROUP}u + lid; i < n; i += stride) {{
        acc += data[i];
    }}
    partial[lid] = acc.x + acc.y + acc.z + acc.w;
    workgroupBarrier();
    for (var half = {half}u; half > 0u; half >>= 1u) {{
        if (lid < half) {{
            partial[lid] += partial[lid + half];
        }}
        workgroupBarrier();
    }}
    if (lid == 0u) {{
        atomicAdd(&total[0], partial[0]);
    }}
}}
",
        half = WORKGROUP / 2
    )
}

/// One word per invocation: `out[i] = input[i] + 1` (the round trip and the batched items).
pub(crate) fn add_one_wgsl() -> String {
    "@group(0) @binding(0) var<storage, read> input: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    if (gid.x < arrayLength(&out)) {
        out[gid.x] = input[gid.x] + 1u;
    }
}
"
    .to_string()
}

/// Pooled buffers and a bound kernel for one-word-per-item work over `n` items.
struct AddOne {
    kernel: Kernel,
    input: wgpu::Buffer,
    out: wgpu::Buffer,
    staging: wgpu::Buffer,
    group: wgpu::BindGroup,
    n: u64,
}

impl AddOne {
    fn new(gpu: &Gpu, kernel: Kernel, n: u64) -> Self {
        let input = gpu.storage("items in", n * 4);
        let out = gpu.storage("items out", n * 4);
        let staging = gpu.staging("items read-back", n * 4);
        let group = gpu.bind(&kernel, &[&input, &out]);
        Self {
            kernel,
            input,
            out,
            staging,
            group,
            n,
        }
    }

    /// Uploads `words`, runs one dispatch over all of them and reads the results into `dst`.
    fn run(&self, gpu: &Gpu, words: &[u8], dst: &mut Vec<u8>) -> BenchResult<()> {
        gpu.queue.write_buffer(&self.input, 0, words);
        let mut encoder = gpu.device.create_command_encoder(&Default::default());
        let grid = [self.n.div_ceil(64) as u32, 1, 1];
        Gpu::record(&mut encoder, &self.kernel, &self.group, grid);
        encoder.copy_buffer_to_buffer(&self.out, 0, &self.staging, 0, self.n * 4);
        gpu.queue.submit([encoder.finish()]);
        gpu.read_back(&self.staging, self.n * 4, dst)
    }
}

/// End-to-end latency of one word through a cached pipeline: write, dispatch, copy, map, read.
pub(crate) fn round_trip(gpu: &Gpu, reps: Reps) -> BenchResult<Vec<f64>> {
    let runner = AddOne::new(gpu, gpu.kernel("raw round trip", &add_one_wgsl())?, 1);
    let mut dst = Vec::with_capacity(4);
    let mut times = Vec::with_capacity(reps.timed);
    for rep in 0..reps.warmup + reps.timed {
        let value = workloads::word(3, rep as u64);
        let start = Instant::now();
        runner.run(gpu, &value.to_le_bytes(), &mut dst)?;
        let elapsed = start.elapsed().as_secs_f64();
        workloads::verify_sample("raw round trip", &dst, 1, 1, |_| value.wrapping_add(1))?;
        if rep >= reps.warmup {
            times.push(elapsed);
        }
    }
    gpu.check_errors("the raw round trip")?;
    Ok(times)
}

/// One hand-batched launch over all items: gather the payloads into one upload, one dispatch, one
/// read-back, then split the result into one vector per item (what vyre's queue returns).
pub(crate) fn batched_items(
    gpu: &Gpu,
    items: &[Vec<u8>],
    reps: Reps,
) -> BenchResult<(Vec<f64>, Vec<Vec<u8>>)> {
    let n = items.len() as u64;
    let runner = AddOne::new(gpu, gpu.kernel("raw batched items", &add_one_wgsl())?, n);
    let mut gathered = Vec::with_capacity(items.len() * 4);
    let mut dst = Vec::with_capacity(items.len() * 4);
    let mut results = Vec::new();
    let mut times = Vec::with_capacity(reps.timed);
    for rep in 0..reps.warmup + reps.timed {
        let start = Instant::now();
        gathered.clear();
        for item in items {
            gathered.extend_from_slice(item);
        }
        runner.run(gpu, &gathered, &mut dst)?;
        results = dst.chunks_exact(4).map(<[u8]>::to_vec).collect();
        let elapsed = start.elapsed().as_secs_f64();
        if rep >= reps.warmup {
            times.push(elapsed);
        }
    }
    gpu.check_errors("the raw batched items")?;
    Ok((times, results))
}

/// Pooled buffers of one elementwise case (`a`, `b`, `out`, read-back) with the kernel bound.
struct Elementwise {
    kernel: Kernel,
    a: wgpu::Buffer,
    b: wgpu::Buffer,
    out: wgpu::Buffer,
    staging: wgpu::Buffer,
    group: wgpu::BindGroup,
    grid: [u32; 3],
    bytes: u64,
}

impl Elementwise {
    fn new(gpu: &Gpu, kernel: Kernel, bytes: u64) -> Self {
        let a = gpu.storage("a", bytes);
        let b = gpu.storage("b", bytes);
        let out = gpu.storage("out", bytes);
        let staging = gpu.staging("out read-back", bytes);
        let group = gpu.bind(&kernel, &[&a, &b, &out]);
        let vec4s = bytes / 16;
        let grid = fold_grid(
            vec4s.div_ceil(u64::from(WORKGROUP)),
            gpu.max_groups_per_dim(),
        );
        Self {
            kernel,
            a,
            b,
            out,
            staging,
            group,
            grid,
            bytes,
        }
    }

    /// Upload both inputs, dispatch, copy out and read back in one submission.
    fn end_to_end(&self, gpu: &Gpu, a: &[u8], b: &[u8], dst: &mut Vec<u8>) -> BenchResult<()> {
        gpu.queue.write_buffer(&self.a, 0, a);
        gpu.queue.write_buffer(&self.b, 0, b);
        let mut encoder = gpu.device.create_command_encoder(&Default::default());
        Gpu::record(&mut encoder, &self.kernel, &self.group, self.grid);
        encoder.copy_buffer_to_buffer(&self.out, 0, &self.staging, 0, self.bytes);
        gpu.queue.submit([encoder.finish()]);
        gpu.read_back(&self.staging, self.bytes, dst)
    }
}

/// Device and end-to-end time of an elementwise kernel (`wgsl` over vec4) on inputs `a`, `b`; the
/// output is checked against `expected` after the device runs and after the last end-to-end run.
pub(crate) fn elementwise(
    gpu: &Gpu,
    label: &str,
    wgsl: &str,
    (a, b): (&[u8], &[u8]),
    expected: &dyn Fn(usize) -> u32,
    reps: Reps,
) -> BenchResult<Timings> {
    let bytes = a.len() as u64;
    let n = a.len() / 4;
    let case = Elementwise::new(gpu, gpu.kernel(label, wgsl)?, bytes);
    let mut dst = Vec::with_capacity(a.len());
    for _ in 0..reps.warmup.max(1) {
        case.end_to_end(gpu, a, b, &mut dst)?;
    }
    workloads::verify_sample(label, &dst, n, 4096, expected)?;
    let device = gpu.device_times(&case.kernel, &case.group, case.grid, reps.timed)?;
    let mut end_to_end = Vec::with_capacity(reps.heavy);
    for _ in 0..reps.heavy {
        dst.clear();
        let start = Instant::now();
        case.end_to_end(gpu, a, b, &mut dst)?;
        end_to_end.push(start.elapsed().as_secs_f64());
    }
    workloads::verify_sample(label, &dst, n, 4096, expected)?;
    gpu.check_errors(label)?;
    Ok(Timings { device, end_to_end })
}

/// Pooled buffers of one reduction case.
struct Reduction {
    kernel: Kernel,
    data: wgpu::Buffer,
    total: wgpu::Buffer,
    staging: wgpu::Buffer,
    group: wgpu::BindGroup,
    grid: [u32; 3],
}

impl Reduction {
    fn new(gpu: &Gpu, kernel: Kernel, n: u64) -> Self {
        let data = gpu.storage("data", n * 4);
        let total = gpu.storage("total", 4);
        let staging = gpu.staging("total read-back", 4);
        let group = gpu.bind(&kernel, &[&data, &total]);
        let grid = [workloads::reduction_groups(n), 1, 1];
        Self {
            kernel,
            data,
            total,
            staging,
            group,
            grid,
        }
    }

    /// Upload, zero the total, dispatch, read the total back.
    fn end_to_end(&self, gpu: &Gpu, data: &[u8], dst: &mut Vec<u8>) -> BenchResult<()> {
        gpu.queue.write_buffer(&self.data, 0, data);
        let mut encoder = gpu.device.create_command_encoder(&Default::default());
        encoder.clear_buffer(&self.total, 0, None);
        Gpu::record(&mut encoder, &self.kernel, &self.group, self.grid);
        encoder.copy_buffer_to_buffer(&self.total, 0, &self.staging, 0, 4);
        gpu.queue.submit([encoder.finish()]);
        gpu.read_back(&self.staging, 4, dst)
    }
}

/// Device and end-to-end time of the raw reduction over `data`, checked against `expected`.
pub(crate) fn reduction(gpu: &Gpu, data: &[u8], expected: u32, reps: Reps) -> BenchResult<Timings> {
    let n = (data.len() / 4) as u64;
    let case = Reduction::new(gpu, gpu.kernel("raw reduction", &reduction_wgsl())?, n);
    let mut dst = Vec::with_capacity(4);
    for _ in 0..reps.warmup.max(1) {
        case.end_to_end(gpu, data, &mut dst)?;
    }
    workloads::verify_sample("raw reduction", &dst, 1, 1, |_| expected)?;
    // The timed dispatches keep adding into `total`; only their duration matters here.
    let device = gpu.device_times(&case.kernel, &case.group, case.grid, reps.timed)?;
    let mut end_to_end = Vec::with_capacity(reps.heavy);
    for _ in 0..reps.heavy {
        let start = Instant::now();
        case.end_to_end(gpu, data, &mut dst)?;
        end_to_end.push(start.elapsed().as_secs_f64());
    }
    workloads::verify_sample("raw reduction", &dst, 1, 1, |_| expected)?;
    gpu.check_errors("the raw reduction")?;
    Ok(Timings { device, end_to_end })
}

/// Cold compiles of WGSL text: `create_shader_module` plus `create_compute_pipeline`, one fresh
/// shader per repetition (`wgsl_for(rep)` must differ every time so no cache can answer).
pub(crate) fn compile(
    gpu: &Gpu,
    wgsl_for: &dyn Fn(usize) -> String,
    reps: Reps,
) -> BenchResult<Vec<f64>> {
    let mut times = Vec::with_capacity(reps.timed);
    for rep in 0..reps.warmup + reps.timed {
        let source = wgsl_for(rep);
        let start = Instant::now();
        let kernel = gpu.kernel("raw compile", &source)?;
        let elapsed = start.elapsed().as_secs_f64();
        drop(kernel);
        if rep >= reps.warmup {
            times.push(elapsed);
        }
    }
    Ok(times)
}

#[cfg(test)]
mod tests {
    use super::*;

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

    const FEW: Reps = Reps {
        warmup: 1,
        timed: 2,
        heavy: 2,
    };

    #[test]
    fn raw_baselines_compute_the_reference_results() {
        let Some(gpu) = gpu_or_skip("raw_baselines_compute_the_reference_results") else {
            return;
        };
        let n = 4096 + 64;
        let a = workloads::input_bytes(Elem::U32, n, 1);
        let b = workloads::input_bytes(Elem::U32, n, 2);
        let at = |bytes: &[u8], i| workloads::word_at(bytes, i);
        let add = |i: usize| at(&a, i).wrapping_add(at(&b, i));
        let t = elementwise(&gpu, "add", &add_wgsl(Elem::U32), (&a, &b), &add, FEW).unwrap();
        assert_eq!(t.end_to_end.len(), 2);
        assert_eq!(
            t.device.map(|d| d.len()),
            gpu.timestamp_period_ns.map(|_| 2)
        );
        let salt = workloads::CHAIN_SALT;
        let chain = |i: usize| workloads::chain_reference(at(&a, i), at(&b, i), salt);
        elementwise(
            &gpu,
            "chain",
            &chain_wgsl(true, salt),
            (&a, &b),
            &chain,
            FEW,
        )
        .unwrap();
        let wrong = |i: usize| add(i) ^ 1;
        assert!(elementwise(&gpu, "add", &add_wgsl(Elem::U32), (&a, &b), &wrong, FEW).is_err());
        let sum = workloads::sum_reference(&a);
        reduction(&gpu, &a, sum, FEW).unwrap();
        assert!(reduction(&gpu, &a, sum.wrapping_add(1), FEW).is_err());
        let items: Vec<Vec<u8>> = (0..100).map(workloads::item_payload).collect();
        let (_, results) = batched_items(&gpu, &items, FEW).unwrap();
        for (item, result) in items.iter().zip(&results) {
            assert_eq!(at(result, 0), at(item, 0).wrapping_add(1));
        }
        assert_eq!(round_trip(&gpu, FEW).unwrap().len(), 2);
    }

    #[test]
    fn scalar_chain_wgsl_compiles_and_every_salt_gives_new_source() {
        let Some(gpu) = gpu_or_skip("scalar_chain_wgsl_compiles_and_every_salt_gives_new_source")
        else {
            return;
        };
        let times = compile(&gpu, &|rep| chain_wgsl(false, rep as u32 * 2 + 1), FEW).unwrap();
        assert_eq!(times.len(), 2);
        assert_ne!(chain_wgsl(false, 1), chain_wgsl(false, 3));
    }
}
