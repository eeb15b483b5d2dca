//! Load: 8 threads x 500 random dispatches of the mixed programs ([`mix`](super::mix)) on one shared
//! backend, every result checked against the value computed on the CPU. A backend with pools and
//! caches can check their bounds around these phases in its own tests (`warm_up` first, so that the
//! later phases should compile nothing).

use std::time::Instant;

use vyre_driver::{DispatchConfig, VyreBackend};

use crate::reliability::mix::{Rng, job, programs};

/// Threads of [`check_threads`].
pub const THREADS: usize = 8;
/// Dispatches per thread of [`check_threads`].
pub const PER_THREAD: usize = 500;

/// Runs `per_thread` random mixed dispatches on each of `threads` threads sharing `backend`; returns
/// how many ran.
///
/// # Panics
///
/// When a dispatch fails or returns a wrong result (the panic names the thread and dispatch).
pub fn run_threads(backend: &dyn VyreBackend, threads: usize, per_thread: usize) -> usize {
    let programs = programs();
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|t| {
                let programs = &programs;
                scope.spawn(move || {
                    let mut rng = Rng::new(1000 + t as u64);
                    for i in 0..per_thread {
                        let job = job(&mut rng, false);
                        let out = backend
                            .dispatch(
                                &programs[job.program],
                                &job.inputs,
                                &DispatchConfig::default(),
                            )
                            .unwrap_or_else(|e| panic!("thread {t} dispatch {i}: {e}"));
                        assert!(
                            out == job.expected,
                            "thread {t} dispatch {i} (program {}): wrong result",
                            job.program
                        );
                    }
                    per_thread
                })
            })
            .collect();
        // A worker's panic is re-raised here with its own message, so the test names the dispatch.
        workers
            .into_iter()
            .map(|w| w.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .sum()
    })
}

/// Dispatches every program of the mix at least once, so that later phases compile nothing; returns
/// how many dispatches that took.
///
/// # Panics
///
/// When a dispatch fails or returns a wrong result.
pub fn warm_up(backend: &dyn VyreBackend) -> usize {
    let programs = programs();
    let mut rng = Rng::new(7);
    let mut seen = vec![false; programs.len()];
    let mut ran = 0;
    while seen.iter().any(|s| !s) {
        let job = job(&mut rng, false);
        let out = backend
            .dispatch(
                &programs[job.program],
                &job.inputs,
                &DispatchConfig::default(),
            )
            .unwrap_or_else(|e| panic!("warm-up program {}: {e}", job.program));
        assert!(out == job.expected, "warm-up program {}", job.program);
        seen[job.program] = true;
        ran += 1;
    }
    ran
}

/// The warm-up, then [`THREADS`] x [`PER_THREAD`] dispatches on one shared backend, every result
/// checked; prints the count and time and returns the dispatches run.
///
/// # Panics
///
/// When a dispatch fails or returns a wrong result; that is its purpose (a test assertion).
pub fn check_threads(backend: &dyn VyreBackend) -> usize {
    let started = Instant::now();
    let ran = warm_up(backend) + run_threads(backend, THREADS, PER_THREAD);
    eprintln!(
        "load on {}: {ran} dispatches ({THREADS} threads x {PER_THREAD} + warm-up) of {} programs, every result correct, in {:?}",
        backend.id(),
        programs().len(),
        started.elapsed()
    );
    ran
}
