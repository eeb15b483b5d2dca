//! `gen::Feature::PassShapes` draws every shape it promises, in valid programs that keep the
//! float rules of comparable programs.

use proptest::strategy::{Strategy, ValueTree};
use vyre_conformance::r#gen::{GenConfig, case, keeps_float_rules};
use vyre_foundation::ir::{Expr, Literal, Node};

/// True when `body` holds a counted loop with literal bounds and no trip.
fn zero_trip(node: &Node) -> bool {
    match node {
        Node::Loop {
            from: Expr::Lit(from),
            to: Expr::Lit(to),
            ..
        } => match (from, to) {
            (Literal::U32(a), Literal::U32(b)) => a >= b,
            (Literal::I32(a), Literal::I32(b)) => a >= b,
            _ => false,
        },
        _ => false,
    }
}

#[test]
fn every_pass_shape_is_drawn_in_valid_comparable_programs() {
    let config = GenConfig::passes().with_swarm(false);
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let strategy = case(&config);
    let mut seen = std::collections::BTreeSet::new();
    for _ in 0..400 {
        let case = strategy
            .new_tree(&mut runner)
            .map(|t| t.current())
            .unwrap_or_else(|e| panic!("strategy failed: {e}"));
        let validated = vyre_foundation::validate(&case.program)
            .unwrap_or_else(|e| panic!("{e}\n{}", case.program));
        assert!(keeps_float_rules(&validated), "{}", case.program);
        let text = case.program.to_string();
        for needle in [
            "let sum",
            "let ld",
            "let dead",
            "let inv",
            "/ 0u",
            "/ 4294967295u",
            "<< 32u",
            ">> 33u",
            "-2147483648i",
            " == ",
        ] {
            if text.contains(needle) {
                seen.insert(needle);
            }
        }
        vyre_foundation::for_each_node(&case.program.body, |node| {
            if zero_trip(node) {
                seen.insert("zero-trip loop");
            }
            if let Node::Loop { body, .. } = node {
                if body.iter().any(|n| matches!(n, Node::Barrier)) {
                    seen.insert("barrier in a loop");
                }
                if body
                    .iter()
                    .any(|n| matches!(n, Node::If { then, .. } if then == &[Node::Break]))
                {
                    seen.insert("break on a trip");
                }
            }
            if let Node::Let { name, value } = node
                && name.starts_with("dead")
                && value.has_atomic()
            {
                seen.insert("dead atomic");
            }
        });
    }
    assert_eq!(seen.len(), 14, "shapes seen: {seen:?}");
}
