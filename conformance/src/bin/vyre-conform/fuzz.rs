//! `vyre-conform fuzz`: the differential fuzzer, the reference against another backend.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use vyre::{Choice, VyreBackend, select};
use vyre_conformance::ReferenceBackend;
use vyre_conformance::fuzz::{self, FuzzOptions, FuzzProgress};
use vyre_conformance::resident::{Resident, ResidentMode};

/// Options of `fuzz`.
pub(crate) struct FuzzArgs {
    cases: u64,
    seed: u64,
    backend: String,
    minutes: Option<u64>,
    save: Option<PathBuf>,
    quiet: bool,
    /// Run the candidate through its resident buffers (`resident` or `sequence`).
    resident: Option<ResidentMode>,
}

pub(crate) fn parse(args: &[String]) -> Result<FuzzArgs, String> {
    let mut out = FuzzArgs {
        cases: 10_000,
        seed: 1,
        backend: "wgpu".into(),
        minutes: None,
        save: None,
        quiet: false,
        resident: None,
    };
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let mut value = |flag: &str| {
            it.next()
                .cloned()
                .ok_or_else(|| format!("`{flag}` needs a value. Fix: write `{flag} VALUE`."))
        };
        let number = |flag: &str, v: String| {
            v.parse::<u64>()
                .map_err(|_| format!("`{flag} {v}` is not a whole number. Fix: pass one."))
        };
        match arg.as_str() {
            "--cases" => out.cases = number("--cases", value("--cases")?)?,
            "--seed" => out.seed = number("--seed", value("--seed")?)?,
            "--minutes" => out.minutes = Some(number("--minutes", value("--minutes")?)?),
            "--backend" => out.backend = value("--backend")?,
            "--save" => out.save = Some(PathBuf::from(value("--save")?)),
            "--quiet" => out.quiet = true,
            "--resident" => {
                let mode = value("--resident")?;
                out.resident = Some(ResidentMode::from_name(&mode).ok_or_else(|| {
                    format!("`--resident {mode}` is no mode. Fix: pass `resident` or `sequence`.")
                })?);
            }
            other => {
                return Err(format!(
                    "unknown fuzz option `{other}`. Fix: see `vyre-conform --help`."
                ));
            }
        }
    }
    Ok(out)
}

pub(crate) fn run(args: &FuzzArgs) -> ExitCode {
    let picked = match select(Choice::Named(&args.backend)) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("vyre-conform fuzz: {e}");
            return ExitCode::from(2);
        }
    };
    eprintln!("vyre-conform fuzz: {}", picked.reason);
    let candidate: Box<dyn VyreBackend> = match args.resident {
        Some(mode) => Box::new(Resident::new(picked.backend, mode)),
        None => picked.backend,
    };
    let options = FuzzOptions {
        cases: args.cases,
        seed: args.seed,
        regressions_dir: args.save.clone(),
        time_limit: args.minutes.map(|m| Duration::from_secs(m * 60)),
        ..FuzzOptions::default()
    };
    let quiet = args.quiet;
    let progress = move |p: &FuzzProgress| {
        if !quiet {
            eprintln!(
                "  {}/{} programs, {} ops, {} mismatches, {} skipped",
                p.done, p.total, p.ops_executed, p.mismatches, p.skipped
            );
        }
    };
    let reference = ReferenceBackend::new();
    let summary = fuzz::run(&options, &reference, candidate.as_ref(), &progress);
    #[allow(clippy::print_stdout)]
    {
        println!(
            "fuzz seed {}: {} programs, {} ops executed, {} skipped ({} indeterminate), {} mismatches, {:.1} s",
            args.seed,
            summary.programs,
            summary.ops_executed,
            summary.skipped,
            summary.indeterminate,
            summary.mismatches.len(),
            summary.elapsed.as_secs_f64()
        );
        for m in &summary.mismatches {
            println!(
                "\nMISMATCH at case {}: {}\n{}",
                m.case_index, m.detail, m.minimal.program
            );
        }
    }
    if summary.mismatches.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}
