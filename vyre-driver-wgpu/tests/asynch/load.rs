//! Many tasks sharing one backend: every result correct, the pool bounded, and futures that wait
//! without holding their thread.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use vyre_driver::{DispatchConfig, VyreBackend};
use vyre_driver_wgpu::testing::backend_or_skip;

use crate::{add_one_program, bytes, runtime, words};

/// The sizes (in words) of the programs the tasks dispatch, one program each.
const SIZES: [u32; 4] = [1, 16, 1000, 4096];

/// The inputs of dispatch `i`: `n` words that differ between dispatches.
fn input(i: u32, n: u32) -> Vec<u32> {
    (0..n)
        .map(|k| i.wrapping_mul(2_654_435_761) ^ k.wrapping_mul(40_503))
        .collect()
}

#[test]
fn a_thousand_async_dispatches_from_64_tokio_tasks_on_one_backend_are_correct_with_a_bounded_pool()
{
    let Some(backend) = backend_or_skip("a thousand async dispatches from 64 tasks") else {
        return;
    };
    let programs: Arc<Vec<_>> = Arc::new(SIZES.iter().map(|&n| add_one_program(n)).collect());
    let config = DispatchConfig::default();
    // Warm-up: every pipeline compiled, one set of buffers per size in the pool.
    for (program, &n) in programs.iter().zip(&SIZES) {
        backend
            .dispatch(program, &[bytes(&input(0, n))], &config)
            .expect("warm-up");
    }
    let warm = backend.stats();
    const TASKS: u32 = 64;
    const DISPATCHES: u32 = 1000;
    let started = Instant::now();
    let in_flight = Arc::new(AtomicUsize::new(0));
    let most_in_flight = Arc::new(AtomicUsize::new(0));
    let checked = runtime(4).block_on(async {
        let tasks: Vec<_> = (0..TASKS)
            .map(|task| {
                let backend = backend.clone();
                let programs = Arc::clone(&programs);
                let (in_flight, most) = (Arc::clone(&in_flight), Arc::clone(&most_in_flight));
                tokio::spawn(async move {
                    let config = DispatchConfig::default();
                    let mut checked = 0u32;
                    for i in (task..DISPATCHES).step_by(TASKS as usize) {
                        let which = (i as usize * 7 + task as usize) % SIZES.len();
                        let n = SIZES[which];
                        let data = input(i, n);
                        let inputs = [bytes(&data)];
                        let now = in_flight.fetch_add(1, Ordering::SeqCst) + 1;
                        most.fetch_max(now, Ordering::SeqCst);
                        let outputs = backend
                            .dispatch_async(&programs[which], &inputs, &config)
                            .await
                            .unwrap_or_else(|e| panic!("dispatch {i}: {e}"));
                        in_flight.fetch_sub(1, Ordering::SeqCst);
                        let expected: Vec<u32> = data.iter().map(|x| x.wrapping_add(1)).collect();
                        assert_eq!(words(&outputs[0]), expected, "dispatch {i} of task {task}");
                        checked += 1;
                    }
                    checked
                })
            })
            .collect();
        let mut checked = 0;
        for task in tasks {
            checked += task.await.expect("a task");
        }
        checked
    });
    let after = backend.stats();
    eprintln!(
        "{checked} async dispatches from {TASKS} tasks in {:?}; at most {} in flight; {} buffers created after the warm-up; pool {} of {} bytes idle",
        started.elapsed(),
        most_in_flight.load(Ordering::SeqCst),
        after.buffers_created - warm.buffers_created,
        after.pool_bytes_held,
        after.pool_bytes_limit
    );
    assert_eq!(checked, DISPATCHES);
    // No dispatch failed or recovered, nothing was compiled after the warm-up.
    assert_eq!(after.recoveries, 0);
    assert_eq!(after.pipelines_created, warm.pipelines_created);
    // Bounded memory: a dispatch leases three buffers (input, output, staging), so 64 tasks in
    // flight at once need at most 192 beyond the warm-up's, whatever the dispatch count; the idle
    // pool stays within its limit and nothing is left waiting for reclaim.
    let created = after.buffers_created - warm.buffers_created;
    assert!(
        created <= u64::from(TASKS) * 3,
        "{created} buffers created for {DISPATCHES} dispatches"
    );
    assert!(after.pool_bytes_held <= after.pool_bytes_limit);
    assert_eq!(after.reclaims_pending, 0);
    assert!(
        most_in_flight.load(Ordering::SeqCst) > 4,
        "never more dispatches in flight than worker threads: the futures held their threads"
    );
}

#[test]
fn on_a_single_threaded_runtime_many_awaited_dispatches_are_in_flight_at_once() {
    let Some(backend) = backend_or_skip("single-threaded runtime") else {
        return;
    };
    let program = add_one_program(64);
    let config = DispatchConfig::default();
    backend
        .dispatch(&program, &[bytes(&input(0, 64))], &config)
        .expect("warm-up");
    let in_flight = Arc::new(AtomicUsize::new(0));
    let most = Arc::new(AtomicUsize::new(0));
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("a runtime");
    rt.block_on(async {
        let tasks: Vec<_> = (0..16u32)
            .map(|t| {
                let (backend, program) = (backend.clone(), program.clone());
                let (in_flight, most) = (Arc::clone(&in_flight), Arc::clone(&most));
                tokio::spawn(async move {
                    let data = input(t, 64);
                    let inputs = [bytes(&data)];
                    let now = in_flight.fetch_add(1, Ordering::SeqCst) + 1;
                    most.fetch_max(now, Ordering::SeqCst);
                    let out = backend
                        .dispatch_async(&program, &inputs, &DispatchConfig::default())
                        .await
                        .expect("dispatch");
                    in_flight.fetch_sub(1, Ordering::SeqCst);
                    let expected: Vec<u32> = data.iter().map(|x| x.wrapping_add(1)).collect();
                    assert_eq!(words(&out[0]), expected, "task {t}");
                })
            })
            .collect();
        for task in tasks {
            task.await.expect("a task");
        }
    });
    // One thread ran all 16 tasks: had a future blocked it while waiting for the device, each
    // task would have finished before the next one started.
    let most = most.load(Ordering::SeqCst);
    assert!(most > 1, "at most {most} dispatch in flight on one thread");
}
