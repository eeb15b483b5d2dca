//! A persistent queue on the wgpu backend: 500 work items, each its own 64-element input, drained
//! through one compiled pipeline in the fewest real launches (usually one). Each item's result is
//! checked against the CPU.
//!
//! The queue is a wgpu feature, so this example needs an adapter: without one it says so and exits
//! 0, unless `VYRE_REQUIRE_GPU=1` is set (as in CI), when it fails.
//!
//! ```text
//! cargo run -p vyre --example persistent_queue
//! ```

// An example is a program: its result goes to stdout.
#![allow(clippy::print_stdout)]

use std::process::ExitCode;

use vyre::DispatchConfig;
use vyre::ir::{BufferDecl, DataType, Expr, Node, Program};
use vyre::wgpu::WgpuBackend;
use vyre::wgpu::engine::persistent::{
    PersistentPayloadWorkItem, PersistentQueue, run_persistent_kernel,
};

const LEN: u32 = 64;
const ITEMS: u32 = 500;

fn main() -> ExitCode {
    let backend = match WgpuBackend::acquire() {
        Ok(backend) => backend,
        Err(e) if std::env::var("VYRE_REQUIRE_GPU").as_deref() == Ok("1") => {
            eprintln!("persistent_queue: VYRE_REQUIRE_GPU=1 but there is no adapter: {e}");
            return ExitCode::FAILURE;
        }
        Err(e) => {
            eprintln!("persistent_queue: skipped, no wgpu adapter here ({e})");
            return ExitCode::SUCCESS;
        }
    };
    match run(&backend) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("persistent_queue: {message}");
            ExitCode::FAILURE
        }
    }
}

/// The CPU's answer for one element: `x * x + 7`, wrapping.
fn expected(x: u32) -> u32 {
    x.wrapping_mul(x).wrapping_add(7)
}

fn run(backend: &WgpuBackend) -> Result<(), String> {
    eprintln!("persistent_queue: on {}", backend.adapter_name());
    let x = Expr::load("input", Expr::gid_x());
    let program = Program::new(
        vec![
            BufferDecl::read("input", 0, DataType::U32).with_count(LEN),
            BufferDecl::output("output", 1, DataType::U32).with_count(LEN),
        ],
        [64, 1, 1],
        vec![Node::store(
            "output",
            Expr::gid_x(),
            Expr::add(Expr::mul(x.clone(), x), Expr::u32(7)),
        )],
    );
    let inputs: Vec<Vec<u32>> = (0..ITEMS)
        .map(|item| (0..LEN).map(|k| item * 1_000 + k).collect())
        .collect();
    let mut queue = PersistentQueue::new();
    for (id, input) in (0u32..).zip(&inputs) {
        queue.push(PersistentPayloadWorkItem {
            id,
            payload: input.iter().flat_map(|v| v.to_le_bytes()).collect(),
        });
    }
    let report = run_persistent_kernel(backend, &program, &DispatchConfig::default(), queue)
        .map_err(|e| e.to_string())?;
    if report.results.len() != inputs.len() {
        return Err(format!(
            "{} results for {} items",
            report.results.len(),
            inputs.len()
        ));
    }
    for (result, input) in report.results.iter().zip(&inputs) {
        let got: Vec<u32> = result
            .payload
            .chunks_exact(4)
            .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
            .collect();
        let want: Vec<u32> = input.iter().map(|&v| expected(v)).collect();
        if got != want {
            return Err(format!(
                "item {} differs from the CPU:\n  gpu {got:?}\n  cpu {want:?}",
                result.id
            ));
        }
    }
    println!(
        "persistent_queue: {ITEMS} items match the CPU, drained in {} launch(es)",
        report.kernel_launches
    );
    Ok(())
}
