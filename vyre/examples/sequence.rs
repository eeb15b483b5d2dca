//! A dispatch sequence: three programs run in order over resident buffers in one
//! `dispatch_sequence` (on wgpu: one submit), each seeing the writes of the steps before: scale,
//! histogram with atomics, and a prefix over the histogram. Checked against the CPU.
//!
//! ```text
//! cargo run -p vyre --example sequence
//! ```

// An example is a program: its result goes to stdout.
#![allow(clippy::print_stdout)]

use std::process::ExitCode;

use vyre::ir::{AtomicOp, BufferDecl, DataType, Expr, Node, Program};
use vyre::{Choice, DispatchConfig, Step, VyreBackendExt};

const N: u32 = 10_000;
const BINS: u32 = 16;

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("sequence: {message}");
            ExitCode::FAILURE
        }
    }
}

/// Step 1: `scaled[i] = data[i] * 7 + 3`.
fn scale() -> Program {
    let i = Expr::gid_x();
    Program::new(
        vec![
            BufferDecl::read("data", 0, DataType::U32).with_count(N),
            BufferDecl::output("scaled", 1, DataType::U32).with_count(N),
        ],
        [256, 1, 1],
        vec![Node::store(
            "scaled",
            i.clone(),
            Expr::add(Expr::mul(Expr::load("data", i), Expr::u32(7)), Expr::u32(3)),
        )],
    )
}

/// Step 2: `bins[scaled[i] % BINS] += 1`, atomically.
fn histogram() -> Program {
    Program::new(
        vec![
            BufferDecl::read("scaled", 0, DataType::U32).with_count(N),
            BufferDecl::read_write("bins", 1, DataType::U32).with_count(BINS),
        ],
        [256, 1, 1],
        vec![Node::if_then(
            Expr::lt(Expr::gid_x(), Expr::u32(N)),
            vec![Node::atomic(
                AtomicOp::Add,
                "bins",
                Expr::rem(Expr::load("scaled", Expr::gid_x()), Expr::u32(BINS)),
                Expr::u32(1),
            )],
        )],
    )
}

/// Step 3: `prefix[b] = bins[0] + ... + bins[b]`, one invocation per bin.
fn prefix() -> Program {
    let b = Expr::gid_x();
    Program::new(
        vec![
            BufferDecl::read("bins", 0, DataType::U32).with_count(BINS),
            BufferDecl::output("prefix", 1, DataType::U32).with_count(BINS),
        ],
        [BINS, 1, 1],
        vec![
            Node::let_bind("total", Expr::u32(0)),
            Node::loop_for(
                "k",
                Expr::u32(0),
                Expr::add(b.clone(), Expr::u32(1)),
                vec![Node::assign(
                    "total",
                    Expr::add(Expr::var("total"), Expr::load("bins", Expr::var("k"))),
                )],
            ),
            Node::store("prefix", b, Expr::var("total")),
        ],
    )
}

fn run() -> Result<(), String> {
    let e = |err: vyre::BackendError| err.to_string();
    let picked = vyre::select(Choice::Auto).map_err(e)?;
    eprintln!("sequence: {}", picked.reason);
    let backend = picked.backend;

    let data: Vec<u32> = (0..N).map(|k| k.wrapping_mul(2_246_822_519) >> 7).collect();
    let input = backend.create_buffer_from(&data).map_err(e)?;
    let scaled = backend.create_buffer_for::<u32>(N as usize).map_err(e)?;
    let bins = backend.create_buffer_for::<u32>(BINS as usize).map_err(e)?;
    let sums = backend.create_buffer_for::<u32>(BINS as usize).map_err(e)?;
    let (scale, histogram, prefix) = (scale(), histogram(), prefix());
    let config = DispatchConfig::default();
    let one_group = DispatchConfig::new().with_grid([1, 1, 1]);
    backend
        .dispatch_sequence(&[
            Step::new(&scale, &[&input, &scaled], &config),
            Step::new(&histogram, &[&scaled, &bins], &config),
            Step::new(&prefix, &[&bins, &sums], &one_group),
        ])
        .map_err(e)?;

    let mut cpu_bins = vec![0u32; BINS as usize];
    for v in &data {
        cpu_bins[(v.wrapping_mul(7).wrapping_add(3) % BINS) as usize] += 1;
    }
    let cpu_prefix: Vec<u32> = cpu_bins
        .iter()
        .scan(0u32, |total, &c| {
            *total += c;
            Some(*total)
        })
        .collect();
    let gpu_bins = backend.read_buffer_as::<u32>(&bins).map_err(e)?;
    let gpu_prefix = backend.read_buffer_as::<u32>(&sums).map_err(e)?;
    if gpu_bins != cpu_bins || gpu_prefix != cpu_prefix {
        return Err(format!(
            "the results differ from the CPU's:\n  bins   gpu {gpu_bins:?}\n         cpu {cpu_bins:?}\n  prefix gpu {gpu_prefix:?}\n         cpu {cpu_prefix:?}"
        ));
    }
    if cpu_prefix.last() != Some(&N) {
        return Err(format!("the prefix ends at {cpu_prefix:?}, not {N}"));
    }
    println!("sequence: 3 steps in one sequence match the CPU ({BINS} bins, {N} elements)");
    Ok(())
}
