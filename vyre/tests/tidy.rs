//! Tidy tests: the dependency and source invariants of `ARCHITECTURE.md`, checked so that breaking
//! one fails the build instead of waiting for a reviewer to notice.
//!
//! The dependency checks read `cargo metadata` once and walk each crate's normal dependencies with
//! its features, the way `cargo tree -e normal` does, but over every target platform: an invariant
//! that held only on the host would not be one. `cargo metadata`'s own `resolve` cannot be used for
//! this, because it unifies features over the whole workspace (the conformance binary turns on the
//! facade's `wgpu` feature, which would hide what `--no-default-features` really pulls in).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use serde_json::Value;

/// Crates that only tests, generators and reports need; a user of the facade must never build them.
const TEST_ONLY: [&str; 5] = ["proptest", "serde", "serde_json", "tempfile", "rusty-fork"];

/// The repository's root: `VYRE_REPO` for a test binary carried away from its checkout.
fn repo() -> PathBuf {
    std::env::var_os("VYRE_REPO").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join(".."),
        PathBuf::from,
    )
}

// ---------------------------------------------------------------------------------------------
// cargo metadata, and a feature-aware walk of normal dependencies
// ---------------------------------------------------------------------------------------------

/// One dependency as a manifest declares it.
#[derive(Debug)]
struct Dep {
    /// The package's name.
    name: String,
    /// The name the depending crate knows it by (its `package = ...` rename, else `name`); features
    /// such as `dep:x` and `x/feature` refer to this one.
    key: String,
    optional: bool,
    uses_default_features: bool,
    features: Vec<String>,
}

/// One package: its features and its normal dependencies.
#[derive(Debug)]
struct Package {
    name: String,
    features: BTreeMap<String, Vec<String>>,
    normal: Vec<Dep>,
    /// The package as `cargo metadata` prints it (manifest fields such as `license`, `publish`).
    raw: Value,
}

/// The workspace's packages, and for each the packages its dependencies resolved to.
#[derive(Debug)]
struct Metadata {
    packages: BTreeMap<String, Package>,
    /// package id -> (package name of a dependency -> the ids it resolved to as a normal dependency).
    resolved: BTreeMap<String, BTreeMap<String, Vec<String>>>,
    members: Vec<String>,
}

/// `cargo metadata`, run once for all the dependency tests; `None` where no cargo can be started
/// (a test binary carried to a machine without a toolchain), which the tests report as a skip.
fn metadata() -> Option<&'static Metadata> {
    static METADATA: OnceLock<Option<Metadata>> = OnceLock::new();
    METADATA.get_or_init(load_metadata).as_ref()
}

fn load_metadata() -> Option<Metadata> {
    // Under `cargo test`, CARGO names the cargo running the tests; otherwise try the one that built
    // this binary, then whatever `cargo` is on PATH.
    let under_cargo = std::env::var_os("CARGO");
    let built_with = PathBuf::from(env!("CARGO"));
    let cargo = under_cargo.clone().map_or_else(
        || {
            if built_with.exists() {
                built_with
            } else {
                PathBuf::from("cargo")
            }
        },
        PathBuf::from,
    );
    let manifest = repo().join("Cargo.toml");
    let output = Command::new(&cargo)
        .args([
            "metadata",
            "--format-version",
            "1",
            "--locked",
            "--manifest-path",
        ])
        .arg(&manifest)
        .output();
    let output = match output {
        Ok(output) => output,
        Err(e) if under_cargo.is_none() => {
            eprintln!("skipped: no cargo to run here ({}: {e})", cargo.display());
            return None;
        }
        Err(e) => panic!("running {} metadata: {e}", cargo.display()),
    };
    assert!(
        output.status.success(),
        "cargo metadata --locked failed (run a plain `cargo build` if Cargo.lock is stale):\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let json: Value = serde_json::from_slice(&output.stdout).expect("cargo metadata prints JSON");
    Some(parse(&json))
}

fn strings(value: &Value) -> Vec<String> {
    value
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default()
}

fn parse(json: &Value) -> Metadata {
    let mut packages = BTreeMap::new();
    for p in json["packages"].as_array().expect("packages") {
        let normal = p["dependencies"]
            .as_array()
            .expect("dependencies")
            .iter()
            .filter(|d| d["kind"].is_null())
            .map(|d| {
                let name = d["name"].as_str().expect("dependency name").to_string();
                Dep {
                    key: d["rename"]
                        .as_str()
                        .map_or_else(|| name.clone(), String::from),
                    name,
                    optional: d["optional"].as_bool().unwrap_or(false),
                    uses_default_features: d["uses_default_features"].as_bool().unwrap_or(true),
                    features: strings(&d["features"]),
                }
            })
            .collect();
        let features = p["features"]
            .as_object()
            .map(|f| f.iter().map(|(k, v)| (k.clone(), strings(v))).collect())
            .unwrap_or_default();
        let id = p["id"].as_str().expect("package id").to_string();
        let name = p["name"].as_str().expect("package name").to_string();
        packages.insert(
            id,
            Package {
                name,
                features,
                normal,
                raw: p.clone(),
            },
        );
    }
    let mut resolved: BTreeMap<String, BTreeMap<String, Vec<String>>> = BTreeMap::new();
    for node in json["resolve"]["nodes"].as_array().expect("resolve nodes") {
        let id = node["id"].as_str().expect("node id").to_string();
        let entry = resolved.entry(id).or_default();
        for dep in node["deps"].as_array().expect("node deps") {
            let normal = dep["dep_kinds"]
                .as_array()
                .is_some_and(|kinds| kinds.iter().any(|k| k["kind"].is_null()));
            let pkg = dep["pkg"].as_str().expect("dep pkg").to_string();
            if let (true, Some(p)) = (normal, packages.get(&pkg)) {
                entry.entry(p.name.clone()).or_default().push(pkg);
            }
        }
    }
    Metadata {
        packages,
        resolved,
        members: strings(&json["workspace_members"]),
    }
}

/// What a set of enabled features turns on in one package: optional dependencies (by key) and
/// features of dependencies (by key; weak `x?/f` ones apply only when `x` is on anyway).
#[derive(Default)]
struct Enabled {
    optional: BTreeSet<String>,
    dep_features: BTreeMap<String, BTreeSet<String>>,
}

fn expand(package: &Package, requested: &BTreeSet<String>) -> Enabled {
    let mut on = Enabled::default();
    let mut seen = BTreeSet::new();
    let mut work: Vec<String> = requested.iter().cloned().collect();
    while let Some(feature) = work.pop() {
        if !seen.insert(feature.clone()) {
            continue;
        }
        let Some(entries) = package.features.get(&feature) else {
            // An optional dependency without a `dep:` entry anywhere is its own implicit feature.
            if package
                .normal
                .iter()
                .any(|d| d.optional && d.key == feature)
            {
                on.optional.insert(feature);
            }
            continue;
        };
        for entry in entries {
            if let Some(dep) = entry.strip_prefix("dep:") {
                on.optional.insert(dep.to_string());
            } else if let Some((dep, f)) = entry.split_once('/') {
                let (dep, weak) = dep.strip_suffix('?').map_or((dep, false), |d| (d, true));
                if !weak {
                    on.optional.insert(dep.to_string());
                    work.push(dep.to_string());
                }
                on.dep_features
                    .entry(dep.to_string())
                    .or_default()
                    .insert(f.to_string());
            } else {
                work.push(entry.clone());
            }
        }
    }
    on
}

impl Metadata {
    fn id_of(&self, name: &str) -> &str {
        self.members
            .iter()
            .find(|id| self.packages.get(*id).is_some_and(|p| p.name == name))
            .unwrap_or_else(|| panic!("`{name}` is not a workspace member"))
    }

    /// The names of every package in the normal dependency closure of workspace member `root`
    /// built with `features` (and its default features when `default`), on any target platform.
    fn closure(&self, root: &str, features: &[&str], default: bool) -> BTreeSet<String> {
        let mut want: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        let mut root_features: BTreeSet<String> = features.iter().map(|f| f.to_string()).collect();
        if default {
            root_features.insert("default".into());
        }
        want.insert(self.id_of(root).to_string(), root_features);
        // Features only ever grow, so repeating until nothing changes reaches the fixpoint that
        // weak (`x?/f`) features and features arriving late from another dependent need.
        loop {
            let mut changed = false;
            let ids: Vec<String> = want.keys().cloned().collect();
            for id in ids {
                let package = &self.packages[&id];
                let on = expand(package, &want[&id]);
                for dep in &package.normal {
                    if dep.optional && !on.optional.contains(&dep.key) {
                        continue;
                    }
                    let mut features: BTreeSet<String> = dep.features.iter().cloned().collect();
                    if dep.uses_default_features {
                        features.insert("default".into());
                    }
                    features.extend(on.dep_features.get(&dep.key).into_iter().flatten().cloned());
                    let targets = self
                        .resolved
                        .get(&id)
                        .and_then(|r| r.get(&dep.name))
                        .into_iter()
                        .flatten();
                    for target in targets {
                        let is_new = !want.contains_key(target);
                        let entry = want.entry(target.clone()).or_default();
                        let before = entry.len();
                        entry.extend(features.iter().cloned());
                        changed |= is_new || entry.len() != before;
                    }
                }
            }
            if !changed {
                break;
            }
        }
        want.keys()
            .map(|id| self.packages[id].name.clone())
            .collect()
    }
}

/// The members of `closure` that `forbidden` names, as a sorted list for the failure message.
fn found(closure: &BTreeSet<String>, forbidden: impl Fn(&str) -> bool) -> Vec<&str> {
    closure
        .iter()
        .map(String::as_str)
        .filter(|n| forbidden(n))
        .collect()
}

// ---------------------------------------------------------------------------------------------
// The invariants
// ---------------------------------------------------------------------------------------------

#[test]
fn vyre_foundation_has_no_gpu_or_backend_dependency() {
    let Some(meta) = metadata() else { return };
    let workspace: BTreeSet<String> = meta
        .members
        .iter()
        .map(|id| meta.packages[id].name.clone())
        .collect();
    let closure = meta.closure("vyre-foundation", &[], true);
    let bad = found(&closure, |name| {
        name.starts_with("wgpu")
            || name == "naga"
            || (name != "vyre-foundation" && workspace.contains(name))
    });
    assert!(
        bad.is_empty(),
        "vyre-foundation depends on {bad:?}. Fix: the IR and validator must build without any GPU \
         crate or backend (ARCHITECTURE.md); move the code that needs them into a driver crate."
    );
}

#[test]
fn the_facade_never_builds_test_only_crates() {
    let Some(meta) = metadata() else { return };
    for (default, how) in [(true, "default features"), (false, "no default features")] {
        let closure = meta.closure("vyre", &[], default);
        let bad = found(&closure, |name| TEST_ONLY.contains(&name));
        assert!(
            bad.is_empty(),
            "vyre with {how} depends on {bad:?}. Fix: keep test, generator and report crates out \
             of the facade's normal dependencies (a dev-dependency, or a crate users do not build)."
        );
    }
}

/// Async runtimes and their helper crates: the async API is `std::future` futures driven by the
/// backends themselves, so no library crate may need one.
fn is_runtime(name: &str) -> bool {
    [
        "tokio",
        "async-std",
        "smol",
        "async-executor",
        "pollster-async",
    ]
    .contains(&name)
        || name.starts_with("futures")
        || name.starts_with("tokio-")
}

#[test]
fn no_library_crate_depends_on_an_async_runtime() {
    let Some(meta) = metadata() else { return };
    for library in [
        "vyre-foundation",
        "vyre-driver",
        "vyre-driver-wgpu",
        "vyre-reference",
        "vyre",
    ] {
        for default in [true, false] {
            let closure = meta.closure(library, &[], default);
            let bad = found(&closure, is_runtime);
            assert!(
                bad.is_empty(),
                "{library} depends on {bad:?}. Fix: the async API needs only `std::future` and \
                 `std::task`; take an async runtime as a dev-dependency of the tests that use it."
            );
        }
    }
}

/// DataFusion, Arrow and their tree (Parquet, Ballista, protobuf) are vyre-datafusion's alone: a user
/// of the facade or a backend never builds them. The one exception is the vyre-conform command's
/// `datafusion` feature (on by default: `fuzz --datafusion` runs generated programs as DataFusion
/// functions), so vyre-conform is checked without its default features.
fn is_query_engine(name: &str) -> bool {
    [
        "datafusion",
        "arrow",
        "parquet",
        "ballista",
        "prost",
        "sqlparser",
    ]
    .iter()
    .any(|prefix| name.starts_with(prefix))
}

#[test]
fn no_crate_but_vyre_datafusion_depends_on_datafusion() {
    let Some(meta) = metadata() else { return };
    for library in [
        "vyre-foundation",
        "vyre-driver",
        "vyre-driver-wgpu",
        "vyre-reference",
        "vyre",
        "vyre-conformance",
        "vyre-conform",
    ] {
        for default in [true, false] {
            if library == "vyre-conform" && default {
                continue;
            }
            let closure = meta.closure(library, &[], default);
            let bad = found(&closure, is_query_engine);
            assert!(
                bad.is_empty(),
                "{library} depends on {bad:?}. Fix: DataFusion and Arrow belong to vyre-datafusion \
                 alone; move the code that needs them there."
            );
        }
    }
}

#[test]
fn the_facade_without_default_features_has_no_gpu_dependency() {
    let Some(meta) = metadata() else { return };
    let closure = meta.closure("vyre", &[], false);
    let bad = found(&closure, |name| {
        name.starts_with("wgpu") || name == "naga" || name == "vyre-driver-wgpu"
    });
    assert!(
        bad.is_empty(),
        "vyre with no default features depends on {bad:?}. Fix: pull wgpu in only through the \
         facade's `wgpu` feature."
    );
}

#[test]
fn the_conformance_library_reaches_no_backend_but_the_reference() {
    let Some(meta) = metadata() else { return };
    let closure = meta.closure("vyre-conformance", &[], false);
    let bad = found(&closure, |name| {
        name.starts_with("wgpu") || ["naga", "vyre-driver-wgpu", "vyre"].contains(&name)
    });
    assert!(
        bad.is_empty(),
        "vyre-conformance with no default features depends on {bad:?}. Fix: the library sees \
         backends only through `VyreBackend`; only the vyre-conform binary (conformance/cli) may \
         pull in the facade, and tests take vyre-driver-wgpu as a dev-dependency."
    );
}

#[test]
fn no_library_crate_depends_on_the_command_line_crates() {
    let Some(meta) = metadata() else { return };
    for library in [
        "vyre-foundation",
        "vyre-driver",
        "vyre-driver-wgpu",
        "vyre-reference",
        "vyre-conformance",
        "vyre",
    ] {
        let closure = meta.closure(library, &[], true);
        let bad = found(&closure, |name| {
            name.starts_with("clap") || name == "indicatif" || name == "console"
        });
        assert!(
            bad.is_empty(),
            "{library} depends on {bad:?}. Fix: argument parsing and progress bars belong to the \
             binaries (conformance/cli, vyre-driver-wgpu/bench), never to a library."
        );
    }
}

/// Every `.rs` file under `dir`, skipping the directories in `skip`.
fn rust_files(dir: &Path, skip: &[PathBuf], out: &mut Vec<PathBuf>) {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for entry in entries {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            if !skip.contains(&path) {
                rust_files(&path, skip, out);
            }
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn the_conformance_library_never_names_the_wgpu_backend() {
    let src = repo().join("conformance").join("src");
    let mut files = Vec::new();
    rust_files(&src, &[src.join("bin")], &mut files);
    assert!(
        files.iter().any(|f| f.ends_with("lib.rs")),
        "no conformance sources under {}",
        src.display()
    );
    let mut hits = Vec::new();
    for file in &files {
        let text =
            std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        for (n, line) in text.lines().enumerate() {
            if line.contains("vyre_driver_wgpu") || line.contains("WgpuBackend") {
                let shown = file.strip_prefix(&src).unwrap_or(file);
                hits.push(format!("{}:{}: {}", shown.display(), n + 1, line.trim()));
            }
        }
    }
    assert!(
        hits.is_empty(),
        "the conformance library (conformance/src) names the wgpu backend:\n{}\nFix: it sees backends only through \
         `VyreBackend`; take one as an argument, and leave picking it to `vyre::backend` (or to a \
         test's dev-dependency, or to src/bin).",
        hits.join("\n")
    );
}

#[test]
fn every_publishable_crate_has_full_metadata_and_both_licenses() {
    let Some(meta) = metadata() else { return };
    let root = repo();
    let mut problems = Vec::new();
    for id in &meta.members {
        let package = &meta.packages[id];
        let raw = &package.raw;
        // `publish = false` is an empty registry list.
        if raw["publish"].as_array().is_some_and(Vec::is_empty) {
            continue;
        }
        for field in [
            "description",
            "license",
            "repository",
            "readme",
            "rust_version",
        ] {
            if raw[field].as_str().is_none_or(str::is_empty) {
                problems.push(format!("{}: no `{field}`", package.name));
            }
        }
        if raw["homepage"].is_null() && raw["documentation"].is_null() {
            problems.push(format!(
                "{}: neither `homepage` nor `documentation`",
                package.name
            ));
        }
        for field in ["keywords", "categories"] {
            if raw[field].as_array().is_none_or(Vec::is_empty) {
                problems.push(format!("{}: no `{field}`", package.name));
            }
        }
        let dir = Path::new(raw["manifest_path"].as_str().expect("manifest path"))
            .parent()
            .expect("a manifest's folder")
            .to_path_buf();
        for license in ["LICENSE-MIT", "LICENSE-APACHE"] {
            let here = std::fs::read(dir.join(license)).ok();
            let top = std::fs::read(root.join(license)).ok();
            if top.is_none() || here != top {
                problems.push(format!(
                    "{}: {license} is missing or differs from the repository's",
                    package.name
                ));
            }
        }
    }
    assert!(
        problems.is_empty(),
        "{}\nFix: set the field in the crate's Cargo.toml (most come from [workspace.package]), and \
         copy LICENSE-MIT and LICENSE-APACHE from the repository root into the crate's folder (cargo \
         package takes only files inside it).",
        problems.join("\n")
    );
}

/// ARCHITECTURE.md is the code map a newcomer reads in ten minutes: it names every source folder of
/// every crate (as `path/` from the crate's `src`, or its last component in backticks, `name/`),
/// so a new folder cannot go unmapped, and it stays short (proofs belong in the module docs).
#[test]
fn architecture_md_maps_every_source_folder_and_stays_short() {
    let root = repo();
    let text = std::fs::read_to_string(root.join("ARCHITECTURE.md")).expect("ARCHITECTURE.md");
    let lines = text.lines().count();
    assert!(
        lines <= 220,
        "ARCHITECTURE.md has {lines} lines; keep it a map of at most ~200 (link the module docs for the rest)"
    );
    fn folders(dir: &Path, base: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                out.push(path.strip_prefix(base).unwrap_or(&path).to_path_buf());
                folders(&path, base, out);
            }
        }
    }
    let mut missing = Vec::new();
    for src in [
        "vyre-foundation/src",
        "vyre-driver/src",
        "vyre-driver-wgpu/src",
        "vyre-driver-wgpu/bench/src",
        "vyre/src",
        "conformance/src",
        "conformance/reference/src",
        "conformance/cli/src",
        "vyre-datafusion/src",
        "vyre-datafusion/ballista/src",
    ] {
        let base = root.join(src);
        let mut found = Vec::new();
        folders(&base, &base, &mut found);
        for folder in found {
            let rel = folder.to_string_lossy().replace('\\', "/");
            let last = rel.rsplit('/').next().unwrap_or(&rel).to_string();
            if !text.contains(&format!("{rel}/")) && !text.contains(&format!("`{last}/`")) {
                missing.push(format!("{src}/{rel}"));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "ARCHITECTURE.md does not map these source folders: {missing:?}. Fix: add a line for each to its crate's section."
    );
}
