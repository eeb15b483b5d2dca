//! Widening casts next to shifts and remainders: a 32-bit value converted to `u64` or `i64` and
//! then shifted or divided at 64 bits.
//!
//! An NVIDIA H100 miscompile (Vulkan, driver 580.159.04), found by fuzzing, the emitted code
//! correct: `out[tid] = u64(i32(tid)) << 959816159u;` (the amount is 31 after the mod-64 rule)
//! gave `0xffffffff80000000` for `tid = 1` where the law gives `0x80000000`, as if the shift were
//! done on the 32-bit value and the result then sign-extended. The cases shift by 0, 1, 31, 32, 33
//! and 63 and by amounts reduced mod 64 (64, 95, 127, 959816159), on negative, positive, `MIN` and
//! `MAX` values, signed and unsigned sources, to both 64-bit types, with the value a literal, a
//! one-trip loop counter (the amount too), the invocation id and a load; remainders of the widened
//! value by the widened amount (`x % 0 = 0` included); and a widened shift narrowed back to 32 bits.

use vyre_foundation::ir::{BinOp, DataType, Expr};

use super::int::Int;
use super::shape::{Form, LOOPS_PER_PROGRAM, Shape, by_invocation, exact, loaded, write};
use super::snippets::{Snippets, Spread};
use crate::catalogue::{Area, Batch};

/// Shift amounts: in range, at and past 32, at 63, and past 63 (taken mod 64: 0, 31, 63, 31).
const AMOUNTS: [u32; 10] = [0, 1, 31, 32, 33, 63, 64, 95, 127, 959_816_159];

/// The amounts of the written forms: fewer, keeping every boundary and the bug's amount.
const WRITTEN_AMOUNTS: [u32; 7] = [0, 1, 31, 32, 33, 63, 959_816_159];

/// `i32` values: ±1, ±5, the extremes, an irregular pattern and its negation.
const I32_VALUES: [i32; 8] = [1, -1, 5, -5, i32::MIN, i32::MAX, 0x1234_5678, -0x1234_5678];

/// `i32` values of the written forms.
const WRITTEN_I32: [i32; 5] = [1, -1, i32::MIN, i32::MAX, 0x1234_5678];

/// The values and amounts of the loop-counter form (loops are slow to compile, so fewer).
const COUNTED_I32: [i32; 4] = [1, -1, i32::MIN, 0x1234_5678];
const COUNTED_U32: [u32; 3] = [1, 0x8000_0000, 0x1234_5678];
const COUNTED_AMOUNTS: [u32; 5] = [1, 31, 32, 33, 959_816_159];

/// `u32` values: small, the sign boundary of `i32`, the top, an irregular pattern.
const U32_VALUES: [u32; 6] = [1, 5, 0x7fff_ffff, 0x8000_0000, 0xffff_ffff, 0x1234_5678];

/// `u32` values of the written forms.
const WRITTEN_U32: [u32; 4] = [1, 0x8000_0000, 0xffff_ffff, 0x1234_5678];

/// `to(x) op to(k)` or `to(x) op k` (shifts take the `u32` amount as it is), for `x` of type
/// `from` and the amount `k`.
fn widened(from: DataType, to: DataType, op: BinOp) -> Shape {
    let (f, t) = (Int(from), Int(to));
    let amount_widened = op == BinOp::Rem;
    let id = format!("{}_of_{from}.{}", to, op.name());
    Shape::new(
        id,
        to,
        move |e| {
            let k = if amount_widened {
                Expr::cast(to, e[1].clone())
            } else {
                e[1].clone()
            };
            Expr::binary(op, Expr::cast(to, e[0].clone()), k)
        },
        move |w| {
            let k = if amount_widened {
                Int(DataType::U32).cast(to, w[1])
            } else {
                w[1]
            };
            exact(t.bin(op, f.cast(to, w[0]), k))
        },
    )
}

/// `u32(u64(x) << k)`: the widened shift narrowed back, where a 32-bit shift differs from 33 on.
fn narrowed_back() -> Shape {
    let (u, w64) = (Int(DataType::U32), Int(DataType::U64));
    Shape::new(
        "u32_of_u64_of_u32.shl",
        DataType::U32,
        |e| {
            let wide = Expr::shl(Expr::cast(DataType::U64, e[0].clone()), e[1].clone());
            Expr::cast(DataType::U32, wide)
        },
        move |w| {
            exact(w64.cast(
                DataType::U32,
                w64.bin(BinOp::Shl, u.cast(DataType::U64, w[0]), w[1]),
            ))
        },
    )
}

fn i32_shapes() -> Vec<Shape> {
    let (i, u, l) = (DataType::I32, DataType::U64, DataType::I64);
    vec![
        widened(i, u, BinOp::Shl),
        widened(i, l, BinOp::Shl),
        widened(i, l, BinOp::Shr),
        widened(i, u, BinOp::Shr),
        widened(i, l, BinOp::Rem),
        widened(i, u, BinOp::Rem),
    ]
}

fn u32_shapes() -> Vec<Shape> {
    let (u32_, u, l) = (DataType::U32, DataType::U64, DataType::I64);
    vec![
        widened(u32_, u, BinOp::Shl),
        widened(u32_, l, BinOp::Shl),
        widened(u32_, l, BinOp::Shr),
        widened(u32_, l, BinOp::Rem),
        narrowed_back(),
    ]
}

fn rows(values: impl IntoIterator<Item = u64>, amounts: &[u32]) -> Vec<Vec<u64>> {
    values
        .into_iter()
        .flat_map(|x| amounts.iter().map(move |&k| vec![x, u64::from(k)]))
        .collect()
}

/// The widening batches: literals and loop counters in one program, the invocation id in another,
/// and one loaded batch per source type.
pub(super) fn batches() -> Vec<Batch> {
    let (i, u) = (Int(DataType::I32), Int(DataType::U32));
    let from_i32 = [DataType::I32, DataType::U32];
    let from_u32 = [DataType::U32, DataType::U32];
    let i32_of = |v: &[i32]| v.iter().map(|&x| i.of(x.into())).collect::<Vec<_>>();
    let u32_of = |v: &[u32]| v.iter().map(|&x| u.of(x.into())).collect::<Vec<_>>();

    let mut written = Snippets::new(Area::Cast, "cast.driver.widening", Spread::One);
    let i32_written = rows(i32_of(&WRITTEN_I32), &WRITTEN_AMOUNTS);
    let u32_written = rows(u32_of(&WRITTEN_U32), &WRITTEN_AMOUNTS);
    write(
        &mut written,
        &[Form::Literal],
        &from_i32,
        &i32_written,
        &i32_shapes(),
    );
    write(
        &mut written,
        &[Form::Literal],
        &from_u32,
        &u32_written,
        &u32_shapes(),
    );
    let name = "cast.driver.widening.loop_counter";
    let mut loops = Snippets::new(Area::Cast, name, Spread::One).at_most(LOOPS_PER_PROGRAM);
    let counted = [Form::LoopCounter];
    let i32_counted = rows(i32_of(&COUNTED_I32), &COUNTED_AMOUNTS);
    let u32_counted = rows(u32_of(&COUNTED_U32), &COUNTED_AMOUNTS);
    write(&mut loops, &counted, &from_i32, &i32_counted, &i32_shapes());
    write(&mut loops, &counted, &from_u32, &u32_counted, &u32_shapes());

    // Eight invocations from each base: 0..7 (the bug's `i32(gid.x)`), -8..-1, MAX - 3 on to
    // MIN + 3; unsigned from 2^32 - 4 on to 3.
    let i32_bases = rows(i32_of(&[0, -8, i32::MAX - 3]), &WRITTEN_AMOUNTS);
    let u32_bases = rows(u32_of(&[0xffff_fffc]), &WRITTEN_AMOUNTS);
    let by_id = by_invocation(Area::Cast, "cast.driver.widening", 8, |batch| {
        write(batch, &[Form::Tid], &from_i32, &i32_bases, &i32_shapes());
        write(batch, &[Form::Tid], &from_u32, &u32_bases, &u32_shapes());
    });

    let mut out = written.into_batches();
    out.extend(loops.into_batches());
    out.extend(by_id);
    out.extend([
        loaded(
            Area::Cast,
            "cast.driver.widening.i32.load",
            &from_i32,
            rows(i32_of(&I32_VALUES), &AMOUNTS),
            &i32_shapes(),
        ),
        loaded(
            Area::Cast,
            "cast.driver.widening.u32.load",
            &from_u32,
            rows(u32_of(&U32_VALUES), &AMOUNTS),
            &u32_shapes(),
        ),
    ]);
    out
}
