//! wgpu's own side of resident buffers: buffers that outlive a device loss, device memory running
//! out, and the raw wgpu buffer behind a `DeviceBuffer`. The backend-neutral contract runs in
//! `tests/suite.rs` through `backend_tests!`.

use vyre_driver::{DispatchConfig, VyreBackend};
use vyre_driver_wgpu::WgpuBackend;
use vyre_driver_wgpu::testing::backend_or_skip;
use vyre_foundation::ir::{BufferDecl, DataType, Expr, Node, Program};

fn words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn add_one(n: u32) -> Program {
    let i = Expr::gid_x();
    Program::new(
        vec![
            BufferDecl::read("a", 0, DataType::U32).with_count(n),
            BufferDecl::output("out", 1, DataType::U32).with_count(n),
        ],
        [64, 1, 1],
        vec![Node::store(
            "out",
            i.clone(),
            Expr::add(Expr::load("a", i), Expr::u32(1)),
        )],
    )
}

#[test]
fn a_buffer_from_before_a_device_loss_reports_its_contents_lost_and_new_buffers_work() {
    let Some(backend) = backend_or_skip("resident device loss") else {
        return;
    };
    let a = backend.create_buffer(16).expect("create");
    backend
        .write_buffer(&a, 0, &[1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4, 0, 0, 0])
        .expect("write");
    let out = backend.create_buffer(16).expect("create");
    let program = add_one(4);
    let config = DispatchConfig::default();
    backend
        .dispatch_resident(&program, &[&a, &out], &config)
        .expect("dispatch before the loss");
    assert_eq!(
        words(&backend.read_buffer(&out, 0..16).unwrap()),
        [2, 3, 4, 5]
    );

    backend.force_device_lost().expect("lose the device");
    for (what, result) in [
        ("read", backend.read_buffer(&out, 0..16).map(drop)),
        ("write", backend.write_buffer(&a, 0, &[0; 4])),
        (
            "dispatch",
            backend.dispatch_resident(&program, &[&a, &out], &config),
        ),
    ] {
        let error = result.expect_err("a lost buffer must not be used as data");
        assert_eq!(error.kind_name(), "DeviceLost", "{what}: {error}");
        let text = error.to_string();
        assert!(text.contains("contents were lost"), "{what}: {text}");
        assert!(text.contains("Fix:"), "{what}: {text}");
    }

    // The backend recovers: a new buffer on the new device works, and so does plain dispatch.
    let fresh = backend.create_buffer(16).expect("create after the loss");
    let out2 = backend.create_buffer(16).expect("create after the loss");
    backend
        .write_buffer(&fresh, 0, &[9, 0, 0, 0, 8, 0, 0, 0, 7, 0, 0, 0, 6, 0, 0, 0])
        .expect("write after the loss");
    backend
        .dispatch_resident(&program, &[&fresh, &out2], &config)
        .expect("dispatch after the loss");
    assert_eq!(
        words(&backend.read_buffer(&out2, 0..16).unwrap()),
        [10, 9, 8, 7]
    );
    assert!(backend.device_generation() >= 1);
}

#[test]
fn a_buffer_larger_than_the_device_allows_is_a_limit_error() {
    let Some(backend) = backend_or_skip("resident limit") else {
        return;
    };
    let error = backend
        .create_buffer(u64::MAX)
        .expect_err("no device has 2^64 bytes");
    assert_eq!(error.kind_name(), "LimitExceeded", "{error}");
    assert!(error.to_string().contains("Fix:"));
}

/// Creates 1 GiB buffers until the device refuses, then drops them and checks the backend still
/// works. Runs only where `VYRE_OOM_TEST=1` (it takes every byte of device memory: on lavapipe that
/// is the host's).
#[test]
fn running_out_of_device_memory_is_an_error_and_the_backend_keeps_working() {
    if std::env::var("VYRE_OOM_TEST").as_deref() != Ok("1") {
        eprintln!("skipped running_out_of_device_memory: set VYRE_OOM_TEST=1 to run it");
        return;
    }
    let Some(backend) = backend_or_skip("resident out of memory") else {
        return;
    };
    let keep = backend.create_buffer(16).expect("create");
    backend.write_buffer(&keep, 0, &[5; 16]).expect("write");
    let mut held = Vec::new();
    let error = loop {
        match backend.create_buffer(1 << 30) {
            Ok(b) => {
                // Touch it so a lazily backed allocation is really made.
                backend
                    .write_buffer(&b, (1 << 30) - 4, &[1; 4])
                    .expect("write");
                held.push(b);
                assert!(held.len() < 4096, "4 TiB allocated without a refusal");
            }
            Err(e) => break e,
        }
    };
    eprintln!(
        "device refused after {} GiB: {} ({error})",
        held.len(),
        error.kind_name()
    );
    assert_eq!(error.kind_name(), "OutOfMemory", "{error}");
    assert!(error.to_string().contains("Fix:"));
    drop(held);
    assert_eq!(
        backend.read_buffer(&keep, 0..16).expect("the kept buffer"),
        [5; 16]
    );
    let a = backend
        .create_buffer(1 << 30)
        .expect("memory is back once the buffers drop");
    backend.write_buffer(&a, 0, &[3, 0, 0, 0]).expect("write");
    assert_eq!(&backend.read_buffer(&a, 0..4).unwrap(), &[3, 0, 0, 0]);
}

#[test]
fn buffers_of_two_backends_are_told_apart() {
    let (Some(one), Some(two)) = (
        backend_or_skip("resident owners"),
        backend_or_skip("resident owners"),
    ) else {
        return;
    };
    let a: WgpuBackend = one.clone();
    let buffer = a.create_buffer(8).expect("create");
    // A clone of the backend shares its buffers; another backend does not.
    assert!(one.read_buffer(&buffer, 0..8).is_ok());
    let error = two
        .read_buffer(&buffer, 0..8)
        .expect_err("another backend's buffer");
    assert_eq!(error.kind_name(), "InvalidConfig", "{error}");
}
