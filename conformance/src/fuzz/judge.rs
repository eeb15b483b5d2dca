//! Running one case on the reference and on another backend, and judging the pair of results.

use std::panic::{AssertUnwindSafe, catch_unwind};

use vyre_driver::{BackendError, DispatchConfig, VyreBackend};
use vyre_foundation::ir::Features;
use vyre_foundation::ir::Program;

use crate::fuzz::compare::first_difference;
use crate::{ReferenceBackend, TracedRun};

/// The oracle side of a differential run: a backend that can say how much work a dispatch did and
/// whether its result is indeterminate. [`ReferenceBackend`] is the oracle; any [`VyreBackend`] can
/// stand in through [`Untraced`].
pub trait Oracle: Sync {
    /// A short identifier.
    fn id(&self) -> &str;

    /// Runs a dispatch, tracing the work done.
    ///
    /// # Errors
    ///
    /// What [`VyreBackend::dispatch`] returns.
    fn run(
        &self,
        program: &Program,
        inputs: &[Vec<u8>],
        config: &DispatchConfig,
    ) -> Result<TracedRun, BackendError>;

    /// The optional device features the oracle runs and, with subgroups, its subgroup size:
    /// [`run`](crate::fuzz::run) draws only programs both sides can run and, for subgroup
    /// programs, only when both have one subgroup size. `None` claims nothing: programs needing
    /// a feature are then not drawn.
    fn features(&self) -> Option<(Features, u32)> {
        None
    }
}

impl Oracle for ReferenceBackend {
    fn id(&self) -> &str {
        VyreBackend::id(self)
    }

    fn run(
        &self,
        program: &Program,
        inputs: &[Vec<u8>],
        config: &DispatchConfig,
    ) -> Result<TracedRun, BackendError> {
        self.dispatch_traced(program, inputs, config)
    }

    fn features(&self) -> Option<(Features, u32)> {
        Some((
            VyreBackend::capabilities(self).features(),
            self.subgroup_size(),
        ))
    }
}

/// Any backend as an oracle that reports no work and nothing indeterminate.
#[derive(Debug)]
pub struct Untraced<B>(pub B);

impl<B: VyreBackend> Oracle for Untraced<B> {
    fn id(&self) -> &str {
        self.0.id()
    }

    fn run(
        &self,
        program: &Program,
        inputs: &[Vec<u8>],
        config: &DispatchConfig,
    ) -> Result<TracedRun, BackendError> {
        let outputs = self.0.dispatch(program, inputs, config)?;
        Ok(TracedRun {
            outputs,
            ops_executed: 0,
            indeterminate: false,
        })
    }
}

/// Why a case was not compared.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SkipReason {
    /// The reference marked a result indeterminate (a NaN cast to an integer, a float overflow, ...).
    Indeterminate,
    /// The reference ran out of its execution budget.
    ReferenceBudget,
    /// The other backend refused for a reason that is not a wrong answer: a device limit, an
    /// unsupported construct, a timeout, a lost device or memory.
    OtherRefused,
    /// Both backends rejected the case.
    BothRejected,
}

/// The verdict on one case.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Both ran and agree; `ops` is what the reference executed.
    Agree {
        /// IR operations the reference executed.
        ops: u64,
    },
    /// Not compared.
    Skip(SkipReason),
    /// The backends disagree (or one panicked, or failed where the other succeeded).
    Mismatch(String),
}

/// Runs `program` on both backends and judges the results. Panics in either backend are caught and
/// reported as mismatches.
pub fn judge(
    reference: &dyn Oracle,
    other: &dyn VyreBackend,
    program: &Program,
    inputs: &[Vec<u8>],
    config: &DispatchConfig,
) -> Verdict {
    let (expected, actual) = run_both(reference, other, program, inputs, config);
    verdict_of(other, program, expected, actual)
}

/// A dispatch's result, or the message of the panic it ended in.
pub(crate) type Caught<T> = Result<Result<T, BackendError>, String>;

/// `program` on the reference, then on the other backend, each panic caught.
pub(crate) fn run_both(
    reference: &dyn Oracle,
    other: &dyn VyreBackend,
    program: &Program,
    inputs: &[Vec<u8>],
    config: &DispatchConfig,
) -> (Caught<TracedRun>, Caught<Vec<Vec<u8>>>) {
    let expected = catch_unwind(AssertUnwindSafe(|| reference.run(program, inputs, config)))
        .map_err(|panic| panic_text(&*panic));
    let actual = catch_unwind(AssertUnwindSafe(|| other.dispatch(program, inputs, config)))
        .map_err(|panic| panic_text(&*panic));
    (expected, actual)
}

/// The verdict on the two sides' results of `program`.
pub(crate) fn verdict_of(
    other: &dyn VyreBackend,
    program: &Program,
    expected: Caught<TracedRun>,
    actual: Caught<Vec<Vec<u8>>>,
) -> Verdict {
    let expected = match expected {
        Err(panic) => return Verdict::Mismatch(format!("the reference panicked: {panic}")),
        Ok(r) => r,
    };
    let actual = match actual {
        Err(panic) => {
            let id = other.id();
            return Verdict::Mismatch(format!("backend `{id}` panicked: {panic}"));
        }
        Ok(r) => r,
    };
    match (expected, actual) {
        (Err(BackendError::Timeout(_)), _) => Verdict::Skip(SkipReason::ReferenceBudget),
        (Ok(run), _) if run.indeterminate => Verdict::Skip(SkipReason::Indeterminate),
        (Err(_), Err(_)) => Verdict::Skip(SkipReason::BothRejected),
        (Err(e), Ok(_)) => Verdict::Mismatch(format!(
            "the reference failed but `{}` succeeded: {e}",
            other.id()
        )),
        (Ok(_), Err(e)) => other_failed(other, e),
        (Ok(run), Ok(outputs)) => match first_difference(program, &run.outputs, &outputs) {
            None => Verdict::Agree {
                ops: run.ops_executed,
            },
            Some(diff) => {
                Verdict::Mismatch(diff.replace("the other backend", &format!("`{}`", other.id())))
            }
        },
    }
}

fn other_failed(other: &dyn VyreBackend, error: BackendError) -> Verdict {
    if refused(other, &error) {
        return Verdict::Skip(SkipReason::OtherRefused);
    }
    Verdict::Mismatch(format!(
        "`{}` failed where the reference succeeded: {error}",
        other.id()
    ))
}

/// True when `error` of `backend` refuses a case for a reason that is not a wrong answer: a device
/// limit, an unsupported construct, a timeout, memory, or a lost device (which this recovers, so
/// the next case has a device).
pub(crate) fn refused(backend: &dyn VyreBackend, error: &BackendError) -> bool {
    match error {
        BackendError::DeviceLost(_) => {
            let _ = backend.try_recover();
            true
        }
        BackendError::LimitExceeded(_)
        | BackendError::Unsupported(_)
        | BackendError::Timeout(_)
        | BackendError::OutOfMemory(_) => true,
        _ => false,
    }
}

/// The message of a caught panic.
pub(crate) fn panic_text(panic: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = panic.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = panic.downcast_ref::<String>() {
        s.clone()
    } else {
        "a panic without a message".to_owned()
    }
}
