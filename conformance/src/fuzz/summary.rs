//! What a fuzz run found: its counts, and each mismatch shrunk.

use std::path::PathBuf;
use std::time::Duration;

use crate::r#gen::{GeneratedCase, Recipe};

/// One disagreement, shrunk.
#[derive(Clone, Debug)]
pub struct FuzzMismatch {
    /// Which case of the seed found it.
    pub case_index: u64,
    /// The difference the minimal case shows.
    pub detail: String,
    /// The case as generated.
    pub original: GeneratedCase,
    /// The smallest failing case found.
    pub minimal: GeneratedCase,
    /// The shrunk recipe.
    pub recipe: Recipe,
    /// Where the minimal case was saved.
    pub saved: Option<PathBuf>,
    /// Why it was not, when a regressions directory was given and the save failed.
    pub save_error: Option<String>,
    /// Metamorphic runs ([`metamorphic::run`](crate::fuzz::metamorphic::run)): the rewritten program that disagreed with
    /// `minimal` on the same backend. `None` for differential runs.
    pub variant: Option<MismatchVariant>,
}

/// The variant of a metamorphic mismatch: `minimal` rewritten, which the backend ran to other
/// outputs than `minimal` itself.
#[derive(Clone, Debug)]
pub struct MismatchVariant {
    /// The rewrite that made it ([`metamorphic::Rewrite::name`](crate::fuzz::metamorphic::Rewrite::name)).
    pub rewrite: String,
    /// The rewritten case (with the opaque zero's buffer and input, where the rewrite adds one).
    pub case: GeneratedCase,
    /// Where it was saved, next to `minimal`.
    pub saved: Option<PathBuf>,
}

impl FuzzMismatch {
    /// A readable report: the difference, the minimal program in text form, its inputs and grid, and
    /// the program as generated.
    #[must_use]
    pub fn report(&self) -> String {
        let inputs: String = input_lines(&self.minimal.program, &self.minimal.inputs)
            .iter()
            .map(|line| format!("\n{line}"))
            .collect();
        let saved = self
            .saved
            .as_ref()
            .map(|p| format!("\nsaved as {}", p.display()))
            .or_else(|| self.save_error.as_ref().map(|e| format!("\n{e}")));
        let variant = self.variant.as_ref().map(|v| {
            let saved = v
                .saved
                .as_ref()
                .map(|p| format!("\nsaved as {}", p.display()));
            format!(
                "\nthe variant (rewrite `{}`) that disagreed with it:\n{}{}",
                v.rewrite,
                v.case.program,
                saved.unwrap_or_default()
            )
        });
        format!(
            "case {}: {}\n{}{inputs}\ngrid {:?}{}{}\nas generated (grid {:?}):\n{}",
            self.case_index,
            self.detail,
            self.minimal.program,
            self.minimal.config.grid,
            saved.unwrap_or_default(),
            variant.unwrap_or_default(),
            self.original.config.grid,
            self.original.program,
        )
    }
}

/// One line per input of `program`: `input \`in1\` (8 bytes): 01000000 02000000`, the bytes in
/// hex in memory order, four to a group, the first 256 of each (a saved regression holds them
/// all).
#[must_use]
pub fn input_lines(program: &vyre_foundation::ir::Program, inputs: &[Vec<u8>]) -> Vec<String> {
    let names = program.input_buffers().map(|b| b.name.as_str());
    inputs
        .iter()
        .zip(names.chain(std::iter::repeat("?")))
        .map(|(bytes, name)| {
            format!(
                "input `{name}` ({} bytes): {}",
                bytes.len(),
                input_hex(bytes)
            )
        })
        .collect()
}

/// An input's bytes as hex, in memory order, four bytes to a group; past 256 bytes cut short (the
/// saved regression holds them all).
fn input_hex(bytes: &[u8]) -> String {
    const SHOWN: usize = 256;
    let groups: Vec<String> = bytes[..bytes.len().min(SHOWN)]
        .chunks(4)
        .map(|g| g.iter().map(|b| format!("{b:02x}")).collect())
        .collect();
    let mut text = groups.join(" ");
    if bytes.len() > SHOWN {
        text.push_str(&format!(" … ({} more bytes)", bytes.len() - SHOWN));
    }
    text
}

/// What a run found.
#[derive(Clone, Debug, Default)]
pub struct FuzzSummary {
    /// Programs run.
    pub programs: u64,
    /// IR operations the reference executed in all.
    pub ops_executed: u64,
    /// Disagreements, shrunk: the first [`FuzzOptions::max_mismatches`](crate::fuzz::FuzzOptions::max_mismatches) of them.
    pub mismatches: Vec<FuzzMismatch>,
    /// Programs that disagreed, shrunk or not: at least `mismatches.len()`.
    pub mismatched: u64,
    /// Programs not compared.
    pub skipped: u64,
    /// Of those, how many because the reference marked them indeterminate.
    pub indeterminate: u64,
    /// How long the run took.
    pub elapsed: Duration,
    /// Of the programs compared, how many declare a matrix tile.
    pub compared_with_tiles: u64,
    /// Of the programs compared, how many declare a private array.
    pub compared_with_arrays: u64,
}

impl FuzzSummary {
    /// Programs both sides ran and agreed on: neither skipped nor mismatched. A run that compared
    /// nothing checked nothing, whatever its mismatch count (a backend that refuses every program
    /// has no mismatch), and `vyre-conform fuzz` fails it.
    ///
    /// ```
    /// use vyre_conformance::fuzz::FuzzSummary;
    ///
    /// let refused = FuzzSummary { programs: 10, skipped: 10, ..Default::default() };
    /// assert_eq!(refused.compared(), 0);
    /// let wrong = FuzzSummary { programs: 10, skipped: 1, mismatched: 9, ..Default::default() };
    /// assert_eq!(wrong.compared(), 0);
    /// ```
    #[must_use]
    pub fn compared(&self) -> u64 {
        self.programs
            .saturating_sub(self.skipped)
            .saturating_sub(self.mismatched)
    }
}
