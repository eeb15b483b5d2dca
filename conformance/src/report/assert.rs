//! Checking a backend from a downstream crate's own tests.

use crate::report::{ConformanceReport, render_failure};

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
        report.total() - report.passed(),
        report.total(),
        crate::report::render_table(std::slice::from_ref(report)),
    );
    for case in report.failures().take(SHOWN_FAILURES) {
        message.push_str(&render_failure(&report.backend, case));
    }
    let hidden = (report.total() - report.passed()).saturating_sub(SHOWN_FAILURES);
    if hidden > 0 {
        message.push_str(&format!("... and {hidden} more failures\n"));
    }
    panic!("{message}");
}
