//! Large transfers on the wgpu backend: uploads past one upload chunk (16 MiB) and read-backs past one
//! read-back chunk (64 MiB) go through rings of staging buffers, and a repeated large dispatch reuses
//! pooled buffers.

use vyre_driver::{DispatchConfig, VyreBackend};
use vyre_driver_wgpu::testing::backend_or_skip;
use vyre_foundation::ir::{BufferDecl, DataType, Expr, Node, Program};

fn pattern(n: usize) -> Vec<u8> {
    (0..n)
        .map(|i| (i.wrapping_mul(31) ^ (i >> 11)) as u8)
        .collect()
}

#[test]
fn a_resident_write_and_an_unaligned_read_past_two_chunks_round_trip() {
    let Some(backend) = backend_or_skip("staging resident round trip") else {
        return;
    };
    let len = (130 << 20) + 12;
    let data = pattern(len);
    let buffer = backend.create_buffer(len as u64).expect("create");
    backend.write_buffer(&buffer, 0, &data).expect("write");
    let (from, to) = (3u64, len as u64 - 5);
    let read = backend.read_buffer(&buffer, from..to).expect("read");
    assert_eq!(read.len() as u64, to - from);
    assert!(read == data[from as usize..to as usize], "bytes differ");
}

#[test]
fn a_short_input_is_zero_extended_on_the_device_and_a_repeat_reuses_pooled_buffers_but_staging() {
    let Some(backend) = backend_or_skip("staging zero extension") else {
        return;
    };
    let n: u32 = 20 << 20; // 80 MiB per buffer: past one staging chunk, within lavapipe's binding
    let program = Program::new(
        vec![
            BufferDecl::read("a", 0, DataType::U32).with_count(n),
            BufferDecl::output("out", 1, DataType::U32).with_count(n),
        ],
        [64, 1, 1],
        vec![Node::store(
            "out",
            Expr::gid_x(),
            Expr::add(Expr::load("a", Expr::gid_x()), Expr::u32(1)),
        )],
    );
    let input = [7u32, 9]
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .collect::<Vec<u8>>();
    let check = |out: &[u8]| {
        assert_eq!(out.len(), n as usize * 4);
        for (i, c) in out.chunks_exact(4).enumerate() {
            let w = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
            let want = match i {
                0 => 8,
                1 => 10,
                _ => 1,
            };
            assert_eq!(w, want, "element {i}");
        }
    };
    let config = DispatchConfig::default();
    let out = backend
        .dispatch(&program, std::slice::from_ref(&input), &config)
        .expect("first");
    check(&out[0]);
    let before = backend.stats();
    let out = backend
        .dispatch(&program, &[input], &config)
        .expect("second");
    check(&out[0]);
    let after = backend.stats();
    // Every buffer comes from the pool but the upload's staging: the 8 input bytes are one chunk, so
    // one staging buffer, made for the write and freed after it (upload staging is never pooled: see
    // `launch/stage.rs`).
    assert_eq!(
        after.buffers_created,
        before.buffers_created + 1,
        "the repeat should find every buffer but its upload staging in the pool (limit {} bytes): {before:?} -> {after:?}",
        after.pool_bytes_limit
    );
}

#[test]
fn two_streamed_inputs_of_one_launch_share_the_upload_ring_without_mixing_their_bytes() {
    let Some(backend) = backend_or_skip("staging shared ring") else {
        return;
    };
    // 40 MiB + 12 bytes per input: three upload chunks each, the last one short, so the launch's
    // one ring cycles its slots across the boundary between the two inputs.
    let n: u32 = (10 << 20) + 3;
    let program = Program::new(
        vec![
            BufferDecl::read("a", 0, DataType::U32).with_count(n),
            BufferDecl::read("b", 1, DataType::U32).with_count(n),
            BufferDecl::output("out", 2, DataType::U32).with_count(n),
        ],
        [64, 1, 1],
        vec![Node::store(
            "out",
            Expr::gid_x(),
            Expr::bit_xor(
                Expr::load("a", Expr::gid_x()),
                Expr::mul(Expr::load("b", Expr::gid_x()), Expr::u32(3)),
            ),
        )],
    );
    let word = |seed: u32, i: u32| i.wrapping_mul(0x9E37_79B9) ^ seed;
    let input =
        |seed: u32| -> Vec<u8> { (0..n).flat_map(|i| word(seed, i).to_le_bytes()).collect() };
    let (a, b) = (input(0x1234_5678), input(0x0BAD_F00D));
    let config = DispatchConfig::default();
    for repeat in 0..2 {
        let out = backend
            .dispatch(&program, &[a.clone(), b.clone()], &config)
            .expect("dispatch");
        assert_eq!(out[0].len(), n as usize * 4);
        for (i, c) in out[0].chunks_exact(4).enumerate() {
            let got = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
            let i = i as u32;
            let want = word(0x1234_5678, i) ^ word(0x0BAD_F00D, i).wrapping_mul(3);
            assert_eq!(got, want, "repeat {repeat}, element {i}");
        }
    }
}
