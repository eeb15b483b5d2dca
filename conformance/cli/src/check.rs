//! `vyre-conform check` (the default): the catalogue on every backend here, or the one asked for.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;
use vyre::{BACKEND_ENV_VAR, BACKEND_NAMES, Choice, select};
use vyre_conformance::catalogue::Area;
use vyre_conformance::report::{Progress, render_failure, render_table};
use vyre_conformance::{CheckOptions, ConformanceReport, check_backend_with};
use vyre_driver::VyreBackend;

use crate::progress::Meter;

/// Set (to `1`) where a GPU must be present: a missing wgpu adapter is then a failure.
const REQUIRE_GPU_ENV: &str = "VYRE_REQUIRE_GPU";

/// Options of `check`.
#[derive(Args, Debug)]
pub(crate) struct CheckArgs {
    /// Run only this backend (reference, wgpu), picked by vyre::select; VYRE_BACKEND=NAME does the
    /// same when --backend is absent.
    #[arg(long, value_name = "NAME")]
    pub(crate) backend: Option<String>,
    /// Run only this area (repeatable): integer, bits, compare, cast, float, control, loops,
    /// workgroup, atomics, out_of_bounds, grids, runtime_sized, multi_io, subgroups, private_arrays,
    /// tiles.
    #[arg(long = "area", value_name = "NAME", value_parser = parse_area)]
    pub(crate) areas: Vec<Area>,
    /// Write the reports (a JSON array, one per backend) to PATH; `-` writes them to stdout in
    /// place of the table.
    #[arg(long, value_name = "PATH")]
    pub(crate) json: Option<PathBuf>,
    /// Show the first N failures of each backend in full.
    #[arg(long, value_name = "N", default_value_t = 5)]
    pub(crate) failures: usize,
    /// No progress on stderr.
    #[arg(long)]
    pub(crate) quiet: bool,
}

fn parse_area(name: &str) -> Result<Area, String> {
    Area::from_name(name).ok_or_else(|| {
        let names: Vec<&str> = Area::ALL.iter().map(|a| a.name()).collect();
        format!(
            "no area is called `{name}` (the areas: {})",
            names.join(", ")
        )
    })
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

pub(crate) fn run(args: &CheckArgs) -> ExitCode {
    let (backends, unchecked) = match backends(args) {
        Ok(b) => b,
        Err(message) => {
            eprintln!("vyre-conform: {message}");
            return ExitCode::from(2);
        }
    };
    let reports: Vec<ConformanceReport> =
        backends.iter().map(|b| run_one(b.as_ref(), args)).collect();
    let to_stdout = args.json.as_deref() == Some(Path::new("-"));
    if !to_stdout {
        print_reports(&reports, &unchecked, args.failures);
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

/// The table, the unchecked backends, one summary line per backend, and the first failures.
fn print_reports(reports: &[ConformanceReport], unchecked: &[String], failures: usize) {
    say!("{}", render_table(reports));
    for line in unchecked {
        say!("{line}");
    }
    for report in reports {
        say!(
            "{}: {} on {}{}, {}/{} cases passed ({} not supported on this device) in {} dispatches, {} ms",
            report.backend,
            if report.all_passed() { "PASS" } else { "FAIL" },
            report.device,
            workarounds(report),
            report.passed(),
            report.total(),
            report.unsupported(),
            report.dispatches,
            report.elapsed_ms
        );
    }
    for report in reports {
        for case in report.failures().take(failures) {
            say!("\n{}", render_failure(&report.backend, case));
        }
    }
}

/// ` with driver workarounds a, b`, or nothing when the backend applied none.
fn workarounds(report: &ConformanceReport) -> String {
    if report.workarounds.is_empty() {
        String::new()
    } else {
        format!(" with driver workarounds {}", report.workarounds.join(", "))
    }
}

fn run_one(backend: &dyn VyreBackend, args: &CheckArgs) -> ConformanceReport {
    let id = backend.id().to_string();
    let device = backend.capabilities().device_name;
    if !args.quiet {
        eprintln!("vyre-conform: checking `{id}` on {device}");
    }
    // The total is known only from the first report; a bar of 0 is fine until then.
    let meter = Meter::new(&id, 0, "batches", args.quiet);
    let progress = |p: &Progress<'_>| {
        meter.update(p.done as u64, p.total as u64, &format!("last {}", p.batch));
    };
    let options = CheckOptions {
        areas: &args.areas,
        progress: (!args.quiet).then_some(&progress as _),
    };
    let report = check_backend_with(backend, &options);
    meter.finish();
    report
}

fn write_json(path: &Path, reports: &[ConformanceReport]) -> Result<(), String> {
    let json = serde_json::to_string_pretty(reports)
        .map_err(|e| format!("could not serialise the reports: {e}. Fix: report this bug."))?;
    if path == Path::new("-") {
        say!("{json}");
        return Ok(());
    }
    std::fs::write(path, json).map_err(|e| {
        format!(
            "could not write `{}`: {e}. Fix: pass a writable path to --json.",
            path.display()
        )
    })
}
