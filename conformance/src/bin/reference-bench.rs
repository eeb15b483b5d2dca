//! Measures the reference backend on an elementwise u32 program of 1M invocations against the same
//! computation as a plain Rust loop, and prints both rates and their ratio.
//!
//! Run with `cargo run --release -p vyre-conformance --bin reference-bench`; set
//! `RAYON_NUM_THREADS=1` for the one-core figure.

#![allow(clippy::print_stdout)]

use std::time::{Duration, Instant};

use vyre_conformance::ReferenceBackend;
use vyre_driver::{DispatchConfig, VyreBackend};
use vyre_foundation::ir::{BufferDecl, DataType, Expr, Node, Program};

const N: u32 = 1 << 20;
const MULTIPLIER: u32 = 0x9e37_79b9;

/// `if i < n { let x = in[i] * K; out[i] = (x ^ (x >> 13)) + i }`: eight IR operations an invocation
/// (lt, if, load, mul, shr, xor, add, store).
fn program() -> Program {
    let i = Expr::gid_x();
    let x = Expr::var("x");
    Program::wrapped(
        vec![
            BufferDecl::read("input", 0, DataType::U32).with_count(N),
            BufferDecl::output("out", 1, DataType::U32).with_count(N),
        ],
        [64, 1, 1],
        vec![Node::if_then(
            Expr::lt(i.clone(), Expr::u32(N)),
            vec![
                Node::let_bind(
                    "x",
                    Expr::mul(Expr::load("input", i.clone()), Expr::u32(MULTIPLIER)),
                ),
                Node::store(
                    "out",
                    i.clone(),
                    Expr::add(Expr::bit_xor(x.clone(), Expr::shr(x, Expr::u32(13))), i),
                ),
            ],
        )],
    )
}

fn plain(input: &[u32], out: &mut [u32]) {
    for (i, (o, &v)) in out.iter_mut().zip(input).enumerate() {
        let x = v.wrapping_mul(MULTIPLIER);
        *o = (x ^ (x >> 13)).wrapping_add(i as u32);
    }
}

fn best_of(runs: usize, mut f: impl FnMut()) -> Duration {
    (0..runs)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed()
        })
        .min()
        .unwrap_or_default()
}

fn main() -> Result<(), vyre_driver::BackendError> {
    let input: Vec<u32> = (0..N).map(|i| i.wrapping_mul(2_654_435_761)).collect();
    let bytes: Vec<u8> = input.iter().flat_map(|w| w.to_le_bytes()).collect();
    let backend = ReferenceBackend::new();
    let program = program();
    let config = DispatchConfig::default();
    let inputs = [bytes];
    let traced = backend.dispatch_traced(&program, &inputs, &config)?;
    let mut expected = vec![0u32; N as usize];
    plain(&input, &mut expected);
    let got: Vec<u32> = traced.outputs[0]
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    if got != expected {
        return Err(vyre_driver::BackendError::new(
            "the reference backend disagreed with the plain loop. Fix: this is a bug in the reference backend.",
        ));
    }
    let ops = traced.ops_executed as f64;
    let interp = best_of(7, || {
        let _ = std::hint::black_box(backend.dispatch(&program, &inputs, &config));
    });
    let mut out = vec![0u32; N as usize];
    let native = best_of(7, || {
        plain(std::hint::black_box(&input), &mut out);
        std::hint::black_box(&out);
    });
    let threads = rayon::current_num_threads();
    let rate = |d: Duration| ops / d.as_secs_f64() / 1e6;
    println!(
        "elementwise u32 program, {N} invocations, {ops} IR operations, {threads} rayon thread(s)"
    );
    println!(
        "reference backend: {:>9.3} ms  {:>10.1} M ops/s",
        interp.as_secs_f64() * 1e3,
        rate(interp)
    );
    println!(
        "plain Rust loop:   {:>9.3} ms  {:>10.1} M ops/s",
        native.as_secs_f64() * 1e3,
        rate(native)
    );
    println!(
        "ratio (plain / reference): {:.1}x",
        interp.as_secs_f64() / native.as_secs_f64()
    );
    Ok(())
}
