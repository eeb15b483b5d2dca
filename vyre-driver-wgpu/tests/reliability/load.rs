//! Load: 8 threads x 500 dispatches of the mixed programs on one shared backend, every result checked;
//! on wgpu 6 000 more small dispatches follow on the same backend, and over all 10 000 the buffer pool
//! and the pipeline cache stay within their bounds. A separate run through more distinct programs than
//! either cache holds checks that the caches evict.

use std::time::Instant;

use vyre_conformance::ReferenceBackend;
use vyre_driver::{DispatchConfig, VyreBackend};
use vyre_driver_wgpu::WgpuBackend;
use vyre_driver_wgpu::testing::backend_or_skip;

use crate::common::{add_one_program, bytes, words};
use crate::mix::{Rng, job, programs};

const THREADS: usize = 8;
const PER_THREAD: usize = 500;
/// Single-threaded small dispatches after the threaded run, to reach 10 000 on one wgpu backend.
const SINGLE: usize = 6000;
/// `POOL_LIMIT_BYTES` in `src/pool.rs`: the idle bytes the pool may keep.
const POOL_LIMIT_BYTES: u64 = 256 << 20;
/// `CACHE_LIMIT` in `src/backend.rs` and `CACHE_CAPACITY` in the reference's `cache.rs`.
const WGPU_CACHE_LIMIT: u64 = 256;
const REFERENCE_CACHE_LIMIT: usize = 64;

/// Runs `per_thread` random mixed dispatches on each of `threads` threads; returns how many ran.
fn run_threads(backend: &dyn VyreBackend, threads: usize, per_thread: usize) -> usize {
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
        workers.into_iter().map(|w| w.join().expect("worker")).sum()
    })
}

/// Dispatches every program of the mix once, so that later phases compile nothing.
fn warm_up(backend: &dyn VyreBackend) -> usize {
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
            .expect("warm-up dispatch");
        assert!(out == job.expected, "warm-up program {}", job.program);
        seen[job.program] = true;
        ran += 1;
    }
    ran
}

#[test]
fn eight_threads_share_one_reference_backend() {
    let backend = ReferenceBackend::new();
    let started = Instant::now();
    let ran = warm_up(&backend) + run_threads(&backend, THREADS, PER_THREAD);
    assert_eq!(backend.cached_programs(), programs().len());
    eprintln!(
        "load on reference: {ran} dispatches ({THREADS} threads x {PER_THREAD} + warm-up) of {} programs, every result correct, {} cached programs, in {:?}",
        programs().len(),
        backend.cached_programs(),
        started.elapsed()
    );
}

fn check_pool_and_cache(backend: &WgpuBackend, phase: &str, pipelines_before: u64) {
    let stats = backend.stats();
    assert!(
        stats.pool_bytes_held <= POOL_LIMIT_BYTES,
        "{phase}: {stats:?}"
    );
    assert_eq!(
        stats.cache_entries,
        programs().len() as u64,
        "{phase}: {stats:?}"
    );
    assert_eq!(
        stats.pipelines_created, pipelines_before,
        "{phase}: no pipeline is compiled after the warm-up: {stats:?}"
    );
}

#[test]
fn ten_thousand_dispatches_on_one_wgpu_backend_keep_the_pool_and_cache_bounded() {
    let Some(backend) = backend_or_skip(
        "ten_thousand_dispatches_on_one_wgpu_backend_keep_the_pool_and_cache_bounded",
    ) else {
        return;
    };
    let started = Instant::now();
    let mut ran = warm_up(&backend);
    let warm = backend.stats();
    ran += run_threads(&backend, THREADS, PER_THREAD);
    let threaded = started.elapsed();
    check_pool_and_cache(&backend, "after the threads", warm.pipelines_created);
    let after_threads = backend.stats();
    let programs = programs();
    let mut rng = Rng::new(99);
    for i in 0..SINGLE {
        let job = job(&mut rng, true);
        let out = backend
            .dispatch(
                &programs[job.program],
                &job.inputs,
                &DispatchConfig::default(),
            )
            .unwrap_or_else(|e| panic!("single dispatch {i}: {e}"));
        assert!(
            out == job.expected,
            "single dispatch {i} (program {}): wrong result",
            job.program
        );
        ran += 1;
    }
    check_pool_and_cache(&backend, "after the single thread", warm.pipelines_created);
    let end = backend.stats();
    assert!(ran >= 10_000, "{ran}");
    // Without the pool every dispatch would create 4 to 5 buffers (bindings, params, staging). With
    // it, the threaded phase may create up to one buffer per thread for each (size class, usage) it
    // uses, and the single-threaded phase reuses what is idle.
    assert!(
        end.buffers_created < (ran as u64) / 10,
        "the pool is not reusing buffers: {end:?}"
    );
    assert!(
        end.buffers_created - after_threads.buffers_created <= 16,
        "single-threaded small dispatches should find pooled buffers: {after_threads:?} -> {end:?}"
    );
    eprintln!(
        "load on wgpu: {ran} dispatches ({THREADS} threads x {PER_THREAD} in {threaded:?}, then {SINGLE} single-threaded) of {} programs in {:?}, every result correct; pipelines created {}, cache entries {}, buffers created {} ({} in the single-threaded phase), pool bytes held {} (limit {POOL_LIMIT_BYTES})",
        programs.len(),
        started.elapsed(),
        end.pipelines_created,
        end.cache_entries,
        end.buffers_created,
        end.buffers_created - after_threads.buffers_created,
        end.pool_bytes_held
    );
}

/// Dispatches `count` distinct programs once each; returns the largest cache size seen.
fn distinct_programs(backend: &dyn VyreBackend, count: u32, cached: impl Fn() -> u64) -> u64 {
    let mut largest = 0;
    for n in 1..=count {
        let out = backend
            .dispatch(
                &add_one_program(n),
                &[bytes(&vec![n; n as usize])],
                &DispatchConfig::default(),
            )
            .expect("dispatch");
        assert_eq!(words(&out[0]), vec![n + 1; n as usize]);
        largest = largest.max(cached());
    }
    largest
}

#[test]
fn caches_stay_within_their_limits_past_that_many_distinct_programs() {
    let reference = ReferenceBackend::new();
    let count = REFERENCE_CACHE_LIMIT as u32 + 36;
    let largest = distinct_programs(&reference, count, || reference.cached_programs() as u64);
    assert_eq!(largest, REFERENCE_CACHE_LIMIT as u64);
    eprintln!("reference cache: {count} distinct programs, at most {largest} cached");
    let Some(wgpu) =
        backend_or_skip("caches_stay_within_their_limits_past_that_many_distinct_programs")
    else {
        return;
    };
    let count = WGPU_CACHE_LIMIT as u32 + 44;
    let largest = distinct_programs(&wgpu, count, || wgpu.stats().cache_entries);
    assert_eq!(largest, WGPU_CACHE_LIMIT);
    assert!(wgpu.stats().pool_bytes_held <= POOL_LIMIT_BYTES);
    eprintln!("wgpu cache: {count} distinct programs, at most {largest} cached pipelines");
}
