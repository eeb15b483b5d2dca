//! Fingerprints: equal programs hash equal, every field matters, and the value never drifts.

mod common;

use common::add_one_program;
use vyre_foundation::ir::{BufferAccess, BufferDecl, DataType, Expr, Node, Program};

#[test]
fn the_same_program_built_two_ways_has_the_same_fingerprint() {
    let by_constructors = add_one_program(1);
    let by_hand = Program {
        buffers: vec![
            BufferDecl {
                name: "input".to_string(),
                binding: 0,
                access: BufferAccess::Read,
                element: DataType::U32,
                count: 1,
                output_byte_range: None,
            },
            BufferDecl {
                name: String::from("out"),
                binding: 1,
                access: BufferAccess::Output,
                element: DataType::U32,
                count: 1,
                output_byte_range: Some(0..4),
            },
        ],
        workgroup_size: [64, 1, 1],
        body: vec![
            Node::If {
                cond: Expr::binary(vyre_foundation::ir::BinOp::Lt, Expr::gid_x(), Expr::u32(1)),
                then: vec![Node::Store {
                    buffer: "out".into(),
                    index: Expr::gid_x(),
                    value: Expr::binary(
                        vyre_foundation::ir::BinOp::Add,
                        Expr::load("input", Expr::gid_x()),
                        Expr::u32(1),
                    ),
                }],
                otherwise: vec![],
            },
            Node::Return,
        ],
    };
    assert_eq!(by_constructors, by_hand);
    assert_eq!(by_constructors.fingerprint(), by_hand.fingerprint());
    assert_eq!(
        by_constructors.fingerprint(),
        by_constructors.clone().fingerprint()
    );
}

#[test]
fn the_fingerprint_is_pinned() {
    // Pinned so the cache key cannot drift between runs, processes or releases unnoticed. If this
    // changes on purpose (the IR changed), update the value and say why in the commit.
    assert_eq!(
        add_one_program(1).fingerprint().to_string(),
        PINNED_ADD_ONE,
        "the fingerprint of the seed program changed"
    );
}

const PINNED_ADD_ONE: &str = "ecc9d06821d9cc3e124ad70b056895f5";

/// Every way of changing one field of the seed program.
fn one_field_changes() -> Vec<(&'static str, Program)> {
    let base = add_one_program(1);
    let mut cases: Vec<(&'static str, Program)> = Vec::new();
    let mut with = |name: &'static str, f: &dyn Fn(&mut Program)| {
        let mut p = base.clone();
        f(&mut p);
        cases.push((name, p));
    };
    with("workgroup x", &|p| p.workgroup_size[0] = 32);
    with("workgroup z", &|p| p.workgroup_size[2] = 2);
    with("buffer name", &|p| p.buffers[0].name = "inputs".into());
    with("binding", &|p| p.buffers[0].binding = 2);
    with("access", &|p| p.buffers[0].access = BufferAccess::ReadWrite);
    with("element type", &|p| p.buffers[0].element = DataType::I32);
    with("count", &|p| p.buffers[0].count = 2);
    with("readback range", &|p| {
        p.buffers[1].output_byte_range = Some(0..2)
    });
    with("no readback range", &|p| {
        p.buffers[1].output_byte_range = None
    });
    with("literal", &|p| {
        p.body[0] = Node::if_then(
            Expr::lt(Expr::gid_x(), Expr::u32(2)),
            vec![Node::store(
                "out",
                Expr::gid_x(),
                Expr::add(Expr::load("input", Expr::gid_x()), Expr::u32(1)),
            )],
        )
    });
    with("literal type", &|p| {
        p.body[0] = Node::if_then(
            Expr::lt(Expr::gid_x(), Expr::u32(1)),
            vec![Node::store(
                "out",
                Expr::gid_x(),
                Expr::add(Expr::load("input", Expr::gid_x()), Expr::i32(1)),
            )],
        )
    });
    with("operator", &|p| {
        p.body[0] = Node::if_then(
            Expr::le(Expr::gid_x(), Expr::u32(1)),
            vec![Node::store(
                "out",
                Expr::gid_x(),
                Expr::add(Expr::load("input", Expr::gid_x()), Expr::u32(1)),
            )],
        )
    });
    with("builtin", &|p| {
        p.body[0] = Node::if_then(
            Expr::lt(Expr::gid_y(), Expr::u32(1)),
            vec![Node::store(
                "out",
                Expr::gid_x(),
                Expr::add(Expr::load("input", Expr::gid_x()), Expr::u32(1)),
            )],
        )
    });
    with("node removed", &|p| {
        p.body.pop();
    });
    with("node added", &|p| p.body.push(Node::barrier()));
    with("nodes swapped", &|p| p.body.swap(0, 1));
    with("buffers swapped", &|p| p.buffers.swap(0, 1));
    cases
}

#[test]
fn any_one_field_change_changes_the_fingerprint() {
    let base = add_one_program(1).fingerprint();
    let cases = one_field_changes();
    for (name, program) in &cases {
        assert_ne!(
            program.fingerprint(),
            base,
            "changing the {name} kept the fingerprint"
        );
    }
    for (i, (a, pa)) in cases.iter().enumerate() {
        for (b, pb) in &cases[i + 1..] {
            if pa != pb {
                assert_ne!(pa.fingerprint(), pb.fingerprint(), "{a} and {b} collide");
            }
        }
    }
}

#[test]
fn float_literals_hash_by_bits() {
    let p = |v: f32| Program::wrapped(vec![], [1, 1, 1], vec![Node::let_bind("x", Expr::f32(v))]);
    assert_ne!(p(0.0).fingerprint(), p(-0.0).fingerprint());
    assert_eq!(p(f32::NAN).fingerprint(), p(f32::NAN).fingerprint());
    assert_ne!(p(1.0).fingerprint(), p(1.0 + f32::EPSILON).fingerprint());
}

#[test]
fn names_are_not_confused_by_concatenation() {
    let p = |a: &str, b: &str| {
        Program::wrapped(
            vec![
                BufferDecl::read(a, 0, DataType::U32),
                BufferDecl::read(b, 1, DataType::U32),
            ],
            [1, 1, 1],
            vec![],
        )
    };
    assert_ne!(p("ab", "c").fingerprint(), p("a", "bc").fingerprint());
}
