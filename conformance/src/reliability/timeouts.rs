//! `DispatchConfig::with_timeout` ends a long dispatch with `BackendError::Timeout` on every backend,
//! and the backend stays usable afterwards.

use std::time::{Duration, Instant};

use vyre_driver::{DispatchConfig, VyreBackend};
use vyre_foundation::ir::{BufferDecl, DataType, Expr, Node, Program};

use crate::fixtures::add_one_program;
use crate::reliability::{bytes, words};

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

/// A 1 ms timeout on a dispatch that spins for seconds is `BackendError::Timeout` with a `Fix:`, and
/// the backend runs the next dispatch correctly.
///
/// # Panics
///
/// When the dispatch does not time out, the error is another variant or has no `Fix:`, or the
/// backend is unusable afterwards; that is its purpose (a test assertion).
pub fn check_timeout(backend: &dyn VyreBackend) {
    // 1024 workgroups x 64 invocations x 2^22 iterations: far more than a millisecond on any device
    // or interpreter. (lavapipe stops every loop after 65535 iterations in total per invocation, so
    // there it is "only" 4 * 10^9 iterations: still seconds.)
    let config = DispatchConfig::default()
        .with_grid([1024, 1, 1])
        .with_timeout(Duration::from_millis(1));
    let started = Instant::now();
    let err = backend
        .dispatch(&spin_program(), &[bytes(&[1 << 22])], &config)
        .err()
        .unwrap_or_else(|| panic!("the spin on {} must time out", backend.id()));
    let waited = started.elapsed();
    assert_eq!(err.kind_name(), "Timeout", "{err}");
    assert!(err.to_string().contains("Fix:"), "{err}");
    let out = backend
        .dispatch(
            &add_one_program(8),
            &[bytes(&[1; 8])],
            &DispatchConfig::default(),
        )
        .unwrap_or_else(|e| panic!("the backend works after a timeout: {e}"));
    assert_eq!(words(&out[0]), vec![2; 8]);
    eprintln!(
        "timeout on {}: a 1 ms timeout ended the spin after {waited:?} with Timeout",
        backend.id()
    );
}
