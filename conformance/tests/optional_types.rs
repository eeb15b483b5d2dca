//! A backend whose device lacks `f16`, 64-bit integers or 64-bit atomics refuses programs that use
//! them with `Unsupported` naming the feature (and a `Fix:`), before anything runs: the cases of
//! `semantics::wide` check exactly that on such a backend, and run normally on the reference.

use vyre_conformance::ReferenceBackend;
use vyre_conformance::semantics::{
    Case, atomic_64, cast_64, f16_exact_operations, integer_binary_64, integer_compare_and_unary_64,
};
use vyre_driver::{BackendError, Capabilities, DispatchConfig, DispatchPlan, VyreBackend};
use vyre_foundation::validate::Validated;

/// The reference interpreter with some optional features switched off in its capabilities.
struct Without {
    inner: ReferenceBackend,
    f16: bool,
    int64: bool,
    int64_atomics: bool,
}

impl VyreBackend for Without {
    fn id(&self) -> &str {
        "without-features"
    }

    fn capabilities(&self) -> Capabilities {
        let mut caps = self.inner.capabilities();
        caps.f16 &= !self.f16;
        caps.int64 &= !self.int64;
        caps.int64_atomics &= !self.int64_atomics;
        caps
    }

    fn execute(
        &self,
        program: &Validated<'_>,
        plan: &DispatchPlan,
        inputs: &[Vec<u8>],
        config: &DispatchConfig,
    ) -> Result<Vec<Vec<u8>>, BackendError> {
        // Reaching here with a program that needs a missing feature is the bug under test.
        let missing = program
            .features()
            .missing_from(self.capabilities().features());
        assert!(missing.is_empty(), "execute reached with {missing} missing");
        self.inner.execute(program, plan, inputs, config)
    }
}

const WIDE: [Case; 5] = [
    integer_binary_64,
    integer_compare_and_unary_64,
    cast_64,
    f16_exact_operations,
    atomic_64,
];

#[test]
fn every_wide_case_is_refused_without_its_feature() {
    for (f16, int64, int64_atomics) in [
        (true, false, false),
        (false, true, false),
        (false, false, true),
        (true, true, true),
    ] {
        let backend = Without {
            inner: ReferenceBackend::new(),
            f16,
            int64,
            int64_atomics,
        };
        for case in WIDE {
            case(&backend);
        }
    }
}

#[test]
fn the_refusal_names_the_feature_and_says_how_to_fix_it() {
    use vyre_foundation::ir::{BufferDecl, DataType, Expr, Node, Program};
    let backend = Without {
        inner: ReferenceBackend::new(),
        f16: false,
        int64: true,
        int64_atomics: false,
    };
    let program = Program::new(
        vec![BufferDecl::output("out", 0, DataType::U64).with_count(1)],
        [1, 1, 1],
        vec![Node::store("out", Expr::u32(0), Expr::u64(1))],
    );
    match backend.dispatch(&program, &[], &DispatchConfig::default()) {
        Err(BackendError::Unsupported(m)) => {
            assert!(m.contains("int64") && m.contains("Fix:"), "{m}");
        }
        other => panic!("expected Unsupported, got {other:?}"),
    }
    // The reference itself has every feature.
    let caps = ReferenceBackend::new().capabilities();
    assert!(caps.f16 && caps.int64 && caps.int64_atomics);
}
