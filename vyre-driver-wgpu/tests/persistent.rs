//! Persistent kernels: many items in one real launch, isolation, and recovery from real device loss.

mod common;

use common::{add_one_program, bytes, words};
use vyre_driver::{DispatchConfig, VyreBackend};
use vyre_driver_wgpu::engine::persistent::{
    PersistentPayloadWorkItem, PersistentQueue, run_persistent_kernel,
};
use vyre_driver_wgpu::testing::backend_or_skip;
use vyre_foundation::ir::{BufferDecl, DataType, Expr, Node, Program};

fn payload_word(payload: &[u8]) -> u32 {
    u32::from_le_bytes([payload[0], payload[1], payload[2], payload[3]])
}

#[test]
fn persistent_kernel_queue_dispatches_on_gpu() {
    let Some(backend) = backend_or_skip("persistent_kernel_queue_dispatches_on_gpu") else {
        return;
    };
    let program = add_one_program(1);
    let mut queue = PersistentQueue::new();
    for id in 0..16 {
        queue.push(PersistentPayloadWorkItem {
            id,
            payload: (id + 100).to_le_bytes().to_vec(),
        });
    }
    let report = run_persistent_kernel(&backend, &program, &DispatchConfig::default(), queue)
        .expect("Fix: persistent kernel dispatch must succeed");
    assert_eq!(report.kernel_launches, 1);
    assert_eq!(report.results.len(), 16);
    for result in &report.results {
        let expected = result.id + 100 + 1;
        let actual = payload_word(&result.payload);
        assert_eq!(
            actual, expected,
            "work item {}: expected {}, got {}",
            result.id, expected, actual
        );
    }
}

#[test]
fn persistent_kernel_survives_device_loss_recovery() {
    let Some(backend) = backend_or_skip("persistent_kernel_survives_device_loss_recovery") else {
        return;
    };
    let program = add_one_program(1);
    let mut queue = PersistentQueue::new();
    queue.push(PersistentPayloadWorkItem {
        id: 0,
        payload: 42u32.to_le_bytes().to_vec(),
    });
    let report1 = run_persistent_kernel(
        &backend,
        &program,
        &DispatchConfig::default(),
        queue.clone(),
    )
    .expect("Fix: first persistent dispatch must succeed");
    assert_eq!(report1.results.len(), 1);
    assert_eq!(payload_word(&report1.results[0].payload), 43);

    backend
        .force_device_lost()
        .expect("Fix: test hook must invalidate the cached device");
    assert!(backend.device_lost());

    let report2 = run_persistent_kernel(&backend, &program, &DispatchConfig::default(), queue)
        .expect("Fix: persistent dispatch after recovery must succeed");
    assert_eq!(report2.results.len(), 1);
    assert_eq!(payload_word(&report2.results[0].payload), 43);
    assert_eq!(backend.device_generation(), 1);
}

#[test]
fn ten_thousand_items_take_one_launch() {
    let Some(backend) = backend_or_skip("ten_thousand_items_take_one_launch") else {
        return;
    };
    let program = add_one_program(1);
    let mut queue = PersistentQueue::new();
    for id in 0..10_000u32 {
        queue.push(PersistentPayloadWorkItem {
            id,
            payload: (id * 3).to_le_bytes().to_vec(),
        });
    }
    let before = backend.stats().dispatch_calls;
    let report =
        run_persistent_kernel(&backend, &program, &DispatchConfig::default(), queue).expect("run");
    assert_eq!(report.kernel_launches, 1);
    assert_eq!(
        backend.stats().dispatch_calls - before,
        1,
        "one real dispatch call"
    );
    for (i, result) in report.results.iter().enumerate() {
        assert_eq!(result.id, i as u32);
        assert_eq!(payload_word(&result.payload), result.id * 3 + 1);
    }
}

#[test]
fn twenty_losses_in_a_row_lose_no_result() {
    let Some(backend) = backend_or_skip("twenty_losses_in_a_row_lose_no_result") else {
        return;
    };
    let program = add_one_program(1);
    for round in 0..20u32 {
        let mut queue = PersistentQueue::new();
        for id in 0..8 {
            queue.push(PersistentPayloadWorkItem {
                id,
                payload: (round * 100 + id).to_le_bytes().to_vec(),
            });
        }
        let report = run_persistent_kernel(&backend, &program, &DispatchConfig::default(), queue)
            .expect("run");
        for r in &report.results {
            assert_eq!(payload_word(&r.payload), round * 100 + r.id + 1);
        }
        backend.force_device_lost().expect("lose");
        assert!(backend.device_lost());
    }
    assert_eq!(backend.stats().recoveries, 19);
}

/// `sum[i] = a[i] + b[i]`, `diff[i] = a[i] - b[i]` over runtime-sized inputs.
fn two_in_two_out(n: u32) -> Program {
    let i = Expr::gid_x();
    Program::wrapped(
        vec![
            BufferDecl::read("a", 0, DataType::U32),
            BufferDecl::read("b", 1, DataType::U32),
            BufferDecl::output("sum", 2, DataType::U32).with_count(n),
            BufferDecl::output("diff", 3, DataType::U32).with_count(n),
        ],
        [32, 1, 1],
        vec![
            Node::store(
                "sum",
                i.clone(),
                Expr::add(Expr::load("a", i.clone()), Expr::load("b", i.clone())),
            ),
            Node::store(
                "diff",
                i.clone(),
                Expr::sub(Expr::load("a", i.clone()), Expr::load("b", i)),
            ),
        ],
    )
}

#[test]
fn items_with_two_inputs_and_two_outputs_match_the_reference() {
    let Some(backend) =
        backend_or_skip("items_with_two_inputs_and_two_outputs_match_the_reference")
    else {
        return;
    };
    let reference = vyre_conformance::ReferenceBackend::new();
    let n = 40;
    let program = two_in_two_out(n);
    let items: Vec<Vec<Vec<u8>>> = (0..50u32)
        .map(|k| {
            let a: Vec<u32> = (0..n).map(|i| i * 31 + k).collect();
            let b: Vec<u32> = (0..n).map(|i| i ^ (k * 7)).collect();
            vec![bytes(&a), bytes(&b)]
        })
        .collect();
    let config = DispatchConfig::default().with_grid([2, 1, 1]);
    let pipeline = backend
        .compile_persistent(&program, &config)
        .expect("compile");
    let got = pipeline
        .dispatch_coalesced(&items, &config)
        .expect("coalesced");
    assert_eq!(got.len(), items.len());
    for (k, (inputs, outputs)) in items.iter().zip(&got).enumerate() {
        let expected = reference
            .dispatch(&program, inputs, &config)
            .expect("reference");
        assert_eq!(outputs, &expected, "item {k}");
    }
}

#[test]
fn an_item_never_touches_another_items_data() {
    let Some(backend) = backend_or_skip("an_item_never_touches_another_items_data") else {
        return;
    };
    // Every item reads and writes at indices taken from its own input, most of them wild.
    let program = Program::wrapped(
        vec![
            BufferDecl::read("idx", 0, DataType::U32).with_count(4),
            BufferDecl::output("out", 1, DataType::U32).with_count(4),
        ],
        [4, 1, 1],
        vec![
            Node::let_bind("j", Expr::load("idx", Expr::local_x())),
            Node::store(
                "out",
                Expr::var("j"),
                Expr::add(Expr::load("idx", Expr::var("j")), Expr::u32(1000)),
            ),
            Node::store("out", Expr::local_x(), Expr::load("idx", Expr::local_x())),
        ],
    );
    let wild = [u32::MAX, 4, 5, i32::MIN as u32, 7, 1 << 31, 8, 12];
    let items: Vec<Vec<Vec<u8>>> = (0..64u32)
        .map(|k| {
            let w = |x: u32| wild[((k + x) % wild.len() as u32) as usize];
            vec![bytes(&[w(0), w(1), w(2), w(3)])]
        })
        .collect();
    let config = DispatchConfig::default().with_grid([1, 1, 1]);
    let pipeline = backend
        .compile_persistent(&program, &config)
        .expect("compile");
    let got = pipeline
        .dispatch_coalesced(&items, &config)
        .expect("coalesced");
    for (k, (inputs, outputs)) in items.iter().zip(&got).enumerate() {
        // All indices are out of bounds for a 4-element item, so each item sees only its own words.
        assert_eq!(
            words(&outputs[0]),
            words(&inputs[0]),
            "item {k} saw another item's data"
        );
    }
}

#[test]
fn empty_queue_takes_no_launch() {
    let Some(backend) = backend_or_skip("empty_queue_takes_no_launch") else {
        return;
    };
    let report = run_persistent_kernel(
        &backend,
        &add_one_program(1),
        &DispatchConfig::default(),
        PersistentQueue::new(),
    )
    .expect("empty");
    assert_eq!(report.kernel_launches, 0);
    assert!(report.results.is_empty());
}

/// Queues of every payload width the delivery and gather loops treat apart (one, two and four
/// words as fixed-width copies; three and five words as plain ones), equal-length queues (the
/// packed form) and mixed ones with payloads shorter than the declared count (zero-padded, the
/// coalesced form): each result equals the reference's dispatch of that item alone.
#[test]
fn every_payload_width_gives_each_item_its_own_dispatchs_result() {
    let Some(backend) =
        backend_or_skip("every_payload_width_gives_each_item_its_own_dispatchs_result")
    else {
        return;
    };
    let reference = vyre_conformance::ReferenceBackend::new();
    let config = DispatchConfig::default();
    for words_per_item in 1..=5u32 {
        // y[i] = x[i] * 3 + i: an item's result depends on every word and its position.
        let program = Program::wrapped(
            vec![
                BufferDecl::read("x", 0, DataType::U32).with_count(words_per_item),
                BufferDecl::output("y", 1, DataType::U32).with_count(words_per_item),
            ],
            [64, 1, 1],
            vec![Node::store(
                "y",
                Expr::gid_x(),
                Expr::add(
                    Expr::mul(Expr::load("x", Expr::gid_x()), Expr::u32(3)),
                    Expr::gid_x(),
                ),
            )],
        );
        for mixed in [false, true] {
            let payloads: Vec<Vec<u8>> = (0..300u32)
                .map(|id| {
                    let len = if mixed {
                        id % (words_per_item + 1)
                    } else {
                        words_per_item
                    };
                    let item: Vec<u32> = (0..len)
                        .map(|w| id.wrapping_mul(2_654_435_761) ^ w)
                        .collect();
                    bytes(&item)
                })
                .collect();
            let mut queue = PersistentQueue::new();
            for (id, payload) in payloads.iter().enumerate() {
                queue.push(PersistentPayloadWorkItem {
                    id: id as u32,
                    payload: payload.clone(),
                });
            }
            let report =
                run_persistent_kernel(&backend, &program, &config, queue).expect("persistent run");
            assert_eq!(report.results.len(), payloads.len());
            for (k, (result, payload)) in report.results.iter().zip(&payloads).enumerate() {
                let expected = reference
                    .dispatch(&program, std::slice::from_ref(payload), &config)
                    .expect("reference");
                assert_eq!(result.id, k as u32);
                assert_eq!(
                    result.payload, expected[0],
                    "{words_per_item} words, mixed {mixed}, item {k}"
                );
            }
        }
    }
}

/// `dispatch_batch` of programs with 64-bit or f16 buffers, which coalesced launches cannot lay out
/// in 32-bit words: each item gets exactly its own `dispatch`'s outputs (once `Unsupported`).
#[test]
fn a_batch_of_wide_element_programs_gives_each_item_its_own_dispatch() {
    let Some(backend) = backend_or_skip("a_batch_of_wide_element_programs") else {
        return;
    };
    let caps = backend.capabilities();
    let config = DispatchConfig::default();
    let mut tried = 0;
    for (element, supported) in [
        (DataType::U64, caps.int64),
        (DataType::I64, caps.int64),
        (DataType::F16, caps.f16),
    ] {
        if !supported {
            eprintln!("{element}: not on this adapter, skipped");
            continue;
        }
        tried += 1;
        // y[i] = x[i] * x[i] + x[i], in the buffers' own type.
        let x = || Expr::load("x", Expr::gid_x());
        let program = Program::wrapped(
            vec![
                BufferDecl::read("x", 0, element).with_count(6),
                BufferDecl::output("y", 1, element).with_count(6),
            ],
            [4, 1, 1],
            vec![Node::store(
                "y",
                Expr::gid_x(),
                Expr::add(Expr::mul(x(), x()), x()),
            )],
        );
        let width = element.size_bytes();
        let items: Vec<Vec<Vec<u8>>> = (0..5u8)
            .map(|k| {
                vec![
                    (0..6 * width)
                        .map(|b| (b as u8).wrapping_mul(37) ^ (k * 11) & 0x3b)
                        .collect(),
                ]
            })
            .collect();
        let batched = backend
            .dispatch_batch(&program, &items, &config)
            .unwrap_or_else(|e| panic!("{element}: {e}"));
        assert_eq!(batched.len(), items.len());
        for (k, (inputs, outputs)) in items.iter().zip(&batched).enumerate() {
            let alone = backend
                .dispatch(&program, inputs, &config)
                .expect("dispatch");
            assert_eq!(outputs, &alone, "{element}, item {k}");
        }
    }
    eprintln!("{tried} wide element type(s) batched");
}
