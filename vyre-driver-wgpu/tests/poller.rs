//! The device poller behind the async API, seen from the outside (Linux's `/proc`): no thread
//! until a future waits, one per device then, asleep while idle, gone with its backend. Alone in
//! its test binary, so that no other test's poller is counted.

#![cfg(target_os = "linux")]

use std::time::Duration;

use vyre_driver::{DispatchConfig, VyreBackend, block_on};
use vyre_driver_wgpu::testing::backend_or_skip;
use vyre_foundation::ir::{BufferDecl, DataType, Expr, Node, Program};

/// The ids of this process's threads named `vyre-poller`, with the CPU time (clock ticks, user
/// and system) each has used.
fn pollers() -> Vec<(String, u64)> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc/self/task").expect("/proc/self/task") {
        let dir = entry.expect("a task").path();
        let comm = std::fs::read_to_string(dir.join("comm")).unwrap_or_default();
        if comm.trim() != "vyre-poller" {
            continue;
        }
        let stat = std::fs::read_to_string(dir.join("stat")).unwrap_or_default();
        // After the command's closing parenthesis: state is field 3, utime 14 and stime 15.
        let fields: Vec<&str> = stat
            .rsplit_once(')')
            .map_or("", |(_, rest)| rest)
            .split_whitespace()
            .collect();
        let ticks = |i: usize| {
            fields
                .get(i)
                .and_then(|f| f.parse::<u64>().ok())
                .unwrap_or(0)
        };
        let tid = dir.file_name().map(|n| n.to_string_lossy().into_owned());
        found.push((tid.unwrap_or_default(), ticks(11) + ticks(12)));
    }
    found
}

#[test]
fn the_poller_starts_with_the_first_awaited_call_sleeps_while_idle_and_stops_with_its_backend() {
    let Some(backend) = backend_or_skip("the poller's life") else {
        return;
    };
    let program = Program::new(
        vec![BufferDecl::output("o", 0, DataType::U32).with_count(256)],
        [64, 1, 1],
        vec![Node::store("o", Expr::gid_x(), Expr::gid_x())],
    );
    let config = DispatchConfig::default();
    backend.dispatch(&program, &[], &config).expect("blocking");
    assert!(pollers().is_empty(), "a blocking call started a poller");
    for _ in 0..20 {
        let out = block_on(backend.dispatch_async(&program, &[], &config)).expect("awaited");
        assert_eq!(out[0][1020..1024], 255u32.to_le_bytes());
    }
    let running = pollers();
    assert_eq!(running.len(), 1, "one poller for one device: {running:?}");
    // Idle: it sleeps on its condition variable. 600 ms of spinning would be ~60 ticks (100 Hz).
    std::thread::sleep(Duration::from_millis(600));
    let idle = pollers();
    assert_eq!(idle.len(), 1);
    let used = idle[0].1 - running[0].1;
    assert!(used <= 2, "the idle poller used {used} ticks in 600 ms");
    // A recovery replaces the device, and its poller with it.
    backend.force_device_lost().expect("lose");
    block_on(backend.dispatch_async(&program, &[], &config)).expect("after the loss");
    let replaced = pollers();
    assert_eq!(replaced.len(), 1, "{replaced:?}");
    assert_ne!(
        replaced[0].0, running[0].0,
        "the lost device's poller still runs"
    );
    drop(backend);
    assert!(pollers().is_empty(), "the poller outlived its backend");
}
