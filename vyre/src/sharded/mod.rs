//! [`Sharded`]: one backend over several, splitting work across them by measured throughput.
//!
//! - `split.rs`: an elementwise dispatch cut into ranges of its grid, one per member.
//! - `queue.rs`: many independent items ([`VyreBackend::dispatch_batch`]) drained by all members,
//!   largest first, in chunks sized by each member's measured throughput.
//! - `resident.rs`: buffers placed on one member and moved only when a step needs them elsewhere.
//!
//! Faults: a member whose call fails with [`BackendError::DeviceLost`] is asked to recover
//! ([`VyreBackend::try_recover`]); the unfinished work of that call runs again, on it or on another
//! member. A member that cannot recover is dropped from the set with a logged warning, and the work
//! still completes on the others.

mod queue;
mod resident;
mod split;

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};

use vyre_driver::{
    BackendError, Capabilities, DeviceBuffer, DispatchConfig, DispatchPlan, InstanceId,
    PreparedStep, Step, VyreBackend,
};
use vyre_foundation::ir::Program;
use vyre_foundation::validate::Validated;

/// Dispatches with fewer invocations than this run whole on one member: below it, a split costs
/// more in extra submits than it gains.
pub const DEFAULT_SPLIT_THRESHOLD: u64 = 1 << 20;

/// One backend made of several ("members"), for every GPU of a host, or several devices of one.
///
/// `Sharded` is itself a [`VyreBackend`], so everything that runs on a backend runs on it:
///
/// - [`VyreBackend::dispatch`] of an *elementwise* program (every storage access at `gid.x`; see
///   `vyre_foundation::elementwise`) over at least [`DEFAULT_SPLIT_THRESHOLD`] invocations is cut
///   into ranges of whole workgroups, one per member, sized by each member's measured throughput;
///   each range runs as a program of its own that keeps every builtin's whole-dispatch value, so
///   the assembled outputs are byte-identical to one backend's. Other programs (and dispatches with
///   an execution budget, `fuel`, which a split would spend differently) run whole on one member,
///   the one expected to finish first.
/// - [`VyreBackend::dispatch_batch`] (a queue of independent items) is drained by every member at
///   once: items largest first, each member taking chunks sized by its measured throughput, so a
///   slow member takes little; results come back in the caller's order.
/// - Resident buffers ([`VyreBackend::create_buffer`]) live on one member each (the one holding the
///   fewest resident bytes when created); a step runs on the member holding most of its bytes, and
///   only the step's other buffers move there.
///
/// A member that loses its device recovers while the others go on; its unfinished work runs again.
/// A member that cannot recover is dropped with a `log` warning ([`Sharded::stats`] shows it).
///
/// ```
/// use vyre::ir::{BufferDecl, DataType, Expr, Node, Program};
/// use vyre::{DispatchConfig, ReferenceBackend, Sharded, VyreBackend};
///
/// let sharded = Sharded::new(vec![
///     Box::new(ReferenceBackend::new()),
///     Box::new(ReferenceBackend::new()),
/// ])?
/// .with_split_threshold(1); // split even this small dispatch
/// // `c[i] = a[i] * i`: elementwise, so each member runs a range of it.
/// let program = Program::new(
///     vec![
///         BufferDecl::read("a", 0, DataType::U32).with_count(1000),
///         BufferDecl::output("c", 1, DataType::U32).with_count(1000),
///     ],
///     [64, 1, 1],
///     vec![Node::store("c", Expr::gid_x(), Expr::mul(Expr::load("a", Expr::gid_x()), Expr::gid_x()))],
/// );
/// let a: Vec<u8> = (0..1000u32).flat_map(|_| 3u32.to_le_bytes()).collect();
/// let sharded_out = sharded.dispatch(&program, &[a.clone()], &DispatchConfig::default())?;
/// let one_out = ReferenceBackend::new().dispatch(&program, &[a], &DispatchConfig::default())?;
/// assert_eq!(sharded_out, one_out);
/// assert!(sharded.stats().iter().all(|m| m.pieces > 0)); // both members took a range
/// # Ok::<(), vyre::BackendError>(())
/// ```
pub struct Sharded {
    members: Vec<Member>,
    owner: InstanceId,
    split_threshold: u64,
    /// Held for the whole of a resident call, so that a buffer never moves under another call.
    resident: Mutex<()>,
}

impl std::fmt::Debug for Sharded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sharded")
            .field("members", &self.stats())
            .field("split_threshold", &self.split_threshold)
            .finish_non_exhaustive()
    }
}

/// One member and what `Sharded` measured of it.
struct Member {
    backend: Box<dyn VyreBackend>,
    name: String,
    alive: AtomicBool,
    /// Measured throughputs as `f64` bits (0: not measured yet): batch cost units (input bytes
    /// plus a fixed cost per item) per second, and dispatch invocations per second.
    batch_rate: AtomicU64,
    dispatch_rate: AtomicU64,
    /// Dispatches run on other members since this one's dispatch rate was last measured: each
    /// makes its rate count for more (see [`Sharded::dispatch_rates`]), so one slow measurement
    /// (a cold start) cannot keep a member out of every later dispatch.
    passed_over: AtomicU64,
    /// Dispatch-rate measurements taken so far.
    samples: AtomicU64,
    in_flight: AtomicUsize,
    resident_bytes: AtomicU64,
    items: AtomicU64,
    pieces: AtomicU64,
    dispatches: AtomicU64,
    reruns: AtomicU64,
    recoveries: AtomicU64,
}

/// What [`Sharded::stats`] reports of one member.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct MemberStats {
    /// The member's id and device name, e.g. `wgpu: llvmpipe (...)`.
    pub name: String,
    /// False once the member was dropped (it lost its device and could not recover).
    pub alive: bool,
    /// Batch items it delivered.
    pub items: u64,
    /// Ranges of split dispatches it ran.
    pub pieces: u64,
    /// Whole dispatches (not split) and resident calls it ran.
    pub dispatches: u64,
    /// Chunks, ranges or dispatches that failed on it with a lost device and ran again.
    pub reruns: u64,
    /// Times it recovered a lost device for `Sharded`.
    pub recoveries: u64,
    /// Measured batch throughput, cost units (input bytes plus 256 per item) per second; 0 until
    /// measured.
    pub batch_rate: f64,
    /// Measured dispatch throughput, invocations per second; 0 until measured.
    pub dispatch_rate: f64,
}

impl Sharded {
    /// A backend over `members`, which keep their order ([`Sharded::stats`] lists them so).
    ///
    /// # Errors
    ///
    /// [`BackendError::InvalidConfig`] for an empty list.
    ///
    /// ```
    /// use vyre::{ReferenceBackend, Sharded, VyreBackend};
    ///
    /// let err = Sharded::new(Vec::new()).unwrap_err();
    /// assert_eq!(err.kind_name(), "InvalidConfig");
    /// assert!(err.to_string().contains("Fix:"));
    /// let one = Sharded::new(vec![Box::new(ReferenceBackend::new())])?;
    /// assert_eq!(one.id(), "sharded");
    /// # Ok::<(), vyre::BackendError>(())
    /// ```
    pub fn new(members: Vec<Box<dyn VyreBackend>>) -> Result<Self, BackendError> {
        if members.is_empty() {
            return Err(BackendError::invalid_config(
                "Sharded::new was given no members. Fix: pass at least one backend, e.g. `WgpuBackend::acquire_all()` boxed, or a `ReferenceBackend`.",
            ));
        }
        let members = members
            .into_iter()
            .map(|backend| Member {
                name: format!("{}: {}", backend.id(), backend.capabilities().device_name),
                backend,
                alive: AtomicBool::new(true),
                batch_rate: AtomicU64::new(0),
                dispatch_rate: AtomicU64::new(0),
                passed_over: AtomicU64::new(0),
                samples: AtomicU64::new(0),
                in_flight: AtomicUsize::new(0),
                resident_bytes: AtomicU64::new(0),
                items: AtomicU64::new(0),
                pieces: AtomicU64::new(0),
                dispatches: AtomicU64::new(0),
                reruns: AtomicU64::new(0),
                recoveries: AtomicU64::new(0),
            })
            .collect();
        Ok(Self {
            members,
            owner: InstanceId::fresh(),
            split_threshold: DEFAULT_SPLIT_THRESHOLD,
            resident: Mutex::new(()),
        })
    }

    /// Splits elementwise dispatches of at least `invocations` invocations (default
    /// [`DEFAULT_SPLIT_THRESHOLD`]); 1 splits every elementwise dispatch that has at least two
    /// workgroups, `u64::MAX` none.
    ///
    /// ```
    /// use vyre::{ReferenceBackend, Sharded};
    ///
    /// let never = Sharded::new(vec![Box::new(ReferenceBackend::new())])?.with_split_threshold(u64::MAX);
    /// # let _ = never;
    /// # Ok::<(), vyre::BackendError>(())
    /// ```
    #[must_use]
    pub fn with_split_threshold(mut self, invocations: u64) -> Self {
        self.split_threshold = invocations;
        self
    }

    /// What each member did and whether it is still in the set, in the order given to
    /// [`Sharded::new`].
    ///
    /// ```
    /// use vyre::{ReferenceBackend, Sharded};
    ///
    /// let sharded = Sharded::new(vec![Box::new(ReferenceBackend::new())])?;
    /// let stats = sharded.stats();
    /// assert_eq!(stats.len(), 1);
    /// assert!(stats[0].alive && stats[0].name.starts_with("reference"));
    /// # Ok::<(), vyre::BackendError>(())
    /// ```
    #[must_use]
    pub fn stats(&self) -> Vec<MemberStats> {
        self.members
            .iter()
            .map(|m| MemberStats {
                name: m.name.clone(),
                alive: m.alive.load(Ordering::SeqCst),
                items: m.items.load(Ordering::Relaxed),
                pieces: m.pieces.load(Ordering::Relaxed),
                dispatches: m.dispatches.load(Ordering::Relaxed),
                reruns: m.reruns.load(Ordering::Relaxed),
                recoveries: m.recoveries.load(Ordering::Relaxed),
                batch_rate: load_rate(&m.batch_rate),
                dispatch_rate: load_rate(&m.dispatch_rate),
            })
            .collect()
    }

    /// The indices of the members still in the set.
    fn alive(&self) -> Vec<usize> {
        (0..self.members.len())
            .filter(|&i| self.members[i].alive.load(Ordering::SeqCst))
            .collect()
    }

    /// Handles a failed call of member `m`: a lost device is recovered (true: run the work again)
    /// or the member is dropped (false, with a warning); `Err` gives back any other error.
    fn after_failure(&self, m: usize, error: BackendError) -> Result<bool, BackendError> {
        if !error.is_device_lost() {
            return Err(error);
        }
        let member = &self.members[m];
        member.reruns.fetch_add(1, Ordering::Relaxed);
        match member.backend.try_recover() {
            Ok(()) if !member.backend.device_lost() => {
                member.recoveries.fetch_add(1, Ordering::Relaxed);
                Ok(true)
            }
            Ok(()) => {
                self.drop_member(m, "it still reports a lost device after recovering");
                Ok(false)
            }
            Err(e) => {
                self.drop_member(m, &e.to_string());
                Ok(false)
            }
        }
    }

    fn drop_member(&self, m: usize, why: &str) {
        let member = &self.members[m];
        if member.alive.swap(false, Ordering::SeqCst) {
            log::warn!(
                "vyre::Sharded: member {m} ({}) lost its device and could not recover ({why}); it is dropped from the set, and its work runs on the {} other member(s).",
                member.name,
                self.alive().len()
            );
        }
    }

    fn none_left(&self) -> BackendError {
        BackendError::device_lost(format!(
            "every one of the {} members of this Sharded backend lost its device and could not recover. Fix: check the GPUs and drivers, then build a new Sharded from freshly acquired backends.",
            self.members.len()
        ))
    }

    /// The dispatch rates of the `alive` members as [`rates`] gives them, with two corrections so
    /// that one slow measurement (a cold start, a busy moment) cannot keep a member out of every
    /// later dispatch, where a small grid's share would round to no workgroup at all:
    /// - a member measured fewer than [`TRUSTED_SAMPLES`] times counts as at least a quarter of the
    ///   fastest;
    /// - every dispatch that ran elsewhere since a member was measured raises its rate by a
    ///   sixteenth, up to the fastest member's, so it is tried again after a number of dispatches
    ///   that grows with how much slower it seemed (a member really that slow then costs about a
    ///   sixteenth more time than never trying it).
    fn dispatch_rates(&self, alive: &[usize]) -> Vec<f64> {
        let rates = rates(&self.members, alive, |m| &m.dispatch_rate);
        let fastest = rates.iter().copied().fold(0.0, f64::max);
        alive
            .iter()
            .zip(rates)
            .map(|(&i, rate)| {
                let member = &self.members[i];
                let rate = if member.samples.load(Ordering::Relaxed) < TRUSTED_SAMPLES {
                    rate.max(fastest / 4.0)
                } else {
                    rate
                };
                let passed = member.passed_over.load(Ordering::Relaxed) as f64;
                (rate * (1.0 + passed / 16.0)).min(fastest.max(rate))
            })
            .collect()
    }

    /// Notes a dispatch whose work ran on the members `ran` (their rates were just measured): every
    /// other alive member was passed over once more.
    pub(super) fn measured(&self, ran: &[usize]) {
        for (i, member) in self.members.iter().enumerate() {
            if ran.contains(&i) {
                member.passed_over.store(0, Ordering::Relaxed);
                member.samples.fetch_add(1, Ordering::Relaxed);
            } else if member.alive.load(Ordering::Relaxed) {
                member.passed_over.fetch_add(1, Ordering::Relaxed);
            }
        }
    }

    /// The alive member expected to finish a dispatch of `invocations` first (in-flight calls
    /// count against it); unmeasured members are taken as fast as the fastest measured one.
    fn best_member(&self) -> Option<usize> {
        let alive = self.alive();
        let rates = self.dispatch_rates(&alive);
        alive
            .iter()
            .zip(&rates)
            .map(|(&i, &rate)| {
                let load = self.members[i].in_flight.load(Ordering::Relaxed) as f64 + 1.0;
                (i, load / rate)
            })
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .map(|(i, _)| i)
    }

    /// Runs `program` whole on one member, moving to another when a member is dropped.
    fn dispatch_whole(
        &self,
        program: &Program,
        inputs: &[Vec<u8>],
        config: &DispatchConfig,
        invocations: u64,
    ) -> Result<Vec<Vec<u8>>, BackendError> {
        loop {
            let m = self.best_member().ok_or_else(|| self.none_left())?;
            let member = &self.members[m];
            member.in_flight.fetch_add(1, Ordering::Relaxed);
            let start = std::time::Instant::now();
            let result = member.backend.dispatch(program, inputs, config);
            member.in_flight.fetch_sub(1, Ordering::Relaxed);
            match result {
                Ok(outputs) => {
                    member.dispatches.fetch_add(1, Ordering::Relaxed);
                    measure(&member.dispatch_rate, invocations as f64, start.elapsed());
                    self.measured(&[m]);
                    return Ok(outputs);
                }
                Err(error) => {
                    self.after_failure(m, error)?;
                }
            }
        }
    }
}

/// Dispatch-rate measurements after which a member's rate is taken as it is (see
/// [`Sharded::dispatch_rates`]).
const TRUSTED_SAMPLES: u64 = 3;

/// The rate stored in `cell`.
fn load_rate(cell: &AtomicU64) -> f64 {
    f64::from_bits(cell.load(Ordering::Relaxed))
}

/// Folds one measurement (`work` units in `elapsed`) into the rate in `cell`: the first sets it,
/// later ones move it a third of the way, so it follows a member that speeds up or slows down.
fn measure(cell: &AtomicU64, work: f64, elapsed: std::time::Duration) {
    let seconds = elapsed.as_secs_f64().max(1e-6);
    let sample = work.max(1.0) / seconds;
    let old = load_rate(cell);
    let new = if old > 0.0 {
        old + (sample - old) / 3.0
    } else {
        sample
    };
    cell.store(new.to_bits(), Ordering::Relaxed);
}

/// The rates of the `alive` members (by `field`), an unmeasured one counting as the fastest
/// measured (1.0 when none is measured): a new member is tried with a fair share at once.
fn rates(members: &[Member], alive: &[usize], field: impl Fn(&Member) -> &AtomicU64) -> Vec<f64> {
    let measured: Vec<f64> = alive
        .iter()
        .map(|&i| load_rate(field(&members[i])))
        .collect();
    let fastest = measured.iter().copied().fold(0.0, f64::max);
    let default = if fastest > 0.0 { fastest } else { 1.0 };
    measured
        .into_iter()
        .map(|r| if r > 0.0 { r } else { default })
        .collect()
}

impl VyreBackend for Sharded {
    fn id(&self) -> &str {
        "sharded"
    }

    /// The limits every member meets (the smallest of each), so a program that passes them runs
    /// on whichever member it lands.
    fn capabilities(&self) -> Capabilities {
        let alive = self.alive();
        let names: Vec<&str> = alive
            .iter()
            .map(|&i| self.members[i].name.as_str())
            .collect();
        let mut caps = Capabilities::unlimited(format!("sharded [{}]", names.join(", ")));
        let all: Vec<Capabilities> = alive
            .iter()
            .map(|&i| self.members[i].backend.capabilities())
            .collect();
        caps.is_gpu = !all.is_empty() && all.iter().all(|c| c.is_gpu);
        caps.timestamps = !all.is_empty() && all.iter().all(|c| c.timestamps);
        // An optional feature only when every member has it: a program may land on any of them.
        caps.subgroups = !all.is_empty() && all.iter().all(|c| c.subgroups);
        caps.f16 = !all.is_empty() && all.iter().all(|c| c.f16);
        caps.int64 = !all.is_empty() && all.iter().all(|c| c.int64);
        caps.int64_atomics = !all.is_empty() && all.iter().all(|c| c.int64_atomics);
        // Every workaround some member applies, each named once: results hold with these.
        for c in &all {
            for w in &c.workarounds {
                if !caps.workarounds.contains(w) {
                    caps.workarounds.push(w.clone());
                }
            }
        }
        // A tile shape only when every member runs it.
        caps.matrix_tiles = all
            .first()
            .map(|first| {
                first
                    .matrix_tiles
                    .iter()
                    .filter(|s| all.iter().all(|c| c.matrix_tiles.contains(s)))
                    .copied()
                    .collect()
            })
            .unwrap_or_default();
        if caps.subgroups || !caps.matrix_tiles.is_empty() {
            // Any size some member may use.
            caps.subgroup_sizes = [
                all.iter().map(|c| c.subgroup_sizes[0]).min().unwrap_or(0),
                all.iter().map(|c| c.subgroup_sizes[1]).max().unwrap_or(0),
            ];
        }
        for c in &all {
            caps.max_workgroups_per_dimension = caps
                .max_workgroups_per_dimension
                .min(c.max_workgroups_per_dimension);
            for axis in 0..3 {
                caps.max_workgroup_size[axis] =
                    caps.max_workgroup_size[axis].min(c.max_workgroup_size[axis]);
            }
            caps.max_invocations_per_workgroup = caps
                .max_invocations_per_workgroup
                .min(c.max_invocations_per_workgroup);
            caps.max_workgroup_storage_bytes = caps
                .max_workgroup_storage_bytes
                .min(c.max_workgroup_storage_bytes);
            caps.max_storage_buffer_bytes = caps
                .max_storage_buffer_bytes
                .min(c.max_storage_buffer_bytes);
            caps.max_uniform_buffer_bytes = caps
                .max_uniform_buffer_bytes
                .min(c.max_uniform_buffer_bytes);
            caps.max_bound_buffers = caps.max_bound_buffers.min(c.max_bound_buffers);
        }
        caps
    }

    fn execute(
        &self,
        program: &Validated<'_>,
        plan: &DispatchPlan,
        inputs: &[Vec<u8>],
        config: &DispatchConfig,
    ) -> Result<Vec<Vec<u8>>, BackendError> {
        let invocations = plan.invocations(program.program()).unwrap_or(u64::MAX);
        if let Some(outputs) = self.dispatch_split(program, plan, inputs, config, invocations)? {
            return Ok(outputs);
        }
        self.dispatch_whole(program.program(), inputs, config, invocations)
    }

    fn dispatch_batch(
        &self,
        program: &Program,
        items: &[Vec<Vec<u8>>],
        config: &DispatchConfig,
    ) -> Result<Vec<Vec<Vec<u8>>>, BackendError> {
        self.run_batch(program, items, config)
    }

    fn create_buffer(&self, bytes: u64) -> Result<DeviceBuffer, BackendError> {
        self.create_placed(bytes)
    }

    fn write_buffer(
        &self,
        buffer: &DeviceBuffer,
        offset: u64,
        data: &[u8],
    ) -> Result<(), BackendError> {
        self.write_placed(buffer, offset, data)
    }

    fn read_buffer(
        &self,
        buffer: &DeviceBuffer,
        range: std::ops::Range<u64>,
    ) -> Result<Vec<u8>, BackendError> {
        self.read_placed(buffer, range)
    }

    fn dispatch_sequence(&self, steps: &[Step<'_>]) -> Result<(), BackendError> {
        // The shared checks over this backend's own buffers first, so every bad step is refused
        // as one backend refuses it, before any buffer moves.
        vyre_driver::prepare_sequence(steps)?;
        self.sequence_placed(steps)
    }

    fn execute_sequence(&self, steps: &[PreparedStep<'_>]) -> Result<(), BackendError> {
        let steps: Vec<Step<'_>> = steps
            .iter()
            .map(|s| Step::new(s.program.program(), s.buffers, s.config))
            .collect();
        self.sequence_placed(&steps)
    }

    /// True only when every member is gone: a member that lost its device is recovered or
    /// dropped by the call that meets the loss.
    fn device_lost(&self) -> bool {
        self.alive()
            .iter()
            .all(|&i| self.members[i].backend.device_lost())
    }

    /// Recovers every member that reports a lost device, dropping those that cannot recover.
    fn try_recover(&self) -> Result<(), BackendError> {
        for m in self.alive() {
            let member = &self.members[m];
            if member.backend.device_lost() {
                match member.backend.try_recover() {
                    Ok(()) if !member.backend.device_lost() => {
                        member.recoveries.fetch_add(1, Ordering::Relaxed);
                    }
                    Ok(()) => self.drop_member(m, "it still reports a lost device"),
                    Err(e) => self.drop_member(m, &e.to_string()),
                }
            }
        }
        if self.alive().is_empty() {
            return Err(self.none_left());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::Ordering;

    use vyre_driver::{DispatchConfig, VyreBackend};
    use vyre_foundation::ir::{BufferDecl, DataType, Expr, Node, Program};
    use vyre_reference::ReferenceBackend;

    use super::Sharded;

    /// One slow measurement (a cold start) must not keep a member out of every later dispatch: the
    /// member passed over is tried again, and measured as it really is.
    #[test]
    fn a_member_measured_slow_once_is_tried_again() {
        let members: Vec<Box<dyn VyreBackend>> = vec![
            Box::new(ReferenceBackend::new()),
            Box::new(ReferenceBackend::new()),
        ];
        let sharded = Sharded::new(members).expect("two members");
        // Member 0 seemed fifty times slower than member 1, over enough measurements to be
        // trusted.
        for (member, rate) in sharded.members.iter().zip([2e4f64, 1e6]) {
            member
                .dispatch_rate
                .store(rate.to_bits(), Ordering::Relaxed);
            member
                .samples
                .store(super::TRUSTED_SAMPLES, Ordering::Relaxed);
        }
        let program = Program::new(
            vec![BufferDecl::output("out", 0, DataType::U32).with_count(4)],
            [4, 1, 1],
            vec![Node::store("out", Expr::gid_x(), Expr::gid_x())],
        );
        // Member 1 is measured as it runs (a few million invocations a second here), so member 0
        // seems slower still; it is tried again within 16 passes per unit of the ratio.
        for _ in 0..8000 {
            sharded
                .dispatch(&program, &[], &DispatchConfig::default())
                .expect("dispatch");
        }
        let stats = sharded.stats();
        assert!(
            stats[0].dispatches > 0,
            "member 0 was never tried again: {stats:?}"
        );
        // Tried again, it was measured as fast as it is (it is the same backend as member 1).
        assert!(stats[0].dispatch_rate > 1e5, "{stats:?}");
    }

    /// A member measured slow only once (a cold start) still gets a share of a split dispatch.
    #[test]
    fn one_slow_measurement_is_not_trusted() {
        let members: Vec<Box<dyn VyreBackend>> = vec![
            Box::new(ReferenceBackend::new()),
            Box::new(ReferenceBackend::new()),
        ];
        let sharded = Sharded::new(members).expect("two members");
        sharded.members[0]
            .dispatch_rate
            .store(1.0f64.to_bits(), Ordering::Relaxed);
        sharded.members[0].samples.store(1, Ordering::Relaxed);
        sharded.members[1]
            .dispatch_rate
            .store(1e6f64.to_bits(), Ordering::Relaxed);
        sharded.members[1].samples.store(5, Ordering::Relaxed);
        let rates = sharded.dispatch_rates(&[0, 1]);
        assert_eq!(rates, [2.5e5, 1e6]);
    }
}
