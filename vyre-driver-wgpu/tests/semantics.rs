//! The backend-neutral semantics suite, on wgpu.

vyre_conformance::semantics_suite!(wgpu, || vyre_driver_wgpu::testing::backend_or_skip(
    "semantics"
));
