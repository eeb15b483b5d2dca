//! Checking a backend from a downstream crate's own tests.

use vyre_driver::VyreBackend;

use crate::report::{ConformanceReport, check_backend, render_failure};

/// How many failures a panic message shows in full.
const SHOWN_FAILURES: usize = 10;

/// Panics with the failures listed unless every case of `report` passed. The message shows the
/// area table, then the first failures in full (inputs, expected, got, program).
///
/// # Panics
///
/// When a case failed or no case ran; that is its purpose (a test assertion).
pub fn assert_report_passes(report: &ConformanceReport) {
    if report.all_passed() {
        return;
    }
    let mut message = format!(
        "backend `{}` ({}) failed {} of {} conformance cases\n\n{}\n",
        report.backend,
        report.device,
        report.failed(),
        report.total(),
        crate::report::render_table(std::slice::from_ref(report)),
    );
    for case in report.failures().take(SHOWN_FAILURES) {
        message.push_str(&render_failure(&report.backend, case));
    }
    let hidden = report.failed().saturating_sub(SHOWN_FAILURES);
    if hidden > 0 {
        // Every failure is named, even where only the first are shown in full, so that one run says
        // which cases to look at.
        let names: Vec<&str> = report
            .failures()
            .skip(SHOWN_FAILURES)
            .map(|c| c.name.as_str())
            .collect();
        message.push_str(&format!(
            "... and {hidden} more failures: {}\n",
            names.join(", ")
        ));
    }
    panic!("{message}");
}

/// Runs the whole catalogue on `backend` and panics with the failures listed unless every case
/// passed. Call it from a test of your own backend, or use [`conformance_test!`](crate::conformance_test).
///
/// # Panics
///
/// When a case failed; that is its purpose (a test assertion).
pub fn assert_conforms(backend: &dyn VyreBackend) {
    assert_report_passes(&check_backend(backend));
}

/// Declares a `#[test]` called `$name` that builds a backend with `$ctor` and asserts it conforms.
///
/// [`backend_tests!`](crate::backend_tests) runs the same catalogue as one test per area, next to the
/// semantics and reliability checks; this one test of the whole catalogue stays for callers of it.
///
/// `$ctor` is an expression giving the backend (anything implementing `VyreBackend`).
///
/// ```
/// vyre_conformance::conformance_test!(reference_conforms, vyre_conformance::ReferenceBackend::new());
/// # fn main() {}
/// ```
#[macro_export]
macro_rules! conformance_test {
    ($name:ident, $ctor:expr) => {
        #[test]
        fn $name() {
            let backend = $ctor;
            $crate::assert_conforms(&backend);
        }
    };
}
