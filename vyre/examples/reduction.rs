//! A workgroup reduction: each workgroup of 256 invocations loads its slice into workgroup memory and
//! sums it as a tree, with a barrier between the levels; invocation 0 writes the workgroup's sum.
//! Checked against per-slice sums on the CPU.
//!
//! ```text
//! cargo run -p vyre --example reduction
//! ```

// An example is a program: its result goes to stdout.
#![allow(clippy::print_stdout)]

use std::process::ExitCode;

use vyre::ir::{BufferDecl, DataType, Expr, Node, Program};
use vyre::{Choice, DispatchConfig, VyreBackendExt};

const WG: u32 = 256;
const GROUPS: u32 = 96;
/// Not a multiple of the workgroup: the last slice is short, and loads past the end read 0.
const N: u32 = WG * GROUPS - 100;

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("reduction: {message}");
            ExitCode::FAILURE
        }
    }
}

fn program() -> Program {
    let lid = Expr::local_x;
    let mut body = vec![
        Node::store("tile", lid(), Expr::load("data", Expr::gid_x())),
        Node::barrier(),
    ];
    // log2(256) levels; every invocation reaches every barrier (they are outside the `if`).
    let mut stride = WG / 2;
    while stride > 0 {
        body.push(Node::if_then(
            Expr::lt(lid(), Expr::u32(stride)),
            vec![Node::store(
                "tile",
                lid(),
                Expr::add(
                    Expr::load("tile", lid()),
                    Expr::load("tile", Expr::add(lid(), Expr::u32(stride))),
                ),
            )],
        ));
        body.push(Node::barrier());
        stride /= 2;
    }
    body.push(Node::if_then(
        Expr::eq(lid(), Expr::u32(0)),
        vec![Node::store(
            "sums",
            Expr::workgroup_x(),
            Expr::load("tile", Expr::u32(0)),
        )],
    ));
    Program::new(
        vec![
            BufferDecl::read("data", 0, DataType::U32).with_count(N),
            BufferDecl::output("sums", 1, DataType::U32).with_count(GROUPS),
            BufferDecl::workgroup("tile", WG, DataType::U32),
        ],
        [WG, 1, 1],
        body,
    )
}

fn run() -> Result<(), String> {
    let data: Vec<u32> = (0..N).map(|k| k.wrapping_mul(40_503) >> 4).collect();
    let picked = vyre::select(Choice::Auto).map_err(|e| e.to_string())?;
    eprintln!("reduction: {}", picked.reason);
    let config = DispatchConfig::new().with_grid([GROUPS, 1, 1]);
    let sums = picked
        .backend
        .dispatch_typed(&program(), &[&data], &config)
        .map_err(|e| e.to_string())?
        .remove(0);
    let expected: Vec<u32> = data
        .chunks(WG as usize)
        .map(|slice| slice.iter().fold(0u32, |s, &v| s.wrapping_add(v)))
        .collect();
    if sums != expected {
        return Err(format!(
            "the workgroup sums differ from the CPU's:\n  gpu {sums:?}\n  cpu {expected:?}"
        ));
    }
    println!("reduction: {GROUPS} workgroup sums of {N} elements match the CPU");
    Ok(())
}
