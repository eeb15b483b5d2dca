//! The validator: every rule a program must satisfy before a backend sees it.
//!
//! [`validate()`] reports every error at once, each with a path to the offending part and a `Fix:`.
//! A backend only ever runs a program that passed it.

mod attach;
mod check;
mod errors;
mod evidence;
mod limits;

pub use attach::{Evidence, StaleEvidence};
pub use check::expr_type;
pub use errors::{ValidationError, ValidationErrorKind, ValidationErrors};
pub use evidence::{
    BufferId, BufferUse, ExprFacts, MissingEvidence, NodeFacts, Resolved, Validated, VarFacts,
    VarId,
};

pub use limits::{MAX_EXPR_DEPTH, MAX_NODE_DEPTH};

/// Checks `program` against every rule; returns what it proved, or all errors found.
///
/// The [`Validated`] form borrows the program and carries each expression's type, the variable and
/// buffer every name resolves to, and the uniformity facts barriers need; backends compile from it.
///
/// # Errors
///
/// [`ValidationErrors`] with at least one error when the program is invalid.
pub fn validate(program: &crate::ir::Program) -> Result<Validated<'_>, ValidationErrors> {
    let (errors, evidence) = check::Checker::new(program).run();
    if errors.is_empty() {
        Ok(evidence)
    } else {
        Err(ValidationErrors { errors })
    }
}

/// [`validate()`], except that barriers in non-uniform control flow are accepted.
///
/// For tests of a backend's own defences only (the reference interpreter detects invocations of one
/// workgroup that reach different barriers, which no validated program can do): such a program
/// has no meaning under `SEMANTICS.md`, and no backend may be given one outside such a test.
///
/// # Errors
///
/// [`ValidationErrors`] for every other rule broken.
#[doc(hidden)]
pub fn validate_allowing_divergent_barriers(
    program: &crate::ir::Program,
) -> Result<Validated<'_>, ValidationErrors> {
    let (mut errors, evidence) = check::Checker::new(program).run();
    errors.retain(|e| !matches!(e.kind, ValidationErrorKind::NonUniformBarrier { .. }));
    if errors.is_empty() {
        Ok(evidence)
    } else {
        Err(ValidationErrors { errors })
    }
}

/// Checks only the nesting limits, without recursion, and returns [`validate()`]'s errors when they are
/// passed.
///
/// The IR's derived `Hash`, `PartialEq` and `Clone` recurse once per level, so hashing a program nested
/// 100 000 deep (to look it up in a cache) overflows the stack. Backends call this before they
/// fingerprint a program they have not validated yet; it costs one iterative walk.
///
/// # Errors
///
/// [`ValidationErrors`] when statements nest deeper than [`MAX_NODE_DEPTH`] or expressions deeper than
/// [`MAX_EXPR_DEPTH`].
pub fn validate_depth(program: &crate::ir::Program) -> Result<(), ValidationErrors> {
    if within_depth_limits(program) {
        Ok(())
    } else {
        validate(program).map(drop)
    }
}

/// The validator's depth rules, walked with explicit stacks: a body at depth `d` holds nodes whose
/// bodies are at `d + 1` (the entry body is at 0); an expression root is at 0.
fn within_depth_limits(program: &crate::ir::Program) -> bool {
    let mut bodies: Vec<(&[crate::ir::Node], usize)> = vec![(&program.body, 0)];
    let mut exprs: Vec<(&crate::ir::Expr, usize)> = Vec::new();
    while let Some((body, depth)) = bodies.pop() {
        if depth > MAX_NODE_DEPTH {
            return false;
        }
        for node in body {
            exprs.extend(node.exprs().map(|e| (e, 0)));
            while let Some((expr, d)) = exprs.pop() {
                if d >= MAX_EXPR_DEPTH {
                    return false;
                }
                exprs.extend(expr.children().map(|c| (c, d + 1)));
            }
            bodies.extend(node.bodies().map(|b| (b.as_slice(), depth + 1)));
        }
    }
    true
}
