//! The IR passes in the backend: on by default, off when the options say so, named by
//! `WgpuBackend::passes`, and never a change of a result (the fuzzer proves that at scale; this pins
//! the switch and one program dense in what the passes rewrite).

use vyre_driver::{DispatchConfig, VyreBackend};
use vyre_driver_wgpu::AdapterOptions;
use vyre_driver_wgpu::testing::backend_with_or_skip;
use vyre_foundation::ir::Program;
use vyre_foundation::pass::Pipeline;

/// Constant subtrees, a repeated subexpression, a loop-invariant product, a counted loop with
/// literal bounds, multiplications and divisions by constants, a dead `let` and an overwritten
/// store: something for every built-in pass.
const PROGRAM: &str = "program @workgroup_size(64, 1, 1) {
  buffer a: read i32[256] @binding(0);
  buffer out: output i32[256] @binding(1);
  let i = gid.x;
  let x = a[i];
  let unused = (x * 3i);
  let k = ((7i * 6i) - (-2147483648i / -1i));
  let acc = 0i;
  for j in 0u..4u {
    acc = (acc + ((x * 8i) + (k * bitcast<i32>(j))));
    acc = (acc + (x / 4i));
  }
  out[i] = 1i;
  out[i] = ((acc + (x % 16i)) + ((x * 8i) >> 3u));
}";

fn inputs() -> Vec<Vec<u8>> {
    let a: Vec<i32> = (0..256)
        .map(|i: i32| i.wrapping_mul(-0x2f3e_9d1b) >> (i % 13))
        .collect();
    vec![bytemuck::cast_slice(&a).to_vec()]
}

#[test]
fn the_backend_names_the_standard_passes_and_none_when_they_are_off() {
    let on = AdapterOptions::new().with_passes(true);
    let off = AdapterOptions::new().with_passes(false);
    let Some(with) = backend_with_or_skip("passes_named", &on) else {
        return;
    };
    let Some(without) = backend_with_or_skip("passes_named", &off) else {
        return;
    };
    assert_eq!(with.passes(), Pipeline::standard().key());
    assert_eq!(without.passes(), "");
}

#[test]
fn a_program_gives_the_reference_results_with_the_passes_and_without() {
    let program: Program = PROGRAM.parse().expect("the program parses");
    let expected = vyre_conformance::ReferenceBackend::new()
        .dispatch(&program, &inputs(), &DispatchConfig::default())
        .expect("the reference runs it");
    for on in [true, false] {
        let options = AdapterOptions::new().with_passes(on);
        let Some(backend) = backend_with_or_skip("passes_results", &options) else {
            return;
        };
        let outputs = backend
            .dispatch(&program, &inputs(), &DispatchConfig::default())
            .expect("the backend runs it");
        assert_eq!(outputs, expected, "passes {}", backend.passes());
        // Again: the kept, transformed program is found by the caller's.
        let stats = backend.stats();
        let again = backend
            .dispatch(&program, &inputs(), &DispatchConfig::default())
            .expect("the backend runs it again");
        assert_eq!(again, expected);
        assert_eq!(
            backend.stats().validations,
            stats.validations,
            "no second validation"
        );
    }
}
