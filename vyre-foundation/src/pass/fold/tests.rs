//! One rule per test, on small programs; `conformance/tests/pass_fold.rs` checks every fold
//! against the reference interpreter.

use super::ConstantFold;
use crate::ir::{AtomicOp, BufferDecl, DataType, Expr, Node, Program};
use crate::pass::{Outcome, Pass};

/// A program that stores `value` (of type `ty`) into `o[gid.x]`, next to an `i32` input `a` and
/// a `u32` buffer `c` that atomics update.
fn storing(value: Expr, ty: DataType) -> Program {
    Program::new(
        vec![
            BufferDecl::output("o", 0, ty).with_count(4),
            BufferDecl::read("a", 1, DataType::I32).with_count(4),
            BufferDecl::read_write("c", 2, DataType::U32).with_count(4),
        ],
        [4, 1, 1],
        vec![Node::store("o", Expr::gid_x(), value)],
    )
}

/// The program after folding, checked to validate. (`Pipeline` would do the same; naming it here
/// would make this folder's tests import the pipeline, which imports the passes.)
fn fold(program: &Program) -> Program {
    let validated = match crate::validate(program) {
        Ok(v) => v,
        Err(e) => panic!("the test program is invalid: {e}"),
    };
    let folded = ConstantFold.run(&validated).into_program(program);
    if let Err(e) = crate::validate(&folded) {
        panic!("const_fold made an invalid program: {e}\n{folded}");
    }
    folded
}

/// What `value` (of type `ty`) folds to.
fn folded(value: Expr, ty: DataType) -> Expr {
    let program = fold(&storing(value, ty));
    match program.body.first() {
        Some(Node::Store { value, .. }) => value.clone(),
        other => panic!("expected the store, found {other:?}"),
    }
}

fn a() -> Expr {
    Expr::load("a", Expr::gid_x())
}

fn atomic() -> Expr {
    Expr::Atomic {
        op: AtomicOp::Add,
        buffer: "c".into(),
        index: Box::new(Expr::u32(0)),
        expected: None,
        value: Box::new(Expr::u32(1)),
    }
}

#[test]
fn division_by_zero_gives_the_dividend_and_remainder_zero() {
    let t = DataType::U32;
    assert_eq!(
        folded(Expr::div(Expr::u32(7), Expr::u32(0)), t),
        Expr::u32(7)
    );
    assert_eq!(
        folded(Expr::rem(Expr::u32(7), Expr::u32(0)), t),
        Expr::u32(0)
    );
    let t = DataType::I64;
    assert_eq!(
        folded(Expr::div(Expr::i64(-7), Expr::i64(0)), t),
        Expr::i64(-7)
    );
    assert_eq!(
        folded(Expr::rem(Expr::i64(-7), Expr::i64(2)), t),
        Expr::i64(-1)
    );
}

#[test]
fn min_divided_by_minus_one_is_min_with_remainder_zero() {
    let t = DataType::I32;
    let min = Expr::i32(i32::MIN);
    assert_eq!(folded(Expr::div(min.clone(), Expr::i32(-1)), t), min);
    assert_eq!(folded(Expr::rem(min, Expr::i32(-1)), t), Expr::i32(0));
    let min64 = Expr::i64(i64::MIN);
    let t = DataType::I64;
    assert_eq!(folded(Expr::div(min64.clone(), Expr::i64(-1)), t), min64);
}

#[test]
fn arithmetic_wraps_at_the_width() {
    let t = DataType::U32;
    assert_eq!(
        folded(Expr::add(Expr::u32(u32::MAX), Expr::u32(2)), t),
        Expr::u32(1)
    );
    let t = DataType::I64;
    let square = Expr::mul(Expr::i64(i64::MAX), Expr::i64(i64::MAX));
    assert_eq!(folded(square, t), Expr::i64(1));
    assert_eq!(
        folded(Expr::neg(Expr::i32(i32::MIN)), DataType::I32),
        Expr::i32(i32::MIN)
    );
    assert_eq!(
        folded(Expr::abs(Expr::i32(i32::MIN)), DataType::I32),
        Expr::i32(i32::MIN)
    );
}

#[test]
fn shifts_take_the_amount_mod_the_width() {
    let shl = |a: Expr, b: u32| Expr::shl(a, Expr::u32(b));
    let shr = |a: Expr, b: u32| Expr::shr(a, Expr::u32(b));
    assert_eq!(folded(shl(Expr::u32(1), 33), DataType::U32), Expr::u32(2));
    assert_eq!(folded(shr(Expr::i32(-8), 33), DataType::I32), Expr::i32(-4));
    assert_eq!(
        folded(shr(Expr::u32(0x8000_0000), 31), DataType::U32),
        Expr::u32(1)
    );
    assert_eq!(folded(shl(Expr::u64(1), 65), DataType::U64), Expr::u64(2));
    assert_eq!(folded(shr(Expr::i64(-1), 63), DataType::I64), Expr::i64(-1));
}

#[test]
fn bit_counts_of_zero_are_32() {
    let t = DataType::U32;
    assert_eq!(folded(Expr::clz(Expr::u32(0)), t), Expr::u32(32));
    assert_eq!(folded(Expr::ctz(Expr::u32(0)), t), Expr::u32(32));
    assert_eq!(
        folded(Expr::popcount(Expr::i32(-1)), DataType::I32),
        Expr::i32(32)
    );
}

#[test]
fn signed_comparisons_compare_values() {
    let lt = Expr::lt(Expr::i32(-1), Expr::i32(0));
    assert_eq!(
        folded(Expr::select(lt, Expr::u32(1), Expr::u32(2)), DataType::U32),
        Expr::u32(1)
    );
    let lt = Expr::lt(Expr::u32(u32::MAX), Expr::u32(0));
    assert_eq!(
        folded(Expr::select(lt, Expr::u32(1), Expr::u32(2)), DataType::U32),
        Expr::u32(2)
    );
}

#[test]
fn exact_float_arithmetic_folds_and_rounded_does_not() {
    let t = DataType::F32;
    let exact = Expr::add(Expr::f32(1.5), Expr::f32(2.25));
    assert_eq!(folded(exact, t), Expr::f32(3.75));
    let rounded = Expr::add(Expr::f32(0.1), Expr::f32(0.2));
    assert_eq!(folded(rounded.clone(), t), rounded);
    let overflow = Expr::mul(Expr::f32(1e38), Expr::f32(10.0));
    assert_eq!(folded(overflow.clone(), t), overflow);
    let quotient = Expr::div(Expr::f32(1.0), Expr::f32(2.0));
    assert_eq!(folded(quotient.clone(), t), quotient);
    let root = Expr::sqrt(Expr::f32(4.0));
    assert_eq!(folded(root.clone(), t), root);
}

#[test]
fn subnormal_and_infinite_float_operands_do_not_fold() {
    let t = DataType::F32;
    let tiny = Expr::add(Expr::f32(1e-40), Expr::f32(1.0));
    assert_eq!(folded(tiny.clone(), t), tiny);
    let infinite = Expr::neg(Expr::f32(f32::INFINITY));
    assert_eq!(folded(infinite.clone(), t), infinite);
    let subnormal_result = Expr::mul(Expr::f32(f32::MIN_POSITIVE), Expr::f32(0.5));
    assert_eq!(folded(subnormal_result.clone(), t), subnormal_result);
}

#[test]
fn comparisons_with_nan_are_false_ne_included() {
    let nan = Expr::f32(f32::NAN);
    for compare in [Expr::eq, Expr::ne, Expr::lt, Expr::ge] {
        let e = compare(nan.clone(), Expr::f32(1.0));
        assert_eq!(folded(e, DataType::Bool), Expr::bool(false));
    }
}

#[test]
fn fract_of_a_tiny_negative_value_is_not_folded() {
    let t = DataType::F32;
    assert_eq!(folded(Expr::fract(Expr::f32(-1.25)), t), Expr::f32(0.75));
    let rounds = Expr::fract(Expr::f32(-1e-10));
    assert_eq!(folded(rounds.clone(), t), rounds);
}

#[test]
fn f16_folds_only_when_exact_in_f16() {
    let t = DataType::F16;
    let sum = Expr::add(Expr::f16(1.0), Expr::f16(2.0));
    assert_eq!(folded(sum, t), Expr::f16(3.0));
    // 2048 + 1 needs 12 significant bits; f16 has 11.
    let rounded = Expr::add(Expr::f16(2048.0), Expr::f16(1.0));
    assert_eq!(folded(rounded.clone(), t), rounded);
    let to_half = Expr::cast(DataType::F16, Expr::f32(0.5));
    assert_eq!(folded(to_half, t), Expr::f16(0.5));
    let inexact = Expr::cast(DataType::F16, Expr::f32(0.1));
    assert_eq!(folded(inexact.clone(), t), inexact);
    // An f16 subnormal operand may be flushed on an f16 device, though it is normal in f32.
    let subnormal = Expr::add(Expr::f16_bits(0x0001), Expr::f16(1.0));
    assert_eq!(folded(subnormal.clone(), t), subnormal);
}

#[test]
fn float_to_int_saturates_at_the_f32_representable_bounds() {
    let to_i32 = |v: f32| folded(Expr::cast(DataType::I32, Expr::f32(v)), DataType::I32);
    assert_eq!(to_i32(3e9), Expr::i32(2_147_483_520));
    assert_eq!(to_i32(-3e9), Expr::i32(i32::MIN));
    assert_eq!(to_i32(-2.9), Expr::i32(-2));
    let nan = Expr::cast(DataType::I32, Expr::f32(f32::NAN));
    assert_eq!(folded(nan.clone(), DataType::I32), nan);
    let to_u32 = |v: f32| folded(Expr::cast(DataType::U32, Expr::f32(v)), DataType::U32);
    assert_eq!(to_u32(-1.0), Expr::u32(0));
    assert_eq!(to_u32(1e10), Expr::u32(4_294_967_040));
    let to_u64 = folded(Expr::cast(DataType::U64, Expr::f32(1e30)), DataType::U64);
    assert_eq!(to_u64, Expr::u64(0xffff_ff00_0000_0000));
}

#[test]
fn integer_casts_keep_the_value_modulo_the_target_width() {
    let wide = folded(Expr::cast(DataType::U64, Expr::i32(-1)), DataType::U64);
    assert_eq!(wide, Expr::u64(u64::MAX));
    let narrow = folded(
        Expr::cast(DataType::U32, Expr::u64(0x1_2345_6789)),
        DataType::U32,
    );
    assert_eq!(narrow, Expr::u32(0x2345_6789));
    let rounded = folded(
        Expr::cast(DataType::F32, Expr::u32(16_777_217)),
        DataType::F32,
    );
    assert_eq!(rounded, Expr::f32(16_777_216.0));
}

#[test]
fn bitcasts_keep_every_bit_nan_payloads_included() {
    let payload = Expr::bitcast(DataType::F32, Expr::u32(0x7fa0_0001));
    assert_eq!(
        folded(payload, DataType::F32),
        Expr::Lit(crate::ir::Literal::F32(0x7fa0_0001))
    );
    let round_trip = Expr::bitcast(DataType::I32, Expr::bitcast(DataType::F32, a()));
    assert_eq!(folded(round_trip, DataType::I32), a());
}

#[test]
fn integer_identities_keep_the_other_operand() {
    let t = DataType::I32;
    assert_eq!(folded(Expr::add(a(), Expr::i32(0)), t), a());
    assert_eq!(folded(Expr::mul(Expr::i32(1), a()), t), a());
    assert_eq!(folded(Expr::div(a(), Expr::i32(0)), t), a());
    assert_eq!(folded(Expr::bit_and(a(), Expr::i32(-1)), t), a());
    assert_eq!(folded(Expr::shl(a(), Expr::u32(64)), t), a());
    assert_eq!(
        folded(Expr::shl(a(), Expr::u32(35)), t),
        Expr::shl(a(), Expr::u32(3))
    );
    assert_eq!(folded(Expr::max(a(), Expr::i32(i32::MIN)), t), a());
}

#[test]
fn integer_identities_give_a_constant() {
    let t = DataType::I32;
    assert_eq!(folded(Expr::mul(a(), Expr::i32(0)), t), Expr::i32(0));
    assert_eq!(folded(Expr::rem(a(), Expr::i32(-1)), t), Expr::i32(0));
    assert_eq!(folded(Expr::div(Expr::i32(0), a()), t), Expr::i32(0));
    assert_eq!(folded(Expr::sub(a(), a()), t), Expr::i32(0));
    assert_eq!(folded(Expr::bit_xor(a(), a()), t), Expr::i32(0));
    let never = Expr::lt(a(), Expr::i32(i32::MIN));
    assert_eq!(folded(never, DataType::Bool), Expr::bool(false));
}

#[test]
fn an_operand_with_an_atomic_is_never_dropped() {
    let t = DataType::U32;
    let kept = Expr::mul(atomic(), Expr::u32(0));
    assert_eq!(folded(kept.clone(), t), kept);
    let twice = Expr::sub(atomic(), atomic());
    assert_eq!(folded(twice.clone(), t), twice);
    let arm = Expr::select(Expr::bool(true), Expr::u32(1), atomic());
    assert_eq!(folded(arm.clone(), t), arm);
}

#[test]
fn float_identities_are_left_alone() {
    let x = Expr::cast(DataType::F32, a());
    for e in [
        Expr::add(x.clone(), Expr::f32(0.0)),
        Expr::mul(x.clone(), Expr::f32(1.0)),
        Expr::sub(x.clone(), x.clone()),
    ] {
        assert_eq!(folded(e.clone(), DataType::F32), e);
    }
    // A cast to the value's own type is a move, floats included.
    assert_eq!(
        folded(Expr::cast(DataType::F32, x.clone()), DataType::F32),
        x
    );
}

#[test]
fn bool_identities() {
    let b = Expr::lt(a(), Expr::i32(3));
    let t = DataType::Bool;
    assert_eq!(folded(Expr::and(b.clone(), Expr::bool(true)), t), b);
    assert_eq!(
        folded(Expr::or(b.clone(), Expr::bool(true)), t),
        Expr::bool(true)
    );
    assert_eq!(
        folded(Expr::eq(b.clone(), Expr::bool(false)), t),
        Expr::not(b.clone())
    );
    assert_eq!(folded(Expr::not(Expr::not(b.clone())), t), b.clone());
    let chosen = Expr::select(b.clone(), Expr::bool(true), Expr::bool(false));
    assert_eq!(folded(chosen, t), b);
}

#[test]
fn select_on_a_literal_keeps_the_chosen_arm() {
    let e = Expr::select(
        Expr::bool(false),
        Expr::u32(1),
        Expr::add(Expr::gid_x(), Expr::u32(0)),
    );
    assert_eq!(folded(e, DataType::U32), Expr::gid_x());
}

#[test]
fn if_on_a_literal_becomes_the_chosen_body() {
    let store = |v: u32| Node::store("o", Expr::gid_x(), Expr::u32(v));
    let mut program = storing(Expr::u32(0), DataType::U32);
    program.body = vec![
        Node::if_then_else(Expr::bool(true), vec![store(1)], vec![store(2)]),
        Node::if_then(Expr::not(Expr::bool(true)), vec![store(3)]),
        Node::if_then(Expr::bool(true), vec![Node::let_bind("x", Expr::u32(4))]),
    ];
    let folded = fold(&program);
    assert_eq!(
        folded.body,
        [
            store(1),
            Node::block(vec![Node::let_bind("x", Expr::u32(4))])
        ]
    );
}

#[test]
fn loops_that_cannot_run_are_removed() {
    let mut program = storing(Expr::u32(0), DataType::U32);
    let store = Node::store("o", Expr::gid_x(), Expr::u32(1));
    let counted = |from: i32, to: i32| {
        Node::loop_for("i", Expr::i32(from), Expr::i32(to), vec![store.clone()])
    };
    program.body = vec![
        Node::loop_while(Expr::bool(false), vec![store.clone()]),
        counted(-1, -5),
        counted(3, 3),
        counted(-5, -1),
    ];
    assert_eq!(fold(&program).body, [counted(-5, -1)]);
}

#[test]
fn a_program_without_constants_is_unchanged() {
    let program = storing(Expr::add(a(), Expr::i32(1)), DataType::I32);
    let Ok(validated) = crate::validate(&program) else {
        panic!("the test program is valid");
    };
    assert_eq!(ConstantFold.run(&validated), Outcome::Unchanged);
}

#[test]
fn an_expression_as_deep_as_allowed_folds_without_recursion() {
    let mut e = a();
    for _ in 0..500 {
        e = Expr::add(e, Expr::i32(0));
    }
    let program = storing(e, DataType::I32);
    let Ok(validated) = crate::validate(&program) else {
        panic!("the test program is valid");
    };
    // The pass runs on a thread with a small stack: recursing 500 levels deep in a debug build
    // would overflow it.
    let outcome = std::thread::scope(|s| {
        std::thread::Builder::new()
            .stack_size(128 * 1024)
            .spawn_scoped(s, || ConstantFold.run(&validated))
            .map(|t| t.join())
    });
    match outcome {
        Ok(Ok(Outcome::Changed(folded))) => {
            assert_eq!(folded.body, [Node::store("o", Expr::gid_x(), a())]);
        }
        _ => panic!("folding a deep expression failed"),
    }
}
