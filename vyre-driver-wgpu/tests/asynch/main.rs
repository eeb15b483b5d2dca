//! The async API on wgpu (`VyreBackend::*_async`): many tasks of a multi-threaded tokio runtime
//! sharing one backend, futures dropped at every point of their life, resident reads and
//! sequences, batches, and device losses under an awaited call.
//!
//! Futures are driven by tokio where the test is about a runtime, and by hand (`poll` with a waker
//! that counts its wakes) where it is about what a future holds between two polls.

mod cancel;
mod load;
mod resident;

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Condvar, Mutex};
use std::task::{Context, Poll, Wake, Waker};
use std::time::{Duration, Instant};

use vyre_driver_wgpu::WgpuBackend;

pub(crate) use vyre_conformance::fixtures::add_one_program;

/// Little-endian words of `bytes`.
pub(crate) fn words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// Little-endian bytes of `words`.
pub(crate) fn bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// A waker that counts its wakes, for polling a future by hand.
#[derive(Default)]
pub(crate) struct Counting {
    wakes: Mutex<usize>,
    woken: Condvar,
}

impl Wake for Counting {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        *self.wakes.lock().unwrap() += 1;
        self.woken.notify_all();
    }
}

impl Counting {
    pub(crate) fn new() -> (Arc<Self>, Waker) {
        let counting = Arc::new(Self::default());
        let waker = Waker::from(Arc::clone(&counting));
        (counting, waker)
    }

    pub(crate) fn wakes(&self) -> usize {
        *self.wakes.lock().unwrap()
    }

    /// Blocks until the waker has been woken more than `seen` times; panics after 10 s (a future
    /// whose waker is never woken would hang its caller forever).
    pub(crate) fn await_wake(&self, seen: usize) {
        let deadline = Instant::now() + Duration::from_secs(10);
        let mut wakes = self.wakes.lock().unwrap();
        while *wakes <= seen {
            let left = deadline.saturating_duration_since(Instant::now());
            assert!(!left.is_zero(), "the waker was not woken within 10 s");
            wakes = self.woken.wait_timeout(wakes, left).unwrap().0;
        }
    }
}

/// Polls `future` once with `waker`.
pub(crate) fn poll_once<F: Future + ?Sized>(future: Pin<&mut F>, waker: &Waker) -> Poll<F::Output> {
    future.poll(&mut Context::from_waker(waker))
}

/// Waits until the backend's dropped futures have all given their buffers back (the device
/// finishes their work first); panics after 10 s.
pub(crate) fn settle(backend: &WgpuBackend) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while backend.stats().reclaims_pending > 0 {
        assert!(
            Instant::now() < deadline,
            "dropped futures' buffers were not reclaimed within 10 s: {:?}",
            backend.stats()
        );
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// A multi-threaded tokio runtime of `workers` threads.
pub(crate) fn runtime(workers: usize) -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(workers)
        .build()
        .expect("a tokio runtime")
}

/// Runs `f` on a thread of its own and fails if it has not returned within `limit`: an awaited
/// call must end, whatever happens to the device.
pub(crate) fn within<T: Send + 'static>(
    limit: Duration,
    f: impl FnOnce() -> T + Send + 'static,
) -> T {
    let (send, receive) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = send.send(f());
    });
    receive
        .recv_timeout(limit)
        .unwrap_or_else(|e| panic!("did not finish within {limit:?}: {e}"))
}
