//! `vyre-conform`: runs the conformance catalogue on every backend available here (or one, with
//! `--backend`), prints an area x backend table and the first failures in full, optionally writes the
//! reports as JSON, and exits non-zero on any failure. `fuzz` runs the differential fuzzer (or, with
//! `--metamorphic`, a backend against itself; with `--datafusion`, the backend behind DataFusion
//! queries), `replay` runs saved regression cases again and shows
//! where they differ, and `list-adapters` says which GPU adapters vyre sees and which one it takes.
//!
//! Arguments are parsed by clap; a usage error is one line on stderr and exit code 2. Adding a
//! subcommand means adding a [`Command`] variant with its own arguments and an arm in [`main`].

#![allow(clippy::print_stdout)]

/// `println!` that ends the program with exit code 2 and a line on stderr when standard output
/// cannot be written (a pipe whose reader left, as in `| head -1`; a full device), where
/// `println!` panics.
macro_rules! say {
    () => {
        $crate::stdout_line(format_args!(""))
    };
    ($($arg:tt)*) => {
        $crate::stdout_line(format_args!($($arg)*))
    };
}

mod adapters;
mod check;
mod datafusion;
mod fuzz;
mod pass;
mod progress;
mod replay;

use std::process::ExitCode;

use clap::{CommandFactory, Parser, Subcommand};

/// The exit codes, shown under every `--help`.
const EXIT_CODES: &str = "\
Exit codes:
  0  everything asked for ran and passed (for list-adapters: the listing was printed)
  1  a case failed (check), or a mismatch was found, or programs ran but none was compared (fuzz),
     or a replayed case disagrees or none was compared (replay)
  2  a usage error, or a backend that was asked for (--backend, VYRE_BACKEND, or wgpu under
     VYRE_REQUIRE_GPU=1) is unavailable, or a report could not be written, or a regression file
     could not be read (replay)

Environment:
  VYRE_BACKEND=NAME        check only this backend when --backend is absent
  VYRE_WGPU_ADAPTER=TEXT   use the wgpu adapter whose name contains TEXT (see list-adapters)
  VYRE_REQUIRE_GPU=1       a missing wgpu adapter fails the run instead of being NOT CHECKED
  VYRE_WORKAROUNDS=SET     the wgpu driver workarounds to apply: all, none, or names separated
                           by commas (list-adapters shows those in force)";

/// Runs the vyre conformance catalogue on every backend available here: the reference backend
/// always, wgpu when an adapter exists (a missing one is listed as NOT CHECKED under the table).
#[derive(Debug, Parser)]
#[command(
    name = "vyre-conform",
    version,
    after_help = EXIT_CODES,
    args_conflicts_with_subcommands = true,
    subcommand_precedence_over_arg = true
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    /// The options of `check`, which runs when no subcommand is given.
    #[command(flatten)]
    check: check::CheckArgs,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run the conformance catalogue (the default when no subcommand is given).
    #[command(after_help = EXIT_CODES)]
    Check(check::CheckArgs),
    /// Run random valid programs on the reference and on another backend (with --metamorphic:
    /// programs and rewrites of them on one backend; with --pass NAME: programs and what the IR
    /// pass NAME makes of them; with --datafusion: programs run as DataFusion functions on the
    /// backend); mismatches are shrunk, printed, and saved as regression cases.
    #[command(after_help = EXIT_CODES)]
    Fuzz(fuzz::FuzzArgs),
    /// Run saved regression cases (fuzz --save, conformance/regressions/) on a backend against the
    /// reference, printing each program, its inputs, both sides' outputs, every element where they
    /// differ, and the verdict.
    #[command(after_help = EXIT_CODES)]
    Replay(replay::ReplayArgs),
    /// List every adapter wgpu sees, which one vyre's automatic choice takes, and why.
    #[command(after_help = EXIT_CODES)]
    ListAdapters(adapters::ListArgs),
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(error) => return usage_error(&error),
    };
    match cli.command {
        None => check::run(&cli.check),
        Some(Command::Check(args)) => check::run(&args),
        Some(Command::Fuzz(args)) => match &args.pass {
            Some(name) => pass::run(&args, name),
            None => fuzz::run(&args),
        },
        Some(Command::Replay(args)) => replay::run(&args),
        Some(Command::ListAdapters(args)) => adapters::run(&args),
    }
}

/// Writes one line to standard output; see [`say!`].
fn stdout_line(line: std::fmt::Arguments<'_>) {
    use std::io::Write;
    let mut stdout = std::io::stdout().lock();
    if let Err(e) = writeln!(stdout, "{line}").and_then(|()| stdout.flush()) {
        eprintln!(
            "vyre-conform: standard output could not be written ({e}), so what it printed is incomplete. Fix: send the output where all of it is read (a file: `> out.txt`), or free space on the device."
        );
        std::process::exit(2);
    }
}

/// `--help` and `--version` print to stdout and exit 0; anything else is a usage error: one line on
/// stderr naming what was wrong, with a `Fix:`, and exit code 2.
fn usage_error(error: &clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    match error.kind() {
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
            let text = error.render().to_string();
            say!("{}", text.trim_end());
            ExitCode::SUCCESS
        }
        ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            say!("{}", Cli::command().render_help().to_string().trim_end());
            ExitCode::from(2)
        }
        _ => {
            eprintln!("vyre-conform: {}", one_line(&error.render().to_string()));
            ExitCode::from(2)
        }
    }
}

/// clap's first line without its `error: ` prefix, and a `Fix:` (clap's own tip when it has one),
/// unless the line has one already (the value parsers' own messages end in one).
fn one_line(rendered: &str) -> String {
    let mut lines = rendered.lines().map(str::trim).filter(|l| !l.is_empty());
    let first = lines.next().unwrap_or("bad arguments");
    let first = first.strip_prefix("error: ").unwrap_or(first);
    if first.contains("Fix:") {
        return first.to_owned();
    }
    // "the following required arguments were not provided:" names them on the next line.
    let owned;
    let first = if first.ends_with(':') {
        owned = format!(
            "{first} {}",
            lines.next().unwrap_or("?").trim_end_matches('.')
        );
        owned.as_str()
    } else {
        first
    };
    let tip = lines
        .find_map(|l| l.strip_prefix("tip: "))
        .map(|t| format!("{t}, or see"))
        .unwrap_or_else(|| "see".to_string());
    format!("{first}. Fix: {tip} `vyre-conform --help`.")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Cli, clap::Error> {
        Cli::try_parse_from(std::iter::once("vyre-conform").chain(args.iter().copied()))
    }

    #[test]
    fn the_command_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn options_without_a_subcommand_run_check() {
        let cli = parse(&["--area", "integer", "--failures=3", "--quiet"]).unwrap();
        assert!(cli.command.is_none());
        assert_eq!(cli.check.areas.len(), 1);
        assert_eq!(cli.check.failures, 3);
        assert!(cli.check.quiet);
    }

    #[test]
    fn check_takes_the_same_options_as_the_default() {
        let Some(Command::Check(args)) =
            parse(&["check", "--backend", "reference", "--json", "r.json"])
                .unwrap()
                .command
        else {
            panic!("not check");
        };
        assert_eq!(args.backend.as_deref(), Some("reference"));
        assert_eq!(args.json.as_deref(), Some(std::path::Path::new("r.json")));
        assert_eq!(args.failures, 5);
    }

    #[test]
    fn fuzz_keeps_its_defaults_and_accepts_flag_equals_value() {
        let Some(Command::Fuzz(args)) = parse(&["fuzz", "--seed=7", "--resident", "sequence"])
            .unwrap()
            .command
        else {
            panic!("not fuzz");
        };
        assert_eq!((args.cases, args.seed, args.backend), (10_000, 7, None));
        assert!(args.resident.is_some() && args.minutes.is_none() && args.save.is_none());
    }

    #[test]
    fn minutes_take_fractions_and_metamorphic_combines_with_batch() {
        let Some(Command::Fuzz(args)) =
            parse(&["fuzz", "--minutes", "0.5", "--metamorphic", "--batch"])
                .unwrap()
                .command
        else {
            panic!("not fuzz");
        };
        assert_eq!(args.minutes, Some(std::time::Duration::from_secs(30)));
        assert!(args.metamorphic && args.batch);
    }

    #[test]
    fn replay_takes_files_and_a_backend() {
        let Some(Command::Replay(args)) = parse(&["replay", "a.json", "b.json"]).unwrap().command
        else {
            panic!("not replay");
        };
        assert_eq!(args.files.len(), 2);
        assert_eq!(args.backend, "wgpu");
    }

    #[test]
    fn bad_values_and_flags_are_usage_errors_on_one_line() {
        for bad in [
            &["--area", "nothing"][..],
            &["--failures", "many"],
            &["--frobnicate"],
            &["fuzz", "--cases", "-1"],
            &["fuzz", "--resident", "sometimes"],
            &["fuzz", "--minutes", "-1"],
            &["fuzz", "--minutes=nan"],
            &["fuzz", "--minutes", "inf"],
            &["fuzz", "--minutes", "1e300"],
            &["replay"],
            &["replay", "a.json", "--cases", "3"],
            &["fuzz", "--area", "integer"],
            &["fuzz", "--pass", "fold", "--metamorphic"],
            &["fuzz", "--pass"],
            &["list-adapters", "--cases", "3"],
            &["nonsense"],
        ] {
            let error = parse(bad).unwrap_err();
            let line = one_line(&error.render().to_string());
            assert!(
                !line.contains('\n') && line.contains("Fix:") && line.matches("Fix:").count() == 1,
                "{bad:?}: {line}"
            );
            assert_eq!(error.exit_code(), 2, "{bad:?}");
        }
    }
}
