//! The disk pipeline cache workload: what a *second process* pays to compile 50 distinct programs,
//! with vyre's disk cache on and off.
//!
//! Each round, in a fresh cache directory and with 50 programs no process has compiled before (the
//! salts come from the clock), the benchmark runs itself as child processes (`--disk-cache-child`, a
//! hidden subcommand): first a cold process (empty vyre cache, and programs the driver has never
//! seen), which writes the cache file; then, in alternating order, a second process with the cache
//! on and one with it off. Desktop drivers keep disk caches of their own (Mesa's
//! `mesa_shader_cache`, NVIDIA's `GLCache`), so a second process is fast even with vyre's cache off;
//! the same pair is therefore also run with the driver's cache turned off through the environment
//! variables Mesa and NVIDIA read, which shows what vyre's cache adds where the driver keeps none.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use vyre_driver_wgpu::{AdapterOptions, DiskCacheLoad, PipelineCacheDir, WgpuBackend};

use super::{RowBase, Suite};
use crate::gpu::BenchResult;
use crate::report::{Measure, Stat};
use crate::vyre::backend_error;
use crate::vyre_wgpu;
use crate::workloads;

/// The hidden subcommand a child process runs.
pub(crate) const CHILD_FLAG: &str = "--disk-cache-child";

/// Programs each process compiles.
const PROGRAMS: u32 = 50;

/// What turns the drivers' own disk caches off (Mesa, NVIDIA); other drivers ignore them.
const DRIVER_CACHE_OFF: [(&str, &str); 2] = [
    ("MESA_SHADER_CACHE_DISABLE", "true"),
    ("__GL_SHADER_DISK_CACHE", "0"),
];

/// What one child process measured.
struct ChildRun {
    /// Seconds to open the device (with the cache file's load).
    open: f64,
    /// Seconds to compile the programs.
    compile: f64,
    /// Seconds to save the cache file afterwards.
    save: f64,
    /// How the cache started, e.g. `loaded:12345`.
    load: String,
}

/// The child: opens a backend with its cache in `args[0]` (or `off`), compiles `PROGRAMS` programs
/// from salt `args[1]`, saves, and prints one line of `name=value` figures.
pub(crate) fn child_main(args: &[String]) -> BenchResult<()> {
    let usage = || format!("usage: vyre-bench {CHILD_FLAG} DIR|off SALT");
    let (Some(dir), Some(salt)) = (args.first(), args.get(1)) else {
        return Err(usage());
    };
    let salt: u32 = salt.parse().map_err(|_| usage())?;
    let cache = if dir == "off" {
        PipelineCacheDir::Off
    } else {
        PipelineCacheDir::At(PathBuf::from(dir))
    };
    let start = Instant::now();
    let backend = WgpuBackend::acquire_with(&AdapterOptions::new().with_pipeline_cache(cache))
        .map_err(|e| backend_error("acquire", &e))?;
    let open = start.elapsed().as_secs_f64();
    let load = match backend.disk_cache().load {
        DiskCacheLoad::Loaded { bytes } => format!("loaded:{bytes}"),
        DiskCacheLoad::NoFile => "nofile".to_string(),
        DiskCacheLoad::Off(_) => "off".to_string(),
        DiskCacheLoad::Ignored(why) => format!("ignored:{}", why.replace(' ', "_")),
        DiskCacheLoad::Unavailable(why) => format!("unavailable:{}", why.replace(' ', "_")),
        other => format!("{other:?}").replace(' ', "_"),
    };
    let start = Instant::now();
    for i in 0..PROGRAMS {
        vyre_wgpu::compile(
            &backend,
            &workloads::chain_program(1 << 20, salt.wrapping_add(i)),
        )?;
    }
    let compile = start.elapsed().as_secs_f64();
    let start = Instant::now();
    backend.save_pipeline_cache();
    let save = start.elapsed().as_secs_f64();
    #[allow(clippy::print_stdout)] // The line is the child's answer to its parent.
    {
        println!("open={open} compile={compile} save={save} load={load}");
    }
    Ok(())
}

/// Runs a child process on `dir` (`None`: cache off) with `salt`, the driver's cache on or off.
fn run_child(dir: Option<&Path>, salt: u32, driver_cache: bool) -> BenchResult<ChildRun> {
    let exe = std::env::current_exe().map_err(|e| {
        format!("the benchmark cannot find its own binary ({e}). Fix: run it from a path.")
    })?;
    let mut command = Command::new(exe);
    let dir_arg = dir.map_or_else(|| "off".to_string(), |d| d.display().to_string());
    command.args([CHILD_FLAG, &dir_arg, &salt.to_string()]);
    if !driver_cache {
        for (name, value) in DRIVER_CACHE_OFF {
            command.env(name, value);
        }
    }
    let output = command.output().map_err(|e| {
        format!("a child process did not start ({e}). Fix: check the system's process limits.")
    })?;
    let text = String::from_utf8_lossy(&output.stdout);
    if !output.status.success() {
        return Err(format!(
            "a child process failed ({}): {}{}. Fix: run `vyre-bench {CHILD_FLAG} {dir_arg} {salt}` to see why.",
            output.status,
            text,
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    let field = |name: &str| {
        text.split_whitespace()
            .find_map(|w| w.strip_prefix(name)?.strip_prefix('='))
            .map(str::to_string)
            .ok_or_else(|| {
                format!("the child's line `{text}` has no `{name}`. Fix: report this harness bug.")
            })
    };
    let seconds = |name: &str| -> BenchResult<f64> {
        field(name)?.parse().map_err(|_| {
            format!("the child's `{name}` is not a number: `{text}`. Fix: report this harness bug.")
        })
    };
    Ok(ChildRun {
        open: seconds("open")?,
        compile: seconds("compile")?,
        save: seconds("save")?,
        load: field("load")?,
    })
}

/// A second process with the cache in `dir` and one with it off, in the order `on_first` says.
fn run_pair(
    dir: &Path,
    salt: u32,
    driver_cache: bool,
    on_first: bool,
) -> BenchResult<(ChildRun, ChildRun)> {
    if on_first {
        let on = run_child(Some(dir), salt, driver_cache)?;
        Ok((on, run_child(None, salt, driver_cache)?))
    } else {
        let off = run_child(None, salt, driver_cache)?;
        Ok((run_child(Some(dir), salt, driver_cache)?, off))
    }
}

/// A cache directory of its own for round `round`, removed when dropped.
struct RoundDir(PathBuf);

impl RoundDir {
    fn new(round: usize) -> Self {
        let dir = std::env::temp_dir().join(format!(
            "vyre-bench-disk-cache-{}-{round}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        Self(dir)
    }
}

impl Drop for RoundDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The samples of every kind of child, one per round.
#[derive(Default)]
struct Samples {
    cold: Vec<f64>,
    cold_open: Vec<f64>,
    cold_save: Vec<f64>,
    on: Vec<f64>,
    on_open: Vec<f64>,
    off: Vec<f64>,
    off_open: Vec<f64>,
    bare_on: Vec<f64>,
    bare_off: Vec<f64>,
    loads: Vec<String>,
}

impl Suite<'_> {
    pub(super) fn disk_cache(&mut self) -> BenchResult<()> {
        let rounds = if self.options.quick { 5 } else { 9 };
        // Salts no earlier run used, so the driver's own cache has not seen the programs either.
        let epoch = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let mut s = Samples::default();
        for round in 0..rounds {
            let dir = RoundDir::new(round);
            let salt = (epoch as u32).wrapping_mul(2654435761) ^ (round as u32 * 4096);
            let cold = run_child(Some(&dir.0), salt, true)?;
            s.cold.push(cold.compile);
            s.cold_open.push(cold.open);
            s.cold_save.push(cold.save);
            // Alternate which second process goes first, so neither always finds the other's warmth.
            let on_first = round % 2 == 0;
            let (on, off) = run_pair(&dir.0, salt, true, on_first)?;
            s.on.push(on.compile);
            s.on_open.push(on.open);
            s.off.push(off.compile);
            s.off_open.push(off.open);
            s.loads.push(on.load);
            let (bare_on, bare_off) = run_pair(&dir.0, salt, false, !on_first)?;
            s.bare_on.push(bare_on.compile);
            s.bare_off.push(bare_off.compile);
        }
        self.disk_cache_rows(&s);
        Ok(())
    }

    fn disk_cache_rows(&mut self, s: &Samples) {
        let second = RowBase {
            workload: "diskcache",
            case: format!("{PROGRAMS} programs, second process"),
            baseline_name: "vyre cache off",
        };
        let pair = |on: &[f64], off: &[f64]| -> (Option<Vec<f64>>, Option<Vec<f64>>) {
            (Some(on.to_vec()), Some(off.to_vec()))
        };
        let mut push = |base: &RowBase, figure, (on, off): (Option<Vec<f64>>, Option<Vec<f64>>)| {
            let row = base.row(
                figure,
                Measure::Time,
                Stat::P50,
                (on.as_deref(), off.as_deref()),
                None,
            );
            self.rows.push(row);
        };
        push(&second, "compile, driver cache on", pair(&s.on, &s.off));
        push(
            &second,
            "compile, driver cache off",
            pair(&s.bare_on, &s.bare_off),
        );
        push(
            &second,
            "device open + cache load",
            pair(&s.on_open, &s.off_open),
        );
        let first = RowBase {
            workload: "diskcache",
            case: format!("{PROGRAMS} programs, first process (cold)"),
            baseline_name: "none",
        };
        push(&first, "compile", (Some(s.cold.clone()), None));
        push(&first, "save at exit", (Some(s.cold_save.clone()), None));
        self.notes.push(format!(
            "diskcache: the second process with the cache on found: {} (loaded:N = the driver's blob in bytes); driver cache off = {}",
            s.loads.join(", "),
            DRIVER_CACHE_OFF
                .iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect::<Vec<_>>()
                .join(" ")
        ));
    }
}
