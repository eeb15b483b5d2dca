//! Remainder chains through a narrowed 64-bit value: a 64-bit value narrowed to `u32`, then a
//! remainder (or division) by a `u32` constant, then a second remainder or a mask.
//!
//! An NVIDIA miscompile (H100 and H200, Vulkan, driver 580.159.04), found by fuzzing twice (seeds
//! 52013 and 65002), the emitted code correct: `(u32(u64(tid) / 3u64) % 2147483649u) % 2u` came
//! out 1 for `tid = 0`, where every step gives 0. Each step alone came out right (the narrowed
//! value stored, that value `% 2147483649u` stored, `(tid % 2147483649u) % 2u`): the driver needs
//! the narrowing, a remainder by a constant above 2^31, and a second remainder. The cases narrow a
//! 64-bit quotient, a 64-bit remainder of a widened `i32` (through `i32` and straight to `u32`)
//! and a 64-bit product, take the remainder or the quotient by divisors at and around 2^31, by
//! `u32::MAX` and by a small one, and end in `% 2u` or `& 1u`; the value a literal, a one-trip
//! loop counter, the invocation id or a load.

use vyre_foundation::ir::{BinOp, DataType, Expr};

use super::int::Int;
use super::shape::{Form, LOOPS_PER_PROGRAM, Shape, by_invocation, exact, loaded, write};
use super::snippets::{Snippets, Spread};
use crate::catalogue::{Area, Batch};

/// The 64-bit remainder's divisor in seed 52013's program.
const SEED_DIVISOR: i64 = -1_702_928_622;

/// Divisors of the first step: the bug's (2^31 + 1), 2^31, 3 * 10^9, `u32::MAX`, and a small one.
const DIVISORS: [u32; 5] = [2_147_483_649, 0x8000_0000, 3_000_000_000, u32::MAX, 7];

/// Values: 0 (the bug's), small, both sides of 2^31, the top, an irregular pattern.
const VALUES: [u32; 7] = [0, 1, 5, 0x7fff_ffff, 0x8000_0001, 0xffff_ffff, 0x9e37_79b9];

/// The values of the written forms: fewer, keeping the bug's and the boundaries.
const WRITTEN: [u32; 4] = [0, 1, 0x8000_0001, 0xffff_ffff];

/// How the 64-bit value is made from the operand `x` and narrowed.
#[derive(Clone, Copy)]
enum Narrowed {
    /// `u32(u64(x) / 3u64)` (seed 65002), `x` a `u32`.
    Quotient,
    /// `u32(i32(i64(i32(x)) % -1702928622i64))` (seed 52013), `x` an `i32`.
    SignedRemainder,
    /// `u32(i64(i32(x)) % -1702928622i64)`: straight to `u32`.
    SignedRemainderDirect,
    /// `u32(u64(x) * 2654435761u64)`, `x` a `u32`: the low word of a product.
    Product,
}

impl Narrowed {
    fn name(self) -> &'static str {
        match self {
            Narrowed::Quotient => "u64_div",
            Narrowed::SignedRemainder => "i64_rem_i32",
            Narrowed::SignedRemainderDirect => "i64_rem",
            Narrowed::Product => "u64_mul",
        }
    }

    /// The operand's type.
    fn operand(self) -> DataType {
        match self {
            Narrowed::Quotient | Narrowed::Product => DataType::U32,
            Narrowed::SignedRemainder | Narrowed::SignedRemainderDirect => DataType::I32,
        }
    }

    fn build(self, x: &Expr) -> Expr {
        let (u32_, i32_, u64_, i64_) = (DataType::U32, DataType::I32, DataType::U64, DataType::I64);
        match self {
            Narrowed::Quotient => {
                Expr::cast(u32_, Expr::div(Expr::cast(u64_, x.clone()), Expr::u64(3)))
            }
            Narrowed::Product => Expr::cast(
                u32_,
                Expr::mul(Expr::cast(u64_, x.clone()), Expr::u64(2_654_435_761)),
            ),
            Narrowed::SignedRemainder => Expr::cast(
                u32_,
                Expr::cast(
                    i32_,
                    Expr::rem(Expr::cast(i64_, x.clone()), Expr::i64(SEED_DIVISOR)),
                ),
            ),
            Narrowed::SignedRemainderDirect => Expr::cast(
                u32_,
                Expr::rem(Expr::cast(i64_, x.clone()), Expr::i64(SEED_DIVISOR)),
            ),
        }
    }

    /// The narrowed value's bits for the operand bits `x`, by SEMANTICS.md's rules.
    fn value(self, x: u64) -> u64 {
        let (u32_, i32_, u64_, i64_) = (
            Int(DataType::U32),
            Int(DataType::I32),
            Int(DataType::U64),
            Int(DataType::I64),
        );
        match self {
            Narrowed::Quotient => u64_.cast(
                DataType::U32,
                u64_.bin(BinOp::Div, u32_.cast(DataType::U64, x), 3),
            ),
            Narrowed::Product => u64_.cast(
                DataType::U32,
                u64_.bin(BinOp::Mul, u32_.cast(DataType::U64, x), 2_654_435_761),
            ),
            Narrowed::SignedRemainder => {
                let r = i64_.bin(
                    BinOp::Rem,
                    i32_.cast(DataType::I64, x),
                    i64_.of(SEED_DIVISOR),
                );
                i32_.cast(DataType::U32, i64_.cast(DataType::I32, r))
            }
            Narrowed::SignedRemainderDirect => {
                let r = i64_.bin(
                    BinOp::Rem,
                    i32_.cast(DataType::I64, x),
                    i64_.of(SEED_DIVISOR),
                );
                i64_.cast(DataType::U32, r)
            }
        }
    }
}

/// `(n op1 d) op2 k` of the narrowed value `n`, the operand divisor `d` and the literal `k`:
/// `op1` a remainder or a division, `op2` a remainder by 2 or a mask by 1.
fn chain(narrowed: Narrowed, first: BinOp, last: BinOp) -> Shape {
    let u = Int(DataType::U32);
    let id = format!(
        "{}_chain.{}.{}",
        first.name(),
        narrowed.name(),
        if last == BinOp::Rem { "rem2" } else { "and1" }
    );
    let k = if last == BinOp::Rem { 2 } else { 1 };
    Shape::new(
        id,
        DataType::U32,
        move |e| {
            let step = Expr::binary(first, narrowed.build(&e[0]), e[1].clone());
            Expr::binary(last, step, Expr::u32(k))
        },
        move |w| {
            let step = u.bin(first, narrowed.value(w[0]), w[1]);
            exact(u.bin(last, step, u64::from(k)))
        },
    )
}

/// The shapes over an operand of type `ty`.
fn shapes(ty: DataType) -> Vec<Shape> {
    let kinds = [
        Narrowed::Quotient,
        Narrowed::SignedRemainder,
        Narrowed::SignedRemainderDirect,
        Narrowed::Product,
    ];
    kinds
        .into_iter()
        .filter(|n| n.operand() == ty)
        .flat_map(|n| {
            [
                chain(n, BinOp::Rem, BinOp::Rem),
                chain(n, BinOp::Rem, BinOp::BitAnd),
                chain(n, BinOp::Div, BinOp::Rem),
            ]
        })
        .collect()
}

fn rows(values: &[u32], divisors: &[u32]) -> Vec<Vec<u64>> {
    values
        .iter()
        .flat_map(|&x| {
            divisors
                .iter()
                .map(move |&d| vec![u64::from(x), u64::from(d)])
        })
        .collect()
}

/// The batches: literals in one program, loop counters in another, the invocation id in two, and
/// one loaded batch per operand type.
pub(super) fn batches() -> Vec<Batch> {
    let mut out = Vec::new();
    for ty in [DataType::U32, DataType::I32] {
        let operands = [ty, DataType::U32];
        let name = format!("integer.driver.narrowing.{ty}");
        let written = rows(&WRITTEN, &DIVISORS);
        let mut literals = Snippets::new(Area::Integer, name.clone(), Spread::One);
        write(
            &mut literals,
            &[Form::Literal],
            &operands,
            &written,
            &shapes(ty),
        );
        let mut loops = Snippets::new(Area::Integer, format!("{name}.loop_counter"), Spread::One)
            .at_most(LOOPS_PER_PROGRAM);
        write(
            &mut loops,
            &[Form::LoopCounter],
            &operands,
            &written,
            &shapes(ty),
        );
        // Eight invocations from 0 (the bug's `tid`) and from 2^31 - 4.
        let bases = rows(&[0, 0x7fff_fffc], &DIVISORS);
        let by_id = by_invocation(Area::Integer, &name, 8, |batch| {
            write(batch, &[Form::Tid], &operands, &bases, &shapes(ty));
        });
        out.extend(literals.into_batches());
        out.extend(loops.into_batches());
        out.extend(by_id);
        out.push(loaded(
            Area::Integer,
            format!("{name}.load"),
            &operands,
            rows(&VALUES, &DIVISORS),
            &shapes(ty),
        ));
    }
    out
}
