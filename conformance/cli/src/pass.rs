//! `vyre-conform fuzz --pass NAME`: a built-in IR pass (or the standard pipeline) checked by the
//! fuzzer, `vyre_conformance::fuzz::check_pass`: every generated program and what the pass makes
//! of it run on the reference (and on `--backend`, when one is named), and the first program the
//! pass gets wrong shrunk and printed with both forms.

use std::process::ExitCode;

use vyre::{Choice, VyreBackend, select};
use vyre_conformance::fuzz::{self, FuzzOptions, FuzzProgress, PassSummary};
use vyre_foundation::ir::Program;
use vyre_foundation::pass::{Pass, Pipeline, builtin, by_name};

use crate::fuzz::{FuzzArgs, check_paths};
use crate::progress::Meter;

/// The names `--pass` takes for the whole standard pipeline.
const PIPELINE_NAMES: [&str; 2] = ["all", "standard"];

/// What `--pass` named.
enum Target {
    One(Box<dyn Pass>),
    Pipeline(Pipeline),
}

impl Target {
    fn apply(&self, program: &Program) -> Program {
        match self {
            Target::One(pass) => fuzz::apply_pass(pass.as_ref(), program),
            Target::Pipeline(pipeline) => fuzz::apply_pipeline(pipeline, program),
        }
    }
}

/// The pass or pipeline `name` names, or the message (with a `Fix:`) listing the names there are.
fn target(name: &str) -> Result<Target, String> {
    if PIPELINE_NAMES.contains(&name) {
        return Ok(Target::Pipeline(Pipeline::standard()));
    }
    if let Some(pass) = by_name(name) {
        return Ok(Target::One(pass));
    }
    let names: Vec<String> = builtin()
        .iter()
        .map(|p| format!("`{}`", p.name()))
        .chain(PIPELINE_NAMES.iter().map(|n| format!("`{n}`")))
        .collect();
    Err(format!(
        "no built-in IR pass is called `{name}`; the names --pass takes: {} (`all` and `standard` check the whole standard pipeline). Fix: pass one of these names to --pass.",
        names.join(", ")
    ))
}

/// `fuzz` with `--pass`: checks the named pass or pipeline.
pub(crate) fn run(args: &FuzzArgs, name: &str) -> ExitCode {
    if let Err(message) = check_paths(args) {
        eprintln!("vyre-conform fuzz: {message}");
        return ExitCode::from(2);
    }
    let target = match target(name) {
        Ok(t) => t,
        Err(message) => {
            eprintln!("vyre-conform fuzz: {message}");
            return ExitCode::from(2);
        }
    };
    let backend: Option<Box<dyn VyreBackend>> = match args.backend.as_deref() {
        None | Some("reference") => None,
        Some(other) => match select(Choice::Named(other)) {
            Ok(picked) => {
                eprintln!("vyre-conform fuzz: {}", picked.reason);
                Some(picked.backend)
            }
            Err(e) => {
                eprintln!("vyre-conform fuzz: {e}");
                return ExitCode::from(2);
            }
        },
    };
    if let Target::Pipeline(pipeline) = &target {
        eprintln!(
            "vyre-conform fuzz: the standard pipeline: {}",
            if pipeline.is_empty() {
                "no passes".to_owned()
            } else {
                pipeline.key()
            }
        );
    }
    let options = FuzzOptions {
        cases: args.cases,
        seed: args.seed,
        config: args.keeping(FuzzOptions::default().config),
        regressions_dir: args.save.clone(),
        time_limit: args.minutes,
        max_mismatches: args.max_mismatches,
        ..FuzzOptions::default()
    };
    let meter = Meter::new("fuzz --pass", args.cases, "programs", args.quiet);
    let progress = |p: &FuzzProgress| {
        meter.update(
            p.done,
            p.total,
            &format!("{} mismatches, {} skipped", p.mismatches, p.skipped),
        );
    };
    let apply = |program: &Program| target.apply(program);
    let summary = fuzz::check_pass_with(&apply, &options, backend.as_deref(), &progress);
    meter.finish();
    say!(
        "fuzz --pass {name} seed {}: {}",
        args.seed,
        summary.report()
    );
    verdict(&summary, name)
}

/// Exit 1 on a mismatch, and when no changed program was compared: the pass was then checked on
/// nothing.
fn verdict(summary: &PassSummary, name: &str) -> ExitCode {
    if summary.mismatched > 0 {
        return ExitCode::from(1);
    }
    if summary.compared() == 0 {
        eprintln!(
            "vyre-conform fuzz: `{name}` was checked on no program (it changed {} of {}, none compared). Fix: run more --cases, or make sure the pass acts on generated programs.",
            summary.changed, summary.programs
        );
        return ExitCode::from(1);
    }
    ExitCode::SUCCESS
}
