//! A fuzzing campaign: the cases of a seed, run in parallel batches and judged by a [`Check`], with
//! the first mismatches shrunk (proptest on the recipe, then [`reduce`]) and handed back to the
//! check to complete and save.
//!
//! The differential run ([`crate::fuzz::run`]: the reference against a backend) and the
//! metamorphic one ([`crate::fuzz::metamorphic::run`]: a backend against itself on rewritten
//! programs) differ only in their check; batching, progress, accounting and shrinking are this
//! one loop.

use std::path::{Path, PathBuf};
use std::time::Instant;

use proptest::strategy::{Strategy, ValueTree};
use rayon::prelude::{IntoParallelIterator, ParallelIterator};

use crate::fuzz::{
    FuzzMismatch, FuzzOptions, FuzzProgress, FuzzSummary, Regression, SkipReason, Verdict,
    generate, reduce, runner,
};
use crate::r#gen::{GenConfig, GeneratedCase, Recipe, decode, keeps_float_rules, recipe};

/// What a campaign asks of each case.
pub(crate) trait Check: Sync {
    /// The verdict on case `index` of the run (shrinking asks again about smaller versions of it,
    /// with the same index).
    fn verdict(&self, index: u64, case: &GeneratedCase) -> Verdict;

    /// The verdict on case `index` as the run draws it (shrinking asks [`Check::verdict`] instead):
    /// where a check counts something about the drawn cases alone, such as how many of them an IR
    /// pass changed.
    fn drawn_verdict(&self, index: u64, case: &GeneratedCase) -> Verdict {
        self.verdict(index, case)
    }

    /// Completes a shrunk mismatch (its `minimal` case is final): anything the check knows beyond
    /// the verdict, and the regression files under `dir` when one is given.
    fn finish(&self, index: u64, mismatch: &mut FuzzMismatch, dir: Option<&Path>);
}

/// One run of a [`Check`] over `options.cases` generated cases.
pub(crate) struct Campaign<'a> {
    pub(crate) options: &'a FuzzOptions,
    /// The generator configuration: `options.config` with only what both sides can run.
    pub(crate) config: GenConfig,
    pub(crate) check: &'a dyn Check,
}

impl Campaign<'_> {
    /// Runs the cases, shrinking the first `options.max_mismatches` mismatches, and calls
    /// `progress` after every batch.
    pub(crate) fn run(&self, progress: &(dyn Fn(&FuzzProgress) + Sync)) -> FuzzSummary {
        let options = self.options;
        let started = Instant::now();
        let mut summary = FuzzSummary::default();
        let batch = options.batch.max(1) as u64;
        let mut next = 0;
        while next < options.cases {
            let end = (next + batch).min(options.cases);
            let verdicts: Vec<(u64, Option<GeneratedCase>, Verdict)> = (next..end)
                .into_par_iter()
                .map(|i| match generate(&self.config, options.seed, i) {
                    Some((_, case)) => {
                        let verdict = self.check.drawn_verdict(i, &case);
                        (i, Some(case), verdict)
                    }
                    None => (i, None, Verdict::Skip(SkipReason::BothRejected)),
                })
                .collect();
            for (i, case, verdict) in verdicts {
                summary.programs += 1;
                match verdict {
                    Verdict::Agree { ops } => {
                        summary.ops_executed += ops;
                        if let Some(case) = &case {
                            let (tiles, arrays) = declares(&case.program);
                            summary.compared_with_tiles += u64::from(tiles);
                            summary.compared_with_arrays += u64::from(arrays);
                        }
                    }
                    Verdict::Skip(reason) => {
                        summary.skipped += 1;
                        summary.indeterminate += u64::from(reason == SkipReason::Indeterminate);
                    }
                    Verdict::Mismatch(_) => {
                        summary.mismatched += 1;
                        if let Some(case) = case
                            && summary.mismatches.len() < options.max_mismatches
                        {
                            summary.mismatches.push(self.shrink(i, case));
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

    fn fails(&self, index: u64, case: &GeneratedCase) -> bool {
        matches!(self.check.verdict(index, case), Verdict::Mismatch(_))
    }

    /// A reduction candidate that still shows a bug: it fails and, in a comparable run, still follows
    /// the float rules of comparable programs (an edit such as dropping the `% 17` before an integer
    /// is converted to `f32` makes a program whose backends may legally disagree).
    fn reduction_fails(&self, index: u64, case: &GeneratedCase) -> bool {
        let rules_hold = !self.config.comparable
            || vyre_foundation::validate(&case.program).is_ok_and(|v| keeps_float_rules(&v));
        rules_hold && self.fails(index, case)
    }

    /// proptest's shrinking of the recipe tree, then the IR reducer, then the check's completion.
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
                if self.fails(index, &decode(&candidate, config)) {
                    best_recipe = Some(candidate);
                    more = tree.simplify();
                } else {
                    more = tree.complicate();
                }
            }
        }
        let recipe = best_recipe.unwrap_or_else(empty_recipe);
        let shrunk = decode(&recipe, config);
        let start = if self.fails(index, &shrunk) {
            shrunk
        } else {
            original.clone()
        };
        let minimal = reduce(
            &start,
            &mut |c| self.reduction_fails(index, c),
            self.options.reduce_attempts,
        );
        let detail = match self.check.verdict(index, &minimal) {
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
            variant: None,
        };
        self.check.finish(
            index,
            &mut mismatch,
            self.options.regressions_dir.as_deref(),
        );
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

/// Saves `case` as a regression under `dir` with `note`, or says why it could not.
pub(crate) fn save_case(
    dir: &Path,
    note: String,
    case: &GeneratedCase,
    recipe: Option<Recipe>,
) -> Result<PathBuf, String> {
    let regression = Regression {
        note,
        case: case.clone(),
        recipe,
    };
    regression.save(dir).map_err(|e| {
        format!(
            "not saved under {}: {e}. Fix: pass a writable regressions directory.",
            dir.display()
        )
    })
}

/// Whether `program` declares a matrix tile, and whether it declares a private array: what a run
/// reports it compared of the wave-3 constructs.
fn declares(program: &vyre_foundation::ir::Program) -> (bool, bool) {
    use vyre_foundation::ir::Node;
    let (mut tiles, mut arrays) = (false, false);
    vyre_foundation::for_each_node(&program.body, |node| {
        tiles |= matches!(node, Node::Tile { .. });
        arrays |= matches!(node, Node::PrivateArray { .. });
    });
    (tiles, arrays)
}
