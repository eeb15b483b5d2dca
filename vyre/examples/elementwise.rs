//! Elementwise: `out[i] = a[i] * 3 + b[i]` over 100 000 elements, on the backend `Choice::Auto`
//! picks (a GPU, then a CPU Vulkan driver, then the reference interpreter), checked against the same
//! computation on the CPU.
//!
//! ```text
//! cargo run -p vyre --example elementwise
//! ```

// An example is a program: its result goes to stdout.
#![allow(clippy::print_stdout)]

use std::process::ExitCode;

use vyre::ir::{BufferDecl, DataType, Expr, Node, Program};
use vyre::{Choice, DispatchConfig, VyreBackendExt};

const N: u32 = 100_000;

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("elementwise: {message}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), String> {
    let i = Expr::gid_x();
    let program = Program::new(
        vec![
            BufferDecl::read("a", 0, DataType::U32).with_count(N),
            BufferDecl::read("b", 1, DataType::U32).with_count(N),
            BufferDecl::output("out", 2, DataType::U32).with_count(N),
        ],
        [256, 1, 1],
        // No bounds check is needed: a store past the end of `out` does nothing (SEMANTICS.md).
        vec![Node::store(
            "out",
            i.clone(),
            Expr::add(
                Expr::mul(Expr::load("a", i.clone()), Expr::u32(3)),
                Expr::load("b", i),
            ),
        )],
    );
    let a: Vec<u32> = (0..N).map(|k| k.wrapping_mul(2_654_435_761)).collect();
    let b: Vec<u32> = (0..N).map(|k| k ^ 0x5a5a).collect();

    let picked = vyre::select(Choice::Auto).map_err(|e| e.to_string())?;
    eprintln!("elementwise: {}", picked.reason);
    let outputs = picked
        .backend
        .dispatch_typed(&program, &[&a, &b], &DispatchConfig::default())
        .map_err(|e| e.to_string())?;

    let expected: Vec<u32> = a
        .iter()
        .zip(&b)
        .map(|(&x, &y)| x.wrapping_mul(3).wrapping_add(y))
        .collect();
    match outputs[0].iter().zip(&expected).position(|(g, e)| g != e) {
        None if outputs[0].len() == expected.len() => {
            println!("elementwise: {N} elements match the CPU");
            Ok(())
        }
        None => Err(format!(
            "{} elements came back, {} expected",
            outputs[0].len(),
            expected.len()
        )),
        Some(k) => Err(format!(
            "out[{k}] = {}, the CPU says {}",
            outputs[0][k], expected[k]
        )),
    }
}
