//! The backend-neutral semantics suite, run on the reference backend.

vyre_conformance::semantics_suite!(
    reference,
    || Some(vyre_conformance::ReferenceBackend::new())
);
