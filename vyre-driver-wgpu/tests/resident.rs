//! wgpu's own side of resident buffers: buffers that outlive a device loss, device memory running
//! out, and the raw wgpu buffer behind a `DeviceBuffer`. The backend-neutral contract runs in
//! `tests/suite.rs` through `backend_tests!`.

use vyre_driver::{DispatchConfig, VyreBackend};
use vyre_driver_wgpu::testing::backend_or_skip;
use vyre_driver_wgpu::{WgpuBackend, wgpu};
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
    // Set by vyre itself, not left to wgpu's callback (which waits for the queue to drain).
    assert!(backend.device_lost());
    for (what, result) in [
        ("read", backend.read_buffer(&out, 0..16).map(drop)),
        ("write", backend.write_buffer(&a, 0, &[0; 4])),
        // A part-word write once made its patch buffer with wgpu's `create_buffer_init`, which
        // panics on a lost device.
        ("unaligned write", backend.write_buffer(&a, 1, &[1, 2])),
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

/// Data flows between vyre and the application's own wgpu work on one device: the application's
/// buffer is imported and read by a vyre dispatch, and vyre's output is copied out by the
/// application's own encoder and mapped.
#[test]
fn a_shared_device_passes_buffers_both_ways() {
    let Some(acquired) = backend_or_skip("shared device") else {
        return;
    };
    // The application opens its own device on the same adapter and hands it over.
    let info = acquired.adapter_info().expect("info");
    drop(acquired);
    let instance = wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle());
    let adapters = pollster::block_on(instance.enumerate_adapters(wgpu::Backends::all()));
    let adapter = adapters
        .into_iter()
        .find(|a| a.get_info().name == info.name && a.get_info().backend == info.backend)
        .expect("the same adapter");
    let (device, queue) =
        pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor::default()))
            .expect("a device");
    let backend =
        WgpuBackend::from_device(adapter, device.clone(), queue.clone()).expect("from_device");
    let input = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("app input"),
        size: 16,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    queue.write_buffer(
        &input,
        0,
        &[10, 0, 0, 0, 20, 0, 0, 0, 30, 0, 0, 0, 40, 0, 0, 0],
    );
    let imported = backend.import_buffer(input).expect("import");
    assert_eq!(imported.len(), 16);
    let out = backend.create_buffer(16).expect("create");
    backend
        .dispatch_resident(&add_one(4), &[&imported, &out], &DispatchConfig::default())
        .expect("dispatch over the application's buffer");
    // Reading the imported buffer back needs COPY_SRC, which it lacks: a clear error.
    let error = backend
        .read_buffer(&imported, 0..16)
        .expect_err("no COPY_SRC");
    assert_eq!(error.kind_name(), "InvalidConfig", "{error}");

    let raw_out = backend.wgpu_buffer(&out).expect("vyre's buffer");
    let staging = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("app readback"),
        size: 16,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
    encoder.copy_buffer_to_buffer(&raw_out, 0, &staging, 0, 16);
    queue.submit([encoder.finish()]);
    staging
        .slice(..)
        .map_async(wgpu::MapMode::Read, |r| r.expect("map"));
    device
        .poll(wgpu::PollType::wait_indefinitely())
        .expect("poll");
    let got = words(&staging.slice(..).get_mapped_range().expect("mapped"));
    assert_eq!(got, [11, 21, 31, 41]);

    let other = backend_or_skip("shared device").expect("a second backend");
    assert!(
        other.wgpu_buffer(&out).is_none(),
        "another backend's buffer"
    );
    let no_storage = device.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: 16,
        usage: wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let error = backend
        .import_buffer(no_storage)
        .expect_err("no STORAGE usage");
    assert_eq!(error.kind_name(), "InvalidConfig", "{error}");
}

/// A buffer of another vyre backend's device is refused at import, with no panic and nothing
/// changed: wgpu resolves it (every backend vyre opens shares one wgpu instance) and names the
/// device mismatch. Both backends keep working, and the buffer stays its owner's.
#[test]
fn another_backends_buffer_is_refused_at_import() {
    let (Some(backend), Some(other)) = (
        backend_or_skip("foreign import"),
        backend_or_skip("foreign import, second backend"),
    ) else {
        return;
    };
    let theirs = other.create_buffer(16).expect("create");
    other
        .write_buffer(
            &theirs,
            0,
            &[5, 0, 0, 0, 6, 0, 0, 0, 7, 0, 0, 0, 8, 0, 0, 0],
        )
        .expect("write");
    let raw = other
        .wgpu_buffer(&theirs)
        .expect("the other backend's buffer");
    let error = backend
        .import_buffer(raw)
        .expect_err("a buffer of another device");
    assert_eq!(error.kind_name(), "InvalidConfig", "{error}");
    assert!(error.to_string().contains("Fix:"), "{error}");
    assert_eq!(
        words(&other.read_buffer(&theirs, 0..16).expect("read")),
        [5, 6, 7, 8]
    );
    // The refusing backend is unharmed: its own buffers import and dispatch as before.
    let mine = backend.create_buffer(16).expect("create");
    backend
        .write_buffer(&mine, 0, &[1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4, 0, 0, 0])
        .expect("write");
    let again = backend
        .import_buffer(backend.wgpu_buffer(&mine).expect("mine"))
        .expect("this backend's own buffer imports");
    let out = backend.create_buffer(16).expect("create");
    backend
        .dispatch_resident(&add_one(4), &[&again, &out], &DispatchConfig::default())
        .expect("dispatch");
    assert_eq!(
        words(&backend.read_buffer(&out, 0..16).expect("read")),
        [2, 3, 4, 5]
    );
}

#[test]
fn a_repeated_sequence_makes_only_its_program_buffer_groups() {
    let Some(backend) = backend_or_skip("resident bind groups") else {
        return;
    };
    // x = x * 2 + 1, twice per sequence: the steps keep their params groups, while the groups over
    // the application's buffers are made per launch (a kept group would hold a dropped buffer).
    let program = Program::wrapped(
        vec![BufferDecl::read_write("x", 0, DataType::U32).with_count(64)],
        [64, 1, 1],
        vec![Node::store(
            "x",
            Expr::gid_x(),
            Expr::add(
                Expr::mul(Expr::load("x", Expr::gid_x()), Expr::u32(2)),
                Expr::u32(1),
            ),
        )],
    );
    let x = backend.create_buffer(256).expect("create");
    let config = DispatchConfig::default();
    let buffers = [&x];
    let steps = [
        vyre_driver::Step::new(&program, &buffers, &config),
        vyre_driver::Step::new(&program, &buffers, &config),
    ];
    backend.dispatch_sequence(&steps).expect("first");
    let before = backend.stats().bind_groups_created;
    backend.dispatch_sequence(&steps).expect("second");
    assert_eq!(backend.stats().bind_groups_created, before + 2);
    let words: Vec<u32> = backend
        .read_buffer(&x, 0..256)
        .expect("read")
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    assert_eq!(words, vec![15; 64], "four steps of x * 2 + 1 from 0");
}

#[test]
fn one_wgpu_buffer_imported_twice_is_not_bound_writable_twice() {
    let Some(backend) = backend_or_skip("one buffer imported twice") else {
        return;
    };
    let mine = backend.create_buffer(16).expect("create");
    let raw = backend.wgpu_buffer(&mine).expect("mine");
    let first = backend.import_buffer(raw.clone()).expect("import");
    let second = backend.import_buffer(raw).expect("import again");
    let error = backend
        .dispatch_resident(&add_one(4), &[&first, &second], &DispatchConfig::default())
        .expect_err("one wgpu buffer as the input and the output");
    assert_eq!(error.kind_name(), "InvalidConfig", "{error}");
    assert!(
        error.to_string().contains("imported twice") && error.to_string().contains("Fix:"),
        "{error}"
    );
    // Read twice is sound, as for one DeviceBuffer passed twice.
    let both_read = Program::new(
        vec![
            BufferDecl::read("a", 0, DataType::U32).with_count(4),
            BufferDecl::read("b", 1, DataType::U32).with_count(4),
            BufferDecl::output("y", 2, DataType::U32).with_count(4),
        ],
        [64, 1, 1],
        vec![Node::store(
            "y",
            Expr::gid_x(),
            Expr::add(
                Expr::load("a", Expr::gid_x()),
                Expr::load("b", Expr::gid_x()),
            ),
        )],
    );
    backend
        .write_buffer(&first, 0, &[1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4, 0, 0, 0])
        .expect("write");
    let out = backend.create_buffer(16).expect("create");
    backend
        .dispatch_resident(
            &both_read,
            &[&first, &second, &out],
            &DispatchConfig::default(),
        )
        .expect("dispatch");
    assert_eq!(
        words(&backend.read_buffer(&out, 0..16).expect("read")),
        [2, 4, 6, 8]
    );
}
