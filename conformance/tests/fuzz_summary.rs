//! A run's counts: every disagreeing program is counted, whether or not it was shrunk, so a backend
//! that fails everything never looks like a clean run.

use vyre_conformance::ReferenceBackend;
use vyre_conformance::fuzz::{self, FuzzOptions};
use vyre_driver::{BackendError, Capabilities, DispatchConfig, VyreBackend};
use vyre_foundation::ir::Program;

/// Fails every dispatch.
struct Broken(ReferenceBackend);

impl VyreBackend for Broken {
    fn id(&self) -> &str {
        "broken"
    }

    fn capabilities(&self) -> Capabilities {
        self.0.capabilities()
    }

    fn dispatch(
        &self,
        _program: &Program,
        _inputs: &[Vec<u8>],
        _config: &DispatchConfig,
    ) -> Result<Vec<Vec<u8>>, BackendError> {
        Err(BackendError::new(
            "broken on purpose. Fix: none, it is a test.",
        ))
    }
}

fn options(max_mismatches: usize) -> FuzzOptions {
    FuzzOptions {
        cases: 96,
        seed: 5,
        batch: 32,
        max_mismatches,
        shrink_steps: 100,
        reduce_attempts: 200,
        ..FuzzOptions::default()
    }
}

#[test]
fn every_mismatch_is_counted_and_none_is_compared() {
    let summary = fuzz::run(
        &options(1),
        &ReferenceBackend::new(),
        &Broken(ReferenceBackend::new()),
        &|_| {},
    );
    assert_eq!(
        summary.programs, 32,
        "the run stops at the end of the batch with its one mismatch"
    );
    assert_eq!(summary.mismatches.len(), 1);
    assert_eq!(summary.mismatched, summary.programs - summary.skipped);
    assert!(summary.mismatched > 1);
    assert_eq!(summary.compared(), 0);
    // The report shows the minimal case's inputs themselves, not only their lengths.
    let shrunk = &summary.mismatches[0];
    let report = shrunk.report();
    for input in shrunk
        .minimal
        .inputs
        .iter()
        .filter(|i| !i.is_empty() && i.len() <= 256)
    {
        let first: String = input[..input.len().min(4)]
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        assert!(
            report.contains(&format!("({} bytes): {first}", input.len())),
            "{report}"
        );
    }
}

#[test]
fn no_shrinking_still_counts_and_stops_at_the_first_batch_with_a_mismatch() {
    let summary = fuzz::run(
        &options(0),
        &ReferenceBackend::new(),
        &Broken(ReferenceBackend::new()),
        &|_| {},
    );
    assert_eq!(summary.programs, 32);
    assert!(summary.mismatches.is_empty());
    assert_eq!(summary.mismatched, summary.programs - summary.skipped);
    assert_eq!(summary.compared(), 0);
}

#[test]
fn a_clean_run_with_no_shrinking_runs_every_case() {
    let summary = fuzz::run(
        &options(0),
        &ReferenceBackend::new(),
        &ReferenceBackend::new(),
        &|_| {},
    );
    assert_eq!(summary.programs, 96);
    assert_eq!(summary.mismatched, 0);
    assert_eq!(summary.compared(), summary.programs - summary.skipped);
}
