//! The text form reads back: `parse(p.to_string()) == p`, errors give a line, a column and a fix,
//! and hostile text is an error, never a panic or a stack overflow.

mod common;

use common::{add_one_program, every_form, with_body};
use vyre_foundation::ir::{
    BufferDecl, DataType, Expr, Literal, Node, ParseError, ParseErrorKind, Program, UnOp,
};
use vyre_foundation::validate::{MAX_EXPR_DEPTH, MAX_NODE_DEPTH};

fn round_trip(program: &Program) {
    let text = program.to_string();
    match text.parse::<Program>() {
        Ok(back) => assert_eq!(&back, program, "\n{text}"),
        Err(e) => panic!("{e}\n{text}"),
    }
}

#[test]
fn hand_built_programs_read_back() {
    round_trip(&add_one_program(1));
    round_trip(&every_form());
    round_trip(&with_body(vec![]));
    round_trip(&Program::new(vec![], [0, u32::MAX, 1], vec![]));
}

#[test]
fn the_snapshot_texts_read_back_to_programs_that_print_them() {
    let dir = std::env::var_os("VYRE_REPO").map_or_else(
        || std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")),
        |root| std::path::PathBuf::from(root).join("vyre-foundation"),
    );
    let mut read = 0;
    for entry in std::fs::read_dir(dir.join("tests/snapshots")).expect("snapshots") {
        let path = entry.expect("entry").path();
        let text = std::fs::read_to_string(&path).expect("read");
        let program: Program = text
            .parse()
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert_eq!(format!("{program}\n"), text, "{}", path.display());
        read += 1;
    }
    assert!(read >= 4);
}

#[test]
fn names_that_are_not_identifiers_print_quoted_and_read_back() {
    let names = [
        "",
        "9z",
        "let",
        "true",
        "gid",
        "a b",
        "quote\"back\\slash",
        "tab\tnl\ncr\r",
        "\u{1}\u{7f}",
        "名前",
    ];
    for name in names {
        let program = Program::new(
            vec![BufferDecl::read_write(name, 0, DataType::U32).with_count(1)],
            [1, 1, 1],
            vec![
                Node::let_bind(name, Expr::load(name, Expr::buf_len(name))),
                Node::store(name, Expr::var(name), Expr::var(name)),
                Node::loop_for(
                    name,
                    Expr::u32(0),
                    Expr::u32(1),
                    vec![Node::assign(name, Expr::u32(2))],
                ),
            ],
        );
        let text = program.to_string();
        assert!(text.contains('"'), "{name:?} printed bare:\n{text}");
        round_trip(&program);
    }
    // Function names are not keywords: a variable `min` prints bare and is not a call.
    let program = with_body(vec![
        Node::let_bind("min", Expr::u32(1)),
        Node::let_bind("len", Expr::min(Expr::var("min"), Expr::u32(2))),
        Node::let_bind("u32", Expr::var("len")),
    ]);
    assert!(!program.to_string().contains('"'));
    round_trip(&program);
}

#[test]
fn a_negated_literal_is_not_a_negative_literal() {
    let neg = |e: Expr| Expr::unary(UnOp::Neg, e);
    let lets = vec![
        Node::let_bind("a", neg(Expr::i32(1))),
        Node::let_bind("b", Expr::i32(-1)),
        Node::let_bind("c", neg(Expr::i32(-1))),
        Node::let_bind("d", neg(neg(Expr::i32(1)))),
        Node::let_bind("e", neg(Expr::f32(0.0))),
        Node::let_bind("f", Expr::f32(-0.0)),
        Node::let_bind("g", neg(Expr::Lit(Literal::F32(0xffc0_0000)))),
        Node::let_bind("h", Expr::sub(Expr::i32(1), Expr::i32(-1))),
        Node::let_bind("i", neg(Expr::var("b"))),
    ];
    let program = with_body(lets);
    let text = program.to_string();
    assert!(
        text.contains("let a = -(1i);") && text.contains("let b = -1i;"),
        "{text}"
    );
    assert!(text.contains("let i = -b;"), "{text}");
    round_trip(&program);
}

#[test]
fn every_float_reads_back_to_its_bits() {
    let bits = [
        0u32,
        0x8000_0000,
        1,
        0x8000_0001,
        0x007f_ffff,
        0x0080_0000,
        0x3f80_0000,
        0x3f80_0001,
        0x7f7f_ffff,
        0xff7f_ffff,
        0x7f80_0000,
        0xff80_0000,
        0x7fc0_0000,
        0xffc0_0001,
        0x4b80_0000,
        0x5f00_0000,
        0x3eaa_aaab,
    ];
    let lets = bits
        .iter()
        .enumerate()
        .map(|(i, b)| Node::let_bind(format!("v{i}"), Expr::Lit(Literal::F32(*b))))
        .collect();
    round_trip(&with_body(lets));
}

#[test]
fn a_workgroup_buffer_keeps_a_binding_it_does_not_use() {
    let mut shared = BufferDecl::workgroup("wg", 4, DataType::U32);
    let plain = Program::new(vec![shared.clone()], [1, 1, 1], vec![]);
    assert!(!plain.to_string().contains("@binding"));
    round_trip(&plain);
    shared.binding = 3;
    let bound = Program::new(vec![shared], [1, 1, 1], vec![]);
    assert!(bound.to_string().contains("@binding(3)"));
    round_trip(&bound);
}

fn error(text: &str) -> ParseError {
    match text.parse::<Program>() {
        Ok(p) => panic!("{text:?} parsed to\n{p}"),
        Err(e) => {
            let message = e.to_string();
            let at = format!("line {}, column {}: ", e.line(), e.column());
            assert!(
                message.starts_with(&at) && message.contains(" Fix: "),
                "{message}"
            );
            e
        }
    }
}

fn at(e: &ParseError) -> (usize, usize) {
    (e.line(), e.column())
}

#[test]
fn errors_name_the_line_and_column() {
    let e = error("");
    assert_eq!(at(&e), (1, 1));
    assert!(
        e.to_string()
            .contains("expected `program`, found the end of the text"),
        "{e}"
    );
    let e = error("program @workgroup_size(1, 1, 1) {\n  let x = 1u\n}");
    assert_eq!(at(&e), (3, 1));
    assert!(matches!(
        e.kind(),
        ParseErrorKind::Expected {
            expected: "`;`",
            ..
        }
    ));
    let e = error("program @workgroup_size(1, 1, 1) {\n  let x = 4294967296u;\n}");
    assert_eq!(at(&e), (2, 11));
    assert!(matches!(
        e.kind(),
        ParseErrorKind::InvalidNumber {
            reason: "does not fit a u32",
            ..
        }
    ));
    let e = error("program @workgroup_size(1, 1, 1) {\n  let if = 1u;\n}");
    assert_eq!(at(&e), (2, 7));
    assert!(matches!(e.kind(), ParseErrorKind::Keyword { .. }));
    let e = error("program @workgroup_size(1, 1, 1) {\n  buffer a: read u32[];\n}");
    assert_eq!(at(&e), (2, 23));
    let e = error("program @workgroup_size(1, 1, 1) {\n  let x = (1u # 2u);\n}");
    assert_eq!(
        (at(&e), e.kind()),
        ((2, 15), &ParseErrorKind::UnexpectedCharacter { found: '#' })
    );
    let e = error("program @workgroup_size(1, 1, 1) {\n  let x = \"open;\n}");
    assert_eq!(at(&e), (2, 11));
    let e = error("program @workgroup_size(1, 1, 1) {\n  let é = 1.5;\n}");
    assert_eq!(at(&e), (2, 7));
    let e = error("program @workgroup_size(1, 1, 1) {\n  let x = 1.5;\n}");
    assert!(matches!(e.kind(), ParseErrorKind::InvalidNumber { .. }));
    let e = error("program @workgroup_size(1, 1, 1) {\n}\n}");
    assert_eq!(at(&e), (3, 1));
    let e = error("program @workgroup_size(1, 1, 1) {\n  let x = wobble(1u);\n}");
    assert_eq!(at(&e), (2, 11));
}

#[test]
fn nesting_at_the_validators_limits_reads_back_and_past_them_is_an_error() {
    let deep_expr = |depth: usize| {
        let mut e = Expr::u32(1);
        for _ in 0..depth {
            e = Expr::bit_not(e);
        }
        Program::new(vec![], [1, 1, 1], vec![Node::let_bind("x", e)])
    };
    let deep_blocks = |depth: usize| {
        let mut body = vec![Node::return_()];
        for _ in 0..depth {
            body = vec![Node::block(body)];
        }
        Program::new(vec![], [1, 1, 1], body)
    };
    round_trip(&deep_expr(MAX_EXPR_DEPTH - 1));
    round_trip(&deep_blocks(MAX_NODE_DEPTH));
    // The negation of a literal at the deepest level keeps the literal's depth.
    let mut e = Expr::unary(UnOp::Neg, Expr::i32(1));
    for _ in 0..MAX_EXPR_DEPTH - 2 {
        e = Expr::bit_not(e);
    }
    round_trip(&Program::new(
        vec![],
        [1, 1, 1],
        vec![Node::let_bind("x", e)],
    ));
    let e = error(&deep_expr(MAX_EXPR_DEPTH).to_string());
    assert!(matches!(
        e.kind(),
        ParseErrorKind::TooDeep {
            what: "expression",
            ..
        }
    ));
    let e = error(&deep_blocks(MAX_NODE_DEPTH + 1).to_string());
    assert!(matches!(
        e.kind(),
        ParseErrorKind::TooDeep {
            what: "statement",
            ..
        }
    ));
}

#[test]
fn hostile_nesting_is_an_error_not_a_stack_overflow() {
    let head = "program @workgroup_size(1, 1, 1) {\n  let x = ";
    for opener in [
        "(",
        "-",
        "~",
        "!",
        "abs(",
        "a[",
        "select(",
        "-(",
        "bitcast<u32>(",
    ] {
        let text = format!("{head}{}", opener.repeat(200_000));
        let e = error(&text);
        assert!(
            matches!(e.kind(), ParseErrorKind::TooDeep { .. }),
            "{opener}: {e}"
        );
    }
    let text = format!(
        "program @workgroup_size(1, 1, 1) {{\n{}",
        "{".repeat(200_000)
    );
    assert!(matches!(
        error(&text).kind(),
        ParseErrorKind::TooDeep { .. }
    ));
    let text = format!(
        "program @workgroup_size(1, 1, 1) {{\n{}",
        "if true {".repeat(100_000)
    );
    assert!(matches!(
        error(&text).kind(),
        ParseErrorKind::TooDeep { .. }
    ));
}
