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
//! ```
//! use vyre_conformance::ReferenceBackend;
//! use vyre_conformance::fuzz::{self, FuzzOptions};
//!
//! let options = FuzzOptions { cases: 20, seed: 7, ..FuzzOptions::default() };
//! let summary = fuzz::run(&options, &ReferenceBackend::new(), &ReferenceBackend::new(), &|_| {});
//! assert_eq!(summary.programs, 20);
//! assert!(summary.mismatches.is_empty());
//! ```

mod compare;
mod judge;
mod program_text;
mod reduce;
mod regression;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use rayon::prelude::{IntoParallelIterator, ParallelIterator};
use vyre_driver::{DispatchConfig, VyreBackend};

use crate::r#gen::{GenConfig, GeneratedCase, Recipe, decode, keeps_float_rules, recipe};

pub use compare::{
    F16_ABS_TOLERANCE, F16_REL_TOLERANCE, FLOAT_ABS_TOLERANCE, FLOAT_REL_TOLERANCE, f16_agree,
    first_difference, floats_agree,
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
}

impl FuzzMismatch {
    /// A readable report: the difference, the minimal program in text form, its inputs and grid, and
    /// the program as generated.
    #[must_use]
    pub fn report(&self) -> String {
        let names = self
            .minimal
            .program
            .input_buffers()
            .map(|b| b.name.as_str());
        let inputs: String = self
            .minimal
            .inputs
            .iter()
            .zip(names.chain(std::iter::repeat("?")))
            .map(|(bytes, name)| {
                format!(
                    "\ninput `{name}` ({} bytes): {}",
                    bytes.len(),
                    input_hex(bytes)
                )
            })
            .collect();
        let saved = self
            .saved
            .as_ref()
            .map(|p| format!("\nsaved as {}", p.display()))
            .or_else(|| self.save_error.as_ref().map(|e| format!("\n{e}")));
        format!(
            "case {}: {}\n{}{inputs}\ngrid {:?}{}\nas generated (grid {:?}):\n{}",
            self.case_index,
            self.detail,
            self.minimal.program,
            self.minimal.config.grid,
            saved.unwrap_or_default(),
            self.original.config.grid,
            self.original.program,
        )
    }
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

fn runner(seed: u64, index: u64) -> TestRunner {
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

struct Harness<'a> {
    options: &'a FuzzOptions,
    /// `options.config` with the generator features both sides can run (see [`drawable`]).
    config: GenConfig,
    reference: &'a dyn Oracle,
    other: &'a dyn VyreBackend,
}

impl Harness<'_> {
    fn dispatch_config(&self, case: &GeneratedCase) -> DispatchConfig {
        let mut config = case.config.clone();
        config.fuel = Some(self.options.fuel);
        config.timeout = Some(self.options.dispatch_timeout);
        config
    }

    fn judge(&self, case: &GeneratedCase) -> Verdict {
        let config = self.dispatch_config(case);
        judge(
            self.reference,
            self.other,
            &case.program,
            &case.inputs,
            &config,
        )
    }

    fn fails(&self, case: &GeneratedCase) -> bool {
        matches!(self.judge(case), Verdict::Mismatch(_))
    }

    /// A reduction candidate that still shows a bug: it fails and, in a comparable run, still follows
    /// the float rules of comparable programs (an edit such as dropping the `% 17` before an integer
    /// is converted to `f32` makes a program whose backends may legally disagree).
    fn reduction_fails(&self, case: &GeneratedCase) -> bool {
        let rules_hold = !self.config.comparable
            || vyre_foundation::validate(&case.program).is_ok_and(|v| keeps_float_rules(&v));
        rules_hold && self.fails(case)
    }

    /// proptest's shrinking of the recipe tree, then the IR reducer.
    fn shrink(&self, index: u64, original: GeneratedCase) -> FuzzMismatch {
        let config = &self.config;
        let mut best_recipe = None;
        if let Ok(mut tree) = recipe(config).new_tree(&mut runner(self.options.seed, index)) {
            best_recipe = Some(tree.current());
            let mut steps = 0;
            let mut more = tree.simplify();
            while more && steps < self.options.shrink_steps {
                steps += 1;
                let candidate = tree.current();
                if self.fails(&decode(&candidate, config)) {
                    best_recipe = Some(candidate);
                    more = tree.simplify();
                } else {
                    more = tree.complicate();
                }
            }
        }
        let recipe = best_recipe.unwrap_or_else(empty_recipe);
        let shrunk = decode(&recipe, config);
        let start = if self.fails(&shrunk) {
            shrunk
        } else {
            original.clone()
        };
        let minimal = reduce(
            &start,
            &mut |c| self.reduction_fails(c),
            self.options.reduce_attempts,
        );
        let detail = match self.judge(&minimal) {
            Verdict::Mismatch(d) => d,
            other => format!("the mismatch did not reproduce on the minimal case ({other:?})"),
        };
        let mut mismatch = FuzzMismatch {
            case_index: index,
            detail,
            original,
            minimal,
            recipe,
            saved: None,
            save_error: None,
        };
        if let Some(dir) = &self.options.regressions_dir {
            let regression = Regression {
                note: format!(
                    "reference vs {}: {} (seed {}, case {index})",
                    self.other.id(),
                    mismatch.detail,
                    self.options.seed
                ),
                case: mismatch.minimal.clone(),
                recipe: Some(mismatch.recipe.clone()),
            };
            match regression.save(dir) {
                Ok(path) => mismatch.saved = Some(path),
                Err(e) => {
                    mismatch.save_error = Some(format!(
                        "not saved under {}: {e}. Fix: pass a writable regressions directory.",
                        dir.display()
                    ));
                }
            }
        }
        mismatch
    }
}

fn empty_recipe() -> Recipe {
    Recipe {
        features: 0,
        shape: Vec::new(),
        buffers: Vec::new(),
        stmts: Vec::new(),
        inputs: Vec::new(),
    }
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
    let started = Instant::now();
    let harness = Harness {
        options,
        config: GenConfig {
            features: drawable(options.config.features, reference, other),
            ..options.config.clone()
        },
        reference,
        other,
    };
    let mut summary = FuzzSummary::default();
    let batch = options.batch.max(1) as u64;
    let mut next = 0;
    while next < options.cases {
        let end = (next + batch).min(options.cases);
        let verdicts: Vec<(u64, Option<GeneratedCase>, Verdict)> = (next..end)
            .into_par_iter()
            .map(|i| match generate(&harness.config, options.seed, i) {
                Some((_, case)) => {
                    let verdict = harness.judge(&case);
                    (i, Some(case), verdict)
                }
                None => (i, None, Verdict::Skip(SkipReason::BothRejected)),
            })
            .collect();
        for (i, case, verdict) in verdicts {
            summary.programs += 1;
            match verdict {
                Verdict::Agree { ops } => summary.ops_executed += ops,
                Verdict::Skip(reason) => {
                    summary.skipped += 1;
                    summary.indeterminate += u64::from(reason == SkipReason::Indeterminate);
                }
                Verdict::Mismatch(_) => {
                    summary.mismatched += 1;
                    if let Some(case) = case
                        && summary.mismatches.len() < options.max_mismatches
                    {
                        summary.mismatches.push(harness.shrink(i, case));
                    }
                }
            }
        }
        next = end;
        summary.elapsed = started.elapsed();
        progress(&FuzzProgress {
            done: summary.programs,
            total: options.cases,
            mismatches: usize::try_from(summary.mismatched).unwrap_or(usize::MAX),
            skipped: summary.skipped,
            ops_executed: summary.ops_executed,
            elapsed: summary.elapsed,
        });
        let out_of_time = options.time_limit.is_some_and(|t| summary.elapsed >= t);
        // `max_mismatches: 0` shrinks none and stops after the first batch that has one.
        let enough = summary.mismatched > 0
            && summary.mismatched >= u64::try_from(options.max_mismatches).unwrap_or(u64::MAX);
        if out_of_time || enough {
            break;
        }
    }
    summary
}

/// Replays a saved case on both backends.
#[must_use]
pub fn replay(regression: &Regression, reference: &dyn Oracle, other: &dyn VyreBackend) -> Verdict {
    let mut config = regression.case.config.clone();
    config.fuel = Some(FuzzOptions::default().fuel);
    let case = &regression.case;
    judge(reference, other, &case.program, &case.inputs, &config)
}
