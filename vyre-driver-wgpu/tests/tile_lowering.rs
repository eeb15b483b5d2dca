//! Generated programs with matrix tiles (`Feature::Tiles`) lower on any machine, GPU or not, to
//! WGSL that naga accepts with every check wgpu makes, uniformity included: the devices that run
//! them are rare (lavapipe has no cooperative matrices), so the lowering is checked here on every
//! generated tile program, and their results on the GPU sittings.

use vyre_conformance::fuzz::generate;
use vyre_conformance::r#gen::{Feature, GenConfig};
use vyre_foundation::ir::Node;

fn has_tiles(body: &[Node]) -> bool {
    body.iter()
        .any(|n| matches!(n, Node::TileMultiplyAdd { .. }) || n.bodies().any(|b| has_tiles(b)))
}

#[test]
fn generated_tile_programs_lower_to_valid_wgsl() {
    let config = GenConfig::differential().with_swarm(false);
    assert!(config.features.has(Feature::Tiles));
    let mut lowered = 0;
    for i in 0..600 {
        let Some((_, case)) = generate(&config, 4242, i) else {
            continue;
        };
        if !has_tiles(&case.program.body) {
            continue;
        }
        let wgsl = vyre_driver_wgpu::emit_wgsl(&case.program)
            .unwrap_or_else(|e| panic!("case {i}: {e}\n{}", case.program));
        let module = naga::front::wgsl::parse_str(&wgsl)
            .unwrap_or_else(|e| panic!("case {i}: {}\n{wgsl}", e.emit_to_string(&wgsl)));
        naga::valid::Validator::new(
            naga::valid::ValidationFlags::all(),
            naga::valid::Capabilities::all(),
        )
        .validate(&module)
        .unwrap_or_else(|e| panic!("case {i}: {}\n{wgsl}", e.emit_to_string(&wgsl)));
        lowered += 1;
    }
    assert!(lowered >= 20, "only {lowered} generated programs had tiles");
}
