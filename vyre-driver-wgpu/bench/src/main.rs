//! `vyre-bench`: vyre against hand-written raw wgpu, side by side, on the same device in the same run.
//!
//! ```text
//! cargo run --release -p vyre-bench -- --quick
//! vyre-bench [--quick] [--only roundtrip,bandwidth,...] [--max-bytes 1G] [--reps 30] [--json PATH]
//! ```
//!
//! Six workloads (issue 8): round trip, bandwidth, fused chain, workgroup reduction, coalesced items
//! and compile; then a chain of kernels over resident data, and `diskcache` (issue 19: a second
//! process compiling 50 programs with vyre's disk pipeline cache on and off; it runs this binary
//! again as its child processes, through the hidden `--disk-cache-child` subcommand). Every figure
//! is a median over many repetitions after a warm-up, with its spread; device time comes from GPU
//! timestamps, end-to-end time from the host clock, and the table says which is which. The last thing printed is a markdown table of ratios (vyre / baseline) with each
//! goal of the issue and whether it is met.

mod gpu;
mod measure;
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
}

const USAGE: &str = "usage: vyre-bench [--quick] [--same-device] [--show-programs] [--only NAME[,NAME...]] [--max-bytes BYTES[K|M|G]] [--reps N] [--spin SECONDS] [--json PATH]
workloads: roundtrip, bandwidth, fused, reduction, coalesced, compile, chain, diskcache";

/// Parses `args` (without the program name).
pub(crate) fn parse_args(args: &[String]) -> BenchResult<Options> {
    let quick = args.iter().any(|a| a == "--quick");
    let mut options = Options {
        workloads: Workload::ALL.to_vec(),
        quick,
        max_bytes: if quick { 64 * MIB } else { 1024 * MIB },
        reps: if quick { 8 } else { 30 },
        spin: if quick { 0.05 } else { 0.5 },
        json: None,
        show_programs: false,
        same_device: false,
    };
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let mut value = || {
            it.next()
                .cloned()
                .ok_or_else(|| format!("`{arg}` needs a value. Fix: see {USAGE}"))
        };
        match arg.as_str() {
            "--quick" => {}
            "--show-programs" => options.show_programs = true,
            "--same-device" => options.same_device = true,
            "--only" => {
                options.workloads = value()?
                    .split(',')
                    .map(Workload::parse)
                    .collect::<BenchResult<_>>()?;
            }
            "--max-bytes" => options.max_bytes = parse_bytes(&value()?)?,
            "--reps" => {
                let v = value()?;
                options.reps = v
                    .parse::<usize>()
                    .ok()
                    .filter(|&r| (1..=2048).contains(&r))
                    .ok_or_else(|| {
                        format!(
                            "`--reps {v}` is not a count from 1 to 2048. Fix: pass e.g. --reps 30."
                        )
                    })?;
            }
            "--spin" => {
                let v = value()?;
                options.spin = v
                    .parse::<f64>()
                    .ok()
                    .filter(|s| (0.0..=10.0).contains(s))
                    .ok_or_else(|| format!("`--spin {v}` is not a number of seconds from 0 to 10. Fix: pass e.g. --spin 0.5."))?;
            }
            "--json" => options.json = Some(PathBuf::from(value()?)),
            other => return Err(format!("unknown argument `{other}`. Fix: see {USAGE}")),
        }
    }
    Ok(options)
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
            format!("`--max-bytes {text}` is not a size of at least 1M. Fix: pass e.g. 64M or 1G.")
        })
}

/// Prints the text form of every vyre program the benchmark runs.
fn show_programs() {
    for (name, program) in workloads::programs() {
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

fn run(options: &Options) -> BenchResult<()> {
    if options.show_programs {
        show_programs();
        return Ok(());
    }
    let gpu = Gpu::acquire()?;
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
    for &workload in &options.workloads {
        eprintln!("-- {}", workload.name());
        suite.run(workload)?;
    }
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
    if args.iter().any(|a| a == "--help" || a == "-h") {
        eprintln!("{USAGE}");
        return ExitCode::SUCCESS;
    }
    match parse_args(&args).and_then(|options| run(&options)) {
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

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| (*s).to_string()).collect()
    }

    #[test]
    fn defaults_run_everything_up_to_one_gib() {
        let o = parse_args(&[]).unwrap();
        assert_eq!(o.workloads, Workload::ALL.to_vec());
        assert_eq!(o.max_bytes, 1 << 30);
        assert!(!o.quick && !o.show_programs);
    }

    #[test]
    fn quick_shrinks_sizes_and_reps_and_flags_override_it() {
        let o = parse_args(&args(&["--quick"])).unwrap();
        assert!(o.quick && o.max_bytes == 64 * MIB && o.reps < 30);
        let o = parse_args(&args(&["--max-bytes", "16M", "--quick", "--reps", "3"])).unwrap();
        assert_eq!((o.max_bytes, o.reps), (16 * MIB, 3));
    }

    #[test]
    fn only_picks_workloads_in_the_given_order() {
        let o = parse_args(&args(&["--only", "compile,roundtrip"])).unwrap();
        assert_eq!(o.workloads, vec![Workload::Compile, Workload::RoundTrip]);
    }

    #[test]
    fn bad_arguments_are_errors_with_a_fix() {
        for bad in [
            &["--reps", "0"][..],
            &["--spin", "-1"],
            &["--max-bytes", "12x"],
            &["--max-bytes", "1K"],
            &["--only", "nothing"],
            &["--json"],
            &["--frobnicate"],
        ] {
            let err = parse_args(&args(bad)).unwrap_err();
            assert!(err.contains("Fix:"), "{bad:?}: {err}");
        }
    }

    #[test]
    fn byte_sizes_accept_suffixes() {
        assert_eq!(parse_bytes("1G").unwrap(), 1 << 30);
        assert_eq!(parse_bytes("2048K").unwrap(), 2 << 20);
        assert_eq!(parse_bytes("1048576").unwrap(), 1 << 20);
    }
}
