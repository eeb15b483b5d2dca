//! The validator: every rule a program must satisfy before a backend sees it.
//!
//! [`validate`] reports every error at once, each with a path to the offending part and a `Fix:`.
//! A backend only ever runs a program that passed it.

mod check;
mod errors;

pub use check::expr_type;
pub use errors::{ValidationError, ValidationErrorKind, ValidationErrors};

/// The deepest expression nesting accepted; deeper expressions are rejected (never a stack overflow).
pub const MAX_EXPR_DEPTH: usize = 512;

/// The deepest statement nesting (bodies inside bodies) accepted.
pub const MAX_NODE_DEPTH: usize = 128;

/// Checks `program` against every rule; returns all errors found.
///
/// # Errors
///
/// [`ValidationErrors`] with at least one error when the program is invalid.
pub fn validate(program: &crate::ir::Program) -> Result<(), ValidationErrors> {
    let errors = check::Checker::new(program).run();
    if errors.is_empty() {
        Ok(())
    } else {
        Err(ValidationErrors { errors })
    }
}
