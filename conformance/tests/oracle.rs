//! The hand-written expectations on the cases SEMANTICS.md spells out.

use vyre_conformance::catalogue::oracle;
use vyre_foundation::ir::{BinOp, DataType, UnOp};

fn i(v: i32) -> u32 {
    v as u32
}

#[test]
fn integer_division_edge_cases() {
    assert_eq!(oracle::binary(BinOp::Div, DataType::U32, 7, 0), Some(7));
    assert_eq!(oracle::binary(BinOp::Rem, DataType::U32, 7, 0), Some(0));
    assert_eq!(
        oracle::binary(BinOp::Div, DataType::I32, i(i32::MIN), i(-1)),
        Some(i(i32::MIN))
    );
    assert_eq!(
        oracle::binary(BinOp::Rem, DataType::I32, i(i32::MIN), i(-1)),
        Some(0)
    );
    assert_eq!(
        oracle::binary(BinOp::Div, DataType::I32, i(-7), i(2)),
        Some(i(-3))
    );
    assert_eq!(
        oracle::binary(BinOp::Rem, DataType::I32, i(-7), i(2)),
        Some(i(-1))
    );
    assert_eq!(
        oracle::binary(BinOp::Div, DataType::I32, i(-7), 0),
        Some(i(-7))
    );
}

#[test]
fn shifts_take_the_amount_mod_32_and_shr_is_arithmetic_for_i32() {
    assert_eq!(oracle::binary(BinOp::Shl, DataType::U32, 1, 33), Some(2));
    assert_eq!(
        oracle::binary(BinOp::Shr, DataType::U32, 0x8000_0000, 31),
        Some(1)
    );
    assert_eq!(
        oracle::binary(BinOp::Shr, DataType::I32, i(i32::MIN), 31),
        Some(i(-1))
    );
    assert_eq!(
        oracle::binary(BinOp::Shr, DataType::I32, i(-8), 0xffff_ffff),
        Some(i(-1))
    );
}

#[test]
fn bit_counts() {
    assert_eq!(oracle::unary(UnOp::Clz, DataType::U32, 0), Some(32));
    assert_eq!(oracle::unary(UnOp::Ctz, DataType::U32, 0), Some(32));
    assert_eq!(oracle::unary(UnOp::Clz, DataType::U32, 1), Some(31));
    assert_eq!(
        oracle::unary(UnOp::Ctz, DataType::I32, 0x8000_0000),
        Some(31)
    );
    assert_eq!(
        oracle::unary(UnOp::Popcount, DataType::U32, 0xdead_beef),
        Some(24)
    );
    assert_eq!(
        oracle::unary(UnOp::ReverseBits, DataType::U32, 1),
        Some(0x8000_0000)
    );
    assert_eq!(
        oracle::unary(UnOp::Abs, DataType::I32, i(i32::MIN)),
        Some(i(i32::MIN))
    );
    assert_eq!(
        oracle::unary(UnOp::Neg, DataType::I32, i(i32::MIN)),
        Some(i(i32::MIN))
    );
}

#[test]
fn signed_comparisons() {
    assert_eq!(oracle::binary(BinOp::Lt, DataType::I32, i(-1), 0), Some(1));
    assert_eq!(oracle::binary(BinOp::Lt, DataType::U32, i(-1), 0), Some(0));
}

#[test]
fn float_to_int_saturates_at_f32_representable_bounds() {
    let f = |x: f32| x.to_bits();
    assert_eq!(
        oracle::cast(DataType::F32, DataType::I32, f(3.0e9)),
        Some(2_147_483_520)
    );
    assert_eq!(oracle::cast(DataType::F32, DataType::U32, f(-1.0)), Some(0));
    assert_eq!(
        oracle::cast(DataType::F32, DataType::U32, f(1.0e10)),
        Some(4_294_967_040)
    );
    assert_eq!(
        oracle::cast(DataType::F32, DataType::I32, f(-1.9)),
        Some(i(-1))
    );
    assert_eq!(
        oracle::cast(DataType::F32, DataType::I32, f(f32::NAN)),
        Some(0)
    );
    assert_eq!(
        oracle::cast(DataType::F32, DataType::Bool, f(f32::NAN)),
        Some(1)
    );
    assert_eq!(
        oracle::cast(DataType::U32, DataType::F32, 16_777_217),
        Some(16_777_216f32.to_bits())
    );
    assert_eq!(
        oracle::cast(DataType::I32, DataType::U32, i(-1)),
        Some(u32::MAX)
    );
    assert_eq!(
        oracle::cast(DataType::Bool, DataType::F32, 1),
        Some(1f32.to_bits())
    );
}
