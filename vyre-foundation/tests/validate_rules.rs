//! One test per validator rule, each asserting the exact error (kind and path).

mod common;

use common::{add_one_program, with_body};
use vyre_foundation::ir::{
    AtomicOp, BinOp, BufferAccess, BufferDecl, DataType, Expr, Literal, Node, Program, UnOp,
};
use vyre_foundation::validate::{MAX_EXPR_DEPTH, MAX_NODE_DEPTH, ValidationErrorKind as K};

/// `vyre_foundation::validate` without its evidence, so results compare with `Ok(())`.
fn validate(program: &Program) -> Result<(), vyre_foundation::validate::ValidationErrors> {
    vyre_foundation::validate(program).map(drop)
}

/// The single error of an invalid program, as (path, kind).
fn only_error(program: &Program) -> (String, K) {
    let errors = validate(program)
        .expect_err("the program must be rejected")
        .errors;
    assert_eq!(
        errors.len(),
        1,
        "expected exactly one error, got {errors:#?}"
    );
    (errors[0].path.clone(), errors[0].kind.clone())
}

fn body_error(body: Vec<Node>) -> (String, K) {
    only_error(&with_body(body))
}

fn store_o(value: Expr) -> Node {
    Node::store("o", Expr::gid_x(), value)
}

#[test]
fn seed_add_one_program_is_valid() {
    assert_eq!(validate(&add_one_program(1)), Ok(()));
    assert_eq!(validate(&add_one_program(4096)), Ok(()));
}

#[test]
fn standard_fixture_with_every_feature_is_valid() {
    let body = vec![
        Node::let_bind("x", Expr::load("a", Expr::gid_x())),
        Node::assign(
            "x",
            Expr::add(Expr::var("x"), Expr::load("u", Expr::u32(0))),
        ),
        Node::store("wg", Expr::local_x(), Expr::var("x")),
        Node::barrier(),
        Node::loop_for(
            "i",
            Expr::u32(0),
            Expr::u32(4),
            vec![Node::store(
                "o",
                Expr::var("i"),
                Expr::load("wg", Expr::var("i")),
            )],
        ),
        Node::let_bind("old", Expr::atomic_add("rw", Expr::u32(0), Expr::i32(1))),
        Node::let_bind(
            "swap",
            Expr::atomic_compare_exchange("rw", Expr::u32(1), Expr::i32(0), Expr::var("old")),
        ),
        Node::if_then_else(
            Expr::gt(Expr::var("swap"), Expr::i32(0)),
            vec![Node::return_()],
            vec![Node::block(vec![store_o(Expr::cast(
                DataType::U32,
                Expr::var("swap"),
            ))])],
        ),
    ];
    assert_eq!(validate(&with_body(body)), Ok(()));
}

#[test]
fn workgroup_size_zero_is_rejected() {
    let mut p = add_one_program(1);
    p.workgroup_size = [64, 0, 1];
    assert_eq!(
        only_error(&p),
        (
            "workgroup_size".into(),
            K::WorkgroupSizeZero { size: [64, 0, 1] }
        )
    );
}

#[test]
fn workgroup_above_1024_invocations_is_rejected() {
    let mut p = add_one_program(1);
    p.workgroup_size = [32, 32, 2];
    assert_eq!(
        only_error(&p),
        (
            "workgroup_size".into(),
            K::WorkgroupTooLarge { invocations: 2048 }
        )
    );
}

#[test]
fn workgroup_of_2_pow_32_invocations_is_too_large_not_wrapped_to_zero() {
    // In u32 arithmetic each of these products wraps to a small number (0, 0, 1).
    let u32_max = u64::from(u32::MAX);
    for (size, invocations) in [
        ([1 << 16, 1 << 16, 1], 1u64 << 32),
        ([1 << 16, 1 << 16, 2], 1 << 33),
        ([u32::MAX, u32::MAX, 1], u32_max * u32_max),
    ] {
        let mut p = add_one_program(1);
        p.workgroup_size = size;
        assert_eq!(
            only_error(&p),
            (
                "workgroup_size".into(),
                K::WorkgroupTooLarge { invocations }
            ),
            "{size:?}"
        );
    }
}

#[test]
fn workgroup_just_below_2_pow_64_invocations_is_too_large() {
    let mut p = add_one_program(1);
    p.workgroup_size = [1 << 22, 1 << 21, (1 << 21) - 1];
    assert_eq!(
        only_error(&p),
        (
            "workgroup_size".into(),
            K::WorkgroupTooLarge {
                invocations: u64::MAX - (1 << 43) + 1
            }
        )
    );
}

#[test]
fn workgroup_of_2_pow_64_invocations_or_more_is_an_overflow_not_wrapped_to_zero() {
    // `[1 << 22, 1 << 21, 1 << 21]` is exactly 2^64 invocations, which a u64 product wraps to 0 in
    // release builds (and panics on in debug builds).
    for size in [
        [1 << 22, 1 << 21, 1 << 21],
        [u32::MAX, u32::MAX, 2],
        [u32::MAX; 3],
    ] {
        let mut p = add_one_program(1);
        p.workgroup_size = size;
        assert_eq!(
            only_error(&p),
            (
                "workgroup_size".into(),
                K::WorkgroupInvocationsOverflow { size }
            ),
            "{size:?}"
        );
        let error = validate(&p).expect_err("rejected").to_string();
        assert!(error.contains("2^64") && error.contains("Fix:"), "{error}");
    }
}

#[test]
fn workgroup_of_exactly_1024_invocations_is_accepted() {
    let mut p = add_one_program(1);
    p.workgroup_size = [16, 16, 4];
    assert_eq!(validate(&p), Ok(()));
}

#[test]
fn duplicate_buffer_name_is_rejected() {
    let mut p = add_one_program(1);
    p.buffers
        .push(BufferDecl::read("input", 7, DataType::U32).with_count(1));
    assert_eq!(
        only_error(&p),
        (
            "buffers[2]".into(),
            K::DuplicateBufferName {
                name: "input".into()
            }
        )
    );
}

#[test]
fn duplicate_binding_is_rejected() {
    let mut p = add_one_program(1);
    p.buffers
        .push(BufferDecl::read("other", 1, DataType::U32).with_count(1));
    assert_eq!(
        only_error(&p),
        (
            "buffers[2]".into(),
            K::DuplicateBinding {
                binding: 1,
                first: "out".into(),
                second: "other".into()
            }
        )
    );
}

#[test]
fn workgroup_buffers_do_not_take_bindings() {
    let mut p = add_one_program(1);
    p.buffers
        .push(BufferDecl::workgroup("s1", 8, DataType::U32));
    p.buffers
        .push(BufferDecl::workgroup("s2", 8, DataType::U32));
    assert_eq!(validate(&p), Ok(()));
}

#[test]
fn invalid_buffer_name_is_rejected() {
    let mut p = add_one_program(1);
    p.buffers
        .push(BufferDecl::read("9lives", 5, DataType::U32).with_count(1));
    assert_eq!(
        only_error(&p),
        (
            "buffers[2]".into(),
            K::InvalidName {
                name: "9lives".into()
            }
        )
    );
}

#[test]
fn empty_variable_name_is_rejected() {
    let (path, kind) = body_error(vec![Node::let_bind("", Expr::u32(0))]);
    assert_eq!(
        (path.as_str(), kind),
        (
            "body[0]",
            K::InvalidName {
                name: String::new()
            }
        )
    );
}

#[test]
fn output_without_count_is_rejected() {
    let p = Program::wrapped(
        vec![BufferDecl::output("o", 0, DataType::U32)],
        [1, 1, 1],
        vec![],
    );
    assert_eq!(
        only_error(&p),
        (
            "buffers[0]".into(),
            K::MissingCount {
                buffer: "o".into(),
                access: BufferAccess::Output
            }
        )
    );
}

#[test]
fn uniform_without_count_is_rejected() {
    let p = Program::wrapped(
        vec![BufferDecl::uniform("u", 0, DataType::U32)],
        [1, 1, 1],
        vec![],
    );
    assert_eq!(
        only_error(&p).1,
        K::MissingCount {
            buffer: "u".into(),
            access: BufferAccess::Uniform
        }
    );
}

#[test]
fn workgroup_buffer_without_count_is_rejected() {
    let p = Program::wrapped(
        vec![BufferDecl::workgroup("w", 0, DataType::U32)],
        [1, 1, 1],
        vec![],
    );
    assert_eq!(
        only_error(&p).1,
        K::MissingCount {
            buffer: "w".into(),
            access: BufferAccess::Workgroup
        }
    );
}

#[test]
fn runtime_sized_read_buffer_is_accepted() {
    let p = Program::wrapped(
        vec![BufferDecl::read("r", 0, DataType::U32)],
        [1, 1, 1],
        vec![],
    );
    assert_eq!(validate(&p), Ok(()));
}

#[test]
fn readback_range_on_non_output_is_rejected() {
    let p = Program::wrapped(
        vec![
            BufferDecl::read("r", 0, DataType::U32)
                .with_count(4)
                .with_output_byte_range(0..4),
        ],
        [1, 1, 1],
        vec![],
    );
    assert_eq!(
        only_error(&p),
        (
            "buffers[0]".into(),
            K::ReadbackRangeOnNonOutput { buffer: "r".into() }
        )
    );
}

#[test]
fn readback_range_past_the_buffer_is_rejected() {
    let p = Program::wrapped(
        vec![
            BufferDecl::output("o", 0, DataType::U32)
                .with_count(4)
                .with_output_byte_range(4..20),
        ],
        [1, 1, 1],
        vec![],
    );
    assert_eq!(
        only_error(&p).1,
        K::ReadbackRangeOutOfBounds {
            buffer: "o".into(),
            range: 4..20,
            buffer_bytes: 16
        }
    );
}

/// An output of `count` u32 elements whose host readback is `range`.
fn output_with_range(count: u32, range: std::ops::Range<usize>) -> Program {
    Program::wrapped(
        vec![
            BufferDecl::output("o", 0, DataType::U32)
                .with_count(count)
                .with_output_byte_range(range),
        ],
        [1, 1, 1],
        vec![],
    )
}

#[test]
fn readback_range_ending_at_a_buffer_past_2_pow_32_bytes_is_accepted() {
    // 2^30 words are exactly 2^32 bytes, and u32::MAX words 2^34 - 4: ends a u32 cannot hold.
    let largest = usize::try_from(u64::from(u32::MAX) * 4).expect("64-bit host");
    for (count, range) in [
        (1 << 30, (1 << 32) - 4..1 << 32),
        (u32::MAX, largest - 4..largest),
        (u32::MAX, 0..largest),
    ] {
        assert_eq!(
            validate(&output_with_range(count, range.clone())),
            Ok(()),
            "{range:?}"
        );
    }
}

#[test]
fn readback_range_one_byte_past_a_buffer_beyond_2_pow_32_bytes_is_rejected() {
    let largest = usize::try_from(u64::from(u32::MAX) * 4).expect("64-bit host");
    for (count, range, buffer_bytes) in [
        (1 << 30, 0..(1 << 32) + 1, 1u64 << 32),
        (u32::MAX, largest - 4..largest + 1, u64::from(u32::MAX) * 4),
        (u32::MAX, 0..usize::MAX, u64::from(u32::MAX) * 4),
        (4, usize::MAX - 1..usize::MAX, 16),
    ] {
        assert_eq!(
            only_error(&output_with_range(count, range.clone())).1,
            K::ReadbackRangeOutOfBounds {
                buffer: "o".into(),
                range,
                buffer_bytes
            }
        );
    }
}

#[test]
#[allow(clippy::reversed_empty_ranges)]
fn reversed_readback_range_is_rejected() {
    let p = Program::wrapped(
        vec![
            BufferDecl::output("o", 0, DataType::U32)
                .with_count(4)
                .with_output_byte_range(8..4),
        ],
        [1, 1, 1],
        vec![],
    );
    assert!(matches!(
        only_error(&p).1,
        K::ReadbackRangeOutOfBounds { .. }
    ));
}

#[test]
fn load_from_unknown_buffer_is_rejected() {
    let (path, kind) = body_error(vec![store_o(Expr::load("nope", Expr::u32(0)))]);
    assert_eq!(
        (path.as_str(), kind),
        (
            "body[0].value",
            K::UnknownBuffer {
                name: "nope".into()
            }
        )
    );
}

#[test]
fn store_to_unknown_buffer_is_rejected() {
    let (path, kind) = body_error(vec![Node::store("nope", Expr::u32(0), Expr::u32(1))]);
    assert_eq!(
        (path.as_str(), kind),
        (
            "body[0]",
            K::UnknownBuffer {
                name: "nope".into()
            }
        )
    );
}

#[test]
fn buf_len_of_unknown_buffer_is_rejected() {
    let (_, kind) = body_error(vec![store_o(Expr::buf_len("nope"))]);
    assert_eq!(
        kind,
        K::UnknownBuffer {
            name: "nope".into()
        }
    );
}

#[test]
fn unknown_variable_is_rejected() {
    let (path, kind) = body_error(vec![store_o(Expr::add(Expr::u32(1), Expr::var("ghost")))]);
    assert_eq!(
        (path.as_str(), kind),
        (
            "body[0].value.rhs",
            K::UnknownVariable {
                name: "ghost".into()
            }
        )
    );
}

#[test]
fn variable_is_not_visible_after_its_block() {
    let (path, kind) = body_error(vec![
        Node::block(vec![Node::let_bind("x", Expr::u32(1))]),
        store_o(Expr::var("x")),
    ]);
    assert_eq!(
        (path.as_str(), kind),
        ("body[1].value", K::UnknownVariable { name: "x".into() })
    );
}

#[test]
fn assign_to_unknown_variable_is_rejected() {
    let (_, kind) = body_error(vec![Node::assign("ghost", Expr::u32(1))]);
    assert_eq!(
        kind,
        K::UnknownVariable {
            name: "ghost".into()
        }
    );
}

#[test]
fn redeclaring_a_variable_in_scope_is_rejected() {
    let (path, kind) = body_error(vec![
        Node::let_bind("x", Expr::u32(1)),
        Node::if_then(Expr::bool(true), vec![Node::let_bind("x", Expr::u32(2))]),
    ]);
    assert_eq!(
        (path.as_str(), kind),
        (
            "body[1].then[0]",
            K::VariableRedeclared { name: "x".into() }
        )
    );
}

#[test]
fn sibling_scopes_may_reuse_a_name() {
    let body = vec![
        Node::block(vec![Node::let_bind("x", Expr::u32(1))]),
        Node::block(vec![Node::let_bind("x", Expr::f32(1.0))]),
    ];
    assert_eq!(validate(&with_body(body)), Ok(()));
}

#[test]
fn loop_variable_shadowing_is_rejected() {
    let (_, kind) = body_error(vec![
        Node::let_bind("i", Expr::u32(1)),
        Node::loop_for("i", Expr::u32(0), Expr::u32(2), vec![]),
    ]);
    assert_eq!(kind, K::VariableRedeclared { name: "i".into() });
}

#[test]
fn assign_to_loop_variable_is_rejected() {
    let (path, kind) = body_error(vec![Node::loop_for(
        "i",
        Expr::u32(0),
        Expr::u32(2),
        vec![Node::assign("i", Expr::u32(5))],
    )]);
    assert_eq!(
        (path.as_str(), kind),
        (
            "body[0].body[0]",
            K::AssignToLoopVariable { name: "i".into() }
        )
    );
}

#[test]
fn assign_of_another_type_is_rejected() {
    let (_, kind) = body_error(vec![
        Node::let_bind("x", Expr::u32(1)),
        Node::assign("x", Expr::i32(1)),
    ]);
    assert_eq!(
        kind,
        K::AssignTypeMismatch {
            name: "x".into(),
            expected: DataType::U32,
            found: DataType::I32
        }
    );
}

#[test]
fn add_of_mixed_types_is_rejected() {
    let (path, kind) = body_error(vec![store_o(Expr::add(Expr::u32(1), Expr::i32(1)))]);
    assert_eq!(
        (path.as_str(), kind),
        (
            "body[0].value",
            K::BinaryOperandTypes {
                op: BinOp::Add,
                lhs: DataType::U32,
                rhs: DataType::I32
            }
        )
    );
}

#[test]
fn arithmetic_on_bools_is_rejected() {
    let (_, kind) = body_error(vec![Node::let_bind(
        "b",
        Expr::mul(Expr::bool(true), Expr::bool(false)),
    )]);
    assert_eq!(
        kind,
        K::BinaryOperandTypes {
            op: BinOp::Mul,
            lhs: DataType::Bool,
            rhs: DataType::Bool
        }
    );
}

#[test]
fn bitwise_and_on_floats_is_rejected() {
    let (_, kind) = body_error(vec![Node::let_bind(
        "b",
        Expr::bit_and(Expr::f32(1.0), Expr::f32(2.0)),
    )]);
    assert_eq!(
        kind,
        K::BinaryOperandTypes {
            op: BinOp::BitAnd,
            lhs: DataType::F32,
            rhs: DataType::F32
        }
    );
}

#[test]
fn shift_amount_must_be_u32() {
    let (_, kind) = body_error(vec![Node::let_bind(
        "s",
        Expr::shl(Expr::i32(1), Expr::i32(3)),
    )]);
    assert_eq!(
        kind,
        K::BinaryOperandTypes {
            op: BinOp::Shl,
            lhs: DataType::I32,
            rhs: DataType::I32
        }
    );
}

#[test]
fn ordering_comparison_of_bools_is_rejected() {
    let (_, kind) = body_error(vec![Node::let_bind(
        "c",
        Expr::lt(Expr::bool(true), Expr::bool(false)),
    )]);
    assert_eq!(
        kind,
        K::BinaryOperandTypes {
            op: BinOp::Lt,
            lhs: DataType::Bool,
            rhs: DataType::Bool
        }
    );
}

#[test]
fn logical_and_of_integers_is_rejected() {
    let (_, kind) = body_error(vec![Node::let_bind(
        "c",
        Expr::and(Expr::u32(1), Expr::u32(0)),
    )]);
    assert_eq!(
        kind,
        K::BinaryOperandTypes {
            op: BinOp::And,
            lhs: DataType::U32,
            rhs: DataType::U32
        }
    );
}

#[test]
fn negating_a_u32_is_rejected() {
    let (_, kind) = body_error(vec![store_o(Expr::neg(Expr::u32(1)))]);
    assert_eq!(
        kind,
        K::UnaryOperandType {
            op: UnOp::Neg,
            arg: DataType::U32
        }
    );
}

#[test]
fn float_math_on_integers_is_rejected() {
    let (_, kind) = body_error(vec![store_o(Expr::sqrt(Expr::u32(4)))]);
    assert_eq!(
        kind,
        K::UnaryOperandType {
            op: UnOp::Sqrt,
            arg: DataType::U32
        }
    );
}

#[test]
fn popcount_of_a_float_is_rejected() {
    let (_, kind) = body_error(vec![Node::let_bind("p", Expr::popcount(Expr::f32(1.0)))]);
    assert_eq!(
        kind,
        K::UnaryOperandType {
            op: UnOp::Popcount,
            arg: DataType::F32
        }
    );
}

#[test]
fn logical_not_of_an_integer_is_rejected() {
    let (_, kind) = body_error(vec![Node::let_bind("n", Expr::not(Expr::u32(1)))]);
    assert_eq!(
        kind,
        K::UnaryOperandType {
            op: UnOp::Not,
            arg: DataType::U32
        }
    );
}

#[test]
fn if_condition_must_be_bool() {
    let (path, kind) = body_error(vec![Node::if_then(Expr::u32(1), vec![])]);
    assert_eq!(
        (path.as_str(), kind),
        (
            "body[0].cond",
            K::ConditionNotBool {
                found: DataType::U32
            }
        )
    );
}

#[test]
fn select_condition_must_be_bool() {
    let (path, kind) = body_error(vec![store_o(Expr::select(
        Expr::u32(1),
        Expr::u32(2),
        Expr::u32(3),
    ))]);
    assert_eq!(
        (path.as_str(), kind),
        (
            "body[0].value.cond",
            K::ConditionNotBool {
                found: DataType::U32
            }
        )
    );
}

#[test]
fn select_arms_must_match() {
    let (_, kind) = body_error(vec![store_o(Expr::select(
        Expr::bool(true),
        Expr::u32(2),
        Expr::i32(3),
    ))]);
    assert_eq!(
        kind,
        K::SelectArmsDiffer {
            on_true: DataType::U32,
            on_false: DataType::I32
        }
    );
}

#[test]
fn bitcast_to_bool_is_rejected() {
    let (_, kind) = body_error(vec![Node::let_bind(
        "b",
        Expr::bitcast(DataType::Bool, Expr::u32(1)),
    )]);
    assert_eq!(
        kind,
        K::BitcastType {
            from: DataType::U32,
            to: DataType::Bool
        }
    );
}

#[test]
fn bitcast_from_bool_is_rejected() {
    let (_, kind) = body_error(vec![store_o(Expr::bitcast(
        DataType::U32,
        Expr::bool(true),
    ))]);
    assert_eq!(
        kind,
        K::BitcastType {
            from: DataType::Bool,
            to: DataType::U32
        }
    );
}

#[test]
fn fma_on_integers_is_rejected() {
    let (path, kind) = body_error(vec![Node::let_bind(
        "m",
        Expr::fma(Expr::f32(1.0), Expr::u32(2), Expr::f32(3.0)),
    )]);
    assert_eq!(
        (path.as_str(), kind),
        (
            "body[0].value.b",
            K::FmaOperandType {
                found: DataType::U32
            }
        )
    );
}

#[test]
fn float_index_is_rejected() {
    let (path, kind) = body_error(vec![store_o(Expr::load("a", Expr::f32(0.0)))]);
    assert_eq!(
        (path.as_str(), kind),
        (
            "body[0].value.index",
            K::IndexType {
                buffer: "a".into(),
                found: DataType::F32
            }
        )
    );
}

#[test]
fn bool_store_index_is_rejected() {
    let (_, kind) = body_error(vec![Node::store("o", Expr::bool(true), Expr::u32(0))]);
    assert_eq!(
        kind,
        K::IndexType {
            buffer: "o".into(),
            found: DataType::Bool
        }
    );
}

/// SEMANTICS.md: an index is a u32 or i32, never a 64-bit integer. A load's index always was
/// checked so; a store's accepted any integer, which the wgpu lowering then failed to compile and
/// the reference cut to its low 32 bits (2^32 + 1 wrote element 1).
#[test]
fn sixty_four_bit_indices_are_rejected_for_loads_and_stores() {
    for (index, ty) in [
        (Expr::u64((1 << 32) + 1), DataType::U64),
        (Expr::i64(-1), DataType::I64),
    ] {
        let (path, kind) = body_error(vec![Node::store("o", index.clone(), Expr::u32(7))]);
        assert_eq!(
            (path.as_str(), kind),
            (
                "body[0].index",
                K::IndexType {
                    buffer: "o".into(),
                    found: ty
                }
            )
        );
        let (path, kind) = body_error(vec![store_o(Expr::load("a", index))]);
        assert_eq!(
            (path.as_str(), kind),
            (
                "body[0].value.index",
                K::IndexType {
                    buffer: "a".into(),
                    found: ty
                }
            )
        );
    }
}

#[test]
fn signed_index_is_accepted() {
    assert_eq!(
        validate(&with_body(vec![store_o(Expr::load("a", Expr::i32(-1)))])),
        Ok(())
    );
}

#[test]
fn store_of_wrong_type_is_rejected() {
    let (path, kind) = body_error(vec![store_o(Expr::f32(1.0))]);
    assert_eq!(
        (path.as_str(), kind),
        (
            "body[0].value",
            K::StoreTypeMismatch {
                buffer: "o".into(),
                expected: DataType::U32,
                found: DataType::F32
            }
        )
    );
}

#[test]
fn store_to_read_buffer_is_rejected() {
    let (_, kind) = body_error(vec![Node::store("a", Expr::u32(0), Expr::u32(1))]);
    assert_eq!(
        kind,
        K::StoreToReadOnly {
            buffer: "a".into(),
            access: BufferAccess::Read
        }
    );
}

#[test]
fn store_to_uniform_buffer_is_rejected() {
    let (_, kind) = body_error(vec![Node::store("u", Expr::u32(0), Expr::u32(1))]);
    assert_eq!(
        kind,
        K::StoreToReadOnly {
            buffer: "u".into(),
            access: BufferAccess::Uniform
        }
    );
}

#[test]
fn loop_bounds_of_mixed_types_are_rejected() {
    let (path, kind) = body_error(vec![Node::loop_for(
        "i",
        Expr::u32(0),
        Expr::i32(4),
        vec![],
    )]);
    assert_eq!(
        (path.as_str(), kind),
        (
            "body[0]",
            K::LoopBoundTypes {
                from: DataType::U32,
                to: DataType::I32
            }
        )
    );
}

#[test]
fn float_loop_bounds_are_rejected() {
    let (_, kind) = body_error(vec![Node::loop_for(
        "i",
        Expr::f32(0.0),
        Expr::f32(4.0),
        vec![],
    )]);
    assert_eq!(
        kind,
        K::LoopBoundTypes {
            from: DataType::F32,
            to: DataType::F32
        }
    );
}

#[test]
fn atomic_on_float_buffer_is_rejected() {
    let p = Program::wrapped(
        vec![BufferDecl::read_write("acc", 0, DataType::F32).with_count(1)],
        [1, 1, 1],
        vec![Node::let_bind(
            "old",
            Expr::atomic_add("acc", Expr::u32(0), Expr::f32(1.0)),
        )],
    );
    assert_eq!(
        only_error(&p),
        (
            "body[0].value".into(),
            K::AtomicElementType {
                buffer: "acc".into(),
                element: DataType::F32
            }
        )
    );
}

#[test]
fn atomic_on_bool_buffer_is_rejected() {
    let p = Program::wrapped(
        vec![BufferDecl::output("flags", 0, DataType::Bool).with_count(1)],
        [1, 1, 1],
        vec![Node::let_bind(
            "old",
            Expr::atomic_or("flags", Expr::u32(0), Expr::bool(true)),
        )],
    );
    assert!(matches!(
        only_error(&p).1,
        K::AtomicElementType {
            element: DataType::Bool,
            ..
        }
    ));
}

#[test]
fn atomic_on_read_only_buffer_is_rejected() {
    let (_, kind) = body_error(vec![Node::let_bind(
        "old",
        Expr::atomic_add("a", Expr::u32(0), Expr::u32(1)),
    )]);
    assert_eq!(
        kind,
        K::AtomicOnReadOnly {
            buffer: "a".into(),
            access: BufferAccess::Read
        }
    );
}

#[test]
fn atomic_operand_of_wrong_type_is_rejected() {
    let (path, kind) = body_error(vec![Node::let_bind(
        "old",
        Expr::atomic_max("rw", Expr::u32(0), Expr::u32(1)),
    )]);
    assert_eq!(
        (path.as_str(), kind),
        (
            "body[0].value.value",
            K::AtomicOperandType {
                buffer: "rw".into(),
                expected: DataType::I32,
                found: DataType::U32
            }
        )
    );
}

#[test]
fn compare_exchange_without_expected_is_rejected() {
    let atomic = Expr::Atomic {
        op: AtomicOp::CompareExchange,
        buffer: "rw".into(),
        index: Box::new(Expr::u32(0)),
        expected: None,
        value: Box::new(Expr::i32(1)),
    };
    let (_, kind) = body_error(vec![Node::let_bind("old", atomic)]);
    assert_eq!(
        kind,
        K::AtomicExpectedOperand {
            op: AtomicOp::CompareExchange
        }
    );
}

#[test]
fn atomic_add_with_expected_is_rejected() {
    let atomic = Expr::Atomic {
        op: AtomicOp::Add,
        buffer: "rw".into(),
        index: Box::new(Expr::u32(0)),
        expected: Some(Box::new(Expr::i32(0))),
        value: Box::new(Expr::i32(1)),
    };
    let (_, kind) = body_error(vec![Node::let_bind("old", atomic)]);
    assert_eq!(kind, K::AtomicExpectedOperand { op: AtomicOp::Add });
}

#[test]
fn atomics_on_workgroup_buffers_are_accepted() {
    let body = vec![Node::let_bind(
        "old",
        Expr::atomic_add("wg", Expr::u32(0), Expr::u32(1)),
    )];
    assert_eq!(validate(&with_body(body)), Ok(()));
}

#[test]
fn barrier_under_invocation_dependent_if_is_rejected() {
    let (path, kind) = body_error(vec![Node::if_then(
        Expr::lt(Expr::local_x(), Expr::u32(32)),
        vec![Node::barrier()],
    )]);
    assert_eq!(path, "body[0].then[0]");
    assert!(matches!(kind, K::NonUniformBarrier { .. }), "{kind:?}");
}

#[test]
fn barrier_under_workgroup_uniform_if_is_accepted() {
    let body = vec![Node::if_then(
        Expr::eq(Expr::workgroup_x(), Expr::load("u", Expr::u32(0))),
        vec![Node::barrier()],
    )];
    assert_eq!(validate(&with_body(body)), Ok(()));
}

#[test]
fn barrier_under_storage_dependent_if_is_rejected() {
    let (_, kind) = body_error(vec![Node::if_then(
        Expr::eq(Expr::load("rw", Expr::u32(0)), Expr::i32(0)),
        vec![Node::barrier()],
    )]);
    assert!(matches!(kind, K::NonUniformBarrier { .. }));
}

#[test]
fn barrier_in_loop_with_invocation_dependent_bound_is_rejected() {
    let (path, kind) = body_error(vec![Node::loop_for(
        "i",
        Expr::u32(0),
        Expr::gid_x(),
        vec![Node::barrier()],
    )]);
    assert_eq!(path, "body[0].body[0]");
    assert!(matches!(kind, K::NonUniformBarrier { .. }));
}

#[test]
fn barrier_in_uniform_loop_is_accepted() {
    let body = vec![Node::loop_for(
        "i",
        Expr::u32(0),
        Expr::buf_len("a"),
        vec![
            Node::barrier(),
            Node::store("wg", Expr::var("i"), Expr::var("i")),
        ],
    )];
    assert_eq!(validate(&with_body(body)), Ok(()));
}

#[test]
fn barrier_after_variable_made_non_uniform_is_rejected() {
    // `x` starts uniform but a later assignment gives it an invocation-dependent value; since the loop
    // runs again, the condition at the top is non-uniform too. The validator must see this.
    let (_, kind) = body_error(vec![
        Node::let_bind("x", Expr::u32(0)),
        Node::loop_for(
            "i",
            Expr::u32(0),
            Expr::u32(4),
            vec![
                Node::if_then(
                    Expr::eq(Expr::var("x"), Expr::u32(0)),
                    vec![Node::barrier()],
                ),
                Node::assign("x", Expr::local_x()),
            ],
        ),
    ]);
    assert!(matches!(kind, K::NonUniformBarrier { .. }));
}

#[test]
fn barrier_after_non_uniform_return_is_rejected() {
    let (path, kind) = body_error(vec![
        Node::if_then(
            Expr::eq(Expr::local_x(), Expr::u32(0)),
            vec![Node::return_()],
        ),
        Node::barrier(),
    ]);
    assert_eq!(path, "body[1]");
    assert!(matches!(kind, K::NonUniformBarrier { .. }));
}

#[test]
fn barrier_before_non_uniform_return_in_a_loop_is_rejected() {
    // The return diverges invocations, so the barrier in the next iteration is non-uniform.
    let (_, kind) = body_error(vec![Node::loop_for(
        "i",
        Expr::u32(0),
        Expr::u32(3),
        vec![
            Node::barrier(),
            Node::if_then(
                Expr::eq(Expr::local_x(), Expr::var("i")),
                vec![Node::return_()],
            ),
        ],
    )]);
    assert!(matches!(kind, K::NonUniformBarrier { .. }));
}

#[test]
fn uniform_return_keeps_later_barriers_valid() {
    let body = vec![
        Node::if_then(
            Expr::gt(Expr::workgroup_x(), Expr::u32(3)),
            vec![Node::return_()],
        ),
        Node::barrier(),
    ];
    assert_eq!(validate(&with_body(body)), Ok(()));
}

#[test]
fn node_nesting_past_the_limit_is_rejected() {
    let mut body = vec![Node::barrier()];
    for _ in 0..=MAX_NODE_DEPTH + 1 {
        body = vec![Node::block(body)];
    }
    let errors = validate(&with_body(body)).expect_err("too deep").errors;
    assert_eq!(errors.len(), 1);
    assert_eq!(
        errors[0].kind,
        K::NodeNestingTooDeep {
            limit: MAX_NODE_DEPTH
        }
    );
}

#[test]
fn expression_past_the_limit_is_rejected() {
    let mut e = Expr::u32(0);
    for _ in 0..MAX_EXPR_DEPTH {
        e = Expr::add(e, Expr::u32(1));
    }
    let (_, kind) = body_error(vec![store_o(e)]);
    assert_eq!(
        kind,
        K::ExprTooDeep {
            limit: MAX_EXPR_DEPTH
        }
    );
}

#[test]
fn expression_at_the_limit_is_accepted() {
    let mut e = Expr::u32(0);
    for _ in 0..MAX_EXPR_DEPTH - 1 {
        e = Expr::add(e, Expr::u32(1));
    }
    assert_eq!(validate(&with_body(vec![store_o(e)])), Ok(()));
}

#[test]
fn hundred_thousand_deep_expression_is_rejected_without_stack_overflow() {
    let mut e = Expr::load("a", Expr::gid_x());
    for i in 0..100_000u32 {
        e = if i % 2 == 0 {
            Expr::add(e, Expr::u32(i))
        } else {
            Expr::bit_xor(Expr::u32(i), e)
        };
    }
    let program = with_body(vec![store_o(e)]);
    let errors = validate(&program).expect_err("a 100 000-deep expression must be rejected");
    assert_eq!(
        errors.kinds(),
        vec![&K::ExprTooDeep {
            limit: MAX_EXPR_DEPTH
        }]
    );
    // Dropping the program frees the expression iteratively: no stack overflow here either.
    drop(program);
}

#[test]
fn every_error_is_reported_at_once() {
    let body = vec![
        store_o(Expr::f32(1.0)),
        Node::store("a", Expr::u32(0), Expr::u32(0)),
        Node::let_bind("x", Expr::var("ghost")),
    ];
    let errors = validate(&with_body(body)).expect_err("three errors").errors;
    let paths: Vec<&str> = errors.iter().map(|e| e.path.as_str()).collect();
    assert_eq!(paths, vec!["body[0].value", "body[1]", "body[2].value"]);
}

#[test]
fn every_message_ends_with_a_fix() {
    let body = vec![
        store_o(Expr::f32(1.0)),
        Node::if_then(
            Expr::lt(Expr::local_x(), Expr::u32(1)),
            vec![Node::barrier()],
        ),
    ];
    let errors = validate(&with_body(body)).expect_err("invalid");
    for error in &errors.errors {
        let text = error.to_string();
        assert!(text.starts_with("at body["), "{text}");
        assert!(text.contains(" Fix: ") && text.ends_with('.'), "{text}");
    }
    assert!(
        errors
            .to_string()
            .starts_with("program is invalid (2 errors):")
    );
}

#[test]
fn literal_kinds_type_check() {
    assert_eq!(Literal::F32(0).ty(), DataType::F32);
    let body = vec![
        Node::let_bind("b", Expr::bool(true)),
        Node::let_bind("i", Expr::i32(-1)),
        Node::let_bind("f", Expr::f32(f32::NAN)),
        store_o(Expr::select(
            Expr::var("b"),
            Expr::bitcast(DataType::U32, Expr::var("f")),
            Expr::u32(0),
        )),
        Node::store(
            "rw",
            Expr::var("i"),
            Expr::cast(DataType::I32, Expr::var("f")),
        ),
    ];
    assert_eq!(validate(&with_body(body)), Ok(()));
}

#[test]
fn hundred_thousand_deep_statements_are_rejected_and_dropped_without_stack_overflow() {
    let mut body = vec![Node::barrier()];
    for _ in 0..100_000 {
        body = vec![Node::block(body)];
    }
    let program = with_body(body);
    let errors = vyre_foundation::validate::validate_depth(&program).expect_err("too deep");
    assert_eq!(
        errors.kinds(),
        vec![&K::NodeNestingTooDeep {
            limit: MAX_NODE_DEPTH
        }]
    );
    drop(program);
}

#[test]
fn validate_depth_accepts_exactly_what_the_depth_rules_accept() {
    let nested = |depth: usize| {
        let mut body = vec![Node::barrier()];
        for _ in 0..depth {
            body = vec![Node::block(body)];
        }
        with_body(body)
    };
    let deep = |depth: usize| {
        let e = (1..depth).fold(Expr::u32(0), |e, _| Expr::add(e, Expr::u32(1)));
        with_body(vec![store_o(e)])
    };
    use vyre_foundation::validate::validate_depth;
    for program in [nested(MAX_NODE_DEPTH), deep(MAX_EXPR_DEPTH)] {
        assert_eq!(validate(&program), Ok(()));
        assert_eq!(validate_depth(&program), Ok(()));
    }
    for program in [nested(MAX_NODE_DEPTH + 1), deep(MAX_EXPR_DEPTH + 1)] {
        assert!(validate(&program).is_err());
        assert_eq!(validate_depth(&program), validate(&program));
    }
}
