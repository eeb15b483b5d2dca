//! The optional `serde` feature: the IR types round-trip through serde (here serde_json).
//! Run with `cargo test -p vyre-foundation --features serde`.

#![cfg(feature = "serde")]

mod common;

use common::{add_one_program, every_form};
use vyre_foundation::ir::{Fingerprint, Literal, Program};

fn round_trip(program: &Program) {
    let json = serde_json::to_string(program).unwrap_or_else(|e| panic!("{e}"));
    let back: Program = serde_json::from_str(&json).unwrap_or_else(|e| panic!("{e}\n{json}"));
    assert_eq!(&back, program);
}

#[test]
fn programs_round_trip_through_serde_json() {
    round_trip(&add_one_program(1));
    round_trip(&every_form());
    round_trip(&Program::new(vec![], [0, 1, u32::MAX], vec![]));
}

#[test]
fn floats_travel_as_their_bits_and_names_as_strings() {
    let lit =
        serde_json::to_value(Literal::F32(1.5f32.to_bits())).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(lit, serde_json::json!({ "F32": 0x3fc0_0000 }));
    let json = serde_json::to_value(add_one_program(1)).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(json["buffers"][1]["name"], "out");
    assert_eq!(json["buffers"][1]["output_byte_range"]["end"], 4);
    let fp = add_one_program(1).fingerprint();
    let back: Fingerprint = serde_json::from_str(&serde_json::to_string(&fp).unwrap_or_default())
        .unwrap_or(Fingerprint(0));
    assert_eq!(back, fp);
}

#[test]
fn tiles_and_private_arrays_round_trip_through_serde_json() {
    let program: Program = "program @workgroup_size(32, 1, 1) {
      buffer a: read f16[300] @binding(0);
      buffer c: output f32[300] @binding(1);
      var acc: f32[4];
      acc.[1u] = 2.5f;
      tile ta: a<f16, 16, 16>;
      tile tb: b<f16, 16, 16>;
      tile tc: accumulator<f32, 16, 16>;
      tile_load(ta, a, 4u, 16u, row_major);
      tile_load(tb, a, 0u, 17u, column_major);
      tile_multiply_add(tc, ta, tb, tc);
      tile_store(tc, c, 5u, 16u, row_major);
    }"
    .parse()
    .unwrap_or_else(|e| panic!("{e}"));
    round_trip(&program);
}
