//! The IR passes the backend runs before it lowers a program: [`Pipeline::standard`] unless
//! [`crate::AdapterOptions::with_passes`] or `VYRE_PASSES` ([`PASSES_ENV`]) turns them off.
//!
//! A backend runs each distinct program through its pipeline once, when the program becomes known
//! (`known.rs`); the analyses and every launch form are of the transformed program, and repeated
//! dispatches find it by the caller's program. The pipeline's key ([`Pipeline::key`]) is part of
//! the pipeline cache key and of the disk cache header, so code emitted under one set of passes is
//! never served under another.

use std::borrow::Cow;

use vyre_driver::BackendError;
use vyre_foundation::ir::Program;
use vyre_foundation::pass::Pipeline;
use vyre_foundation::validate::Validated;

/// The environment variable that turns the IR passes on or off when the options leave it open:
/// `on` (the default) or `off`.
pub const PASSES_ENV: &str = "VYRE_PASSES";

/// The pipeline in force: the options' choice, else `VYRE_PASSES`, else the standard passes.
///
/// # Errors
///
/// [`BackendError::InvalidConfig`] for a `VYRE_PASSES` that is neither `on` nor `off`.
pub(crate) fn in_force(chosen: Option<bool>) -> Result<Pipeline, BackendError> {
    let on = match chosen {
        Some(on) => on,
        None => match std::env::var(PASSES_ENV) {
            Err(_) => true,
            Ok(text) => parse_switch(&text)?,
        },
    };
    Ok(if on {
        Pipeline::standard()
    } else {
        Pipeline::empty()
    })
}

/// `on` or `off` (case-insensitive, surrounding space ignored).
fn parse_switch(text: &str) -> Result<bool, BackendError> {
    match text.trim().to_ascii_lowercase().as_str() {
        "on" => Ok(true),
        "off" => Ok(false),
        other => Err(BackendError::invalid_config(format!(
            "{PASSES_ENV}={other:?} is neither `on` nor `off`. Fix: set {PASSES_ENV}=on (the standard IR passes, the default) or {PASSES_ENV}=off, or unset it."
        ))),
    }
}

/// `program` after `pipeline`, borrowed when no pass changed it.
///
/// # Errors
///
/// [`BackendError::Compile`] naming a pass that broke its contract (a bug of that pass).
pub(crate) fn optimize<'p>(
    pipeline: &Pipeline,
    program: &Validated<'p>,
) -> Result<Cow<'p, Program>, BackendError> {
    Ok(pipeline.run_validated(program)?)
}

/// `program` as a backend with the default options runs it: after the pipeline in force
/// (`VYRE_PASSES`, else the standard passes). What the `emit_*` functions lower.
///
/// # Errors
///
/// [`BackendError::InvalidProgram`] for an invalid program; as [`in_force`] and [`optimize`].
pub(crate) fn as_run(program: &Program) -> Result<Cow<'_, Program>, BackendError> {
    let pipeline = in_force(None)?;
    let evidence = vyre_foundation::validate(program)?;
    optimize(&pipeline, &evidence)
}

#[cfg(test)]
mod tests {
    use super::parse_switch;

    #[test]
    fn the_switch_reads_on_and_off_and_refuses_anything_else_with_a_fix() {
        assert!(parse_switch(" ON ").unwrap());
        assert!(!parse_switch("off").unwrap());
        let err = parse_switch("maybe").unwrap_err().to_string();
        assert!(
            err.contains("VYRE_PASSES") && err.contains("Fix: "),
            "{err}"
        );
    }
}
