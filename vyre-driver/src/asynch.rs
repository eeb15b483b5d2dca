//! What the async side of [`crate::VyreBackend`] is built from: the boxed future every async method
//! returns, and [`block_on`], a small executor for callers without a runtime.
//!
//! The trait stays object-safe: each async method returns a [`BackendFuture`], a pinned box that
//! borrows the backend and the call's arguments. No runtime is assumed (vyre-driver depends on no
//! executor crate): a future makes progress when it is polled, and a backend with a device wakes it
//! when the device has finished the work it waits for (the wgpu backend from one poller thread per
//! device; see its crate docs). A future dropped before it finishes cancels the call; what cancelling
//! guarantees is part of each method's contract.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use std::thread::Thread;

use crate::BackendError;

/// The future of one async backend call: `Send`, so a multi-threaded runtime may move it between
/// threads, and borrowing the backend and the call's arguments for `'a`.
///
/// ```
/// use vyre_driver::{BackendError, BackendFuture};
///
/// fn answer<'a>() -> BackendFuture<'a, u32> {
///     Box::pin(async { Ok::<u32, BackendError>(42) })
/// }
/// assert_eq!(vyre_driver::block_on(answer())?, 42);
/// # Ok::<(), BackendError>(())
/// ```
pub type BackendFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, BackendError>> + Send + 'a>>;

/// Runs `future` to completion on the calling thread, parking the thread (not spinning) whenever the
/// future is pending; its waker unparks it. For programs and tests with no async runtime; inside a
/// runtime, `.await` the future instead (this blocks the thread, which a runtime's worker must not).
///
/// ```
/// use vyre_driver::{DispatchConfig, VyreBackend, block_on};
/// use vyre_foundation::ir::{BufferDecl, DataType, Expr, Node, Program};
///
/// let program = Program::new(
///     vec![BufferDecl::output("o", 0, DataType::U32).with_count(1)],
///     [1, 1, 1],
///     vec![Node::store("o", Expr::u32(0), Expr::u32(6))],
/// );
/// let backend = vyre_reference::ReferenceBackend::new();
/// let config = DispatchConfig::default();
/// let outputs = block_on(backend.dispatch_async(&program, &[], &config))?;
/// assert_eq!(outputs[0], 6u32.to_le_bytes());
/// # Ok::<(), vyre_driver::BackendError>(())
/// ```
pub fn block_on<F: Future>(future: F) -> F::Output {
    let mut future = std::pin::pin!(future);
    let unparker = Arc::new(Unpark(std::thread::current()));
    let waker = Waker::from(unparker);
    let mut cx = Context::from_waker(&waker);
    loop {
        if let Poll::Ready(output) = future.as_mut().poll(&mut cx) {
            return output;
        }
        // A wake that came before this park leaves the thread's token set, so the park returns at
        // once and the future is polled again; a spurious return only costs one more poll.
        std::thread::park();
    }
}

/// The waker of [`block_on`]: unparks the thread that waits.
struct Unpark(Thread);

impl Wake for Unpark {
    fn wake(self: Arc<Self>) {
        self.0.unpark();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.0.unpark();
    }
}

#[cfg(test)]
mod tests {
    use std::future::Future;
    use std::pin::Pin;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::{Arc, Mutex};
    use std::task::{Context, Poll, Waker};

    use super::block_on;

    /// Pending until another thread completes it, then ready with 7: the waker must be kept and
    /// used across threads.
    struct Remote {
        slot: Arc<Mutex<(bool, Option<Waker>)>>,
        polls: Arc<AtomicUsize>,
    }

    impl Future for Remote {
        type Output = u32;
        fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<u32> {
            self.polls.fetch_add(1, Ordering::SeqCst);
            let mut slot = self.slot.lock().unwrap_or_else(|e| e.into_inner());
            if slot.0 {
                return Poll::Ready(7);
            }
            slot.1 = Some(cx.waker().clone());
            Poll::Pending
        }
    }

    #[test]
    fn block_on_parks_until_another_thread_wakes_it() {
        let slot = Arc::new(Mutex::new((false, None::<Waker>)));
        let polls = Arc::new(AtomicUsize::new(0));
        let remote = Remote {
            slot: Arc::clone(&slot),
            polls: Arc::clone(&polls),
        };
        let waker_side = std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(50));
            let mut slot = slot.lock().unwrap_or_else(|e| e.into_inner());
            slot.0 = true;
            if let Some(waker) = slot.1.take() {
                waker.wake();
            }
        });
        assert_eq!(block_on(remote), 7);
        waker_side.join().expect("the waking thread");
        // Parked, not spinning: polled once before the wake and about once after it.
        let polls = polls.load(Ordering::SeqCst);
        assert!((2..=4).contains(&polls), "polled {polls} times");
    }
}
