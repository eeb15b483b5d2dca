//! The open NVIDIA mismatch of fuzz seed 29210 (FUZZING.md): `for i1 in 72237995i..(72237995i + 1i)
//! { for i2 in 12541355i..(12541355i + 1i) { out[0u] = max(out[0u], max(i2, -i1)); } }` stored
//! 72237995 (`i1` itself) on an NVIDIA H100 (driver 580.159.04), where the law, the reference and
//! lavapipe give 12541355. The emitted WGSL is right. This binary runs the shrunk program and the
//! variants that tell its parts apart (the inner loop, the outer `max`, `-i1` alone, `0i - i1`,
//! `min`, small numbers, a negated value not from a loop), printing every result before it asserts,
//! so that one run on a device says which pattern the driver gets wrong. All agree on lavapipe; on
//! NVIDIA the first fails until a workaround lands.

mod common;

use vyre_driver_wgpu::testing::backend_or_skip;
use vyre_foundation::ir::Program;

/// `(name, body)`: each body leaves its answer in `out[0]`.
const PROBES: &[(&str, &str)] = &[
    (
        "shrunk: max(out, max(i2, -i1)) in two one-trip loops",
        "for i1 in 72237995i..(72237995i + 1i) { for i2 in 12541355i..(12541355i + 1i) { out[0u] = max(out[0u], max(i2, -i1)); } }",
    ),
    (
        "no outer max",
        "for i1 in 72237995i..(72237995i + 1i) { for i2 in 12541355i..(12541355i + 1i) { out[0u] = max(i2, -i1); } }",
    ),
    (
        "one loop, a literal for i2",
        "for i1 in 72237995i..(72237995i + 1i) { out[0u] = max(12541355i, -i1); }",
    ),
    (
        "-i1 alone",
        "for i1 in 72237995i..(72237995i + 1i) { out[0u] = -i1; }",
    ),
    (
        "0i - i1 for -i1",
        "for i1 in 72237995i..(72237995i + 1i) { out[0u] = max(12541355i, (0i - i1)); }",
    ),
    (
        "min of the mirrored values",
        "for i1 in 72237995i..(72237995i + 1i) { out[0u] = min(-12541355i, i1); }",
    ),
    (
        "small numbers",
        "for i1 in 5i..(5i + 1i) { out[0u] = max(3i, -i1); }",
    ),
    (
        "a negated value not from a loop",
        "let a = -(bitcast<i32>((len(out) + 72237994u))); out[0u] = max(12541355i, a);",
    ),
];

fn program(body: &str) -> Program {
    let text = format!(
        "program @workgroup_size(1, 1, 1) {{\n  buffer out: output i32[1] @binding(0);\n  {body}\n}}"
    );
    text.parse()
        .unwrap_or_else(|e| panic!("probe program does not parse: {e}\n{text}"))
}

#[test]
fn a_negated_loop_counter_inside_max_is_exact_on_every_device() {
    let Some(wgpu) = backend_or_skip("a_negated_loop_counter_inside_max_is_exact_on_every_device")
    else {
        return;
    };
    let probes: Vec<_> = PROBES
        .iter()
        .map(|&(name, body)| (name, program(body)))
        .collect();
    let wrong = common::probe(&wgpu, &probes, &[]);
    assert!(
        wrong.is_empty(),
        "wrong on {}: {wrong:?}",
        wgpu.adapter_name()
    );
}
