//! `break`, `continue`, `loop_while` and atomic statements: where they may stand, how they change
//! the uniformity barriers need, their text form and their wire bytes.

mod common;

use common::with_body;
use vyre_foundation::ir::{AtomicOp, DataType, Expr, Node, Program, WireErrorKind};
use vyre_foundation::validate::{Resolved, ValidationErrorKind as K};

fn errors(body: Vec<Node>) -> Vec<(String, K)> {
    match vyre_foundation::validate(&with_body(body)) {
        Ok(_) => Vec::new(),
        Err(e) => e.errors.into_iter().map(|e| (e.path, e.kind)).collect(),
    }
}

fn accepted(body: Vec<Node>) {
    let found = errors(body);
    assert!(found.is_empty(), "expected no error, got {found:#?}");
}

/// The single error is a barrier in non-uniform control flow at `path`, for `reason`.
fn barrier_refused(body: Vec<Node>, path: &str, reason: &str) {
    let found = errors(body);
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(found[0].0, path);
    match &found[0].1 {
        K::NonUniformBarrier { reason: r } => assert!(r.contains(reason), "{r}"),
        other => panic!("expected a non-uniform barrier, got {other:?}"),
    }
}

fn for4(body: Vec<Node>) -> Node {
    Node::loop_for("i", Expr::u32(0), Expr::u32(4), body)
}

/// A condition that differs between invocations.
fn varying() -> Expr {
    Expr::eq(Expr::gid_x(), Expr::u32(3))
}

#[test]
fn break_and_continue_outside_a_loop_are_rejected_with_a_fix() {
    for (node, word) in [(Node::break_(), "break"), (Node::continue_(), "continue")] {
        let found = errors(vec![Node::if_then(Expr::bool(true), vec![node])]);
        assert_eq!(found.len(), 1, "{found:#?}");
        assert_eq!(found[0].0, "body[0].then[0]");
        assert_eq!(found[0].1, K::ExitOutsideLoop { statement: word });
        assert!(found[0].1.fix().contains("loop_for"));
        let message = vyre_foundation::validate(&with_body(vec![Node::break_()]))
            .expect_err("a top-level break is invalid")
            .to_string();
        assert!(message.contains("Fix: "), "{message}");
    }
}

#[test]
fn break_and_continue_inside_loops_and_their_ifs_are_accepted() {
    accepted(vec![for4(vec![
        Node::if_then(varying(), vec![Node::break_()]),
        Node::block(vec![Node::continue_()]),
    ])]);
    accepted(vec![Node::loop_while(
        Expr::bool(false),
        vec![for4(vec![Node::break_()]), Node::continue_()],
    )]);
}

#[test]
fn while_condition_must_be_bool() {
    let found = errors(vec![Node::loop_while(Expr::u32(1), vec![])]);
    assert_eq!(
        found,
        vec![(
            "body[0].cond".to_owned(),
            K::ConditionNotBool {
                found: DataType::U32
            }
        )]
    );
}

#[test]
fn barrier_after_a_uniform_break_is_accepted() {
    accepted(vec![for4(vec![
        Node::if_then(Expr::eq(Expr::var("i"), Expr::u32(2)), vec![Node::break_()]),
        Node::barrier(),
    ])]);
}

#[test]
fn barrier_after_a_non_uniform_break_in_its_loop_is_refused() {
    barrier_refused(
        vec![for4(vec![
            Node::if_then(varying(), vec![Node::break_()]),
            Node::barrier(),
        ])],
        "body[0].body[1]",
        "`break`",
    );
}

#[test]
fn a_non_uniform_break_makes_later_iterations_non_uniform() {
    // The barrier comes before the break in the body, but the second iteration runs without the
    // invocations that broke.
    barrier_refused(
        vec![for4(vec![
            Node::barrier(),
            Node::if_then(varying(), vec![Node::break_()]),
        ])],
        "body[0].body[0]",
        "`break`",
    );
}

#[test]
fn a_non_uniform_continue_ends_only_the_iteration() {
    // After the continue the iteration is non-uniform ...
    barrier_refused(
        vec![for4(vec![
            Node::if_then(varying(), vec![Node::continue_()]),
            Node::barrier(),
        ])],
        "body[0].body[1]",
        "`continue`",
    );
    // ... but every invocation starts the next one together.
    accepted(vec![for4(vec![
        Node::barrier(),
        Node::if_then(varying(), vec![Node::continue_()]),
    ])]);
}

#[test]
fn a_loop_reconverges_after_a_non_uniform_break() {
    accepted(vec![
        for4(vec![Node::if_then(varying(), vec![Node::break_()])]),
        Node::barrier(),
    ]);
    accepted(vec![
        Node::loop_while(varying(), vec![Node::break_()]),
        Node::barrier(),
    ]);
}

#[test]
fn an_inner_loops_break_does_not_leave_the_outer_loop_non_uniform() {
    accepted(vec![for4(vec![
        Node::loop_for(
            "j",
            Expr::u32(0),
            Expr::u32(4),
            vec![Node::if_then(varying(), vec![Node::break_()])],
        ),
        Node::barrier(),
    ])]);
}

#[test]
fn barrier_in_a_while_with_a_varying_condition_is_refused() {
    barrier_refused(
        vec![Node::loop_while(varying(), vec![Node::barrier()])],
        "body[0].body[0]",
        "`while`",
    );
}

#[test]
fn a_while_condition_that_the_body_makes_varying_is_found() {
    // `n` starts uniform, but the body gives it an invocation's id, so the second evaluation of
    // the condition differs between invocations.
    barrier_refused(
        vec![
            Node::let_bind("n", Expr::u32(0)),
            Node::loop_while(
                Expr::lt(Expr::var("n"), Expr::u32(4)),
                vec![Node::barrier(), Node::assign("n", Expr::gid_x())],
            ),
        ],
        "body[1].body[0]",
        "`while`",
    );
    accepted(vec![
        Node::let_bind("n", Expr::u32(0)),
        Node::loop_while(
            Expr::lt(Expr::var("n"), Expr::u32(4)),
            vec![
                Node::barrier(),
                Node::assign("n", Expr::add(Expr::var("n"), Expr::u32(1))),
            ],
        ),
    ]);
}

#[test]
fn a_variable_counted_before_a_non_uniform_break_is_varying_after_the_loop() {
    barrier_refused(
        vec![
            Node::let_bind("x", Expr::u32(0)),
            for4(vec![
                Node::assign("x", Expr::add(Expr::var("x"), Expr::u32(1))),
                Node::if_then(varying(), vec![Node::break_()]),
            ]),
            Node::if_then(
                Expr::eq(Expr::var("x"), Expr::u32(4)),
                vec![Node::barrier()],
            ),
        ],
        "body[2].then[0]",
        "`if`",
    );
}

#[test]
fn the_evidence_marks_statements_after_a_non_uniform_exit() {
    let program = with_body(vec![for4(vec![
        Node::if_then(varying(), vec![Node::continue_()]),
        Node::store("o", Expr::gid_x(), Expr::u32(1)),
    ])]);
    let evidence = vyre_foundation::validate(&program).expect("valid");
    let Node::Loop { body, .. } = &program.body[0] else {
        panic!("the fixture starts with a loop")
    };
    assert!(evidence.node(&body[0]).expect("facts").uniform_control);
    assert!(!evidence.node(&body[1]).expect("facts").uniform_control);
}

#[test]
fn atomic_statements_are_checked_like_atomic_expressions() {
    let program = with_body(vec![Node::atomic(
        AtomicOp::Add,
        "rw",
        Expr::u32(0),
        Expr::i32(1),
    )]);
    let evidence = vyre_foundation::validate(&program).expect("valid");
    let id = evidence.node_buffer(&program.body[0]).expect("resolved");
    assert_eq!(id.index(), 3);
    assert!(evidence.buffer_uses()[3].atomic);
    assert_eq!(
        evidence.node(&program.body[0]).expect("facts").resolved,
        Resolved::Buffer(id)
    );
    accepted(vec![Node::atomic_compare_exchange(
        "rw",
        Expr::u32(0),
        Expr::i32(1),
        Expr::i32(2),
    )]);
    let cases = [
        (
            Node::atomic(AtomicOp::Add, "a", Expr::u32(0), Expr::u32(1)),
            "body[0]",
        ),
        (
            Node::atomic(AtomicOp::Add, "rw", Expr::u32(0), Expr::u32(1)),
            "body[0].value",
        ),
        (
            Node::atomic(AtomicOp::CompareExchange, "rw", Expr::u32(0), Expr::i32(1)),
            "body[0]",
        ),
        (
            Node::atomic(AtomicOp::Max, "rw", Expr::f32(0.0), Expr::i32(1)),
            "body[0].index",
        ),
    ];
    for (node, path) in cases {
        let found = errors(vec![node.clone()]);
        assert_eq!(found.len(), 1, "{node}: {found:#?}");
        assert_eq!(found[0].0, path, "{node}");
    }
}

fn every_new_statement() -> Program {
    with_body(vec![
        Node::let_bind("n", Expr::u32(0)),
        Node::loop_while(
            Expr::lt(Expr::var("n"), Expr::u32(9)),
            vec![
                Node::assign("n", Expr::add(Expr::var("n"), Expr::u32(1))),
                Node::if_then(
                    Expr::eq(Expr::var("n"), Expr::u32(3)),
                    vec![Node::continue_()],
                ),
                Node::if_then(Expr::eq(Expr::var("n"), Expr::u32(7)), vec![Node::break_()]),
                Node::atomic(AtomicOp::Or, "rw", Expr::var("n"), Expr::i32(1)),
            ],
        ),
        Node::atomic_compare_exchange("rw", Expr::u32(1), Expr::i32(0), Expr::i32(5)),
    ])
}

#[test]
fn the_text_form_reads_the_new_statements_back() {
    let program = every_new_statement();
    let text = program.to_string();
    assert!(text.contains("while (n < 9u) {"), "{text}");
    assert!(
        text.contains("continue;") && text.contains("break;"),
        "{text}"
    );
    assert!(text.contains("atomic_or(rw[n], 1i);"), "{text}");
    assert!(
        text.contains("atomic_compare_exchange(rw[1u], 0i, 5i);"),
        "{text}"
    );
    assert_eq!(text.parse::<Program>(), Ok(program));
    // A variable named like a new keyword prints quoted and reads back.
    let named = with_body(vec![Node::let_bind("while", Expr::u32(1))]);
    assert!(named.to_string().contains("let \"while\""));
    assert_eq!(named.to_string().parse::<Program>(), Ok(named));
    // Only atomics stand as statement calls.
    let bad = "program @workgroup_size(1, 1, 1) { min(a[0u], 1u); }";
    let error = bad.parse::<Program>().expect_err("not a statement");
    assert!(error.to_string().contains("Fix:"), "{error}");
}

#[test]
fn programs_without_the_new_statements_keep_version_1_bytes() {
    let old = common::add_one_program(4);
    assert_eq!(&old.to_bytes()[4..6], &[1, 0]);
    let new = every_new_statement();
    let bytes = new.to_bytes();
    assert_eq!(&bytes[4..6], &[2, 0]);
    assert_eq!(Program::from_bytes(&bytes), Ok(new));
}

#[test]
fn a_new_statement_in_version_1_bytes_is_an_unknown_tag() {
    let program = Program::new(vec![], [1, 1, 1], vec![Node::break_()]);
    let mut bytes = program.to_bytes();
    bytes[4] = 1;
    let error = Program::from_bytes(&bytes).expect_err("version 1 has no break");
    assert_eq!(
        error.kind(),
        WireErrorKind::BadTag {
            expected: "a statement tag",
            tag: 8
        }
    );
    assert_eq!(error.offset(), bytes.len() - 1);
}

#[test]
fn version_2_bytes_of_a_version_1_program_are_not_canonical() {
    let mut bytes = common::add_one_program(4).to_bytes();
    bytes[4] = 2;
    let error = Program::from_bytes(&bytes).expect_err("not minimal");
    assert_eq!(
        error.kind(),
        WireErrorKind::VersionNotMinimal {
            found: 2,
            needed: 1
        }
    );
    assert!(error.to_string().contains("Fix:"));
}

#[test]
fn the_bytes_of_the_new_statements_are_as_wire_md_says() {
    let program = Program::new(
        vec![],
        [1, 1, 1],
        vec![
            Node::loop_while(Expr::bool(true), vec![Node::break_(), Node::continue_()]),
            Node::atomic(AtomicOp::Add, "a", Expr::u32(0), Expr::u32(1)),
        ],
    );
    let expected: &[u8] = &[
        b'V', b'Y', b'R', b'E', 0x02, 0x00, // magic, version 2
        0x01, 0x01, 0x01, // workgroup size
        0x00, // no buffers
        0x02, // two statements
        0x0a, 0x00, 0x00, 0x01, // while, cond = lit bool true
        0x02, 0x08, 0x09, // two statements: break, continue
        0x0b, 0x00, 0x01, b'a', 0x00, // atomic add on "a", no expected
        0x00, 0x01, 0x00, // index = lit u32 0
        0x00, 0x01, 0x01, // value = lit u32 1
    ];
    assert_eq!(program.to_bytes(), expected);
}
