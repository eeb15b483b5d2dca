//! Which programs a run draws: case `i` of seed `s` is always the same program, with only the
//! generator features both sides can run.

use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use vyre_driver::VyreBackend;

use crate::fuzz::judge::Oracle;
use crate::r#gen::{GenConfig, GeneratedCase, Recipe, decode, recipe};

/// The 32-byte proptest seed of case `index` of `seed`.
fn case_seed(seed: u64, index: u64) -> [u8; 32] {
    let mut state = seed ^ index.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    let mut out = [0u8; 32];
    for chunk in out.chunks_exact_mut(8) {
        // splitmix64: consecutive indices give unrelated seeds.
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        chunk.copy_from_slice(&(z ^ (z >> 31)).to_le_bytes());
    }
    out
}

pub(crate) fn runner(seed: u64, index: u64) -> TestRunner {
    let rng = TestRng::from_seed(RngAlgorithm::ChaCha, &case_seed(seed, index));
    TestRunner::new_with_rng(Config::default(), rng)
}

/// The generator features of `features` whose programs both sides can run: those whose device
/// features (the generator's `Feature::device_features`) the backend under test and the oracle
/// both have, subgroups only where the oracle runs the backend's subgroup size (as
/// [`crate::report::reference_for`] sets it), since subgroup results depend on the size, and
/// tiles only where the backend runs the generator's tile shapes (`gen/tiles.rs`) at that one
/// subgroup size too (a per-subgroup block writes one copy of its region per subgroup).
#[must_use]
pub fn drawable(
    features: crate::r#gen::Features,
    reference: &dyn Oracle,
    other: &dyn VyreBackend,
) -> crate::r#gen::Features {
    let caps = other.capabilities();
    let Some((oracle, oracle_size)) = reference.features() else {
        return features.supported_by(vyre_foundation::ir::Features::NONE);
    };
    use vyre_foundation::ir::Features as F;
    let one_size =
        caps.subgroup_sizes[0] == caps.subgroup_sizes[1] && caps.subgroup_sizes[0] == oracle_size;
    let generated_tiles = crate::r#gen::tiles::shapes()
        .iter()
        .all(|shape| caps.matrix_tiles.contains(shape));
    let mut both = F::NONE;
    for feature in [F::SUBGROUPS, F::F16, F::INT64, F::INT64_ATOMICS, F::TILES] {
        let ok = if feature == F::SUBGROUPS {
            one_size
        } else if feature == F::TILES {
            one_size && generated_tiles
        } else {
            true
        };
        if caps.features().contains(feature) && oracle.contains(feature) && ok {
            both |= feature;
        }
    }
    features.supported_by(both)
}

/// The case `index` of `seed` under `config`, as [`run`](crate::fuzz::run) generates it.
#[must_use]
pub fn generate(config: &GenConfig, seed: u64, index: u64) -> Option<(Recipe, GeneratedCase)> {
    let tree = recipe(config).new_tree(&mut runner(seed, index)).ok()?;
    let r = tree.current();
    let case = decode(&r, config);
    Some((r, case))
}

/// `config` without the generator features whose device features `backend` lacks (`f16`, 64-bit
/// integers, 64-bit atomics): programs that use them would only be refused.
#[must_use]
pub fn config_for(config: &GenConfig, backend: &dyn VyreBackend) -> GenConfig {
    let device = backend.capabilities().features();
    let features = config.features.supported_by(device);
    config.clone().with_features(features)
}
