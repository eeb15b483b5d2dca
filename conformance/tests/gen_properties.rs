//! Properties of the generators: recipes always decode to valid programs, decoding is deterministic,
//! and the validator never panics on raw programs.

use proptest::prelude::*;
use proptest::strategy::ValueTree;
use vyre_conformance::r#gen::{
    Feature, Features, GenConfig, case, decode, keeps_float_rules, raw_program, recipe,
};
use vyre_foundation::ir::{BufferDecl, DataType, Expr, Node, Program};

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
        match vyre_foundation::validate(&case.program) {
            Err(errors) => panic!("invalid generated program:\n{}\n{errors}", case.program),
            // The reducer keeps only candidates that follow these rules, so every generated program
            // must follow them.
            Ok(v) => prop_assert!(keeps_float_rules(&v), "breaks the float rules:\n{}", case.program),
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
            "if (",
            "for ",
            "barrier",
            "atomic_",
            "return",
            "wg",
            "acc",
            "select",
            "fma",
            "f16",
            "u64",
            "i64",
            "h)",
            "var arr",
            "tile_multiply_add",
        ] {
            if text.contains(needle) {
                seen.insert(needle);
            }
        }
        let atomic_64 = case
            .program
            .buffers
            .iter()
            .any(|b| b.name.starts_with("acc") && b.element.size_bytes() == 8);
        if atomic_64 && text.contains("atomic_") {
            seen.insert("64-bit atomics");
        }
    }
    assert_eq!(seen.len(), 16, "constructs seen: {seen:?}");
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

/// `out[gid] = f32(x) + 1.0` with `x` the integer expression given.
fn converting(x: Expr) -> Program {
    Program::wrapped(
        vec![
            BufferDecl::read("input", 0, DataType::I32).with_count(64),
            BufferDecl::output("out", 1, DataType::F32).with_count(64),
        ],
        [64, 1, 1],
        vec![
            Node::let_bind("v", Expr::load("input", Expr::gid_x())),
            Node::store(
                "out",
                Expr::gid_x(),
                Expr::add(Expr::cast(DataType::F32, x), Expr::f32(1.0)),
            ),
        ],
    )
}

#[test]
fn float_rules_reject_large_converted_integers_and_unguarded_math() {
    let follows = |p: &Program| keeps_float_rules(&vyre_foundation::validate(p).expect("valid"));
    // What the reducer once produced from a comparable program: `f32(v)` of any i32 is a float whose
    // neighbours may be 128 apart, and backends may reassociate what follows.
    assert!(!follows(&converting(Expr::var("v"))));
    assert!(follows(&converting(Expr::rem(
        Expr::var("v"),
        Expr::i32(17)
    ))));
    assert!(follows(&converting(Expr::i32(-16))));
    assert!(!follows(&converting(Expr::i32(1 << 30))));

    let math = |arg: Expr| {
        Program::wrapped(
            vec![BufferDecl::output("out", 0, DataType::F32).with_count(64)],
            [64, 1, 1],
            vec![
                Node::let_bind("f", Expr::f32(2.5)),
                Node::store("out", Expr::gid_x(), arg),
            ],
        )
    };
    let guarded_sin = Expr::sin(Expr::sub(
        Expr::mul(Expr::fract(Expr::f32(0.75)), Expr::f32(6.0)),
        Expr::f32(3.0),
    ));
    assert!(follows(&math(guarded_sin)));
    assert!(!follows(&math(Expr::sin(Expr::f32(100.0)))));
    // A float variable may hold an inexact value: not inside `fract`.
    assert!(!follows(&math(Expr::fract(Expr::var("f")))));
    assert!(follows(&math(Expr::fract(Expr::f32(2.5)))));
    let unguarded_div = Expr::div(Expr::f32(1.0), Expr::var("f"));
    assert!(!follows(&math(unguarded_div)));
    let guarded_div = Expr::div(
        Expr::f32(1.0),
        Expr::add(Expr::abs(Expr::var("f")), Expr::f32(1.0)),
    );
    assert!(follows(&math(guarded_div)));
}
