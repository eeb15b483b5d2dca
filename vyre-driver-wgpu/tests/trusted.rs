//! Trusted modules (`src/trusted.rs`): with wgpu's bounds checks off, vyre's own guards must keep
//! every out-of-bounds load, store and atomic to `SEMANTICS.md` section 3, and nothing may land
//! outside a buffer. Each program reads its indices from an input, so no compiler can fold them:
//! just past the end, far past it, `u32::MAX`, and `i32` indices below zero. Results are compared
//! with the reference and with values written here; canary words beyond a bound range, and a
//! second workgroup array beside the one indexed, must come back untouched.
//!
//! lavapipe has `robustBufferAccess2`, so there a store past a storage binding would be dropped even
//! without vyre's guard; workgroup and uniform arrays have no such net, and the GPU machines run
//! these tests too.

mod common;

use common::{bytes, words};
use vyre_driver::{DispatchConfig, VyreBackend};
use vyre_driver_wgpu::{AdapterOptions, WgpuBackend, testing::backend_with_or_skip};
use vyre_foundation::ir::Program;

/// Out-of-bounds indices for buffers of 4 (workgroup and storage) or 6 (uniform) elements: past the
/// end, far past, and `i32` indices -1 and `i32::MIN` as `u32` bits.
const WILD: [u32; 8] = [
    4,
    6,
    64,
    1 << 20,
    0x7fff_ffff,
    u32::MAX,
    0xffff_fffe,
    0x8000_0000,
];

fn trusted(test: &str) -> Option<WgpuBackend> {
    backend_with_or_skip(test, &AdapterOptions::new().with_trusted_modules(true))
}

fn parse(text: &str) -> Program {
    text.parse()
        .unwrap_or_else(|e| panic!("the test program parses: {e}"))
}

/// Runs `program` on `backend` and on the reference, asserts both agree, and returns the outputs.
fn agree(backend: &WgpuBackend, program: &Program, inputs: &[Vec<u8>]) -> Vec<Vec<u32>> {
    let config = DispatchConfig::default().with_grid([1, 1, 1]);
    let got = backend
        .dispatch(program, inputs, &config)
        .unwrap_or_else(|e| panic!("wgpu: {e}"));
    let want = vyre_conformance::ReferenceBackend::new()
        .dispatch(program, inputs, &config)
        .unwrap_or_else(|e| panic!("reference: {e}"));
    assert_eq!(got, want, "wgpu with trusted modules against the reference");
    got.iter().map(|b| words(b)).collect()
}

const STORAGE: &str = "program @workgroup_size(8, 1, 1) {
  buffer idx: read u32[8] @binding(0);
  buffer data: read u32[4] @binding(1);
  buffer rw: read_write u32[4] @binding(2);
  buffer out: output u32[8] @binding(3);
  buffer canary: output u32[8] @binding(4);
  let k = idx[gid.x];
  let s = bitcast<i32>(k);
  rw[k] = 7u;
  rw[s] = 9u;
  out[(k + 16u)] = 5u;
  atomic_add(rw[k], 1u);
  atomic_exchange(rw[s], 2u);
  atomic_compare_exchange(rw[k], 0u, 3u);
  let a = atomic_add(rw[s], 1u);
  let b = atomic_max(rw[k], 4u);
  out[gid.x] = (((data[(gid.x & 3u)] * 1000u) + data[k]) + ((data[s] + rw[k]) + (a + b)));
  canary[gid.x] = (3405643776u + gid.x);
}";

#[test]
fn out_of_bounds_storage_loads_stores_and_atomics_follow_the_law() {
    let Some(backend) = trusted("trusted_storage") else {
        return;
    };
    let program = parse(STORAGE);
    let data = [11u32, 22, 33, 44];
    let outputs = agree(
        &backend,
        &program,
        &[bytes(&WILD), bytes(&data), bytes(&[1, 2, 3, 4])],
    );
    // Every wild index is out of bounds for `data` and `rw`, and `k + 16` for `out` too (wrapped,
    // u32::MAX + 16 is 15): the loads and atomics yield zero, the stores do nothing.
    let want: Vec<u32> = (0..8).map(|i| data[i % 4] * 1000).collect();
    assert_eq!(outputs[0], want);
    assert_eq!(
        outputs[1],
        (0..8).map(|i| 0xcafe_0000 + i).collect::<Vec<_>>()
    );
    assert!(backend.trusted_modules());
    assert!(backend.stats().trusted_modules_created >= 1);
}

#[test]
fn stores_and_atomics_never_reach_past_a_bound_range() {
    let Some(backend) = trusted("trusted_canary") else {
        return;
    };
    // `rw` declares 4 words; its buffer holds 16, so words 4..16 lie right after the bound range.
    let program = parse(
        "program @workgroup_size(8, 1, 1) {
  buffer idx: read u32[8] @binding(0);
  buffer rw: read_write u32[4] @binding(1);
  let k = idx[gid.x];
  rw[k] = 7u;
  rw[bitcast<i32>(k)] = 9u;
  atomic_add(rw[k], 1u);
  atomic_exchange(rw[bitcast<i32>(k)], 2u);
  atomic_compare_exchange(rw[k], 0u, 3u);
  atomic_max(rw[(k - 1u)], 100u);
}",
    );
    let canary = 0xa5a5_a5a5u32;
    let mut initial = vec![canary; 16];
    initial[..4].copy_from_slice(&[1, 2, 3, 4]);
    let idx = backend.create_buffer(32).expect("idx");
    let rw = backend.create_buffer(64).expect("rw");
    backend
        .write_buffer(&idx, 0, &bytes(&WILD))
        .expect("write idx");
    backend
        .write_buffer(&rw, 0, &bytes(&initial))
        .expect("write rw");
    let config = DispatchConfig::default().with_grid([1, 1, 1]);
    backend
        .dispatch_resident(&program, &[&idx, &rw], &config)
        .expect("dispatch");
    let after = words(&backend.read_buffer(&rw, 0..64).expect("read rw"));
    // `k - 1` is 3 for k = 4: the one in-bounds effect, max(4, 100).
    assert_eq!(&after[..4], &[1, 2, 3, 100]);
    assert_eq!(&after[4..], &[canary; 12], "bytes past the binding changed");
}

#[test]
fn out_of_bounds_workgroup_accesses_leave_the_neighbouring_array_alone() {
    let Some(backend) = trusted("trusted_workgroup") else {
        return;
    };
    let program = parse(
        "program @workgroup_size(8, 1, 1) {
  buffer idx: read u32[8] @binding(0);
  buffer out: output u32[8] @binding(1);
  buffer a: workgroup u32[4];
  buffer b: workgroup u32[4];
  buffer c: workgroup u32[4];
  let k = idx[lid.x];
  if (lid.x < 4u) {
    a[lid.x] = lid.x;
    b[lid.x] = (100u + lid.x);
    c[lid.x] = (200u + lid.x);
  }
  barrier;
  b[k] = 3054u;
  b[bitcast<i32>(k)] = 3055u;
  atomic_add(b[k], 1u);
  let o = atomic_exchange(b[bitcast<i32>(k)], 9u);
  barrier;
  out[gid.x] = ((a[(lid.x & 3u)] + b[k]) + ((c[(lid.x & 3u)] * 1000u) + (b[(lid.x & 3u)] + o)));
}",
    );
    let outputs = agree(&backend, &program, &[bytes(&WILD)]);
    let want: Vec<u32> = (0..8)
        .map(|i| i % 4 + (200 + i % 4) * 1000 + 100 + i % 4)
        .collect();
    assert_eq!(outputs[0], want);
}

#[test]
fn out_of_bounds_uniform_loads_yield_zero_even_inside_the_last_row() {
    let Some(backend) = trusted("trusted_uniform") else {
        return;
    };
    // Six elements are declared as two vec4 rows: elements 6 and 7 lie inside the array the module
    // declares but out of bounds, and read as zero like the far ones.
    let program = parse(
        "program @workgroup_size(8, 1, 1) {
  buffer idx: read u32[8] @binding(0);
  buffer u: uniform u32[6] @binding(1);
  buffer out: output u32[8] @binding(2);
  let k = idx[gid.x];
  out[gid.x] = ((u[(gid.x + 0u)] * 1000u) + (u[k] + u[bitcast<i32>(k)]));
}",
    );
    let outputs = agree(
        &backend,
        &program,
        &[bytes(&WILD), bytes(&[1, 2, 3, 4, 5, 6])],
    );
    // The first wild index, 4, is inside these six elements (twice 5); the others are not.
    assert_eq!(
        outputs[0],
        vec![1010, 2000, 3000, 4000, 5000, 6000, 0, 0],
        "elements 6 and 7 are out of bounds"
    );
}

#[test]
fn checked_modules_are_an_option_and_give_the_same_results() {
    let options = AdapterOptions::new().with_trusted_modules(false);
    let Some(backend) = backend_with_or_skip("checked_storage", &options) else {
        return;
    };
    assert!(!backend.trusted_modules());
    let program = parse(STORAGE);
    let inputs = [bytes(&WILD), bytes(&[11, 22, 33, 44]), bytes(&[1, 2, 3, 4])];
    let checked = agree(&backend, &program, &inputs);
    assert_eq!(backend.stats().trusted_modules_created, 0);
    assert!(backend.stats().shader_modules_created >= 1);
    let Some(trusted) = trusted("trusted_storage_again") else {
        return;
    };
    assert_eq!(agree(&trusted, &program, &inputs), checked);
}
