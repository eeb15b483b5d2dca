//! A matrix product on tensor cores: `C = A x B` with `A` and `B` in `f16` and `C` in `f32`,
//! through vyre's matrix tiles (`SEMANTICS.md` section 9a). Each workgroup computes one 16x16 tile
//! of `C`: it walks `k` in steps of 16, loads a 16x16 tile of `A` and one of `B` at offsets that
//! depend only on its workgroup id and the loop counter (so they are the same for every
//! invocation, as tiles require), multiply-adds them into its accumulator, and stores the
//! accumulator once at the end. The result must equal a CPU product exactly (the inputs are
//! multiples of 1/8, so every sum is exact in any order).
//!
//! The backend picked automatically runs it when it has 16x16x16 tiles with `f16` inputs and an
//! `f32` accumulator (`capabilities().matrix_tiles`); otherwise (lavapipe, for one) the example
//! says so and runs it on the reference backend, which defines what it computes.
//!
//! ```text
//! cargo run -p vyre --example matmul
//! ```

// An example is a program: its result goes to stdout.
#![allow(clippy::print_stdout)]

use std::process::ExitCode;

use vyre::ir::{
    BufferDecl, DataType, Expr, Node, Program, TileLayout, TileRole, TileShape, TileType,
    f16_bits_to_f32, f32_to_f16_bits,
};
use vyre::{Choice, DispatchConfig, VyreBackend};

const M: u32 = 64;
const N: u32 = 96;
const K: u32 = 128;
/// The side of a tile.
const T: u32 = 16;

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("matmul: {message}");
            ExitCode::FAILURE
        }
    }
}

/// `C = A x B`, row-major, one 16x16 tile of `C` per workgroup (grid `[N / 16, M / 16]`).
fn program() -> Program {
    let row = Expr::mul(Expr::workgroup_y(), Expr::u32(T));
    let column = Expr::mul(Expr::workgroup_x(), Expr::u32(T));
    let step = || Expr::mul(Expr::var("s"), Expr::u32(T));
    Program::new(
        vec![
            BufferDecl::read("a", 0, DataType::F16).with_count(M * K),
            BufferDecl::read("b", 1, DataType::F16).with_count(K * N),
            BufferDecl::output("c", 2, DataType::F32).with_count(M * N),
        ],
        // A multiple of every subgroup size a device may use.
        [128, 1, 1],
        vec![
            Node::tile(
                "acc",
                TileType::new(TileRole::Accumulator, T, T, DataType::F32),
            ),
            Node::loop_for(
                "s",
                Expr::u32(0),
                Expr::u32(K / T),
                vec![
                    Node::tile("ta", TileType::new(TileRole::A, T, T, DataType::F16)),
                    Node::tile("tb", TileType::new(TileRole::B, T, T, DataType::F16)),
                    // A[row.., s*16..]: row-major, K elements per row.
                    Node::tile_load(
                        "ta",
                        "a",
                        Expr::add(Expr::mul(row.clone(), Expr::u32(K)), step()),
                        Expr::u32(K),
                        TileLayout::RowMajor,
                    ),
                    // B[s*16.., column..]: row-major, N elements per row.
                    Node::tile_load(
                        "tb",
                        "b",
                        Expr::add(Expr::mul(step(), Expr::u32(N)), column.clone()),
                        Expr::u32(N),
                        TileLayout::RowMajor,
                    ),
                    Node::tile_multiply_add("acc", "ta", "tb", "acc"),
                ],
            ),
            Node::tile_store(
                "acc",
                "c",
                Expr::add(Expr::mul(row, Expr::u32(N)), column),
                Expr::u32(N),
                TileLayout::RowMajor,
            ),
        ],
    )
}

fn run() -> Result<(), String> {
    // Multiples of 1/8 in [-2, 2): exact in f16, and every sum of products exact in f32.
    let value = |i: u32, salt: u32| f32::from(((i * 37 + salt * 11) % 32) as u8) / 8.0 - 2.0;
    let a: Vec<u16> = (0..M * K).map(|i| f32_to_f16_bits(value(i, 1))).collect();
    let b: Vec<u16> = (0..K * N).map(|i| f32_to_f16_bits(value(i, 2))).collect();
    let shape = TileShape {
        m: T,
        n: T,
        k: T,
        input: DataType::F16,
        accumulator: DataType::F32,
    };
    let auto = vyre::select(Choice::Auto).map_err(|e| e.to_string())?;
    let picked = if auto.backend.capabilities().matrix_tiles.contains(&shape) {
        eprintln!("matmul: {}", auto.reason);
        auto
    } else {
        eprintln!(
            "matmul: {} has no {shape} tiles; running on the reference backend instead",
            auto.backend.capabilities().device_name
        );
        vyre::select(Choice::Named("reference")).map_err(|e| e.to_string())?
    };
    let bytes = |v: &[u16]| v.iter().flat_map(|h| h.to_le_bytes()).collect::<Vec<u8>>();
    let config = DispatchConfig::default().with_grid([N / T, M / T, 1]);
    let out = picked
        .backend
        .dispatch(&program(), &[bytes(&a), bytes(&b)], &config)
        .map_err(|e| e.to_string())?;
    let c: Vec<f32> = out[0]
        .chunks_exact(4)
        .map(|w| f32::from_le_bytes([w[0], w[1], w[2], w[3]]))
        .collect();
    for i in 0..M {
        for j in 0..N {
            let expected: f32 = (0..K)
                .map(|l| {
                    f16_bits_to_f32(a[(i * K + l) as usize])
                        * f16_bits_to_f32(b[(l * N + j) as usize])
                })
                .sum();
            let got = c[(i * N + j) as usize];
            if got != expected {
                return Err(format!(
                    "C[{i}, {j}] is {got}, the CPU's is {expected} (on {})",
                    picked.backend.capabilities().device_name
                ));
            }
        }
    }
    println!(
        "matmul: {M}x{K} by {K}x{N} on {} matches the CPU exactly",
        picked.backend.capabilities().device_name
    );
    Ok(())
}
