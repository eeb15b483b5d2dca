//! A [`Pass`] or a [`Pipeline`] as the plain function `check_pass` takes.

use vyre_foundation::ir::Program;
use vyre_foundation::pass::{Pass, Pipeline};

/// `program` after `pass`: validated, run, and [`Outcome::into_program`](vyre_foundation::pass::Outcome::into_program).
/// A program that does not validate is returned as it is (a pass only ever sees validated
/// programs, and `check_pass` only draws valid ones).
///
/// ```
/// use vyre_conformance::fuzz::{self, FuzzOptions};
/// use vyre_foundation::pass::{Outcome, Pass};
/// use vyre_foundation::validate::Validated;
///
/// #[derive(Debug)]
/// struct Nothing;
///
/// impl Pass for Nothing {
///     fn name(&self) -> &'static str {
///         "nothing"
///     }
///     fn run(&self, _program: &Validated<'_>) -> Outcome {
///         Outcome::Unchanged
///     }
/// }
///
/// let options = FuzzOptions { cases: 10, ..FuzzOptions::default() };
/// let summary = fuzz::check_pass(|p| fuzz::apply_pass(&Nothing, p), &options);
/// assert_eq!(summary.changed, 0);
/// ```
#[must_use]
pub fn apply_pass(pass: &dyn Pass, program: &Program) -> Program {
    match vyre_foundation::validate(program) {
        Ok(validated) => pass.run(&validated).into_program(program),
        Err(_) => program.clone(),
    }
}

/// `program` after every pass of `pipeline` in order, as [`Pipeline::run`] runs them, except that a
/// pass's output that does not validate is returned as it is (where `Pipeline::run` returns an
/// error), so that `check_pass` reports the invalid program with the validator's errors.
#[must_use]
pub fn apply_pipeline(pipeline: &Pipeline, program: &Program) -> Program {
    let mut current = program.clone();
    for pass in pipeline.passes() {
        let next = match vyre_foundation::validate(&current) {
            Ok(validated) => pass.run(&validated).into_program(&current),
            Err(_) => return current,
        };
        current = next;
    }
    current
}
