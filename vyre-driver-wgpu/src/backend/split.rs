//! Elementwise dispatches over buffers larger than the device binds at once, run as several launches
//! (pieces) in one encoder, each binding a range of every storage buffer.
//!
//! The exactness argument (see `lower::elementwise` for the rule that admits a program): every
//! storage access of an elementwise program is at `gid.x`, so invocation `gid.x = i` touches element
//! `i` of each storage buffer and no other invocation with another `gid.x` touches it. The grid is cut
//! along x into runs of whole workgroups; piece `k` runs workgroups `first_k..first_k + width_k` along
//! x and every workgroup along y and z, and sees the whole grid's `workgroup_id`, `global_id` and
//! `num_workgroups` (the prologue adds `first_k` and reads the whole grid's x). Each storage buffer is
//! bound from element `first_k * workgroup_size.x` (a multiple of the device's offset alignment) to
//! the piece's last invocation or the buffer's end, and the shader subtracts that base from the index
//! after the bounds guard, which still compares the whole-dispatch index with the whole buffer's
//! length. So every invocation runs once, with the values it has in one launch, and reads and writes
//! the same elements; no element is touched by two pieces, so their order changes nothing. Workgroup
//! memory and barriers stay within one workgroup, which stays within one piece.

use vyre_driver::{BackendError, DispatchPlan};
use vyre_foundation::ir::{BufferAccess, Program};

use super::fold_grid;
use crate::device::DeviceState;
use crate::launch::{Piece, device_bytes};
use crate::lower::ProgramFacts;
use crate::lower::{self, BindingKind};
use crate::pipeline::Compiled;

/// How many elements each piece of a dispatch of `program` (with `facts`) shaped by `plan` binds: `None` when every
/// buffer fits its binding limit (one launch), `Some(n)` when the dispatch must be split.
///
/// # Errors
///
/// [`BackendError::LimitExceeded`] when a buffer is over its limit and the program cannot be split
/// (it is not elementwise, or the device's alignment leaves no room for a piece).
pub(crate) fn piece_elements(
    state: &DeviceState,
    program: &Program,
    facts: &ProgramFacts,
    plan: &DispatchPlan,
) -> Result<Option<u64>, BackendError> {
    let limits = &state.limits;
    let mut over = None;
    for (decl, resolved) in program.buffers.iter().zip(&plan.buffers) {
        let (kind, max) = match decl.access {
            BufferAccess::Workgroup => continue,
            BufferAccess::Uniform => (BindingKind::Uniform, limits.max_uniform_buffer_binding_size),
            BufferAccess::Read | BufferAccess::ReadWrite | BufferAccess::Output => (
                BindingKind::StorageReadWrite,
                limits.max_storage_buffer_binding_size,
            ),
        };
        let size = decl.element.size_bytes() as u64;
        let bytes = device_bytes(kind, size, resolved.element_count).unwrap_or(u64::MAX);
        if bytes > max && over.is_none() {
            over = Some((decl.name.as_str(), bytes, max));
        }
    }
    let Some((name, bytes, max)) = over else {
        return Ok(None);
    };
    if !facts.elementwise {
        return Err(BackendError::limit_exceeded(format!(
            "buffer `{name}` needs {bytes} bytes; this device binds at most {max}, and vyre splits a dispatch over several launches only for elementwise programs (every load, store and atomic of every storage buffer at `gid.x`, no uniform buffers). Fix: split the data over several dispatches yourself, or make the program elementwise."
        )));
    }
    let width = u64::from(program.workgroup_size[0]);
    let whole = u64::from(plan.grid[0]) * width;
    if whole > 1 << 32 {
        return Err(BackendError::limit_exceeded(format!(
            "the grid's {whole} invocations along x pass 2^32, so `gid.x` wraps and the dispatch cannot be split by it. Fix: use fewer workgroups along x."
        )));
    }
    // Each piece starts at a multiple of the offset alignment (in elements) and of the workgroup.
    let align = u64::from(limits.min_storage_buffer_offset_alignment.max(4)) / 4;
    let step = lcm(align, width);
    let n = limits.max_storage_buffer_binding_size / 4 / step * step;
    if n == 0 {
        return Err(BackendError::limit_exceeded(format!(
            "buffer `{name}` needs {bytes} bytes; this device binds at most {max}, less than one piece of {step} elements (its offset alignment and the workgroup width). Fix: use a smaller workgroup or split the data yourself."
        )));
    }
    Ok(Some(n))
}

/// The pieces of a split dispatch of `compiled` (lowered with `split`) shaped by `plan`, each binding
/// at most `per_piece` elements of every storage buffer; `bytes[i]` is binding `i`'s whole size.
pub(crate) fn pieces(
    state: &DeviceState,
    compiled: &Compiled,
    plan: &DispatchPlan,
    bytes: &[u64],
    per_piece: u64,
) -> Result<Vec<Piece>, BackendError> {
    let width = compiled.program().workgroup_size[0];
    let groups = u32::try_from(per_piece / u64::from(width)).unwrap_or(u32::MAX);
    let max_dim = state.limits.max_compute_workgroups_per_dimension;
    let mut pieces = Vec::new();
    let mut first = 0u32;
    while first < plan.grid[0] {
        let run = groups.min(plan.grid[0] - first);
        let (physical, _) = fold_grid([run, plan.grid[1], plan.grid[2]], 1, max_dim)?;
        let start = u64::from(first) * u64::from(width) * 4;
        let end = start + u64::from(run) * u64::from(width) * 4;
        let ranges = bytes
            .iter()
            .map(|&b| {
                if start < b {
                    start..end.min(b)
                } else {
                    // No element of this buffer is in the piece: every access fails its guard, and
                    // the clamped slot 0 only needs some bound word.
                    0..4.min(b)
                }
            })
            .collect();
        pieces.push(Piece {
            params: lower::split_params(plan, first, run)?,
            physical_grid: physical,
            ranges: Some(ranges),
            entry: crate::pipeline::Entry::Main,
        });
        first += run;
    }
    Ok(pieces)
}

fn lcm(a: u64, b: u64) -> u64 {
    let (mut x, mut y) = (a, b);
    while y != 0 {
        (x, y) = (y, x % y);
    }
    a / x.max(1) * b
}

#[cfg(test)]
mod tests {
    use super::lcm;

    #[test]
    fn pieces_start_at_multiples_of_both_the_alignment_and_the_workgroup() {
        assert_eq!(lcm(64, 64), 64);
        assert_eq!(lcm(64, 256), 256);
        assert_eq!(lcm(64, 96), 192);
        assert_eq!(lcm(1, 7), 7);
    }
}
