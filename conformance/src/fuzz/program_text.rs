//! [`ProgramJson`]: a program as a JSON value, for regression files.
//!
//! The value is the program's text form (`Display`, read back by `str::parse::<Program>`), one
//! string per line: a regression file reads like the program in a bug report, and the text form is
//! defined once, in vyre-foundation, instead of in a mirror of the IR kept here.

use serde::{Deserialize, Serialize};
use vyre_foundation::ir::Program;

/// A program in serialisable form: its text form, one string per line.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ProgramJson {
    lines: Vec<String>,
}

impl ProgramJson {
    /// The serialisable form of `program`.
    #[must_use]
    pub fn from_program(program: &Program) -> Self {
        ProgramJson {
            lines: program.to_string().lines().map(str::to_owned).collect(),
        }
    }

    /// The program this form describes.
    ///
    /// # Errors
    ///
    /// A message with the line and column where the text stops being a program, ending with a
    /// `Fix:`.
    pub fn to_program(&self) -> Result<Program, String> {
        self.lines
            .join("\n")
            .parse()
            .map_err(|e| format!("the program text, {e}"))
    }
}
