//! The wire format: programs round-trip field for field, the bytes are pinned, and malformed bytes
//! are errors that say where and what, never panics.

mod common;

use common::{add_one_program, every_form};
use vyre_foundation::ir::{
    AtomicOp, BinOp, BufferDecl, DataType, Expr, Node, Program, SubgroupOp, UnOp, WIRE_VERSION,
    WireError, WireErrorKind,
};
use vyre_foundation::validate::{MAX_EXPR_DEPTH, MAX_NODE_DEPTH};

fn round_trip(program: &Program) {
    let bytes = program.to_bytes();
    let back = Program::from_bytes(&bytes).unwrap_or_else(|e| panic!("{e}\n{program}"));
    assert_eq!(&back, program);
    assert_eq!(back.to_bytes(), bytes, "re-encoding changed the bytes");
}

#[test]
fn hand_built_programs_round_trip() {
    round_trip(&add_one_program(1));
    round_trip(&add_one_program(1 << 20));
    round_trip(&every_form());
    round_trip(&Program::new(vec![], [0, u32::MAX, 1], vec![]));
    round_trip(&Program::new(
        vec![
            BufferDecl::read("", 0, DataType::U32),
            BufferDecl::read("é \"\n", 1, DataType::F32),
        ],
        [1, 1, 1],
        vec![Node::let_bind("", Expr::var("名前"))],
    ));
}

#[test]
fn the_bytes_of_a_small_program_are_as_wire_md_says() {
    // The worked example of WIRE.md, byte for byte.
    let program = Program::new(
        vec![BufferDecl::read("a", 0, DataType::U32).with_count(1)],
        [64, 1, 1],
        vec![Node::let_bind("x", Expr::u32(300)), Node::return_()],
    );
    let expected: &[u8] = &[
        b'V', b'Y', b'R', b'E', 0x01, 0x00, // magic, version 1
        0x40, 0x01, 0x01, // workgroup size 64, 1, 1
        0x01, // one buffer
        0x01, b'a', 0x00, 0x00, 0x01, 0x01,
        0x00, // "a", binding 0, read, u32, count 1, no range
        0x02, // two statements
        0x00, 0x01, b'x', 0x00, 0x01, 0xac, 0x02, // let "x" = lit u32 300
        0x07, // return
    ];
    assert_eq!(program.to_bytes(), expected);
    round_trip(&program);
}

#[test]
fn equal_programs_give_equal_bytes() {
    let by_constructors = add_one_program(3);
    let by_clone = by_constructors.clone();
    assert_eq!(by_constructors.to_bytes(), by_clone.to_bytes());
    assert_ne!(add_one_program(3).to_bytes(), add_one_program(4).to_bytes());
}

fn error(bytes: &[u8]) -> WireError {
    match Program::from_bytes(bytes) {
        Ok(p) => panic!("{bytes:02x?} decoded to\n{p}"),
        Err(e) => {
            let message = e.to_string();
            assert!(
                message.contains(&format!("at byte {}", e.offset())) && message.contains(" Fix: "),
                "{message}"
            );
            e
        }
    }
}

#[test]
fn malformed_headers_are_errors_at_their_offset() {
    assert_eq!(
        error(b"").kind(),
        WireErrorKind::UnexpectedEnd {
            expected: "the magic `VYRE`"
        }
    );
    assert_eq!(error(b"VY").offset(), 2);
    assert_eq!(error(b"{\"version\": 1}").kind(), WireErrorKind::BadMagic);
    assert_eq!(error(b"VYRE\x01").offset(), 5);
    let newer = (WIRE_VERSION + 1).to_le_bytes();
    let e = error(&[b'V', b'Y', b'R', b'E', newer[0], newer[1]]);
    assert_eq!(
        e.kind(),
        WireErrorKind::UnsupportedVersion {
            found: WIRE_VERSION + 1
        }
    );
    assert!(e.to_string().contains("upgrade"), "{e}");
    assert_eq!(
        error(b"VYRE\x00\x00").kind(),
        WireErrorKind::UnsupportedVersion { found: 0 }
    );
}

/// The seed program's bytes with `f` applied.
fn mutated(f: impl Fn(&mut Vec<u8>)) -> Vec<u8> {
    let mut bytes = add_one_program(1).to_bytes();
    f(&mut bytes);
    bytes
}

#[test]
fn malformed_bodies_are_errors_at_their_offset() {
    let good = add_one_program(1).to_bytes();
    // Every truncation is an error, at or before the cut.
    for cut in 0..good.len() {
        assert!(error(&good[..cut]).offset() <= cut);
    }
    let e = error(&mutated(|b| b.push(0)));
    assert_eq!(
        (e.offset(), e.kind()),
        (good.len(), WireErrorKind::TrailingBytes { count: 1 })
    );
    // Byte 9 is the buffer count: a huge count is refused before anything is allocated for it.
    let e = error(&mutated(|b| {
        b.splice(9..10, [0xff, 0xff, 0xff, 0xff, 0x0f])
            .for_each(drop)
    }));
    assert_eq!(e.offset(), 9);
    assert!(matches!(
        e.kind(),
        WireErrorKind::LengthPastEnd {
            length: 0xffff_ffff,
            ..
        }
    ));
    // An overlong varint (1 written as 0x81 0x00) is refused, so every program has one encoding.
    let e = error(&mutated(|b| b.splice(7..8, [0x81, 0x00]).for_each(drop)));
    assert_eq!(
        e.kind(),
        WireErrorKind::BadVarint {
            expected: "the workgroup size y"
        }
    );
    // A u32 varint past 2^32.
    let e = error(&mutated(|b| {
        b.splice(6..7, [0x80, 0x80, 0x80, 0x80, 0x10])
            .for_each(drop)
    }));
    assert_eq!(
        e.kind(),
        WireErrorKind::BadVarint {
            expected: "the workgroup size x"
        }
    );
    // Byte 11 is the first name's first byte; invalid UTF-8 there.
    let e = error(&mutated(|b| b[11] = 0xff));
    assert_eq!(
        (e.offset(), e.kind()),
        (
            11,
            WireErrorKind::InvalidUtf8 {
                expected: "a buffer name"
            }
        )
    );
    // Byte 17 is the first buffer's access tag.
    let e = error(&mutated(|b| b[17] = 200));
    assert_eq!(
        (e.offset(), e.kind()),
        (
            17,
            WireErrorKind::BadTag {
                expected: "a buffer access tag",
                tag: 200
            }
        )
    );
}

/// `depth` unary operators around a literal: an expression `depth + 1` levels deep.
fn deep_expr(depth: usize) -> Expr {
    let mut e = Expr::u32(1);
    for _ in 0..depth {
        e = Expr::unary(UnOp::BitNot, e);
    }
    e
}

/// A program whose entry body holds a block nested `depth` blocks deep.
fn deep_blocks(depth: usize) -> Program {
    let mut body = vec![Node::return_()];
    for _ in 0..depth {
        body = vec![Node::block(body)];
    }
    Program::new(vec![], [1, 1, 1], body)
}

#[test]
fn nesting_at_the_validators_limits_round_trips_and_past_them_is_an_error() {
    let with_expr = |e: Expr| Program::new(vec![], [1, 1, 1], vec![Node::let_bind("x", e)]);
    round_trip(&with_expr(deep_expr(MAX_EXPR_DEPTH - 1)));
    let e = error(&with_expr(deep_expr(MAX_EXPR_DEPTH)).to_bytes());
    assert!(matches!(
        e.kind(),
        WireErrorKind::TooDeep {
            expected: "expression",
            ..
        }
    ));
    round_trip(&deep_blocks(MAX_NODE_DEPTH));
    let e = error(&deep_blocks(MAX_NODE_DEPTH + 1).to_bytes());
    assert!(matches!(
        e.kind(),
        WireErrorKind::TooDeep {
            expected: "statement",
            ..
        }
    ));
}

#[test]
fn programs_far_too_deep_encode_without_recursion_and_decode_to_an_error() {
    // 200 000 levels would overflow the stack of any recursive walk.
    let deep = Program::new(
        vec![],
        [1, 1, 1],
        vec![Node::let_bind("x", deep_expr(200_000))],
    );
    let e = error(&deep.to_bytes());
    assert!(matches!(e.kind(), WireErrorKind::TooDeep { .. }));
    let e = error(&deep_blocks(200_000).to_bytes());
    assert!(matches!(e.kind(), WireErrorKind::TooDeep { .. }));
    // A hostile input that is nothing but "block, one statement" over and over.
    let mut bytes = Program::new(vec![], [1, 1, 1], vec![]).to_bytes();
    bytes.pop();
    for _ in 0..100_000 {
        bytes.extend_from_slice(&[0x01, 0x05]);
    }
    assert!(matches!(
        error(&bytes).kind(),
        WireErrorKind::TooDeep { .. }
    ));
}

#[test]
fn the_error_is_small() {
    // No larger than the program a successful decode returns, so `Result` costs nothing extra.
    assert!(std::mem::size_of::<WireError>() <= std::mem::size_of::<Program>());
    fn is_error<E: std::error::Error + Send + Sync + 'static>() {}
    is_error::<WireError>();
}

#[test]
fn the_operator_tags_in_wire_md_are_the_code_s() {
    // WIRE.md lists each operator table as "tag name" in tag order; the names are the text-form
    // names without the `atomic_` prefix.
    let root = std::env::var_os("VYRE_REPO").map_or_else(
        || std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(".."),
        std::path::PathBuf::from,
    );
    let spec = std::fs::read_to_string(root.join("WIRE.md")).expect("read WIRE.md");
    let row = |name: &str, names: Vec<&str>| {
        let listed: Vec<String> = names
            .iter()
            .enumerate()
            .map(|(tag, n)| format!("{tag} {}", n.trim_start_matches("atomic_")))
            .collect();
        let expected = format!("| `{name}` | {} |", listed.join(", "));
        assert!(
            spec.lines().any(|l| l == expected),
            "WIRE.md lacks the row\n{expected}"
        );
    };
    // `ALL` is in declaration order, and the tags are dense in that order (tags.rs checks both).
    row("BinOp", BinOp::ALL.iter().map(|o| o.name()).collect());
    row("UnOp", UnOp::ALL.iter().map(|o| o.name()).collect());
    row("AtomicOp", AtomicOp::ALL.iter().map(|o| o.name()).collect());
    row(
        "SubgroupOp",
        SubgroupOp::ALL.iter().map(|o| o.name()).collect(),
    );
}
