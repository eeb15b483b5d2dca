//! Fingerprints: equal programs hash equal, every field matters, and the value never drifts.

mod common;

use common::add_one_program;
use vyre_foundation::ir::{AtomicOp, BufferAccess, BufferDecl, DataType, Expr, Node, Program};

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

/// Fixed programs covering every part of the wire format that a fingerprint hashes.
fn pinned_programs() -> Vec<(&'static str, Program)> {
    let with = |body: Vec<Node>| Program::new(vec![], [1, 1, 1], body);
    vec![
        ("add_one(1)", add_one_program(1)),
        ("add_one(1024)", add_one_program(1024)),
        ("empty", with(vec![])),
        (
            "floats",
            with(vec![
                Node::let_bind("z", Expr::f32(-0.0)),
                Node::let_bind(
                    "n",
                    Expr::Lit(vyre_foundation::ir::Literal::F32(0x7fc0_0001)),
                ),
                Node::let_bind(
                    "s",
                    Expr::sqrt(Expr::fma(Expr::var("z"), Expr::f32(1.5), Expr::f32(1e-40))),
                ),
            ]),
        ),
        (
            "reduction",
            Program::new(
                vec![
                    BufferDecl::read("a", 0, DataType::U32).with_count(64),
                    BufferDecl::output("o", 1, DataType::U32).with_count(1),
                    BufferDecl::workgroup("wg", 64, DataType::U32),
                ],
                [64, 1, 1],
                vec![
                    Node::store("wg", Expr::local_x(), Expr::load("a", Expr::gid_x())),
                    Node::barrier(),
                    Node::loop_for(
                        "step",
                        Expr::u32(0),
                        Expr::u32(6),
                        vec![Node::if_then_else(
                            Expr::eq(Expr::local_x(), Expr::u32(0)),
                            vec![Node::block(vec![Node::return_()])],
                            vec![Node::barrier()],
                        )],
                    ),
                ],
            ),
        ),
        (
            "atomics",
            Program::new(
                vec![BufferDecl::read_write("rw", 3, DataType::I32).with_count(4)],
                [8, 2, 1],
                vec![
                    Node::let_bind(
                        "old",
                        Expr::atomic(AtomicOp::Max, "rw", Expr::u32(1), Expr::i32(-5)),
                    ),
                    Node::assign(
                        "old",
                        Expr::atomic_compare_exchange(
                            "rw",
                            Expr::buf_len("rw"),
                            Expr::var("old"),
                            Expr::cast(DataType::I32, Expr::num_workgroups_z()),
                        ),
                    ),
                ],
            ),
        ),
    ]
}

#[test]
fn the_fingerprints_are_pinned() {
    // Pinned so the cache key cannot drift between runs, processes or releases unnoticed. The value
    // is XXH3-128 of the wire bytes, so it changes only with the wire format (WIRE.md): if this
    // fails on purpose, bump WIRE_VERSION, update the values and say why in the commit.
    let got: Vec<String> = pinned_programs()
        .iter()
        .map(|(name, p)| format!("{name}: {}", p.fingerprint()))
        .collect();
    assert_eq!(got, PINNED, "a pinned fingerprint changed");
}

const PINNED: [&str; 6] = [
    "add_one(1): 09133535b09bd150b912481cc51d1ff2",
    "add_one(1024): c8507e5d3e097c9970b26ef08523598e",
    "empty: e8ed370d127fc54993a800a5a59bcbee",
    "floats: 9eaf9520a9ac05d8611c18e75b79556a",
    "reduction: 00073bdd875199313c2474694dade948",
    "atomics: 51dc280bed06479cad0b8e2f3094372b",
];

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

#[test]
fn a_program_too_deep_to_validate_still_has_a_fingerprint() {
    // The fingerprint hashes the iteratively written wire bytes, so it needs no depth check first.
    let mut e = Expr::u32(1);
    for _ in 0..200_000 {
        e = Expr::bit_not(e);
    }
    let deep = Program::new(vec![], [1, 1, 1], vec![Node::let_bind("x", e)]);
    assert_eq!(deep.fingerprint(), deep.fingerprint());
}
