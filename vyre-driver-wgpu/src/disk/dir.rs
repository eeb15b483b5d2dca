//! Where cache files live, and how they are read and written: atomically, so that concurrent
//! processes never see a partial file.

use std::ffi::OsString;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// The environment variable naming the cache directory; `off` turns the disk cache off.
///
/// Read only when [`crate::AdapterOptions::pipeline_cache`] is [`PipelineCacheDir::FromEnv`] (the
/// default).
///
/// ```
/// use vyre_driver_wgpu::CACHE_DIR_ENV;
///
/// assert_eq!(CACHE_DIR_ENV, "VYRE_CACHE_DIR"); // e.g. `VYRE_CACHE_DIR=off my-app`
/// ```
pub const CACHE_DIR_ENV: &str = "VYRE_CACHE_DIR";

/// The largest cache file vyre reads or writes. Driver caches hold a few KiB per pipeline, and the
/// in-memory cache keeps at most 256 pipelines: a bigger file is not one vyre wrote, and reading it
/// whole would be a needless allocation.
pub(crate) const MAX_FILE_BYTES: u64 = 256 << 20;

/// Where the disk pipeline cache lives ([`crate::AdapterOptions::with_pipeline_cache`]).
///
/// ```
/// use vyre_driver_wgpu::{AdapterOptions, DiskCacheLoad, PipelineCacheDir, WgpuBackend};
///
/// assert_eq!(PipelineCacheDir::default(), PipelineCacheDir::FromEnv);
/// // Keep this application's pipelines in its own directory.
/// let dir = std::env::temp_dir().join(format!("vyre-doc-dir-{}", std::process::id()));
/// let options = AdapterOptions::new().with_pipeline_cache(PipelineCacheDir::At(dir.clone()));
/// let Ok(backend) = WgpuBackend::acquire_with(&options) else { return };
/// match backend.disk_cache().path {
///     Some(file) => assert!(file.starts_with(&dir)),
///     // Not Vulkan, or no `PIPELINE_CACHE` feature: no disk cache at all.
///     None => assert!(matches!(backend.disk_cache().load, DiskCacheLoad::Unavailable(_))),
/// }
/// drop(backend);
/// let _ = std::fs::remove_dir_all(&dir);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum PipelineCacheDir {
    /// `VYRE_CACHE_DIR` when set (`off` turns the cache off), else the user's cache directory
    /// plus `vyre`: `$XDG_CACHE_HOME/vyre` or `$HOME/.cache/vyre` on Linux, `$HOME/Library/Caches/vyre`
    /// on macOS, `%LOCALAPPDATA%\vyre` on Windows.
    #[default]
    FromEnv,
    /// This directory, whatever the environment says (created when the first file is written).
    At(PathBuf),
    /// No disk cache: every process compiles every pipeline.
    Off,
}

/// Why there is no cache directory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum NoDir {
    /// Turned off, by the options or the environment (says which).
    Off(String),
    /// No user cache directory could be found.
    NotFound(String),
}

/// The directory `choice` names, reading the environment through `env`. A pure function of `env`,
/// so its tests set no process-wide variables.
pub(crate) fn resolve(
    choice: &PipelineCacheDir,
    env: impl Fn(&str) -> Option<OsString>,
) -> Result<PathBuf, NoDir> {
    match choice {
        PipelineCacheDir::Off => Err(NoDir::Off("turned off in `AdapterOptions`".to_string())),
        PipelineCacheDir::At(dir) => Ok(dir.clone()),
        PipelineCacheDir::FromEnv => {
            let set = |name: &str| env(name).filter(|v| !v.is_empty());
            match set(CACHE_DIR_ENV) {
                Some(v) if v.eq_ignore_ascii_case("off") => {
                    Err(NoDir::Off(format!("turned off by {CACHE_DIR_ENV}=off")))
                }
                Some(v) => Ok(PathBuf::from(v)),
                None => user_cache_dir(set).map(|d| d.join("vyre")).ok_or_else(|| {
                    NoDir::NotFound(format!(
                        "no user cache directory found (set {CACHE_DIR_ENV} to choose one)"
                    ))
                }),
            }
        }
    }
}

/// The platform's per-user cache directory, from the environment.
fn user_cache_dir(env: impl Fn(&str) -> Option<OsString>) -> Option<PathBuf> {
    if cfg!(target_os = "windows") {
        env("LOCALAPPDATA").map(PathBuf::from)
    } else if cfg!(target_os = "macos") {
        env("HOME").map(|h| PathBuf::from(h).join("Library").join("Caches"))
    } else {
        // The XDG base directory rules: a relative XDG_CACHE_HOME is invalid and is ignored.
        env("XDG_CACHE_HOME")
            .map(PathBuf::from)
            .filter(|p| p.is_absolute())
            .or_else(|| env("HOME").map(|h| PathBuf::from(h).join(".cache")))
    }
}

/// The file's bytes; `Ok(None)` when there is no file.
///
/// Only a regular file is read, and never more than [`MAX_FILE_BYTES`]: a named pipe at the path
/// would block the open (and with it the backend's acquisition) until a writer came, and a link to
/// a device such as `/dev/zero` reports a length of 0 and never ends.
pub(crate) fn read(path: &Path) -> Result<Option<Vec<u8>>, String> {
    let not_file = |m: &std::fs::Metadata| {
        format!(
            "it is not a regular file ({:?}) and a vyre cache file is one",
            m.file_type()
        )
    };
    let size = match std::fs::metadata(path) {
        Ok(m) if !m.is_file() => return Err(not_file(&m)),
        Ok(m) => m.len(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("it could not be read ({e})")),
    };
    let too_big = |size: u64| {
        format!("it holds {size} bytes, more than the {MAX_FILE_BYTES} a vyre cache file may")
    };
    if size > MAX_FILE_BYTES {
        return Err(too_big(size));
    }
    let file = match std::fs::File::open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("it could not be read ({e})")),
    };
    // Checked again on the file opened, in case the path changed since; the read stops one byte
    // past the limit, whatever the file claims.
    match file.metadata() {
        Ok(m) if !m.is_file() => return Err(not_file(&m)),
        Ok(_) => {}
        Err(e) => return Err(format!("it could not be read ({e})")),
    }
    let mut bytes = Vec::new();
    match file.take(MAX_FILE_BYTES + 1).read_to_end(&mut bytes) {
        Ok(_) if bytes.len() as u64 > MAX_FILE_BYTES => Err(format!(
            "it holds more than the {MAX_FILE_BYTES} bytes a vyre cache file may"
        )),
        Ok(_) => Ok(Some(bytes)),
        Err(e) => Err(format!("it could not be read ({e})")),
    }
}

/// Distinguishes the temporary files of one process's threads and backends.
static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

/// Writes `bytes` to `path` atomically: a temporary file of a name no other writer uses (process id
/// and a counter) in the same directory, then renamed over `path`. Readers see the old file or the
/// new one, never part of one; of concurrent writers the last rename wins. The file is not synced
/// before the rename: after a power loss the file may be short or zeroed, which its length and
/// checksum reject, so the cost of an `fsync` on every save buys nothing.
pub(crate) fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), String> {
    let dir = path
        .parent()
        .ok_or_else(|| format!("{} has no directory", path.display()))?;
    std::fs::create_dir_all(dir)
        .map_err(|e| format!("the directory {} could not be created ({e})", dir.display()))?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let n = TEMP_COUNTER.fetch_add(1, Ordering::Relaxed);
    let temp = dir.join(format!(".{name}.{}.{n}.tmp", std::process::id()));
    let written = std::fs::File::create(&temp)
        .and_then(|mut f| f.write_all(bytes))
        .and_then(|()| std::fs::rename(&temp, path));
    written.map_err(|e| {
        let _ = std::fs::remove_file(&temp);
        format!("{} could not be written ({e})", path.display())
    })
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;
    use std::ffi::OsString;
    use std::path::PathBuf;

    use super::{NoDir, PipelineCacheDir, resolve};

    fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<OsString> {
        let map: HashMap<String, OsString> = pairs
            .iter()
            .map(|(k, v)| ((*k).to_string(), OsString::from(v)))
            .collect();
        move |name| map.get(name).cloned()
    }

    #[test]
    fn vyre_cache_dir_wins_and_off_turns_the_cache_off() {
        let from_env = PipelineCacheDir::FromEnv;
        let dir = resolve(
            &from_env,
            env(&[("VYRE_CACHE_DIR", "/x/y"), ("HOME", "/h")]),
        );
        assert_eq!(dir, Ok(PathBuf::from("/x/y")));
        for off in ["off", "OFF", "Off"] {
            let error = resolve(&from_env, env(&[("VYRE_CACHE_DIR", off)]));
            assert!(matches!(error, Err(NoDir::Off(_))), "{error:?}");
        }
        let explicit = PipelineCacheDir::At(PathBuf::from("/a"));
        assert_eq!(
            resolve(&explicit, env(&[("VYRE_CACHE_DIR", "off")])),
            Ok(PathBuf::from("/a"))
        );
        let off = resolve(&PipelineCacheDir::Off, env(&[("VYRE_CACHE_DIR", "/x")]));
        assert!(matches!(off, Err(NoDir::Off(_))), "{off:?}");
    }

    #[test]
    fn the_user_cache_directory_is_the_default() {
        let from_env = PipelineCacheDir::FromEnv;
        let expected = if cfg!(target_os = "windows") {
            Some((
                "LOCALAPPDATA",
                "C:\\Users\\u\\AppData\\Local",
                PathBuf::from("C:\\Users\\u\\AppData\\Local").join("vyre"),
            ))
        } else if cfg!(target_os = "macos") {
            Some((
                "HOME",
                "/Users/u",
                PathBuf::from("/Users/u/Library/Caches/vyre"),
            ))
        } else {
            None
        };
        if let Some((name, value, dir)) = expected {
            assert_eq!(resolve(&from_env, env(&[(name, value)])), Ok(dir));
        } else {
            let home = env(&[("HOME", "/home/u"), ("VYRE_CACHE_DIR", "")]);
            assert_eq!(
                resolve(&from_env, home),
                Ok(PathBuf::from("/home/u/.cache/vyre"))
            );
            let xdg = env(&[("HOME", "/home/u"), ("XDG_CACHE_HOME", "/var/cache/u")]);
            assert_eq!(
                resolve(&from_env, xdg),
                Ok(PathBuf::from("/var/cache/u/vyre"))
            );
            let relative = env(&[("HOME", "/home/u"), ("XDG_CACHE_HOME", "rel")]);
            assert_eq!(
                resolve(&from_env, relative),
                Ok(PathBuf::from("/home/u/.cache/vyre"))
            );
        }
        let none = resolve(&from_env, env(&[]));
        assert!(matches!(none, Err(NoDir::NotFound(_))), "{none:?}");
    }

    /// What sits at the cache file's path is read only when it is a regular file, and never past
    /// the size limit: a named pipe there hung the backend's acquisition (the open waited for a
    /// writer) and a link to `/dev/zero` read until the process was killed.
    #[cfg(unix)]
    #[test]
    fn only_a_regular_file_is_read_and_never_past_the_limit() {
        let dir = std::env::temp_dir().join(format!("vyre-dir-read-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let missing = dir.join("missing");
        assert_eq!(super::read(&missing), Ok(None));

        let file = dir.join("file");
        std::fs::write(&file, b"abc").expect("write");
        assert_eq!(super::read(&file), Ok(Some(b"abc".to_vec())));

        let zero = dir.join("zero");
        std::os::unix::fs::symlink("/dev/zero", &zero).expect("symlink");
        let error = super::read(&zero).expect_err("a device");
        assert!(error.contains("not a regular file"), "{error}");

        let fifo = dir.join("fifo");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if made.is_ok_and(|s| s.success()) {
            // Would block forever if opened; answered at once.
            let error = super::read(&fifo).expect_err("a pipe");
            assert!(error.contains("not a regular file"), "{error}");
        } else {
            eprintln!("mkfifo unavailable: the pipe case was not run");
        }

        let error = super::read(&dir).expect_err("a directory");
        assert!(error.contains("not a regular file"), "{error}");
        std::fs::remove_dir_all(&dir).expect("clean up");
    }
}
