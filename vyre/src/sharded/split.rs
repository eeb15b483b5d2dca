//! An elementwise dispatch cut into ranges of its grid, one per member, by measured throughput.
//!
//! *Why it is exact.* Each range is `vyre_foundation::elementwise::range_piece`: whole workgroups
//! (all of y and z), every builtin and `buf_len` keeping its whole-dispatch value, each bound buffer
//! holding the elements `start .. min(count, end)` of the whole one. In an elementwise program
//! invocation `gid.x = i` touches element `i` of each bound buffer and nothing else there, so the
//! range's invocations see exactly the values they see in one dispatch, and its out-of-bounds rule
//! (an index at or past the buffer's length) holds for exactly the invocations it holds for in one
//! dispatch. Every range starts below the shortest bound buffer's length, so no range needs an
//! empty buffer. Outputs start at zero in every range as in the whole dispatch; elements no
//! invocation touches stay zero in the assembled output; `read_write` buffers are inputs here (a
//! dispatch returns only outputs). The assembled output is then trimmed to its byte range as one
//! backend trims it.

use std::sync::Mutex;
use std::sync::atomic::Ordering;

use vyre_driver::{BackendError, DispatchConfig, DispatchPlan};
use vyre_foundation::elementwise::{RangePiece, is_elementwise, range_piece};
use vyre_foundation::ir::BufferAccess;
use vyre_foundation::validate::Validated;

use super::{Sharded, measure};

/// One range to run: its first workgroup and count, and the member it was given to.
struct Range {
    first: u32,
    workgroups: u32,
    member: usize,
}

impl Sharded {
    /// The outputs of `program` run as ranges over the members, or `None` when it runs whole:
    /// not elementwise, too small, a budget (`fuel`) set, fewer than two members, or too short a
    /// buffer to cut.
    pub(super) fn dispatch_split(
        &self,
        program: &Validated<'_>,
        plan: &DispatchPlan,
        inputs: &[Vec<u8>],
        config: &DispatchConfig,
        invocations: u64,
    ) -> Result<Option<Vec<Vec<u8>>>, BackendError> {
        let alive = self.alive();
        if alive.len() < 2
            || invocations < self.split_threshold
            || config.fuel.is_some()
            || !is_elementwise(program)
        {
            return Ok(None);
        }
        let source = program.program();
        let wx = u64::from(source.workgroup_size[0]);
        let counts: Vec<u64> = plan.buffers.iter().map(|b| b.element_count).collect();
        let shortest = source
            .buffers
            .iter()
            .zip(&counts)
            .filter(|(decl, _)| decl.access != BufferAccess::Workgroup)
            .map(|(_, &n)| n)
            .min()
            .unwrap_or(0);
        // A range must start below the shortest bound buffer's length: the last workgroup a range
        // may start at.
        let Some(last_start) = shortest.checked_sub(1).map(|s| s / wx) else {
            return Ok(None);
        };
        let cuts = cut(plan.grid[0], last_start, &self.dispatch_rates(&alive));
        if cuts.len() < 2 {
            return Ok(None);
        }
        let ranges: Vec<Range> = cuts
            .iter()
            .map(|&(first, workgroups, k)| Range {
                first,
                workgroups,
                member: alive[k],
            })
            .collect();
        let mut pieces = Vec::with_capacity(ranges.len());
        for r in &ranges {
            let piece = range_piece(program, plan.grid, &counts, r.first, r.workgroups)
                .ok_or_else(|| {
                    BackendError::new(format!(
                        "vyre::Sharded could not build the range of workgroups {}..{} of an elementwise program. Fix: report this vyre bug with the program text.",
                        r.first,
                        r.first + r.workgroups
                    ))
                })?;
            pieces.push(piece);
        }
        let outputs = self.run_ranges(&ranges, &pieces, plan, inputs, config)?;
        let ran: Vec<usize> = ranges.iter().map(|r| r.member).collect();
        self.measured(&ran);
        Ok(Some(assemble(program, plan, &pieces, outputs)))
    }

    /// Runs every range, in parallel, each on its member; a range whose member fails with a lost
    /// device runs again (on it once recovered, or on another member).
    fn run_ranges(
        &self,
        ranges: &[Range],
        pieces: &[RangePiece],
        plan: &DispatchPlan,
        inputs: &[Vec<u8>],
        config: &DispatchConfig,
    ) -> Result<Vec<Vec<Vec<u8>>>, BackendError> {
        let results: Mutex<Vec<Option<Vec<Vec<u8>>>>> = Mutex::new(vec![None; ranges.len()]);
        let failure: Mutex<Option<BackendError>> = Mutex::new(None);
        std::thread::scope(|scope| {
            for (k, range) in ranges.iter().enumerate() {
                let (results, failure) = (&results, &failure);
                scope.spawn(move || {
                    let piece_inputs = slice_inputs(&pieces[k], plan, inputs);
                    let piece_config =
                        config
                            .clone()
                            .with_grid([range.workgroups, plan.grid[1], plan.grid[2]]);
                    let invocations = u64::from(range.workgroups)
                        * pieces[k].program.invocations_per_workgroup().unwrap_or(1)
                        * u64::from(plan.grid[1])
                        * u64::from(plan.grid[2]);
                    let outcome = self.run_range(
                        range.member,
                        &pieces[k],
                        &piece_inputs,
                        &piece_config,
                        invocations,
                    );
                    match outcome {
                        Ok(outputs) => {
                            if let Ok(mut slots) = results.lock() {
                                slots[k] = Some(outputs);
                            }
                        }
                        Err(e) => {
                            if let Ok(mut slot) = failure.lock() {
                                slot.get_or_insert(e);
                            }
                        }
                    }
                });
            }
        });
        if let Some(e) = failure.into_inner().ok().flatten() {
            return Err(e);
        }
        let slots = results
            .into_inner()
            .map_err(|_| BackendError::new("a range of a split dispatch panicked."))?;
        slots
            .into_iter()
            .map(|s| {
                s.ok_or_else(|| {
                    BackendError::new(
                        "a range of a split dispatch delivered no result. Fix: report this vyre bug with the program text.",
                    )
                })
            })
            .collect()
    }

    /// One range on `first_member`, moving on after losses as [`Sharded::after_failure`] says.
    fn run_range(
        &self,
        first_member: usize,
        piece: &RangePiece,
        inputs: &[Vec<u8>],
        config: &DispatchConfig,
        invocations: u64,
    ) -> Result<Vec<Vec<u8>>, BackendError> {
        let mut m = first_member;
        loop {
            let member = &self.members[m];
            if member.alive.load(Ordering::SeqCst) {
                member.in_flight.fetch_add(1, Ordering::Relaxed);
                let start = std::time::Instant::now();
                let result = member.backend.dispatch(&piece.program, inputs, config);
                member.in_flight.fetch_sub(1, Ordering::Relaxed);
                match result {
                    Ok(outputs) => {
                        member.pieces.fetch_add(1, Ordering::Relaxed);
                        measure(&member.dispatch_rate, invocations as f64, start.elapsed());
                        return Ok(outputs);
                    }
                    Err(error) => {
                        if self.after_failure(m, error)? {
                            continue;
                        }
                    }
                }
            }
            m = self.best_member().ok_or_else(|| self.none_left())?;
        }
    }
}

/// Cuts `groups` workgroups into at most one run per rate, sized in proportion to the rates, each
/// run starting at a workgroup no later than `last_start`: `(first, count, index into rates)`.
fn cut(groups: u32, last_start: u64, rates: &[f64]) -> Vec<(u32, u32, usize)> {
    let total: f64 = rates.iter().sum();
    let mut runs = Vec::with_capacity(rates.len());
    let mut first = 0u32;
    let mut cumulative = 0.0;
    for (k, rate) in rates.iter().enumerate() {
        cumulative += rate;
        let end = if k + 1 == rates.len() {
            groups
        } else {
            // Rounded to whole workgroups; the next run may not start past `last_start`.
            let share = (f64::from(groups) * cumulative / total).round() as u64;
            share.min(last_start).min(u64::from(groups)) as u32
        };
        if end > first {
            runs.push((first, end - first, k));
            first = end;
        }
    }
    runs
}

/// The piece's inputs: the range of each input buffer's bytes its buffer holds (shorter where the
/// caller's input ends early; the member zero-extends it as one backend does).
fn slice_inputs(piece: &RangePiece, plan: &DispatchPlan, inputs: &[Vec<u8>]) -> Vec<Vec<u8>> {
    piece
        .program
        .buffers
        .iter()
        .zip(&piece.ranges)
        .zip(&plan.buffers)
        .filter(|((decl, _), _)| decl.access.takes_input())
        .map(|((decl, range), resolved)| {
            let size = decl.element.size_bytes() as u64;
            let bytes = resolved
                .input
                .and_then(|i| inputs.get(i))
                .map_or(&[][..], Vec::as_slice);
            let Some(range) = range else {
                return Vec::new();
            };
            let len = bytes.len() as u64;
            let start = (range.start * size).min(len) as usize;
            let end = (range.end * size).min(len) as usize;
            bytes[start..end].to_vec()
        })
        .collect()
}

/// The whole outputs from the ranges' outputs: each whole output zero, each range's output copied
/// to its elements, then trimmed to the declared byte range.
fn assemble(
    program: &Validated<'_>,
    plan: &DispatchPlan,
    pieces: &[RangePiece],
    outputs: Vec<Vec<Vec<u8>>>,
) -> Vec<Vec<u8>> {
    let source = program.program();
    let mut assembled = Vec::new();
    let mut o = 0;
    for (j, decl) in source.buffers.iter().enumerate() {
        if decl.access != BufferAccess::Output {
            continue;
        }
        let size = decl.element.size_bytes();
        let whole_len = plan.buffers[j].element_count as usize * size;
        let mut whole = vec![0u8; whole_len];
        for (piece, out) in pieces.iter().zip(&outputs) {
            if let (Some(Some(range)), Some(bytes)) = (piece.ranges.get(j), out.get(o)) {
                let at = range.start as usize * size;
                let end = (at + bytes.len()).min(whole_len);
                whole[at..end].copy_from_slice(&bytes[..end - at]);
            }
        }
        let keep = decl.readback_range(whole_len);
        assembled.push(
            whole
                .get(keep.start..keep.end)
                .map(<[u8]>::to_vec)
                .unwrap_or_default(),
        );
        o += 1;
    }
    assembled
}

#[cfg(test)]
mod tests {
    use super::cut;

    #[test]
    fn runs_follow_the_rates_and_never_start_past_the_last_start() {
        assert_eq!(cut(10, 100, &[1.0, 1.0]), [(0, 5, 0), (5, 5, 1)]);
        assert_eq!(cut(10, 100, &[3.0, 1.0]), [(0, 8, 0), (8, 2, 1)]);
        // The second run may start at workgroup 2 at the latest.
        assert_eq!(cut(10, 2, &[1.0, 1.0]), [(0, 2, 0), (2, 8, 1)]);
        // A rate too small for a workgroup gets no run.
        assert_eq!(cut(4, 100, &[1000.0, 1.0]), [(0, 4, 0)]);
        assert_eq!(cut(1, 0, &[1.0, 1.0]), [(0, 1, 1)]);
    }
}
