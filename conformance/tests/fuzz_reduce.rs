//! The reducer and the regression format on their own: reduction on synthetic predicates, and the
//! JSON (text) form of programs round-tripping every generated and raw program.

use proptest::prelude::*;
use vyre_conformance::fuzz::{self, ProgramJson, Regression};
use vyre_conformance::r#gen::{GenConfig, GeneratedCase, decode, raw_program, recipe};
use vyre_foundation::ir::{BinOp, Expr, Node};

fn has_binary(e: &Expr, op: BinOp) -> bool {
    matches!(e, Expr::Binary { op: o, .. } if *o == op) || e.children().any(|c| has_binary(c, op))
}

fn program_has(case: &GeneratedCase, op: BinOp) -> bool {
    let mut found = false;
    vyre_foundation::for_each_expr(&case.program, |e| {
        found |= matches!(e, Expr::Binary { op: o, .. } if *o == op)
    });
    found
}

/// Nodes other than barriers, which the reducer keeps because they order workgroup memory, and
/// the trip counters of `while` loops, which it keeps while their loop stands.
fn count_nodes(body: &[Node]) -> usize {
    let trip = |name: &str| name.starts_with(vyre_conformance::r#gen::TRIP_PREFIX);
    let own = |n: &Node| {
        usize::from(
            !matches!(n, Node::Barrier)
                && !matches!(n, Node::Let { name, .. } | Node::Assign { name, .. } if trip(name)),
        )
    };
    body.iter()
        .map(|n| own(n) + n.bodies().map(|b| count_nodes(b)).sum::<usize>())
        .sum()
}

/// True when some `let` declares a variable that an assignment (at any depth) writes.
fn declares_an_assigned_variable(body: &[Node]) -> bool {
    fn assigned(body: &[Node], out: &mut Vec<String>) {
        for node in body {
            if let Node::Assign { name, .. } = node {
                out.push(name.clone());
            }
            for inner in node.bodies() {
                assigned(inner, out);
            }
        }
    }
    let mut names = Vec::new();
    assigned(body, &mut names);
    body.iter()
        .any(|n| matches!(n, Node::Let { name, .. } if names.contains(name)))
}

/// True when a loop's variable is read by the index of a store in its body: the reducer never
/// edits such an index (it keeps own-slot stores race-free), so the loop cannot go either.
fn a_kept_index_reads_a_loop_variable(body: &[Node]) -> bool {
    fn reads(e: &Expr, var: &str) -> bool {
        matches!(e, Expr::Var(v) if v == var) || e.children().any(|c| reads(c, var))
    }
    fn stores_read(body: &[Node], var: &str) -> bool {
        body.iter().any(|n| {
            matches!(n, Node::Store { index, .. } if reads(index, var))
                || n.bodies().any(|b| stores_read(b, var))
        })
    }
    body.iter().any(|n| {
        matches!(n, Node::Loop { var, body, .. } if stores_read(body, var))
            || n.bodies().any(|b| a_kept_index_reads_a_loop_variable(b))
    })
}

#[test]
fn reducer_keeps_only_what_the_predicate_needs() {
    // "Fails" when the program multiplies somewhere outside the id lets: the reducer must end with
    // the id lets, one node holding a multiplication, and the barriers it keeps.
    let config = GenConfig::differential().with_swarm(false);
    let mut reduced = 0;
    for i in 0..200 {
        let Some((_, case)) = fuzz::generate(&config, 5, i) else {
            continue;
        };
        let fails = |c: &GeneratedCase| {
            c.program
                .body
                .iter()
                .skip(2)
                .any(|n| n.exprs().any(|e| has_binary(e, BinOp::Mul)))
                || c.program.body.iter().skip(2).any(|n| {
                    n.bodies()
                        .flatten()
                        .any(|m| m.exprs().any(|e| has_binary(e, BinOp::Mul)))
                })
        };
        if !fails(&case) {
            continue;
        }
        let minimal = fuzz::reduce(&case, &mut |c| fails(c), 5000);
        assert!(fails(&minimal), "the reducer lost the failure");
        assert!(vyre_foundation::validate(&minimal.program).is_ok());
        assert!(fuzz::cost(&minimal) <= fuzz::cost(&case));
        // Three nodes, or four when the multiplication is in an assignment, whose variable's
        // `let` must stay, or in a store inside a loop whose index reads the loop's variable (with
        // `EdgeOperands`, a store of a one-trip loop's counter opens the loop).
        let nodes = count_nodes(&minimal.program.body);
        let body = &minimal.program.body;
        let fourth_needed =
            declares_an_assigned_variable(body) || a_kept_index_reads_a_loop_variable(body);
        assert!(
            nodes <= 3 || (nodes == 4 && fourth_needed),
            "{nodes} nodes left:\n{}",
            minimal.program
        );
        assert!(program_has(&minimal, BinOp::Mul));
        reduced += 1;
        if reduced == 10 {
            break;
        }
    }
    assert_eq!(reduced, 10, "too few generated programs multiply");
}

#[test]
fn reducer_returns_the_case_when_nothing_smaller_fails() {
    let (_, case) =
        fuzz::generate(&GenConfig::differential(), 9, 0).unwrap_or_else(|| panic!("no case"));
    let original = case.clone();
    let minimal = fuzz::reduce(&case, &mut |c| *c == original, 1000);
    assert_eq!(minimal, original);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn generated_cases_round_trip_through_regression_json(r in recipe(&GenConfig::differential())) {
        let case = decode(&r, &GenConfig::differential());
        let regression = Regression { note: "round trip".into(), case, recipe: Some(r) };
        let back = Regression::from_json(&regression.to_json());
        prop_assert_eq!(back, Ok(regression));
    }

    #[test]
    fn raw_programs_round_trip_through_program_json(program in raw_program()) {
        let back = ProgramJson::from_program(&program).to_program();
        prop_assert_eq!(back, Ok(program));
    }
}

#[test]
fn malformed_regression_files_are_errors_with_a_fix() {
    for text in ["", "{}", "{\"version\":1}", "[1,2]"] {
        let error = Regression::from_json(text).err().unwrap_or_default();
        assert!(error.contains("Fix:"), "{text:?} gave {error:?}");
    }
}
