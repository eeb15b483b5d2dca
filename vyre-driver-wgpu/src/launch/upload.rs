//! The upload stage: every bound buffer leased from the pool (or created) and filled, plus vyre's
//! own `params` and `items` buffers.

use vyre_driver::BackendError;

use super::context::LaunchContext;
use super::job::{Init, Job};
use super::ring::lease;
use super::stage;
use crate::lower::BindingKind;
use crate::pipeline::Compiled;
use crate::pool::BufferPool;

/// A launch's device buffers, in the order the encoder binds them.
pub(super) struct Uploaded {
    /// The program's buffers, in binding order.
    pub(super) buffers: Vec<wgpu::Buffer>,
    /// For the coalesced form: vyre's `params` words and its `items` table, each with its byte
    /// length. Other launches bind their pipeline's kept `params` group (`groups`).
    pub(super) items: Option<((wgpu::Buffer, u64), (wgpu::Buffer, u64))>,
}

impl Uploaded {
    /// Returns every buffer to the pool for the next launch on device `generation`.
    pub(super) fn give_back(self, pool: &mut BufferPool, generation: u64) {
        // In reverse, so that the pool (a stack per size class) hands the same buffers back in the
        // same roles to a launch of the same shape, whose kept bind group then still fits.
        for buffer in self.buffers.into_iter().rev() {
            pool.give(buffer, generation);
        }
        if let Some(((params, _), (items, _))) = self.items {
            pool.give(params, generation);
            pool.give(items, generation);
        }
    }
}

/// How a launch's inputs larger than [`stage::UPLOAD_CHUNK`] go up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Staging {
    /// Through the staging ring (`stage`): bounded staging memory, but the ring's maps are waited
    /// for on the calling thread. The blocking calls.
    Ring,
    /// Through `queue.write_buffer` whatever the size: wgpu stages each input whole, and nothing
    /// waits. The async calls, which must never block the thread that polls them.
    Queue,
}

/// Checks what every piece binds against the binding limits, leases every buffer and writes its
/// initial bytes (zeroed buffers are cleared by the encoder instead).
pub(super) fn upload(
    ctx: LaunchContext<'_>,
    compiled: &Compiled,
    job: &Job<'_>,
    staging: Staging,
) -> Result<Uploaded, BackendError> {
    let state = ctx.state;
    let mut buffers = Vec::with_capacity(job.buffers.len());
    // One upload ring for every streamed input of this launch (`stage::Ring`).
    let mut ring = stage::Ring::default();
    for (i, (binding, buffer)) in compiled.bindings.iter().zip(&job.buffers).enumerate() {
        let max = match binding.kind {
            BindingKind::Uniform => state.limits.max_uniform_buffer_binding_size,
            _ => state.limits.max_storage_buffer_binding_size,
        };
        let bound = job
            .pieces
            .iter()
            .map(|p| {
                let r = p.range(i, buffer.bytes);
                r.end.saturating_sub(r.start)
            })
            .max()
            .unwrap_or(buffer.bytes);
        if bound > max {
            return Err(BackendError::limit_exceeded(format!(
                "buffer `{}` needs {} bytes; this device binds at most {max}. Fix: split the data over several dispatches (vyre splits elementwise programs itself: index every storage buffer at `gid.x`).",
                compiled.program().buffers[binding.buffer_index].name,
                buffer.bytes
            )));
        }
        let leased = lease(ctx, buffer.bytes, usage_for(binding.kind))?;
        if let Init::Bytes(bytes) = &buffer.init {
            // A large buffer streams even from a short input: its zero tail is a device-side
            // clear, not a host vector of the buffer's size.
            if staging == Staging::Ring && stage::streams(buffer.bytes) {
                if bytes.len() as u64 > buffer.bytes {
                    return Err(BackendError::new(format!(
                        "{} input bytes were planned into a {}-byte buffer. Fix: report this vyre bug with the program text.",
                        bytes.len(),
                        buffer.bytes
                    )));
                }
                stage::write(ctx, &mut ring, &leased, 0, bytes, buffer.bytes, job.timeout)?;
            } else if u64::try_from(bytes.len()).is_ok_and(|len| len == buffer.bytes) {
                state.queue.write_buffer(&leased, 0, bytes);
            } else {
                state
                    .queue
                    .write_buffer(&leased, 0, &zero_extended(bytes, buffer.bytes)?);
            }
        }
        buffers.push(leased);
    }
    let items = match &job.items {
        Some(items) => {
            // A coalesced launch is one piece; its params go beside its items table.
            let params = job.pieces.first().map_or(&[][..], |p| p.params.as_slice());
            Some((words_buffer(ctx, params)?, words_buffer(ctx, items)?))
        }
        None => None,
    };
    Ok(Uploaded { buffers, items })
}

fn usage_for(kind: BindingKind) -> wgpu::BufferUsages {
    use wgpu::BufferUsages as U;
    match kind {
        BindingKind::Uniform => U::UNIFORM | U::COPY_DST,
        _ => U::STORAGE | U::COPY_DST | U::COPY_SRC,
    }
}

/// A read-only storage buffer holding `words` (at least one word: wgpu binds no empty buffer).
pub(super) fn words_buffer(
    ctx: LaunchContext<'_>,
    words: &[u32],
) -> Result<(wgpu::Buffer, u64), BackendError> {
    let mut bytes: Vec<u8> = bytemuck::cast_slice(words).to_vec();
    if bytes.is_empty() {
        bytes.extend_from_slice(&[0; 4]);
    }
    let len = bytes.len() as u64;
    let buffer = lease(ctx, len, usage_for(BindingKind::StorageReadOnly))?;
    ctx.state.queue.write_buffer(&buffer, 0, &bytes);
    Ok((buffer, len))
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
