//! The resident-buffer contract, checked on any backend: buffers, `dispatch_resident`,
//! `dispatch_sequence`, every error the contract names, and threads sharing buffers.
//!
//! Each check panics with the backend's id and what went wrong (they are test assertions).

use std::sync::Arc;

use vyre_driver::{BackendError, DeviceBuffer, DispatchConfig, Step, VyreBackend};
use vyre_foundation::ir::{BufferDecl, DataType, Expr, Node, Program};

fn words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

fn ok<T>(backend: &dyn VyreBackend, what: &str, r: Result<T, BackendError>) -> T {
    r.unwrap_or_else(|e| panic!("{}: {what} failed: {e}", backend.id()))
}

fn expect_kind<T: std::fmt::Debug>(
    backend: &dyn VyreBackend,
    what: &str,
    r: Result<T, BackendError>,
    kind: &str,
) {
    match r {
        Ok(v) => panic!(
            "{}: {what} succeeded ({v:?}); expected {kind}",
            backend.id()
        ),
        Err(e) => {
            assert_eq!(e.kind_name(), kind, "{}: {what}: {e}", backend.id());
            assert!(
                e.to_string().contains("Fix:"),
                "{}: {what}: no Fix: in {e}",
                backend.id()
            );
        }
    }
}

fn read_words(backend: &dyn VyreBackend, buffer: &DeviceBuffer) -> Vec<u32> {
    words(&ok(
        backend,
        "read_buffer",
        backend.read_buffer(buffer, 0..buffer.len()),
    ))
}

/// Buffers: zero-filled at creation, written and read back at aligned and unaligned offsets,
/// clones share memory, and reads or writes outside the buffer are `InvalidConfig`.
pub fn check_buffers(backend: &dyn VyreBackend) {
    let b = ok(backend, "create_buffer", backend.create_buffer(37));
    assert_eq!(b.len(), 37);
    let zeros = ok(backend, "read_buffer", backend.read_buffer(&b, 0..37));
    assert_eq!(
        zeros,
        vec![0; 37],
        "{}: a new buffer is not zero",
        backend.id()
    );
    let data: Vec<u8> = (1..=37).collect();
    ok(backend, "write_buffer", backend.write_buffer(&b, 0, &data));
    let clone = b.clone();
    assert!(clone.same_buffer(&b));
    assert_eq!(
        ok(backend, "read", backend.read_buffer(&clone, 0..37)),
        data
    );
    // Unaligned write and read.
    ok(
        backend,
        "unaligned write",
        backend.write_buffer(&b, 5, &[200, 201, 202]),
    );
    let mut expected = data.clone();
    expected[5..8].copy_from_slice(&[200, 201, 202]);
    assert_eq!(
        ok(backend, "read", backend.read_buffer(&b, 0..37)),
        expected
    );
    assert_eq!(
        ok(backend, "unaligned read", backend.read_buffer(&b, 3..9)),
        expected[3..9].to_vec()
    );
    assert!(ok(backend, "empty read", backend.read_buffer(&b, 9..9)).is_empty());
    expect_kind(
        backend,
        "reading past the end",
        backend.read_buffer(&b, 30..38),
        "InvalidConfig",
    );
    expect_kind(
        backend,
        "a reversed range",
        backend.read_buffer(&b, std::ops::Range { start: 9, end: 8 }),
        "InvalidConfig",
    );
    expect_kind(
        backend,
        "writing past the end",
        backend.write_buffer(&b, 36, &[1, 2]),
        "InvalidConfig",
    );
    expect_kind(
        backend,
        "writing at an offset past u64",
        backend.write_buffer(&b, u64::MAX, &[1]),
        "InvalidConfig",
    );
    // The message names the write asked for, not a range cut short at u64::MAX.
    let past = backend.write_buffer(&b, u64::MAX / 2, &[1, 2, 3, 4]);
    let text = past.map_or_else(|e| e.to_string(), |()| String::new());
    assert!(
        text.starts_with("writing 4 bytes at byte 9223372036854775807 "),
        "{}: {text}",
        backend.id()
    );
    let empty = ok(backend, "create_buffer(0)", backend.create_buffer(0));
    assert!(empty.is_empty());
    assert!(
        ok(
            backend,
            "read of nothing",
            backend.read_buffer(&empty, 0..0)
        )
        .is_empty()
    );
}

/// `read a`, `read_write acc`, `output out`, runtime-sized `read r`: `out[i] = a[i] + acc[i]`,
/// `acc[i] += 1`, `out[n] = len(r)` at `i == 0`.
fn resident_program(n: u32) -> Program {
    let i = Expr::gid_x();
    Program::new(
        vec![
            BufferDecl::read("a", 0, DataType::U32).with_count(n),
            BufferDecl::read_write("acc", 1, DataType::U32).with_count(n),
            BufferDecl::output("out", 2, DataType::U32).with_count(n + 1),
            BufferDecl::read("r", 3, DataType::U32),
        ],
        [64, 1, 1],
        vec![
            Node::if_then(
                Expr::lt(i.clone(), Expr::u32(n)),
                vec![
                    Node::store(
                        "out",
                        i.clone(),
                        Expr::add(Expr::load("a", i.clone()), Expr::load("acc", i.clone())),
                    ),
                    Node::store(
                        "acc",
                        i.clone(),
                        Expr::add(Expr::load("acc", i.clone()), Expr::u32(1)),
                    ),
                ],
            ),
            Node::if_then(
                Expr::eq(i, Expr::u32(0)),
                vec![Node::store("out", Expr::u32(n), Expr::buf_len("r"))],
            ),
        ],
    )
}

/// `dispatch_resident` means what `dispatch` means: outputs start at zero in every dispatch (only
/// the declared elements), `read_write` buffers keep their contents, a declared count smaller than
/// the buffer bounds the accesses, a runtime-sized buffer takes the buffer's length.
pub fn check_dispatch_resident(backend: &dyn VyreBackend) {
    let n = 100u32;
    let program = resident_program(n);
    let a_words: Vec<u32> = (0..n).map(|i| i * 3).collect();
    // `a` is larger than declared: its extra words must never be read.
    let a = ok(
        backend,
        "create a",
        backend.create_buffer(u64::from(n) * 4 + 64),
    );
    ok(
        backend,
        "write a",
        backend.write_buffer(&a, 0, &bytes(&a_words)),
    );
    ok(
        backend,
        "write a tail",
        backend.write_buffer(&a, u64::from(n) * 4, &[0xff; 64]),
    );
    let acc = ok(
        backend,
        "create acc",
        backend.create_buffer(u64::from(n) * 4),
    );
    // `out` is larger than declared: the words past `n + 1` keep what was written there.
    let out = ok(
        backend,
        "create out",
        backend.create_buffer(u64::from(n + 1) * 4 + 8),
    );
    ok(
        backend,
        "write out tail",
        backend.write_buffer(&out, u64::from(n + 1) * 4, &bytes(&[7, 9])),
    );
    let r = ok(backend, "create r", backend.create_buffer(4 * 13 + 3));
    let config = DispatchConfig::default();
    let buffers = [&a, &acc, &out, &r];
    for round in 0..3u32 {
        // Poison the declared part of `out`: it must read as zero again in every dispatch.
        ok(
            backend,
            "poison out",
            backend.write_buffer(&out, 0, &bytes(&vec![0xdead_beef; n as usize])),
        );
        ok(
            backend,
            "dispatch_resident",
            backend.dispatch_resident(&program, &buffers, &config),
        );
        let got = read_words(backend, &out);
        let expected: Vec<u32> = (0..n).map(|i| i * 3 + round).chain([13, 7, 9]).collect();
        assert_eq!(got, expected, "{}: round {round}", backend.id());
    }
    let acc_words = read_words(backend, &acc);
    assert_eq!(
        acc_words,
        vec![3; n as usize],
        "{}: read_write kept",
        backend.id()
    );
}

/// An `output` cleared for a dispatch is cleared only over its declared elements: the bytes past
/// them keep what was written there, also where the declared elements end inside a 16-byte row (an
/// elementwise program, which the wgpu backend binds in whole rows) or inside a word (`f16`, where
/// the device has it).
pub fn check_output_tails(backend: &dyn VyreBackend) {
    let config = DispatchConfig::default();
    // `y[0] = 1` over an output of 5 declared words in a buffer of 8: the rest of the declared
    // elements read as zero, the three words past them as written.
    let first = Program::new(
        vec![BufferDecl::output("y", 0, DataType::U32).with_count(5)],
        [64, 1, 1],
        vec![Node::if_then(
            Expr::eq(Expr::gid_x(), Expr::u32(0)),
            vec![Node::store("y", Expr::gid_x(), Expr::u32(1))],
        )],
    );
    let y = ok(backend, "create y", backend.create_buffer(32));
    ok(
        backend,
        "write y",
        backend.write_buffer(&y, 0, &bytes(&[0xee; 8])),
    );
    ok(
        backend,
        "dispatch_resident",
        backend.dispatch_resident(&first, &[&y], &config),
    );
    assert_eq!(
        read_words(backend, &y),
        [1, 0, 0, 0, 0, 0xee, 0xee, 0xee],
        "{}: the words past a 5-word output",
        backend.id()
    );
    if !backend.capabilities().f16 {
        return;
    }
    // Three `f16` outputs, none written, in a buffer of four: the fourth half keeps its bits.
    let halves = Program::new(
        vec![BufferDecl::output("h", 0, DataType::F16).with_count(3)],
        [64, 1, 1],
        vec![],
    );
    let h = ok(backend, "create h", backend.create_buffer(8));
    ok(backend, "write h", backend.write_buffer(&h, 0, &[0xee; 8]));
    ok(
        backend,
        "dispatch_resident",
        backend.dispatch_resident(&halves, &[&h], &config),
    );
    assert_eq!(
        ok(backend, "read h", backend.read_buffer(&h, 0..8)),
        [0, 0, 0, 0, 0, 0, 0xee, 0xee],
        "{}: the half past a 3-half output",
        backend.id()
    );
}

/// Ten steps over resident buffers in one sequence, each seeing the writes of the step before:
/// `x = x * 3 + k` for `k` in `0..10`, alternating two buffers.
pub fn check_sequence(backend: &dyn VyreBackend) {
    let n = 1000u32;
    let step = |k: u32| {
        let i = Expr::gid_x();
        Program::new(
            vec![
                BufferDecl::read("src", 0, DataType::U32).with_count(n),
                BufferDecl::output("dst", 1, DataType::U32).with_count(n),
            ],
            [64, 1, 1],
            vec![Node::store(
                "dst",
                i.clone(),
                Expr::add(Expr::mul(Expr::load("src", i), Expr::u32(3)), Expr::u32(k)),
            )],
        )
    };
    let programs: Vec<Program> = (0..10).map(step).collect();
    let x = ok(backend, "create", backend.create_buffer(u64::from(n) * 4));
    let y = ok(backend, "create", backend.create_buffer(u64::from(n) * 4));
    let start: Vec<u32> = (0..n).collect();
    ok(
        backend,
        "write",
        backend.write_buffer(&x, 0, &bytes(&start)),
    );
    let config = DispatchConfig::default();
    let forward = [&x, &y];
    let back = [&y, &x];
    let steps: Vec<Step<'_>> = programs
        .iter()
        .enumerate()
        .map(|(k, p)| Step::new(p, if k % 2 == 0 { &forward } else { &back }, &config))
        .collect();
    ok(
        backend,
        "dispatch_sequence",
        backend.dispatch_sequence(&steps),
    );
    let expected: Vec<u32> = start
        .iter()
        .map(|&v| (0..10).fold(v, |acc: u32, k| acc.wrapping_mul(3).wrapping_add(k)))
        .collect();
    // Ten steps: the last (k = 9, odd) wrote `x`.
    assert_eq!(
        read_words(backend, &x),
        expected,
        "{}: the chain",
        backend.id()
    );
    ok(backend, "empty sequence", backend.dispatch_sequence(&[]));
}

/// Every error of the contract: a buffer of another backend instance, the wrong number of buffers,
/// a buffer too small for its declared count, one buffer under two names with a write, an empty
/// runtime-sized buffer, an invalid program; and a failing step stops its sequence before anything
/// runs.
pub fn check_errors(backend: &dyn VyreBackend, other: &dyn VyreBackend) {
    let n = 16u32;
    let program = resident_program(n);
    let make = |b: &dyn VyreBackend, len: u64| ok(b, "create", b.create_buffer(len));
    let a = make(backend, 64);
    let acc = make(backend, 64);
    let out = make(backend, 68);
    let r = make(backend, 8);
    let config = DispatchConfig::default();
    let foreign = make(other, 64);
    expect_kind(
        backend,
        "another instance's buffer",
        backend.dispatch_resident(&program, &[&foreign, &acc, &out, &r], &config),
        "InvalidConfig",
    );
    expect_kind(
        backend,
        "reading another instance's buffer",
        backend.read_buffer(&foreign, 0..4),
        "InvalidConfig",
    );
    expect_kind(
        backend,
        "writing another instance's buffer",
        backend.write_buffer(&foreign, 0, &[0; 4]),
        "InvalidConfig",
    );
    expect_kind(
        backend,
        "three buffers for four",
        backend.dispatch_resident(&program, &[&a, &acc, &out], &config),
        "InputMismatch",
    );
    let small = make(backend, 60);
    expect_kind(
        backend,
        "a buffer under its declared count",
        backend.dispatch_resident(&program, &[&a, &small, &out, &r], &config),
        "InputMismatch",
    );
    expect_kind(
        backend,
        "one buffer as `a` and `acc`",
        backend.dispatch_resident(&program, &[&a, &a, &out, &r], &config),
        "InvalidConfig",
    );
    let tiny = make(backend, 3);
    expect_kind(
        backend,
        "a runtime-sized buffer without one element",
        backend.dispatch_resident(&program, &[&a, &acc, &out, &tiny], &config),
        "InputMismatch",
    );
    let invalid = Program::new(
        vec![BufferDecl::output("o", 0, DataType::U32)],
        [1, 1, 1],
        vec![],
    );
    expect_kind(
        backend,
        "an invalid program",
        backend.dispatch_resident(&invalid, &[&out], &config),
        "InvalidProgram",
    );
    // One buffer under two read-only names is fine.
    let twice = Program::new(
        vec![
            BufferDecl::read("p", 0, DataType::U32).with_count(4),
            BufferDecl::read("q", 1, DataType::U32).with_count(4),
            BufferDecl::output("o", 2, DataType::U32).with_count(4),
        ],
        [4, 1, 1],
        vec![Node::store(
            "o",
            Expr::gid_x(),
            Expr::add(
                Expr::load("p", Expr::gid_x()),
                Expr::load("q", Expr::gid_x()),
            ),
        )],
    );
    ok(
        backend,
        "write",
        backend.write_buffer(&a, 0, &bytes(&[1, 2, 3, 4])),
    );
    ok(
        backend,
        "two read-only names",
        backend.dispatch_resident(&twice, &[&a, &a, &out], &config),
    );
    assert_eq!(&read_words(backend, &out)[..4], &[2, 4, 6, 8]);
    // A bad second step: the first step must not have run.
    ok(
        backend,
        "write",
        backend.write_buffer(&acc, 0, &bytes(&[5; 16])),
    );
    let good = [&a, &acc, &out, &r];
    let bad = [&a, &acc];
    let steps = [
        Step::new(&program, &good, &config),
        Step::new(&program, &bad, &config),
    ];
    expect_kind(
        backend,
        "a sequence with a bad step",
        backend.dispatch_sequence(&steps),
        "InputMismatch",
    );
    assert_eq!(
        read_words(backend, &acc),
        vec![5; 16],
        "{}: a failed sequence ran a step",
        backend.id()
    );
}

/// 8 threads share one input buffer and each runs sequences over its own buffers; every result is
/// checked. Then 8 threads write single bytes of one buffer at once, thread `t` the bytes `t`,
/// `t + 8`, ...: no write undoes another's, although every word is shared by two threads.
pub fn check_threads(backend: &dyn VyreBackend) {
    check_thread_sequences(backend);
    check_thread_bytes(backend);
}

fn check_thread_bytes(backend: &dyn VyreBackend) {
    let len = 64u64;
    for round in 0..4u8 {
        let buffer = ok(backend, "create", backend.create_buffer(len));
        std::thread::scope(|scope| {
            for t in 0..8u64 {
                let buffer = &buffer;
                scope.spawn(move || {
                    for at in (t..len).step_by(8) {
                        let byte = [(at as u8).wrapping_add(round * 61 + 1)];
                        ok(
                            backend,
                            "write a byte",
                            backend.write_buffer(buffer, at, &byte),
                        );
                    }
                });
            }
        });
        let expected: Vec<u8> = (0..len as u8)
            .map(|at| at.wrapping_add(round * 61 + 1))
            .collect();
        assert_eq!(
            ok(backend, "read", backend.read_buffer(&buffer, 0..len)),
            expected,
            "{}: bytes written by 8 threads, round {round}",
            backend.id()
        );
    }
}

fn check_thread_sequences(backend: &dyn VyreBackend) {
    let n = 256u32;
    let shared = Arc::new(ok(
        backend,
        "create",
        backend.create_buffer(u64::from(n) * 4),
    ));
    let input: Vec<u32> = (0..n).map(|i| i * 7 + 1).collect();
    ok(
        backend,
        "write",
        backend.write_buffer(&shared, 0, &bytes(&input)),
    );
    let program = |salt: u32| {
        let i = Expr::gid_x();
        Program::new(
            vec![
                BufferDecl::read("src", 0, DataType::U32).with_count(n),
                BufferDecl::read_write("acc", 1, DataType::U32).with_count(n),
            ],
            [64, 1, 1],
            vec![Node::store(
                "acc",
                i.clone(),
                Expr::add(
                    Expr::load("acc", i.clone()),
                    Expr::bit_xor(Expr::load("src", i), Expr::u32(salt)),
                ),
            )],
        )
    };
    let input = &input;
    std::thread::scope(|scope| {
        for t in 0..8u32 {
            let shared = Arc::clone(&shared);
            let program = program(t);
            scope.spawn(move || {
                let acc = ok(backend, "create", backend.create_buffer(u64::from(n) * 4));
                let config = DispatchConfig::default();
                let buffers = [&*shared, &acc];
                for _ in 0..10 {
                    let steps = [Step::new(&program, &buffers[..], &config); 3];
                    ok(
                        backend,
                        "dispatch_sequence",
                        backend.dispatch_sequence(&steps),
                    );
                }
                let expected: Vec<u32> = input.iter().map(|&v| (v ^ t).wrapping_mul(30)).collect();
                assert_eq!(
                    read_words(backend, &acc),
                    expected,
                    "{}: thread {t}",
                    backend.id()
                );
            });
        }
    });
}
