//! The disk pipeline cache on a real device (lavapipe in CI): a second backend finds the first's
//! file; truncated, corrupted, foreign, empty and unreadable files and unwritable directories are
//! ignored with a logged warning while pipelines still compile and run; `off` writes nothing;
//! concurrent processes leave a valid file; a recovered device loads the file again.
//!
//! Every test works in its own directory, chosen through `AdapterOptions` (never through this
//! process's environment). Tests that need other processes run this test binary again, with the
//! role in the child's environment only.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Mutex, Once};
use std::thread::ThreadId;

use vyre_driver::{DispatchConfig, VyreBackend};
use vyre_driver_wgpu::testing::backend_with_or_skip;
use vyre_driver_wgpu::{AdapterOptions, DiskCacheLoad, PipelineCacheDir, WgpuBackend};
use vyre_foundation::ir::{BufferDecl, DataType, Expr, Node, Program};

/// Set in a child process's environment to the role it plays (never in this process's).
const CHILD_ENV: &str = "VYRE_DISK_CACHE_TEST_CHILD";

fn bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

fn words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// A fresh, empty directory, removed when dropped.
struct TempDir(PathBuf);

impl std::ops::Deref for TempDir {
    type Target = Path;

    fn deref(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A fresh, empty directory for `test`.
fn fresh_dir(test: &str) -> TempDir {
    let dir = std::env::temp_dir()
        .join("vyre-disk-cache-tests")
        .join(format!("{test}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    TempDir(dir)
}

fn options(dir: &Path) -> AdapterOptions {
    AdapterOptions::new().with_pipeline_cache(PipelineCacheDir::At(dir.to_path_buf()))
}

/// A backend keeping its cache in `dir`, or `None` when there is no adapter or the adapter keeps no
/// pipeline cache (not Vulkan): both say that the test skipped.
fn backend_in(test: &str, dir: &Path) -> Option<WgpuBackend> {
    let backend = backend_with_or_skip(test, &options(dir))?;
    match backend.disk_cache().load {
        DiskCacheLoad::Unavailable(why) => {
            eprintln!("skipped {test}: no disk pipeline cache on this adapter ({why})");
            None
        }
        _ => Some(backend),
    }
}

/// `out[i] = in[i] * k + k`: a distinct program (and pipeline) for every `k`.
fn program(k: u32) -> Program {
    let i = Expr::gid_x();
    Program::wrapped(
        vec![
            BufferDecl::read("input", 0, DataType::U32).with_count(256),
            BufferDecl::output("out", 1, DataType::U32).with_count(256),
        ],
        [64, 1, 1],
        vec![Node::store(
            "out",
            i.clone(),
            Expr::add(
                Expr::mul(Expr::load("input", i), Expr::u32(k)),
                Expr::u32(k),
            ),
        )],
    )
}

/// Runs programs `ks` on `backend` and checks their results.
fn run_and_check(backend: &WgpuBackend, ks: std::ops::Range<u32>) {
    let input: Vec<u32> = (0..256).collect();
    for k in ks {
        let out = backend
            .dispatch(&program(k), &[bytes(&input)], &DispatchConfig::default())
            .expect("dispatch");
        let expected: Vec<u32> = input.iter().map(|x| x * k + k).collect();
        assert_eq!(words(&out[0]), expected, "program {k}");
    }
}

/// The one cache file in `dir` (its name comes from the adapter).
fn cache_file(dir: &Path) -> PathBuf {
    let files = files_in(dir);
    assert_eq!(
        files.len(),
        1,
        "one cache file in {}: {files:?}",
        dir.display()
    );
    files[0].clone()
}

fn files_in(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .map(|entries| entries.flatten().map(|e| e.path()).collect())
        .unwrap_or_default()
}

/// Writes a valid cache file into `dir` (two pipelines) and returns its path.
fn write_valid_cache(test: &str, dir: &Path) -> Option<PathBuf> {
    let backend = backend_in(test, dir)?;
    run_and_check(&backend, 0..2);
    drop(backend);
    Some(cache_file(dir))
}

/// Warnings this crate logged on this thread, collected by a logger this test binary installs.
fn warnings_on_this_thread() -> Vec<String> {
    let me = std::thread::current().id();
    LOGGED
        .lock()
        .map(|l| {
            l.iter()
                .filter(|(t, _)| *t == me)
                .map(|(_, m)| m.clone())
                .collect()
        })
        .unwrap_or_default()
}

static LOGGED: Mutex<Vec<(ThreadId, String)>> = Mutex::new(Vec::new());

struct Capture;

impl log::Log for Capture {
    fn enabled(&self, metadata: &log::Metadata<'_>) -> bool {
        metadata.level() <= log::Level::Warn && metadata.target().starts_with("vyre_driver_wgpu")
    }

    fn log(&self, record: &log::Record<'_>) {
        if self.enabled(record.metadata())
            && let Ok(mut logged) = LOGGED.lock()
        {
            logged.push((std::thread::current().id(), record.args().to_string()));
        }
    }

    fn flush(&self) {}
}

fn capture_warnings() {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        if log::set_logger(&Capture).is_ok() {
            log::set_max_level(log::LevelFilter::Warn);
        }
    });
}

#[test]
fn a_second_backend_in_a_fresh_dir_loads_the_file_the_first_wrote() {
    let test = "a_second_backend_in_a_fresh_dir_loads_the_file_the_first_wrote";
    let dir = fresh_dir(test);
    let Some(first) = backend_in(test, &dir) else {
        return;
    };
    assert_eq!(first.disk_cache().load, DiskCacheLoad::NoFile);
    run_and_check(&first, 0..3);
    drop(first);
    let file = cache_file(&dir);
    let name = file.file_name().and_then(|n| n.to_str()).unwrap_or("");
    assert!(name.starts_with("wgpu_pipeline_cache_vulkan_"), "{name}");
    let second = backend_in(test, &dir).expect("the adapter is still there");
    let status = second.disk_cache();
    assert_eq!(status.path.as_deref(), Some(file.as_path()));
    assert!(
        matches!(status.load, DiskCacheLoad::Loaded { bytes } if bytes > 0),
        "{status:?}"
    );
    run_and_check(&second, 0..4);
    // One more pipeline was compiled: it is saved (now, or already by a save after the compile if
    // this machine took two seconds); with nothing new, saving writes nothing.
    second.save_pipeline_cache();
    assert!(!second.save_pipeline_cache());
    assert_eq!(second.disk_cache().saves, 1);
}

/// Writes a valid file, spoils it with `spoil`, and checks that a backend ignores it with a warning
/// that says `why`, still compiles and runs, and writes a valid file again.
fn spoiled_file_is_ignored(test: &str, spoil: impl Fn(&mut Vec<u8>), why: &str) {
    capture_warnings();
    let dir = fresh_dir(test);
    let Some(file) = write_valid_cache(test, &dir) else {
        return;
    };
    let mut data = std::fs::read(&file).expect("the cache file");
    spoil(&mut data);
    std::fs::write(&file, &data).expect("spoiling the cache file");
    let backend = backend_in(test, &dir).expect("the adapter is still there");
    let load = backend.disk_cache().load;
    assert!(
        matches!(&load, DiskCacheLoad::Ignored(reason) if reason.contains(why)),
        "{load:?}"
    );
    let warnings = warnings_on_this_thread();
    assert!(
        warnings
            .iter()
            .any(|w| w.contains(&file.display().to_string()) && w.contains(why)),
        "no warning naming the file and {why:?}: {warnings:?}"
    );
    run_and_check(&backend, 0..3);
    drop(backend);
    let again = backend_in(test, &dir).expect("the adapter is still there");
    assert!(
        matches!(again.disk_cache().load, DiskCacheLoad::Loaded { .. }),
        "the spoiled file was not replaced: {:?}",
        again.disk_cache()
    );
}

#[test]
fn a_truncated_file_is_ignored() {
    spoiled_file_is_ignored(
        "a_truncated_file_is_ignored",
        |d| d.truncate(d.len() - 1),
        "truncated",
    );
}

#[test]
fn a_file_cut_inside_its_header_is_ignored() {
    spoiled_file_is_ignored(
        "a_file_cut_inside_its_header_is_ignored",
        |d| d.truncate(30),
        "header",
    );
}

#[test]
fn an_empty_file_is_ignored() {
    spoiled_file_is_ignored("an_empty_file_is_ignored", Vec::clear, "empty");
}

#[test]
fn random_bytes_are_ignored() {
    spoiled_file_is_ignored(
        "random_bytes_are_ignored",
        |d| {
            // A fixed xorshift stream: the same "random" file every run.
            let mut x = 0x9e37_79b9_u32;
            for byte in d.iter_mut() {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                *byte = x.to_le_bytes()[0];
            }
        },
        "magic",
    );
}

#[test]
fn a_flipped_byte_in_the_blob_is_ignored() {
    spoiled_file_is_ignored(
        "a_flipped_byte_in_the_blob_is_ignored",
        |d| {
            let last = d.len() - 1;
            d[last] ^= 0x01;
        },
        "checksum",
    );
}

#[test]
fn a_file_for_another_lowering_version_is_ignored() {
    // Bytes 12..16 are the lowering version.
    spoiled_file_is_ignored(
        "a_file_for_another_lowering_version_is_ignored",
        |d| d[12] ^= 0x01,
        "another adapter",
    );
}

#[test]
fn a_file_for_another_adapter_is_ignored() {
    spoiled_file_is_ignored(
        "a_file_for_another_adapter_is_ignored",
        |d| {
            let key = b"wgpu_pipeline_cache_vulkan";
            let at = d
                .windows(key.len())
                .position(|w| w == key)
                .expect("the adapter key in the header");
            d[at] = b'W';
        },
        "another adapter",
    );
}

#[test]
fn an_unwritable_directory_is_ignored() {
    let test = "an_unwritable_directory_is_ignored";
    capture_warnings();
    let dir = fresh_dir(test);
    // A directory below a regular file can be neither read nor created, even by root.
    let blocker = dir.join("not-a-directory");
    std::fs::write(&blocker, b"a file").expect("the blocking file");
    let Some(backend) = backend_in(test, &blocker.join("cache")) else {
        return;
    };
    run_and_check(&backend, 0..2);
    assert!(!backend.save_pipeline_cache());
    let status = backend.disk_cache();
    assert!(status.failed_saves >= 1 && status.saves == 0, "{status:?}");
    let warnings = warnings_on_this_thread();
    assert!(
        warnings.iter().any(|w| w.contains("was not saved")),
        "{warnings:?}"
    );
    run_and_check(&backend, 2..3);
    assert_eq!(files_in(&dir), vec![blocker]);
}

#[test]
fn off_writes_nothing() {
    let test = "off_writes_nothing";
    let dir = fresh_dir(test);
    let options = options(&dir).with_pipeline_cache(PipelineCacheDir::Off);
    let Some(backend) = backend_with_or_skip(test, &options) else {
        return;
    };
    assert!(matches!(backend.disk_cache().load, DiskCacheLoad::Off(_)));
    run_and_check(&backend, 0..2);
    assert!(!backend.save_pipeline_cache());
    drop(backend);
    assert!(files_in(&dir).is_empty());
}

/// Runs this test binary's test `test` in a child process with `role` and the environment `env`.
fn spawn_child(test: &str, role: &str, env: &[(&str, &Path)]) -> std::process::Child {
    let exe = std::env::current_exe().expect("the test binary");
    let mut command = Command::new(exe);
    command
        .args([test, "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD_ENV, role);
    for (name, value) in env {
        command.env(name, value);
    }
    command.spawn().expect("a child process")
}

fn wait_ok(child: std::process::Child) {
    let output = child.wait_with_output().expect("the child process");
    assert!(
        output.status.success(),
        "a child process failed: {output:?}"
    );
}

#[test]
fn the_environment_variable_picks_the_directory_or_turns_the_cache_off() {
    let test = "the_environment_variable_picks_the_directory_or_turns_the_cache_off";
    if let Ok(role) = std::env::var(CHILD_ENV) {
        // In the child: the default options, so the directory comes from the environment.
        let Some(backend) = backend_with_or_skip(test, &AdapterOptions::new()) else {
            return;
        };
        let load = backend.disk_cache().load;
        match role.as_str() {
            "off" => assert!(matches!(load, DiskCacheLoad::Off(_)), "{load:?}"),
            _ => assert!(
                matches!(load, DiskCacheLoad::NoFile | DiskCacheLoad::Unavailable(_)),
                "{load:?}"
            ),
        }
        run_and_check(&backend, 0..2);
        return;
    }
    let dir = fresh_dir(test);
    // Every place the cache could go by default points into `dir`.
    let home = dir.join("home");
    let xdg = dir.join("xdg");
    let off = Path::new("off");
    let chosen = dir.join("chosen");
    let defaults: [(&str, &Path); 3] = [
        ("HOME", &home),
        ("XDG_CACHE_HOME", &xdg),
        ("LOCALAPPDATA", &xdg),
    ];
    // vyre writes into none of the default places. (The driver may: Mesa keeps its own shader cache
    // in `$XDG_CACHE_HOME/mesa_shader_cache`, which is not vyre's to govern.)
    let no_vyre_dir_by_default = || {
        for default in [home.join(".cache").join("vyre"), xdg.join("vyre")] {
            assert!(!default.exists(), "{} was written", default.display());
        }
    };
    let mut with_off = defaults.to_vec();
    with_off.push(("VYRE_CACHE_DIR", off));
    wait_ok(spawn_child(test, "off", &with_off));
    no_vyre_dir_by_default();
    assert!(!chosen.exists());
    let mut with_dir = defaults.to_vec();
    with_dir.push(("VYRE_CACHE_DIR", &chosen));
    wait_ok(spawn_child(test, "dir", &with_dir));
    no_vyre_dir_by_default();
    // The chosen directory holds the cache file (when the adapter has a pipeline cache at all).
    let written = files_in(&chosen);
    assert!(written.len() <= 1, "{written:?}");
    // The default options with no variable set write to the user's cache directory.
    let mut unset = defaults.to_vec();
    unset.push(("VYRE_CACHE_DIR", Path::new("")));
    wait_ok(spawn_child(test, "dir", &unset));
    let default_dir = if cfg!(any(target_os = "windows", target_os = "linux")) {
        xdg.join("vyre")
    } else {
        home.join("Library").join("Caches").join("vyre")
    };
    assert_eq!(
        files_in(&default_dir).len(),
        written.len(),
        "{}",
        default_dir.display()
    );
}

#[test]
fn processes_saving_at_once_leave_a_valid_file() {
    let test = "processes_saving_at_once_leave_a_valid_file";
    if let Ok(role) = std::env::var(CHILD_ENV) {
        let dir = PathBuf::from(role);
        let Some(backend) = backend_in(test, &dir) else {
            return;
        };
        // Many saves, each after a new pipeline, so that the processes' writes overlap.
        for k in 0..12 {
            run_and_check(&backend, k..k + 1);
            backend.save_pipeline_cache();
        }
        return;
    }
    let dir = fresh_dir(test);
    if backend_in(test, &dir).is_none() {
        return;
    }
    let children: Vec<_> = (0..4)
        .map(|_| spawn_child(test, &dir.display().to_string(), &[]))
        .collect();
    for child in children {
        wait_ok(child);
    }
    // One file, no temporary leftovers, and it loads.
    let file = cache_file(&dir);
    assert!(
        file.extension().is_some_and(|e| e == "vyre-cache"),
        "{file:?}"
    );
    let backend = backend_in(test, &dir).expect("the adapter is still there");
    let load = backend.disk_cache().load;
    assert!(matches!(load, DiskCacheLoad::Loaded { .. }), "{load:?}");
    run_and_check(&backend, 0..12);
}

#[test]
fn a_recovered_device_loads_the_file_again() {
    let test = "a_recovered_device_loads_the_file_again";
    let dir = fresh_dir(test);
    if write_valid_cache(test, &dir).is_none() {
        return;
    }
    let backend = backend_in(test, &dir).expect("the adapter is still there");
    run_and_check(&backend, 2..3);
    backend.save_pipeline_cache();
    run_and_check(&backend, 3..4);
    backend.force_device_lost().expect("lose the device");
    run_and_check(&backend, 0..4);
    assert_eq!(backend.device_generation(), 1);
    let status = backend.disk_cache();
    // A new cache for the new device, loaded from the file the old one saved.
    assert!(
        matches!(status.load, DiskCacheLoad::Loaded { .. }),
        "{status:?}"
    );
    // The new cache's own count: no failed save. A periodic save may have run if the recovery and
    // the four compiles took longer than the save interval (seen on a loaded H100, where three test
    // binaries shared the GPU), so the count of saves is not pinned.
    assert_eq!(status.failed_saves, 0, "{status:?}");
}
