//! `vyre-bench`: vyre against hand-written raw wgpu, side by side, on the same device in the same run.
//!
//! ```text
//! cargo run --release -p vyre-bench -- --quick
//! vyre-bench [--quick] [--only roundtrip,bandwidth,...] [--max-bytes 1G] [--reps 30] [--json PATH] [--quiet]
//! vyre-bench --help          # every option, its default and the exit codes
//! ```
//!
//! Eight workloads: round trip, bandwidth, fused chain, workgroup reduction, coalesced items,
//! compile, a dispatch chain over resident data, and `diskcache` (a second process compiling 50
//! programs with vyre's disk pipeline cache on and off; it runs this binary again as its child
//! processes, through the hidden `--disk-cache-child` subcommand). Every figure is a median over
//! many repetitions after a warm-up, with its spread; device time comes from GPU timestamps,
//! end-to-end time from the host clock, and the table says which is which. The last thing printed
//! is a markdown table of ratios (vyre / baseline) with each goal and whether it is met. A progress
//! bar (rate, elapsed, ETA) runs on stderr, or plain lines when stderr is not a terminal.

mod gpu;
mod measure;
// The progress display of vyre-conform, shared as a file so that neither binary's crate becomes a
// library of the other.
#[path = "../../../conformance/cli/src/progress.rs"]
mod progress;
mod raw;
mod report;
mod stats;
mod suite;
mod vyre;
mod vyre_wgpu;
mod wgsl;
mod workloads;

use std::path::PathBuf;
use std::process::ExitCode;

use crate::gpu::{BenchResult, Gpu};
use crate::workloads::{MIB, Workload};

/// What to run, from the command line.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Options {
    /// The workloads to run, in order.
    pub(crate) workloads: Vec<Workload>,
    /// A short run (small sizes, few repetitions) for CPU drivers such as lavapipe.
    pub(crate) quick: bool,
    /// The largest buffer any workload allocates, before the device's own limits cut it further.
    pub(crate) max_bytes: u64,
    /// Timed repetitions of each figure (large transfers use fewer, at least 3).
    pub(crate) reps: usize,
    /// Seconds of back-to-back dispatches before each device-time batch, so GPU clocks are up.
    pub(crate) spin: f64,
    /// Where to write the figures as JSON.
    pub(crate) json: Option<PathBuf>,
    /// Print every vyre program (its text form) instead of measuring.
    pub(crate) show_programs: bool,
    /// Build the vyre backend on the raw side's own device (`WgpuBackend::from_device`), so both
    /// sides share one device instead of alternating two.
    pub(crate) same_device: bool,
    /// Time cold compiles of these WGSL files instead of running the workloads.
    pub(crate) compile_wgsl: Vec<PathBuf>,
    /// No progress on stderr.
    pub(crate) quiet: bool,
    /// Devices in the `sharded` workload's `Sharded` backend: 0 for every adapter of the host
    /// (two devices on the one adapter when there is only one).
    pub(crate) devices: usize,
    /// Bytes per buffer of the `sharded` workload's elementwise add.
    pub(crate) shard_bytes: u64,
    /// Items in the `sharded` workload's queue.
    pub(crate) shard_items: usize,
    /// The `gemm` workload's tilings (empty: its built-in one).
    pub(crate) gemm_tilings: Vec<suite::gemm::tiling::Tiling>,
    /// The `hgemm_tuning` workload's kernels, by position in its list (empty: every one).
    pub(crate) tunings: Vec<usize>,
    /// Hand-made `f16` GEMM kernels the `hgemm` workload times instead of its own (empty: its own).
    pub(crate) hgemm_wgsl: Vec<PathBuf>,
}

/// The command line as clap sees it; [`Args::into_options`] applies `--quick`'s defaults.
#[derive(Debug, clap::Parser)]
#[command(
    name = "vyre-bench",
    version,
    about = "vyre against hand-written raw wgpu, side by side, on the same device in the same run.",
    after_help = "Workloads: roundtrip, bandwidth, fused, reduction, coalesced, compile, chain, diskcache, \
                  workarounds, gemm; \
                  and, only with --only, sharded (a 10 000-item queue and a --shard-bytes add over \
                  --devices devices against one device).\n\n\
                  Exit codes:\n  0  the figures were measured and printed\n  1  a measurement or \
                  the device failed\n  2  a usage error"
)]
struct Args {
    /// A short run (64 MiB, 8 repetitions, 0.05 s spin) for CPU drivers such as lavapipe; the flags
    /// below override its values.
    #[arg(long)]
    quick: bool,
    /// Build the vyre backend on the raw side's own device, so both sides share one device.
    #[arg(long)]
    same_device: bool,
    /// Print every vyre program (and its WGSL) instead of measuring.
    #[arg(long)]
    show_programs: bool,
    /// Instead of the workloads: cold-compile each of these WGSL files (`--reps` times,
    /// interleaved) through raw wgpu and print each one's median against the first's. Each
    /// compile replaces the word `SALT` in the text with a number no other compile used, so
    /// write it into a constant to keep driver caches cold (e.g. `v * SALTu`).
    #[arg(long, value_name = "FILE", num_args = 1..)]
    compile_wgsl: Vec<PathBuf>,
    /// With `--only hgemm`: time these WGSL files instead of the workload's kernels, each an `f16`
    /// GEMM at 4096^3 (`a` and `b` read at bindings 0 and 1, `c` of `f32` at 2, one workgroup per
    /// 128x128 block of `c`, `workgroup_id.x` the column), `C` checked exactly first, each against
    /// the first file: the decomposition of a module into its differences from another.
    #[arg(long, value_name = "FILE", num_args = 1..)]
    hgemm_wgsl: Vec<PathBuf>,
    /// Run only these workloads, in this order (comma-separated).
    #[arg(long, value_name = "NAME[,NAME...]", value_delimiter = ',', value_parser = parse_workload)]
    only: Option<Vec<Workload>>,
    /// The largest buffer a workload allocates: bytes, or with a K, M or G suffix; at least 1M
    /// [default: 1G, or 64M with --quick].
    #[arg(long, value_name = "BYTES", value_parser = parse_bytes)]
    max_bytes: Option<u64>,
    /// Timed repetitions of each figure, 1 to 2048 [default: 30, or 8 with --quick].
    #[arg(long, value_name = "N", value_parser = parse_reps)]
    reps: Option<usize>,
    /// Seconds of back-to-back dispatches before each device-time batch, 0 to 10 [default: 0.5,
    /// or 0.05 with --quick].
    #[arg(long, value_name = "SECONDS", value_parser = parse_spin)]
    spin: Option<f64>,
    /// Write the figures as JSON to PATH.
    #[arg(long, value_name = "PATH")]
    json: Option<PathBuf>,
    /// No progress bar or progress lines on stderr.
    #[arg(long)]
    quiet: bool,
    /// `sharded` workload: devices to shard over; 0 takes every adapter of the host, or two
    /// devices on the one adapter when there is only one.
    #[arg(long, value_name = "N", default_value_t = 0)]
    devices: usize,
    /// `sharded` workload: bytes per buffer of the elementwise add [default: 4G, or 64M with
    /// --quick].
    #[arg(long, value_name = "BYTES", value_parser = parse_bytes)]
    shard_bytes: Option<u64>,
    /// `sharded` workload: items in the queue.
    #[arg(long, value_name = "N", default_value_t = 10_000)]
    shard_items: usize,
    /// `gemm` workload: the tilings to run, each BMxBNxBK/TMxTN (a BMxBN tile of C per workgroup,
    /// BK deep, a TMxTN block per invocation) [default: one per shape on a GPU, 128x128x16/8x8 for
    /// large products with k >= 1024, 128x64x16/8x4 for the others; 128x128x8/8x8 on a CPU].
    #[arg(long, value_name = "TILING[,TILING...]", value_delimiter = ',', value_parser = suite::gemm::tiling::Tiling::parse)]
    gemm_tiling: Vec<suite::gemm::tiling::Tiling>,
    /// `hgemm_tuning` workload: only these of its kernels, by position from 0 (its notes name
    /// them) [default: every one]. A kernel the driver cannot compile may lose the device for the
    /// rest of the run, so a sitting runs them one process each (`.ci/device-sitting`).
    #[arg(long, value_name = "N[,N...]", value_delimiter = ',')]
    tuning: Vec<usize>,
}

impl Args {
    fn into_options(self) -> Options {
        let quick = self.quick;
        Options {
            workloads: self.only.unwrap_or_else(|| Workload::ALL.to_vec()),
            quick,
            max_bytes: self
                .max_bytes
                .unwrap_or(if quick { 64 * MIB } else { 1024 * MIB }),
            reps: self.reps.unwrap_or(if quick { 8 } else { 30 }),
            spin: self.spin.unwrap_or(if quick { 0.05 } else { 0.5 }),
            json: self.json,
            show_programs: self.show_programs,
            compile_wgsl: self.compile_wgsl,
            same_device: self.same_device,
            quiet: self.quiet,
            devices: self.devices,
            shard_bytes: self
                .shard_bytes
                .unwrap_or(if quick { 64 * MIB } else { 4096 * MIB }),
            shard_items: self.shard_items.max(1),
            gemm_tilings: self.gemm_tiling,
            tunings: self.tuning,
            hgemm_wgsl: self.hgemm_wgsl,
        }
    }
}

fn parse_workload(name: &str) -> BenchResult<Workload> {
    Workload::parse(name)
}

fn parse_reps(v: &str) -> BenchResult<usize> {
    v.parse::<usize>()
        .ok()
        .filter(|&r| (1..=2048).contains(&r))
        .ok_or_else(|| format!("`{v}` is not a count from 1 to 2048. Fix: pass e.g. --reps 30."))
}

fn parse_spin(v: &str) -> BenchResult<f64> {
    v.parse::<f64>()
        .ok()
        .filter(|s| (0.0..=10.0).contains(s))
        .ok_or_else(|| {
            format!("`{v}` is not a number of seconds from 0 to 10. Fix: pass e.g. --spin 0.5.")
        })
}

/// What parsing the command line came to.
#[derive(Debug)]
enum Parsed {
    /// Run with these options.
    Run(Options),
    /// `--help` or `--version`: print this on stdout and exit 0.
    Print(String),
}

/// Parses `args` (without the program name). A usage error is one line ending in a `Fix:`.
fn parse_args(args: &[String]) -> BenchResult<Parsed> {
    use clap::Parser;
    use clap::error::ErrorKind;
    let argv = std::iter::once("vyre-bench").chain(args.iter().map(String::as_str));
    match Args::try_parse_from(argv) {
        Ok(args) => Ok(Parsed::Run(args.into_options())),
        Err(e) if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) => {
            Ok(Parsed::Print(e.render().to_string().trim_end().to_string()))
        }
        Err(e) => {
            let rendered = e.render().to_string();
            let first = rendered.lines().next().unwrap_or("bad arguments");
            let first = first.strip_prefix("error: ").unwrap_or(first);
            Err(if first.contains("Fix:") {
                first.to_string()
            } else {
                format!("{first}. Fix: see `vyre-bench --help`.")
            })
        }
    }
}

/// `1048576`, `64K`, `16M` or `1G` as bytes.
fn parse_bytes(text: &str) -> BenchResult<u64> {
    let (digits, shift) = match text.chars().last() {
        Some('K' | 'k') => (&text[..text.len() - 1], 10),
        Some('M' | 'm') => (&text[..text.len() - 1], 20),
        Some('G' | 'g') => (&text[..text.len() - 1], 30),
        _ => (text, 0),
    };
    digits
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(1 << shift))
        .filter(|&n| n >= MIB)
        .ok_or_else(|| {
            format!("`{text}` is not a size of at least 1M. Fix: pass e.g. --max-bytes 64M or 1G.")
        })
}

/// Prints the text form of every vyre program the benchmark runs.
fn show_programs() {
    for (name, program) in workloads::programs()
        .into_iter()
        .chain(suite::gemm::programs())
    {
        #[allow(clippy::print_stdout)] // The listing is what the flag asks for.
        {
            println!("== {name}\n{program}");
            match vyre_driver_wgpu::emit_wgsl(&program) {
                Ok(wgsl) => println!("-- emitted WGSL\n{wgsl}"),
                Err(e) => println!("-- emit_wgsl failed: {e}"),
            }
        }
    }
}

/// `--compile-wgsl`: cold compiles of each file, interleaved, with `SALT` made unique per compile.
fn compile_files(gpu: &Gpu, files: &[PathBuf], reps: usize) -> BenchResult<()> {
    let texts = files
        .iter()
        .map(|f| {
            std::fs::read_to_string(f).map_err(|e| {
                format!(
                    "could not read {} ({e}). Fix: pass readable WGSL files.",
                    f.display()
                )
            })
        })
        .collect::<BenchResult<Vec<_>>>()?;
    let mut times = vec![Vec::with_capacity(reps); texts.len()];
    let mut salt = 1_000_003u32;
    // One warm-up round, then `reps` timed ones; the files take turns within each round.
    for round in 0..=reps {
        for (text, samples) in texts.iter().zip(&mut times) {
            salt = salt.wrapping_add(2);
            let source = text.replace("SALT", &salt.to_string());
            let start = std::time::Instant::now();
            gpu.kernel("compile-wgsl", &source)?;
            if round > 0 {
                samples.push(start.elapsed().as_secs_f64());
            }
        }
    }
    let first = stats::Summary::of(&times[0]).map_or(f64::NAN, |s| s.p50);
    #[allow(clippy::print_stdout)] // The table is what the flag asks for.
    for (file, samples) in files.iter().zip(&times) {
        if let Some(s) = stats::Summary::of(samples) {
            println!(
                "{}: p50 {:.1} us, spread {:.0}%, {:.3} of the first",
                file.display(),
                s.p50 * 1e6,
                s.relative_spread() * 100.0,
                s.p50 / first
            );
        }
    }
    Ok(())
}

fn run(options: &Options) -> BenchResult<()> {
    if options.show_programs {
        show_programs();
        return Ok(());
    }
    let gpu = Gpu::acquire()?;
    if !options.compile_wgsl.is_empty() {
        return compile_files(&gpu, &options.compile_wgsl, options.reps);
    }
    let device_name = format!(
        "{} ({:?}, {:?}, driver {} {})",
        gpu.info.name,
        gpu.info.backend,
        gpu.info.device_type,
        gpu.info.driver,
        gpu.info.driver_info
    );
    eprintln!("vyre-bench on {device_name}");
    eprintln!(
        "limits: storage binding {} MiB, buffer {} MiB; timestamps: {}",
        gpu.limits.max_storage_buffer_binding_size / MIB,
        gpu.limits.max_buffer_size / MIB,
        if gpu.timestamp_period_ns.is_some() {
            "yes"
        } else {
            "no (device-time rows stay empty)"
        }
    );
    let backend = if options.same_device {
        vyre_driver_wgpu::WgpuBackend::from_device(
            gpu.adapter.clone(),
            gpu.device.clone(),
            gpu.queue.clone(),
        )
    } else {
        vyre_driver_wgpu::WgpuBackend::acquire()
    };
    let backend = match backend {
        Ok(backend) => {
            eprintln!("vyre backend on {}", backend.adapter_name());
            Some(backend)
        }
        Err(e) => {
            eprintln!("vyre-bench: no vyre wgpu backend ({e}); measuring the raw side only");
            None
        }
    };
    let mut suite = suite::Suite::new(&gpu, options, backend.as_ref());
    let total = options.workloads.len() as u64;
    let meter = progress::Meter::new("vyre-bench", total, "workloads", options.quiet);
    for (done, &workload) in options.workloads.iter().enumerate() {
        meter.update(done as u64, total, &format!("running {}", workload.name()));
        suite.run(workload)?;
    }
    meter.update(total, total, "");
    meter.finish();
    let table = report::table(&suite.rows, &gpu.info.name);
    if let Some(path) = &options.json {
        let figures = serde_json::json!({
            "device": device_name,
            "backend": format!("{:?}", gpu.info.backend),
            "timestamps": gpu.timestamp_period_ns.is_some(),
            "max_storage_buffer_binding_size": gpu.limits.max_storage_buffer_binding_size,
            "max_buffer_size": gpu.limits.max_buffer_size,
            "options": {
                "quick": options.quick, "max_bytes": options.max_bytes, "reps": options.reps,
                "spin_s": options.spin,
            },
            "notes": suite.notes,
            "rows": suite.rows.iter().map(|r| report::row_json(r, &gpu.info.name)).collect::<Vec<_>>(),
        });
        let text = serde_json::to_string_pretty(&figures).map_err(|e| {
            format!("the figures could not be encoded ({e}). Fix: report this as a harness bug.")
        })?;
        std::fs::write(path, text).map_err(|e| {
            format!(
                "could not write {} ({e}). Fix: pass a writable --json path.",
                path.display()
            )
        })?;
        eprintln!("figures written to {}", path.display());
    }
    for note in &suite.notes {
        eprintln!("note: {note}");
    }
    #[allow(clippy::print_stdout)] // The table is this binary's output.
    {
        println!("\nvyre-bench on {device_name}\n");
        println!("{table}");
    }
    Ok(())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    // The disk cache workload runs this binary again as its second processes.
    if args.first().map(String::as_str) == Some(suite::disk::CHILD_FLAG) {
        return match suite::disk::child_main(&args[1..]) {
            Ok(()) => ExitCode::SUCCESS,
            Err(message) => {
                eprintln!("vyre-bench {}: {message}", suite::disk::CHILD_FLAG);
                ExitCode::FAILURE
            }
        };
    }
    let options = match parse_args(&args) {
        Ok(Parsed::Run(options)) => options,
        Ok(Parsed::Print(text)) => {
            #[allow(clippy::print_stdout)] // --help and --version go to stdout.
            {
                println!("{text}");
            }
            return ExitCode::SUCCESS;
        }
        Err(message) => {
            eprintln!("vyre-bench: {message}");
            return ExitCode::from(2);
        }
    };
    match run(&options) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("vyre-bench: {message}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(list: &[&str]) -> BenchResult<Options> {
        let args: Vec<String> = list.iter().map(|s| (*s).to_string()).collect();
        match parse_args(&args)? {
            Parsed::Run(options) => Ok(options),
            Parsed::Print(text) => Err(format!("printed instead of parsing: {text}")),
        }
    }

    #[test]
    fn defaults_run_everything_up_to_one_gib() {
        let o = parse(&[]).unwrap();
        assert_eq!(o.workloads, Workload::ALL.to_vec());
        assert_eq!(o.max_bytes, 1 << 30);
        assert_eq!((o.reps, o.spin), (30, 0.5));
        assert!(!o.quick && !o.show_programs && !o.same_device && o.json.is_none());
    }

    #[test]
    fn quick_shrinks_sizes_and_reps_and_flags_override_it() {
        let o = parse(&["--quick"]).unwrap();
        assert!(o.quick && o.max_bytes == 64 * MIB && o.reps < 30);
        let o = parse(&["--max-bytes", "16M", "--quick", "--reps", "3"]).unwrap();
        assert_eq!((o.max_bytes, o.reps), (16 * MIB, 3));
        let o = parse(&["--quick", "--max-bytes=2G", "--spin=1.5"]).unwrap();
        assert_eq!((o.max_bytes, o.spin), (2 << 30, 1.5));
    }

    #[test]
    fn only_picks_workloads_in_the_given_order() {
        let o = parse(&["--only", "compile,roundtrip"]).unwrap();
        assert_eq!(o.workloads, vec![Workload::Compile, Workload::RoundTrip]);
        let o = parse(&["--only=chain"]).unwrap();
        assert_eq!(o.workloads, vec![Workload::Chain]);
    }

    #[test]
    fn bad_arguments_are_one_line_errors_with_a_fix() {
        for bad in [
            &["--reps", "0"][..],
            &["--spin", "-1"],
            &["--max-bytes", "12x"],
            &["--max-bytes", "1K"],
            &["--only", "nothing"],
            &["--json"],
            &["--frobnicate"],
        ] {
            let err = parse(bad).unwrap_err();
            assert!(
                err.contains("Fix:") && !err.contains('\n'),
                "{bad:?}: {err}"
            );
        }
    }

    #[test]
    fn help_and_version_are_printed_not_errors() {
        let args = vec!["--help".to_string()];
        let Ok(Parsed::Print(help)) = parse_args(&args) else {
            panic!("--help did not print");
        };
        assert!(
            help.contains("--max-bytes") && help.contains("Exit codes:"),
            "{help}"
        );
        let args = vec!["--version".to_string()];
        assert!(matches!(parse_args(&args), Ok(Parsed::Print(v)) if v.starts_with("vyre-bench ")));
    }

    #[test]
    fn byte_sizes_accept_suffixes() {
        assert_eq!(parse_bytes("1G").unwrap(), 1 << 30);
        assert_eq!(parse_bytes("2048K").unwrap(), 2 << 20);
        assert_eq!(parse_bytes("1048576").unwrap(), 1 << 20);
    }
}
