//! What async calls wait on: a [`Signal`] that a wgpu callback completes, and the [`Poller`], one
//! thread per device that drives wgpu's callbacks while anything waits on them.
//!
//! wgpu runs `map_async` and `on_submitted_work_done` callbacks only from `Device::poll` (natively;
//! WebGPU runs them from the browser's event loop). A blocking call polls for itself; a future
//! must not, so the device's poller does it for all of them: it sleeps on a condition variable
//! while nothing is watched, and otherwise waits in `poll(PollType::Wait)` for the oldest watched
//! submission, never in a loop that spins. A signal's callback stores the outcome and wakes the
//! future's waker; the poller then forgets the signal.
//!
//! Cancelled work is the poller's too: a future dropped while its maps are pending hands the
//! buffers it leased to [`Poller::abandon`] with the signals they wait on, and the poller gives them
//! back (unmapped) once those have fired, so nothing returns to the pool while the device may still
//! write into it. On a lost device the poller wakes every watcher (each then reports the loss) and
//! drops what was abandoned: a lost device's buffers are never pooled again.
//!
//! The thread starts on the first watch (a program that never awaits never has one) and stops when
//! the device's state is dropped, which no future outlives: each holds the state it runs on.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::task::Waker;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// The longest single wait in `poll`, so that a stop or a lost device is noticed even while the
/// device is busy with a long submission.
const WAIT_SLICE: Duration = Duration::from_millis(100);

/// The longest pause after a poll that completed nothing (a map whose callback wgpu defers): the
/// poller backs off from 1 ms up to this, so it never spins.
const MAX_BACKOFF: Duration = Duration::from_millis(20);

/// How a watched operation ended, as its wgpu callback reported it.
pub(crate) type Outcome = Result<(), String>;

/// One operation's completion: set once by its wgpu callback, read by the launch that waits.
#[derive(Default)]
pub(crate) struct Signal {
    state: Mutex<SignalState>,
}

#[derive(Default)]
struct SignalState {
    outcome: Option<Outcome>,
    /// The task to wake when the outcome arrives or the deadline passes.
    waker: Option<Waker>,
    /// The submission whose completion fires the callback, for the poller's wait.
    submission: Option<wgpu::SubmissionIndex>,
    /// After this the waiting future gives up (`DispatchConfig::timeout`); the poller wakes it then.
    deadline: Option<Instant>,
    /// Handed to the poller already.
    watched: bool,
}

impl Signal {
    /// A fresh signal for an operation completed by the work of `submission`, if it has one.
    pub(crate) fn new(submission: Option<wgpu::SubmissionIndex>) -> Arc<Self> {
        Arc::new(Self {
            state: Mutex::new(SignalState {
                submission,
                ..SignalState::default()
            }),
        })
    }

    fn lock(&self) -> MutexGuard<'_, SignalState> {
        // A panic while holding this lock cannot leave the state half-updated (single stores).
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Records `outcome` (the first one stands) and wakes the waiting task. Called from wgpu's
    /// callbacks, which may run on any thread that polls the device.
    pub(crate) fn fire(&self, outcome: Outcome) {
        let waker = {
            let mut state = self.lock();
            if state.outcome.is_none() {
                state.outcome = Some(outcome);
            }
            state.waker.take()
        };
        if let Some(waker) = waker {
            waker.wake();
        }
    }

    /// The outcome, once the callback has run.
    pub(crate) fn outcome(&self) -> Option<Outcome> {
        self.lock().outcome.clone()
    }

    /// True once the callback has run.
    pub(crate) fn fired(&self) -> bool {
        self.lock().outcome.is_some()
    }

    /// The submission whose completion fires the callback, if known.
    pub(crate) fn submission(&self) -> Option<wgpu::SubmissionIndex> {
        self.lock().submission.clone()
    }

    /// Sets the submission the callback waits for (known only after the submit).
    pub(crate) fn set_submission(&self, submission: wgpu::SubmissionIndex) {
        self.lock().submission = Some(submission);
    }

    /// The callback that fires this signal, for `map_async`.
    pub(crate) fn map_callback(
        self: &Arc<Self>,
    ) -> impl FnOnce(Result<(), wgpu::BufferAsyncError>) + Send + 'static {
        let signal = Arc::clone(self);
        move |result| signal.fire(result.map_err(|e| e.to_string()))
    }

    /// Keeps `waker` to wake when the outcome arrives; false when it already has. `deadline` is
    /// when the waiting future gives up.
    fn park(&self, waker: &Waker, deadline: Option<Instant>) -> Parked {
        let mut state = self.lock();
        if state.outcome.is_some() {
            return Parked::Fired;
        }
        match &mut state.waker {
            Some(kept) if kept.will_wake(waker) => {}
            slot => *slot = Some(waker.clone()),
        }
        state.deadline = deadline;
        if std::mem::replace(&mut state.watched, true) {
            Parked::Watched
        } else {
            Parked::New
        }
    }

    /// Wakes the waiting task (a deadline passed, the device was lost, the poller stops).
    fn nudge(&self) {
        let waker = self.lock().waker.take();
        if let Some(waker) = waker {
            waker.wake();
        }
    }
}

enum Parked {
    Fired,
    New,
    Watched,
}

/// Work a dropped future left behind: its buffers, given back by `reclaim` once every signal in
/// `pending` has fired.
struct Abandoned {
    pending: Vec<Arc<Signal>>,
    reclaim: Box<dyn FnOnce() + Send>,
}

impl Abandoned {
    fn waits_on(&self, signal: &Arc<Signal>) -> bool {
        self.pending.iter().any(|s| Arc::ptr_eq(s, signal))
    }
}

#[derive(Default)]
struct Watch {
    /// Signals futures wait on, oldest first.
    signals: Vec<Arc<Signal>>,
    abandoned: Vec<Abandoned>,
    stop: bool,
}

struct Shared {
    watch: Mutex<Watch>,
    wake: Condvar,
    /// Abandoned work not yet reclaimed (`WgpuStats::reclaims_pending`).
    pending: AtomicU64,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Watch> {
        self.watch
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// The device's poller (see the module docs).
pub(crate) struct Poller {
    device: wgpu::Device,
    lost: Arc<AtomicBool>,
    shared: Arc<Shared>,
    thread: Mutex<Option<JoinHandle<()>>>,
}

/// The result of [`Poller::wait_on`].
pub(crate) enum Wait {
    /// The signal has fired: read its outcome.
    Fired,
    /// The waker will be woken when it fires, the deadline passes or the device is lost.
    Pending,
}

impl Poller {
    /// A poller for `device`, whose loss sets `lost`. Starts no thread yet.
    pub(crate) fn new(device: wgpu::Device, lost: Arc<AtomicBool>) -> Self {
        Self {
            device,
            lost,
            shared: Arc::new(Shared {
                watch: Mutex::new(Watch::default()),
                wake: Condvar::new(),
                pending: AtomicU64::new(0),
            }),
            thread: Mutex::new(None),
        }
    }

    /// Makes `waker` be woken when `signal` fires (or `deadline` passes, or the device is lost),
    /// with the poller driving the device until then.
    pub(crate) fn wait_on(
        &self,
        signal: &Arc<Signal>,
        waker: &Waker,
        deadline: Option<Instant>,
    ) -> Wait {
        match signal.park(waker, deadline) {
            Parked::Fired => return Wait::Fired,
            Parked::Watched => return Wait::Pending,
            Parked::New => {}
        }
        self.shared.lock().signals.push(Arc::clone(signal));
        self.start();
        self.shared.wake.notify_all();
        // A fire between `park` and the push above is seen by the poller's next sweep; one that
        // came before `park` returned `Fired`.
        Wait::Pending
    }

    /// Hands over a dropped future's buffers: `reclaim` runs on the poller's thread once every
    /// signal of `pending` has fired (at once when they all have), or never when the device is lost.
    pub(crate) fn abandon(&self, pending: Vec<Arc<Signal>>, reclaim: Box<dyn FnOnce() + Send>) {
        if pending.iter().all(|s| s.fired()) {
            reclaim();
            return;
        }
        if self.lost.load(Ordering::SeqCst) {
            return;
        }
        self.shared.pending.fetch_add(1, Ordering::SeqCst);
        {
            let mut watch = self.shared.lock();
            for signal in &pending {
                let mut state = signal.lock();
                if !std::mem::replace(&mut state.watched, true) {
                    watch.signals.push(Arc::clone(signal));
                }
            }
            watch.abandoned.push(Abandoned { pending, reclaim });
        }
        self.start();
        self.shared.wake.notify_all();
    }

    /// Abandoned work not yet reclaimed.
    pub(crate) fn reclaims_pending(&self) -> u64 {
        self.shared.pending.load(Ordering::SeqCst)
    }

    /// Starts the thread unless it runs.
    fn start(&self) {
        let mut thread = self
            .thread
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if thread.is_some() {
            return;
        }
        let device = self.device.clone();
        let lost = Arc::clone(&self.lost);
        let shared = Arc::clone(&self.shared);
        let spawned = std::thread::Builder::new()
            .name("vyre-poller".into())
            .spawn(move || run(&device, &lost, &shared));
        match spawned {
            Ok(handle) => *thread = Some(handle),
            // Without a thread nothing would ever wake the watchers: wake them now, and mark the
            // device lost so that they report it rather than wait again (a recovery opens a new
            // device, whose poller tries again).
            Err(e) => {
                log::warn!(
                    "vyre could not start its device poller thread ({e}); async calls on this device fail as lost"
                );
                self.lost.store(true, Ordering::SeqCst);
                let watch = std::mem::take(&mut *self.shared.lock());
                for signal in &watch.signals {
                    signal.nudge();
                }
            }
        }
    }
}

impl Drop for Poller {
    fn drop(&mut self) {
        self.shared.lock().stop = true;
        self.shared.wake.notify_all();
        let handle = self
            .thread
            .get_mut()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take();
        if let Some(handle) = handle {
            // The poller's own thread never drops the poller (it holds no device state), but a
            // waker it runs could end a task that does: never join oneself.
            if handle.thread().id() != std::thread::current().id() {
                let _ = handle.join();
            }
        }
    }
}

/// The poller's loop: sleep while nothing is watched; otherwise wait for the oldest watched
/// submission, then sweep.
fn run(device: &wgpu::Device, lost: &AtomicBool, shared: &Shared) {
    let mut backoff = Duration::ZERO;
    while let Some(target) = next_target(shared, lost, backoff) {
        let before = Instant::now();
        let timeout = target.deadline.map_or(WAIT_SLICE, |d| {
            d.saturating_duration_since(before).min(WAIT_SLICE)
        });
        let polled = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            device.poll(wgpu::PollType::Wait {
                submission_index: target.submission,
                timeout: Some(timeout),
            })
        }));
        match polled {
            Ok(Ok(_) | Err(wgpu::PollError::Timeout)) => {}
            // A poll error or a panic inside wgpu-hal: the device is gone.
            Ok(Err(_)) | Err(_) => lost.store(true, Ordering::SeqCst),
        }
        let progressed = {
            let watch = shared.lock();
            watch.signals.iter().filter(|s| !s.fired()).count() != target.watched
        };
        // A poll that returned at once and completed nothing would loop hot: back off instead
        // (doubling from 1 ms up to `MAX_BACKOFF`), until something completes.
        backoff = if progressed || before.elapsed() >= Duration::from_millis(1) {
            Duration::ZERO
        } else {
            (backoff * 2).clamp(Duration::from_millis(1), MAX_BACKOFF)
        };
    }
}

/// Sweeps, then sleeps until something is watched and `pause` has passed: what the next `poll`
/// waits for, or `None` when the poller stops.
fn next_target(shared: &Shared, lost: &AtomicBool, pause: Duration) -> Option<Target> {
    let mut paused = pause.is_zero();
    loop {
        let mut watch = shared.lock();
        let swept = sweep(&mut watch, lost);
        if !swept.is_empty() {
            // Wakers run and buffers go back with the lock let go (a waker may poll its future
            // at once, which watches again); then sweep again.
            drop(watch);
            swept.finish(shared);
            continue;
        }
        if watch.stop {
            return None;
        }
        if watch.signals.is_empty() {
            drop(
                shared
                    .wake
                    .wait(watch)
                    .unwrap_or_else(std::sync::PoisonError::into_inner),
            );
            continue;
        }
        if !paused {
            paused = true;
            // Woken early by a new watch or a stop: either way, sweep again first.
            drop(
                shared
                    .wake
                    .wait_timeout(watch, pause)
                    .unwrap_or_else(std::sync::PoisonError::into_inner),
            );
            continue;
        }
        return Some(next_wait(&watch));
    }
}

/// What the next `poll` waits for, and how many signals were watched then.
struct Target {
    submission: Option<wgpu::SubmissionIndex>,
    deadline: Option<Instant>,
    watched: usize,
}

fn next_wait(watch: &Watch) -> Target {
    let mut deadline: Option<Instant> = None;
    let mut submission = None;
    for signal in &watch.signals {
        let state = signal.lock();
        if submission.is_none() {
            submission.clone_from(&state.submission);
        }
        if let Some(d) = state.deadline {
            deadline = Some(deadline.map_or(d, |e| e.min(d)));
        }
    }
    Target {
        submission,
        deadline,
        watched: watch.signals.len(),
    }
}

/// What a sweep leaves to do once the watch's lock is let go.
#[derive(Default)]
struct Swept {
    wakers: Vec<Waker>,
    reclaims: Vec<Box<dyn FnOnce() + Send>>,
    /// Abandoned work dropped unreclaimed (a lost device, a stop).
    dropped: u64,
}

impl Swept {
    fn is_empty(&self) -> bool {
        self.wakers.is_empty() && self.reclaims.is_empty() && self.dropped == 0
    }

    fn finish(self, shared: &Shared) {
        for waker in self.wakers {
            waker.wake();
        }
        // Counted down only once the buffers are back, so that a zero count means a settled pool.
        let done = self.reclaims.len() as u64 + self.dropped;
        for reclaim in self.reclaims {
            reclaim();
        }
        shared.pending.fetch_sub(done, Ordering::SeqCst);
    }
}

/// Forgets fired signals, takes the wakers of watchers whose deadline passed, takes the reclaims
/// of abandoned work whose signals have all fired, and on a lost device or a stop takes every
/// waker and drops what was abandoned (a lost device's buffers are useless; a stopping poller's
/// device is being torn down).
fn sweep(watch: &mut Watch, lost: &AtomicBool) -> Swept {
    let now = Instant::now();
    let ending = lost.load(Ordering::SeqCst) || watch.stop;
    let mut swept = Swept::default();
    let abandoned = std::mem::take(&mut watch.abandoned);
    watch.signals.retain(|signal| {
        let mut state = signal.lock();
        let fired = state.outcome.is_some();
        let expired = state.deadline.is_some_and(|d| d <= now);
        // A signal whose deadline passed stays watched only while abandoned work waits on it.
        let keep =
            !fired && !ending && (!expired || abandoned.iter().any(|work| work.waits_on(signal)));
        if !keep {
            state.watched = false;
            swept.wakers.extend(state.waker.take());
        }
        keep
    });
    for work in abandoned {
        if ending {
            swept.dropped += 1;
        } else if work.pending.iter().all(|s| s.fired()) {
            swept.reclaims.push(work.reclaim);
        } else {
            watch.abandoned.push(work);
        }
    }
    swept
}
