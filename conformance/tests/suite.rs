//! The backend-neutral suite (semantics, catalogue per area, reliability checks) on the reference
//! backend, instantiated exactly as a downstream backend would instantiate it for its own.

vyre_conformance::backend_tests!(
    reference,
    || Some(vyre_conformance::ReferenceBackend::new())
);
