//! The backend-neutral suite (semantics, catalogue per area, reliability checks) on wgpu. With
//! `VYRE_REQUIRE_GPU=1` a missing adapter fails every test instead of skipping it.
//!
//! It runs twice: with the driver workarounds the adapter's table entries prescribe (none on
//! lavapipe), and with every workaround forced on, which proves each rewrite exact on a driver that
//! does not need it (`vyre_driver_wgpu::workarounds`).

vyre_conformance::backend_tests!(wgpu, || vyre_driver_wgpu::testing::backend_or_skip("wgpu"));

vyre_conformance::backend_tests!(wgpu_all_workarounds, || {
    let options = vyre_driver_wgpu::AdapterOptions::new()
        .with_workarounds(vyre_driver_wgpu::Workarounds::ALL);
    vyre_driver_wgpu::testing::backend_with_or_skip("wgpu_all_workarounds", &options)
});
