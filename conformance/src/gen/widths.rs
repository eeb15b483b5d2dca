//! Width casts (`Feature::WidthCasts`): conversions between integer widths and signedness right
//! next to shifts and remainders.
//!
//! The NVIDIA H100 (driver 580.159.04) stored `0xffffffff80000000` for `u64(i32(tid)) << 959816159u`
//! where the law (SEMANTICS.md sections 4 and 6) gives `1 << 31` for `tid = 1`: it shifted in 32
//! bits and sign-extended after, as if the cast had moved past the shift. So the generator builds
//! both orders, `T(x) op k` and `T(x op k)`, and the cast through a third width (`u64(u32(x64))`,
//! narrowing then widening), with shift amounts near 32 and 64, large literal ones, and remainders
//! by edge literals (`i64(i32 x) % -1i64`), sometimes taken again (`(u32(x64) % 2147483649u) % 2u`).
//! The operand is often a variable (a loop counter included) or `tid` converted, as in the H100
//! case. Integer arithmetic only: comparable as it is.

use vyre_foundation::ir::{DataType, Expr};

use crate::r#gen::decode::Ctx;
use crate::r#gen::edges::int_literal;
use crate::r#gen::layout::types;
use crate::r#gen::recipe::Choices;

/// Shift amounts around the widths: a shift by 32 or 64 is a shift by 0 of a 32- or 64-bit value,
/// by 31 or 63 moves the lowest bit into the sign.
const AMOUNTS: [u32; 10] = [0, 1, 31, 32, 33, 63, 64, 65, 16, 48];

impl Ctx {
    /// An integer cast next to a shift or a remainder, of type `ty`.
    pub(crate) fn width_cast(&self, ch: &mut Choices<'_>, ty: DataType, depth: u32) -> Expr {
        let sources: Vec<DataType> = types(self.features)
            .into_iter()
            .filter(|t| t.is_integer() && *t != ty)
            .collect();
        let Some(&any) = sources.get(ch.below(sources.len())) else {
            return self.literal(ch, ty);
        };
        // Half the 64-bit ones widen an `i32`, the H100's case.
        let wide = ty.size_bytes() == 8;
        let from = if wide && ch.one_in(2) {
            DataType::I32
        } else {
            any
        };
        let x = self.edge_operand(ch, from, depth);
        match ch.below(4) {
            // The conversion first, then the operation at `ty`'s width: `u64(i32(x)) << k`.
            0 | 1 => self.shift_or_rem(ch, ty, Expr::cast(ty, x), depth),
            // The operation at the source's width, then the conversion: what the H100 ran instead.
            2 => Expr::cast(ty, self.shift_or_rem(ch, from, x, depth)),
            // Through a third width: narrowing then widening, or the other way round.
            _ => {
                let mid = sources[ch.below(sources.len())];
                let through = if mid == from {
                    Expr::cast(ty, x)
                } else {
                    Expr::cast(ty, Expr::cast(mid, x))
                };
                self.shift_or_rem(ch, ty, through, depth)
            }
        }
    }

    /// `value << k`, `value >> k` or `value % m` at type `ty`; a remainder is often taken again by
    /// a small literal or masked to its lowest bit (and that bit multiplied by a constant): the
    /// H100 got `(u32(i64 % c) % 2147483649u) % 2u` wrong, where each remainder alone was right
    /// (seeds 52013 and 65002, `nvidia-remainder-chain-of-narrowed`), and `((x64 % d) & 1) * K`
    /// (seeds 84001 and 85001, `nvidia-wide-quotient-low-bit`).
    fn shift_or_rem(&self, ch: &mut Choices<'_>, ty: DataType, value: Expr, depth: u32) -> Expr {
        match ch.below(4) {
            0 | 1 => Expr::shl(value, self.shift_amount(ch, depth)),
            2 => Expr::shr(value, self.shift_amount(ch, depth)),
            _ => {
                let rem = Expr::rem(value, self.edge_literal(ch, ty));
                match ch.below(5) {
                    0 => Expr::rem(rem, int_literal(ty, 2 + ch.below(7) as u64)),
                    1 => Expr::bit_and(rem, int_literal(ty, 1)),
                    // The lowest bit times a constant: the H100 read the bit of a 64-bit
                    // remainder wrong here (seeds 84001, 85001, `nvidia-wide-quotient-low-bit`).
                    2 => Expr::mul(
                        Expr::bit_and(rem, int_literal(ty, 1)),
                        int_literal(ty, u64::from(ch.next_word()) | 2),
                    ),
                    _ => rem,
                }
            }
        }
    }

    /// A `u32` shift amount: one near a width, any literal word (`959816159u`, which is 31 mod 64
    /// and mod 32), or an expression.
    fn shift_amount(&self, ch: &mut Choices<'_>, depth: u32) -> Expr {
        let word = ch.next_word();
        match word % 3 {
            0 => Expr::u32(AMOUNTS[(word >> 2) as usize % AMOUNTS.len()]),
            1 => Expr::u32(word),
            _ => self.expr(ch, DataType::U32, depth),
        }
    }
}
