//! `f16`, `u64` and `i64` in the IR: literals, the text form, the wire format (version 3 only where
//! a program uses them) and the validator's rules and features.

use vyre_foundation::ir::{
    AtomicOp, BinOp, BufferDecl, DataType, Expr, Features, Literal, Node, Program, UnOp,
    WireErrorKind,
};
use vyre_foundation::validate::{ValidationErrorKind as K, validate};

fn one_store(element: DataType, value: Expr) -> Program {
    Program::new(
        vec![BufferDecl::output("out", 0, element).with_count(4)],
        [1, 1, 1],
        vec![Node::store("out", Expr::u32(0), value)],
    )
}

fn wide_program() -> Program {
    Program::new(
        vec![
            BufferDecl::read("h", 0, DataType::F16),
            BufferDecl::read_write("q", 1, DataType::I64),
            BufferDecl::output("out", 2, DataType::U64).with_count(8),
        ],
        [64, 1, 1],
        vec![
            Node::let_bind("a", Expr::load("h", Expr::gid_x())),
            Node::let_bind(
                "b",
                Expr::binary(BinOp::Add, Expr::var("a"), Expr::f16(0.1)),
            ),
            Node::let_bind(
                "c",
                Expr::binary(BinOp::Shr, Expr::load("q", Expr::gid_x()), Expr::u32(63)),
            ),
            Node::store(
                "out",
                Expr::gid_x(),
                Expr::binary(
                    BinOp::Mul,
                    Expr::cast(DataType::U64, Expr::var("c")),
                    Expr::u64(u64::MAX),
                ),
            ),
            Node::store("q", Expr::u32(0), Expr::i64(i64::MIN)),
            Node::let_bind("d", Expr::cast(DataType::F32, Expr::var("b"))),
            Node::let_bind("e", Expr::f16_bits(0x7e00)),
            Node::let_bind("f", Expr::bitcast(DataType::U64, Expr::i64(-1))),
        ],
    )
}

#[test]
fn literals_have_their_types_and_bits() {
    assert_eq!(Literal::F16(0x3c00).ty(), DataType::F16);
    assert_eq!(Literal::U64(u64::MAX).to_bits(), u64::MAX);
    assert_eq!(Literal::I64(-1).to_bits(), u64::MAX);
    assert_eq!(Literal::I32(-1).to_bits(), 0xffff_ffff);
    assert_eq!(Expr::f16(1.0), Expr::Lit(Literal::F16(0x3c00)));
    assert_eq!(DataType::F16.size_bytes(), 2);
    assert_eq!(DataType::U64.size_bytes(), 8);
    assert_eq!(DataType::I64.size_bytes(), 8);
}

#[test]
fn the_text_form_round_trips_the_new_types() {
    let program = wide_program();
    let text = program.to_string();
    assert!(text.contains("18446744073709551615u64"), "{text}");
    assert!(text.contains("-9223372036854775808i64"), "{text}");
    assert!(text.contains("0.099975586h"), "{text}");
    assert!(text.contains("f16_bits(0x7e00)"), "{text}");
    let back: Program = text.parse().unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(back, program);
}

#[test]
fn the_text_form_rounds_f16_literals_and_refuses_bad_ones() {
    let parse = |lit: &str| {
        format!("program @workgroup_size(1, 1, 1) {{ let x = {lit}; }}").parse::<Program>()
    };
    let Ok(p) = parse("0.1h") else {
        panic!("0.1h does not parse")
    };
    assert!(matches!(
        &p.body[0],
        Node::Let {
            value: Expr::Lit(Literal::F16(0x2e66)),
            ..
        }
    ));
    for bad in ["65520.0h", "-1u64", "18446744073709551616u64", "1.5i64"] {
        let err = parse(bad).err().unwrap_or_else(|| panic!("{bad} parsed"));
        assert!(err.to_string().contains("Fix:"), "{err}");
    }
}

#[test]
fn programs_with_new_types_are_version_3_and_round_trip() {
    let program = wide_program();
    let bytes = program.to_bytes();
    assert_eq!(&bytes[4..6], &[3, 0]);
    assert_eq!(Program::from_bytes(&bytes), Ok(program.clone()));
    // A buffer type alone, a cast alone or a literal alone each need version 3.
    for p in [
        Program::new(
            vec![BufferDecl::read("a", 0, DataType::F16)],
            [1, 1, 1],
            vec![],
        ),
        Program::new(
            vec![],
            [1, 1, 1],
            vec![Node::let_bind("x", Expr::cast(DataType::I64, Expr::u32(1)))],
        ),
        Program::new(vec![], [1, 1, 1], vec![Node::let_bind("x", Expr::u64(7))]),
    ] {
        let bytes = p.to_bytes();
        assert_eq!(&bytes[4..6], &[3, 0], "{p}");
        assert_eq!(Program::from_bytes(&bytes), Ok(p));
    }
}

#[test]
fn older_programs_keep_their_versions() {
    let v1 = one_store(DataType::U32, Expr::u32(1));
    assert_eq!(&v1.to_bytes()[4..6], &[1, 0]);
    let v2 = Program::new(
        vec![],
        [1, 1, 1],
        vec![Node::loop_while(Expr::bool(false), vec![])],
    );
    assert_eq!(&v2.to_bytes()[4..6], &[2, 0]);
}

#[test]
fn version_2_bytes_cannot_hold_the_new_types() {
    let program = Program::new(vec![], [1, 1, 1], vec![Node::let_bind("x", Expr::u64(7))]);
    let mut bytes = program.to_bytes();
    bytes[4] = 2;
    let err = Program::from_bytes(&bytes).expect_err("a version-2 u64 literal");
    assert!(matches!(err.kind(), WireErrorKind::BadTag { .. }), "{err}");
    let typed = Program::new(
        vec![BufferDecl::read("a", 0, DataType::I64)],
        [1, 1, 1],
        vec![],
    );
    let mut bytes = typed.to_bytes();
    bytes[4] = 1;
    let err = Program::from_bytes(&bytes).expect_err("a version-1 i64 buffer");
    assert!(matches!(err.kind(), WireErrorKind::BadTag { .. }), "{err}");
    // And version 3 is not accepted for a program that version 1 holds.
    let mut bytes = one_store(DataType::U32, Expr::u32(1)).to_bytes();
    bytes[4] = 3;
    let err = Program::from_bytes(&bytes).expect_err("a non-minimal version");
    assert!(
        matches!(err.kind(), WireErrorKind::VersionNotMinimal { .. }),
        "{err}"
    );
}

#[test]
fn f16_and_64_bit_literals_keep_every_bit_on_the_wire() {
    for v in [0, 1, 127, 128, u64::MAX, 1 << 63] {
        let p = one_store(DataType::U64, Expr::u64(v));
        assert_eq!(Program::from_bytes(&p.to_bytes()), Ok(p));
    }
    for v in [0, -1, 1, i64::MIN, i64::MAX] {
        let p = one_store(DataType::I64, Expr::i64(v));
        assert_eq!(Program::from_bytes(&p.to_bytes()), Ok(p));
    }
    for bits in [0, 0x8000, 0x7c00, 0x7e01, 0xffff] {
        let p = one_store(DataType::F16, Expr::f16_bits(bits));
        assert_eq!(Program::from_bytes(&p.to_bytes()), Ok(p));
    }
}

#[test]
fn validation_records_the_features_of_the_new_types() {
    let features = |p: &Program| {
        validate(p)
            .map(|v| v.features())
            .unwrap_or_else(|e| panic!("{e}"))
    };
    assert_eq!(
        features(&one_store(DataType::U32, Expr::u32(1))),
        Features::NONE
    );
    assert_eq!(
        features(&one_store(DataType::F16, Expr::f16(1.0))),
        Features::F16
    );
    assert_eq!(
        features(&one_store(DataType::U64, Expr::u64(1))),
        Features::INT64
    );
    // A 64-bit value used only inside an expression is recorded too.
    let inner = one_store(DataType::U32, Expr::cast(DataType::U32, Expr::i64(-5)));
    assert_eq!(features(&inner), Features::INT64);
    let atomic = one_store(
        DataType::I64,
        Expr::atomic(AtomicOp::Add, "out", Expr::u32(0), Expr::i64(1)),
    );
    assert_eq!(features(&atomic), Features::INT64 | Features::INT64_ATOMICS);
    assert_eq!(features(&wide_program()), Features::F16 | Features::INT64);
}

fn kinds(p: &Program) -> Vec<K> {
    match validate(p) {
        Ok(_) => Vec::new(),
        Err(e) => e.kinds().into_iter().cloned().collect(),
    }
}

#[test]
fn the_new_types_follow_the_typing_rules() {
    // Arithmetic, comparisons and shifts by a u32.
    let ok = [
        (
            DataType::F16,
            Expr::binary(BinOp::Div, Expr::f16(1.0), Expr::f16(3.0)),
        ),
        (DataType::F16, Expr::unary(UnOp::Neg, Expr::f16(1.0))),
        (DataType::F16, Expr::unary(UnOp::Floor, Expr::f16(1.5))),
        (DataType::I64, Expr::unary(UnOp::Abs, Expr::i64(-3))),
        (DataType::I64, Expr::unary(UnOp::BitNot, Expr::i64(3))),
        (
            DataType::U64,
            Expr::binary(BinOp::Shl, Expr::u64(1), Expr::u32(63)),
        ),
        (
            DataType::U64,
            Expr::binary(BinOp::Rem, Expr::u64(1), Expr::u64(0)),
        ),
        (DataType::U64, Expr::bitcast(DataType::U64, Expr::i64(-1))),
    ];
    for (ty, e) in ok {
        let p = one_store(ty, e);
        assert!(kinds(&p).is_empty(), "{p}\n{:?}", kinds(&p));
    }
    let bad = [
        (DataType::F16, Expr::unary(UnOp::Sqrt, Expr::f16(2.0))),
        (DataType::U64, Expr::unary(UnOp::Neg, Expr::u64(2))),
        (DataType::U64, Expr::unary(UnOp::Popcount, Expr::u64(2))),
        (
            DataType::U64,
            Expr::binary(BinOp::Shl, Expr::u64(1), Expr::u64(1)),
        ),
        (
            DataType::U64,
            Expr::binary(BinOp::Add, Expr::u64(1), Expr::u32(1)),
        ),
        (DataType::U64, Expr::bitcast(DataType::U64, Expr::u32(1))),
        (DataType::F16, Expr::bitcast(DataType::F16, Expr::f16(1.0))),
        (
            DataType::F16,
            Expr::fma(Expr::f16(1.0), Expr::f16(1.0), Expr::f16(1.0)),
        ),
        (DataType::U32, Expr::load("out", Expr::u64(0))),
    ];
    for (ty, e) in bad {
        let p = one_store(ty, e);
        assert!(!kinds(&p).is_empty(), "{p} validated");
        let text = validate(&p)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(text.contains("Fix:"), "{text}");
    }
}

#[test]
fn uniform_buffers_and_loops_stay_32_bit() {
    let uniform = Program::new(
        vec![BufferDecl::uniform("u", 0, DataType::U64).with_count(2)],
        [1, 1, 1],
        vec![],
    );
    assert!(matches!(
        kinds(&uniform)[..],
        [K::UniformElementType { .. }]
    ));
    let looped = Program::new(
        vec![],
        [1, 1, 1],
        vec![Node::loop_for("i", Expr::u64(0), Expr::u64(3), vec![])],
    );
    assert!(matches!(kinds(&looped)[..], [K::LoopBoundTypes { .. }]));
}
