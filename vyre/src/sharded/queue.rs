//! Many independent items ([`VyreBackend::dispatch_batch`]) drained by every member at once.
//!
//! The items are ordered largest first (cost: input bytes plus [`ITEM_COST`]; equal costs keep the
//! caller's order), and each member's thread takes the next chunk whenever it is free: list
//! scheduling of the longest items first, which bounds the finish time within 4/3 of the best
//! split. A chunk's size follows the member's measured throughput (guided self-scheduling: half its
//! share of what is left, by the rates measured so far), so a member ten times slower takes chunks
//! ten times smaller, and the rates are measured again with every chunk. A member's first chunk is
//! a small probe unless an earlier call already measured it.
//!
//! A chunk delivers all of its results or none: a chunk that fails with a lost device goes back to
//! the queue whole and runs again (on the recovered member or on another), so no item is lost or
//! delivered twice. Any other error stops the run; the error returned is then the lowest failing
//! item's, as one backend running the items in order would give, named by its index in the batch
//! (`work item k: `): the items not delivered, up to the failed chunk's last, are checked on the
//! host and then searched on the member that failed (`first_failure`).

use std::borrow::Cow;
use std::sync::atomic::Ordering;
use std::sync::{Condvar, Mutex, MutexGuard};

use vyre_driver::{BackendError, DispatchConfig, VyreBackend};
use vyre_foundation::ir::Program;

use super::{Sharded, load_rate, measure, rates};

/// The fixed cost of one item, in bytes of input it is taken to be worth (a dispatch's own cost).
const ITEM_COST: u64 = 256;

/// A member that loses its device this many times in a row without delivering a chunk is
/// dropped, even when it says it recovered: its recoveries do not hold.
const LOSSES_IN_A_ROW: u32 = 3;

/// The queue's shared state.
struct Schedule {
    /// Item indices, largest first.
    order: Vec<usize>,
    /// The next position in `order` to hand out.
    next: usize,
    /// The cost of `order[next..]`.
    remaining: u64,
    /// Chunks handed back by a member that lost its device.
    retry: Vec<Vec<usize>>,
    /// Chunks being run now.
    in_flight: usize,
    /// The first non-loss error: its chunk's lowest and highest item index, and its member.
    error: Option<Failure>,
}

/// A chunk that failed with an error other than a device loss.
struct Failure {
    first: usize,
    last: usize,
    member: usize,
    error: BackendError,
}

/// What every member's thread shares.
struct Run<'a> {
    program: &'a Program,
    items: &'a [Vec<Vec<u8>>],
    config: &'a DispatchConfig,
    costs: Vec<u64>,
    total: u64,
    schedule: Mutex<Schedule>,
    changed: Condvar,
    results: Mutex<Vec<Option<Vec<Vec<u8>>>>>,
}

impl Sharded {
    /// [`VyreBackend::dispatch_batch`] over every member (see the module docs).
    pub(super) fn run_batch(
        &self,
        program: &Program,
        items: &[Vec<Vec<u8>>],
        config: &DispatchConfig,
    ) -> Result<Vec<Vec<Vec<u8>>>, BackendError> {
        if items.is_empty() {
            return Ok(Vec::new());
        }
        // An invalid program fails once, here, as every item would.
        vyre_foundation::validate(program)?;
        let alive = self.alive();
        if alive.is_empty() {
            return Err(self.none_left());
        }
        let costs: Vec<u64> = items
            .iter()
            .map(|inputs| inputs.iter().map(|b| b.len() as u64).sum::<u64>() + ITEM_COST)
            .collect();
        let mut order: Vec<usize> = (0..items.len()).collect();
        order.sort_by(|&a, &b| costs[b].cmp(&costs[a]));
        let total = costs.iter().sum();
        let run = Run {
            program,
            items,
            config,
            costs,
            total,
            schedule: Mutex::new(Schedule {
                order,
                next: 0,
                remaining: total,
                retry: Vec::new(),
                in_flight: 0,
                error: None,
            }),
            changed: Condvar::new(),
            results: Mutex::new(vec![None; items.len()]),
        };
        std::thread::scope(|scope| {
            for &m in &alive {
                let run = &run;
                scope.spawn(move || self.drain(m, run));
            }
        });
        let schedule = run.schedule.into_inner().map_err(|_| poisoned())?;
        let results = run.results.into_inner().map_err(|_| poisoned())?;
        if let Some(failure) = schedule.error {
            // A member's error names the item by its place in that member's chunk, and the run
            // stopped with lower items not run yet: find the lowest failing item among those not
            // delivered (every delivered item succeeded).
            let undelivered: Vec<usize> = (0..=failure.last)
                .filter(|&k| results[k].is_none())
                .collect();
            let member = &self.members[failure.member].backend;
            return Err(
                first_failure(&**member, program, items, config, &undelivered).unwrap_or_else(
                    || {
                        failure.error.prefixed(&format!(
                            "member {} failed a chunk of items {}..={} (any item number below counts within that chunk): ",
                            failure.member, failure.first, failure.last
                        ))
                    },
                ),
            );
        }
        results
            .into_iter()
            .map(|r| r.ok_or_else(|| self.none_left()))
            .collect()
    }

    /// Member `m`'s thread: takes chunks until the queue is empty, an error stops the run, or the
    /// member is dropped.
    fn drain(&self, m: usize, run: &Run<'_>) {
        let member = &self.members[m];
        let mut probed = load_rate(&member.batch_rate) > 0.0;
        let mut losses = 0;
        while let Some(chunk) = self.take(m, run, &mut probed) {
            let inputs: Cow<'_, [Vec<Vec<u8>>]> = match contiguous(&chunk) {
                Some(range) => Cow::Borrowed(&run.items[range]),
                None => Cow::Owned(chunk.iter().map(|&k| run.items[k].clone()).collect()),
            };
            let start = std::time::Instant::now();
            let result = member
                .backend
                .dispatch_batch(run.program, &inputs, run.config);
            let outcome = match result {
                Ok(outputs) if outputs.len() == chunk.len() => {
                    let cost: u64 = chunk.iter().map(|&k| run.costs[k]).sum();
                    measure(&member.batch_rate, cost as f64, start.elapsed());
                    member
                        .items
                        .fetch_add(chunk.len() as u64, Ordering::Relaxed);
                    if let Ok(mut results) = run.results.lock() {
                        for (&k, out) in chunk.iter().zip(outputs) {
                            results[k] = Some(out);
                        }
                    }
                    losses = 0;
                    Ok(true)
                }
                Ok(outputs) => Err(BackendError::new(format!(
                    "member {m} ({}) returned {} results for a chunk of {} items. Fix: fix that backend's `dispatch_batch`; it must return one output set per item.",
                    member.name,
                    outputs.len(),
                    chunk.len()
                ))),
                Err(error) => {
                    losses += 1;
                    let again = self.after_failure(m, error);
                    if matches!(again, Ok(true)) && losses >= LOSSES_IN_A_ROW {
                        self.drop_member(m, "it lost its device three times in a row");
                        Ok(false)
                    } else {
                        again.map(|_| false)
                    }
                }
            };
            let mut schedule = lock(&run.schedule);
            schedule.in_flight -= 1;
            let keep_going = match outcome {
                Ok(true) => true,
                Ok(false) => {
                    schedule.retry.push(chunk);
                    member.alive.load(Ordering::SeqCst)
                }
                Err(error) => {
                    let first = chunk.iter().copied().min().unwrap_or(0);
                    let last = chunk.iter().copied().max().unwrap_or(0);
                    if schedule.error.as_ref().is_none_or(|f| first < f.first) {
                        schedule.error = Some(Failure {
                            first,
                            last,
                            member: m,
                            error,
                        });
                    }
                    false
                }
            };
            drop(schedule);
            run.changed.notify_all();
            if !keep_going {
                return;
            }
        }
    }

    /// The next chunk for member `m`, waiting while other members' chunks may still come back;
    /// `None` when there is nothing left for it.
    fn take(&self, m: usize, run: &Run<'_>, probed: &mut bool) -> Option<Vec<usize>> {
        let member = &self.members[m];
        let mut schedule = lock(&run.schedule);
        loop {
            if schedule.error.is_some() || !member.alive.load(Ordering::SeqCst) {
                return None;
            }
            if let Some(chunk) = schedule.retry.pop() {
                schedule.in_flight += 1;
                return Some(chunk);
            }
            if schedule.next < schedule.order.len() {
                let target = self.chunk_cost(m, run, schedule.remaining, probed);
                let mut chunk = Vec::new();
                let mut cost = 0;
                while schedule.next < schedule.order.len() && (chunk.is_empty() || cost < target) {
                    let k = schedule.order[schedule.next];
                    chunk.push(k);
                    cost += run.costs[k];
                    schedule.next += 1;
                }
                schedule.remaining = schedule.remaining.saturating_sub(cost);
                schedule.in_flight += 1;
                return Some(chunk);
            }
            if schedule.in_flight == 0 {
                return None;
            }
            schedule = run
                .changed
                .wait(schedule)
                .unwrap_or_else(std::sync::PoisonError::into_inner);
        }
    }

    /// How much work (in cost units) member `m` takes next: half its share of what is left by
    /// the measured rates, or a small probe while it is unmeasured.
    fn chunk_cost(&self, m: usize, run: &Run<'_>, remaining: u64, probed: &mut bool) -> u64 {
        let alive = self.alive();
        let rates = rates(&self.members, &alive, |member| &member.batch_rate);
        let total_rate: f64 = rates.iter().sum();
        let mine = alive.iter().position(|&i| i == m).map_or(0.0, |p| rates[p]);
        let share = if total_rate > 0.0 {
            mine / total_rate
        } else {
            1.0
        };
        let guided = (remaining as f64 * share / 2.0) as u64;
        if *probed {
            guided
        } else {
            *probed = true;
            guided.min(run.total / (16 * alive.len().max(1) as u64))
        }
    }
}

/// The lowest of `candidates` (ascending item indices) that fails on `backend`, and its error named
/// by its index in the caller's batch; `None` when none is found (the failure was not one item's,
/// or a device was lost on the way).
///
/// Inputs that do not fit the program are found on the host first, without running anything (the
/// usual failure; a lower item failing only when run is then not looked for). Otherwise batches of
/// 1, 2, 4, ... candidates run from the lowest, so the cost follows the failing item's place, not
/// the batch's size; the first batch that fails is halved down to its failing item, which runs
/// alone.
fn first_failure(
    backend: &dyn VyreBackend,
    program: &Program,
    items: &[Vec<Vec<u8>>],
    config: &DispatchConfig,
    candidates: &[usize],
) -> Option<BackendError> {
    for &k in candidates {
        let lens: Vec<usize> = items[k].iter().map(Vec::len).collect();
        if let Err(e) = vyre_driver::plan_dispatch(program, &lens, config) {
            return Some(e.in_item(k));
        }
    }
    // Ok(true): the batch of `ks` failed; Err(()): a device was lost.
    let fails = |ks: &[usize]| {
        let inputs: Vec<Vec<Vec<u8>>> = ks.iter().map(|&k| items[k].clone()).collect();
        match backend.dispatch_batch(program, &inputs, config) {
            Ok(_) => Ok(false),
            Err(e) if e.is_device_lost() => Err(()),
            Err(_) => Ok(true),
        }
    };
    let (mut start, mut width) = (0, 1);
    let mut window = None;
    while start < candidates.len() {
        let end = (start + width).min(candidates.len());
        if fails(&candidates[start..end]).ok()? {
            window = Some(&candidates[start..end]);
            break;
        }
        start = end;
        width *= 2;
    }
    let mut window = window?;
    while window.len() > 1 {
        let (low, high) = window.split_at(window.len() / 2);
        window = if fails(low).ok()? { low } else { high };
    }
    let &k = window.first()?;
    match backend.dispatch(program, &items[k], config) {
        Err(e) if !e.is_device_lost() => Some(e.in_item(k)),
        _ => None,
    }
}

/// `chunk` as a range of item indices when they follow each other (then the items are borrowed,
/// not copied).
fn contiguous(chunk: &[usize]) -> Option<std::ops::Range<usize>> {
    let first = *chunk.first()?;
    chunk
        .iter()
        .enumerate()
        .all(|(k, &i)| i == first + k)
        .then(|| first..first + chunk.len())
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn poisoned() -> BackendError {
    BackendError::new(
        "a thread of vyre::Sharded panicked while running a batch. Fix: report this vyre bug with the program text.",
    )
}
