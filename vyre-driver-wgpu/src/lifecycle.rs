//! One process-wide turn for creating and destroying Vulkan instances and devices.
//!
//! NVIDIA's Vulkan driver (580.159, seen on an H200) deadlocks when one thread destroys a device
//! while another destroys or creates an instance: `vkDestroyInstance` waits for the loader's lock
//! while `vkDestroyDevice`, holding it, waits for a driver thread. Tests that each open a backend
//! on several threads hit it within a few runs. vyre therefore opens and tears down its wgpu objects
//! one at a time: whoever creates an instance or device, or drops an object that may be the last
//! holder of one, takes the turn first.
//!
//! The turn is re-entrant on one thread, because dropping a backend drops its cached pipelines,
//! which take the turn themselves. It guards only vyre's own objects; a process that creates Vulkan
//! devices elsewhere at the same time is outside its reach.

use std::sync::{Condvar, Mutex, PoisonError};
use std::thread::{self, ThreadId};

/// The thread holding the turn and how many times it entered.
static HOLDER: Mutex<(Option<ThreadId>, u32)> = Mutex::new((None, 0));

/// Signalled when the turn is given up.
static RELEASED: Condvar = Condvar::new();

/// Holding the turn; it is given up when this is dropped (on the thread that took it).
#[derive(Debug)]
pub(crate) struct Turn(());

impl Turn {
    /// Waits for the turn (at once when this thread already holds it).
    pub(crate) fn take() -> Self {
        let me = thread::current().id();
        let mut holder = HOLDER.lock().unwrap_or_else(PoisonError::into_inner);
        while holder.0.is_some_and(|t| t != me) {
            holder = RELEASED
                .wait(holder)
                .unwrap_or_else(PoisonError::into_inner);
        }
        holder.0 = Some(me);
        holder.1 += 1;
        Turn(())
    }
}

impl Drop for Turn {
    fn drop(&mut self) {
        let mut holder = HOLDER.lock().unwrap_or_else(PoisonError::into_inner);
        holder.1 = holder.1.saturating_sub(1);
        if holder.1 == 0 {
            holder.0 = None;
            RELEASED.notify_all();
        }
    }
}

/// A field that takes the turn when its owner is dropped and gives it up after the owner's other
/// fields are gone: declare it *last* and call [`TeardownTurn::take`] from the owner's `Drop`.
#[derive(Debug, Default)]
pub(crate) struct TeardownTurn(Option<Turn>);

impl TeardownTurn {
    /// Takes the turn for the rest of the owner's drop.
    pub(crate) fn take(&mut self) {
        if self.0.is_none() {
            self.0 = Some(Turn::take());
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicU32, Ordering};

    use super::Turn;

    #[test]
    fn the_turn_is_reentrant_and_exclusive_across_threads() {
        let inside = Arc::new(AtomicU32::new(0));
        let threads: Vec<_> = (0..4)
            .map(|_| {
                let inside = Arc::clone(&inside);
                std::thread::spawn(move || {
                    for _ in 0..200 {
                        let _outer = Turn::take();
                        let _inner = Turn::take();
                        assert_eq!(inside.fetch_add(1, Ordering::SeqCst), 0);
                        std::thread::yield_now();
                        inside.fetch_sub(1, Ordering::SeqCst);
                    }
                })
            })
            .collect();
        for t in threads {
            assert!(t.join().is_ok());
        }
    }
}
