//! Futures dropped at every point of their life: before their first poll, with their maps
//! pending, with their maps done but not yet read, between readback pieces. Each time the pool
//! ends as it was (once the device has finished the work that was submitted), and the next call
//! is correct.

use vyre_driver::{DispatchConfig, VyreBackend};
use vyre_driver_wgpu::WgpuBackend;
use vyre_driver_wgpu::testing::backend_or_skip;
use vyre_foundation::ir::{BufferDecl, DataType, Expr, Node, Program};

use crate::{Counting, add_one_program, bytes, poll_once, settle, words};

/// The pool's idle bytes and buffers.
fn pool(backend: &WgpuBackend) -> (u64, u64) {
    let stats = backend.stats();
    (stats.pool_bytes_held, stats.pool_buffers_held)
}

/// Drops a `dispatch_async` future of `program` at each point `drop_after` names (the number of
/// hand polls, and whether to wait for a wake after the last), checking after each that the pool is
/// as it was and that a blocking dispatch of the same program is then correct.
fn drop_at_every_point(backend: &WgpuBackend, program: &Program, inputs: &[Vec<u8>]) {
    let config = DispatchConfig::default();
    let expected = backend.dispatch(program, inputs, &config).expect("warm-up");
    let baseline = pool(backend);
    assert!(
        baseline.1 >= 3,
        "the warm-up pooled its buffers: {baseline:?}"
    );

    // Never polled: nothing was submitted, nothing was leased.
    let mut submits = backend.stats().submits;
    drop(backend.dispatch_async(program, inputs, &config));
    assert_eq!(backend.stats().submits, submits, "an unpolled future ran");
    assert_eq!(pool(backend), baseline, "dropped before its first poll");

    for wait_for_wake in [false, true] {
        let what = if wait_for_wake {
            "dropped once its maps were done, before it read them"
        } else {
            "dropped with its maps pending"
        };
        let (counting, waker) = Counting::new();
        let mut future = backend.dispatch_async(program, inputs, &config);
        assert!(
            poll_once(future.as_mut(), &waker).is_pending(),
            "{what}: ready at the first poll, before anyone polled the device"
        );
        assert_eq!(
            backend.stats().submits,
            submits + 1,
            "{what}: not submitted"
        );
        if wait_for_wake {
            counting.await_wake(0);
        }
        drop(future);
        settle(backend);
        assert_eq!(pool(backend), baseline, "{what}");
        // The buffers came back usable: unmapped, not in use.
        let outputs = backend.dispatch(program, inputs, &config).expect(what);
        assert!(outputs == expected, "{what}: the next dispatch is wrong");
        assert_eq!(pool(backend), baseline, "{what}: after the next dispatch");
        // The dropped future's submit and the next dispatch's, nothing more.
        assert_eq!(backend.stats().submits, submits + 2, "{what}");
        submits += 2;
    }

    // Polled by hand to the end: the same outputs, the same pool.
    let (counting, waker) = Counting::new();
    let mut future = backend.dispatch_async(program, inputs, &config);
    let outputs = loop {
        let seen = counting.wakes();
        match poll_once(future.as_mut(), &waker) {
            std::task::Poll::Ready(result) => break result.expect("polled to the end"),
            std::task::Poll::Pending => counting.await_wake(seen),
        }
    };
    drop(future);
    assert!(outputs == expected, "polled by hand");
    assert_eq!(pool(backend), baseline, "after a future polled to the end");
    assert_eq!(backend.stats().reclaims_pending, 0);
}

#[test]
fn a_dropped_dispatch_future_leaves_the_pool_as_it_was() {
    let Some(backend) = backend_or_skip("a dropped dispatch future") else {
        return;
    };
    let data: Vec<u32> = (0..1000).map(|i| i * 7 + 3).collect();
    drop_at_every_point(&backend, &add_one_program(1000), &[bytes(&data)]);
}

#[test]
fn a_dropped_future_of_a_readback_in_two_pieces_leaves_the_pool_as_it_was() {
    let Some(backend) = backend_or_skip("a dropped two-piece readback") else {
        return;
    };
    // 64 MiB and 4 KiB of output: one readback piece of 64 MiB and one more, two staging buffers.
    let n = (16 << 20) + 1024;
    let program = Program::new(
        vec![BufferDecl::output("out", 0, DataType::U32).with_count(n)],
        [64, 1, 1],
        vec![Node::store("out", Expr::gid_x(), Expr::gid_x())],
    );
    drop_at_every_point(&backend, &program, &[]);
    let outputs = backend
        .dispatch(&program, &[], &DispatchConfig::default())
        .expect("after the drops");
    let last = words(&outputs[0][outputs[0].len() - 8..]);
    assert_eq!(last, [n - 2, n - 1]);
}

#[test]
fn a_dropped_read_future_changes_nothing_and_leaves_the_pool_as_it_was() {
    let Some(backend) = backend_or_skip("a dropped read future") else {
        return;
    };
    let buffer = backend.create_buffer(4096).expect("create");
    let data: Vec<u32> = (0..1024).map(|i| i ^ 0x5a5a).collect();
    backend
        .write_buffer(&buffer, 0, &bytes(&data))
        .expect("write");
    assert_eq!(
        words(&backend.read_buffer(&buffer, 0..4096).expect("read")),
        data
    );
    let baseline = pool(&backend);
    for wait_for_wake in [false, true] {
        let (counting, waker) = Counting::new();
        let mut future = backend.read_buffer_async(&buffer, 4..4096);
        assert!(poll_once(future.as_mut(), &waker).is_pending());
        if wait_for_wake {
            counting.await_wake(0);
        }
        drop(future);
        settle(&backend);
        assert_eq!(pool(&backend), baseline, "wake awaited: {wait_for_wake}");
        let again = vyre_driver::block_on(backend.read_buffer_async(&buffer, 4..4096));
        assert_eq!(words(&again.expect("read again")), data[1..]);
    }
}

#[test]
fn a_sequence_future_runs_all_its_steps_once_polled_and_none_if_never_polled() {
    let Some(backend) = backend_or_skip("a dropped sequence future") else {
        return;
    };
    let rw = || vec![BufferDecl::read_write("a", 0, DataType::U32).with_count(256)];
    let i = Expr::gid_x();
    let fill = Program::new(
        rw(),
        [64, 1, 1],
        vec![Node::store("a", i.clone(), i.clone())],
    );
    let double = Program::new(
        rw(),
        [64, 1, 1],
        vec![Node::store(
            "a",
            i.clone(),
            Expr::mul(Expr::load("a", i), Expr::u32(2)),
        )],
    );
    let a = backend.create_buffer(1024).expect("create");
    let config = DispatchConfig::default();
    let buffers = [&a];
    let steps = [
        vyre_driver::Step::new(&fill, &buffers, &config),
        vyre_driver::Step::new(&double, &buffers, &config),
    ];
    // Never polled: no step ran.
    drop(backend.dispatch_sequence_async(&steps));
    assert_eq!(
        backend.read_buffer(&a, 0..1024).expect("read"),
        vec![0; 1024]
    );
    // Polled once, then dropped: both steps were submitted together and both ran.
    let (_counting, waker) = Counting::new();
    let mut future = backend.dispatch_sequence_async(&steps);
    let _ = poll_once(future.as_mut(), &waker);
    drop(future);
    let doubled: Vec<u32> = (0..256).map(|k| k * 2).collect();
    assert_eq!(
        words(&backend.read_buffer(&a, 0..1024).expect("read")),
        doubled
    );
    settle(&backend);
}
