//! A histogram with atomics: every invocation adds 1 to the bin of its element with `atomic_add`, so
//! many invocations hit the same bin at once; the counts must equal a CPU histogram exactly.
//!
//! ```text
//! cargo run -p vyre --example histogram
//! ```

// An example is a program: its result goes to stdout.
#![allow(clippy::print_stdout)]

use std::process::ExitCode;

use vyre::ir::{AtomicOp, BufferDecl, DataType, Expr, Node, Program};
use vyre::{Choice, DispatchConfig, VyreBackendExt};

const N: u32 = 65_536;
const BINS: u32 = 32;

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("histogram: {message}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), String> {
    let program = Program::new(
        vec![
            BufferDecl::read("data", 0, DataType::U32).with_count(N),
            BufferDecl::output("bins", 1, DataType::U32).with_count(BINS),
        ],
        [128, 1, 1],
        vec![Node::if_then(
            Expr::lt(Expr::gid_x(), Expr::u32(N)),
            // An atomic statement: the old value is not needed here.
            vec![Node::atomic(
                AtomicOp::Add,
                "bins",
                Expr::rem(Expr::load("data", Expr::gid_x()), Expr::u32(BINS)),
                Expr::u32(1),
            )],
        )],
    );
    // Skewed data, so some bins are hot: squares modulo a prime.
    let data: Vec<u32> = (0..N).map(|k| (k * k) % 65_521).collect();
    let picked = vyre::select(Choice::Auto).map_err(|e| e.to_string())?;
    eprintln!("histogram: {}", picked.reason);
    let bins = picked
        .backend
        .dispatch_typed(&program, &[&data], &DispatchConfig::default())
        .map_err(|e| e.to_string())?
        .remove(0);
    let mut expected = vec![0u32; BINS as usize];
    for v in &data {
        expected[(v % BINS) as usize] += 1;
    }
    if bins != expected {
        return Err(format!(
            "the bins differ from the CPU's:\n  gpu {bins:?}\n  cpu {expected:?}"
        ));
    }
    println!("histogram: {BINS} bins over {N} elements match the CPU");
    Ok(())
}
