//! What a pass check found: its counts, and each mismatch shrunk, with both programs and both
//! sides' outputs.

use std::fmt::Write as _;
use std::time::Duration;

use vyre_foundation::ir::Program;

use crate::fuzz::{FuzzMismatch, input_lines, output_values};

/// One program the pass got wrong, shrunk.
#[derive(Clone, Debug)]
pub struct PassMismatch {
    /// The case as the fuzzer found and shrank it: `found.minimal` is the smallest original
    /// program (with its inputs and grid) on which the pass still goes wrong, `found.detail` what
    /// went wrong there.
    pub found: FuzzMismatch,
    /// What the pass made of `found.minimal`'s program; `None` when the pass panicked.
    pub transformed: Option<Program>,
    /// The original program's outputs on the reference, where it ran.
    pub expected: Option<Vec<Vec<u8>>>,
    /// The transformed program's outputs that differ from `expected`, with the backend that ran it
    /// (`None` when it did not run: it does not validate, or the pass changed the interface).
    pub actual: Option<(String, Vec<Vec<u8>>)>,
}

impl PassMismatch {
    /// The smallest original program found.
    #[must_use]
    pub fn program(&self) -> &Program {
        &self.found.minimal.program
    }

    /// A readable report: what went wrong, the original program and what the pass made of it (in
    /// text form), the inputs and grid, and the expected and actual outputs.
    #[must_use]
    pub fn report(&self) -> String {
        let minimal = &self.found.minimal;
        let mut out = format!(
            "case {}: {}\nthe program (shrunk):\n{}\n",
            self.found.case_index, self.found.detail, minimal.program
        );
        match &self.transformed {
            Some(t) => {
                let _ = write!(out, "what the pass made of it:\n{t}\n");
            }
            None => out.push_str("the pass panicked, so there is no transformed program\n"),
        }
        for line in input_lines(&minimal.program, &minimal.inputs) {
            let _ = writeln!(out, "{line}");
        }
        let _ = writeln!(out, "grid {:?}", minimal.config.grid);
        if let Some(expected) = &self.expected {
            out.push_str("expected (the original on the reference):\n");
            for line in output_values(&minimal.program, expected) {
                let _ = writeln!(out, "  {line}");
            }
        }
        if let Some((by, actual)) = &self.actual {
            let _ = writeln!(out, "actual (the transformed program on `{by}`):");
            for line in output_values(&minimal.program, actual) {
                let _ = writeln!(out, "  {line}");
            }
        }
        if let Some(saved) = &self.found.saved {
            let _ = writeln!(out, "saved as {}", saved.display());
        } else if let Some(e) = &self.found.save_error {
            let _ = writeln!(out, "{e}");
        }
        let _ = write!(
            out,
            "as generated (grid {:?}):\n{}",
            self.found.original.config.grid, self.found.original.program
        );
        out
    }
}

/// What a pass check found.
#[derive(Clone, Debug, Default)]
pub struct PassSummary {
    /// Programs drawn.
    pub programs: u64,
    /// Of those, how many the pass changed (returned another program for). Only these test the
    /// pass: a pass that changes nothing is trivially right.
    pub changed: u64,
    /// Changed programs not compared: the original's result is one SEMANTICS.md leaves open, or the
    /// reference ran out of its budget or refused it.
    pub skipped: u64,
    /// Of those, how many because the original's result is indeterminate.
    pub indeterminate: u64,
    /// Programs the pass got wrong, shrunk or not: at least `mismatches.len()`.
    pub mismatched: u64,
    /// The first [`FuzzOptions::max_mismatches`](crate::fuzz::FuzzOptions::max_mismatches)
    /// programs the pass got wrong, shrunk.
    pub mismatches: Vec<PassMismatch>,
    /// IR operations the reference executed running the originals.
    pub ops_executed: u64,
    /// How long the check took.
    pub elapsed: Duration,
}

impl PassSummary {
    /// Changed programs whose transformed form was run and agreed with the original: what the
    /// check actually proved.
    ///
    /// ```
    /// use vyre_conformance::fuzz::PassSummary;
    ///
    /// let summary = PassSummary { programs: 10, changed: 4, skipped: 1, ..Default::default() };
    /// assert_eq!(summary.compared(), 3);
    /// ```
    #[must_use]
    pub fn compared(&self) -> u64 {
        self.changed
            .saturating_sub(self.skipped)
            .saturating_sub(self.mismatched)
    }

    /// True when no program went wrong and at least one changed program was compared: a check
    /// that compared nothing proves nothing about the pass.
    #[must_use]
    pub fn proved_something(&self) -> bool {
        self.mismatched == 0 && self.compared() > 0
    }

    /// One paragraph: the counts, a warning when the pass changed no program (or none that could
    /// be compared), and each mismatch's [`PassMismatch::report`].
    ///
    /// ```
    /// use vyre_conformance::fuzz::PassSummary;
    ///
    /// let idle = PassSummary { programs: 100, ..Default::default() };
    /// assert!(idle.report().contains("changed none of the 100 programs"));
    /// ```
    #[must_use]
    pub fn report(&self) -> String {
        let mut out = format!(
            "{} programs, {} changed by the pass, {} of those compared, {} mismatched ({} skipped, {} of them indeterminate), {:.1} s",
            self.programs,
            self.changed,
            self.compared(),
            self.mismatched,
            self.skipped,
            self.indeterminate,
            self.elapsed.as_secs_f64()
        );
        if self.changed == 0 {
            let _ = write!(
                out,
                "\nthe pass changed none of the {} programs, so this run proves nothing about it. Fix: run more cases, or check that the pass acts on the generator's programs (constant subexpressions, repeated subexpressions, loops; `gen::Feature::PassShapes` draws them).",
                self.programs
            );
        } else if self.compared() == 0 && self.mismatched == 0 {
            out.push_str("\nno changed program could be compared (every one was skipped), so this run proves nothing about the pass. Fix: run more cases.");
        }
        for (i, m) in self.mismatches.iter().enumerate() {
            let _ = write!(out, "\n\nmismatch {}: {}", i + 1, m.report());
        }
        out
    }
}
