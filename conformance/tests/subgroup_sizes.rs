//! The semantics suite on the reference at other subgroup sizes than its default: the smallest and
//! largest a device may have, lavapipe's 8, and none (where subgroup programs must be refused).

vyre_conformance::semantics_suite!(reference_subgroups_1, || Some(
    vyre_conformance::ReferenceBackend::new().with_subgroup_size(1)
));
vyre_conformance::semantics_suite!(reference_subgroups_8, || Some(
    vyre_conformance::ReferenceBackend::new().with_subgroup_size(8)
));
vyre_conformance::semantics_suite!(reference_subgroups_128, || Some(
    vyre_conformance::ReferenceBackend::new().with_subgroup_size(128)
));
vyre_conformance::semantics_suite!(reference_without_subgroups, || Some(
    vyre_conformance::ReferenceBackend::new().with_subgroup_size(0)
));
