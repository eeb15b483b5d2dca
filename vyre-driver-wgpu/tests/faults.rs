//! Injected device losses at every step of a dispatch and the launch limits of coalesced
//! dispatch: each must end in correct results or a clear error, never a panic or a wrong answer.
//! (The timeout test lives in the reliability suite, `tests/reliability/timeouts.rs`, for both backends.)

mod common;

use std::time::Duration;

use common::{add_one_program, bytes, words};
use vyre_driver::{DispatchConfig, VyreBackend};
use vyre_driver_wgpu::FaultPoint;
use vyre_driver_wgpu::engine::persistent::{
    PersistentKernelReport, PersistentPayloadWorkItem, PersistentQueue, run_persistent_kernel,
};
use vyre_driver_wgpu::testing::backend_or_skip;

const POINTS: [FaultPoint; 3] = [
    FaultPoint::BeforeUpload,
    FaultPoint::AfterSubmit,
    FaultPoint::DuringMap,
];

#[test]
fn a_plain_dispatch_recovers_from_a_loss_at_every_step() {
    let Some(backend) = backend_or_skip("a_plain_dispatch_recovers_from_a_loss_at_every_step")
    else {
        return;
    };
    let program = add_one_program(100);
    let input: Vec<u32> = (0..100).map(|i| i * 3 + 7).collect();
    let expected: Vec<u32> = input.iter().map(|x| x + 1).collect();
    for (round, point) in POINTS.into_iter().enumerate() {
        backend.inject_fault(point);
        let out = backend
            .dispatch(&program, &[bytes(&input)], &DispatchConfig::default())
            .unwrap_or_else(|e| panic!("{point:?}: {e}"));
        assert_eq!(words(&out[0]), expected, "{point:?}");
        assert_eq!(backend.device_generation(), round as u64 + 1, "{point:?}");
        assert!(!backend.device_lost(), "{point:?}");
    }
    assert_eq!(backend.stats().recoveries, 3);
}

#[test]
fn a_coalesced_dispatch_recovers_from_a_loss_at_every_step() {
    let Some(backend) = backend_or_skip("a_coalesced_dispatch_recovers_from_a_loss_at_every_step")
    else {
        return;
    };
    let program = add_one_program(1);
    for (round, point) in POINTS.into_iter().enumerate() {
        let mut queue = PersistentQueue::new();
        for id in 0..50u32 {
            queue.push(PersistentPayloadWorkItem {
                id,
                payload: (id * 11).to_le_bytes().to_vec(),
            });
        }
        backend.inject_fault(point);
        let report = run_persistent_kernel(&backend, &program, &DispatchConfig::default(), queue)
            .unwrap_or_else(|e| panic!("{point:?}: {e}"));
        assert_eq!(report.results.len(), 50);
        for r in &report.results {
            assert_eq!(
                words(&r.payload),
                vec![r.id * 11 + 1],
                "{point:?} item {}",
                r.id
            );
        }
        assert_eq!(backend.device_generation(), round as u64 + 1, "{point:?}");
    }
}

#[test]
fn items_past_one_binding_split_into_the_fewest_launches() {
    let Some(backend) = backend_or_skip("items_past_one_binding_split_into_the_fewest_launches")
    else {
        return;
    };
    // Items of at least 1 MiB, and one more than fit one binding: exactly two launches.
    let (program, queue, item_words) = two_launch_queue(&backend);
    let count = queue.len() as u32;
    let report = run_persistent_kernel(&backend, &program, &DispatchConfig::default(), queue)
        .expect("a split coalesced run");
    assert_eq!(report.kernel_launches, 2);
    check_two_launch_results(&report, count as usize, item_words, "no loss");
}

/// Every result of a [`two_launch_queue`] run is `payload + 1`, in queue order.
fn check_two_launch_results(
    report: &PersistentKernelReport,
    count: usize,
    item_words: u32,
    case: &str,
) {
    assert_eq!(report.results.len(), count, "{case}");
    for (k, r) in report.results.iter().enumerate() {
        assert_eq!(r.id as usize, k, "{case}: results out of order");
        let got = words(&r.payload);
        assert_eq!(got.len(), item_words as usize, "{case} item {}", r.id);
        let wrong = (0..item_words)
            .position(|i| got[i as usize] != (r.id.wrapping_mul(1_000_003) ^ i).wrapping_add(1));
        assert_eq!(wrong, None, "{case} item {}: first wrong word", r.id);
    }
}

/// Items of at least 1 MiB, one more than fit one binding, so they take exactly two launches:
/// `(program, queue, words per item)`.
fn two_launch_queue(
    backend: &vyre_driver_wgpu::WgpuBackend,
) -> (vyre_foundation::ir::Program, PersistentQueue, u32) {
    let limit = backend.capabilities().max_storage_buffer_bytes;
    let item_bytes = (limit / 8).max(1 << 20) / 4 * 4;
    let count = (limit / item_bytes + 1) as u32;
    let item_words = (item_bytes / 4) as u32;
    let mut queue = PersistentQueue::new();
    for id in 0..count {
        let payload: Vec<u32> = (0..item_words)
            .map(|i| id.wrapping_mul(1_000_003) ^ i)
            .collect();
        queue.push(PersistentPayloadWorkItem {
            id,
            payload: bytes(&payload),
        });
    }
    (add_one_program(item_words), queue, item_words)
}

#[test]
fn a_loss_in_the_second_of_two_launches_resumes_after_the_first() {
    let Some(backend) =
        backend_or_skip("a_loss_in_the_second_of_two_launches_resumes_after_the_first")
    else {
        return;
    };
    for point in POINTS {
        let (program, queue, item_words) = two_launch_queue(&backend);
        let count = queue.len();
        let recoveries = backend.stats().recoveries;
        // The first launch delivers its items (their payloads now hold results); the second is lost,
        // and the retry must run only the items not yet delivered.
        backend.inject_fault_after(1, point);
        let report = run_persistent_kernel(&backend, &program, &DispatchConfig::default(), queue)
            .unwrap_or_else(|e| panic!("{point:?}: {e}"));
        assert_eq!(backend.stats().recoveries, recoveries + 1, "{point:?}");
        assert_eq!(report.kernel_launches, 2, "{point:?}");
        check_two_launch_results(&report, count, item_words, &format!("{point:?}"));
    }
}

#[test]
fn a_pipeline_held_across_a_loss_recompiles_for_the_new_device() {
    let Some(backend) =
        backend_or_skip("a_pipeline_held_across_a_loss_recompiles_for_the_new_device")
    else {
        return;
    };
    let pipeline = backend
        .compile_persistent(&add_one_program(4), &DispatchConfig::default())
        .expect("compile");
    let items = vec![vec![bytes(&[1, 2, 3, 4])], vec![bytes(&[10, 20, 30, 40])]];
    for round in 1..=2u64 {
        backend.force_device_lost().expect("loss");
        let before = backend.stats();
        let out = pipeline
            .dispatch_coalesced(&items, &DispatchConfig::default())
            .expect("the held pipeline works after the loss");
        assert_eq!(words(&out[0][0]), vec![2, 3, 4, 5]);
        assert_eq!(words(&out[1][0]), vec![11, 21, 31, 41]);
        assert_eq!(backend.device_generation(), round);
        assert!(backend.stats().pipelines_created > before.pipelines_created);
    }
}

#[test]
fn threads_dispatching_through_device_losses_get_correct_results_or_device_lost() {
    let Some(backend) = backend_or_skip(
        "threads_dispatching_through_device_losses_get_correct_results_or_device_lost",
    ) else {
        return;
    };
    let program = add_one_program(256);
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..3u32)
            .map(|t| {
                let (backend, program) = (&backend, &program);
                scope.spawn(move || {
                    let mut ok = 0;
                    for round in 0..30u32 {
                        let input: Vec<u32> = (0..256).map(|i| i ^ (t << 20) ^ round).collect();
                        match backend.dispatch(
                            program,
                            &[bytes(&input)],
                            &DispatchConfig::default(),
                        ) {
                            Ok(out) => {
                                let expected: Vec<u32> = input.iter().map(|x| x + 1).collect();
                                assert_eq!(words(&out[0]), expected, "thread {t} round {round}");
                                ok += 1;
                            }
                            // A dispatch may meet a second loss during its one retry.
                            Err(e) => assert_eq!(e.kind_name(), "DeviceLost", "{e}"),
                        }
                    }
                    ok
                })
            })
            .collect();
        for _ in 0..3 {
            std::thread::sleep(Duration::from_millis(15));
            // The callback may not have run if another thread recovered at the same moment.
            let _ = backend.force_device_lost();
        }
        let ok: u32 = workers.into_iter().map(|w| w.join().expect("worker")).sum();
        assert!(ok > 0, "no dispatch succeeded");
    });
    let out = backend
        .dispatch(&program, &[bytes(&[7; 256])], &DispatchConfig::default())
        .expect("usable after the losses");
    assert_eq!(words(&out[0]), vec![8; 256]);
    assert!(backend.device_generation() >= 1);
}
