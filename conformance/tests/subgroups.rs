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
