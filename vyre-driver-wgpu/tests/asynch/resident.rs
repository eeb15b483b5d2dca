//! Resident reads, sequences and batches through the async API, and device losses under an
//! awaited call: the same results as the blocking calls, recovery by the same rule, no hang.

use std::time::Duration;

use vyre_driver::{DispatchConfig, Step, VyreBackend, block_on};
use vyre_driver_wgpu::FaultPoint;
use vyre_driver_wgpu::testing::backend_or_skip;
use vyre_foundation::ir::{BufferDecl, DataType, Expr, Node, Program};

use crate::{Counting, add_one_program, bytes, poll_once, runtime, settle, within, words};

/// `a[i] = a[i] * 3 + k` over a read-write buffer of `n` words.
fn scale(n: u32, k: u32) -> Program {
    let i = Expr::gid_x();
    Program::new(
        vec![BufferDecl::read_write("a", 0, DataType::U32).with_count(n)],
        [64, 1, 1],
        vec![Node::store(
            "a",
            i.clone(),
            Expr::add(Expr::mul(Expr::load("a", i), Expr::u32(3)), Expr::u32(k)),
        )],
    )
}

#[test]
fn async_resident_reads_and_sequences_from_many_tasks_equal_the_blocking_calls() {
    let Some(backend) = backend_or_skip("async resident reads and sequences") else {
        return;
    };
    let n = 300u32;
    let (first, second) = (scale(n, 1), scale(n, 5));
    let results = runtime(2).block_on(async {
        let tasks: Vec<_> = (0..8u32)
            .map(|t| {
                let backend = backend.clone();
                let (first, second) = (first.clone(), second.clone());
                tokio::spawn(async move {
                    let config = DispatchConfig::default();
                    let a = backend.create_buffer(u64::from(n) * 4).expect("create");
                    let start: Vec<u32> = (0..n).map(|i| i + t * 1000).collect();
                    backend.write_buffer(&a, 0, &bytes(&start)).expect("write");
                    let buffers = [&a];
                    let steps = [
                        Step::new(&first, &buffers, &config),
                        Step::new(&second, &buffers, &config),
                    ];
                    for _ in 0..3 {
                        backend
                            .dispatch_sequence_async(&steps)
                            .await
                            .expect("sequence");
                    }
                    backend
                        .dispatch_resident_async(&first, &buffers, &config)
                        .await
                        .expect("resident dispatch");
                    // A range that starts and ends inside words.
                    let read = backend
                        .read_buffer_async(&a, 6..(u64::from(n) * 4 - 3))
                        .await
                        .expect("read");
                    let empty = backend.read_buffer_async(&a, 8..8).await.expect("empty");
                    assert!(empty.is_empty());
                    (start, read)
                })
            })
            .collect();
        let mut results = Vec::new();
        for task in tasks {
            results.push(task.await.expect("a task"));
        }
        results
    });
    for (start, read) in results {
        let expected: Vec<u32> = start
            .iter()
            .map(|&x| {
                let mut v = x;
                for _ in 0..3 {
                    v = v
                        .wrapping_mul(3)
                        .wrapping_add(1)
                        .wrapping_mul(3)
                        .wrapping_add(5);
                }
                v.wrapping_mul(3).wrapping_add(1)
            })
            .collect();
        assert_eq!(read, bytes(&expected)[6..(n as usize * 4 - 3)]);
    }
    // A bad step stops the sequence before anything runs, with the blocking call's error.
    let a = backend.create_buffer(16).expect("create");
    let config = DispatchConfig::default();
    let (fits, too_small) = (scale(4, 0), [&a]);
    let steps = [
        Step::new(&fits, &too_small, &config),
        Step::new(&first, &too_small, &config),
    ];
    let blocking = backend.dispatch_sequence(&steps).unwrap_err();
    let awaited = block_on(backend.dispatch_sequence_async(&steps)).unwrap_err();
    assert_eq!(awaited.to_string(), blocking.to_string());
    assert!(awaited.to_string().starts_with("step 1 of the sequence"));
    assert_eq!(backend.stats().reclaims_pending, 0);
}

#[test]
fn an_async_batch_equals_the_blocking_batch_and_names_its_failing_item() {
    let Some(backend) = backend_or_skip("async batch") else {
        return;
    };
    let program = add_one_program(10);
    let config = DispatchConfig::default();
    // 40 items over three windows of the async batch, of several input lengths.
    let items: Vec<Vec<Vec<u8>>> = (0..40u32)
        .map(|k| vec![bytes(&(0..(k % 10 + 1)).map(|i| i * k).collect::<Vec<_>>())])
        .collect();
    let blocking = backend
        .dispatch_batch(&program, &items, &config)
        .expect("batch");
    let awaited = block_on(backend.dispatch_batch_async(&program, &items, &config)).expect("async");
    assert!(
        awaited == blocking,
        "the async batch differs from the blocking one"
    );
    assert!(
        block_on(backend.dispatch_batch_async(&program, &[], &config))
            .expect("empty")
            .is_empty()
    );
    let mut bad = items.clone();
    bad[21] = vec![vec![1, 2, 3]];
    let err = block_on(backend.dispatch_batch_async(&program, &bad, &config)).unwrap_err();
    assert!(err.to_string().starts_with("work item 21: "), "{err}");
    assert_eq!(err.kind_name(), "InputMismatch");
    settle(&backend);
}

#[test]
fn an_awaited_dispatch_survives_a_device_loss_at_every_point_and_never_hangs() {
    let Some(backend) = backend_or_skip("async device loss") else {
        return;
    };
    let program = add_one_program(500);
    let data: Vec<u32> = (0..500).map(|i| i * 13).collect();
    let expected: Vec<u32> = data.iter().map(|x| x + 1).collect();
    let inputs = vec![bytes(&data)];
    let config = DispatchConfig::default();
    // Injected at each step of the launch: the future recovers and retries once.
    for (round, point) in [
        FaultPoint::BeforeUpload,
        FaultPoint::AfterSubmit,
        FaultPoint::DuringMap,
    ]
    .into_iter()
    .enumerate()
    {
        backend.inject_fault(point);
        let outputs = block_on(backend.dispatch_async(&program, &inputs, &config))
            .unwrap_or_else(|e| panic!("{point:?}: {e}"));
        assert_eq!(words(&outputs[0]), expected, "{point:?}");
        assert_eq!(backend.device_generation(), round as u64 + 1, "{point:?}");
    }
    // Lost while the future waits, from another thread: woken, it recovers and retries.
    let (counting, waker) = Counting::new();
    let mut future = backend.dispatch_async(&program, &inputs, &config);
    assert!(poll_once(future.as_mut(), &waker).is_pending());
    backend.force_device_lost().expect("lose");
    let outputs = block_on(future).expect("recovered");
    assert_eq!(words(&outputs[0]), expected);
    assert_eq!(backend.stats().recoveries, 4);
    drop(counting);
    // A future dropped on a lost device: its buffers are freed, not waited for.
    let mut future = backend.dispatch_async(&program, &inputs, &config);
    assert!(poll_once(future.as_mut(), &waker).is_pending());
    backend.force_device_lost().expect("lose");
    drop(future);
    settle(&backend);
    // Many tasks awaiting while the device is lost under them: each ends, correct or `DeviceLost`
    // (a second loss inside one call's retry), none hangs.
    let shared = backend.clone();
    let outcomes = within(Duration::from_secs(60), move || {
        runtime(2).block_on(async {
            let tasks: Vec<_> = (0..32u32)
                .map(|t| {
                    let backend = shared.clone();
                    let (program, inputs) = (add_one_program(500), inputs.clone());
                    tokio::spawn(async move {
                        if t % 8 == 4 {
                            backend.force_device_lost().expect("lose");
                        }
                        backend
                            .dispatch_async(&program, &inputs, &DispatchConfig::default())
                            .await
                            .map(|o| words(&o[0]))
                    })
                })
                .collect();
            let mut outcomes = Vec::new();
            for task in tasks {
                outcomes.push(task.await.expect("a task"));
            }
            outcomes
        })
    });
    let mut lost = 0;
    for outcome in outcomes {
        match outcome {
            Ok(out) => assert_eq!(out, expected),
            Err(e) if e.kind_name() == "DeviceLost" => lost += 1,
            Err(e) => panic!("neither correct nor DeviceLost: {e}"),
        }
    }
    eprintln!("32 awaited dispatches through 4 losses: {lost} reported DeviceLost");
    let after =
        block_on(backend.dispatch_async(&program, &[bytes(&data)], &config)).expect("after");
    assert_eq!(words(&after[0]), expected);
    settle(&backend);
}
