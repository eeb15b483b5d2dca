//! The host link, raw wgpu only: how fast bytes go from a host slice into a device buffer and back
//! into a host `Vec`, each step timed on its own, at 1 MiB to 1 GiB (cut by `--max-bytes` and the
//! device's largest buffer), so `BENCHMARKS.md` can say where the limit of an end-to-end dispatch is.
//!
//! Upload, two ways: `queue.write_buffer` (wgpu stages the bytes in a buffer it allocates for that
//! call; the call and the submit that copies them are timed apart) and a ring of three reused 64 MiB
//! `MAP_WRITE` staging buffers (what vyre does past 64 MiB: map, copy in, unmap, copy, submit, the
//! host filling one while the device copies another). Read-back, step by step through one reused
//! `MAP_READ` buffer of the whole size: the device copy into it (submit and wait), the map, and the
//! host copy into a reused `Vec` and into a new one (a new `Vec` also pays its page faults, which is
//! what `dispatch`'s returned vectors pay); then the whole read-back through a ring of three reused
//! 64 MiB staging buffers into a new `Vec` (what vyre does past 64 MiB).

use std::sync::mpsc;
use std::time::Instant;

use crate::gpu::{BenchResult, Gpu};
use crate::report::{Measure, Stat};
use crate::stats::Summary;
use crate::workloads::{self, Elem, MIB};

use super::{RowBase, Suite};

/// The ring's chunk and slots (as vyre's `launch::readback::{CHUNK, RING}`).
const CHUNK: u64 = 64 * MIB;
const RING: usize = 3;

/// One figure's samples, in seconds.
type Figure = (&'static str, Vec<f64>);

impl Suite<'_> {
    /// The host link rows (raw wgpu only).
    pub(super) fn link(&mut self) -> BenchResult<()> {
        let cap = self.options.max_bytes.min(self.gpu.limits.max_buffer_size);
        for size in workloads::bandwidth_sizes(cap) {
            let figures = link_case(self.gpu, size, self.reps_for(size).timed)?;
            let base = RowBase {
                workload: "link",
                case: format!("{} MiB", size / MIB),
                baseline_name: "raw",
            };
            for (figure, samples) in &figures {
                if Summary::of(samples).is_none() {
                    continue;
                }
                self.rows.push(base.row(
                    figure,
                    Measure::Throughput { bytes: size },
                    Stat::P50,
                    (None, Some(samples)),
                    None,
                ));
            }
            self.gpu.check_errors("the link workload")?;
        }
        Ok(())
    }
}

/// Every figure of one size, over `reps` timed repetitions after one warm-up.
fn link_case(gpu: &Gpu, size: u64, reps: usize) -> BenchResult<Vec<Figure>> {
    let data = workloads::input_bytes(Elem::U32, size / 4, 7);
    let device = gpu.storage("link device", size);
    let staging = gpu.staging("link read-back", size);
    let ring_up: Vec<wgpu::Buffer> = (0..RING)
        .map(|_| {
            gpu.buffer(
                "link upload ring",
                CHUNK.min(size),
                wgpu::BufferUsages::MAP_WRITE | wgpu::BufferUsages::COPY_SRC,
            )
        })
        .collect();
    let ring_down: Vec<wgpu::Buffer> = (0..RING)
        .map(|_| gpu.staging("link read-back ring", CHUNK.min(size)))
        .collect();
    let mut figures: Vec<Figure> = [
        "upload: write_buffer call",
        "upload: submit + wait",
        "upload: write_buffer total",
        "upload: staging ring total",
        "read-back: copy to MAP_READ",
        "read-back: map",
        "read-back: memcpy, reused Vec",
        "read-back: memcpy, new Vec",
        "read-back: step total, new Vec",
        "read-back: staging ring total",
    ]
    .into_iter()
    .map(|name| (name, Vec::with_capacity(reps)))
    .collect();
    let mut reused = Vec::with_capacity(size as usize);
    for rep in 0..=reps {
        let mut t = [0.0f64; 10];
        // Upload through write_buffer.
        let start = Instant::now();
        gpu.queue.write_buffer(&device, 0, &data);
        t[0] = start.elapsed().as_secs_f64();
        let submitted = Instant::now();
        gpu.queue.submit([]);
        gpu.wait()?;
        t[1] = submitted.elapsed().as_secs_f64();
        t[2] = start.elapsed().as_secs_f64();
        // Upload through the ring.
        let start = Instant::now();
        upload_ring(gpu, &ring_up, &device, &data)?;
        t[3] = start.elapsed().as_secs_f64();
        // Read-back step by step.
        let start = Instant::now();
        let mut encoder = gpu.device.create_command_encoder(&Default::default());
        encoder.copy_buffer_to_buffer(&device, 0, &staging, 0, size);
        gpu.queue.submit([encoder.finish()]);
        gpu.wait()?;
        t[4] = start.elapsed().as_secs_f64();
        let mapped = Instant::now();
        map(gpu, &staging, size, wgpu::MapMode::Read)?;
        t[5] = mapped.elapsed().as_secs_f64();
        let copied = Instant::now();
        let fresh = {
            let view = staging.slice(..size).get_mapped_range().map_err(|e| {
                format!("the mapped range was refused ({e}). Fix: report this as a harness bug.")
            })?;
            reused.clear();
            reused.extend_from_slice(&view);
            t[6] = copied.elapsed().as_secs_f64();
            let copied = Instant::now();
            let fresh = view.to_vec();
            t[7] = copied.elapsed().as_secs_f64();
            fresh
        };
        staging.unmap();
        t[8] = start.elapsed().as_secs_f64() - t[6];
        // Read-back through the ring.
        let start = Instant::now();
        let ringed = read_ring(gpu, &ring_down, &device, size)?;
        t[9] = start.elapsed().as_secs_f64();
        if fresh != data || ringed != data || reused != data {
            return Err(format!(
                "the link workload read back other bytes than it wrote at {} MiB. Fix: report this as a harness or driver bug.",
                size / MIB
            ));
        }
        if rep > 0 {
            for (figure, sample) in figures.iter_mut().zip(t) {
                figure.1.push(sample);
            }
        }
    }
    Ok(figures)
}

/// Maps `len` bytes of `buffer` and waits for the map.
fn map(gpu: &Gpu, buffer: &wgpu::Buffer, len: u64, mode: wgpu::MapMode) -> BenchResult<()> {
    let (tx, rx) = mpsc::channel();
    buffer.slice(..len).map_async(mode, move |r| {
        let _ = tx.send(r);
    });
    gpu.wait()?;
    rx.recv()
        .map_err(|_| "the map callback never ran. Fix: report this as a harness bug.".to_string())?
        .map_err(|e| format!("mapping failed ({e}). Fix: check the driver."))
}

/// Writes `data` into `dest` through the ring of `MAP_WRITE` buffers, one submit per chunk.
fn upload_ring(
    gpu: &Gpu,
    ring: &[wgpu::Buffer],
    dest: &wgpu::Buffer,
    data: &[u8],
) -> BenchResult<()> {
    for (k, chunk) in data.chunks(CHUNK as usize).enumerate() {
        let slot = &ring[k % ring.len()];
        let len = chunk.len() as u64;
        let (tx, rx) = mpsc::channel();
        slot.slice(..len).map_async(wgpu::MapMode::Write, move |r| {
            let _ = tx.send(r);
        });
        // The map completes once the device has copied the slot's previous chunk.
        loop {
            gpu.device
                .poll(wgpu::PollType::Poll)
                .map_err(|e| format!("polling failed ({e}). Fix: check the driver."))?;
            match rx.try_recv() {
                Ok(r) => {
                    r.map_err(|e| format!("mapping failed ({e}). Fix: check the driver."))?;
                    break;
                }
                Err(mpsc::TryRecvError::Empty) => std::thread::yield_now(),
                Err(mpsc::TryRecvError::Disconnected) => {
                    return Err(
                        "the map callback was dropped. Fix: report this as a harness bug.".into(),
                    );
                }
            }
        }
        {
            let mut view = slot.slice(..len).get_mapped_range_mut().map_err(|e| {
                format!("the mapped range was refused ({e}). Fix: report this as a harness bug.")
            })?;
            view.copy_from_slice(chunk);
        }
        slot.unmap();
        let mut encoder = gpu.device.create_command_encoder(&Default::default());
        encoder.copy_buffer_to_buffer(slot, 0, dest, k as u64 * CHUNK, len);
        gpu.queue.submit([encoder.finish()]);
    }
    gpu.wait()
}

/// Reads `size` bytes of `source` into a new `Vec` through the ring of `MAP_READ` buffers: the
/// device copies chunks `k + 1 ..` while the host copies chunk `k` out.
fn read_ring(
    gpu: &Gpu,
    ring: &[wgpu::Buffer],
    source: &wgpu::Buffer,
    size: u64,
) -> BenchResult<Vec<u8>> {
    let chunks = size.div_ceil(CHUNK) as usize;
    let len = |k: usize| CHUNK.min(size - k as u64 * CHUNK);
    let mut receivers = Vec::with_capacity(chunks);
    let request = |k: usize| {
        let slot = &ring[k % ring.len()];
        let mut encoder = gpu.device.create_command_encoder(&Default::default());
        encoder.copy_buffer_to_buffer(source, k as u64 * CHUNK, slot, 0, len(k));
        gpu.queue.submit([encoder.finish()]);
        let (tx, rx) = mpsc::channel();
        slot.slice(..len(k))
            .map_async(wgpu::MapMode::Read, move |r| {
                let _ = tx.send(r);
            });
        rx
    };
    for k in 0..chunks.min(ring.len()) {
        receivers.push(Some(request(k)));
    }
    let mut out = Vec::with_capacity(size as usize);
    for k in 0..chunks {
        let Some(rx) = receivers.get_mut(k).and_then(Option::take) else {
            return Err(
                "a read-back chunk was never requested. Fix: report this as a harness bug.".into(),
            );
        };
        loop {
            match rx.try_recv() {
                Ok(r) => {
                    r.map_err(|e| format!("mapping failed ({e}). Fix: check the driver."))?;
                    break;
                }
                Err(mpsc::TryRecvError::Empty) => {
                    gpu.device
                        .poll(wgpu::PollType::Poll)
                        .map_err(|e| format!("polling failed ({e}). Fix: check the driver."))?;
                    std::thread::yield_now();
                }
                Err(mpsc::TryRecvError::Disconnected) => {
                    return Err(
                        "the map callback was dropped. Fix: report this as a harness bug.".into(),
                    );
                }
            }
        }
        let slot = &ring[k % ring.len()];
        {
            let view = slot.slice(..len(k)).get_mapped_range().map_err(|e| {
                format!("the mapped range was refused ({e}). Fix: report this as a harness bug.")
            })?;
            out.extend_from_slice(&view);
        }
        slot.unmap();
        if k + ring.len() < chunks {
            receivers.push(Some(request(k + ring.len())));
        }
    }
    Ok(out)
}
