//! `vyre-conform` never reports success for a backend it did not check: a missing wgpu adapter is
//! listed as NOT CHECKED, and is a failure when wgpu was asked for or `VYRE_REQUIRE_GPU=1` is set.
//!
//! A missing adapter is simulated with `VYRE_WGPU_ADAPTER` naming no adapter, in the child process
//! only. The catalogue is narrowed to the integer area so each run takes a fraction of a second.

use std::process::{Command, Output};

const NO_ADAPTER: &str = "no adapter is called this 91c2";

fn conform(env: &[(&str, &str)], args: &[&str]) -> Output {
    let mut command = Command::new(conform_binary());
    command
        .args(["--area", "integer", "--quiet"])
        .args(args)
        .env_remove("VYRE_BACKEND")
        .env_remove("VYRE_REQUIRE_GPU")
        .env("VYRE_WGPU_ADAPTER", NO_ADAPTER);
    for (name, value) in env {
        command.env(name, value);
    }
    command.output().expect("running vyre-conform")
}

/// The binary cargo built beside this test, or, for a test binary carried to another machine, the
/// `vyre-conform` lying next to it.
fn conform_binary() -> std::path::PathBuf {
    let built = std::path::PathBuf::from(env!("CARGO_BIN_EXE_vyre-conform"));
    if built.exists() {
        return built;
    }
    let exe = std::env::current_exe().expect("the test binary's path");
    exe.with_file_name("vyre-conform")
}

fn text(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

#[test]
fn a_missing_adapter_is_reported_as_not_checked() {
    let output = conform(&[], &[]);
    let all = text(&output);
    assert_eq!(output.status.code(), Some(0), "{all}");
    assert!(all.contains("wgpu: NOT CHECKED"), "{all}");
    assert!(all.contains("reference: PASS"), "{all}");
}

#[test]
fn a_missing_adapter_fails_when_a_gpu_is_required() {
    let output = conform(&[("VYRE_REQUIRE_GPU", "1")], &[]);
    assert_eq!(output.status.code(), Some(2), "{}", text(&output));
    assert!(text(&output).contains("VYRE_REQUIRE_GPU=1"));
}

#[test]
fn a_missing_adapter_fails_when_wgpu_is_named() {
    for (env, args) in [
        (vec![("VYRE_BACKEND", "wgpu")], vec![]),
        (vec![], vec!["--backend", "wgpu"]),
    ] {
        let output = conform(&env, &args);
        let all = text(&output);
        assert_eq!(output.status.code(), Some(2), "{env:?} {args:?}: {all}");
        assert!(all.contains("Fix:"), "{all}");
    }
}

#[test]
fn the_backend_variable_narrows_the_run_to_that_backend() {
    let output = conform(&[("VYRE_BACKEND", "reference")], &[]);
    let all = text(&output);
    assert_eq!(output.status.code(), Some(0), "{all}");
    assert!(
        all.contains("reference: PASS") && !all.contains("wgpu"),
        "{all}"
    );
}

/// Runs the binary with exactly `args` (no narrowing options), without an adapter.
fn bare(args: &[&str]) -> Output {
    Command::new(conform_binary())
        .args(args)
        .env_remove("VYRE_BACKEND")
        .env_remove("VYRE_REQUIRE_GPU")
        .env("VYRE_WGPU_ADAPTER", NO_ADAPTER)
        .output()
        .expect("running vyre-conform")
}

#[test]
fn help_on_every_subcommand_and_version_exit_zero_on_stdout() {
    for args in [
        &["--help"][..],
        &["check", "--help"],
        &["fuzz", "--help"],
        &["list-adapters", "--help"],
        &["replay", "--help"],
        &["help", "fuzz"],
    ] {
        let output = bare(args);
        let out = String::from_utf8_lossy(&output.stdout);
        assert_eq!(output.status.code(), Some(0), "{args:?}: {}", text(&output));
        assert!(
            out.contains("Usage: vyre-conform") && out.contains("Exit codes:"),
            "{args:?}: {out}"
        );
    }
    let output = bare(&["--version"]);
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(
        String::from_utf8_lossy(&output.stdout).trim(),
        format!("vyre-conform {}", env!("CARGO_PKG_VERSION"))
    );
}

#[test]
fn a_bad_flag_exits_2_with_one_line_on_stderr() {
    for args in [
        &["--frobnicate"][..],
        &["fuzz", "--cases", "many"],
        &["--area=nothing"],
        &["list-adapters", "--seed", "1"],
    ] {
        let output = bare(args);
        let err = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {}", text(&output));
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
        assert!(
            err.contains("Fix:") && output.stdout.is_empty(),
            "{args:?}: {err}"
        );
    }
}

#[test]
fn flag_equals_value_means_the_same_as_two_words() {
    let output = conform(&[], &["--backend=reference", "--failures=1"]);
    let all = text(&output);
    assert_eq!(output.status.code(), Some(0), "{all}");
    assert!(
        all.contains("reference: PASS") && !all.contains("wgpu"),
        "{all}"
    );
}

#[test]
fn json_to_stdout_is_the_report_alone() {
    let output = conform(&[], &["--backend", "reference", "--json", "-"]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output));
    let reports: serde_json::Value =
        serde_json::from_slice(&output.stdout).expect("stdout is one JSON document");
    assert_eq!(reports[0]["backend"], "reference", "{reports}");
}

#[test]
fn list_adapters_says_what_the_automatic_choice_takes() {
    // No adapter matches the filter, so every adapter is excluded and Auto takes the reference.
    let output = bare(&["list-adapters", "--json"]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output));
    let listing: serde_json::Value =
        serde_json::from_slice(&output.stdout).expect("stdout is one JSON document");
    assert_eq!(listing["auto"]["backend"], "reference", "{listing}");
    let adapters = listing["adapters"].as_array().expect("an adapter array");
    assert!(adapters.iter().all(|a| a["chosen"] == false), "{listing}");
    let output = bare(&["list-adapters"]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output));
    assert!(text(&output).contains("Choice::Auto took the reference backend"));
}

/// A checked-in regression case (one with inputs), replayed on the reference.
fn checked_in_case() -> std::path::PathBuf {
    vyre_conformance::fuzz::checked_in_dir().join("fuzz-4c3682087006210244158fd24971fc27.json")
}

#[test]
fn replay_prints_a_checked_in_case_and_its_outputs_and_agrees_on_the_reference() {
    let case = checked_in_case();
    let output = bare(&["replay", "--backend", "reference", &case.to_string_lossy()]);
    let out = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output));
    for needle in [
        "program @workgroup_size(5, 1, 1)",
        "input `rw2` (200 bytes): 04000000",
        "expected (the reference):",
        "actual (reference):",
        "`acc1` (i32, 24 bytes from element 0): 0i 0i 0i 0i 2i 0i",
        "verdict: AGREE",
        "1 cases, 1 agree, 0 mismatch",
    ] {
        assert!(out.contains(needle), "{needle}: {out}");
    }
}

#[test]
fn replay_of_a_corrupted_or_missing_file_is_a_usage_error() {
    let dir = std::env::temp_dir().join(format!("vyre-replay-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    let corrupted = dir.join("corrupted.json");
    let saved = std::fs::read_to_string(checked_in_case()).expect("the checked-in case");
    std::fs::write(
        &corrupted,
        saved.replace("program @workgroup_size", "progrm @workgroup_size"),
    )
    .expect("writing the corrupted case");
    let truncated = dir.join("truncated.json");
    std::fs::write(&truncated, &saved[..saved.len() / 2]).expect("writing the truncated case");
    let good = checked_in_case();
    for bad in [&corrupted, &truncated, &dir.join("missing.json")] {
        // Nothing runs, not even the good case given first.
        let output = bare(&[
            "replay",
            "--backend",
            "reference",
            &good.to_string_lossy(),
            &bad.to_string_lossy(),
        ]);
        let err = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{}", text(&output));
        assert!(output.stdout.is_empty(), "{}", text(&output));
        assert!(
            err.contains(&*bad.to_string_lossy())
                && err.trim_end().ends_with('.')
                && err.contains("Fix:"),
            "{err}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn fuzz_minutes_take_fractions_and_refuse_what_is_no_time_limit() {
    let ok = bare(&[
        "fuzz",
        "--backend",
        "reference",
        "--cases",
        "16",
        "--minutes",
        "0.5",
        "--quiet",
    ]);
    assert_eq!(ok.status.code(), Some(0), "{}", text(&ok));
    for minutes in ["-1", "nan", "inf", "1e300"] {
        let output = bare(&[
            "fuzz",
            "--backend",
            "reference",
            &format!("--minutes={minutes}"),
        ]);
        let err = String::from_utf8_lossy(&output.stderr);
        assert_eq!(
            output.status.code(),
            Some(2),
            "{minutes}: {}",
            text(&output)
        );
        assert_eq!(err.trim_end().lines().count(), 1, "{minutes}: {err}");
        let fix = err.rsplit("Fix: ").next().unwrap_or_default();
        assert!(
            err.contains("Fix: ") && fix.contains("--minutes"),
            "{minutes}: {err}"
        );
    }
}

#[test]
fn fuzz_metamorphic_runs_a_backend_against_itself() {
    let output = bare(&[
        "fuzz",
        "--metamorphic",
        "--backend",
        "reference",
        "--cases",
        "24",
        "--quiet",
        "--json",
        "-",
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output));
    let summary: serde_json::Value =
        serde_json::from_slice(&output.stdout).expect("stdout is one JSON document");
    assert_eq!(summary["mode"], "metamorphic", "{summary}");
    assert_eq!(summary["programs"], 24, "{summary}");
}

#[test]
fn fuzz_pass_names_an_unknown_pass_with_the_known_ones() {
    let output = bare(&["fuzz", "--pass", "no-such-pass", "--cases", "4", "--quiet"]);
    let err = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{}", text(&output));
    assert!(
        err.contains("`no-such-pass`") && err.contains("Fix:"),
        "{err}"
    );
    let known = vyre_foundation::pass::builtin();
    for name in known.iter().map(|p| p.name()).chain(["all", "standard"]) {
        assert!(
            err.contains(&format!("`{name}`")),
            "{name} not listed: {err}"
        );
    }
}

/// Every built-in pass, and the standard pipeline, checked through the command line: clean when
/// the pipeline has passes, and "checked on nothing" (exit 1) while it has none.
#[test]
fn fuzz_pass_checks_each_built_in_pass_and_the_standard_pipeline() {
    let names: Vec<&str> = vyre_foundation::pass::builtin()
        .iter()
        .map(|p| p.name())
        .collect();
    for name in &names {
        let output = bare(&["fuzz", "--pass", name, "--cases", "300", "--quiet"]);
        assert_eq!(output.status.code(), Some(0), "{name}: {}", text(&output));
    }
    let output = bare(&["fuzz", "--pass", "standard", "--cases", "300", "--quiet"]);
    let out = String::from_utf8_lossy(&output.stdout);
    assert!(
        out.starts_with("fuzz --pass standard seed 1: 300 programs"),
        "{out}"
    );
    if names.is_empty() {
        assert_eq!(output.status.code(), Some(1), "{}", text(&output));
        assert!(text(&output).contains("no passes"), "{}", text(&output));
        assert!(out.contains("proves nothing"), "{out}");
    } else {
        assert_eq!(output.status.code(), Some(0), "{}", text(&output));
    }
}
