//! `vyre-conform replay`: saved regression cases run again on a backend against the reference,
//! each printed with its program, inputs, both sides' outputs and every element where they differ.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;
use vyre::{Choice, VyreBackend, select};
use vyre_conformance::fuzz::{self, Regression, Replayed, SkipReason, Verdict};

/// Options of `replay`.
#[derive(Args, Debug)]
pub(crate) struct ReplayArgs {
    /// Regression case files: the `fuzz-*.json` that `fuzz --save` writes and
    /// `conformance/regressions/` holds.
    #[arg(value_name = "FILE", required = true)]
    pub(crate) files: Vec<PathBuf>,
    /// The backend run against the reference (reference, wgpu).
    #[arg(long, value_name = "NAME", default_value = "wgpu")]
    pub(crate) backend: String,
}

pub(crate) fn run(args: &ReplayArgs) -> ExitCode {
    // Every file is read before anything runs: a typo in the fifth path should not wait for four
    // replays.
    let mut cases = Vec::with_capacity(args.files.len());
    for path in &args.files {
        match load(path) {
            Ok(regression) => cases.push((path, regression)),
            Err(message) => {
                eprintln!("vyre-conform replay: {message}");
                return ExitCode::from(2);
            }
        }
    }
    let picked = match select(Choice::Named(&args.backend)) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("vyre-conform replay: {e}");
            return ExitCode::from(2);
        }
    };
    eprintln!("vyre-conform replay: {}", picked.reason);
    let backend = picked.backend;
    // At the backend's subgroup size, as `fuzz` compares.
    let reference = vyre_conformance::report::reference_for(backend.as_ref());
    let (mut agreed, mut mismatched, mut skipped) = (0, 0, 0);
    for (path, regression) in &cases {
        let replayed = fuzz::replay_outputs(regression, &reference, backend.as_ref());
        print_case(path, regression, &replayed, backend.as_ref());
        match replayed.verdict {
            Verdict::Agree { .. } => agreed += 1,
            Verdict::Skip(_) => skipped += 1,
            Verdict::Mismatch(_) => mismatched += 1,
        }
    }
    say!(
        "\nreplay on {}: {} cases, {agreed} agree, {mismatched} mismatch, {skipped} not compared",
        backend.id(),
        cases.len()
    );
    if mismatched > 0 {
        return ExitCode::from(1);
    }
    if agreed == 0 {
        eprintln!(
            "vyre-conform replay: none of the {} cases was compared (each was refused by the backend or indeterminate on the reference), so nothing was checked. Fix: run `vyre-conform check --backend {}` to see what it refuses.",
            cases.len(),
            args.backend
        );
        return ExitCode::from(1);
    }
    ExitCode::SUCCESS
}

/// The case saved in `path`, or a message ending in a `Fix:`.
fn load(path: &Path) -> Result<Regression, String> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        format!(
            "{}: cannot read it ({e}). Fix: pass the path of a regression case file (`fuzz --save DIR` writes them; `conformance/regressions/` holds the checked-in ones).",
            path.display()
        )
    })?;
    Regression::from_json(&text).map_err(|e| format!("{}: {e}", path.display()))
}

fn print_case(
    path: &Path,
    regression: &Regression,
    replayed: &Replayed,
    backend: &dyn VyreBackend,
) {
    let case = &regression.case;
    say!("== {}", path.display());
    say!("note: {}", regression.note);
    say!("{}", case.program);
    match case.config.grid {
        Some(grid) => say!("grid {grid:?}"),
        None => say!("grid derived from the buffers (SEMANTICS.md section 1)"),
    }
    for line in fuzz::input_lines(&case.program, &case.inputs) {
        say!("{line}");
    }
    let id = backend.id();
    let sides = [
        ("expected (the reference)".to_owned(), &replayed.expected),
        (format!("actual ({id})"), &replayed.actual),
    ];
    for (side, outputs) in sides {
        match outputs {
            Ok(outputs) => {
                say!("{side}:");
                for line in fuzz::output_values(&case.program, outputs) {
                    say!("  {line}");
                }
            }
            Err(said) => say!("{side}: no outputs: {said}"),
        }
    }
    if let (Ok(expected), Ok(actual)) = (&replayed.expected, &replayed.actual) {
        let names = ["expected", "actual"];
        for line in fuzz::differences(&case.program, expected, actual, names) {
            say!("differs: {line}");
        }
    }
    let verdict = match &replayed.verdict {
        Verdict::Agree { .. } => "AGREE".to_owned(),
        Verdict::Mismatch(detail) => format!("MISMATCH: {detail}"),
        Verdict::Skip(reason) => format!("NOT COMPARED: {}", skip_reason(*reason)),
    };
    say!("verdict: {verdict}\n");
}

fn skip_reason(reason: SkipReason) -> &'static str {
    match reason {
        SkipReason::Indeterminate => {
            "the reference marks a result indeterminate (SEMANTICS.md leaves it open)"
        }
        SkipReason::ReferenceBudget => "the reference ran out of fuel",
        SkipReason::OtherRefused => {
            "the backend refused it (a device limit, an unsupported construct, a timeout)"
        }
        SkipReason::BothRejected => "both sides rejected it",
    }
}
