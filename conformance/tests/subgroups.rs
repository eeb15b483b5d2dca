//! The semantics suite on the reference at other subgroup sizes than its default: the smallest and
//! largest a device may have, lavapipe's 8, and none (where subgroup programs must be refused).

vyre_conformance::semantics_suite!(reference_subgroups_1, || Some(
    vyre_conformance::ReferenceBackend::new().with_subgroup_size(1)
));
vyre_conformance::semantics_suite!(reference_subgroups_8, || Some(
    vyre_conformance::ReferenceBackend::new().with_subgroup_size(8)
));
vyre_conformance::semantics_suite!(reference_subgroups_128, || Some(
    vyre_conformance::ReferenceBackend::new().with_subgroup_size(128)
));
vyre_conformance::semantics_suite!(reference_without_subgroups, || Some(
    vyre_conformance::ReferenceBackend::new().with_subgroup_size(0)
));

use vyre_conformance::catalogue::Area;
use vyre_conformance::report::{CheckOptions, render_table};
use vyre_conformance::{ConformanceReport, ReferenceBackend, check_backend_with};

#[test]
fn subgroup_cases_are_not_supported_on_a_device_without_subgroups() {
    let backend = ReferenceBackend::new().with_subgroup_size(0);
    let options = CheckOptions {
        areas: &[Area::Subgroups, Area::Integer],
        progress: None,
    };
    let report = check_backend_with(&backend, &options);
    let subgroup_cases: Vec<_> = report
        .cases
        .iter()
        .filter(|c| c.area == Area::Subgroups)
        .collect();
    assert!(!subgroup_cases.is_empty());
    for case in &subgroup_cases {
        assert!(!case.passed, "{} ran without subgroups", case.name);
        assert_eq!(
            case.unsupported.as_deref(),
            Some("subgroups"),
            "{}",
            case.name
        );
        assert!(case.failure.is_none(), "{} counted as a failure", case.name);
    }
    assert_eq!(report.unsupported(), subgroup_cases.len());
    assert_eq!(report.failed(), 0);
    assert!(report.all_passed(), "unsupported cases are no failures");
    let table = render_table(std::slice::from_ref(&report));
    let row = table
        .lines()
        .find(|l| l.starts_with("subgroups"))
        .unwrap_or_default();
    assert!(
        row.contains("not supported on this device") && !row.contains("FAIL"),
        "{table}"
    );
    let json = report.to_json().expect("json");
    assert!(json.contains("\"unsupported\": \"subgroups\""), "{json}");
    assert_eq!(ConformanceReport::from_json(&json).expect("parses"), report);
    let tally = report
        .by_area()
        .into_iter()
        .find(|t| t.area == Area::Subgroups)
        .expect("the area ran");
    assert_eq!(tally.unsupported, tally.total);
}

#[test]
fn the_oracle_runs_at_the_backend_s_subgroup_size() {
    for size in [1, 8, 64] {
        let backend = ReferenceBackend::new().with_subgroup_size(size);
        let oracle = vyre_conformance::report::reference_for(&backend);
        assert_eq!(oracle.subgroup_size(), size);
        let options = CheckOptions {
            areas: &[Area::Subgroups],
            progress: None,
        };
        let report = check_backend_with(&backend, &options);
        assert!(
            report.all_passed() && report.unsupported() == 0,
            "size {size}"
        );
    }
}

mod generated {
    use proptest::strategy::{Strategy, ValueTree};
    use vyre_conformance::ReferenceBackend;
    use vyre_conformance::fuzz::{self, FuzzOptions};
    use vyre_conformance::r#gen::{Feature, Features, GenConfig, case};
    use vyre_driver::VyreBackend;

    /// Subgroups with the features around them that make their operands interesting.
    fn subgroup_features() -> Features {
        [
            Feature::IntArith,
            Feature::Bitwise,
            Feature::Compare,
            Feature::FloatArith,
            Feature::Casts,
            Feature::Builtins,
            Feature::Loads,
            Feature::Variables,
            Feature::Ifs,
            Feature::Loops,
            Feature::Returns,
            Feature::Subgroups,
        ]
        .into_iter()
        .fold(Features::none(), Features::with)
    }

    #[test]
    fn the_generator_draws_valid_subgroup_programs_only_with_the_feature() {
        let config = GenConfig::differential()
            .with_features(subgroup_features())
            .with_swarm(false);
        let mut runner = proptest::test_runner::TestRunner::deterministic();
        let strategy = case(&config);
        let mut with_subgroups = 0;
        for _ in 0..300 {
            let case = strategy
                .new_tree(&mut runner)
                .map(|t| t.current())
                .unwrap_or_else(|e| panic!("strategy failed: {e}"));
            let validated = vyre_foundation::validate(&case.program)
                .unwrap_or_else(|e| panic!("invalid:\n{}\n{e}", case.program));
            if validated
                .features()
                .contains(vyre_foundation::ir::Features::SUBGROUPS)
            {
                with_subgroups += 1;
            }
        }
        assert!(
            with_subgroups > 100,
            "{with_subgroups} of 300 use subgroups"
        );
        let off = subgroup_features().supported_by(vyre_foundation::ir::Features::NONE);
        assert!(!off.has(Feature::Subgroups) && off.has(Feature::Loads));
        let config = GenConfig::differential().with_features(off);
        for _ in 0..100 {
            let case = case(&config)
                .new_tree(&mut runner)
                .map(|t| t.current())
                .unwrap_or_else(|e| panic!("strategy failed: {e}"));
            let features = vyre_foundation::validate(&case.program)
                .map(|v| v.features())
                .unwrap_or_default();
            assert!(features.is_empty(), "{}", case.program);
        }
    }

    fn options(cases: u64, seed: u64) -> FuzzOptions {
        FuzzOptions {
            cases,
            seed,
            config: GenConfig::differential().with_features(subgroup_features()),
            regressions_dir: Some(std::env::temp_dir().join("vyre-fuzz-regressions")),
            batch: 64,
            ..FuzzOptions::default()
        }
    }

    #[test]
    fn the_fuzzer_draws_no_subgroups_for_a_backend_without_them_or_of_another_size() {
        let reference = ReferenceBackend::new().with_subgroup_size(8);
        let without = ReferenceBackend::new().with_subgroup_size(0);
        let all = subgroup_features();
        assert!(!fuzz::drawable(all, &reference, &without).has(Feature::Subgroups));
        let other_size = ReferenceBackend::new().with_subgroup_size(32);
        assert!(!fuzz::drawable(all, &reference, &other_size).has(Feature::Subgroups));
        let same = ReferenceBackend::new().with_subgroup_size(8);
        assert!(fuzz::drawable(all, &reference, &same).has(Feature::Subgroups));
        // Tiles, which per-subgroup blocks make depend on the subgroup size, follow the same
        // rule, on a backend that runs the generator's tile shapes (the reference runs all).
        let tiles = all.with(Feature::Tiles).with(Feature::F16);
        assert!(fuzz::drawable(tiles, &reference, &same).has(Feature::Tiles));
        assert!(!fuzz::drawable(tiles, &reference, &other_size).has(Feature::Tiles));
        assert!(!fuzz::drawable(tiles, &reference, &without).has(Feature::Tiles));
        // A whole run on a backend without subgroups finds nothing to refuse.
        let summary = fuzz::run(&options(200, 3), &reference, &without, &|_| {});
        assert!(
            summary.mismatches.is_empty(),
            "{:?}",
            summary.mismatches.first().map(|m| m.report())
        );
        assert!(summary.skipped < 40, "{} skipped", summary.skipped);
    }

    #[test]
    fn wgpu_agrees_with_the_reference_at_its_subgroup_size_on_subgroup_programs() {
        let Some(wgpu) = vyre_driver_wgpu::testing::backend_or_skip(
            "wgpu_agrees_with_the_reference_at_its_subgroup_size_on_subgroup_programs",
        ) else {
            return;
        };
        let reference = vyre_conformance::report::reference_for(&wgpu);
        let caps = wgpu.capabilities();
        assert!(
            caps.subgroups,
            "the test device has no subgroups; this test needs one that has"
        );
        let summary = fuzz::run(&options(600, 7), &reference, &wgpu, &|_| {});
        let reports: Vec<String> = summary.mismatches.iter().map(|m| m.report()).collect();
        assert!(reports.is_empty(), "{}", reports.join("\n\n"));
        assert!(summary.skipped < 150, "{} skipped", summary.skipped);
    }
}

#[test]
fn an_f32_subgroup_sum_whose_order_matters_is_indeterminate_on_the_reference() {
    use vyre_driver::DispatchConfig;
    use vyre_foundation::ir::{BufferDecl, DataType, Expr, Node, Program};
    let program = Program::new(
        vec![
            BufferDecl::read("x", 0, DataType::F32).with_count(8),
            BufferDecl::output("out", 1, DataType::F32).with_count(8),
        ],
        [8, 1, 1],
        vec![Node::store(
            "out",
            Expr::gid_x(),
            Expr::subgroup_add(Expr::load("x", Expr::gid_x())),
        )],
    );
    let run = |values: [f32; 8]| {
        let bytes = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        ReferenceBackend::new()
            .with_subgroup_size(8)
            .dispatch_traced(&program, &[bytes], &DispatchConfig::default())
            .expect("runs")
    };
    let exact = run([1.0, 2.0, -3.0, 0.5, 4.0, 0.25, 8.0, 16.0]);
    assert!(!exact.indeterminate);
    let sum = f32::from_le_bytes([
        exact.outputs[0][0],
        exact.outputs[0][1],
        exact.outputs[0][2],
        exact.outputs[0][3],
    ]);
    assert_eq!(sum, 28.75);
    // 2^24 + 1 - 2^24 is 1 in one order and 0 in another.
    let inexact = run([16_777_216.0, 1.0, -16_777_216.0, 0.0, 0.0, 0.0, 0.0, 0.0]);
    assert!(inexact.indeterminate);
}

/// The tiles area, whose per-subgroup cases give every subgroup its own blocks, passes at every
/// subgroup size a device may have (each is a whole number of subgroups in the 128-invocation
/// workgroup), so what they expect does not depend on the size.
#[test]
fn the_tiles_area_passes_at_every_subgroup_size() {
    for size in [8, 16, 32, 64, 128] {
        let backend = ReferenceBackend::new().with_subgroup_size(size);
        let options = CheckOptions {
            areas: &[Area::Tiles],
            progress: None,
        };
        let report = check_backend_with(&backend, &options);
        assert!(
            report
                .cases
                .iter()
                .any(|c| c.name.starts_with("tiles.per_subgroup.16")),
            "no per-subgroup case"
        );
        assert!(
            report.all_passed() && report.unsupported() == 0,
            "subgroups of {size}: {}",
            render_table(std::slice::from_ref(&report))
        );
    }
}
