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
mod compare;
mod judge;
pub mod metamorphic;
mod program_text;
mod reduce;
mod regression;

use std::path::PathBuf;
use std::time::Duration;

use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use vyre_driver::{BackendError, DispatchConfig, VyreBackend};

use crate::fuzz::campaign::{Campaign, Check, save_case};
use crate::fuzz::judge::{run_both, verdict_of};
use crate::r#gen::{GenConfig, GeneratedCase, Recipe, decode, recipe};

pub use compare::{
    F16_ABS_TOLERANCE, F16_REL_TOLERANCE, FLOAT_ABS_TOLERANCE, FLOAT_REL_TOLERANCE, differences,
    f16_agree, first_difference, floats_agree, output_values,
};
pub use judge::{Oracle, SkipReason, Untraced, Verdict, judge};
pub use program_text::ProgramJson;
pub use reduce::{cost, reduce};
pub use regression::{REPO_ENV, Regression, checked_in_dir};

/// What [`run`] does.
#[derive(Clone, Debug)]
pub struct FuzzOptions {
    /// How many programs to run.
    pub cases: u64,
    /// The seed; the same seed and configuration give the same programs.
    pub seed: u64,
    /// What the programs may contain. Keep `comparable` on: only such programs have one right answer.
    pub config: GenConfig,
    /// Where to save minimal failing cases; `None` saves nothing.
    pub regressions_dir: Option<PathBuf>,
    /// Shrink this many mismatches, then stop at the end of the batch (shrinking takes a while); `0`
    /// shrinks none and stops at the end of the first batch with a mismatch.
    pub max_mismatches: usize,
    /// The most recipe-shrinking steps per mismatch.
    pub shrink_steps: usize,
    /// The most IR-reduction candidates tried per mismatch.
    pub reduce_attempts: usize,
    /// Stop starting new batches after this long.
    pub time_limit: Option<Duration>,
    /// Cases per parallel batch (progress is reported after each).
    pub batch: usize,
    /// The reference's execution budget per dispatch, in IR operations.
    pub fuel: u64,
    /// The wall-clock limit per dispatch on either backend.
    pub dispatch_timeout: Duration,
}

impl Default for FuzzOptions {
    fn default() -> Self {
        Self {
            cases: 1000,
            seed: 0,
            config: GenConfig::differential(),
            regressions_dir: None,
            max_mismatches: 3,
            shrink_steps: 2000,
            reduce_attempts: 3000,
            time_limit: None,
            batch: 256,
            fuel: 20_000_000,
            dispatch_timeout: Duration::from_secs(30),
        }
    }
}

/// Where a run stands; passed to the progress callback after every batch.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FuzzProgress {
    /// Programs run so far.
    pub done: u64,
    /// Programs the run will try.
    pub total: u64,
    /// Mismatches found so far.
    pub mismatches: usize,
    /// Programs not compared so far (see [`SkipReason`]).
    pub skipped: u64,
    /// IR operations the reference executed so far.
    pub ops_executed: u64,
    /// Time since the run started.
    pub elapsed: Duration,
}

/// One disagreement, shrunk.
#[derive(Clone, Debug)]
pub struct FuzzMismatch {
    /// Which case of the seed found it.
    pub case_index: u64,
    /// The difference the minimal case shows.
    pub detail: String,
    /// The case as generated.
    pub original: GeneratedCase,
    /// The smallest failing case found.
    pub minimal: GeneratedCase,
    /// The shrunk recipe.
    pub recipe: Recipe,
    /// Where the minimal case was saved.
    pub saved: Option<PathBuf>,
    /// Why it was not, when a regressions directory was given and the save failed.
    pub save_error: Option<String>,
    /// Metamorphic runs ([`metamorphic::run`]): the rewritten program that disagreed with
    /// `minimal` on the same backend. `None` for differential runs.
    pub variant: Option<MismatchVariant>,
}

/// The variant of a metamorphic mismatch: `minimal` rewritten, which the backend ran to other
/// outputs than `minimal` itself.
#[derive(Clone, Debug)]
pub struct MismatchVariant {
    /// The rewrite that made it ([`metamorphic::Rewrite::name`]).
    pub rewrite: String,
    /// The rewritten case (with the opaque zero's buffer and input, where the rewrite adds one).
    pub case: GeneratedCase,
    /// Where it was saved, next to `minimal`.
    pub saved: Option<PathBuf>,
}

impl FuzzMismatch {
    /// A readable report: the difference, the minimal program in text form, its inputs and grid, and
    /// the program as generated.
    #[must_use]
    pub fn report(&self) -> String {
        let inputs: String = input_lines(&self.minimal.program, &self.minimal.inputs)
            .iter()
            .map(|line| format!("\n{line}"))
            .collect();
        let saved = self
            .saved
            .as_ref()
            .map(|p| format!("\nsaved as {}", p.display()))
            .or_else(|| self.save_error.as_ref().map(|e| format!("\n{e}")));
        let variant = self.variant.as_ref().map(|v| {
            let saved = v
                .saved
                .as_ref()
                .map(|p| format!("\nsaved as {}", p.display()));
            format!(
                "\nthe variant (rewrite `{}`) that disagreed with it:\n{}{}",
                v.rewrite,
                v.case.program,
                saved.unwrap_or_default()
            )
        });
        format!(
            "case {}: {}\n{}{inputs}\ngrid {:?}{}{}\nas generated (grid {:?}):\n{}",
            self.case_index,
            self.detail,
            self.minimal.program,
            self.minimal.config.grid,
            saved.unwrap_or_default(),
            variant.unwrap_or_default(),
            self.original.config.grid,
            self.original.program,
        )
    }
}

/// One line per input of `program`: `input \`in1\` (8 bytes): 01000000 02000000`, the bytes in
/// hex in memory order, four to a group, the first 256 of each (a saved regression holds them
/// all).
#[must_use]
pub fn input_lines(program: &vyre_foundation::ir::Program, inputs: &[Vec<u8>]) -> Vec<String> {
    let names = program.input_buffers().map(|b| b.name.as_str());
    inputs
        .iter()
        .zip(names.chain(std::iter::repeat("?")))
        .map(|(bytes, name)| {
            format!(
                "input `{name}` ({} bytes): {}",
                bytes.len(),
                input_hex(bytes)
            )
        })
        .collect()
}

/// An input's bytes as hex, in memory order, four bytes to a group; past 256 bytes cut short (the
/// saved regression holds them all).
fn input_hex(bytes: &[u8]) -> String {
    const SHOWN: usize = 256;
    let groups: Vec<String> = bytes[..bytes.len().min(SHOWN)]
        .chunks(4)
        .map(|g| g.iter().map(|b| format!("{b:02x}")).collect())
        .collect();
    let mut text = groups.join(" ");
    if bytes.len() > SHOWN {
        text.push_str(&format!(" … ({} more bytes)", bytes.len() - SHOWN));
    }
    text
}

/// What a run found.
#[derive(Clone, Debug, Default)]
pub struct FuzzSummary {
    /// Programs run.
    pub programs: u64,
    /// IR operations the reference executed in all.
    pub ops_executed: u64,
    /// Disagreements, shrunk: the first [`FuzzOptions::max_mismatches`] of them.
    pub mismatches: Vec<FuzzMismatch>,
    /// Programs that disagreed, shrunk or not: at least `mismatches.len()`.
    pub mismatched: u64,
    /// Programs not compared.
    pub skipped: u64,
    /// Of those, how many because the reference marked them indeterminate.
    pub indeterminate: u64,
    /// How long the run took.
    pub elapsed: Duration,
}

impl FuzzSummary {
    /// Programs both sides ran and agreed on: neither skipped nor mismatched. A run that compared
    /// nothing checked nothing, whatever its mismatch count (a backend that refuses every program
    /// has no mismatch), and `vyre-conform fuzz` fails it.
    ///
    /// ```
    /// use vyre_conformance::fuzz::FuzzSummary;
    ///
    /// let refused = FuzzSummary { programs: 10, skipped: 10, ..Default::default() };
    /// assert_eq!(refused.compared(), 0);
    /// let wrong = FuzzSummary { programs: 10, skipped: 1, mismatched: 9, ..Default::default() };
    /// assert_eq!(wrong.compared(), 0);
    /// ```
    #[must_use]
    pub fn compared(&self) -> u64 {
        self.programs
            .saturating_sub(self.skipped)
            .saturating_sub(self.mismatched)
    }
}

/// The 32-byte proptest seed of case `index` of `seed`.
fn case_seed(seed: u64, index: u64) -> [u8; 32] {
    let mut state = seed ^ index.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    let mut out = [0u8; 32];
    for chunk in out.chunks_exact_mut(8) {
        // splitmix64: consecutive indices give unrelated seeds.
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        chunk.copy_from_slice(&(z ^ (z >> 31)).to_le_bytes());
    }
    out
}

pub(crate) fn runner(seed: u64, index: u64) -> TestRunner {
    let rng = TestRng::from_seed(RngAlgorithm::ChaCha, &case_seed(seed, index));
    TestRunner::new_with_rng(Config::default(), rng)
}

/// The generator features of `features` whose programs both sides can run: those whose device
/// features (the generator's `Feature::device_features`) the backend under test and the oracle
/// both have, and subgroups only where the oracle runs the backend's subgroup size (as
/// [`crate::report::reference_for`] sets it), since subgroup results depend on the size.
#[must_use]
pub fn drawable(
    features: crate::r#gen::Features,
    reference: &dyn Oracle,
    other: &dyn VyreBackend,
) -> crate::r#gen::Features {
    let caps = other.capabilities();
    let Some((oracle, oracle_size)) = reference.features() else {
        return features.supported_by(vyre_foundation::ir::Features::NONE);
    };
    use vyre_foundation::ir::Features as F;
    let mut both = F::NONE;
    for feature in [F::SUBGROUPS, F::F16, F::INT64, F::INT64_ATOMICS] {
        let same_size = feature != F::SUBGROUPS
            || (caps.subgroup_sizes[0] == caps.subgroup_sizes[1]
                && caps.subgroup_sizes[0] == oracle_size);
        if caps.features().contains(feature) && oracle.contains(feature) && same_size {
            both |= feature;
        }
    }
    features.supported_by(both)
}

/// The case `index` of `seed` under `config`, as [`run`] generates it.
#[must_use]
pub fn generate(config: &GenConfig, seed: u64, index: u64) -> Option<(Recipe, GeneratedCase)> {
    let tree = recipe(config).new_tree(&mut runner(seed, index)).ok()?;
    let r = tree.current();
    let case = decode(&r, config);
    Some((r, case))
}

/// `config` without the generator features whose device features `backend` lacks (`f16`, 64-bit
/// integers, 64-bit atomics): programs that use them would only be refused.
#[must_use]
pub fn config_for(config: &GenConfig, backend: &dyn VyreBackend) -> GenConfig {
    let device = backend.capabilities().features();
    let features = config.features.supported_by(device);
    config.clone().with_features(features)
}

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

/// A case's dispatch configuration with the run's fuel and timeout.
pub(crate) fn dispatch_config(options: &FuzzOptions, case: &GeneratedCase) -> DispatchConfig {
    let mut config = case.config.clone();
    config.fuel = Some(options.fuel);
    config.timeout = Some(options.dispatch_timeout);
    config
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
