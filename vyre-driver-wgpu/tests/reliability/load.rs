//! The buffer pool and the pipeline cache of one `WgpuBackend` under load: after a warm-up, threads
//! and then 6 000 small single-threaded dispatches compile nothing new, create few buffers and keep
//! the idle pool bytes under the pool's limit; poisoned buffers go back to the pool; past their limits
//! both backends' caches evict. The backend-neutral load (8 threads x 500 dispatches, every result
//! checked) runs on every backend as `reliability::load` of `backend_tests!`.

use std::time::Instant;

use vyre_conformance::ReferenceBackend;
use vyre_conformance::reliability::isolation::poison;
use vyre_conformance::reliability::load::{run_threads, warm_up};
use vyre_conformance::reliability::mix::{Rng, job, programs};
use vyre_driver::{DispatchConfig, VyreBackend};
use vyre_driver_wgpu::WgpuBackend;
use vyre_driver_wgpu::testing::backend_or_skip;

use crate::common::{add_one_program, bytes, words};

/// Threads, and dispatches per thread, of the threaded phase here: enough for every thread to take
/// buffers of every size class from the pool at once (the long threaded run is the suite's).
const THREADS: usize = 8;
const PER_THREAD: usize = 50;
/// Single-threaded small dispatches after the threaded phase.
const SINGLE: usize = 6000;
/// `CACHE_LIMIT` in `src/backend.rs` and `CACHE_CAPACITY` in the reference's `cache.rs`.
const WGPU_CACHE_LIMIT: u64 = 256;
const REFERENCE_CACHE_LIMIT: usize = 64;

fn check_pool_and_cache(backend: &WgpuBackend, phase: &str, pipelines_before: u64) {
    let stats = backend.stats();
    assert!(
        stats.pool_bytes_held <= stats.pool_bytes_limit,
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
fn after_the_warm_up_threads_and_six_thousand_dispatches_keep_the_pool_and_cache_bounded() {
    let Some(backend) = backend_or_skip(
        "after_the_warm_up_threads_and_six_thousand_dispatches_keep_the_pool_and_cache_bounded",
    ) else {
        return;
    };
    let started = Instant::now();
    let mut ran = warm_up(&backend);
    let warm = backend.stats();
    ran += run_threads(&backend, THREADS, PER_THREAD);
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
        "load on wgpu: {ran} dispatches (warm-up, {THREADS} threads x {PER_THREAD}, then {SINGLE} single-threaded) of {} programs in {:?}, every result correct; pipelines created {}, cache entries {}, buffers created {} ({} in the single-threaded phase), pool bytes held {} (limit {})",
        programs.len(),
        started.elapsed(),
        end.pipelines_created,
        end.cache_entries,
        end.buffers_created,
        end.buffers_created - after_threads.buffers_created,
        end.pool_bytes_held,
        end.pool_bytes_limit
    );
}

/// The isolation check (`reliability::isolation` of the suite) poisons the pool before its probes;
/// this proves that the poisoned buffers really are what the pool then holds, so the probes run on
/// recycled memory.
#[test]
fn the_pool_holds_the_poisoned_buffers() {
    let Some(backend) = backend_or_skip("the_pool_holds_the_poisoned_buffers") else {
        return;
    };
    let poisoned = poison(&backend);
    let held = backend.stats().pool_bytes_held;
    assert!(
        held >= poisoned,
        "the pool holds {held} bytes, {poisoned} were poisoned"
    );
    eprintln!("pool on wgpu: {poisoned} bytes poisoned, {held} bytes held idle after");
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
    let stats = wgpu.stats();
    assert!(stats.pool_bytes_held <= stats.pool_bytes_limit, "{stats:?}");
    eprintln!("wgpu cache: {count} distinct programs, at most {largest} cached pipelines");
}
