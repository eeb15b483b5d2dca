//! Resident buffers: data uploaded once, updated in place by ten dispatches and a partial write, and
//! read back once at the end; nothing crosses to the host in between. Checked against the same steps
//! on the CPU.
//!
//! ```text
//! cargo run -p vyre --example resident
//! ```

// An example is a program: its result goes to stdout.
#![allow(clippy::print_stdout)]

use std::process::ExitCode;

use vyre::ir::{BufferDecl, DataType, Expr, Node, Program};
use vyre::{Choice, DispatchConfig, VyreBackendExt};

const N: u32 = 4_096;
const ROUNDS: u32 = 10;

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("resident: {message}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), String> {
    // `state[i] = state[i] * 5 + step[0]`: one read-write buffer updated in place, one uniform-like
    // input the host changes between rounds.
    let i = Expr::gid_x();
    let program = Program::new(
        vec![
            BufferDecl::read_write("state", 0, DataType::U32).with_count(N),
            BufferDecl::read("step", 1, DataType::U32).with_count(1),
        ],
        [256, 1, 1],
        vec![Node::store(
            "state",
            i.clone(),
            Expr::add(
                Expr::mul(Expr::load("state", i), Expr::u32(5)),
                Expr::load("step", Expr::u32(0)),
            ),
        )],
    );
    let e = |err: vyre::BackendError| err.to_string();
    let picked = vyre::select(Choice::Auto).map_err(e)?;
    eprintln!("resident: {}", picked.reason);
    let backend = picked.backend;

    let mut cpu: Vec<u32> = (0..N).collect();
    let state = backend.create_buffer_from(&cpu).map_err(e)?;
    let step = backend.create_buffer_for::<u32>(1).map_err(e)?;
    let config = DispatchConfig::default();
    for round in 0..ROUNDS {
        backend.write_buffer_from(&step, 0, &[round]).map_err(e)?;
        backend
            .dispatch_resident(&program, &[&state, &step], &config)
            .map_err(e)?;
        for v in &mut cpu {
            *v = v.wrapping_mul(5).wrapping_add(round);
        }
    }
    // A partial update: elements 100..104 replaced on the device, then one more round.
    backend
        .write_buffer_from(&state, 100, &[1u32, 2, 3, 4])
        .map_err(e)?;
    cpu[100..104].copy_from_slice(&[1, 2, 3, 4]);
    backend
        .dispatch_resident(&program, &[&state, &step], &config)
        .map_err(e)?;
    for v in &mut cpu {
        *v = v.wrapping_mul(5).wrapping_add(ROUNDS - 1);
    }

    let gpu = backend.read_buffer_as::<u32>(&state).map_err(e)?;
    match gpu.iter().zip(&cpu).position(|(g, c)| g != c) {
        None if gpu.len() == cpu.len() => {
            println!(
                "resident: {N} elements after {} dispatches match the CPU",
                ROUNDS + 1
            );
            Ok(())
        }
        None => Err(format!("{} elements read back, {N} expected", gpu.len())),
        Some(k) => Err(format!("state[{k}] = {}, the CPU says {}", gpu[k], cpu[k])),
    }
}
