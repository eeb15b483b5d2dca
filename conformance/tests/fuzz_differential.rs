//! The differential property: random comparable programs agree on the reference and on every other
//! backend available here; backends never panic on programs `validate` accepts; every saved
//! regression case replays without a mismatch.

use std::time::Duration;

use proptest::prelude::*;
use vyre_conformance::ReferenceBackend;
use vyre_conformance::fuzz::{self, FuzzOptions, FuzzSummary, Regression, Verdict};
use vyre_conformance::r#gen::{GenConfig, decode, raw_inputs, raw_program, recipe};
use vyre_driver::{BackendError, DispatchConfig, VyreBackend};

fn wgpu_or_skip(test: &str) -> Option<Box<dyn VyreBackend>> {
    vyre_driver_wgpu::testing::backend_or_skip(test).map(|b| Box::new(b) as Box<dyn VyreBackend>)
}

fn assert_no_mismatch(summary: &FuzzSummary) {
    let reports: Vec<String> = summary.mismatches.iter().map(|m| m.report()).collect();
    assert!(
        reports.is_empty(),
        "{} mismatch(es); copy the saved cases into conformance/regressions/ once fixed:\n{}",
        reports.len(),
        reports.join("\n\n")
    );
}

fn options(cases: u64, seed: u64) -> FuzzOptions {
    FuzzOptions {
        cases,
        seed,
        regressions_dir: Some(std::env::temp_dir().join("vyre-fuzz-regressions")),
        batch: 128,
        ..FuzzOptions::default()
    }
}

#[test]
fn reference_agrees_with_itself_on_random_programs() {
    let reference = ReferenceBackend::new();
    let summary = fuzz::run(
        &options(2000, 1),
        &reference,
        &ReferenceBackend::new(),
        &|_| {},
    );
    assert_no_mismatch(&summary);
    assert_eq!(summary.programs, 2000);
    // The programs do real work, and few are left uncompared.
    assert!(summary.ops_executed > 100_000, "{summary:?}");
    assert!(summary.skipped < 200, "{} skipped", summary.skipped);
}

#[test]
fn wgpu_agrees_with_the_reference_on_random_programs() {
    let Some(wgpu) = wgpu_or_skip("wgpu_agrees_with_the_reference_on_random_programs") else {
        return;
    };
    // At the device's subgroup size, so that subgroup programs are drawn and compared.
    let reference = vyre_conformance::report::reference_for(wgpu.as_ref());
    let progress = |p: &fuzz::FuzzProgress| {
        eprintln!(
            "fuzz wgpu: {}/{} ({:?}, {} skipped)",
            p.done, p.total, p.elapsed, p.skipped
        )
    };
    // `VYRE_FUZZ_CASES` and `VYRE_FUZZ_SEED` run a longer or different campaign from the test.
    let env = |name: &str, default: u64| {
        std::env::var(name)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    let cases = env("VYRE_FUZZ_CASES", 2000);
    let summary = fuzz::run(
        &options(cases, env("VYRE_FUZZ_SEED", 2)),
        &reference,
        wgpu.as_ref(),
        &progress,
    );
    assert_no_mismatch(&summary);
    assert_eq!(summary.programs, cases);
}

/// The fuzzer's programs through resident buffers: each run split into a sequence (copies in, the
/// program, copies out) on wgpu, and through `dispatch_resident` on the reference.
#[test]
fn resident_runs_agree_with_the_reference_on_random_programs() {
    use vyre_conformance::resident::{Resident, ResidentMode};
    let reference = ReferenceBackend::new();
    let on_reference = Resident::new(ReferenceBackend::new(), ResidentMode::Direct);
    let summary = fuzz::run(&options(300, 5), &reference, &on_reference, &|_| {});
    assert_no_mismatch(&summary);
    assert_eq!(summary.programs, 300);
    let Some(wgpu) = wgpu_or_skip("resident_runs_agree_with_the_reference_on_random_programs")
    else {
        return;
    };
    let sequenced = Resident::new(wgpu, ResidentMode::Sequence);
    let reference = vyre_conformance::report::reference_for(&sequenced);
    let summary = fuzz::run(&options(500, 6), &reference, &sequenced, &|_| {});
    assert_no_mismatch(&summary);
    assert_eq!(summary.programs, 500);
}

/// The fuzzer's programs as the middle item of a three-item `dispatch_batch` on wgpu (coalesced,
/// packed where the program allows), against the reference.
#[test]
fn batched_runs_agree_with_the_reference_on_random_programs() {
    use vyre_conformance::batch::Batched;
    let Some(wgpu) = wgpu_or_skip("batched_runs_agree_with_the_reference_on_random_programs")
    else {
        return;
    };
    let batched = Batched::new(wgpu);
    let reference = vyre_conformance::report::reference_for(&batched);
    let summary = fuzz::run(&options(500, 7), &reference, &batched, &|_| {});
    assert_no_mismatch(&summary);
    assert_eq!(summary.programs, 500);
}

/// Backends may reject but never panic on a valid program, whatever it does (races included).
fn run_without_panic(
    backend: &dyn VyreBackend,
    program: &vyre_foundation::ir::Program,
    inputs: &[Vec<u8>],
    grid: Option<[u32; 3]>,
) {
    let mut config = DispatchConfig::new()
        .with_fuel(200_000)
        .with_timeout(Duration::from_secs(10));
    config.grid = grid;
    let _ = backend.dispatch(program, inputs, &config);
}

/// Runs `property` over `cases` values of `strategy` and returns how many it really ran; a property
/// that ran nothing would pass without checking anything.
fn run_property<S: Strategy>(
    cases: u32,
    strategy: S,
    property: impl Fn(S::Value) -> bool,
) -> (u32, u32) {
    let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    });
    let (ran, dispatched) = (std::cell::Cell::new(0u32), std::cell::Cell::new(0u32));
    let result = runner.run(&strategy, |value| {
        ran.set(ran.get() + 1);
        if property(value) {
            dispatched.set(dispatched.get() + 1);
        }
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
    (ran.get(), dispatched.get())
}

#[test]
fn reference_never_panics_on_valid_only_programs() {
    let config = GenConfig::valid_only();
    let (ran, dispatched) = run_property(200, recipe(&config), |r| {
        let case = decode(&r, &config);
        run_without_panic(
            &ReferenceBackend::new(),
            &case.program,
            &case.inputs,
            case.config.grid,
        );
        true
    });
    assert_eq!((ran, dispatched), (200, 200));
}

/// Every raw program goes to `backend`, valid or not: a valid one runs (or is refused) without a
/// panic, an invalid one is `InvalidProgram` without a panic. Returns (programs run, valid ones).
fn raw_programs_never_panic(backend: &dyn VyreBackend) -> (u32, u32) {
    let strategy = raw_program().prop_flat_map(|p| {
        let inputs = raw_inputs(&p);
        (Just(p), inputs)
    });
    run_property(200, strategy, |(program, inputs)| {
        if vyre_foundation::validate(&program).is_ok() {
            run_without_panic(backend, &program, &inputs, Some([2, 1, 1]));
            return true;
        }
        let result = backend.dispatch(&program, &inputs, &DispatchConfig::new());
        assert!(
            matches!(result, Err(BackendError::InvalidProgram(_))),
            "an invalid program was not rejected as invalid on `{}`: {:?}\n{program}",
            backend.id(),
            result.map(|_| "Ok")
        );
        false
    })
}

#[test]
fn reference_never_panics_on_raw_programs() {
    let (ran, valid) = raw_programs_never_panic(&ReferenceBackend::new());
    assert_eq!(ran, 200);
    eprintln!("{valid} of {ran} raw programs were valid");
}

#[test]
fn wgpu_never_panics_on_raw_programs() {
    let Some(wgpu) = wgpu_or_skip("wgpu_never_panics_on_raw_programs") else {
        return;
    };
    let (ran, valid) = raw_programs_never_panic(wgpu.as_ref());
    assert_eq!(ran, 200);
    eprintln!("{valid} of {ran} raw programs were valid");
}

#[test]
fn wgpu_never_panics_on_valid_only_programs() {
    let Some(wgpu) = wgpu_or_skip("wgpu_never_panics_on_valid_only_programs") else {
        return;
    };
    let config = GenConfig::valid_only();
    let mut dispatched = 0;
    for i in 0..150 {
        if let Some((_, case)) = fuzz::generate(&config, 3, i) {
            run_without_panic(wgpu.as_ref(), &case.program, &case.inputs, case.config.grid);
            dispatched += 1;
        }
    }
    assert_eq!(dispatched, 150, "programs generated and dispatched");
}

#[test]
fn saved_regressions_replay_without_mismatch() {
    let dir = fuzz::checked_in_dir();
    let cases = Regression::load_dir(&dir).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        !cases.is_empty(),
        "no regression cases in {} (a binary run outside its checkout needs {}=<repository root>)",
        dir.display(),
        fuzz::REPO_ENV
    );
    let reference = ReferenceBackend::new();
    let wgpu = wgpu_or_skip("saved_regressions_replay_without_mismatch (wgpu part)");
    let mut others: Vec<&dyn VyreBackend> = vec![&reference];
    if let Some(w) = wgpu.as_deref() {
        others.push(w);
    }
    for (path, case) in &cases {
        assert!(
            vyre_foundation::validate(&case.case.program).is_ok(),
            "{}",
            path.display()
        );
        for other in &others {
            let verdict = fuzz::replay(case, &reference, *other);
            assert!(
                matches!(verdict, Verdict::Agree { .. }),
                "{} on `{}`: {verdict:?}\n{}\nnote: {}",
                path.display(),
                other.id(),
                case.case.program,
                case.note
            );
        }
    }
}
