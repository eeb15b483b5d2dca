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
