//! The whole backend-neutral suite (semantics, catalogue per area, reliability, resident buffers)
//! on `vyre::Sharded`: over two reference members, and over two wgpu devices on one adapter
//! (lavapipe here), each splitting every elementwise dispatch of two or more workgroups
//! (`with_split_threshold(1)`), so every case that can run as ranges does.

use vyre::{ReferenceBackend, Sharded, VyreBackend};

fn two_references() -> Option<Sharded> {
    let members: Vec<Box<dyn VyreBackend>> = vec![
        Box::new(ReferenceBackend::new()),
        Box::new(ReferenceBackend::new()),
    ];
    Sharded::new(members)
        .ok()
        .map(|s| s.with_split_threshold(1))
}

fn two_wgpu_devices() -> Option<Sharded> {
    vyre_driver_wgpu::testing::backend_or_skip("sharded_wgpu")?;
    let devices =
        vyre_driver_wgpu::WgpuBackend::acquire_devices(&vyre_driver_wgpu::AdapterOptions::new(), 2)
            .unwrap_or_else(|e| panic!("one device opened but not two: {e}"));
    let members: Vec<Box<dyn VyreBackend>> = devices
        .into_iter()
        .map(|d| Box::new(d) as Box<dyn VyreBackend>)
        .collect();
    Sharded::new(members)
        .ok()
        .map(|s| s.with_split_threshold(1))
}

vyre_conformance::backend_tests!(sharded_reference, two_references);
vyre_conformance::backend_tests!(sharded_wgpu, two_wgpu_devices);
