//! `vyre-conform fuzz`: the differential fuzzer, the reference against another backend.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use clap::Args;
use vyre::{Choice, VyreBackend, select};
use vyre_conformance::ReferenceBackend;
use vyre_conformance::batch::Batched;
use vyre_conformance::fuzz::{self, FuzzOptions, FuzzProgress, FuzzSummary};
use vyre_conformance::r#gen::GenConfig;
use vyre_conformance::resident::{Resident, ResidentMode};

use crate::progress::Meter;

/// Options of `fuzz`.
#[derive(Args, Debug)]
pub(crate) struct FuzzArgs {
    /// Programs to generate and run.
    #[arg(long, value_name = "N", default_value_t = 10_000)]
    pub(crate) cases: u64,
    /// The seed: the same seed generates the same programs.
    #[arg(long, value_name = "S", default_value_t = 1)]
    pub(crate) seed: u64,
    /// Stop starting new batches after this many minutes, even if cases remain; fractions are
    /// fine (`--minutes 0.5` is 30 s).
    #[arg(long, value_name = "M", value_parser = parse_minutes, allow_negative_numbers = true)]
    pub(crate) minutes: Option<Duration>,
    /// The backend compared with the reference (reference, wgpu); wgpu when absent, except with
    /// --pass, where the transformed programs run on the reference alone unless a backend is named.
    #[arg(long, value_name = "NAME")]
    pub(crate) backend: Option<String>,
    /// Shrink (and print, and save) this many mismatches, then stop at the end of the batch; 0
    /// shrinks none and stops at the end of the first batch with a mismatch.
    #[arg(long, value_name = "N", default_value_t = 3)]
    pub(crate) max_mismatches: usize,
    /// Save every shrunk mismatch as a regression case under DIR.
    #[arg(long, value_name = "DIR")]
    pub(crate) save: Option<PathBuf>,
    /// Run the candidate through its resident buffers: `resident` (write, dispatch_resident, read)
    /// or `sequence` (one dispatch_sequence).
    #[arg(long, value_name = "MODE", value_parser = parse_mode)]
    pub(crate) resident: Option<ResidentMode>,
    /// Run each program on the candidate as the middle item of a three-item `dispatch_batch`
    /// (coalesced into one launch, packed where the program allows).
    #[arg(long, conflicts_with = "resident")]
    pub(crate) batch: bool,
    /// Metamorphic mode: run each program and semantics-preserving rewrites of it (operands of
    /// commutative operators swapped, opaque zeros added, statements wrapped in always-true
    /// branches and one-trip loops, dead code) on the backend alone and compare them with each
    /// other; the reference only rules out programs whose result SEMANTICS.md leaves open.
    /// Combines with --batch and --resident.
    #[arg(long)]
    pub(crate) metamorphic: bool,
    /// DataFusion mode: generate programs shaped as scalar functions (elementwise, one `read`
    /// buffer per argument, one `output`, a row per invocation), run each as a
    /// `vyre_datafusion::VyreUdf` on the backend inside a DataFusion query over a table of its
    /// inputs, and compare the result column with the reference. Needs the `datafusion` feature
    /// (on by default).
    #[arg(long, conflicts_with_all = ["metamorphic", "batch", "resident"])]
    pub(crate) datafusion: bool,
    /// Write the summary and every mismatch as JSON to PATH (`-`: stdout, in place of the text).
    #[arg(long, value_name = "PATH")]
    pub(crate) json: Option<PathBuf>,
    /// No progress on stderr.
    #[arg(long)]
    pub(crate) quiet: bool,
    /// Check the built-in IR pass NAME instead of a backend (`all` or `standard`: the whole
    /// standard pipeline): each program and what the pass makes of it must give the same outputs
    /// on the reference (and on --backend, when one is named); the first program it gets wrong is
    /// shrunk and printed with both forms.
    #[arg(long, value_name = "NAME", conflicts_with_all = ["metamorphic", "batch", "resident", "json", "datafusion"])]
    pub(crate) pass: Option<String>,
    /// Generator features every case keeps whatever its swarm mask (comma-separated, as the
    /// summary names them, e.g. `Tiles,PrivateArrays`): a run about those constructs. A kept
    /// feature the device cannot run is still switched off.
    #[arg(long, value_name = "FEATURE[,FEATURE...]", value_delimiter = ',', value_parser = parse_feature)]
    pub(crate) keep: Vec<vyre_conformance::r#gen::Feature>,
}

impl FuzzArgs {
    /// `config` with every `--keep` feature kept in every case.
    pub(crate) fn keeping(&self, mut config: GenConfig) -> GenConfig {
        for feature in &self.keep {
            config.kept = config.kept.with(*feature);
        }
        config
    }
}

/// The generator feature `text` names (its `Debug` name, in any case).
fn parse_feature(text: &str) -> Result<vyre_conformance::r#gen::Feature, String> {
    use vyre_conformance::r#gen::Feature;
    Feature::ALL
        .into_iter()
        .find(|f| format!("{f:?}").eq_ignore_ascii_case(text.trim()))
        .ok_or_else(|| {
            let names: Vec<String> = Feature::ALL.iter().map(|f| format!("{f:?}")).collect();
            format!(
                "`{text}` is no generator feature. Fix: name one of {}.",
                names.join(", ")
            )
        })
}

/// A time limit of `text` minutes: a finite number, 0 or more, that a `Duration` holds.
fn parse_minutes(text: &str) -> Result<Duration, String> {
    let fix = "Fix: give a number of minutes, 0 or more (`--minutes 0.5` is 30 s), or leave --minutes out (no time limit).";
    let minutes: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("`{text}` is not a number. {fix}"))?;
    if !minutes.is_finite() || minutes < 0.0 {
        return Err(format!(
            "`{text}` is not a time limit: minutes must be finite and 0 or more. {fix}"
        ));
    }
    Duration::try_from_secs_f64(minutes * 60.0)
        .map_err(|_| format!("`{text}` minutes is more time than a time limit can hold. {fix}"))
}

fn parse_mode(name: &str) -> Result<ResidentMode, String> {
    ResidentMode::from_name(name)
        .ok_or_else(|| format!("`{name}` is no mode (the modes: resident, sequence)"))
}

pub(crate) fn run(args: &FuzzArgs) -> ExitCode {
    // What can be checked before a run that may take hours is checked first.
    if let Err(message) = check_paths(args) {
        eprintln!("vyre-conform fuzz: {message}");
        return ExitCode::from(2);
    }
    let time_limit = args.minutes;
    let picked = match select(Choice::Named(args.backend.as_deref().unwrap_or("wgpu"))) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("vyre-conform fuzz: {e}");
            return ExitCode::from(2);
        }
    };
    eprintln!("vyre-conform fuzz: {}", picked.reason);
    let candidate: Box<dyn VyreBackend> = match (args.datafusion, args.resident, args.batch) {
        (true, _, _) => match crate::datafusion::candidate(picked.backend) {
            Ok(backend) => backend,
            Err(message) => {
                eprintln!("vyre-conform fuzz: {message}");
                return ExitCode::from(2);
            }
        },
        (false, Some(mode), _) => Box::new(Resident::new(picked.backend, mode)),
        (false, None, true) => Box::new(Batched::new(picked.backend)),
        (false, None, false) => picked.backend,
    };
    let config = args.keeping(if args.datafusion {
        GenConfig::udf()
    } else {
        GenConfig::differential()
    });
    let options = FuzzOptions {
        cases: args.cases,
        seed: args.seed,
        config,
        regressions_dir: args.save.clone(),
        time_limit,
        max_mismatches: args.max_mismatches,
        ..FuzzOptions::default()
    };
    let meter = Meter::new("fuzz", args.cases, "programs", args.quiet);
    let progress = |p: &FuzzProgress| {
        meter.update(
            p.done,
            p.total,
            &format!(
                "{} ops, {} mismatches, {} skipped",
                p.ops_executed, p.mismatches, p.skipped
            ),
        );
    };
    // The reference at the candidate's subgroup size, so that subgroup programs are drawn and
    // compared; generator features the candidate lacks are switched off.
    let reference: ReferenceBackend = vyre_conformance::report::reference_for(candidate.as_ref());
    let drawable = fuzz::drawable(options.config.features, &reference, candidate.as_ref());
    let off: Vec<String> = vyre_conformance::r#gen::Feature::ALL
        .into_iter()
        .filter(|f| options.config.features.has(*f) && !drawable.has(*f))
        .map(|f| format!("{f:?}"))
        .collect();
    if !off.is_empty() {
        eprintln!(
            "vyre-conform fuzz: generator features off, the device lacks what they need: {}",
            off.join(", ")
        );
    }
    let summary = if args.metamorphic {
        fuzz::metamorphic::run(&options, &reference, candidate.as_ref(), &progress)
    } else {
        fuzz::run(&options, &reference, candidate.as_ref(), &progress)
    };
    meter.finish();
    let to_stdout = args.json.as_deref() == Some(Path::new("-"));
    let mode = if args.metamorphic {
        "metamorphic"
    } else if args.datafusion {
        "datafusion"
    } else {
        "differential"
    };
    if !to_stdout {
        print_summary(args.seed, mode, &summary);
    }
    if let Some(Err(message)) = args
        .json
        .as_deref()
        .map(|p| write_json(p, args.seed, mode, &summary))
    {
        eprintln!("vyre-conform fuzz: {message}");
        return ExitCode::from(2);
    }
    if summary.mismatched > 0 {
        return ExitCode::from(1);
    }
    if summary.programs > 0 && summary.compared() == 0 {
        eprintln!(
            "vyre-conform fuzz: none of the {} programs was compared: every one was skipped (refused by the backend, or indeterminate on the reference), so nothing was checked. Fix: run `vyre-conform check` on the backend to see what it refuses.",
            summary.programs
        );
        return ExitCode::from(1);
    }
    ExitCode::SUCCESS
}

/// The `--save` directory exists (or can be made) and is writable, and the `--json` file can be
/// created: found out after a long run, the run's findings would be lost.
pub(crate) fn check_paths(args: &FuzzArgs) -> Result<(), String> {
    if let Some(dir) = &args.save {
        let probe = dir.join(format!(".vyre-conform-probe-{}", std::process::id()));
        std::fs::create_dir_all(dir)
            .and_then(|()| std::fs::write(&probe, b""))
            .and_then(|()| std::fs::remove_file(&probe))
            .map_err(|e| {
                format!(
                    "--save {}: cannot write regression cases there ({e}). Fix: pass a writable directory to --save.",
                    dir.display()
                )
            })?;
    }
    if let Some(path) = args.json.as_deref().filter(|p| *p != Path::new("-")) {
        // Opened for appending, so an existing file is not emptied before the run has a summary.
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(|e| {
                format!(
                    "could not write `{}`: {e}. Fix: pass a writable path to --json.",
                    path.display()
                )
            })?;
    }
    Ok(())
}

fn print_summary(seed: u64, mode: &str, summary: &FuzzSummary) {
    // A metamorphic run executes nothing on the reference unless it sees a disagreement.
    let ops = format!(" {} ops executed,", summary.ops_executed);
    let (label, ops) = match mode {
        "metamorphic" => (" (metamorphic)", String::new()),
        "datafusion" => (" (DataFusion)", ops),
        _ => ("", ops),
    };
    say!(
        "fuzz seed {seed}{label}: {} programs, {} compared,{ops} {} skipped ({} indeterminate), {} mismatches, {:.1} s",
        summary.programs,
        summary.compared(),
        summary.skipped,
        summary.indeterminate,
        summary.mismatched,
        summary.elapsed.as_secs_f64()
    );
    if summary.compared_with_tiles + summary.compared_with_arrays > 0 {
        say!(
            "fuzz seed {seed}{label}: of those compared, {} with matrix tiles, {} with private arrays",
            summary.compared_with_tiles,
            summary.compared_with_arrays
        );
    }
    if summary.mismatched > summary.mismatches.len() as u64 {
        say!(
            "the first {} mismatches follow, shrunk; the others were not shrunk (raise --max-mismatches to see more)",
            summary.mismatches.len()
        );
    }
    for m in &summary.mismatches {
        // The whole report: the minimal program with its inputs' lengths, grid and saved file, and
        // the program as generated; with the seed above, enough to run the case again.
        say!("\nMISMATCH at {}", m.report());
    }
}

/// The summary as JSON: the mode, the counts, and each mismatch with its minimal program's text
/// form (and, in metamorphic mode, the variant that disagreed).
fn summary_json(seed: u64, mode: &str, summary: &FuzzSummary) -> serde_json::Value {
    let mismatches: Vec<serde_json::Value> = summary
        .mismatches
        .iter()
        .map(|m| {
            serde_json::json!({
                "case_index": m.case_index,
                "detail": m.detail,
                "minimal_program": m.minimal.program.to_string(),
                "saved": m.saved.as_ref().map(|p| p.display().to_string()),
                "save_error": m.save_error,
                "variant": m.variant.as_ref().map(|v| serde_json::json!({
                    "rewrite": v.rewrite,
                    "program": v.case.program.to_string(),
                    "saved": v.saved.as_ref().map(|p| p.display().to_string()),
                })),
            })
        })
        .collect();
    serde_json::json!({
        "mode": mode,
        "seed": seed,
        "programs": summary.programs,
        "compared": summary.compared(),
        "mismatched": summary.mismatched,
        "ops_executed": summary.ops_executed,
        "skipped": summary.skipped,
        "indeterminate": summary.indeterminate,
        "compared_with_tiles": summary.compared_with_tiles,
        "compared_with_arrays": summary.compared_with_arrays,
        "elapsed_s": summary.elapsed.as_secs_f64(),
        "mismatches": mismatches,
    })
}

fn write_json(path: &Path, seed: u64, mode: &str, summary: &FuzzSummary) -> Result<(), String> {
    let text = serde_json::to_string_pretty(&summary_json(seed, mode, summary))
        .map_err(|e| format!("could not serialise the summary: {e}. Fix: report this bug."))?;
    if path == Path::new("-") {
        say!("{text}");
        return Ok(());
    }
    std::fs::write(path, text).map_err(|e| {
        format!(
            "could not write `{}`: {e}. Fix: pass a writable path to --json.",
            path.display()
        )
    })
}
