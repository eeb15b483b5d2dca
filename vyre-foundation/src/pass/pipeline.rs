//! Running passes in order, validating between them.

use std::borrow::Cow;
use std::fmt;

use crate::ir::Program;
use crate::validate::{Evidence, Validated, ValidationErrors};

use super::{Outcome, Pass, builtin};

/// Passes run in order; see the [module docs](super).
#[derive(Debug, Default)]
pub struct Pipeline {
    passes: Vec<Box<dyn Pass>>,
}

impl Pipeline {
    /// No passes: [`Pipeline::run`] returns the program as it is.
    #[must_use]
    pub fn empty() -> Self {
        Self { passes: Vec::new() }
    }

    /// The built-in passes ([`super::builtin`]), the pipeline backends run by default.
    #[must_use]
    pub fn standard() -> Self {
        Self { passes: builtin() }
    }

    /// This pipeline with `pass` added at the end.
    #[must_use]
    pub fn with(mut self, pass: impl Pass + 'static) -> Self {
        self.passes.push(Box::new(pass));
        self
    }

    /// This pipeline with `pass` added at the end.
    #[must_use]
    pub fn with_boxed(mut self, pass: Box<dyn Pass>) -> Self {
        self.passes.push(pass);
        self
    }

    /// The passes, in order.
    #[must_use]
    pub fn passes(&self) -> &[Box<dyn Pass>] {
        &self.passes
    }

    /// True when the pipeline has no passes.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.passes.is_empty()
    }

    /// The passes' names and versions, `name@version` joined by `,` (empty for no passes): the part
    /// of a cache key that says which transformations produced the code.
    #[must_use]
    pub fn key(&self) -> String {
        let mut key = String::new();
        for (i, pass) in self.passes.iter().enumerate() {
            if i > 0 {
                key.push(',');
            }
            key.push_str(pass.name());
            key.push('@');
            key.push_str(&pass.version().to_string());
        }
        key
    }

    /// Runs every pass over `program` in order and returns the result; borrowed when no pass
    /// changed anything.
    ///
    /// # Errors
    ///
    /// [`PassError::InvalidInput`] when `program` itself is invalid; [`PassError::InvalidOutput`]
    /// or [`PassError::ChangedInterface`] naming the pass whose output broke the contract.
    pub fn run<'p>(&self, program: &'p Program) -> Result<Cow<'p, Program>, PassError> {
        let validated = crate::validate(program).map_err(PassError::InvalidInput)?;
        self.run_validated(&validated)
    }

    /// [`Pipeline::run`] of a program the caller has validated already (its facts serve the first
    /// pass). Every changed program is validated again, the result included.
    ///
    /// # Errors
    ///
    /// [`PassError::InvalidOutput`] or [`PassError::ChangedInterface`] naming the pass whose output
    /// broke the contract.
    pub fn run_validated<'p>(
        &self,
        program: &Validated<'p>,
    ) -> Result<Cow<'p, Program>, PassError> {
        Ok(match self.run_to_evidence(program)? {
            None => Cow::Borrowed(program.program()),
            Some(evidence) => Cow::Owned(evidence.program().clone()),
        })
    }

    /// [`Pipeline::run_validated`], returning what validation proved of the result when a pass
    /// changed the program (`None`: nothing changed): a backend that lowers the result needs those
    /// facts, and gets them from the check the pipeline makes anyway.
    ///
    /// # Errors
    ///
    /// As [`Pipeline::run_validated`].
    pub fn run_to_evidence(&self, program: &Validated<'_>) -> Result<Option<Evidence>, PassError> {
        let original = program.program();
        // The latest changed program and the pass that made it; `None` while nothing changed.
        let mut current: Option<(Program, &'static str)> = None;
        // The passes (name and version) that left the program unchanged since its last change: a
        // pass is deterministic, so running one of them again on the same program would change
        // nothing again.
        let mut idle: Vec<(&'static str, u32)> = Vec::with_capacity(self.passes.len());
        let mut passes = self.passes.iter();
        loop {
            // One validation per changed program: the passes after a change share it, and so does
            // the result when none of them changes it again.
            let changed = {
                let revalidated;
                let validated = match &current {
                    None => program,
                    Some((changed, made_by)) => {
                        revalidated = crate::validate(changed).map_err(|e| blame(made_by, e))?;
                        &revalidated
                    }
                };
                match next_change(&mut passes, validated, &mut idle) {
                    Some(change) => change,
                    None => return Ok(current.as_ref().map(|_| validated.to_evidence())),
                }
            };
            check_interface(changed.1, original, &changed.0)?;
            current = Some(changed);
            idle.clear();
        }
    }
}

/// Runs the passes left in `passes` on `validated` until one changes it: that pass's program and
/// name, or `None` when none did. Skips and records in `idle` the passes that left it unchanged.
fn next_change<'a>(
    passes: &mut std::slice::Iter<'a, Box<dyn Pass>>,
    validated: &Validated<'_>,
    idle: &mut Vec<(&'static str, u32)>,
) -> Option<(Program, &'static str)> {
    for pass in passes {
        let id = (pass.name(), pass.version());
        if idle.contains(&id) {
            continue;
        }
        match pass.run(validated) {
            Outcome::Changed(next) => return Some((next, pass.name())),
            Outcome::Unchanged => idle.push(id),
        }
    }
    None
}

/// The error for a program made by `pass` that failed validation.
fn blame(pass: &'static str, errors: ValidationErrors) -> PassError {
    PassError::InvalidOutput { pass, errors }
}

/// A pass keeps what callers bind and launch: the buffers, exactly, and the workgroup size.
fn check_interface(pass: &'static str, before: &Program, after: &Program) -> Result<(), PassError> {
    let what = if before.buffers != after.buffers {
        "buffers"
    } else if before.workgroup_size != after.workgroup_size {
        "workgroup size"
    } else {
        return Ok(());
    };
    Err(PassError::ChangedInterface { pass, what })
}

/// A pipeline could not run: its input is invalid, or a pass broke its contract.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum PassError {
    /// The program given to the pipeline does not validate.
    InvalidInput(ValidationErrors),
    /// `pass` returned a program that does not validate.
    InvalidOutput {
        /// The pass's name.
        pass: &'static str,
        /// What the validator found.
        errors: ValidationErrors,
    },
    /// `pass` changed the program's buffers or workgroup size, which callers bind and launch.
    ChangedInterface {
        /// The pass's name.
        pass: &'static str,
        /// What it changed.
        what: &'static str,
    },
}

impl fmt::Display for PassError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::InvalidInput(errors) => write!(f, "{errors}"),
            Self::InvalidOutput { pass, errors } => write!(
                f,
                "the IR pass `{pass}` produced an invalid program: {errors}. Fix: this is a bug in the pass `{pass}`; run without it (a pipeline that leaves it out) and report the program."
            ),
            Self::ChangedInterface { pass, what } => write!(
                f,
                "the IR pass `{pass}` changed the program's {what}, which its callers bind and launch. Fix: this is a bug in the pass `{pass}`; a pass must keep the buffers and the workgroup size as they are; run without it and report the program."
            ),
        }
    }
}

impl std::error::Error for PassError {}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;

    use super::{PassError, Pipeline};
    use crate::ir::{BufferDecl, DataType, Expr, Node, Program};
    use crate::pass::{Outcome, Pass};
    use crate::validate::Validated;

    fn program() -> Program {
        Program::new(
            vec![BufferDecl::output("o", 0, DataType::U32).with_count(4)],
            [64, 1, 1],
            vec![Node::store("o", Expr::gid_x(), Expr::u32(1))],
        )
    }

    /// Replaces the program with `make(program)`.
    #[derive(Debug)]
    struct Replace(&'static str, fn(&Program) -> Program);

    impl Pass for Replace {
        fn name(&self) -> &'static str {
            self.0
        }
        fn run(&self, program: &Validated<'_>) -> Outcome {
            Outcome::Changed((self.1)(program.program()))
        }
    }

    fn store_two(p: &Program) -> Program {
        let mut p = p.clone();
        p.body = vec![Node::store("o", Expr::gid_x(), Expr::u32(2))];
        p
    }

    #[test]
    fn an_empty_pipeline_borrows_the_program_and_has_an_empty_key() {
        let p = program();
        let pipeline = Pipeline::empty();
        assert!(matches!(pipeline.run(&p), Ok(Cow::Borrowed(q)) if *q == p));
        assert_eq!(pipeline.key(), "");
    }

    #[test]
    fn passes_run_in_order_and_the_key_lists_them() {
        let p = program();
        let pipeline = Pipeline::empty()
            .with(Replace("two", store_two))
            .with(Replace("same", Program::clone));
        assert_eq!(*pipeline.run(&p).unwrap(), store_two(&p));
        assert_eq!(pipeline.key(), "two@1,same@1");
    }

    /// Counts its runs and changes nothing.
    #[derive(Debug, Default)]
    struct Count(std::sync::atomic::AtomicUsize);

    impl Pass for Count {
        fn name(&self) -> &'static str {
            "count"
        }
        fn run(&self, _: &Validated<'_>) -> Outcome {
            self.0.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            Outcome::Unchanged
        }
    }

    #[test]
    fn a_pass_that_left_the_program_unchanged_is_not_run_again_until_it_changes() {
        use std::sync::Arc;
        #[derive(Debug)]
        struct Shared(Arc<Count>);
        impl Pass for Shared {
            fn name(&self) -> &'static str {
                self.0.name()
            }
            fn run(&self, program: &Validated<'_>) -> Outcome {
                self.0.run(program)
            }
        }
        let count = Arc::new(Count::default());
        let pipeline = Pipeline::empty()
            .with(Shared(Arc::clone(&count)))
            .with(Shared(Arc::clone(&count)))
            .with(Replace("two", store_two))
            .with(Shared(Arc::clone(&count)));
        assert_eq!(*pipeline.run(&program()).unwrap(), store_two(&program()));
        // Once on the input (the second run skipped), once after `two` changed it.
        assert_eq!(count.0.load(std::sync::atomic::Ordering::Relaxed), 2);
    }

    #[test]
    fn an_invalid_input_is_reported_as_the_input() {
        let mut p = program();
        p.body = vec![Node::store("missing", Expr::u32(0), Expr::u32(1))];
        let err = Pipeline::empty().run(&p).unwrap_err();
        assert!(matches!(err, PassError::InvalidInput(_)), "{err}");
    }

    #[test]
    fn a_pass_whose_output_is_invalid_is_named() {
        fn broken(p: &Program) -> Program {
            let mut p = p.clone();
            p.body = vec![Node::store("o", Expr::gid_x(), Expr::var("undeclared"))];
            p
        }
        let pipeline = Pipeline::empty()
            .with(Replace("two", store_two))
            .with(Replace("broken", broken))
            .with(Replace("same", Program::clone));
        let err = pipeline.run(&program()).unwrap_err();
        assert!(
            matches!(err, PassError::InvalidOutput { pass: "broken", .. }),
            "{err}"
        );
        assert!(err.to_string().contains("Fix: "), "{err}");
    }

    #[test]
    fn a_pass_that_changes_the_buffers_or_the_workgroup_size_is_named() {
        fn wider(p: &Program) -> Program {
            let mut p = p.clone();
            p.workgroup_size = [32, 1, 1];
            p
        }
        fn longer(p: &Program) -> Program {
            let mut p = p.clone();
            p.buffers[0] = p.buffers[0].clone().with_count(8);
            p
        }
        for (name, make, what) in [
            ("wider", wider as fn(&Program) -> Program, "workgroup size"),
            ("longer", longer, "buffers"),
        ] {
            let err = Pipeline::empty()
                .with(Replace(name, make))
                .run(&program())
                .unwrap_err();
            assert_eq!(err, PassError::ChangedInterface { pass: name, what });
        }
    }
}
