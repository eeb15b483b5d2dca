//! The result of running the catalogue on one backend: per-case pass or fail, with everything needed
//! to reproduce a failure, serialisable to JSON.
//!
//! Checking your own backend from your crate's tests:
//!
//! ```
//! use vyre_conformance::{ReferenceBackend, assert_conforms, check_backend};
//!
//! // In a `#[test]` of your crate, with your backend in place of the reference:
//! let backend = ReferenceBackend::new();
//! let report = check_backend(&backend);
//! assert!(report.total() > 1000);
//! eprintln!("{}", vyre_conformance::report::render_table(std::slice::from_ref(&report)));
//! assert_conforms(&backend); // panics with the first failures in full
//! ```
//!
//! or in one line, `vyre_conformance::conformance_test!(my_backend_conforms, MyBackend::new());`.

mod assert;
mod check;
mod table;

use serde::{Deserialize, Serialize};

use crate::catalogue::Area;

pub use assert::{assert_conforms, assert_report_passes};
pub use check::{
    CheckOptions, Progress, ProgressFn, check_backend, check_backend_with, check_with_reference,
    reference_for,
};
pub use table::{render_failure, render_table};

/// Who got a case wrong.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Culprit {
    /// The backend under test returned a word outside what the semantics accept.
    Backend,
    /// The reference backend disagreed with the hand-written expectation (or its own interval):
    /// the oracle itself is wrong, so the comparison proves nothing.
    Reference,
}

/// Why one case failed, with everything needed to reproduce it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CaseFailure {
    /// Who got it wrong.
    pub culprit: Culprit,
    /// The case's inputs, readable.
    pub inputs: String,
    /// The expected word, or the accepted interval or set.
    pub expected: String,
    /// What came back (the culprit's word), or the error.
    pub got: String,
    /// Where the result lives: batch output index and word.
    pub location: String,
    /// The program text (`Display` of the program).
    pub program: String,
}

/// One case's outcome.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CaseResult {
    /// The case name, unique in the catalogue.
    pub name: String,
    /// Its area.
    pub area: Area,
    /// The batch (program) it ran in.
    pub batch: String,
    /// True when it passed.
    pub passed: bool,
    /// When the case's program needs optional device features the backend lacks (subgroups,
    /// `f16`, 64-bit integers): their names, e.g. `"subgroups"`. Such a case is *not supported on
    /// this device*: it did not run, `passed` is false, and it counts neither as a pass nor as a
    /// failure. `None` (and left out of the JSON) when the backend has every feature it needs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unsupported: Option<String>,
    /// Why it failed; `None` when it passed (and then left out of the JSON).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure: Option<CaseFailure>,
}

/// Passed and total cases of one area.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AreaTally {
    /// The area.
    pub area: Area,
    /// Cases that passed.
    pub passed: usize,
    /// Cases checked.
    pub total: usize,
    /// Cases not supported on this device (see [`CaseResult::unsupported`]).
    #[serde(default)]
    pub unsupported: usize,
}

/// The outcome of the catalogue on one backend.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ConformanceReport {
    /// The backend's id, e.g. `wgpu`.
    pub backend: String,
    /// The backend's device name (`Capabilities::device_name`).
    pub device: String,
    /// The driver workarounds the backend applied on that device (`Capabilities::workarounds`):
    /// the report holds for the device *with* these rewrites.
    #[serde(default)]
    pub workarounds: Vec<String>,
    /// How many programs were dispatched on the backend under test.
    pub dispatches: usize,
    /// Wall-clock time of the whole check, in milliseconds.
    pub elapsed_ms: u128,
    /// Every case, in catalogue order.
    pub cases: Vec<CaseResult>,
}

impl ConformanceReport {
    /// The number of cases checked.
    #[must_use]
    pub fn total(&self) -> usize {
        self.cases.len()
    }

    /// The number of cases that passed.
    #[must_use]
    pub fn passed(&self) -> usize {
        self.cases.iter().filter(|c| c.passed).count()
    }

    /// The number of cases not supported on this device (see [`CaseResult::unsupported`]).
    #[must_use]
    pub fn unsupported(&self) -> usize {
        self.cases
            .iter()
            .filter(|c| c.unsupported.is_some())
            .count()
    }

    /// The number of cases that failed: neither passed nor unsupported on this device.
    #[must_use]
    pub fn failed(&self) -> usize {
        self.failures().count()
    }

    /// True when no case failed and at least one was checked; cases not supported on this device
    /// are no failures (the table and the JSON list them).
    #[must_use]
    pub fn all_passed(&self) -> bool {
        !self.cases.is_empty() && self.failed() == 0
    }

    /// The failed cases, in catalogue order (cases not supported on this device excluded).
    pub fn failures(&self) -> impl Iterator<Item = &CaseResult> {
        self.cases
            .iter()
            .filter(|c| !c.passed && c.unsupported.is_none())
    }

    /// The case called `name`.
    #[must_use]
    pub fn case(&self, name: &str) -> Option<&CaseResult> {
        self.cases.iter().find(|c| c.name == name)
    }

    /// Passed/total per area, for the areas that ran, in area order.
    #[must_use]
    pub fn by_area(&self) -> Vec<AreaTally> {
        Area::ALL
            .into_iter()
            .filter_map(|area| {
                let mine: Vec<&CaseResult> = self.cases.iter().filter(|c| c.area == area).collect();
                (!mine.is_empty()).then(|| AreaTally {
                    area,
                    passed: mine.iter().filter(|c| c.passed).count(),
                    total: mine.len(),
                    unsupported: mine.iter().filter(|c| c.unsupported.is_some()).count(),
                })
            })
            .collect()
    }

    /// The report as pretty-printed JSON.
    ///
    /// # Errors
    ///
    /// A `serde_json` error (it cannot happen for these types, but the signature stays honest).
    pub fn to_json(&self) -> Result<String, serde_json::Error> {
        serde_json::to_string_pretty(self)
    }

    /// A report from its JSON.
    ///
    /// # Errors
    ///
    /// A `serde_json` error when `json` is not a report.
    pub fn from_json(json: &str) -> Result<Self, serde_json::Error> {
        serde_json::from_str(json)
    }
}
