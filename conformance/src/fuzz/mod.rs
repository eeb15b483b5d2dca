//! Differential fuzzing: random comparable programs run on the reference and on another backend must
//! agree.
//!
//! [`run`] draws `cases` recipes from a seed (case `i` of seed `s` is always the same program), runs
//! them in parallel batches, and for every disagreement shrinks the recipe with proptest, then reduces
//! the program with [`reduce()`], prints the minimal program in text form, and saves it as a
//! [`Regression`] that the test suite replays. Runs that the reference marks indeterminate are
//! skipped. A progress callback sees every finished batch, so an hour-long run on a GPU machine shows
//! where it is.
//!
//! [`metamorphic`] is the other mode: a backend against itself, on programs and semantics-preserving
//! rewrites of them, with no reference to compare with; [`metamorphic::run`] returns the same
//! [`FuzzSummary`], its mismatches shrunk the same way. [`replay`] runs a saved case again, and
//! [`replay_outputs`] keeps both sides' outputs for a report of every element that differs.
//!
//! [`check_pass`] ([`pass_check`]) turns the same machinery on IR passes: every drawn program and what a pass made
//! of it run on the reference, and the first program the pass gets wrong shrunk and reported
//! with both forms ([`PassMismatch::report`]); [`apply_pass`] and [`apply_pipeline`] adapt a
//! `vyre_foundation::pass::Pass` or `Pipeline` to it.
//!
//! ```
//! use vyre_conformance::ReferenceBackend;
//! use vyre_conformance::fuzz::{self, FuzzOptions};
//!
//! let options = FuzzOptions { cases: 20, seed: 7, ..FuzzOptions::default() };
//! let summary = fuzz::run(&options, &ReferenceBackend::new(), &ReferenceBackend::new(), &|_| {});
//! assert_eq!(summary.programs, 20);
//! assert!(summary.mismatches.is_empty());
//! ```

mod campaign;
mod cases;
mod compare;
mod judge;
pub mod metamorphic;
mod options;
pub mod pass_check;
pub mod planted_passes;
mod program_text;
mod reduce;
mod regression;
mod summary;

use vyre_driver::{BackendError, VyreBackend};

use crate::fuzz::campaign::{Campaign, Check, save_case};
use crate::fuzz::judge::{run_both, verdict_of};
use crate::r#gen::{GenConfig, GeneratedCase};

pub use compare::{
    F16_ABS_TOLERANCE, F16_REL_TOLERANCE, FLOAT_ABS_TOLERANCE, FLOAT_REL_TOLERANCE, differences,
    f16_agree, first_difference, floats_agree, output_values,
};
pub use judge::{Oracle, SkipReason, Untraced, Verdict, judge};
pub use program_text::ProgramJson;
pub use reduce::{cost, reduce};
pub use regression::{REPO_ENV, Regression, checked_in_dir};

pub(crate) use cases::runner;
pub use cases::{config_for, drawable, generate};
pub(crate) use options::dispatch_config;
pub use options::{FuzzOptions, FuzzProgress};
pub use pass_check::{
    PassMismatch, PassSummary, apply_pass, apply_pipeline, check_pass, check_pass_on,
    check_pass_with, map_exprs,
};
pub use summary::{FuzzMismatch, FuzzSummary, MismatchVariant, input_lines};

/// Runs `options.cases` random comparable programs on `reference` and `other`, shrinking and saving
/// every mismatch, and calls `progress` after every batch. Programs use only the generator features
/// `other`'s device supports ([`config_for`]).
pub fn run(
    options: &FuzzOptions,
    reference: &dyn Oracle,
    other: &dyn VyreBackend,
    progress: &(dyn Fn(&FuzzProgress) + Sync),
) -> FuzzSummary {
    let options = &FuzzOptions {
        config: config_for(&options.config, other),
        ..options.clone()
    };
    let check = Differential {
        options,
        reference,
        other,
    };
    let campaign = Campaign {
        options,
        config: GenConfig {
            features: drawable(options.config.features, reference, other),
            ..options.config.clone()
        },
        check: &check,
    };
    campaign.run(progress)
}

/// The differential check: a case's outputs on the reference and on the other backend must agree.
struct Differential<'a> {
    options: &'a FuzzOptions,
    reference: &'a dyn Oracle,
    other: &'a dyn VyreBackend,
}

impl Check for Differential<'_> {
    fn verdict(&self, _index: u64, case: &GeneratedCase) -> Verdict {
        let config = dispatch_config(self.options, case);
        judge(
            self.reference,
            self.other,
            &case.program,
            &case.inputs,
            &config,
        )
    }

    fn finish(&self, index: u64, mismatch: &mut FuzzMismatch, dir: Option<&std::path::Path>) {
        let Some(dir) = dir else {
            return;
        };
        let note = format!(
            "reference vs {}: {} (seed {}, case {index})",
            self.other.id(),
            mismatch.detail,
            self.options.seed
        );
        match save_case(dir, note, &mismatch.minimal, Some(mismatch.recipe.clone())) {
            Ok(path) => mismatch.saved = Some(path),
            Err(e) => mismatch.save_error = Some(e),
        }
    }
}

/// Replays a saved case on both backends.
#[must_use]
pub fn replay(regression: &Regression, reference: &dyn Oracle, other: &dyn VyreBackend) -> Verdict {
    replay_outputs(regression, reference, other).verdict
}

/// What [`replay_outputs`] saw.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Replayed {
    /// The reference's outputs, or what it said (an error, or the panic it ended in) instead.
    pub expected: Result<Vec<Vec<u8>>, String>,
    /// The other backend's outputs, or what it said instead.
    pub actual: Result<Vec<Vec<u8>>, String>,
    /// The verdict, as [`replay`] gives it.
    pub verdict: Verdict,
}

/// Replays a saved case on both backends, as [`replay`], keeping each side's outputs with the
/// verdict (for a report of every element that differs: [`differences`], [`output_values`]).
#[must_use]
pub fn replay_outputs(
    regression: &Regression,
    reference: &dyn Oracle,
    other: &dyn VyreBackend,
) -> Replayed {
    let mut config = regression.case.config.clone();
    config.fuel = Some(FuzzOptions::default().fuel);
    let case = &regression.case;
    let (expected, actual) = run_both(reference, other, &case.program, &case.inputs, &config);
    let said = |e: &BackendError| e.to_string();
    let panicked = |p: &String| format!("panicked: {p}");
    let expected_outputs = match &expected {
        Ok(Ok(run)) => Ok(run.outputs.clone()),
        Ok(Err(e)) => Err(said(e)),
        Err(p) => Err(panicked(p)),
    };
    let actual_outputs = match &actual {
        Ok(Ok(outputs)) => Ok(outputs.clone()),
        Ok(Err(e)) => Err(said(e)),
        Err(p) => Err(panicked(p)),
    };
    Replayed {
        expected: expected_outputs,
        actual: actual_outputs,
        verdict: verdict_of(other, &case.program, expected, actual),
    }
}
