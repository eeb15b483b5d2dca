//! The readback stage: the requested byte ranges of device buffers copied into host vectors through a
//! small ring of reused staging buffers, chunk by chunk, so that the host copies chunk `k` out of its
//! mapped staging buffer while the device copies chunks `k + 1 ..` into the others.
//!
//! A readback of at most [`CHUNK`] bytes per buffer takes one staging buffer per range, copied in
//! the launch's own submit (as before the ring existed). Larger ones never take a staging buffer of
//! their whole size: at most [`RING`](super::ring::RING) buffers of [`CHUNK`] bytes, leased from the pool and given
//! back, so a 1 GiB output read per call reuses the same 192 MiB of staging.

use std::ops::Range;
use std::sync::Arc;
use std::time::Instant;

use vyre_driver::BackendError;

use super::context::LaunchContext;
use super::fault::FaultPoint;
use super::ring::{RING, lease};
use super::submit;
use crate::poller::Signal;
use crate::stats::Phase;

/// The largest piece a staging buffer holds. Every piece costs a submit and a map round trip (tens
/// of microseconds on a discrete GPU), so pieces are large enough for that to vanish against the
/// copy itself (64 MiB at 25 GB/s is 2.7 ms), and small enough that the ring stays a small share of
/// the pool.
pub(crate) const CHUNK: u64 = 64 << 20;

/// One requested range: `range` of `source` (`bytes` long), copied as the word-aligned span
/// around it.
pub(super) struct Read {
    pub(super) source: wgpu::Buffer,
    pub(super) bytes: u64,
    pub(super) range: Range<u64>,
}

/// One piece of a readback: `len` bytes of read `read`'s source from byte `from` (word-aligned).
struct Piece {
    read: usize,
    from: u64,
    len: u64,
}

/// One staging buffer of the ring and the piece it holds now; `map` fires when it is mapped.
pub(super) struct Slot {
    pub(super) buffer: wgpu::Buffer,
    piece: usize,
    pub(super) map: Arc<Signal>,
    /// The piece was copied out and the buffer unmapped; no map is pending.
    taken: bool,
}

impl Slot {
    /// True while the slot's map is pending: the device may still copy into its buffer.
    pub(super) fn mapping(&self) -> bool {
        !self.taken && !self.map.fired()
    }

    /// What the slot's buffer is doing.
    pub(super) fn held(&self) -> Held {
        match (self.taken, self.map.outcome()) {
            (true, _) => Held::Idle,
            (false, None) => Held::Mapping,
            (false, Some(Ok(()))) => Held::Mapped,
            (false, Some(Err(_))) => Held::Failed,
        }
    }
}

/// What a staging slot's buffer is doing.
pub(super) enum Held {
    /// Neither mapped nor waiting for a map.
    Idle,
    /// Its map is pending: the device may still copy into it.
    Mapping,
    /// Mapped for the host, not read yet.
    Mapped,
    /// Its map failed.
    Failed,
}

/// The word-aligned pieces of every read, in order.
fn pieces(reads: &[Read]) -> Result<Vec<Piece>, BackendError> {
    let mut pieces = Vec::new();
    for (i, r) in reads.iter().enumerate() {
        if r.range.start > r.range.end || r.range.end > r.bytes {
            return Err(BackendError::new(format!(
                "the readback range {:?} lies outside its {}-byte buffer. Fix: report this vyre bug with the program text.",
                r.range, r.bytes
            )));
        }
        // `range.end <= bytes`, a multiple of 4, so rounding up to 4 cannot pass it or wrap.
        let start = r.range.start / 4 * 4;
        let end = r.range.end.next_multiple_of(4).min(r.bytes);
        let mut from = start;
        loop {
            let len = (end - from).min(CHUNK);
            pieces.push(Piece { read: i, from, len });
            from += len;
            if from >= end {
                break;
            }
        }
    }
    Ok(pieces)
}

/// A readback under way: every read streamed back through the staging ring, one piece at a time.
/// [`Readback::advance`] takes what has arrived; the caller waits (blocking, or as a future) for
/// the signal it returns when the next piece has not. Both ways run the same steps.
pub(super) struct Readback {
    reads: Vec<Read>,
    pieces: Vec<Piece>,
    outputs: Vec<Vec<u8>>,
    /// Empty once every piece was taken and the ring went back to the pool.
    pub(super) ring: Vec<Slot>,
    /// The next piece to take.
    next: usize,
    lap: Instant,
}

/// What [`Readback::advance`] came to.
pub(super) enum Step {
    /// The next piece waits for this map.
    Wait(Arc<Signal>),
    /// Every read, in order.
    Done(Vec<Vec<u8>>),
}

/// Submits `encoder` (the launch's work, if any) with the copies of the first pieces, and requests
/// their maps: the readback is under way when this returns.
pub(super) fn start(
    ctx: LaunchContext<'_>,
    scopes: submit::Scopes,
    mut encoder: wgpu::CommandEncoder,
    reads: Vec<Read>,
    fault: Option<FaultPoint>,
) -> Result<Readback, BackendError> {
    let begun = Instant::now();
    let state = ctx.state;
    let pieces = pieces(&reads)?;
    let mut outputs = Vec::with_capacity(reads.len());
    for r in &reads {
        let len = usize::try_from(r.range.end - r.range.start).unwrap_or(usize::MAX);
        // Asked first, so that a size the host cannot hold is an error rather than an abort.
        Vec::<u8>::new().try_reserve_exact(len).map_err(|_| {
            BackendError::out_of_memory(format!(
                "the host could not allocate {len} bytes for a readback. Fix: read smaller ranges or use smaller outputs."
            ))
        })?;
        // A zeroed allocation of this size comes from the system untouched: its pages are first
        // touched by the copies below, which run on several threads for large pieces, and are
        // huge pages where the system allows (`advise_huge_pages`).
        let output = vec![0u8; len];
        if len >= PARALLEL_COPY_BYTES {
            advise_huge_pages(&output);
        }
        outputs.push(output);
    }
    // Slot `j` holds pieces `j`, `j + RING`, ...: it is as large as the largest of them (only one
    // piece per slot, sized exactly, when a launch reads back little).
    let slots = RING.min(pieces.len());
    let mut ring = Vec::with_capacity(slots);
    for j in 0..slots {
        let size = pieces
            .iter()
            .skip(j)
            .step_by(RING)
            .map(|p| p.len)
            .max()
            .unwrap_or(4)
            .max(4);
        let buffer = lease(
            ctx,
            size,
            wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        )?;
        copy(&mut encoder, &reads, &pieces[j], &buffer);
        ring.push(Slot {
            buffer,
            piece: j,
            map: Signal::new(None),
            taken: false,
        });
    }
    let finished = ctx.counters.lap(Phase::Record, begun);
    let submission = submit::submit(ctx, scopes, encoder.finish())?;
    let lap = ctx.counters.lap(Phase::Submit, finished);
    if fault == Some(FaultPoint::AfterSubmit) {
        state.lose();
    }
    for slot in &ring {
        slot.map.set_submission(submission.clone());
        request_map(slot, &pieces);
    }
    if fault == Some(FaultPoint::DuringMap) {
        state.lose();
    }
    Ok(Readback {
        reads,
        pieces,
        outputs,
        ring,
        next: 0,
        lap,
    })
}

impl Readback {
    /// Takes every piece whose map has arrived, in order, submitting the copy of the piece after
    /// it into the freed slot; returns the map the next piece waits for, or every output once all
    /// are taken (the ring then goes back to the pool).
    pub(super) fn advance(&mut self, ctx: LaunchContext<'_>) -> Result<Step, BackendError> {
        let state = ctx.state;
        while self.next < self.pieces.len() {
            let k = self.next;
            let slot = &mut self.ring[k % RING];
            if !slot.map.fired() {
                return Ok(Step::Wait(Arc::clone(&slot.map)));
            }
            self.lap = ctx.counters.lap(Phase::Wait, self.lap);
            let piece = &self.pieces[k];
            take(
                state,
                slot,
                piece,
                &self.reads[piece.read],
                &mut self.outputs[piece.read],
            )?;
            slot.taken = true;
            self.lap = ctx.counters.lap(Phase::Read, self.lap);
            self.next = k + 1;
            if let Some(next) = self.pieces.get(k + RING) {
                let scopes = submit::Scopes::push(&state.device);
                let mut encoder =
                    state
                        .device
                        .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                            label: Some("vyre readback"),
                        });
                copy(&mut encoder, &self.reads, next, &slot.buffer);
                // A fresh signal before the submit: were the submit to fail, the slot would hold
                // an unmapped buffer whose old (fired) signal says it is mapped.
                slot.map = Signal::new(None);
                let submission = submit::submit(ctx, scopes, encoder.finish())?;
                slot.map.set_submission(submission);
                slot.piece = k + RING;
                request_map(slot, &self.pieces);
                slot.taken = false;
                self.lap = ctx.counters.lap(Phase::Submit, self.lap);
            }
        }
        let mut pool = ctx.pool.lock().map_err(|_| crate::groups::poisoned())?;
        for slot in self.ring.drain(..) {
            pool.give(slot.buffer, state.generation);
        }
        Ok(Step::Done(std::mem::take(&mut self.outputs)))
    }
}

/// Records the copy of `piece` into `staging`.
fn copy(encoder: &mut wgpu::CommandEncoder, reads: &[Read], piece: &Piece, staging: &wgpu::Buffer) {
    if piece.len > 0 {
        encoder.copy_buffer_to_buffer(&reads[piece.read].source, piece.from, staging, 0, piece.len);
    }
}

/// Requests the mapping of the piece `slot` holds; its signal fires when the callback runs.
fn request_map(slot: &Slot, pieces: &[Piece]) {
    let len = pieces[slot.piece].len.max(4);
    slot.buffer
        .slice(0..len)
        .map_async(wgpu::MapMode::Read, slot.map.map_callback());
}

/// Asks Linux to back `bytes` (a fresh allocation nothing has touched yet) with transparent huge
/// pages where its policy is `madvise`, the default of many distributions: the copy into a fresh
/// 64 MiB output then takes 32 page faults instead of 16 384. On lavapipe's 2-core host those faults
/// were the read phase's whole cost (70-86 ms for 64 MiB, against the 8-10 ms of a memcpy into
/// touched memory; `WgpuStats::phases`). Only a paging hint: contents, mapping and ownership stay as
/// they are, and a refusal (no THP, another system) changes nothing.
#[cfg(target_os = "linux")]
fn advise_huge_pages(bytes: &[u8]) {
    /// `MADV_HUGEPAGE` of `<asm-generic/mman-common.h>`, the same on every Linux architecture.
    const MADV_HUGEPAGE: i32 = 14;
    const PAGE: usize = 4096;
    // The C library's `madvise(2)`, linked into every Linux program already.
    #[allow(unsafe_code)]
    unsafe extern "C" {
        fn madvise(addr: *mut std::ffi::c_void, len: usize, advice: i32) -> i32;
    }
    let start = bytes.as_ptr() as usize;
    let (Some(first), Some(end)) = (
        start.checked_next_multiple_of(PAGE),
        start.checked_add(bytes.len()),
    ) else {
        return;
    };
    let last = end / PAGE * PAGE;
    if last <= first {
        return;
    }
    // SAFETY: `first..last` lies within `bytes`, a live allocation this function borrows, and is
    // page-aligned as `madvise` requires. `MADV_HUGEPAGE` only changes how the kernel backs those
    // pages: it neither reads nor writes them, unmaps nothing and frees nothing, so no Rust
    // reference is invalidated. Its result is ignored on purpose (a hint the kernel may refuse).
    #[allow(unsafe_code)]
    unsafe {
        madvise(first as *mut std::ffi::c_void, last - first, MADV_HUGEPAGE);
    }
}

#[cfg(not(target_os = "linux"))]
fn advise_huge_pages(_: &[u8]) {}

/// Copies below this many bytes run on the calling thread.
const PARALLEL_COPY_BYTES: usize = 16 << 20;

/// The most threads one copy uses.
const COPY_THREADS: usize = 8;

/// Copies `src` into `dst` (of the same length), on several threads when it is large. A fresh
/// output's pages fault on their first touch, and a single thread filling them reaches only
/// 1.5-1.8 GB/s on the H200's host (against 10-12 GB/s into memory already touched; `vyre-bench
/// --only link`), so the faults are spread over threads.
///
/// The thread count is asked of the system once per process, and only for a large copy:
/// `available_parallelism` reads cgroup files on Linux, and asking it on every read-back made a
/// one-word round trip on lavapipe ~75 us of CPU slower (`perf`, 2026-12-04).
fn copy_parallel(dst: &mut [u8], src: &[u8]) {
    if src.len() < PARALLEL_COPY_BYTES || dst.len() != src.len() {
        dst.copy_from_slice(src);
        return;
    }
    static THREADS: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    let threads = *THREADS.get_or_init(|| {
        std::thread::available_parallelism()
            .map_or(1, std::num::NonZeroUsize::get)
            .min(COPY_THREADS)
    });
    if threads < 2 {
        dst.copy_from_slice(src);
        return;
    }
    let chunk = src.len().div_ceil(threads);
    std::thread::scope(|scope| {
        for (to, from) in dst.chunks_mut(chunk).zip(src.chunks(chunk)) {
            scope.spawn(move || to.copy_from_slice(from));
        }
    });
}

/// Copies the requested bytes of the mapped `piece` into their place in `out` (the requested
/// range's bytes, zeroed) and unmaps the slot.
fn take(
    state: &crate::device::DeviceState,
    slot: &Slot,
    piece: &Piece,
    read: &Read,
    out: &mut [u8],
) -> Result<(), BackendError> {
    match slot.map.outcome() {
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
    {
        let view = slot
            .buffer
            .slice(0..piece.len.max(4))
            .get_mapped_range()
            .map_err(|e| state.lost_error(&format!("mapping failed: {e}")))?;
        // The part of the requested range inside this piece, relative to the piece's start.
        let lo = read.range.start.max(piece.from);
        let hi = read.range.end.min(piece.from + piece.len);
        if hi > lo {
            let at = |x: u64| usize::try_from(x - piece.from).unwrap_or(usize::MAX);
            let bytes = view.get(at(lo)..at(hi)).ok_or_else(|| {
                BackendError::new(
                    "a readback range lies outside its mapped staging buffer. Fix: report this vyre bug with the program text.",
                )
            })?;
            let to = |x: u64| usize::try_from(x - read.range.start).unwrap_or(usize::MAX);
            let place = out.get_mut(to(lo)..to(hi)).ok_or_else(|| {
                BackendError::new(
                    "a readback piece lies outside its output. Fix: report this vyre bug with the program text.",
                )
            })?;
            copy_parallel(place, bytes);
        }
    }
    slot.buffer.unmap();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{PARALLEL_COPY_BYTES, copy_parallel};

    #[test]
    fn a_parallel_copy_places_every_byte_whatever_the_length() {
        for len in [0, 5, PARALLEL_COPY_BYTES - 1, PARALLEL_COPY_BYTES + 7] {
            let src: Vec<u8> = (0..len).map(|i| (i * 31 % 251) as u8).collect();
            let mut dst = vec![0u8; len];
            copy_parallel(&mut dst, &src);
            assert!(dst == src, "length {len}");
        }
    }
}
