//! Device losses during a long run: 1 000 dispatches of the mixed programs with the device destroyed
//! before every 50th, and a fault injected inside every 50th (rotating through upload, submit and
//! map). Every dispatch must return its correct result: recovery loses nothing.

use std::time::Instant;

use vyre_driver::{DispatchConfig, VyreBackend};
use vyre_driver_wgpu::FaultPoint;
use vyre_driver_wgpu::testing::backend_or_skip;

use vyre_conformance::reliability::mix::{Rng, job, programs};

const DISPATCHES: usize = 1000;
const LOSS_EVERY: usize = 50;
const POINTS: [FaultPoint; 3] = [
    FaultPoint::BeforeUpload,
    FaultPoint::AfterSubmit,
    FaultPoint::DuringMap,
];

#[test]
fn a_thousand_dispatches_through_a_loss_every_fifty_lose_no_result() {
    let Some(backend) =
        backend_or_skip("a_thousand_dispatches_through_a_loss_every_fifty_lose_no_result")
    else {
        return;
    };
    let programs = programs();
    let mut rng = Rng::new(50);
    let (mut forced, mut injected) = (0u64, 0u64);
    let started = Instant::now();
    for i in 0..DISPATCHES {
        if i % LOSS_EVERY == 0 {
            backend.force_device_lost().expect("force a loss");
            forced += 1;
        }
        if i % LOSS_EVERY == LOSS_EVERY / 2 {
            backend.inject_fault(POINTS[(i / LOSS_EVERY) % POINTS.len()]);
            injected += 1;
        }
        let job = job(&mut rng, false);
        let out = backend
            .dispatch(
                &programs[job.program],
                &job.inputs,
                &DispatchConfig::default(),
            )
            .unwrap_or_else(|e| panic!("dispatch {i} (program {}): {e}", job.program));
        assert!(
            out == job.expected,
            "dispatch {i} (program {}): wrong result",
            job.program
        );
    }
    let elapsed = started.elapsed();
    let stats = backend.stats();
    assert_eq!(stats.recoveries, forced + injected, "{stats:?}");
    assert_eq!(backend.device_generation(), forced + injected);
    assert!(!backend.device_lost());
    eprintln!(
        "faults: {DISPATCHES} dispatches, {forced} forced losses + {injected} injected losses = {} recoveries, every result correct, in {elapsed:?}",
        stats.recoveries
    );
}
