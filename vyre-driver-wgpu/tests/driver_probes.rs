//! The probes of the driver bugs in `vyre_driver_wgpu::workarounds::DRIVER_BUGS`: one test per bug,
//! each running the bug's minimal program and the variants that tell its parts apart (a literal, a
//! loop counter, a load, a negation written another way, another width), with the bug's workaround
//! in force and without it, printing both and the law's value for every variant before anything is
//! judged. So one run on a device says which variants its driver gets wrong and whether the
//! workaround mends them (`bash .ci/device-tests run 'vyre-driver-wgpu--driver_probes*'`).
//!
//! Every device must pass with the workaround in force; without it, NVIDIA's driver 580.159.04 got
//! the first variant of each wrong (DRIVER_BUGS.md), lavapipe none. Each test also checks, with no
//! device, that the workaround's module no longer has the shape the driver miscompiles, so the
//! test is not vacuous on a driver without the bug.

mod common;

use common::{Probe, probe_workaround};
use vyre_driver_wgpu::workarounds::DRIVER_BUGS;
use vyre_driver_wgpu::{LaunchForm, Workaround, Workarounds, emit_wgsl_with};

/// A program of one `out` buffer of `ty[n]` and `body`, one invocation per element.
fn program(ty: &str, n: u32, body: &str) -> String {
    format!(
        "program @workgroup_size(1, 1, 1) {{\n  buffer out: output {ty}[{n}] @binding(0);\n  {body}\n}}"
    )
}

/// A program with an input buffer `a` of `in_ty[n]` as well.
fn program_with_input(in_ty: &str, ty: &str, n: u32, body: &str) -> String {
    format!(
        "program @workgroup_size(1, 1, 1) {{\n  buffer a: read {in_ty}[{n}] @binding(0);\n  buffer out: output {ty}[{n}] @binding(1);\n  {body}\n}}"
    )
}

fn words_i32(values: &[i32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

fn words_f32(values: &[f32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

fn words_u64(values: &[u64]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

/// Runs the table's minimal program of the bug `id` and the probes, and fails naming the variants
/// wrong with `workaround` in force; then checks that every probe's module with the workaround has
/// none of `shape` (the emitted WGSL text).
fn check(test: &str, id: &str, probes: &[Probe], shape: &[&str]) {
    check_with_inputs(test, id, Vec::new(), probes, shape);
}

/// [`check`] for a bug whose minimal program reads `inputs`.
fn check_with_inputs(test: &str, id: &str, inputs: Vec<Vec<u8>>, probes: &[Probe], shape: &[&str]) {
    let bug = DRIVER_BUGS
        .iter()
        .find(|b| b.id == id)
        .unwrap_or_else(|| panic!("no driver bug `{id}` in the table"));
    let workaround = bug.workaround;
    let mut all = vec![Probe::with_inputs(
        &format!("{id}: the table's minimal program"),
        bug.program,
        inputs,
    )];
    all.extend(probes.iter().map(|p| Probe {
        name: p.name.clone(),
        program: p.program.clone(),
        inputs: p.inputs.clone(),
    }));
    let probes = all;
    let only = Workarounds::NONE.with(workaround);
    for probe in &probes {
        let wgsl = emit_wgsl_with(&probe.program, LaunchForm::Folded, only)
            .unwrap_or_else(|e| panic!("{}: {e}", probe.name));
        for pattern in shape {
            assert!(
                !wgsl.contains(pattern),
                "{}: with {workaround} the module still has `{pattern}`:\n{wgsl}",
                probe.name
            );
        }
    }
    let Some(wrong) = probe_workaround(test, workaround, &probes) else {
        return;
    };
    assert!(wrong.is_empty(), "wrong with {workaround}: {wrong:?}");
}

/// `nvidia-max-negated-loop-counter` (fuzz seed 29210): `max(i2, -i1)` of two one-trip loop counters
/// inside `max(out[0], ...)`. On the H100 only the first form was wrong.
#[test]
fn max_of_a_negated_loop_counter() {
    let bodies = [
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
            "0i - i1 for -i1",
            "for i1 in 72237995i..(72237995i + 1i) { out[0u] = max(12541355i, (0i - i1)); }",
        ),
        (
            "min of the mirrored values",
            "for i1 in 72237995i..(72237995i + 1i) { out[0u] = min(-12541355i, i1); }",
        ),
        (
            "small numbers",
            "for i1 in 5i..(5i + 1i) { out[0u] = max(out[0u], max(3i, -i1)); }",
        ),
        (
            "a negated value not from a loop",
            "let a = -(bitcast<i32>((len(out) + 72237994u))); out[0u] = max(out[0u], max(12541355i, a));",
        ),
        (
            "64-bit counters",
            "for i1 in 72237995i..(72237995i + 1i) { for i2 in 12541355i..(12541355i + 1i) { out[0u] = i32(max(i64(out[0u]), max(i64(i2), -(i64(i1))))); } }",
        ),
    ];
    let probes: Vec<Probe> = bodies
        .iter()
        .map(|(name, body)| Probe::text(name, &program("i32", 1, body)))
        .collect();
    check(
        "max_of_a_negated_loop_counter",
        "nvidia-max-negated-loop-counter",
        &probes,
        &["min(", "max("],
    );
}

/// `nvidia-min-of-negation`: `min(min(v, -v), 0) % 17` of `v = i32(tid)` gave 0 for tid = 1.
#[test]
fn min_of_a_value_and_its_negation() {
    let loaded: Vec<i32> = (0..64).map(|i| i - 3).collect();
    let probes = vec![
        Probe::text(
            "shrunk: min(min(v, -v), 0) % 17 of the invocation id",
            &program(
                "f32",
                64,
                "let v = i32(gid.x); v = min(min(v, -v), 0i); out[gid.x] = f32((v % 17i));",
            ),
        ),
        Probe::text(
            "as an i32 result",
            &program(
                "i32",
                64,
                "let v = i32(gid.x); v = min(min(v, -v), 0i); out[gid.x] = (v % 17i);",
            ),
        ),
        Probe::text(
            "no outer min",
            &program(
                "i32",
                64,
                "let v = i32(gid.x); out[gid.x] = (min(v, -v) % 17i);",
            ),
        ),
        Probe::text(
            "max(max(v, -v), 0)",
            &program(
                "i32",
                64,
                "let v = i32(gid.x); v = max(max(v, -v), 0i); out[gid.x] = (v % 17i);",
            ),
        ),
        Probe::text(
            "0 - v for -v",
            &program(
                "i32",
                64,
                "let v = i32(gid.x); v = min(min(v, (0i - v)), 0i); out[gid.x] = (v % 17i);",
            ),
        ),
        Probe::with_inputs(
            "v loaded (negative values too)",
            &program_with_input(
                "i32",
                "i32",
                64,
                "let v = a[gid.x]; v = min(min(v, -v), 0i); out[gid.x] = (v % 17i);",
            ),
            vec![words_i32(&loaded)],
        ),
        Probe::text(
            "64-bit",
            &program(
                "i64",
                64,
                "let v = i64(i32(gid.x)); v = min(min(v, -v), 0i64); out[gid.x] = (v % 17i64);",
            ),
        ),
        Probe::text(
            "unsigned",
            &program(
                "u32",
                64,
                "let v = gid.x; v = min(min(v, (0u - v)), 100u); out[gid.x] = (v % 17u);",
            ),
        ),
    ];
    check(
        "min_of_a_value_and_its_negation",
        "nvidia-min-of-negation",
        &probes,
        &["min(", "max("],
    );
}

/// `nvidia-i64-min-low-word`: `min(-3, i64::MIN + 17892187)` of constants gave -3, as if the low
/// words (-3 and 17892187) were compared.
#[test]
fn min_of_64_bit_constants() {
    let probes = vec![
        Probe::text(
            "shrunk: min(abs(min(5, 3)) * -1, i64::MIN + 17892187)",
            &program(
                "i64",
                1,
                "let v1 = (abs(min(5i64, 3i64)) * -1i64); out[0u] = min(v1, -9223372036836883621i64);",
            ),
        ),
        Probe::text(
            "two literals",
            &program("i64", 1, "out[0u] = min(-3i64, -9223372036836883621i64);"),
        ),
        Probe::text(
            "max of the same",
            &program("i64", 1, "out[0u] = max(3i64, 9223372036836883621i64);"),
        ),
        Probe::text(
            "low words ordered the other way, unsigned",
            &program("u64", 1, "out[0u] = min(4294967296u64, 4294967295u64);"),
        ),
        Probe::text(
            "unsigned max",
            &program("u64", 1, "out[0u] = max(4294967295u64, 4294967296u64);"),
        ),
        Probe::text(
            "a loop counter for -3",
            &program(
                "i64",
                1,
                "for i in 3i..(3i + 1i) { out[0u] = min(-(i64(i)), -9223372036836883621i64); }",
            ),
        ),
        Probe::text(
            "a value from the grid",
            &program(
                "i64",
                1,
                "let v = (i64(gid.x) - 3i64); out[0u] = min(v, -9223372036836883621i64);",
            ),
        ),
    ];
    check(
        "min_of_64_bit_constants",
        "nvidia-i64-min-low-word",
        &probes,
        &["min(", "max("],
    );
}

/// `nvidia-sign-extension-past-shift`: `u64(i32(tid)) << 31` gave `0xffffffff80000000` for tid = 1.
#[test]
fn widening_then_shift() {
    let loaded: Vec<i32> = (0..64).map(|i| i * 0x0123_4567 - 7).collect();
    let probes = vec![
        Probe::text(
            "shrunk: u64(i32(tid)) << 959816159 (31)",
            &program("u64", 64, "out[gid.x] = (u64(i32(gid.x)) << 959816159u);"),
        ),
        Probe::text(
            "i64(i32(tid)) << 31",
            &program("i64", 64, "out[gid.x] = (i64(i32(gid.x)) << 31u);"),
        ),
        Probe::text(
            "u64 of an unsigned value << 31",
            &program("u64", 64, "out[gid.x] = (u64((gid.x * 3u)) << 31u);"),
        ),
        Probe::text(
            "i64 of a negative value << 33",
            &program("i64", 64, "out[gid.x] = (i64(-(i32(gid.x))) << 33u);"),
        ),
        Probe::text(
            "i64 of a negative value >> 1",
            &program("i64", 64, "out[gid.x] = (i64(-(i32(gid.x))) >> 1u);"),
        ),
        Probe::text(
            "i64(i32) % 1000000007",
            &program(
                "i64",
                64,
                "out[gid.x] = ((i64(-(i32(gid.x))) << 20u) % 1000000007i64);",
            ),
        ),
        Probe::with_inputs(
            "a loaded value widened and shifted by 31",
            &program_with_input("i32", "u64", 64, "out[gid.x] = (u64(a[gid.x]) << 31u);"),
            vec![words_i32(&loaded)],
        ),
    ];
    // The widening's literal `32u` shifts are what the driver could see through.
    check(
        "widening_then_shift",
        "nvidia-sign-extension-past-shift",
        &probes,
        &["<< 32u", ">> 32u"],
    );
}

/// `nvidia-u64-remainder-of-widened` (the catalogue's `driver.u64_of_i32.rem`, with
/// `opaque_widening` in force): `u64(i32(x)) % 32` kept a high word. Variants: a literal, a loaded
/// value, a signed remainder, divisors that are not powers of two, a division, and the shape fuzz
/// seed 52013 found in a batch (`i64(i32(tid)) % -1702928622`).
#[test]
fn remainder_of_a_widened_value() {
    let loaded: Vec<i32> = (0..64).map(|i| i * -0x0123_4567 + 5).collect();
    let wide: Vec<u64> = (0..64u64)
        .map(|i| 0xffff_ffff_ffff_fff8u64.wrapping_add(i.wrapping_mul(0x0000_0001_0000_0003)))
        .collect();
    let probes = vec![
        Probe::text(
            "u64(-2147483648i) % 32",
            &program("u64", 64, "out[gid.x] = (u64(-2147483648i) % u64(32u));"),
        ),
        Probe::text(
            "u64(i32(tid) - 8) % 8",
            &program("u64", 64, "out[gid.x] = (u64((i32(gid.x) + -8i)) % 8u64);"),
        ),
        Probe::text(
            "i64(i32(tid) - 8) % 32",
            &program("i64", 64, "out[gid.x] = (i64((i32(gid.x) + -8i)) % 32i64);"),
        ),
        Probe::text(
            "u64(i32(tid) - 8) % 31",
            &program("u64", 64, "out[gid.x] = (u64((i32(gid.x) + -8i)) % 31u64);"),
        ),
        Probe::text(
            "u64(i32(tid) - 8) / 32",
            &program("u64", 64, "out[gid.x] = (u64((i32(gid.x) + -8i)) / 32u64);"),
        ),
        Probe::text(
            "seed 52013: i64(i32(tid)) % -1702928622",
            &program(
                "i64",
                64,
                "out[gid.x] = (i64(i32(gid.x)) % -1702928622i64);",
            ),
        ),
        Probe::with_inputs(
            "a loaded u64 (no widening) % 32",
            &program_with_input("u64", "u64", 64, "out[gid.x] = (a[gid.x] % 32u64);"),
            vec![words_u64(&wide)],
        ),
        Probe::text(
            "x - (x / 32) * 32 of x = u64(i32(tid) - 8)",
            &program(
                "u64",
                64,
                "let x = u64((i32(gid.x) + -8i));\n  out[gid.x] = (x - ((x / 32u64) * 32u64));",
            ),
        ),
        Probe::with_inputs(
            "a loaded value widened, % 64",
            &program_with_input("i32", "u64", 64, "out[gid.x] = (u64(a[gid.x]) % 64u64);"),
            vec![words_i32(&loaded)],
        ),
    ];
    // Without the workaround each divisor is the zero guard's `select` of constants, which the
    // driver folds; with it, that select xored with the opaque zero.
    check(
        "remainder_of_a_widened_value",
        "nvidia-u64-remainder-of-widened",
        &probes,
        &["% select(", "/ select("],
    );
}

/// `nvidia-remainder-chain-of-narrowed` (fuzz seeds 52013 and 65002): `(u32(x) % 2147483649u) % 2u`
/// of a narrowed 64-bit `x` came out 1 for `x = 0`. Variants: the seeds' index and stored-value
/// forms, a mask for the second remainder, a division first, a loaded 64-bit value, and the steps
/// that were right alone (no narrowing, one remainder, a small divisor).
#[test]
fn remainder_chain_of_a_narrowed_value() {
    let wide: Vec<u64> = (0..8u64)
        .map(|i| i.wrapping_mul(0x0000_0003_8000_0001))
        .collect();
    let term_52013 = "((u32(i32((i64(i32(gid.x)) % -1702928622i64))) % 2147483649u) % 2u)";
    let probes = vec![
        Probe::text(
            "seed 52013 as an index",
            &program(
                "u32",
                8,
                &format!("out[((gid.x * 2u) + {term_52013})] = 1u;"),
            ),
        ),
        Probe::text(
            "seed 52013 as a stored value",
            &program(
                "u32",
                8,
                &format!("out[gid.x] = ((gid.x * 2u) + {term_52013});"),
            ),
        ),
        Probe::text(
            "seed 65002: u32(u64(tid) / 3) as an index",
            &program(
                "i64",
                8,
                "out[((gid.x * 2u) + ((u32((u64(gid.x) / 3u64)) % 2147483649u) % 2u))] = 3i64;",
            ),
        ),
        Probe::text(
            "straight to u32, then & 1u",
            &program(
                "u32",
                8,
                "out[gid.x] = ((u32((i64(i32(gid.x)) % -1702928622i64)) % 2147483649u) & 1u);",
            ),
        ),
        Probe::text(
            "a division first",
            &program(
                "u32",
                8,
                "out[gid.x] = ((u32((u64(gid.x) / 3u64)) / 2147483649u) % 2u);",
            ),
        ),
        Probe::with_inputs(
            "a loaded u64, narrowed",
            &program_with_input(
                "u64",
                "u32",
                8,
                "out[gid.x] = ((u32(a[gid.x]) % 2147483649u) % 2u);",
            ),
            vec![words_u64(&wide)],
        ),
        Probe::text(
            "no narrowing: (tid % 2147483649u) % 2u",
            &program("u32", 8, "out[gid.x] = ((gid.x % 2147483649u) % 2u);"),
        ),
        Probe::text(
            "one remainder: u32(u64(tid) / 3) % 2147483649u",
            &program(
                "u32",
                8,
                "out[gid.x] = (u32((u64(gid.x) / 3u64)) % 2147483649u);",
            ),
        ),
        Probe::text(
            "a small divisor: (u32(u64(tid) / 3) % 7u) % 2u",
            &program(
                "u32",
                8,
                "out[gid.x] = ((u32((u64(gid.x) / 3u64)) % 7u) % 2u);",
            ),
        ),
    ];
    // Without the workaround the narrowed word, `u32((x & 4294967295lu))`, goes straight into the
    // arithmetic that follows; with it, every one goes through `^` with the opaque zero first.
    for probe in &probes {
        let only = Workarounds::NONE.with(Workaround::OpaqueNarrowing);
        let wgsl = emit_wgsl_with(&probe.program, LaunchForm::Folded, only)
            .unwrap_or_else(|e| panic!("{}: {e}", probe.name));
        let narrowings = wgsl.matches("4294967295lu))").count();
        let hidden = wgsl.matches("4294967295lu)) ^").count();
        assert_eq!(
            narrowings, hidden,
            "{}: a narrowing not hidden by opaque_narrowing:\n{wgsl}",
            probe.name
        );
    }
    check(
        "remainder_chain_of_a_narrowed_value",
        "nvidia-remainder-chain-of-narrowed",
        &probes,
        &[],
    );
}

/// `nvidia-i64-compare-low-word` (fuzz seed 80012, the H100): `bitcast<i64>(9223372038027439179u64)
/// < (ld1 << 1u)` of a loaded 0 came out false, as if the negative constant were ordered by its
/// low word (0x45e58a4b). Variants: the value not shifted, a literal zero, the invocation id, the
/// operands swapped, `<=` and `>=`, unsigned, and a constant whose low word orders as its whole.
#[test]
fn compare_of_a_64_bit_constant() {
    let loaded: Vec<u64> = vec![0, 1, 0x8000_0000, u64::MAX, 0x0000_0001_0000_0000, 7, 0, 3];
    let c = "bitcast<i64>(9223372038027439179u64)";
    let with_load = |body: &str| {
        format!(
            "program @workgroup_size(1, 1, 1) {{\n  buffer a: read i64[8] @binding(0);\n  buffer out: output i64[8] @binding(1);\n  let ld1 = a[gid.x];\n  {body}\n}}"
        )
    };
    let inputs = || vec![words_u64(&loaded)];
    let probes = vec![
        Probe::text(
            "the seed's program over eight invocations",
            &program(
                "i64",
                8,
                &format!(
                    "let ld1 = out[gid.x];\n  out[gid.x] = (i64(gid.x) / 2i64);\n  out[gid.x] = i64(({c} < (ld1 << 1u)));"
                ),
            ),
        ),
        Probe::with_inputs(
            "C < (load << 1u)",
            &with_load(&format!("out[gid.x] = i64(({c} < (ld1 << 1u)));")),
            inputs(),
        ),
        Probe::with_inputs(
            "C < load",
            &with_load(&format!("out[gid.x] = i64(({c} < ld1));")),
            inputs(),
        ),
        Probe::with_inputs(
            "(load << 1u) > C",
            &with_load(&format!("out[gid.x] = i64(((ld1 << 1u) > {c}));")),
            inputs(),
        ),
        Probe::with_inputs(
            "C <= (load << 1u) and C >= (load << 1u)",
            &with_load(&format!(
                "out[gid.x] = (i64(({c} <= (ld1 << 1u))) + (2i64 * i64(({c} >= (ld1 << 1u)))));"
            )),
            inputs(),
        ),
        Probe::text(
            "C < i64(gid.x) << 1u",
            &program(
                "i64",
                8,
                &format!("out[gid.x] = i64(({c} < (i64(gid.x) << 1u)));"),
            ),
        ),
        Probe::with_inputs(
            "unsigned: 9223372038027439179u64 > (u64 load << 1u)",
            &with_load("out[gid.x] = i64((9223372038027439179u64 > (bitcast<u64>(ld1) << 1u)));"),
            inputs(),
        ),
        Probe::with_inputs(
            "a constant whose low word orders as its whole: -5i64 < (load << 1u)",
            &with_load("out[gid.x] = i64((-5i64 < (ld1 << 1u)));"),
            inputs(),
        ),
    ];
    check(
        "compare_of_a_64_bit_constant",
        "nvidia-i64-compare-low-word",
        &probes,
        // Without the workaround the constant (`-9223372035682112437li`) is compared as it is.
        &["2112437li <"],
    );
}

/// `nvidia-wide-quotient-low-bit` (fuzz seeds 84001 and 85001, the H100): the lowest bit of a 64-bit
/// remainder or quotient the driver computes at run time (`opaque_divisor` makes every divisor
/// such), multiplied by a constant, came out 1 where the law gives 0: `((u64(tid) %
/// (18446744073709551615u64 ^ z)) & 1u64) * 39238535u64` stored 39238535 for tid = 0. Variants: the
/// literal divisor (opaque under the table's `opaque_divisor`), `% 2u64` for the mask, a quotient,
/// a small divisor, signed, a loaded dividend, and the seeds' whole expressions.
#[test]
fn low_bit_of_a_64_bit_quotient() {
    let loaded: Vec<u64> = vec![0, 1, 2, 3, u64::MAX, 0x8000_0000_0000_0000, 6, 7];
    let k = "39238535u64";
    let with_zero = |body: &str| program("u64", 8, &format!("let z = out[gid.x];\n  {body}"));
    let probes = vec![
        Probe::text(
            "seed 85001: ((u64(tid) % 18446744073709551615u64) & 1u64) * K",
            &program(
                "u64",
                8,
                &format!("out[gid.x] = (((u64(gid.x) % 18446744073709551615u64) & 1u64) * {k});"),
            ),
        ),
        Probe::text(
            "% 2u64 for the mask",
            &with_zero(&format!(
                "out[gid.x] = (((u64(gid.x) % (18446744073709551615u64 ^ z)) % 2u64) * {k});"
            )),
        ),
        Probe::text(
            "a quotient's lowest bit",
            &with_zero(&format!(
                "out[gid.x] = (((u64(gid.x) / (18446744073709551615u64 ^ z)) & 1u64) * {k});"
            )),
        ),
        Probe::text(
            "a small divisor: % (7u64 ^ z)",
            &with_zero(&format!(
                "out[gid.x] = (((u64(gid.x) % (7u64 ^ z)) & 1u64) * {k});"
            )),
        ),
        Probe::text(
            "signed: ((i64(tid) % i64::MIN) & 1i64) * K (seed 85001)",
            &program(
                "u64",
                8,
                "out[gid.x] = bitcast<u64>((((i64(gid.x) % -9223372036854775808i64) & 1i64) * 230510018i64));",
            ),
        ),
        Probe::with_inputs(
            "a loaded dividend, % 2u64, then % 17u64",
            &program_with_input(
                "u64",
                "u64",
                8,
                "out[gid.x] = ((9223372036854786544u64 * ((a[gid.x] % 18446744073709551615u64) % 2u64)) % 17u64);",
            ),
            vec![words_u64(&loaded)],
        ),
        Probe::text(
            "seed 84001 as an f32",
            &program(
                "f32",
                8,
                "out[gid.x] = f32(((9223372036854786544u64 * ((u64(gid.x) % 18446744073709551615u64) % 2u64)) % 17u64));",
            ),
        ),
        Probe::text(
            "no mask: (u64(tid) % (M ^ z)) * K",
            &with_zero(&format!(
                "out[gid.x] = ((u64(gid.x) % (18446744073709551615u64 ^ z)) * {k});"
            )),
        ),
    ];
    let mut probes = probes;
    probes.extend([
        Probe::text(
            "seed 84001 (B): (K * ((u64(tid) % M) % 2u64)) % 17u64",
            "program @workgroup_size(2, 1, 1) {\n  buffer o: output u64[4] @binding(0);\n  o[gid.x] = ((9223372036854786544u64 * ((u64(gid.x) % 18446744073709551615u64) % 2u64)) % 17u64);\n}",
        ),
        Probe::text(
            "seed 84001 (C): min(-abs(i32(tid)), 0) < C in a one-trip loop's condition, beside f32(2^32 % 17i64)",
            "program @workgroup_size(2, 1, 1) {\n  buffer o: output f32[4] @binding(0);\n  let v1 = 4294967296i64;\n  let v2 = (min((abs(i32(gid.x)) * -1i), 0i) < (2147483647i + 357778899i));\n  let trip3 = 0u;\n  while ((trip3 < 1u) && v2) {\n    trip3 = (trip3 + 1u);\n  }\n  o[gid.x] = (f32((v1 % 17i64)) + f32(v2));\n}",
        ),
    ]);
    check(
        "low_bit_of_a_64_bit_quotient",
        "nvidia-wide-quotient-low-bit",
        &probes,
        // Without the workaround the guarded divisor (a `select`) is the driver's divisor; with
        // it vyre's loop divides, and no `%` or `/` takes that `select`.
        &["% select(", "/ select("],
    );
}

/// `nvidia-abs-beside-wide-division` (fuzz seed 84001; seed 63031 on the H200 had the same shape):
/// `max(abs(a1) * -1i64, -1i64)` of `a1 = 0` stored -1 when the program also divided `a1` by 17,
/// with every set of the other workarounds, none included. The replays on the H100 showed the
/// division is what matters (a remainder by 16, no remainder, or no second store: right), and that
/// the `max` is not (an explicit select, `-abs(a1)`, a quotient: wrong all the same). Variants: a
/// load for the atomic, the remainder stored as an i64, the stores swapped, a select for the `max`,
/// `-abs` and a quotient, and the two that were right (a remainder by 16, no second store).
#[test]
fn abs_beside_a_64_bit_division() {
    // `out0`'s element type: what the second store writes (`i64` where there is none).
    let two = |out0: &str, body: &str| {
        format!(
            "program @workgroup_size(1, 1, 1) {{\n  buffer out0: output {out0}[2] @binding(0);\n  buffer out1: output i64[2] @binding(1);\n  {body}\n}}"
        )
    };
    let atomic = "let a1 = atomic_add(out1[0u], 0i64);";
    let probes = [
        (
            "a load for the atomic",
            "f32",
            "let a1 = out1[0u];\n  out1[1u] = max((abs(a1) * -1i64), -1i64);\n  out0[1u] = f32((a1 % 17i64));".to_string(),
        ),
        (
            "the remainder stored as an i64",
            "i64",
            format!("{atomic}\n  out1[1u] = max((abs(a1) * -1i64), -1i64);\n  out0[1u] = (a1 % 17i64);"),
        ),
        (
            "the two stores swapped",
            "f32",
            format!("{atomic}\n  out0[1u] = f32((a1 % 17i64));\n  out1[1u] = max((abs(a1) * -1i64), -1i64);"),
        ),
        (
            "max as an explicit select",
            "f32",
            format!("{atomic}\n  let v = (abs(a1) * -1i64);\n  out1[1u] = select((v > -1i64), v, -1i64);\n  out0[1u] = f32((a1 % 17i64));"),
        ),
        (
            "-abs and a quotient",
            "f32",
            format!("{atomic}\n  out1[1u] = max(-abs(a1), -1i64);\n  out0[1u] = f32((a1 / 17i64));"),
        ),
        (
            "a remainder by 16 (right without the workaround)",
            "f32",
            format!("{atomic}\n  out1[1u] = max((abs(a1) * -1i64), -1i64);\n  out0[1u] = f32((a1 % 16i64));"),
        ),
        (
            "no second store (right without the workaround)",
            "i64",
            format!("{atomic}\n  out1[1u] = max((abs(a1) * -1i64), -1i64);"),
        ),
    ];
    let probes: Vec<Probe> = probes
        .iter()
        .map(|(name, out0, body)| Probe::text(name, &two(out0, body)))
        .collect();
    check(
        "abs_beside_a_64_bit_division",
        "nvidia-abs-beside-wide-division",
        &probes,
        &["% select(", "/ select("],
    );
}

/// Found by the fuzzer on the H100 at seed 52021 (resident sequence mode, every workaround of the
/// table in force; lavapipe and the reference agree at the same seed): `3.75h + ((4.75h *
/// fract(10.5h)) * -13.5h)` stored -28.75 where the law gives -28.3125. Not in the table yet: the
/// variants say which step the driver gets wrong, and every device must give the law's values.
#[test]
fn f16_constant_arithmetic() {
    let halves: Vec<f32> = vec![3.75, 4.75, 10.5, -13.5];
    let probes = vec![
        Probe::text(
            "seed 52021: 3.75h + ((4.75h * fract(10.5h)) * -13.5h)",
            &program(
                "f16",
                1,
                "out[gid.x] = (3.75h + ((4.75h * fract(10.5h)) * -13.5h));",
            ),
        ),
        Probe::text(
            "fract(10.5h)",
            &program("f16", 1, "out[gid.x] = fract(10.5h);"),
        ),
        Probe::text(
            "4.75h * fract(10.5h)",
            &program("f16", 1, "out[gid.x] = (4.75h * fract(10.5h));"),
        ),
        Probe::text(
            "(4.75h * 0.5h) * -13.5h",
            &program("f16", 1, "out[gid.x] = ((4.75h * 0.5h) * -13.5h);"),
        ),
        Probe::text(
            "3.75h + ((4.75h * 0.5h) * -13.5h)",
            &program(
                "f16",
                1,
                "out[gid.x] = (3.75h + ((4.75h * 0.5h) * -13.5h));",
            ),
        ),
        Probe::with_inputs(
            "the same of loaded values",
            &program_with_input(
                "f32",
                "f16",
                4,
                "out[gid.x] = (f16(a[0u]) + ((f16(a[1u]) * fract(f16(a[2u]))) * f16(a[3u])));",
            ),
            vec![words_f32(&halves)],
        ),
    ];
    let Some(wrong) = probe_workaround("f16_constant_arithmetic", Workaround::F16Rounding, &probes)
    else {
        return;
    };
    assert!(wrong.is_empty(), "wrong: {wrong:?}");
}

/// `nvidia-f16-round-trip`: `f32(f16(1/3))` came back unrounded. The values sit at f16 rounding
/// boundaries: ties to even both ways, just off a tie, the subnormal range, the largest finite.
#[test]
fn f16_round_trip() {
    let third = f32::from_bits(0x3eaa_aaab);
    let xs = [
        third,
        1.0 + f32::powi(2.0, -11),       // a tie: rounds down to even 1.0
        1.0 + 3.0 * f32::powi(2.0, -11), // a tie: rounds up to even
        1.0 + f32::powi(2.0, -11) + f32::powi(2.0, -23), // just past a tie: up
        3.0 * f32::powi(2.0, -25),       // a subnormal tie: rounds to 2^-23
        f32::powi(2.0, -25),             // half the least subnormal: 0
        f32::powi(2.0, -25) + f32::powi(2.0, -40), // just past it: 2^-24
        65519.0,                         // rounds to 65504
        -third,
        2049.0,
    ];
    let n = xs.len() as u32;
    let inputs = vec![words_f32(&xs)];
    let f16_program = |body: &str| {
        format!(
            "program @workgroup_size(1, 1, 1) {{\n  buffer a: read f32[{n}] @binding(0);\n  buffer out: output f32[{n}] @binding(1);\n  buffer h: read_write f16[{n}] @binding(2);\n  {body}\n}}"
        )
    };
    let probes = vec![
        Probe::text(
            "shrunk: f32(f16(1/3)) of a literal",
            &program("f32", 1, "out[0u] = f32(f16(f32_bits(0x3eaaaaab)));"),
        ),
        Probe::with_inputs(
            "f32(f16(x)) of loads at rounding boundaries",
            &program_with_input("f32", "f32", n, "out[gid.x] = f32(f16(a[gid.x]));"),
            inputs.clone(),
        ),
        Probe::with_inputs(
            "through a variable",
            &program_with_input(
                "f32",
                "f32",
                n,
                "let v = f16(a[gid.x]); out[gid.x] = f32(v);",
            ),
            inputs.clone(),
        ),
        Probe::with_inputs(
            "twice round",
            &program_with_input(
                "f32",
                "f32",
                n,
                "out[gid.x] = f32(f16(f32(f16(a[gid.x]))));",
            ),
            inputs.clone(),
        ),
        Probe::with_inputs(
            "stored to an f16 buffer and read back",
            &f16_program("h[gid.x] = f16(a[gid.x]); out[gid.x] = f32(h[gid.x]);"),
            {
                let mut inputs = inputs.clone();
                inputs.push(vec![0; 2 * n as usize]);
                inputs
            },
        ),
        Probe::text(
            "an integer: f32(f16(2049u))",
            &program("f32", 1, "out[0u] = f32(f16(2049u));"),
        ),
        Probe::text(
            "an invocation id: f32(f16(2049 + tid))",
            &program("f32", 8, "out[gid.x] = f32(f16((2049u + gid.x)));"),
        ),
    ];
    // The rewrite rounds with integer arithmetic and scales with `ldexp`; without it the module
    // converts directly and has no `ldexp`.
    for probe in &probes {
        let wgsl = emit_wgsl_with(
            &probe.program,
            LaunchForm::Folded,
            Workarounds::NONE.with(Workaround::F16Rounding),
        )
        .expect("lowers");
        assert!(
            wgsl.contains("ldexp("),
            "{}: no rounding:\n{wgsl}",
            probe.name
        );
    }
    check("f16_round_trip", "nvidia-f16-round-trip", &probes, &[]);
}

/// `nvidia-f16-distributed-product` (fuzz seed 99011 case 72659, the H100): `(13.75h - x) * -15.75h`
/// of a loaded `x = 13.75h` stored `0.0625h` where the law gives `-0.0h`, the product distributed
/// over the sum (`fma(x, 15.75, 13.75 * -15.75)` with the constant product rounded to `f16`
/// first). Every program reads `in1`, 25 elements of `-16.0h` but for `in1[18] = 13.75h`, at
/// `(tid << 2) + 2` (tid 4 reads the 13.75): a value the driver cannot fold. Variants: the sum
/// the other way round, a negated constant added, the factor first, the sum through a `let`, and a
/// product of two sums. The same in `f32` is no probe: there the constant product is exact, and
/// the H100's `+0.0` for `-0.0` is a zero whose sign the law lets an operation ignore.
#[test]
fn distributed_f16_product() {
    let bits: Vec<u16> = (0..25)
        .map(|i| if i == 18 { 0x4ae0 } else { 0xcc00 })
        .collect();
    let halves: Vec<u8> = bits.iter().flat_map(|h| h.to_le_bytes()).collect();
    let shaped = |ty: &str, body: &str| {
        format!(
            "program @workgroup_size(1, 1, 1) {{\n  buffer out0: output {ty}[5] @binding(0);\n  buffer in1: read {ty}[25] @binding(1);\n  let tid = gid.x;\n  let x = in1[((tid << 2u) + 2u)];\n  {body}\n}}"
        )
    };
    let probes = vec![
        Probe::with_inputs(
            "seed 99011 as found: (13.75h - x) * -15.75h",
            &shaped("f16", "out0[tid] = ((13.75h - x) * -15.75h);"),
            vec![halves.clone()],
        ),
        Probe::with_inputs(
            "(x - 13.75h) * 15.75h",
            &shaped("f16", "out0[tid] = ((x - 13.75h) * 15.75h);"),
            vec![halves.clone()],
        ),
        Probe::with_inputs(
            "(x + -13.75h) * 15.75h",
            &shaped("f16", "out0[tid] = ((x + -13.75h) * 15.75h);"),
            vec![halves.clone()],
        ),
        Probe::with_inputs(
            "-15.75h * (13.75h - x)",
            &shaped("f16", "out0[tid] = (-15.75h * (13.75h - x));"),
            vec![halves.clone()],
        ),
        Probe::with_inputs(
            "the sum through a let",
            &shaped("f16", "let s = (13.75h - x);\n  out0[tid] = (s * -15.75h);"),
            vec![halves.clone()],
        ),
        Probe::with_inputs(
            "(x - 13.75h) * (x + 2.5h)",
            &shaped("f16", "out0[tid] = ((x - 13.75h) * (x + 2.5h));"),
            vec![halves],
        ),
    ];
    // The rewrite passes every `f16` sum through `f32` bits.
    for probe in &probes {
        let wgsl = emit_wgsl_with(
            &probe.program,
            LaunchForm::Folded,
            Workarounds::NONE.with(Workaround::OpaqueF16Sum),
        )
        .expect("lowers");
        assert!(
            wgsl.contains("bitcast<f32>"),
            "{}: the sum is not hidden:\n{wgsl}",
            probe.name
        );
    }
    check_with_inputs(
        "distributed_f16_product",
        "nvidia-f16-distributed-product",
        probes[0].inputs.clone(),
        &probes,
        &[],
    );
}

/// Random programs of the fuzzer agree with the reference with every workaround forced on: the
/// rewrites stay exact inside arbitrary surrounding code (loops, branches, the other launch
/// forms' prologues), not only in the probes' shapes.
#[test]
fn random_programs_agree_with_every_workaround_forced_on() {
    use vyre_conformance::fuzz::{self, FuzzOptions};
    let options = vyre_driver_wgpu::AdapterOptions::new()
        .with_pipeline_cache(vyre_driver_wgpu::PipelineCacheDir::Off)
        .with_workarounds(Workarounds::ALL);
    let Some(wgpu) = vyre_driver_wgpu::testing::backend_with_or_skip(
        "random_programs_agree_with_every_workaround_forced_on",
        &options,
    ) else {
        return;
    };
    let reference = vyre_conformance::report::reference_for(&wgpu);
    let fuzz_options = FuzzOptions {
        cases: 1000,
        seed: 3201,
        batch: 128,
        ..FuzzOptions::default()
    };
    let summary = fuzz::run(&fuzz_options, &reference, &wgpu, &|_| {});
    let reports: Vec<String> = summary.mismatches.iter().map(|m| m.report()).collect();
    assert!(summary.mismatched == 0, "{}", reports.join("\n\n"));
    assert_eq!(summary.programs, 1000);
    assert!(summary.compared() > 800, "{summary:?}");
}

/// DRIVER_BUGS.md has a section for every entry of the table, holding the entry's minimal program
/// as the table has it, so the document and the table cannot drift apart.
#[test]
fn driver_bugs_md_has_every_entry_with_its_program() {
    let root = std::env::var_os(vyre_conformance::fuzz::REPO_ENV).map_or_else(
        || std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(".."),
        std::path::PathBuf::from,
    );
    let path = root.join("DRIVER_BUGS.md");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    for bug in DRIVER_BUGS {
        let heading = format!("\n## {}\n", bug.id);
        let at = text
            .find(&heading)
            .unwrap_or_else(|| panic!("DRIVER_BUGS.md has no section `## {}`", bug.id));
        let section = &text[at + heading.len()..];
        let section = &section[..section.find("\n## ").unwrap_or(section.len())];
        let program: vyre_foundation::ir::Program = bug.program.parse().expect("parses");
        assert!(
            section.contains(program.to_string().trim_end()),
            "the section `{}` of DRIVER_BUGS.md does not show the table's program:\n{program}",
            bug.id
        );
        assert!(
            section.contains(bug.workaround.name()),
            "the section `{}` does not name its workaround",
            bug.id
        );
    }
}

/// A workaround costs nothing where its pattern is absent: for generated programs with no integer
/// `min`/`max`, no 32-to-64-bit widening, no 64-bit division or remainder and no conversion to
/// `f16` (after the IR passes, as the backend lowers them), the module with every
/// workaround is the module with none (no opaque zero is loaded, nothing is rewritten), and a
/// program with one of them differs. So `vyre-bench --only workarounds` measures a ratio of 1 on
/// the pattern-free kernels by construction.
#[test]
fn workarounds_leave_programs_without_their_patterns_alone() {
    use vyre_conformance::r#gen::GenConfig;
    use vyre_foundation::ir::{BinOp, Expr};
    let config = GenConfig::differential();
    let (mut same, mut changed) = (0, 0);
    for index in 0..400 {
        let Some((_, case)) = vyre_conformance::fuzz::generate(&config, 77, index) else {
            continue;
        };
        // The patterns of the program the backend lowers: after the IR passes.
        let Ok(lowered) = vyre_foundation::pass::Pipeline::standard().run(&case.program) else {
            continue;
        };
        let Ok(evidence) = vyre_foundation::validate(&lowered) else {
            continue;
        };
        let mut pattern = false;
        vyre_foundation::for_each_expr(&lowered, |e| {
            pattern |= match e {
                Expr::Binary {
                    op: BinOp::Min | BinOp::Max,
                    lhs,
                    ..
                } => evidence.type_of(lhs).is_ok_and(|t| t.is_integer()),
                Expr::Binary {
                    op: BinOp::Div | BinOp::Rem | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge,
                    lhs,
                    ..
                } => evidence
                    .type_of(lhs)
                    .is_ok_and(|t| t.is_integer() && t.bits() == 64),
                // `OpaqueF16Sum`: every `f16` sum and difference.
                Expr::Binary {
                    op: BinOp::Add | BinOp::Sub,
                    lhs,
                    ..
                } => evidence
                    .type_of(lhs)
                    .is_ok_and(|t| t == vyre_foundation::ir::DataType::F16),
                Expr::Cast { to, arg } => evidence.type_of(arg).is_ok_and(|from| {
                    (from.is_integer() && to.is_integer() && from.bits() != to.bits())
                        || (*to == vyre_foundation::ir::DataType::F16
                            && from != vyre_foundation::ir::DataType::F16
                            && from != vyre_foundation::ir::DataType::Bool)
                }),
                _ => false,
            };
        });
        let emit = |set| emit_wgsl_with(&case.program, LaunchForm::Folded, set);
        let (Ok(none), Ok(all)) = (emit(Workarounds::NONE), emit(Workarounds::ALL)) else {
            continue;
        };
        if pattern {
            assert_ne!(
                none, all,
                "a program with a pattern was not rewritten:\n{}",
                case.program
            );
            changed += 1;
        } else {
            assert_eq!(
                none, all,
                "a program without a pattern was rewritten:\n{}",
                case.program
            );
            same += 1;
        }
    }
    assert!(
        same > 50 && changed > 50,
        "{same} unchanged, {changed} rewritten"
    );
}
