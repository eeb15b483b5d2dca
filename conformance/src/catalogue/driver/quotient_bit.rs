//! The lowest bit of a 64-bit quotient or remainder, multiplied by a constant: `((x % d) & 1) * K`.
//!
//! An NVIDIA miscompile (H100, Vulkan, driver 580.159.04), found by fuzzing four times (seeds 84001
//! and 85001), the emitted code correct: `((u64(tid) % d) & 1u64) * 39238535u64` stored 39238535
//! for `tid = 0` whenever the driver divided at run time (a divisor it cannot know, as the
//! `opaque_divisor` workaround makes every one, or a loaded dividend). Without the multiplication,
//! or with the remainder hidden behind an exclusive or first (written in the program), it was
//! right; the same exclusive or written by the lowering was not enough, so the `soft_wide_division`
//! workaround keeps every 64-bit division from the driver. The cases take the remainder or the quotient at `u64` and `i64` by
//! divisors from 2 to the type's edges, mask it with `& 1` or `% 2`, and multiply; the values come
//! as literals, the invocation id or loads.

use vyre_foundation::ir::{BinOp, DataType, Expr};

use super::int::Int;
use super::shape::{Form, Shape, by_invocation, exact, literal, loaded, write};
use super::snippets::{Snippets, Spread};
use crate::catalogue::{Area, Batch};

/// The constant factor of the seeds' program.
const FACTOR: u64 = 39_238_535;

/// Dividends: 0 (the bug's), small, both signs' edges, a value past 2^32.
const VALUES: [u64; 7] = [
    0,
    1,
    2,
    3,
    0x8000_0000_0000_0000,
    u64::MAX,
    0x0000_0002_dfdc_1c35,
];

/// Divisors: the seeds' (`u64::MAX`, `i64::MIN`), 2^32 + 1, a small odd and an even one.
const DIVISORS: [u64; 5] = [u64::MAX, 0x8000_0000_0000_0000, 0x1_0000_0001, 7, 2];

/// The values of the written forms: fewer, keeping the bug's.
const WRITTEN: [u64; 3] = [0, 1, u64::MAX];

/// `((x op d) mask) * K` at type `ty`: `op` a remainder or a division, `mask` `& 1` or `% 2`.
fn shape(ty: DataType, op: BinOp, mask: BinOp) -> Shape {
    let i = Int(ty);
    let id = format!(
        "{}_bit.{ty}.{}",
        op.name(),
        if mask == BinOp::BitAnd {
            "and1"
        } else {
            "rem2"
        }
    );
    let k = if mask == BinOp::BitAnd { 1 } else { 2 };
    Shape::new(
        id,
        ty,
        move |e| {
            let q = Expr::binary(op, e[0].clone(), e[1].clone());
            Expr::mul(Expr::binary(mask, q, literal(ty, k)), literal(ty, FACTOR))
        },
        move |w| {
            let bit = i.bin(mask, i.bin(op, w[0], w[1]), k);
            exact(i.bin(BinOp::Mul, bit, FACTOR))
        },
    )
}

fn shapes(ty: DataType) -> Vec<Shape> {
    vec![
        shape(ty, BinOp::Rem, BinOp::BitAnd),
        shape(ty, BinOp::Rem, BinOp::Rem),
        shape(ty, BinOp::Div, BinOp::BitAnd),
    ]
}

fn rows(values: &[u64], divisors: &[u64]) -> Vec<Vec<u64>> {
    values
        .iter()
        .flat_map(|&x| divisors.iter().map(move |&d| vec![x, d]))
        .collect()
}

/// The batches: literals in one program, the invocation id in two, and one loaded batch per type
/// (loop counters are 32-bit, so this 64-bit shape has no loop-counter form).
pub(super) fn batches() -> Vec<Batch> {
    let mut out = Vec::new();
    for ty in [DataType::U64, DataType::I64] {
        let operands = [ty, ty];
        let name = format!("integer.driver.quotient_bit.{ty}");
        let written = rows(&WRITTEN, &DIVISORS);
        let mut literals = Snippets::new(Area::Integer, name.clone(), Spread::One);
        write(
            &mut literals,
            &[Form::Literal],
            &operands,
            &written,
            &shapes(ty),
        );
        // Eight invocations from 0 (the bug's `tid`) and from 2^40, eight apart.
        let bases = rows(&[0, 1 << 40], &DIVISORS);
        let by_id = by_invocation(Area::Integer, &name, 8, |batch| {
            write(batch, &[Form::Tid], &operands, &bases, &shapes(ty));
        });
        out.extend(literals.into_batches());
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
