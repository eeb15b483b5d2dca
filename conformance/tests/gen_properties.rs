//! Properties of the generators: recipes always decode to valid programs, decoding is deterministic,
//! and the validator never panics on raw programs.

use proptest::prelude::*;
use proptest::strategy::ValueTree;
use vyre_conformance::r#gen::{Feature, Features, GenConfig, case, decode, raw_program, recipe};

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: 400,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn comparable_recipes_decode_to_valid_programs(recipe in recipe(&GenConfig::differential())) {
        let case = decode(&recipe, &GenConfig::differential());
        if let Err(errors) = vyre_foundation::validate(&case.program) {
            panic!("invalid generated program:\n{}\n{errors}", case.program);
        }
        prop_assert_eq!(case.inputs.len(), case.program.input_buffers().count());
    }

    #[test]
    fn valid_only_recipes_decode_to_valid_programs(recipe in recipe(&GenConfig::valid_only())) {
        let case = decode(&recipe, &GenConfig::valid_only());
        if let Err(errors) = vyre_foundation::validate(&case.program) {
            panic!("invalid generated program:\n{}\n{errors}", case.program);
        }
    }

    #[test]
    fn decoding_is_deterministic(recipe in recipe(&GenConfig::differential())) {
        let config = GenConfig::differential();
        prop_assert_eq!(decode(&recipe, &config), decode(&recipe, &config));
    }

    #[test]
    fn validate_never_panics_on_raw_programs(program in raw_program()) {
        // Either answer is fine; what is checked is that it returns, and that a rejection explains
        // itself with a fix.
        if let Err(errors) = vyre_foundation::validate(&program) {
            prop_assert!(!errors.errors.is_empty());
            prop_assert!(errors.to_string().contains("Fix:"));
        }
    }
}

#[test]
fn every_feature_is_used_by_some_generated_program() {
    // Guards against a generator that silently stops producing a construct: over a fixed set of
    // recipes with every feature on, each kind of node and several expression kinds must appear.
    let config = GenConfig::differential().with_swarm(false);
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let strategy = case(&config);
    let mut seen = std::collections::BTreeSet::new();
    for _ in 0..300 {
        let case = strategy
            .new_tree(&mut runner)
            .map(|t| t.current())
            .unwrap_or_else(|e| panic!("strategy failed: {e}"));
        let text = case.program.to_string();
        for needle in [
            "if (", "for ", "barrier", "atomic_", "return", "wg", "acc", "select", "fma",
        ] {
            if text.contains(needle) {
                seen.insert(needle);
            }
        }
    }
    assert_eq!(seen.len(), 9, "constructs seen: {seen:?}");
}

#[test]
fn no_features_still_gives_valid_programs() {
    let config = GenConfig::differential().with_features(Features::none());
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    for _ in 0..50 {
        let case = case(&config)
            .new_tree(&mut runner)
            .map(|t| t.current())
            .unwrap_or_else(|e| panic!("strategy failed: {e}"));
        assert!(
            vyre_foundation::validate(&case.program).is_ok(),
            "{}",
            case.program
        );
        assert!(!case.program.to_string().contains("atomic"));
    }
    assert!(!Features::none().has(Feature::Atomics));
}
