//! Elementwise dispatches over buffers larger than the device binds at once run as several launches,
//! each binding a range of every buffer, with results bit-identical to one launch; other programs
//! over the limit keep the `LimitExceeded` error.
//!
//! Most cases run on a device opened with a 64 KiB binding limit, so the split is exercised with small
//! buffers; one case crosses lavapipe's real 128 MiB limit with 160 MiB buffers.

use vyre_conformance::ReferenceBackend;
use vyre_driver::{BackendError, DispatchConfig, VyreBackend};
use vyre_driver_wgpu::testing::backend_or_skip;
use vyre_driver_wgpu::{LaunchForm, WgpuBackend, emit_wgsl_as, wgpu};
use vyre_foundation::ir::{AtomicOp, BufferDecl, DataType, Expr, Node, Program};

/// The binding limit of the small device, in bytes (16 Ki words).
const SMALL_BINDING: u64 = 64 << 10;

fn words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// A backend on a Vulkan device whose storage bindings hold at most [`SMALL_BINDING`] bytes and
/// whose offsets align to 256 bytes.
fn small_binding_backend(test: &str) -> Option<WgpuBackend> {
    // Skips (or fails under VYRE_REQUIRE_GPU=1) exactly as every GPU test does.
    backend_or_skip(test)?;
    let instance = wgpu::Instance::new(wgpu::InstanceDescriptor {
        backends: wgpu::Backends::VULKAN,
        ..wgpu::InstanceDescriptor::new_without_display_handle()
    });
    let adapter = pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions {
        power_preference: wgpu::PowerPreference::HighPerformance,
        ..Default::default()
    }))
    .expect("a Vulkan adapter, since backend_or_skip found one");
    let mut limits = adapter.limits();
    limits.max_storage_buffer_binding_size = SMALL_BINDING;
    limits.min_storage_buffer_offset_alignment =
        limits.min_storage_buffer_offset_alignment.max(256);
    let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
        required_limits: limits,
        ..Default::default()
    }))
    .expect("a device with smaller limits");
    Some(WgpuBackend::from_device(adapter, device, queue).expect("from_device"))
}

/// `out[i] = a[i] + b[i]` over `n` words (`None`: inputs runtime-sized, from their lengths, and an
/// output of `out` words), guarded by `a`'s length.
fn add(n: Option<u32>) -> Program {
    add_into(n, n.unwrap_or(1))
}

fn add_into(n: Option<u32>, out: u32) -> Program {
    let sized = |d: BufferDecl| match n {
        Some(n) => d.with_count(n),
        None => d,
    };
    Program::new(
        vec![
            sized(BufferDecl::read("a", 0, DataType::U32)),
            sized(BufferDecl::read("b", 1, DataType::U32)),
            BufferDecl::output("out", 2, DataType::U32).with_count(out),
        ],
        [64, 1, 1],
        vec![Node::if_then(
            Expr::lt(Expr::gid_x(), Expr::buf_len("a")),
            vec![Node::store(
                "out",
                Expr::gid_x(),
                Expr::add(
                    Expr::load("a", Expr::gid_x()),
                    Expr::load("b", Expr::gid_x()),
                ),
            )],
        )],
    )
}

fn inputs(n: u32) -> (Vec<u32>, Vec<u32>) {
    let a: Vec<u32> = (0..n).map(|i| i.wrapping_mul(2_654_435_761)).collect();
    let b: Vec<u32> = (0..n).map(|i| i ^ 0x5a5a_5a5a).collect();
    (a, b)
}

fn check_sum(out: &[u32], a: &[u32], b: &[u32]) {
    assert_eq!(out.len(), a.len());
    for (i, ((&o, &x), &y)) in out.iter().zip(a).zip(b).enumerate() {
        assert_eq!(o, x.wrapping_add(y), "element {i}");
    }
}

#[test]
fn an_add_over_the_binding_limit_is_split_into_launches_and_exact_at_a_ragged_count() {
    let Some(backend) = small_binding_backend("split add ragged") else {
        return;
    };
    // 100 003 words: six whole pieces of 16 Ki words and a ragged seventh, whose last workgroup is
    // partly past the end.
    let n = 100_003;
    let (a, b) = inputs(n);
    let before = backend.stats().dispatch_calls;
    let out = backend
        .dispatch(
            &add(Some(n)),
            &[bytes(&a), bytes(&b)],
            &DispatchConfig::default(),
        )
        .expect("a split dispatch");
    check_sum(&words(&out[0]), &a, &b);
    assert_eq!(
        backend.stats().dispatch_calls - before,
        7,
        "one launch per piece"
    );

    // The same through resident buffers.
    let da = backend.create_buffer(u64::from(n) * 4).expect("a");
    let db = backend.create_buffer(u64::from(n) * 4).expect("b");
    let dout = backend.create_buffer(u64::from(n) * 4).expect("out");
    backend.write_buffer(&da, 0, &bytes(&a)).expect("write a");
    backend.write_buffer(&db, 0, &bytes(&b)).expect("write b");
    backend
        .dispatch_resident(
            &add(Some(n)),
            &[&da, &db, &dout],
            &DispatchConfig::default(),
        )
        .expect("a split resident dispatch");
    let read = backend
        .read_buffer(&dout, 0..u64::from(n) * 4)
        .expect("read");
    check_sum(&words(&read), &a, &b);
}

#[test]
fn runtime_sized_buffers_are_split_by_their_input_lengths() {
    let Some(backend) = small_binding_backend("split runtime sized") else {
        return;
    };
    // The inputs are runtime-sized, 40 000 words. With a one-word output only they exceed the limit,
    // and the output's word lies in the first piece only; with a 40 000-word output all three do.
    let n = 40_000;
    let (a, b) = inputs(n);
    let config = DispatchConfig::default().with_grid([n.div_ceil(64), 1, 1]);
    let ins = [bytes(&a), bytes(&b)];
    let out = backend
        .dispatch(&add_into(None, 1), &ins, &config)
        .expect("a split dispatch");
    assert_eq!(words(&out[0]), [a[0].wrapping_add(b[0])]);
    let out = backend
        .dispatch(&add_into(None, n), &ins, &config)
        .expect("a split dispatch");
    check_sum(&words(&out[0]), &a, &b);

    // Resident: runtime-sized buffers take their DeviceBuffer's length; `b` is longer than `a`,
    // and the guard on `a`'s length leaves the output's tail zero.
    let program = add_into(None, n + 1000);
    let da = backend.create_buffer(u64::from(n) * 4).expect("a");
    let db = backend.create_buffer(u64::from(n + 1000) * 4).expect("b");
    let dout = backend.create_buffer(u64::from(n + 1000) * 4).expect("out");
    backend.write_buffer(&da, 0, &ins[0]).expect("write");
    backend.write_buffer(&db, 0, &ins[1]).expect("write");
    backend
        .dispatch_resident(&program, &[&da, &db, &dout], &DispatchConfig::default())
        .expect("split resident");
    let got = words(
        &backend
            .read_buffer(&dout, 0..u64::from(n + 1000) * 4)
            .expect("read"),
    );
    check_sum(&got[..n as usize], &a, &b);
    assert!(
        got[n as usize..].iter().all(|&w| w == 0),
        "the tail stays zero"
    );
}

/// An elementwise program that uses builtins and lengths as values, a read-write buffer and an
/// atomic, over a grid two workgroups tall: every value must be the one-launch value.
fn builtins_program(n: u32) -> Program {
    let gid = Expr::gid_x();
    let value = Expr::add(
        Expr::add(
            Expr::mul(Expr::load("a", Expr::var("i")), Expr::var("i")),
            Expr::add(Expr::workgroup_x(), Expr::num_workgroups_x()),
        ),
        Expr::add(Expr::local_x(), Expr::buf_len("rw")),
    );
    Program::new(
        vec![
            BufferDecl::read("a", 0, DataType::U32).with_count(n),
            BufferDecl::read_write("rw", 1, DataType::U32).with_count(n),
            BufferDecl::output("out", 2, DataType::U32).with_count(n),
        ],
        [64, 1, 1],
        vec![
            Node::let_bind("i", gid.clone()),
            Node::let_bind(
                "old",
                Expr::atomic(
                    AtomicOp::Add,
                    "rw",
                    Expr::var("i"),
                    Expr::add(Expr::gid_y(), Expr::u32(1)),
                ),
            ),
            Node::if_then(
                Expr::eq(Expr::gid_y(), Expr::u32(0)),
                vec![Node::store("out", gid, value)],
            ),
        ],
    )
}

#[test]
fn builtins_lengths_read_write_buffers_and_atomics_match_the_reference_when_split() {
    let Some(backend) = small_binding_backend("split builtins") else {
        return;
    };
    let n = 50_000;
    let program = builtins_program(n);
    let (a, rw) = inputs(n);
    let config = DispatchConfig::default().with_grid([n.div_ceil(64) + 3, 2, 1]);
    let ins = [bytes(&a), bytes(&rw)];
    let got = backend.dispatch(&program, &ins, &config).expect("split");
    let want = ReferenceBackend::new()
        .dispatch(&program, &ins, &config)
        .expect("reference");
    assert_eq!(got.len(), want.len());
    for (k, (g, w)) in got.iter().zip(&want).enumerate() {
        assert!(g == w, "output {k} differs from the reference");
    }

    // Resident: the read-write buffer keeps each element plus 1 + 2 from the two rows of the grid.
    let da = backend.create_buffer(u64::from(n) * 4).expect("a");
    let drw = backend.create_buffer(u64::from(n) * 4).expect("rw");
    let dout = backend.create_buffer(u64::from(n) * 4).expect("out");
    backend.write_buffer(&da, 0, &ins[0]).expect("write");
    backend.write_buffer(&drw, 0, &ins[1]).expect("write");
    backend
        .dispatch_resident(&program, &[&da, &drw, &dout], &config)
        .expect("split resident");
    let rw_after = words(
        &backend
            .read_buffer(&drw, 0..u64::from(n) * 4)
            .expect("read"),
    );
    for (i, (&after, &before)) in rw_after.iter().zip(&rw).enumerate() {
        assert_eq!(after, before.wrapping_add(3), "rw element {i}");
    }
    let out = backend
        .read_buffer(&dout, 0..u64::from(n) * 4)
        .expect("read");
    assert!(out == want[0], "resident out differs from the reference");
}

#[test]
fn a_program_that_is_not_elementwise_keeps_the_limit_error() {
    let Some(backend) = small_binding_backend("split refused") else {
        return;
    };
    let n = 20_000;
    // out[i] = a[i + 1]: a neighbour's element, so no range of `a` serves a piece alone.
    let program = Program::new(
        vec![
            BufferDecl::read("a", 0, DataType::U32).with_count(n),
            BufferDecl::output("out", 1, DataType::U32).with_count(n),
        ],
        [64, 1, 1],
        vec![Node::store(
            "out",
            Expr::gid_x(),
            Expr::load("a", Expr::add(Expr::gid_x(), Expr::u32(1))),
        )],
    );
    let input = vec![0u8; n as usize * 4];
    for result in [
        backend
            .dispatch(
                &program,
                std::slice::from_ref(&input),
                &DispatchConfig::default(),
            )
            .map(drop),
        {
            let a = backend.create_buffer(u64::from(n) * 4).expect("a");
            let out = backend.create_buffer(u64::from(n) * 4).expect("out");
            backend.dispatch_resident(&program, &[&a, &out], &DispatchConfig::default())
        },
    ] {
        match result {
            Err(BackendError::LimitExceeded(m)) => {
                assert!(m.contains("elementwise") && m.contains("Fix:"), "{m}");
            }
            other => panic!("expected LimitExceeded, got {other:?}"),
        }
    }
    assert!(emit_wgsl_as(&program, LaunchForm::Split).is_err());
}

#[test]
fn a_160_mib_per_buffer_add_crosses_the_real_binding_limit_exactly() {
    let Some(backend) = backend_or_skip("split 160 MiB add") else {
        return;
    };
    let limit = backend.capabilities().max_storage_buffer_bytes;
    let n: u32 = 40 << 20; // 160 MiB per buffer
    if u64::from(n) * 4 <= limit {
        eprintln!(
            "{}: binds {limit} bytes, more than 160 MiB; this case checks the split only where the limit is lower (lavapipe: 128 MiB)",
            backend.adapter_name()
        );
    }
    let (a, b) = inputs(n);
    let out = backend
        .dispatch(
            &add(Some(n)),
            &[bytes(&a), bytes(&b)],
            &DispatchConfig::default(),
        )
        .expect("a 160 MiB add");
    check_sum(&words(&out[0]), &a, &b);
}
