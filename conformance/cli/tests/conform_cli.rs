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
