//! The crate's modules form layers that only look down: every `crate::` path in a module names itself
//! or a module of a lower layer (ARCHITECTURE.md lists them). A module that reaches up would let state
//! and calls flow in a circle again, as `backend`, `exec`, `pipeline` and `coalesce` once did.

use std::path::{Path, PathBuf};

/// The layers, lowest first. A module may use itself and any module listed before it.
const LAYERS: &[&str] = &[
    "workarounds", // The driver bugs table and the workaround sets; no device.
    "passes",      // The IR pass pipeline in force; no device.
    "lower",       // IR to naga, the params layout; no device.
    "trusted",     // Shader modules without wgpu's bounds checks: the proof and the one call.
    "stats",       // The counters and their snapshot.
    "lifecycle",   // The process-wide turn for creating and tearing down devices.
    "disk",        // The disk pipeline cache: file format, directory, load and save.
    "poller",      // Signals of wgpu callbacks, and the thread per device that drives them.
    "device",      // Adapter, device, loss detection.
    "pool",        // Pooled device buffers.
    "groups",      // The bind groups a pipeline reuses.
    "known",       // Known programs: evidence, fingerprint and facts, kept; the memo of them.
    "pipeline",    // One compiled pipeline.
    "launch",      // One launch, given a context: upload, encode, submit and wait, readback.
    "cache",       // The bounded LRU pipeline cache.
    "backend",     // `WgpuBackend`: owns the shared state, plain dispatch, recovery.
    "engine",      // Coalesced, packed and persistent runs; `WgpuPipeline`.
    "api", // `impl VyreBackend for WgpuBackend`: the trait over the backend and the engines.
    "testing", // Helpers for tests.
];

/// Every `crate::` path in `source` outside comments: the name right after `crate::` (each name of
/// a `crate::{a, b}` group).
fn crate_paths(source: &str) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    for (n, line) in source.lines().enumerate() {
        let code = line.split("//").next().unwrap_or("");
        let mut rest = code;
        while let Some(at) = rest.find("crate::") {
            rest = &rest[at + "crate::".len()..];
            let names: Vec<&str> = if let Some(group) = rest.strip_prefix('{') {
                let inner = group.split('}').next().unwrap_or("");
                inner.split(',').map(str::trim).collect()
            } else {
                vec![rest]
            };
            for name in names {
                let ident: String = name
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                if !ident.is_empty() {
                    found.push((n + 1, ident));
                }
            }
        }
    }
    found
}

/// The violations in `source`, a file of module `module`: upward or unknown `crate::` paths.
fn violations(module: &str, source: &str) -> Vec<String> {
    let rank = |m: &str| LAYERS.iter().position(|l| *l == m);
    let Some(own) = rank(module) else {
        return vec![format!(
            "module `{module}` is in no layer: add it to LAYERS and ARCHITECTURE.md"
        )];
    };
    let mut bad = Vec::new();
    for (line, name) in crate_paths(source) {
        match rank(&name) {
            Some(used) if used <= own => {}
            Some(_) => bad.push(format!(
                "line {line}: `{module}` uses `crate::{name}`, a layer above it"
            )),
            // A root re-export (`crate::WgpuBackend`) hides which layer it comes from.
            None => bad.push(format!(
                "line {line}: `{module}` uses `crate::{name}`; name the module it lives in"
            )),
        }
    }
    bad
}

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// This crate's `src`: under `VYRE_REPO` when it is set (a test binary carried away from the
/// checkout it was built in, as the other fixtures find theirs), else where it was built.
fn source_dir() -> PathBuf {
    match std::env::var_os(vyre_conformance::fuzz::REPO_ENV) {
        Some(root) => Path::new(&root).join("vyre-driver-wgpu").join("src"),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
    }
}

#[test]
fn no_module_uses_a_module_of_a_layer_above_it() {
    let src = source_dir();
    let mut files = Vec::new();
    sources(&src, &mut files);
    files.sort();
    let mut bad = Vec::new();
    for file in &files {
        let relative = file.strip_prefix(&src).unwrap_or(file);
        let first = relative.components().next().map(|c| c.as_os_str());
        let module = first
            .and_then(|c| c.to_str())
            .map(|c| c.trim_end_matches(".rs"))
            .unwrap_or_default();
        if module == "lib" {
            continue;
        }
        let source = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{relative:?}: {e}"));
        bad.extend(
            violations(module, &source)
                .into_iter()
                .map(|v| format!("{}: {v}", relative.display())),
        );
    }
    assert!(files.len() > LAYERS.len(), "found only {files:?}");
    assert!(bad.is_empty(), "upward uses:\n{}", bad.join("\n"));
}

#[test]
fn the_layer_check_catches_upward_grouped_and_root_paths() {
    let source = "use crate::device::DeviceState;\nuse crate::{pool, backend::WgpuBackend};\n// crate::engine in a comment is fine\nlet x = crate::WgpuBackend::acquire();\n";
    let bad = violations("launch", source);
    assert_eq!(bad.len(), 2, "{bad:?}");
    assert!(bad[0].contains("crate::backend"), "{bad:?}");
    assert!(bad[1].contains("crate::WgpuBackend"), "{bad:?}");
    assert!(violations("backend", "use crate::launch::Job;").is_empty());
    assert_eq!(violations("nowhere", "").len(), 1);
}
