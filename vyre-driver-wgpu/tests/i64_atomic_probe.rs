//! The open H200 mismatch of fuzz seed 20261212 (FUZZING.md): `atomic_or` of
//! `min(i32(max(7i64, v1) + (-9223372036457930689i64 % 2i64)), 0i)` with `v1 = 603405719` left
//! -603405718 on the H200, where the reference and lavapipe leave 0. The operand stored without the
//! atomic, and each of its parts, were right there. This binary runs the original and the variants
//! that tell its parts apart: the operand held in an assigned variable first (a store and a load
//! between the arithmetic and the atomic), the i64 sum held so before the truncation, another
//! atomic, and no atomic. It prints every result before it asserts, so one run on a device says
//! which step goes wrong. Each variant must agree with the reference: all do on lavapipe, and on the
//! H200 too (2026-12-05), so these small forms do not reproduce the miscompile, which needs more of
//! the original program's context; they stay as a regression check.

mod common;

use vyre_driver::VyreBackend;
use vyre_driver_wgpu::testing::backend_or_skip;
use vyre_foundation::ir::Program;

/// The probe programs: `(name, text)`. Each reads `v1` from `inp[0]` and leaves its answer in
/// `out[0]` (and a few in `out[1]`), all expected 0.
const PROBES: &[(&str, &str)] = &[
    (
        "original: the operand inline in atomic_or",
        "atomic_or(out[0u], min(i32((max(7i64, v1) + (-9223372036457930689i64 % 2i64))), 0i))",
    ),
    (
        "the operand first held in an assigned variable",
        "VAR x = min(i32((max(7i64, v1) + (-9223372036457930689i64 % 2i64))), 0i); atomic_or(out[0u], x)",
    ),
    (
        "the i64 sum first held in an assigned variable",
        "VAR64 w = (max(7i64, v1) + (-9223372036457930689i64 % 2i64)); atomic_or(out[0u], min(i32(w), 0i))",
    ),
    (
        "atomic_add in place of atomic_or",
        "atomic_add(out[0u], min(i32((max(7i64, v1) + (-9223372036457930689i64 % 2i64))), 0i))",
    ),
    (
        "a literal remainder (-1i64) in place of the `%`",
        "atomic_or(out[0u], min(i32((max(7i64, v1) + -1i64)), 0i))",
    ),
    (
        "no min: the truncated sum itself, minus 603405718",
        "atomic_or(out[0u], (i32((max(7i64, v1) + (-9223372036457930689i64 % 2i64))) - 603405718i))",
    ),
];

/// The program of one probe: `v1` loaded from `inp[0]`, then the probe's statements.
fn program(probe: &str) -> Program {
    let mut body = Vec::new();
    for part in probe.split("; ") {
        if let Some(rest) = part.strip_prefix("VAR64 ") {
            let (name, value) = rest.split_once(" = ").expect("a VAR64 binding");
            body.push(format!("  let {name} = 0i64;"));
            body.push(format!("  {name} = {value};"));
        } else if let Some(rest) = part.strip_prefix("VAR ") {
            let (name, value) = rest.split_once(" = ").expect("a VAR binding");
            body.push(format!("  let {name} = 0i;"));
            body.push(format!("  {name} = {value};"));
        } else {
            body.push(format!("  let old = {part};"));
        }
    }
    let text = format!(
        "program @workgroup_size(1, 1, 1) {{\n  buffer inp: read i64[1] @binding(0);\n  buffer out: output i32[1] @binding(1);\n  let v1 = inp[0u];\n{}\n}}",
        body.join("\n")
    );
    text.parse()
        .unwrap_or_else(|e| panic!("probe program does not parse: {e}\n{text}"))
}

#[test]
fn the_i64_operand_of_an_atomic_is_exact_on_every_device() {
    let Some(wgpu) = backend_or_skip("the_i64_operand_of_an_atomic_is_exact_on_every_device")
    else {
        return;
    };
    let caps = wgpu.capabilities();
    if !caps.int64 {
        eprintln!(
            "the_i64_operand_of_an_atomic_is_exact_on_every_device: skipped, {} has no 64-bit integers",
            wgpu.adapter_name()
        );
        return;
    }
    let input = vec![603_405_719i64.to_le_bytes().to_vec()];
    let probes: Vec<_> = PROBES
        .iter()
        .map(|&(name, probe)| (name, program(probe)))
        .collect();
    let wrong = common::probe(&wgpu, &probes, &input);
    assert!(
        wrong.is_empty(),
        "wrong on {}: {wrong:?}",
        wgpu.adapter_name()
    );
}
