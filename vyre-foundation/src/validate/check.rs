//! The checker: one walk over the program that types every expression, resolves every name and
//! tracks which values and which control flow are uniform across a workgroup.

use crate::ir::{DataType, Program};
mod declarations;
mod expressions;
mod scope;
mod statements;
mod types;

use crate::validate::errors::{ValidationError, ValidationErrorKind as K};

pub(crate) use scope::is_identifier;
pub use types::expr_type;

/// What the checker knows about one declared variable.
#[derive(Clone, Copy, Debug)]
struct VarInfo {
    ty: DataType,
    /// False once any assignment may give invocations of one workgroup different values.
    uniform: bool,
    loop_var: bool,
}

/// A typed expression: its type and whether it is the same for every invocation of a workgroup.
#[derive(Clone, Copy, Debug)]
struct Typed {
    ty: DataType,
    uniform: bool,
}

pub(crate) struct Checker<'p> {
    program: &'p Program,
    /// Variables by declaration order; kept across fixpoint passes so uniformity facts accumulate.
    vars: Vec<VarInfo>,
    next_var: usize,
    scopes: Vec<Vec<(String, usize)>>,
    errors: Vec<ValidationError>,
    changed: bool,
    /// Set once an invocation may have returned while others go on.
    divergence: Option<&'static str>,
    path: String,
    /// Length of `path` at the root of the expression being checked, and whether that expression was
    /// already reported too deep (one report per expression, at its root).
    expr_root: usize,
    expr_too_deep: bool,
}

impl<'p> Checker<'p> {
    pub(crate) fn new(program: &'p Program) -> Self {
        Self {
            program,
            vars: Vec::new(),
            next_var: 0,
            scopes: Vec::new(),
            errors: Vec::new(),
            changed: false,
            divergence: None,
            path: String::new(),
            expr_root: 0,
            expr_too_deep: false,
        }
    }

    /// Runs passes until the uniformity facts are stable, then returns the last pass's errors.
    pub(crate) fn run(mut self) -> Vec<ValidationError> {
        loop {
            self.errors.clear();
            self.changed = false;
            self.next_var = 0;
            self.divergence = None;
            self.check_declarations();
            self.scopes.push(Vec::new());
            self.path.clear();
            self.path.push_str("body");
            self.check_body(&self.program.body, None, 0);
            self.scopes.clear();
            if !self.changed {
                return self.errors;
            }
        }
    }

    fn error(&mut self, kind: K) {
        self.errors.push(ValidationError {
            path: self.path.clone(),
            kind,
        });
    }

    fn error_at(&mut self, path: String, kind: K) {
        self.errors.push(ValidationError { path, kind });
    }
}
