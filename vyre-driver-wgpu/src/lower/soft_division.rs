//! The `SoftWideDivision` workaround: every 64-bit integer `/` and `%` computed by vyre's own
//! code, so the driver never sees a 64-bit division (on the H100 its run-time division routine got
//! result bits wrong, and its expansion of a division by a constant broke an `abs` of the same
//! value; DRIVER_BUGS.md). The divisor arrives guarded (`d != 0`, and never `MIN / -1`; see
//! `lower/expr.rs`), so both forms below only have to compute the truncating quotient and the
//! remainder of a nonzero divisor.
//!
//! **A literal divisor: multiply-high.** For an unsigned `d >= 2` with `l = ceil(log2(d))`
//! (`1 <= l <= 64`) and `m = floor(2^64 * (2^l - d) / d) + 1` (below 2^64 since `2^l - d < d`),
//! Granlund and Montgomery's theorem (division by invariant integers, 1994, section 4) gives, for
//! every 64-bit `x`, `t = mulhi(m, x)` and `x / d = (t + ((x - t) >> 1)) >> (l - 1)`, where
//! `t <= x` so `x - t` does not wrap and the sum does not overflow. `d = 1` is `x` itself. The
//! remainder is `x - (x / d) * d` (wrapping arithmetic, exact since the product is at most `x`).
//! `mulhi` is schoolbook on 32-bit halves held in `u64`s (`x = a 2^32 + b`, `m = c 2^32 + e`):
//! `hi = ac + (ae >> 32) + (bc >> 32) + (((be >> 32) + (ae & M) + (bc & M)) >> 32)` with
//! `M = 2^32 - 1`; every product of two halves is below 2^64 and the middle sum below 3 * 2^32.
//! The `rust` tests below check the formula against `u128` division over edge and random values.
//!
//! **Any other divisor: restoring division.** Over the dividend's bits from the top, `r = 2r +
//! bit`; when the bit shifted out of `r` was set or `r - d` does not borrow (`r >= d`), `r -= d`
//! and the quotient's bit is set. Since `r < d` before each step, `2r + bit < 2d`, so one
//! subtraction suffices, and when the top bit fell out (`2r + bit >= 2^64 > d`) the wrapped
//! `r - d` is the true difference. The borrow of `a - b` is bit 63 of `(!a & b) | (!(a ^ b) &
//! (a - b))`, so the loop has no 64-bit compare, select or divide: nothing of the driver's
//! division routine and no ordering of 64-bit values (another class of its bugs).
//!
//! **Signed.** The division of the magnitudes (`(x ^ m) - m` with `m` the sign mask; `|MIN|` is
//! 2^63 as a u64), the quotient negated when the signs differ and the remainder when the dividend
//! is negative, `(v ^ m) - m` again: WGSL's truncating division and its remainder with the
//! dividend's sign, exactly. A literal signed divisor `c` (never 0 or -1 here: the guard makes a
//! literal 0 into 1, and -1 keeps the loop, its guard depending on `x`) divides by the literal
//! magnitude `|c|` with the sign flag a literal too.

use naga::{BinaryOperator as B, Block, Expression, Handle, Literal, ScalarKind, Statement};
use vyre_foundation::ir::{BinOp, DataType};

use super::Lowerer;
use super::planted::{Miscompile, planted};
use crate::workarounds::Workaround;

/// The constants of the multiply-high division by the literal `d >= 2`: `(m, l)` with
/// `l = ceil(log2(d))` and `m = floor(2^64 * (2^l - d) / d) + 1` (see the module docs).
pub(crate) fn magic(d: u64) -> (u64, u32) {
    debug_assert!(d >= 2);
    let l = 64 - (d - 1).leading_zeros();
    let m = ((1u128 << 64) * ((1u128 << l) - u128::from(d)) / u128::from(d) + 1) as u64;
    (m, l)
}

/// The bits of a 64-bit literal divisor the multiply-high can take: not 0 (the guard makes it 1)
/// and not the signed -1 (whose guard depends on the dividend).
fn literal_divisor(divisor: &Expression) -> Option<u64> {
    if let Expression::Literal(Literal::U64(c)) = *divisor {
        return (c != 0).then_some(c);
    }
    if let Expression::Literal(Literal::I64(c)) = *divisor {
        return (c != 0 && c != -1).then_some(c as u64);
    }
    None
}

/// The divisor of a division: a literal the lowering can divide by with a multiply-high, or a
/// value known only at run time.
#[derive(Clone, Copy)]
enum Divisor {
    Literal(u64),
    Value(Handle<Expression>),
}

impl Lowerer<'_, '_> {
    /// The 64-bit integer `l / d` or `l % d` (`op`) of type `ty` computed by vyre when
    /// `SoftWideDivision` is in force (see the module docs): `d` is the guarded divisor (nonzero,
    /// and not -1 under `MIN`) and `unguarded` the program's divisor before the guard. `None`
    /// when the driver's division is to be used.
    pub(crate) fn soft_wide_division(
        &mut self,
        block: &mut Block,
        op: BinOp,
        l: Handle<Expression>,
        (d, unguarded): (Handle<Expression>, Handle<Expression>),
        ty: DataType,
    ) -> Option<Handle<Expression>> {
        if !(ty.is_integer()
            && ty.bits() == 64
            && self.workarounds.contains(Workaround::SoftWideDivision))
        {
            return None;
        }
        let literal = literal_divisor(&self.fb.function.expressions[unguarded]);
        if !ty.is_signed() {
            let divisor = literal.map_or(Divisor::Value(d), Divisor::Literal);
            let (quotient, remainder) = self.unsigned_wide_division(block, l, divisor);
            return Some(if op == BinOp::Div {
                quotient
            } else {
                remainder
            });
        }
        let l = self.reinterpret(block, l, ScalarKind::Sint, ScalarKind::Uint);
        let sixty_three = self.fb.u32(block, 63);
        let l_negative = self.fb.binary(block, B::ShiftRight, l, sixty_three);
        let l_magnitude = self.negated_if(block, l, l_negative);
        let (d_magnitude, d_negative) = match literal {
            Some(c) => {
                let negative = c >> 63;
                let flag = self.wide(block, negative);
                let magnitude = if negative == 1 { c.wrapping_neg() } else { c };
                (Divisor::Literal(magnitude), flag)
            }
            None => {
                let d = self.reinterpret(block, d, ScalarKind::Sint, ScalarKind::Uint);
                let negative = self.fb.binary(block, B::ShiftRight, d, sixty_three);
                let magnitude = self.negated_if(block, d, negative);
                (Divisor::Value(magnitude), negative)
            }
        };
        let (quotient, remainder) = self.unsigned_wide_division(block, l_magnitude, d_magnitude);
        let result = if op == BinOp::Div {
            let signs_differ = self
                .fb
                .binary(block, B::ExclusiveOr, l_negative, d_negative);
            self.negated_if(block, quotient, signs_differ)
        } else {
            let sign = if planted(Miscompile::WorkaroundSoftRemainderSign) {
                d_negative
            } else {
                l_negative
            };
            self.negated_if(block, remainder, sign)
        };
        Some(self.reinterpret(block, result, ScalarKind::Uint, ScalarKind::Sint))
    }

    /// The `u64` literal `v`.
    fn wide(&mut self, block: &mut Block, v: u64) -> Handle<Expression> {
        self.fb.expr(block, Expression::Literal(Literal::U64(v)))
    }

    /// The `u64` `v` negated (wrapping) when the `u64` `flag` is 1, `v` when it is 0: `(v ^ m) - m`
    /// with the mask `m = 0 - flag`, no select for the driver to reason about.
    fn negated_if(
        &mut self,
        block: &mut Block,
        v: Handle<Expression>,
        flag: Handle<Expression>,
    ) -> Handle<Expression> {
        let zero = self.wide(block, 0);
        let mask = self.fb.binary(block, B::Subtract, zero, flag);
        let flipped = self.fb.binary(block, B::ExclusiveOr, v, mask);
        self.fb.binary(block, B::Subtract, flipped, mask)
    }

    /// The quotient and remainder of the `u64`s `x / d` (`d != 0`).
    fn unsigned_wide_division(
        &mut self,
        block: &mut Block,
        x: Handle<Expression>,
        d: Divisor,
    ) -> (Handle<Expression>, Handle<Expression>) {
        match d {
            Divisor::Literal(1) => {
                let zero = self.wide(block, 0);
                (x, zero)
            }
            Divisor::Literal(c) => self.multiply_high_division(block, x, c),
            Divisor::Value(d) => self.restoring_division(block, x, d),
        }
    }

    /// `x / c` and `x % c` for the literal `c >= 2` by a multiply-high (see the module docs).
    fn multiply_high_division(
        &mut self,
        block: &mut Block,
        x: Handle<Expression>,
        c: u64,
    ) -> (Handle<Expression>, Handle<Expression>) {
        let (m, l) = magic(c);
        let t = self.multiply_high(block, x, m);
        let difference = self.fb.binary(block, B::Subtract, x, t);
        let one = self.fb.u32(block, 1);
        let half = self.fb.binary(block, B::ShiftRight, difference, one);
        let sum = self.fb.binary(block, B::Add, t, half);
        let shift = self.fb.u32(block, l - 1);
        let quotient = self.fb.binary(block, B::ShiftRight, sum, shift);
        let c = self.wide(block, c);
        let product = self.fb.binary(block, B::Multiply, quotient, c);
        let remainder = self.fb.binary(block, B::Subtract, x, product);
        (quotient, remainder)
    }

    /// The high 64 bits of the 128-bit product of the `u64` `x` and the literal `m`, from 32-bit
    /// halves (see the module docs).
    fn multiply_high(
        &mut self,
        block: &mut Block,
        x: Handle<Expression>,
        m: u64,
    ) -> Handle<Expression> {
        let low_mask = self.wide(block, 0xffff_ffff);
        let thirty_two = self.fb.u32(block, 32);
        let a = self.fb.binary(block, B::ShiftRight, x, thirty_two);
        let b = self.fb.binary(block, B::And, x, low_mask);
        let c = self.wide(block, m >> 32);
        let e = self.wide(block, m & 0xffff_ffff);
        let ac = self.fb.binary(block, B::Multiply, a, c);
        let ae = self.fb.binary(block, B::Multiply, a, e);
        let bc = self.fb.binary(block, B::Multiply, b, c);
        let be = self.fb.binary(block, B::Multiply, b, e);
        let be_high = self.fb.binary(block, B::ShiftRight, be, thirty_two);
        let ae_low = self.fb.binary(block, B::And, ae, low_mask);
        let bc_low = self.fb.binary(block, B::And, bc, low_mask);
        let middle = self.fb.binary(block, B::Add, be_high, ae_low);
        let middle = self.fb.binary(block, B::Add, middle, bc_low);
        let carry = self.fb.binary(block, B::ShiftRight, middle, thirty_two);
        let ae_high = self.fb.binary(block, B::ShiftRight, ae, thirty_two);
        let bc_high = self.fb.binary(block, B::ShiftRight, bc, thirty_two);
        let high = self.fb.binary(block, B::Add, ac, ae_high);
        let high = self.fb.binary(block, B::Add, high, bc_high);
        if planted(Miscompile::WorkaroundSoftMultiplyHighNoCarry) {
            return high;
        }
        self.fb.binary(block, B::Add, high, carry)
    }

    /// The quotient and remainder of the `u64`s `x / d` (`d != 0`) by restoring division, one
    /// bit of `x` a trip, from the top (see the module docs).
    fn restoring_division(
        &mut self,
        block: &mut Block,
        x: Handle<Expression>,
        d: Handle<Expression>,
    ) -> (Handle<Expression>, Handle<Expression>) {
        let wide = self.types.value(DataType::U64);
        let word = self.types.value(DataType::U32);
        let quotient = self.fb.local(block, Some("vyre_quotient".to_owned()), wide);
        let remainder = self
            .fb
            .local(block, Some("vyre_remainder".to_owned()), wide);
        let bits_left = self
            .fb
            .local(block, Some("vyre_bits_left".to_owned()), word);
        let zero = self.fb.expr(block, Expression::Literal(Literal::U64(0)));
        let sixty_four = self.fb.u32(block, 64);
        for (pointer, value) in [(quotient, zero), (remainder, zero), (bits_left, sixty_four)] {
            self.fb.stmt(block, Statement::Store { pointer, value });
        }
        self.fb.flush(block);

        let mut body = Block::new();
        let b = &mut body;
        let left = self.fb.load(b, bits_left);
        let none = self.fb.u32(b, 0);
        let done = self.fb.binary(b, B::Equal, left, none);
        self.fb
            .if_then(b, done, |fb, inner| fb.stmt(inner, Statement::Break));
        let one = self.fb.u32(b, 1);
        let bit_index = self.fb.binary(b, B::Subtract, left, one);
        self.fb.stmt(
            b,
            Statement::Store {
                pointer: bits_left,
                value: bit_index,
            },
        );
        let wide_one = self.fb.expr(b, Expression::Literal(Literal::U64(1)));
        let wide_zero = self.fb.expr(b, Expression::Literal(Literal::U64(0)));
        let sixty_three = self.fb.u32(b, 63);
        let r = self.fb.load(b, remainder);
        let top = self.fb.binary(b, B::ShiftRight, r, sixty_three);
        let shifted_x = self.fb.binary(b, B::ShiftRight, x, bit_index);
        let bit = self.fb.binary(b, B::And, shifted_x, wide_one);
        let doubled = self.fb.binary(b, B::ShiftLeft, r, one);
        let r = self.fb.binary(b, B::InclusiveOr, doubled, bit);
        // The borrow of `r - d`: bit 63 of `(!r & d) | (!(r ^ d) & (r - d))`.
        let difference = self.fb.binary(b, B::Subtract, r, d);
        let not_r = self.fb.expr(
            b,
            Expression::Unary {
                op: naga::UnaryOperator::BitwiseNot,
                expr: r,
            },
        );
        let d_above = self.fb.binary(b, B::And, not_r, d);
        let same = self.fb.binary(b, B::ExclusiveOr, r, d);
        let same = self.fb.expr(
            b,
            Expression::Unary {
                op: naga::UnaryOperator::BitwiseNot,
                expr: same,
            },
        );
        let wrapped = self.fb.binary(b, B::And, same, difference);
        let borrows = self.fb.binary(b, B::InclusiveOr, d_above, wrapped);
        let borrow = self.fb.binary(b, B::ShiftRight, borrows, sixty_three);
        let fits = self.fb.binary(b, B::ExclusiveOr, borrow, wide_one);
        let take = self.fb.binary(b, B::InclusiveOr, top, fits);
        let mask = self.fb.binary(b, B::Subtract, wide_zero, take);
        let taken = self.fb.binary(b, B::And, d, mask);
        let r = self.fb.binary(b, B::Subtract, r, taken);
        self.fb.stmt(
            b,
            Statement::Store {
                pointer: remainder,
                value: r,
            },
        );
        let q = self.fb.load(b, quotient);
        let q_bit = self.fb.binary(b, B::ShiftLeft, take, bit_index);
        let q = self.fb.binary(b, B::InclusiveOr, q, q_bit);
        self.fb.stmt(
            b,
            Statement::Store {
                pointer: quotient,
                value: q,
            },
        );
        self.fb.flush(b);
        self.fb.stmt(
            block,
            Statement::Loop {
                body,
                continuing: Block::new(),
                break_if: None,
            },
        );
        let q = self.fb.load(block, quotient);
        let r = self.fb.load(block, remainder);
        (q, r)
    }
}

#[cfg(test)]
mod tests {
    use super::magic;

    /// The multiply-high division exactly as the lowering emits it, in Rust.
    fn divide(x: u64, d: u64) -> (u64, u64) {
        if d == 1 {
            return (x, 0);
        }
        let (m, l) = magic(d);
        let (a, b) = (x >> 32, x & 0xffff_ffff);
        let (c, e) = (m >> 32, m & 0xffff_ffff);
        let (ac, ae, bc, be) = (a * c, a * e, b * c, b * e);
        let middle = (be >> 32) + (ae & 0xffff_ffff) + (bc & 0xffff_ffff);
        let t = ac + (ae >> 32) + (bc >> 32) + (middle >> 32);
        let q = (t + ((x - t) >> 1)) >> (l - 1);
        (q, x.wrapping_sub(q.wrapping_mul(d)))
    }

    #[test]
    fn multiply_high_division_is_exact() {
        let mut divisors: Vec<u64> = vec![1, 2, 3, 5, 7, 10, 17, 97, 1_000_003, 641, 6_700_417];
        for k in 1..64 {
            let p = 1u64 << k;
            divisors.extend([p - 1, p, p + 1]);
        }
        divisors.extend([
            u64::MAX,
            u64::MAX - 1,
            u64::MAX / 3,
            (1 << 63) + 1,
            0xffff_ffff,
        ]);
        let mut values: Vec<u64> = vec![0, 1, 2, u64::MAX, u64::MAX - 1, 1 << 63, (1 << 63) - 1];
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for _ in 0..400 {
            divisors.push(next() >> (next() % 64));
            values.push(next() >> (next() % 64));
        }
        divisors.retain(|&d| d != 0);
        for &d in &divisors {
            let mut near: Vec<u64> = values.clone();
            for k in [1u64, 2, 3, 1000] {
                near.extend([d.wrapping_mul(k), d.wrapping_mul(k).wrapping_sub(1)]);
                near.push(d.wrapping_mul(k).wrapping_add(1));
            }
            for &x in &near {
                assert_eq!(divide(x, d), (x / d, x % d), "{x} / {d}");
            }
        }
    }
}
