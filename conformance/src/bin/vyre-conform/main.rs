//! `vyre-conform`: runs the conformance catalogue on every backend available here (or one, with
//! `--backend`), prints an area x backend table and the first failures in full, optionally writes the
//! reports as JSON, and exits non-zero on any failure.
//!
//! Subcommands are parsed first (`check` is the default); adding one means adding a [`Command`]
//! variant, a name in [`parse`], and an arm in [`main`].

#![allow(clippy::print_stdout)]

mod fuzz;

use std::io::{IsTerminal, Write};
use std::process::ExitCode;

use vyre::{BACKEND_ENV_VAR, BACKEND_NAMES, Choice, select};
use vyre_conformance::catalogue::Area;
use vyre_conformance::report::{Progress, render_failure, render_table};
use vyre_conformance::{CheckOptions, ConformanceReport, check_backend_with};
use vyre_driver::VyreBackend;

/// Set (to `1`) where a GPU must be present: a missing wgpu adapter is then a failure.
const REQUIRE_GPU_ENV: &str = "VYRE_REQUIRE_GPU";

const USAGE: &str = "\
usage: vyre-conform [check] [options]

Runs the vyre conformance catalogue on every backend available here: the reference backend always,
wgpu when an adapter exists (a missing one is listed as NOT CHECKED under the table). Exits with 1
when a case fails, 2 on a usage or backend error, including a backend asked for (--backend,
VYRE_BACKEND, or wgpu under VYRE_REQUIRE_GPU=1) that is unavailable.

options:
  --backend NAME   run only this backend (reference, wgpu), picked by vyre::select;
                   VYRE_BACKEND=NAME does the same when --backend is absent
  --area NAME      run only this area (repeatable): integer, bits, compare, cast, float, control,
                   loops, workgroup, atomics, out_of_bounds, grids, runtime_sized, multi_io
  --json PATH      write the reports (a JSON array, one per backend) to PATH
  --failures N     show the first N failures of each backend in full (default 5)
  --quiet          no progress on stderr
  -h, --help       this text

vyre-conform fuzz [--cases N] [--seed S] [--minutes M] [--backend NAME] [--save DIR] [--quiet]
                  [--resident resident|sequence]
  random valid programs run on the reference and on NAME (default wgpu); mismatches are shrunk,
  printed, and saved as regression cases under DIR
";

/// What the command line asks for.
enum Command {
    /// Run the catalogue.
    Check(CheckArgs),
    /// Run the differential fuzzer.
    Fuzz(fuzz::FuzzArgs),
    /// Print the usage.
    Help,
}

/// Options of `check`.
struct CheckArgs {
    backend: Option<String>,
    areas: Vec<Area>,
    json: Option<String>,
    failures: usize,
    quiet: bool,
}

fn parse(args: &[String]) -> Result<Command, String> {
    let (sub, rest) = match args.first().map(String::as_str) {
        Some(s) if !s.starts_with('-') => (s, &args[1..]),
        _ => ("check", args),
    };
    match sub {
        "check" => parse_check(rest),
        "fuzz" => Ok(Command::Fuzz(fuzz::parse(rest)?)),
        "help" => Ok(Command::Help),
        other => Err(format!(
            "unknown subcommand `{other}`. Fix: use `check` (the default), `fuzz` or `help`."
        )),
    }
}

fn parse_check(args: &[String]) -> Result<Command, String> {
    let mut out = CheckArgs {
        backend: None,
        areas: Vec::new(),
        json: None,
        failures: 5,
        quiet: false,
    };
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let mut value = |flag: &str| {
            it.next()
                .cloned()
                .ok_or_else(|| format!("`{flag}` needs a value. Fix: write `{flag} VALUE`."))
        };
        match arg.as_str() {
            "--backend" => out.backend = Some(value("--backend")?),
            "--json" => out.json = Some(value("--json")?),
            "--area" => {
                let name = value("--area")?;
                let area = Area::from_name(&name).ok_or_else(|| {
                    let names: Vec<&str> = Area::ALL.iter().map(|a| a.name()).collect();
                    format!(
                        "unknown area `{name}`. Fix: use one of {}.",
                        names.join(", ")
                    )
                })?;
                out.areas.push(area);
            }
            "--failures" => {
                let n = value("--failures")?;
                out.failures = n.parse().map_err(|_| {
                    format!("`--failures {n}` is not a count. Fix: pass a whole number.")
                })?;
            }
            "--quiet" => out.quiet = true,
            "-h" | "--help" => return Ok(Command::Help),
            other => {
                return Err(format!(
                    "unknown option `{other}`. Fix: see `vyre-conform --help`."
                ));
            }
        }
    }
    Ok(Command::Check(out))
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match parse(&args) {
        Ok(Command::Help) => {
            print!("{USAGE}");
            ExitCode::SUCCESS
        }
        Ok(Command::Check(check)) => run_check(&check),
        Ok(Command::Fuzz(args)) => fuzz::run(&args),
        Err(message) => {
            eprintln!("vyre-conform: {message}");
            ExitCode::from(2)
        }
    }
}

/// The backends to check, and a line for each one that could not be checked.
type Backends = (Vec<Box<dyn VyreBackend>>, Vec<String>);

/// The backends to run, and the ones that could not be checked (with why). A backend asked for, by
/// `--backend` or `VYRE_BACKEND`, must exist; so must wgpu under `VYRE_REQUIRE_GPU=1`. Otherwise a
/// missing backend is reported as not checked, never silently left out.
fn backends(args: &CheckArgs) -> Result<Backends, String> {
    let from_env = std::env::var(BACKEND_ENV_VAR)
        .ok()
        .filter(|v| !v.trim().is_empty());
    let asked = match (&args.backend, &from_env) {
        (Some(name), _) => Some((name.clone(), "--backend".to_string())),
        (None, Some(name)) => Some((name.trim().to_string(), format!("{BACKEND_ENV_VAR}={name}"))),
        (None, None) => None,
    };
    if let Some((name, source)) = asked {
        let picked = select(Choice::Named(&name))
            .map_err(|e| format!("`{name}` was asked for ({source}) but is unavailable: {e}"))?;
        eprintln!("vyre-conform: {}", picked.reason);
        return Ok((vec![picked.backend], Vec::new()));
    }
    let require_gpu = std::env::var(REQUIRE_GPU_ENV).as_deref() == Ok("1");
    let mut out = Vec::new();
    let mut unchecked = Vec::new();
    for name in BACKEND_NAMES {
        match select(Choice::Named(name)) {
            Ok(picked) => out.push(picked.backend),
            Err(error) if require_gpu && name == "wgpu" => {
                return Err(format!(
                    "{REQUIRE_GPU_ENV}=1 but `wgpu` is unavailable: {error}"
                ));
            }
            Err(error) => unchecked.push(format!("{name}: NOT CHECKED ({error})")),
        }
    }
    Ok((out, unchecked))
}

fn run_check(args: &CheckArgs) -> ExitCode {
    let (backends, unchecked) = match backends(args) {
        Ok(b) => b,
        Err(message) => {
            eprintln!("vyre-conform: {message}");
            return ExitCode::from(2);
        }
    };
    let reports: Vec<ConformanceReport> =
        backends.iter().map(|b| run_one(b.as_ref(), args)).collect();
    println!("{}", render_table(&reports));
    for line in &unchecked {
        println!("{line}");
    }
    for report in &reports {
        println!(
            "{}: {} on {}, {}/{} cases passed in {} dispatches, {} ms",
            report.backend,
            if report.all_passed() { "PASS" } else { "FAIL" },
            report.device,
            report.passed(),
            report.total(),
            report.dispatches,
            report.elapsed_ms
        );
    }
    for report in &reports {
        for case in report.failures().take(args.failures) {
            println!("\n{}", render_failure(&report.backend, case));
        }
    }
    if let Some(Err(message)) = args.json.as_deref().map(|path| write_json(path, &reports)) {
        eprintln!("vyre-conform: {message}");
        return ExitCode::from(2);
    }
    if !reports.is_empty() && reports.iter().all(ConformanceReport::all_passed) {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

fn run_one(backend: &dyn VyreBackend, args: &CheckArgs) -> ConformanceReport {
    let id = backend.id().to_string();
    let device = backend.capabilities().device_name;
    if !args.quiet {
        eprintln!("vyre-conform: checking `{id}` on {device}");
    }
    // On a terminal one line is rewritten in place; in a log every batch gets its own line.
    let terminal = std::io::stderr().is_terminal();
    let progress = |p: &Progress<'_>| {
        let mut err = std::io::stderr().lock();
        let line = format!("  {id}: {}/{} batches, last {}", p.done, p.total, p.batch);
        if !terminal {
            let _ = writeln!(err, "{line}");
        } else if p.done == p.total {
            let _ = writeln!(err, "\r\x1b[K{line}");
        } else {
            let _ = write!(err, "\r\x1b[K{line}");
        }
    };
    let options = CheckOptions {
        areas: &args.areas,
        progress: (!args.quiet).then_some(&progress as _),
    };
    check_backend_with(backend, &options)
}

fn write_json(path: &str, reports: &[ConformanceReport]) -> Result<(), String> {
    let json = serde_json::to_string_pretty(reports)
        .map_err(|e| format!("could not serialise the reports: {e}. Fix: report this bug."))?;
    std::fs::write(path, json)
        .map_err(|e| format!("could not write `{path}`: {e}. Fix: pass a writable path to --json."))
}
