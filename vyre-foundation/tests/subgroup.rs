//! Subgroup operations in the IR: the feature they record, the types and control flow the
//! validator accepts, and their text and wire forms (version 3).

use vyre_foundation::ir::{
    BufferDecl, DataType, Expr, Features, Node, Program, SubgroupOp, WireErrorKind,
};
use vyre_foundation::validate::ValidationErrorKind as K;

fn program(body: Vec<Node>) -> Program {
    Program::new(
        vec![
            BufferDecl::read("input", 0, DataType::U32).with_count(64),
            BufferDecl::output("out", 1, DataType::U32).with_count(64),
        ],
        [64, 1, 1],
        body,
    )
}

fn every_subgroup_expression() -> Program {
    let x = || Expr::load("input", Expr::gid_x());
    let mut body = vec![Node::let_bind("x", x())];
    for op in SubgroupOp::ALL {
        let arg = if *op == SubgroupOp::Ballot {
            Expr::ne(Expr::var("x"), Expr::u32(0))
        } else {
            Expr::var("x")
        };
        body.push(Node::store("out", Expr::gid_x(), Expr::subgroup(*op, arg)));
    }
    body.push(Node::store(
        "out",
        Expr::gid_x(),
        Expr::subgroup_shuffle(Expr::var("x"), Expr::subgroup_size()),
    ));
    body.push(Node::store(
        "out",
        Expr::subgroup_invocation_id(),
        Expr::u32(1),
    ));
    program(body)
}

fn kinds(p: &Program) -> Vec<K> {
    match vyre_foundation::validate(p) {
        Ok(_) => Vec::new(),
        Err(errors) => errors.errors.iter().map(|e| e.kind.clone()).collect(),
    }
}

#[test]
fn subgroup_expressions_validate_and_record_the_subgroups_feature() {
    let p = every_subgroup_expression();
    let validated = vyre_foundation::validate(&p).expect("valid");
    assert_eq!(validated.features(), Features::SUBGROUPS);
    let size_only = program(vec![Node::store(
        "out",
        Expr::gid_x(),
        Expr::subgroup_size(),
    )]);
    let validated = vyre_foundation::validate(&size_only).expect("valid");
    assert_eq!(validated.features(), Features::SUBGROUPS);
}

#[test]
fn subgroup_operand_types_follow_the_operation_class() {
    let f = || Expr::f32(1.0);
    let bad = [
        Expr::subgroup_and(f()),
        Expr::subgroup_add(Expr::bool(true)),
        Expr::subgroup_ballot(Expr::u32(1)),
        Expr::subgroup_broadcast_first(Expr::bool(true)),
    ];
    for e in bad {
        let p = program(vec![Node::let_bind("v", e.clone())]);
        assert!(
            matches!(kinds(&p).as_slice(), [K::SubgroupOperandType { .. }]),
            "{e} should be refused: {:?}",
            kinds(&p)
        );
    }
    let shuffle = program(vec![Node::let_bind(
        "v",
        Expr::subgroup_shuffle(Expr::u32(1), Expr::i32(0)),
    )]);
    assert!(matches!(
        kinds(&shuffle).as_slice(),
        [K::ShuffleOperandTypes { .. }]
    ));
    let ok = program(vec![
        Node::let_bind("a", Expr::subgroup_min(f())),
        Node::let_bind("b", Expr::subgroup_xor(Expr::i32(-1))),
        Node::let_bind("c", Expr::subgroup_shuffle(f(), Expr::u32(3))),
    ]);
    assert_eq!(kinds(&ok), Vec::new());
}

#[test]
fn subgroup_operations_in_non_uniform_control_flow_are_refused() {
    let nonuniform_if = program(vec![Node::if_then(
        Expr::lt(Expr::gid_x(), Expr::u32(3)),
        vec![Node::store(
            "out",
            Expr::gid_x(),
            Expr::subgroup_add(Expr::u32(1)),
        )],
    )]);
    assert!(matches!(
        kinds(&nonuniform_if).as_slice(),
        [K::NonUniformSubgroupOp { .. }]
    ));
    let after_return = program(vec![
        Node::if_then(Expr::lt(Expr::gid_x(), Expr::u32(3)), vec![Node::return_()]),
        Node::store("out", Expr::gid_x(), Expr::subgroup_invocation_id()),
    ]);
    let found = kinds(&after_return);
    assert!(
        matches!(found.as_slice(), [K::NonUniformSubgroupOp { .. }]),
        "{found:?}"
    );
    let in_while_condition = program(vec![Node::loop_while(
        Expr::eq(Expr::subgroup_size(), Expr::u32(0)),
        vec![Node::Break],
    )]);
    assert!(matches!(
        kinds(&in_while_condition).as_slice(),
        [K::NonUniformSubgroupOp { .. }]
    ));
    let error = vyre_foundation::validate(&nonuniform_if).unwrap_err();
    assert!(error.to_string().contains("Fix:"), "{error}");
    // A uniform branch is fine.
    let uniform_if = program(vec![Node::if_then(
        Expr::lt(Expr::workgroup_x(), Expr::u32(3)),
        vec![Node::store(
            "out",
            Expr::gid_x(),
            Expr::subgroup_add(Expr::u32(1)),
        )],
    )]);
    assert_eq!(kinds(&uniform_if), Vec::new());
}

#[test]
fn subgroup_programs_round_trip_through_text_and_wire_version_3() {
    let p = every_subgroup_expression();
    let text = p.to_string();
    assert!(text.contains("subgroup_ballot((x != 0u))"), "{text}");
    assert!(
        text.contains("subgroup_shuffle(x, subgroup_size())"),
        "{text}"
    );
    assert_eq!(text.parse::<Program>().expect("parses"), p);
    let bytes = p.to_bytes();
    assert_eq!(&bytes[4..6], &[3, 0], "subgroup programs are version 3");
    assert_eq!(Program::from_bytes(&bytes).expect("decodes"), p);
    // A variable may still be called `subgroup_size`: the builtin is written as a call.
    let named = program(vec![
        Node::let_bind("subgroup_size", Expr::u32(1)),
        Node::store("out", Expr::var("subgroup_size"), Expr::subgroup_size()),
    ]);
    assert_eq!(named.to_string().parse::<Program>().expect("parses"), named);
}

#[test]
fn programs_without_subgroups_keep_their_version_and_version_2_bytes_cannot_hold_them() {
    let plain = program(vec![Node::store("out", Expr::gid_x(), Expr::u32(1))]);
    assert_eq!(&plain.to_bytes()[4..6], &[1, 0]);
    for e in [Expr::subgroup_size(), Expr::subgroup_add(Expr::u32(1))] {
        let p = program(vec![Node::store("out", Expr::gid_x(), e)]);
        let mut bytes = p.to_bytes();
        bytes[4] = 2;
        let error = Program::from_bytes(&bytes).expect_err("version 2 has no subgroups");
        assert!(
            matches!(error.kind(), WireErrorKind::BadTag { .. }),
            "{error}"
        );
    }
}

#[test]
fn subgroup_operations_need_a_one_dimensional_workgroup() {
    let mut p = program(vec![
        Node::store("out", Expr::gid_x(), Expr::subgroup_add(Expr::u32(1))),
        Node::store("out", Expr::gid_x(), Expr::subgroup_size()),
    ]);
    p.workgroup_size = [8, 8, 1];
    let found = kinds(&p);
    assert_eq!(
        found,
        vec![K::SubgroupWorkgroupShape { size: [8, 8, 1] }],
        "reported once"
    );
    let error = vyre_foundation::validate(&p).unwrap_err();
    assert!(error.to_string().contains("[64, 1, 1]"), "{error}");
}
