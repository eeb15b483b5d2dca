//! The backend-neutral suite (semantics, catalogue per area, reliability checks) on wgpu. With
//! `VYRE_REQUIRE_GPU=1` a missing adapter fails every test instead of skipping it.

vyre_conformance::backend_tests!(wgpu, || vyre_driver_wgpu::testing::backend_or_skip("wgpu"));
