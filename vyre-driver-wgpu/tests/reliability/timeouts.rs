//! `DispatchConfig::with_timeout` ends a long dispatch with `BackendError::Timeout` on every backend,
//! and the backend stays usable afterwards.

use std::time::{Duration, Instant};

use vyre_driver::{DispatchConfig, VyreBackend};
use vyre_foundation::ir::{BufferDecl, DataType, Expr, Node, Program};

use crate::common::{add_one_program, bytes, words};

/// A program whose every invocation spins `n[0]` times; the count comes from a buffer so that no
/// compiler can fold the loop away.
fn spin_program() -> Program {
    Program::wrapped(
        vec![
            BufferDecl::read("n", 0, DataType::U32).with_count(1),
            BufferDecl::output("out", 1, DataType::U32).with_count(64),
        ],
        [64, 1, 1],
        vec![
            Node::let_bind("acc", Expr::u32(0)),
            Node::loop_for(
                "i",
                Expr::u32(0),
                Expr::load("n", Expr::u32(0)),
                vec![Node::assign(
                    "acc",
                    Expr::bit_xor(
                        Expr::mul(Expr::var("acc"), Expr::u32(1_664_525)),
                        Expr::var("i"),
                    ),
                )],
            ),
            Node::store("out", Expr::local_x(), Expr::var("acc")),
        ],
    )
}

pub(crate) fn check_timeout(backend: &dyn VyreBackend) {
    // 1024 workgroups x 64 invocations x 2^22 iterations: far more than a millisecond on any device
    // or interpreter. (lavapipe stops every loop after 65535 iterations in total per invocation, so
    // there it is "only" 4 * 10^9 iterations: still seconds.)
    let config = DispatchConfig::default()
        .with_grid([1024, 1, 1])
        .with_timeout(Duration::from_millis(1));
    let started = Instant::now();
    let err = backend
        .dispatch(&spin_program(), &[bytes(&[1 << 22])], &config)
        .expect_err("the spin must time out");
    let waited = started.elapsed();
    assert_eq!(err.kind_name(), "Timeout", "{err}");
    assert!(err.to_string().contains("Fix:"), "{err}");
    let out = backend
        .dispatch(
            &add_one_program(8),
            &[bytes(&[1; 8])],
            &DispatchConfig::default(),
        )
        .expect("the backend works after a timeout");
    assert_eq!(words(&out[0]), vec![2; 8]);
    eprintln!(
        "timeout on {}: a 1 ms timeout ended the spin after {waited:?} with Timeout",
        backend.id()
    );
}

on_both_backends!(
    a_dispatch_past_its_timeout_is_a_timeout_error,
    super::check_timeout
);
