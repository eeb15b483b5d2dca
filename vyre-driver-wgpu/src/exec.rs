//! Running one launch: upload into pooled buffers, one encoder, one dispatch, one submit, one mapping
//! of every readback.

use std::ops::Range;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use vyre_driver::BackendError;

use crate::backend::Shared;
use crate::device::DeviceState;
use crate::lower::BindingKind;
use crate::pipeline::WgpuPipeline;
use crate::stats::bump;

/// How a bound buffer starts.
pub(crate) enum Init<'a> {
    /// These bytes, then zeros up to the buffer's size.
    Bytes(std::borrow::Cow<'a, [u8]>),
    /// All zeros (outputs).
    Zero,
}

/// One bound buffer of a launch, in the pipeline's binding order.
pub(crate) struct JobBuffer<'a> {
    /// The bytes the shader may touch (a multiple of 4, at least 4).
    pub(crate) bytes: u64,
    pub(crate) init: Init<'a>,
    /// The byte range to read back, if any.
    pub(crate) readback: Option<Range<u64>>,
}

/// One launch.
pub(crate) struct Job<'a> {
    pub(crate) buffers: Vec<JobBuffer<'a>>,
    pub(crate) params: Vec<u32>,
    pub(crate) items: Option<Vec<u32>>,
    pub(crate) physical_grid: [u32; 3],
    pub(crate) timeout: Option<Duration>,
}

/// Where a fault is injected (tests of recovery); see [`crate::WgpuBackend::inject_fault`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FaultPoint {
    /// The device is lost before the inputs are uploaded.
    BeforeUpload,
    /// The device is lost right after the submit.
    AfterSubmit,
    /// The device is lost while the readback is being mapped.
    DuringMap,
}

/// One slot per staging buffer, filled by its `map_async` callback.
type MapSlots = Arc<Mutex<Vec<Option<Result<(), wgpu::BufferAsyncError>>>>>;

struct Leased {
    buffer: wgpu::Buffer,
}

fn lease(
    shared: &Shared,
    state: &DeviceState,
    bytes: u64,
    usage: wgpu::BufferUsages,
) -> Result<Leased, BackendError> {
    if bytes > state.limits.max_buffer_size {
        return Err(BackendError::limit_exceeded(format!(
            "a buffer of {bytes} bytes exceeds this device's maximum buffer size of {} bytes. Fix: split the data over several dispatches.",
            state.limits.max_buffer_size
        )));
    }
    if let Some(buffer) =
        shared
            .pool
            .lock()
            .map_err(|_| poisoned())?
            .take(bytes, usage, state.generation)
    {
        return Ok(Leased { buffer });
    }
    // `bytes <= max_buffer_size` here, so rounding it up to 4 cannot wrap; a buffer too large for a
    // size class (or whose class the device refuses) gets its exact rounded size and is not pooled.
    let size = match crate::pool::size_class(bytes) {
        Some(class) if class <= state.limits.max_buffer_size => class,
        _ => bytes.checked_next_multiple_of(4).ok_or_else(|| {
            BackendError::limit_exceeded(format!(
                "a buffer of {bytes} bytes cannot be rounded to whole words. Fix: use smaller buffers."
            ))
        })?,
    };
    bump(&shared.counters.buffers_created, 1);
    let buffer = state.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("vyre pooled"),
        size,
        usage,
        mapped_at_creation: false,
    });
    Ok(Leased { buffer })
}

pub(crate) fn poisoned() -> BackendError {
    BackendError::new(
        "a vyre lock was poisoned by a panic in another thread. Fix: drop this backend and acquire a new one.",
    )
}

fn usage_for(kind: BindingKind) -> wgpu::BufferUsages {
    use wgpu::BufferUsages as U;
    match kind {
        BindingKind::Uniform => U::UNIFORM | U::COPY_DST,
        _ => U::STORAGE | U::COPY_DST | U::COPY_SRC,
    }
}

/// `bytes` followed by zeros up to `len` bytes: an input shorter than its buffer is zero-extended.
fn zero_extended(bytes: &[u8], len: u64) -> Result<Vec<u8>, BackendError> {
    let len = usize::try_from(len).map_err(|_| {
        BackendError::limit_exceeded(format!(
            "a buffer of {len} bytes does not fit this host's address space. Fix: split the data over several dispatches."
        ))
    })?;
    if bytes.len() > len {
        return Err(BackendError::new(format!(
            "{} input bytes were planned into a {len}-byte buffer. Fix: report this vyre bug with the program text.",
            bytes.len()
        )));
    }
    let mut padded = Vec::new();
    padded.try_reserve_exact(len).map_err(|_| {
        BackendError::out_of_memory(format!(
            "the host could not allocate {len} bytes to stage a buffer. Fix: use smaller buffers."
        ))
    })?;
    padded.extend_from_slice(bytes);
    padded.resize(len, 0);
    Ok(padded)
}

fn words_bytes(words: &[u32]) -> Vec<u8> {
    let mut bytes: Vec<u8> = bytemuck::cast_slice(words).to_vec();
    if bytes.is_empty() {
        bytes.extend_from_slice(&[0; 4]);
    }
    bytes
}

/// How long a readback map may stay pending after its submission finished, when the dispatch has no
/// timeout of its own.
const MAP_GRACE: Duration = Duration::from_secs(10);

/// Waits until every staging map's callback has run. The wait for the submission normally fires them,
/// but with several threads polling one device, another thread's poll may be the one running our
/// callbacks, a moment after our own wait returned; treating that moment as a failed map would send a
/// healthy device through recovery.
fn await_maps(
    state: &DeviceState,
    results: &MapSlots,
    started: std::time::Instant,
    timeout: Option<Duration>,
) -> Result<(), BackendError> {
    let limit = timeout.unwrap_or(MAP_GRACE);
    loop {
        let pending = results
            .lock()
            .map_err(|_| poisoned())?
            .iter()
            .any(Option::is_none);
        if !pending || state.is_lost() {
            return Ok(());
        }
        if started.elapsed() > limit {
            return Err(BackendError::timeout(format!(
                "the readback was not mapped within {limit:?}. Fix: raise `DispatchConfig::timeout`, or check the device's health."
            )));
        }
        state.poll(wgpu::PollType::Poll)?;
        std::thread::yield_now();
    }
}

/// Runs `job` on `pipeline`; returns one byte vector per buffer with a readback, in order.
pub(crate) fn run(
    shared: &Shared,
    state: &DeviceState,
    pipeline: &WgpuPipeline,
    job: Job<'_>,
) -> Result<Vec<Vec<u8>>, BackendError> {
    let fault = shared.take_fault();
    if state.is_lost() {
        return Err(state.lost_error("detected before the dispatch"));
    }
    if fault == Some(FaultPoint::BeforeUpload) {
        shared.lose_device(state);
        return Err(state.lost_error("injected before upload"));
    }
    let device = &state.device;
    let validation = device.push_error_scope(wgpu::ErrorFilter::Validation);
    let oom = device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);

    let mut leased = Vec::with_capacity(job.buffers.len());
    for (binding, buffer) in pipeline.bindings.iter().zip(&job.buffers) {
        let max = match binding.kind {
            BindingKind::Uniform => state.limits.max_uniform_buffer_binding_size,
            _ => state.limits.max_storage_buffer_binding_size,
        };
        if buffer.bytes > max {
            return Err(BackendError::limit_exceeded(format!(
                "buffer `{}` needs {} bytes; this device binds at most {max}. Fix: split the data over several dispatches.",
                pipeline.program.buffers[binding.buffer_index].name, buffer.bytes
            )));
        }
        let lease = lease(shared, state, buffer.bytes, usage_for(binding.kind))?;
        if let Init::Bytes(bytes) = &buffer.init {
            if u64::try_from(bytes.len()).is_ok_and(|len| len == buffer.bytes) {
                state.queue.write_buffer(&lease.buffer, 0, bytes);
            } else {
                state
                    .queue
                    .write_buffer(&lease.buffer, 0, &zero_extended(bytes, buffer.bytes)?);
            }
        }
        leased.push(lease);
    }
    let params = words_bytes(&job.params);
    let params_buf = lease(
        shared,
        state,
        params.len() as u64,
        usage_for(BindingKind::StorageReadOnly),
    )?;
    state.queue.write_buffer(&params_buf.buffer, 0, &params);
    let items_buf = match &job.items {
        Some(items) => {
            let bytes = words_bytes(items);
            let lease = lease(
                shared,
                state,
                bytes.len() as u64,
                usage_for(BindingKind::StorageReadOnly),
            )?;
            state.queue.write_buffer(&lease.buffer, 0, &bytes);
            Some((lease, bytes.len() as u64))
        }
        None => None,
    };

    let entries: Vec<wgpu::BindGroupEntry<'_>> = pipeline
        .bindings
        .iter()
        .zip(&leased)
        .zip(&job.buffers)
        .map(|((b, l), jb)| wgpu::BindGroupEntry {
            binding: b.binding,
            resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                buffer: &l.buffer,
                offset: 0,
                size: wgpu::BufferSize::new(jb.bytes),
            }),
        })
        .collect();
    let user_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("vyre program buffers"),
        layout: &pipeline.user_layout,
        entries: &entries,
    });
    let mut internal_entries = vec![wgpu::BindGroupEntry {
        binding: 0,
        resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
            buffer: &params_buf.buffer,
            offset: 0,
            size: wgpu::BufferSize::new(params.len() as u64),
        }),
    }];
    if let Some((items, len)) = &items_buf {
        internal_entries.push(wgpu::BindGroupEntry {
            binding: 1,
            resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                buffer: &items.buffer,
                offset: 0,
                size: wgpu::BufferSize::new(*len),
            }),
        });
    }
    let internal_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("vyre internal"),
        layout: &pipeline.internal_layout,
        entries: &internal_entries,
    });

    let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
        label: Some("vyre"),
    });
    for (l, jb) in leased.iter().zip(&job.buffers) {
        if matches!(jb.init, Init::Zero) {
            encoder.clear_buffer(&l.buffer, 0, Some(jb.bytes));
        }
    }
    {
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("vyre"),
            timestamp_writes: None,
        });
        pass.set_pipeline(&pipeline.pipeline);
        pass.set_bind_group(0, &user_group, &[]);
        pass.set_bind_group(1, &internal_group, &[]);
        let [x, y, z] = job.physical_grid;
        pass.dispatch_workgroups(x, y, z);
    }
    bump(&shared.counters.dispatch_calls, 1);
    let mut staging = Vec::new();
    for (l, jb) in leased.iter().zip(&job.buffers) {
        if let Some(range) = &jb.readback {
            if range.start > range.end || range.end > jb.bytes {
                return Err(BackendError::new(format!(
                    "the readback range {range:?} lies outside its {}-byte buffer. Fix: report this vyre bug with the program text.",
                    jb.bytes
                )));
            }
            // `range.end <= jb.bytes`, a multiple of 4, so rounding up to 4 cannot pass it or wrap.
            let start = range.start / 4 * 4;
            let end = range.end.next_multiple_of(4).min(jb.bytes);
            let len = (end - start).max(4);
            let s = lease(
                shared,
                state,
                len,
                wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            )?;
            if end > start {
                encoder.copy_buffer_to_buffer(&l.buffer, start, &s.buffer, 0, end - start);
            }
            staging.push((s, start, end, range.clone()));
        }
    }
    let submission = state.queue.submit(Some(encoder.finish()));
    bump(&shared.counters.submits, 1);
    let oom_error = pollster::block_on(oom.pop());
    let validation_error = pollster::block_on(validation.pop());
    if (oom_error.is_some() || validation_error.is_some()) && state.confirm_lost() {
        // Work on a destroyed device fails validation ("buffer is invalid"); that is the loss
        // showing, not a bug, and recovery is the answer.
        return Err(state.lost_error("the submission failed on the lost device"));
    }
    if let Some(e) = oom_error {
        return Err(BackendError::out_of_memory(format!(
            "the device ran out of memory: {e}. Fix: use smaller buffers or free device memory."
        )));
    }
    if let Some(e) = validation_error {
        return Err(BackendError::new(format!(
            "wgpu rejected the dispatch: {e}. Fix: this is a vyre bug unless a device limit was exceeded; report it with the program text."
        )));
    }
    if fault == Some(FaultPoint::AfterSubmit) {
        shared.lose_device(state);
    }

    let results: MapSlots = Arc::new(Mutex::new(vec![None; staging.len()]));
    for (i, (s, start, end, _)) in staging.iter().enumerate() {
        let sink = Arc::clone(&results);
        s.buffer
            .slice(0..(end - start).max(4))
            .map_async(wgpu::MapMode::Read, move |r| {
                if let Ok(mut slots) = sink.lock() {
                    slots[i] = Some(r);
                }
            });
    }
    if fault == Some(FaultPoint::DuringMap) {
        shared.lose_device(state);
    }
    let started = std::time::Instant::now();
    state.poll(wgpu::PollType::Wait {
        submission_index: Some(submission),
        timeout: job.timeout,
    })?;
    await_maps(state, &results, started, job.timeout)?;
    if state.is_lost() {
        return Err(state.lost_error("during the dispatch"));
    }
    if let Some(error) = state.uncaptured.lock().ok().and_then(|mut e| e.take()) {
        if state.confirm_lost() {
            return Err(state.lost_error(&format!("during the dispatch: {error}")));
        }
        return Err(BackendError::new(format!(
            "wgpu reported an error during the dispatch: {error}. Fix: this is a vyre bug unless a device limit was exceeded; report it with the program text."
        )));
    }
    let mut outputs = Vec::with_capacity(staging.len());
    {
        let slots = results.lock().map_err(|_| poisoned())?;
        for (slot, (s, start, end, range)) in slots.iter().zip(&staging) {
            match slot {
                Some(Ok(())) => {}
                _ if state.confirm_lost() => {
                    return Err(state.lost_error("the readback could not be mapped"));
                }
                _ => {
                    return Err(BackendError::new(
                        "wgpu could not map a readback buffer although the device is healthy. Fix: retry the dispatch; report it to the vyre developers if it persists.",
                    ));
                }
            }
            let view = s
                .buffer
                .slice(0..(end - start).max(4))
                .get_mapped_range()
                .map_err(|e| state.lost_error(&format!("mapping failed: {e}")))?;
            // Both offsets are below the staging buffer's length, which was mapped into memory.
            let from = usize::try_from(range.start - start).unwrap_or(usize::MAX);
            let to = usize::try_from(range.end - start).unwrap_or(usize::MAX);
            let bytes = view.get(from..to).ok_or_else(|| {
                BackendError::new(
                    "a readback range lies outside its mapped staging buffer. Fix: report this vyre bug with the program text.",
                )
            })?;
            outputs.push(bytes.to_vec());
        }
    }
    let mut pool = shared.pool.lock().map_err(|_| poisoned())?;
    for (s, ..) in staging {
        s.buffer.unmap();
        pool.give(s.buffer, state.generation);
    }
    for l in leased {
        pool.give(l.buffer, state.generation);
    }
    pool.give(params_buf.buffer, state.generation);
    if let Some((items, _)) = items_buf {
        pool.give(items.buffer, state.generation);
    }
    Ok(outputs)
}
