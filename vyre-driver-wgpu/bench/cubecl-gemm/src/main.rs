//! CubeCL's matmul (`cubek-matmul`, `Strategy::Auto`, f32 with TF32 off) on the `gemm` workload's
//! shapes and inputs, device time by CubeCL's own profiler (GPU timestamps where the runtime has
//! them), each result checked exactly on sampled elements as `vyre-bench` checks its sides.
//!
//!     cargo run --release -- [--quick] [--reps N]
//!
//! Prints one line per shape: the p50 and the p10..p90 spread, in TFLOP/s. It is a separate
//! process from `vyre-bench`, so compare its figures with a `vyre-bench --only gemm` run on the
//! same machine right before or after.

use cubecl::prelude::*;
use cubecl::zspace::{Tiling, shape, strides};
use cubek_matmul::{definition::MatmulElems, launch::launch_ref, strategy::Strategy};
use cubek_std::InputBinding;
use cubek_std::config::{CubekConfig, MatmulConfig, RuntimeConfig};

/// The `gemm` workload's shapes (`m`, `n`, `k`), as `vyre-bench` runs them.
fn shapes(quick: bool) -> Vec<(usize, usize, usize)> {
    if quick {
        vec![(256, 256, 256), (512, 512, 512), (512, 256, 1024)]
    } else {
        vec![
            (1024, 1024, 1024),
            (2048, 2048, 2048),
            (4096, 4096, 4096),
            (8192, 8192, 8192),
            (4096, 1024, 4096),
            (1024, 4096, 256),
        ]
    }
}

/// splitmix64's high half, the stream `vyre-bench` draws its inputs from.
fn word(seed: u64, i: u64) -> u32 {
    let mut z = seed
        .wrapping_mul(0x9e37_79b9_7f4a_7c15)
        .wrapping_add(i.wrapping_mul(0xbf58_476d_1ce4_e5b9));
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    ((z ^ (z >> 31)) >> 32) as u32
}

/// Multiples of 1/16 in [-1, 1]: every sum of their products is exact in f32.
fn matrix(count: usize, seed: u64) -> Vec<f32> {
    (0..count as u64)
        .map(|i| (word(seed, i) % 33) as f32 / 16.0 - 1.0)
        .collect()
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let quick = args.iter().any(|a| a == "--quick");
    let reps: usize = args
        .iter()
        .position(|a| a == "--reps")
        .and_then(|i| args.get(i + 1))
        .and_then(|r| r.parse().ok())
        .unwrap_or(if quick { 8 } else { 30 });
    // An f32 product, as the raw and vyre kernels compute it: no TF32 tensor-core shortcut.
    CubekConfig::set(CubekConfig {
        matmul: MatmulConfig { allow_tf32: false },
    });
    let client = cubecl::Device::Wgpu(cubecl::wgpu::WgpuDevice::default()).client();
    let ty = f32::elem_type_native();
    for (m, n, k) in shapes(quick) {
        let a = matrix(m * k, 11);
        let b = matrix(k * n, 12);
        let binding = |handle: cubecl::server::Handle, rows: usize, cols: usize| TensorBinding {
            handle: handle.binding(),
            shape: shape![rows, cols],
            strides: strides![cols, 1],
            tiling: Tiling::UNTILED,
        };
        let lhs = client.create_from_slice(bytemuck::cast_slice(&a));
        let rhs = client.create_from_slice(bytemuck::cast_slice(&b));
        let out = client.empty(m * n * 4);
        let launch = || {
            let mut elems = MatmulElems::from_single_dtype(ty);
            launch_ref(
                &Strategy::Auto,
                &client,
                InputBinding::Normal(binding(lhs.clone(), m, k), ty),
                InputBinding::Normal(binding(rhs.clone(), k, n), ty),
                binding(out.clone(), m, n),
                &mut elems,
            )
            .expect("cubek-matmul refused the product");
        };
        // Warm-up, autotuning included.
        for _ in 0..3 {
            launch();
        }
        let bytes = client.read_one(out.clone()).expect("read-back failed");
        let c: &[f32] = bytemuck::cast_slice(&bytes);
        for s in 0..2048u64 {
            let w = u64::from(word(97, s));
            let (row, col) = ((w % m as u64) as usize, ((w >> 16) % n as u64) as usize);
            let want: f64 = (0..k)
                .map(|t| f64::from(a[row * k + t]) * f64::from(b[t * n + col]))
                .sum();
            assert_eq!(
                f64::from(c[row * n + col]),
                want,
                "C[{row}][{col}] of {m}x{n}x{k}"
            );
        }
        let mut method = None;
        let mut times: Vec<f64> = (0..reps)
            .map(|_| {
                let (_, duration) = client.profile(launch, "gemm").expect("profiling failed");
                method = Some(duration.timing_method());
                let ticks = cubecl::future::block_on(duration.resolve()).expect("no timestamps");
                ticks.duration().as_secs_f64()
            })
            .collect();
        times.sort_by(f64::total_cmp);
        let at = |p: f64| times[((times.len() - 1) as f64 * p).round() as usize];
        let tflops = |t: f64| 2.0 * (m * n * k) as f64 / t / 1e12;
        println!(
            "cubecl {m}x{n}x{k}: p50 {:.4} TFLOP/s ({:.3} ms, {} time), spread {:.0}%",
            tflops(at(0.5)),
            at(0.5) * 1e3,
            method.map_or_else(|| "no".to_string(), |m| m.to_string()),
            (at(0.9) - at(0.1)) / at(0.5) * 100.0
        );
    }
}
