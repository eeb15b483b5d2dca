//! Each planted miscompile of the lowering (`vyre_driver_wgpu::Miscompile`) must be caught: with it
//! planted, some case of `codegen_cases` disagrees with the reference. The switch is process-wide,
//! so this binary holds one test, which plants each miscompile in turn with a fresh backend (whose
//! pipeline cache is empty).
//!
//! One planted miscompile is not observable on every driver: a barrier without the storage scope
//! computes the same results on lavapipe, whose invocations share one coherent memory; there the
//! test checks that the planted lowering really dropped the scope, and the rule itself is pinned by
//! the unit tests of `lower::barrier`.
//!
//! The vectorised miscompiles must also be found by the differential fuzzer, unaided, on the
//! generator's elementwise programs, and shrunk to a program of a few statements.
//!
//! The miscompiles inside a driver workaround's rewrite (`Miscompile::in_workaround`) show only
//! where the workaround is in force: they are checked on a backend with every workaround forced on,
//! against the codegen cases and then the whole conformance catalogue, which is how CI proves the
//! rewrites on lavapipe (`tests/suite.rs` runs the catalogue with them forced on).

mod codegen_cases;

use vyre_conformance::ReferenceBackend;
use vyre_conformance::fuzz::{self, FuzzOptions};
use vyre_conformance::r#gen::{Feature, Features, GenConfig};
use vyre_driver_wgpu::testing::backend_with_or_skip;
use vyre_driver_wgpu::{
    AdapterOptions, LaunchForm, Miscompile, PipelineCacheDir, Workarounds, emit_wgsl_as,
    plant_miscompile,
};

#[test]
fn every_planted_miscompile_is_caught() {
    let reference = ReferenceBackend::new();
    let cases = codegen_cases::cases();
    let mut uncaught = Vec::new();
    for miscompile in Miscompile::ALL {
        plant_miscompile(miscompile);
        let mut options = AdapterOptions::new().with_pipeline_cache(PipelineCacheDir::Off);
        if miscompile.in_workaround() {
            options = options.with_workarounds(Workarounds::ALL);
        }
        let Some(wgpu) = backend_with_or_skip("every_planted_miscompile_is_caught", &options)
        else {
            plant_miscompile(Miscompile::None);
            return;
        };
        let caught = cases
            .iter()
            .filter_map(|case| codegen_cases::disagreement(case, &reference, &wgpu))
            .next()
            .or_else(|| {
                codegen_cases::batch_cases()
                    .iter()
                    .find_map(|case| codegen_cases::batch_disagreement(case, &reference, &wgpu))
            })
            .or_else(|| {
                // The private array guard is pinned by the catalogue's `private_arrays` area, the
                // tile guard by its `tiles` area (where the device has tiles).
                if !miscompile.in_workaround()
                    && miscompile != Miscompile::PrivateArrayBoundOffByOne
                    && miscompile != Miscompile::TileGuardOffByOne
                {
                    return None;
                }
                let report = vyre_conformance::report::check_backend(&wgpu);
                report.failures().next().map(|failed| {
                    format!(
                        "catalogue case {} ({} of {} failed)",
                        failed.name,
                        report.failed(),
                        report.total()
                    )
                })
            });
        match (miscompile, caught) {
            (_, Some(found)) => {
                eprintln!("{miscompile:?} caught: {found}");
                let vector = matches!(
                    miscompile,
                    Miscompile::VectorTailOffByOne
                        | Miscompile::VectorIgnoresGridEnd
                        | Miscompile::TailLaunchShort
                );
                if vector && !fuzzer_catches_and_shrinks(&reference, &wgpu) {
                    uncaught.push(miscompile);
                }
            }
            (Miscompile::WeakBarrierScope, None) => {
                let barrier = cases
                    .iter()
                    .find(|c| c.name == "barrier_storage_exchange")
                    .map(|c| emit_wgsl_as(&c.program, LaunchForm::Direct));
                let dropped =
                    matches!(&barrier, Some(Ok(wgsl)) if !wgsl.contains("storageBarrier"));
                assert!(
                    dropped,
                    "the planted weak barrier scope did not take: {barrier:?}"
                );
                eprintln!(
                    "{miscompile:?}: not observable on {} (expected on lavapipe)",
                    wgpu.adapter_name()
                );
            }
            (Miscompile::TileGuardOffByOne, None)
                if vyre_driver::VyreBackend::capabilities(&wgpu)
                    .matrix_tiles
                    .is_empty() =>
            {
                // No tiles on this device: the catalogue's tile cases are not supported here. The
                // planted guard must still be in the emitted module (the GPU runs catch it).
                let program: vyre_foundation::ir::Program = TILE_PROGRAM.parse().expect("parses");
                let wgsl = emit_wgsl_as(&program, LaunchForm::Direct);
                assert!(
                    matches!(&wgsl, Ok(text) if text.contains("+ 1u)")),
                    "the planted tile guard did not take: {wgsl:?}"
                );
                eprintln!(
                    "{miscompile:?}: not observable on {} (no matrix tiles)",
                    wgpu.adapter_name()
                );
            }
            (_, None) => uncaught.push(miscompile),
        }
    }
    plant_miscompile(Miscompile::None);
    assert!(
        uncaught.is_empty(),
        "uncaught planted miscompiles: {uncaught:?}"
    );
}

/// A tile load and store whose guards the planted `TileGuardOffByOne` changes.
const TILE_PROGRAM: &str = "program @workgroup_size(128, 1, 1) {
  buffer a: read f16[300] @binding(0);
  buffer c: output f32[300] @binding(1);
  tile t: a<f16, 16, 16>;
  tile acc: accumulator<f32, 16, 16>;
  tile_load(t, a, 4u, 16u, row_major);
  tile_store(acc, c, 5u, 16u, row_major);
}";

fn count_nodes(body: &[vyre_foundation::ir::Node]) -> usize {
    body.iter()
        .map(|n| 1 + n.bodies().map(|b| count_nodes(b)).sum::<usize>())
        .sum()
}

/// The differential fuzzer, on elementwise programs, finds a mismatch within a few hundred cases
/// (the generator's elementwise shapes reach the vectorised partial rows unaided) and shrinks it to
/// a program of a few statements.
fn fuzzer_catches_and_shrinks(
    reference: &ReferenceBackend,
    wgpu: &dyn vyre_driver::VyreBackend,
) -> bool {
    let features = [
        Feature::Elementwise,
        Feature::Loads,
        Feature::Stores,
        Feature::Variables,
        Feature::IntArith,
        Feature::Ifs,
    ]
    .into_iter()
    .fold(Features::none(), Features::with);
    let options = FuzzOptions {
        cases: 400,
        seed: 17,
        config: GenConfig::differential()
            .with_features(features)
            .with_swarm(false),
        max_mismatches: 1,
        batch: 100,
        ..FuzzOptions::default()
    };
    let summary = fuzz::run(&options, reference, wgpu, &|_| {});
    let Some(found) = summary.mismatches.first() else {
        eprintln!(
            "  the fuzzer found nothing in {} programs",
            summary.programs
        );
        return false;
    };
    let nodes = count_nodes(&found.minimal.program.body);
    eprintln!(
        "  the fuzzer found it after {} programs, shrunk to {nodes} statements:\n{}",
        summary.programs,
        found.report()
    );
    // `let tid`, `let ltid` (kept by the reducer) and a store or two.
    nodes <= 5
}
