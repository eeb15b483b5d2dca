//! The verdict on one case of a pass check: the pass applied, its result validated, and the
//! original and the transformed program run and compared.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

use vyre_driver::{BackendError, DispatchConfig, VyreBackend};
use vyre_foundation::ir::Program;

use crate::TracedRun;
use crate::fuzz::campaign::{Check, save_case};
use crate::fuzz::compare::first_difference_between;
use crate::fuzz::judge::{panic_text, refused};
use crate::fuzz::{FuzzMismatch, FuzzOptions, Oracle, SkipReason, Verdict, dispatch_config};
use crate::r#gen::GeneratedCase;

/// A transformation under test, as `check_pass` takes it.
pub(crate) type PassFn<'a> = &'a (dyn Fn(&Program) -> Program + Sync);

/// Everything one look at a case saw: what the pass made of the program and what each side ran
/// it to, with the verdict.
#[derive(Debug)]
pub(crate) struct Look {
    /// The pass's output; `Err` holds the message of the panic the pass ended in.
    pub(crate) transformed: Result<Program, String>,
    /// True when the pass returned another program than it was given.
    pub(crate) changed: bool,
    /// The original program's outputs on the reference, where it ran.
    pub(crate) expected: Option<Vec<Vec<u8>>>,
    /// The transformed program's outputs where they differ from `expected` (or the last side
    /// run), with the side that ran it.
    pub(crate) actual: Option<(String, Vec<Vec<u8>>)>,
    pub(crate) verdict: Verdict,
}

/// The check of a campaign over a pass: every drawn program transformed, both forms run on the
/// reference (and the transformed one on `target` too, where there is one) and compared.
pub(crate) struct PassCheck<'a> {
    pub(crate) pass: PassFn<'a>,
    pub(crate) options: &'a FuzzOptions,
    pub(crate) reference: &'a dyn Oracle,
    pub(crate) target: Option<&'a dyn VyreBackend>,
    /// How many drawn programs the pass changed.
    pub(crate) changed: AtomicU64,
}

impl Check for PassCheck<'_> {
    fn verdict(&self, _index: u64, case: &GeneratedCase) -> Verdict {
        self.look(case).verdict
    }

    fn drawn_verdict(&self, _index: u64, case: &GeneratedCase) -> Verdict {
        let look = self.look(case);
        if look.changed {
            self.changed.fetch_add(1, Ordering::Relaxed);
        }
        look.verdict
    }

    fn finish(&self, index: u64, mismatch: &mut FuzzMismatch, dir: Option<&Path>) {
        let Some(dir) = dir else {
            return;
        };
        let what = format!(
            "IR pass check: {} (seed {}, case {index})",
            mismatch.detail, self.options.seed
        );
        let note = format!("{what}; this is the original program");
        match save_case(dir, note, &mismatch.minimal, Some(mismatch.recipe.clone())) {
            Ok(path) => mismatch.saved = Some(path),
            Err(e) => mismatch.save_error = Some(e),
        }
    }
}

impl PassCheck<'_> {
    /// Applies the pass to `case` and judges the result.
    pub(crate) fn look(&self, case: &GeneratedCase) -> Look {
        let transformed = catch_unwind(AssertUnwindSafe(|| (self.pass)(&case.program)))
            .map_err(|panic| panic_text(&*panic));
        let mut look = Look {
            changed: transformed.as_ref().map_or(true, |t| *t != case.program),
            transformed,
            expected: None,
            actual: None,
            verdict: Verdict::Agree { ops: 0 },
        };
        let program = match &look.transformed {
            Err(panic) => {
                look.verdict = Verdict::Mismatch(format!("the pass panicked: {panic}"));
                return look;
            }
            // Unchanged: nothing to compare, and nothing a pass can get wrong.
            Ok(_) if !look.changed => return look,
            Ok(program) => program.clone(),
        };
        look.verdict = self.judge(case, &program, &mut look);
        look
    }

    /// The verdict on `transformed`, the pass's output for `case`, recording the outputs in `look`.
    fn judge(&self, case: &GeneratedCase, transformed: &Program, look: &mut Look) -> Verdict {
        if let Some(change) = interface_change(&case.program, transformed) {
            return Verdict::Mismatch(change);
        }
        if let Err(errors) = vyre_foundation::validate(transformed) {
            return Verdict::Mismatch(format!(
                "the transformed program does not validate: {errors}"
            ));
        }
        let config = dispatch_config(self.options, case);
        let original = match self.reference_run(&case.program, &case.inputs, &config) {
            Err(panic) => {
                return Verdict::Mismatch(format!(
                    "the reference panicked on the original program (a bug of the reference, not of the pass): {panic}"
                ));
            }
            Ok(Err(BackendError::Timeout(_))) => return Verdict::Skip(SkipReason::ReferenceBudget),
            Ok(Err(_)) => return Verdict::Skip(SkipReason::BothRejected),
            Ok(Ok(run)) if run.indeterminate => return Verdict::Skip(SkipReason::Indeterminate),
            Ok(Ok(run)) => run,
        };
        look.expected = Some(original.outputs.clone());
        let on_reference = self.reference_run(transformed, &case.inputs, &config);
        if let Some(mismatch) = self.compare_reference(case, &original, on_reference, look) {
            return mismatch;
        }
        if let Some(target) = self.target
            && let Some(mismatch) =
                compare_target(target, (case, &config), transformed, &original, look)
        {
            return mismatch;
        }
        Verdict::Agree {
            ops: original.ops_executed,
        }
    }

    fn reference_run(
        &self,
        program: &Program,
        inputs: &[Vec<u8>],
        config: &DispatchConfig,
    ) -> Result<Result<TracedRun, BackendError>, String> {
        catch_unwind(AssertUnwindSafe(|| {
            self.reference.run(program, inputs, config)
        }))
        .map_err(|panic| panic_text(&*panic))
    }

    /// A mismatch when the transformed program, run on the reference, does not give the original's
    /// outputs.
    fn compare_reference(
        &self,
        case: &GeneratedCase,
        original: &TracedRun,
        transformed: Result<Result<TracedRun, BackendError>, String>,
        look: &mut Look,
    ) -> Option<Verdict> {
        let run = match transformed {
            Err(panic) => {
                return Some(Verdict::Mismatch(format!(
                    "the reference panicked on the transformed program: {panic}"
                )));
            }
            Ok(Err(BackendError::Timeout(_))) => {
                return Some(Verdict::Mismatch(format!(
                    "the transformed program ran out of the reference's budget of {} operations, where the original ran {} (a loop that no longer ends?)",
                    self.options.fuel, original.ops_executed
                )));
            }
            Ok(Err(e)) => {
                return Some(Verdict::Mismatch(format!(
                    "the reference refused the transformed program where it ran the original: {e}"
                )));
            }
            Ok(Ok(run)) => run,
        };
        let sides = ["the original", "the transformed program"];
        let difference =
            first_difference_between(&case.program, &original.outputs, &run.outputs, sides);
        look.actual = Some((self.reference.id().to_owned(), run.outputs));
        let difference = difference?;
        let open = if run.indeterminate {
            " (the transformed program's result is one SEMANTICS.md leaves open: the pass made it so)"
        } else {
            ""
        };
        Some(Verdict::Mismatch(format!(
            "the transformed program differs from the original on the reference: {difference}{open}"
        )))
    }
}

/// A mismatch when `target` runs `transformed` to other outputs than the original's on the
/// reference; a refusal (a device limit, an unsupported construct) is no mismatch.
fn compare_target(
    target: &dyn VyreBackend,
    (case, config): (&GeneratedCase, &DispatchConfig),
    transformed: &Program,
    original: &TracedRun,
    look: &mut Look,
) -> Option<Verdict> {
    let id = target.id();
    let run = catch_unwind(AssertUnwindSafe(|| {
        target.dispatch(transformed, &case.inputs, config)
    }))
    .map_err(|panic| panic_text(&*panic));
    let outputs = match run {
        Err(panic) => {
            return Some(Verdict::Mismatch(format!(
                "`{id}` panicked on the transformed program: {panic}"
            )));
        }
        Ok(Err(e)) if refused(target, &e) => return None,
        Ok(Err(e)) => {
            return Some(Verdict::Mismatch(format!(
                "`{id}` failed on the transformed program where the reference ran the original: {e}"
            )));
        }
        Ok(Ok(outputs)) => outputs,
    };
    let on_target = format!("the transformed program on `{id}`");
    let sides = ["the original on the reference", on_target.as_str()];
    let difference = first_difference_between(&case.program, &original.outputs, &outputs, sides)?;
    look.actual = Some((id.to_owned(), outputs));
    Some(Verdict::Mismatch(difference))
}

/// What the pass changed of the program's interface (its buffers or workgroup size), which a pass
/// must keep: callers pass the same inputs and read the same outputs whatever ran.
fn interface_change(original: &Program, transformed: &Program) -> Option<String> {
    if original.workgroup_size != transformed.workgroup_size {
        return Some(format!(
            "the pass changed the workgroup size from {:?} to {:?}; a pass must keep the program's interface",
            original.workgroup_size, transformed.workgroup_size
        ));
    }
    if original.buffers != transformed.buffers {
        let names = |p: &Program| {
            p.buffers
                .iter()
                .map(|b| b.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        };
        return Some(format!(
            "the pass changed the buffer declarations (before: {}; after: {}); a pass must keep every buffer as declared, since callers pass the same inputs and read the same outputs",
            names(original),
            names(transformed)
        ));
    }
    None
}
