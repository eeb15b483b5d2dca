//! Running passes in order, validating between them.

use std::borrow::Cow;
use std::fmt;

use crate::ir::Program;
use crate::validate::ValidationErrors;

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
    /// [`PassError`] when `program` itself is invalid (`pass` is `None`), or when a pass returned a
    /// program that does not validate (the pass is named).
    pub fn run<'p>(&self, program: &'p Program) -> Result<Cow<'p, Program>, PassError> {
        let mut current: Cow<'p, Program> = Cow::Borrowed(program);
        // The pass whose output `current` is; `None` while it is still the input.
        let mut made_by: Option<&'static str> = None;
        // Whether `current` has been validated since it was made.
        let mut checked = false;
        let blame = |pass, errors| PassError { pass, errors };
        for pass in &self.passes {
            let outcome = {
                let validated =
                    crate::validate(&current).map_err(|errors| blame(made_by, errors))?;
                pass.run(&validated)
            };
            checked = true;
            if let Outcome::Changed(next) = outcome {
                current = Cow::Owned(next);
                made_by = Some(pass.name());
                checked = false;
            }
        }
        if !checked {
            crate::validate(&current).map_err(|errors| blame(made_by, errors))?;
        }
        Ok(current)
    }
}

/// A pipeline could not run: its input is invalid, or a pass produced an invalid program.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PassError {
    /// The pass whose output failed validation; `None` when the input program was invalid.
    pub pass: Option<&'static str>,
    /// What the validator found.
    pub errors: ValidationErrors,
}

impl fmt::Display for PassError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.pass {
            None => write!(f, "{}", self.errors),
            Some(pass) => write!(
                f,
                "the IR pass `{pass}` produced an invalid program: {}. Fix: this is a bug in the pass `{pass}`; turn it off (a pipeline without it) and report the program.",
                self.errors
            ),
        }
    }
}

impl std::error::Error for PassError {}
