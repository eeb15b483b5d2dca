//! The driver workarounds' rewrites (`crate::workarounds` says which drivers need which): each one
//! emits a value in a shape the affected driver compiles right, and each is exact on every driver.
//!
//! - **`IntMinMax`**: `min(a, b)` on integers is `select(b, a, (a ^ z) < b)` and `max(a, b)` is
//!   `select(b, a, (a ^ z) > b)`, with `z` the opaque zero (`params[7]`, always 0; see `params`).
//!   Since `a ^ 0 = a`, the select returns the smaller (larger) operand, and `b` on a tie, which
//!   equals `a`: exactly `min` (`max`). The driver sees no min or max, cannot relate the compare to
//!   the selected values, and cannot fold the compare of two constants.
//! - **`OpaqueWidening`**: a 32-bit integer widened to 64 bits is `(w << s) >> s` with
//!   `w = u64(bitcast<u32>(x))` (a zero extension) and `s = 32 + z`: shifting the low word to the
//!   top and back, arithmetically for a signed source, sign- or zero-extends it exactly, since
//!   `s` is 32 at run time. The driver cannot know `s`, so it cannot tell the value is an extension
//!   and cannot move the extension past a shift that follows.
//! - **`OpaqueDivisor`**: the divisor `d` of a 64-bit `/` or `%` (after the guard that replaces a
//!   zero divisor, and `-1` under `MIN`) is `d ^ z`: the same value, which the driver cannot know,
//!   so it cannot strength-reduce a division by a constant (a remainder by a power of two into a
//!   mask, a division into a multiply-high) and must run its general 64-bit division.
//! - **`SoftWideDivision`**: a 64-bit `/` or `%` is computed by vyre, never by the driver: by a
//!   multiply-high when the divisor is a literal, else by a shift-and-subtract loop
//!   (`lower/soft_division.rs` has both and their proofs).
//! - **`OpaqueNarrowing`**: a 64-bit integer narrowed to 32 bits is its low word (`u32(x &
//!   0xffffffff)`) xored with `z`: the same word, which the driver cannot relate to `x`, so what it
//!   knows of `x` (its range, that it came from a signed or a widened value) does not reach the
//!   32-bit arithmetic that follows.
//! - **`OpaqueWideCompare`**: an ordering comparison (`<`, `<=`, `>`, `>=`) of 64-bit integers is
//!   made on `l ^ z` and `r`: the same values, so the same answer, but the driver cannot fold the
//!   left operand or order the two by what it knows of their low words.
//! - **`OpaqueF16Sum`**: an `f16` sum or difference `s` is `f16(bitcast<f32>(bitcast<u32>(f32(s))
//!   ^ z))`: `f32(s)` is exact, the bits xored with 0 are the same bits, and `f16` of an `f32` that
//!   is an `f16` value is that value, so the result is `s` bit for bit (`-0.0` and NaNs included).
//!   The driver sees no sum where a product uses it, so it cannot rewrite `(x + K) * c` as
//!   `fma(x, c, K * c)` with `K * c` rounded to `f16` first.
//! - **`F16Rounding`**: before a conversion to `f16`, the `f32` value (an integer source is first
//!   converted to `f32`, exactly: every integer that does not overflow `f16` is below 2^24) is
//!   rounded to the nearest `f16` value, ties to even, in integer arithmetic on its bits (below).
//!   The conversion then meets a value it represents exactly, so a driver that drops it (folding
//!   `f32(f16(x))` to `x`) computes the law's value all the same.
//!
//! The rounding: with `e` the biased `f32` exponent and `m` the 24-bit significand (implicit bit
//! included), the value is `m * 2^(e - 150)`. An `f16` keeps 11 significant bits down to 2^-14 and
//! a fixed step of 2^-24 below it, so `drop = 13` low bits of `m` go for `e >= 113`, `126 - e`
//! below (14 at `e = 112`, 24 at `e = 102`), and at most 25, which rounds every smaller value to 0
//! (they are below 2^-25, half the least subnormal). `q = m >> drop` is rounded up when the dropped
//! bits exceed half a step, or equal it with `q` odd; `q << drop` (at most 2^25, so a rounding that
//! carries into the next binade is exact too) is converted to `f32` exactly and scaled by
//! `ldexp(_, e - 150)` (exact: every nonzero result lies in `[2^-24, 2^129]`), the sign is put
//! back, and infinities and NaNs (`e = 255`) pass through unchanged. Values that round past 65504
//! overflow the conversion as they would have without the rewrite (indeterminate by the law).

use naga::{
    BinaryOperator as B, Block, Expression, Handle, Literal, MathFunction as M, ScalarKind,
};
use vyre_driver::BackendError;
use vyre_foundation::ir::{BinOp, DataType};

use super::Lowerer;
use super::expr::scalar_kind;
use super::planted::{Miscompile, planted};
use crate::workarounds::Workaround;

impl Lowerer<'_, '_> {
    /// The opaque zero as a `u32`.
    fn opaque_zero(&self) -> Result<Handle<Expression>, BackendError> {
        self.prologue.opaque_zero.ok_or_else(|| {
            BackendError::compile(
                "a driver workaround needed the opaque zero, which the prologue did not load. Fix: this is a vyre lowering bug; report it with the program text (Display) and the VYRE_WORKAROUNDS in force.",
            )
        })
    }

    /// `v ^ z`: the integer `v` of type `ty` xored with the opaque zero (zero-extended to 64 bits
    /// for a 64-bit `ty`), the same value in a form no compiler can fold or reason about.
    fn hidden(
        &mut self,
        block: &mut Block,
        v: Handle<Expression>,
        ty: DataType,
    ) -> Result<Handle<Expression>, BackendError> {
        let zero = self.opaque_zero()?;
        let zero = self.word_as(block, zero, ty);
        Ok(self.fb.binary(block, B::ExclusiveOr, v, zero))
    }

    /// The `f16` sum or difference `sum` through the opaque zero when `OpaqueF16Sum` is in force
    /// (see the module docs); `sum` itself otherwise, and for every other type.
    pub(crate) fn opaque_f16_sum(
        &mut self,
        block: &mut Block,
        sum: Handle<Expression>,
        ty: DataType,
    ) -> Result<Handle<Expression>, BackendError> {
        if ty != DataType::F16 || !self.workarounds.contains(Workaround::OpaqueF16Sum) {
            return Ok(sum);
        }
        let zero = self.opaque_zero()?;
        let cast =
            |fb: &mut super::func::FunctionBuilder, block: &mut Block, expr, kind, convert| {
                fb.expr(
                    block,
                    Expression::As {
                        expr,
                        kind,
                        convert,
                    },
                )
            };
        let wide = cast(&mut self.fb, block, sum, ScalarKind::Float, Some(4));
        let bits = cast(&mut self.fb, block, wide, ScalarKind::Uint, None);
        let hidden = self.fb.binary(block, B::ExclusiveOr, bits, zero);
        let back = cast(&mut self.fb, block, hidden, ScalarKind::Float, None);
        Ok(cast(&mut self.fb, block, back, ScalarKind::Float, Some(2)))
    }

    /// `min(l, r)` or `max(l, r)` of type `ty`, as the workarounds in force say.
    pub(crate) fn min_max(
        &mut self,
        block: &mut Block,
        op: BinOp,
        l: Handle<Expression>,
        r: Handle<Expression>,
        ty: DataType,
    ) -> Result<Handle<Expression>, BackendError> {
        let fun = if op == BinOp::Min { M::Min } else { M::Max };
        if !(ty.is_integer() && self.workarounds.contains(Workaround::IntMinMax)) {
            return Ok(self.fb.math(block, fun, &[l, r]));
        }
        let hidden = self.hidden(block, l, ty)?;
        let compare = if op == BinOp::Min {
            B::Less
        } else {
            B::Greater
        };
        let pick_l = if ty.is_signed() && planted(Miscompile::WorkaroundMinMaxUnsigned) {
            let hidden = self.reinterpret(block, hidden, ScalarKind::Sint, ScalarKind::Uint);
            let r = self.reinterpret(block, r, ScalarKind::Sint, ScalarKind::Uint);
            self.fb.binary(block, compare, hidden, r)
        } else {
            self.fb.binary(block, compare, hidden, r)
        };
        Ok(self.fb.select(block, pick_l, l, r))
    }

    /// The `u32` word `word` as a value of the integer type `ty` (zero-extended to 64 bits).
    fn word_as(
        &mut self,
        block: &mut Block,
        word: Handle<Expression>,
        ty: DataType,
    ) -> Handle<Expression> {
        let wide = if ty.bits() == 64 {
            self.fb.expr(
                block,
                Expression::As {
                    expr: word,
                    kind: ScalarKind::Uint,
                    convert: Some(8),
                },
            )
        } else {
            word
        };
        self.reinterpret(block, wide, ScalarKind::Uint, scalar_kind(ty))
    }

    /// The 32-bit integer `a` of type `from` widened to the 64-bit `to` with shifts by the opaque
    /// `32 + z` (see the module docs); `None` when `OpaqueWidening` is not in force.
    pub(crate) fn opaque_widening(
        &mut self,
        block: &mut Block,
        a: Handle<Expression>,
        from: DataType,
        to: DataType,
    ) -> Result<Option<Handle<Expression>>, BackendError> {
        if !self.workarounds.contains(Workaround::OpaqueWidening) {
            return Ok(None);
        }
        let zero = self.opaque_zero()?;
        let bits = self.reinterpret(block, a, scalar_kind(from), ScalarKind::Uint);
        let wide = self.fb.expr(
            block,
            Expression::As {
                expr: bits,
                kind: ScalarKind::Uint,
                convert: Some(8),
            },
        );
        // The shift back is arithmetic on a signed value: it copies the sign bit down.
        let kind = if planted(Miscompile::WorkaroundWideningLogical) {
            ScalarKind::Uint
        } else {
            scalar_kind(from)
        };
        let wide = self.reinterpret(block, wide, ScalarKind::Uint, kind);
        let half = self.fb.u32(block, 32);
        let amount = self.fb.binary(block, B::Add, half, zero);
        let up = self.fb.binary(block, B::ShiftLeft, wide, amount);
        let extended = self.fb.binary(block, B::ShiftRight, up, amount);
        Ok(Some(self.reinterpret(
            block,
            extended,
            kind,
            scalar_kind(to),
        )))
    }

    /// The divisor `d` of a 64-bit division or remainder as `d ^ z` with the opaque zero when
    /// `OpaqueDivisor` is in force (see the module docs); `d` itself otherwise.
    pub(crate) fn opaque_divisor(
        &mut self,
        block: &mut Block,
        d: Handle<Expression>,
        ty: DataType,
    ) -> Result<Handle<Expression>, BackendError> {
        if !(ty.is_integer()
            && ty.bits() == 64
            && self.workarounds.contains(Workaround::OpaqueDivisor))
        {
            return Ok(d);
        }
        self.hidden(block, d, ty)
    }

    /// The ordering comparison `l op r` of two values of type `ty`, with `l` xored with the opaque
    /// zero when `ty` is a 64-bit integer and `OpaqueWideCompare` is in force (see the module docs).
    pub(crate) fn ordering(
        &mut self,
        block: &mut Block,
        op: B,
        l: Handle<Expression>,
        r: Handle<Expression>,
        ty: DataType,
    ) -> Result<Handle<Expression>, BackendError> {
        let l = if ty.is_integer()
            && ty.bits() == 64
            && self.workarounds.contains(Workaround::OpaqueWideCompare)
        {
            self.hidden(block, l, ty)?
        } else {
            l
        };
        Ok(self.fb.binary(block, op, l, r))
    }

    /// The low word `word` of a narrowed 64-bit integer as `word ^ z` with the opaque zero when
    /// `OpaqueNarrowing` is in force (see the module docs); `word` itself otherwise.
    pub(crate) fn opaque_narrowing(
        &mut self,
        block: &mut Block,
        word: Handle<Expression>,
    ) -> Result<Handle<Expression>, BackendError> {
        if !self.workarounds.contains(Workaround::OpaqueNarrowing) {
            return Ok(word);
        }
        self.hidden(block, word, DataType::U32)
    }

    /// The value `a` of type `from` (an `f32` or an integer) rounded to the nearest `f16`, as an
    /// `f32`, when `F16Rounding` is in force (see the module docs); `None` otherwise.
    pub(crate) fn f16_rounded(
        &mut self,
        block: &mut Block,
        a: Handle<Expression>,
        from: DataType,
    ) -> Option<Handle<Expression>> {
        if !self.workarounds.contains(Workaround::F16Rounding) {
            return None;
        }
        let x = if from == DataType::F32 {
            a
        } else {
            self.fb.expr(
                block,
                Expression::As {
                    expr: a,
                    kind: ScalarKind::Float,
                    convert: Some(4),
                },
            )
        };
        Some(self.round_to_f16_grid(block, x))
    }

    /// The `f32` `x` rounded to the nearest value an `f16` holds, ties to even.
    fn round_to_f16_grid(
        &mut self,
        block: &mut Block,
        x: Handle<Expression>,
    ) -> Handle<Expression> {
        let b = self.reinterpret(block, x, ScalarKind::Float, ScalarKind::Uint);
        let k23 = self.fb.u32(block, 23);
        let shifted = self.fb.binary(block, B::ShiftRight, b, k23);
        let byte = self.fb.u32(block, 0xff);
        let e = self.fb.binary(block, B::And, shifted, byte);
        // drop = 13 for e >= 113, else min(126 - e, 25).
        let k113 = self.fb.u32(block, 113);
        let subnormal = self.fb.binary(block, B::Less, e, k113);
        let k126 = self.fb.u32(block, 126);
        let below = self.fb.binary(block, B::Subtract, k126, e);
        let k13 = self.fb.u32(block, 13);
        let drop = self.fb.select(block, subnormal, below, k13);
        let k25 = self.fb.u32(block, 25);
        let too_far = self.fb.binary(block, B::Greater, drop, k25);
        let drop = self.fb.select(block, too_far, k25, drop);
        // m = the significand with its implicit bit.
        let fraction = self.fb.u32(block, 0x007f_ffff);
        let implicit = self.fb.u32(block, 0x0080_0000);
        let low = self.fb.binary(block, B::And, b, fraction);
        let m = self.fb.binary(block, B::InclusiveOr, low, implicit);
        let one = self.fb.u32(block, 1);
        let step = self.fb.binary(block, B::ShiftLeft, one, drop);
        let mask = self.fb.binary(block, B::Subtract, step, one);
        let drop_less_one = self.fb.binary(block, B::Subtract, drop, one);
        let half = self.fb.binary(block, B::ShiftLeft, one, drop_less_one);
        let rest = self.fb.binary(block, B::And, m, mask);
        let q = self.fb.binary(block, B::ShiftRight, m, drop);
        // Up when past half a step, or at half a step with `q` odd (ties to even).
        let past = self.fb.binary(block, B::Greater, rest, half);
        let at_half = self.fb.binary(block, B::Equal, rest, half);
        let odd_bit = self.fb.binary(block, B::And, q, one);
        let odd = self.fb.binary(block, B::Equal, odd_bit, one);
        let tie_up = if planted(Miscompile::WorkaroundF16TiesAway) {
            at_half
        } else {
            self.fb.binary(block, B::LogicalAnd, at_half, odd)
        };
        let up = self.fb.binary(block, B::LogicalOr, past, tie_up);
        let zero = self.fb.u32(block, 0);
        let carry = self.fb.select(block, up, one, zero);
        let q = self.fb.binary(block, B::Add, q, carry);
        let kept = self.fb.binary(block, B::ShiftLeft, q, drop);
        let kept = self.fb.expr(
            block,
            Expression::As {
                expr: kept,
                kind: ScalarKind::Float,
                convert: Some(4),
            },
        );
        // The scale 2^(e - 150) as ldexp's i32 exponent.
        let e_signed = self.reinterpret(block, e, ScalarKind::Uint, ScalarKind::Sint);
        let bias = self.fb.expr(block, Expression::Literal(Literal::I32(150)));
        let exponent = self.fb.binary(block, B::Subtract, e_signed, bias);
        let magnitude = self.fb.math(block, M::Ldexp, &[kept, exponent]);
        // The sign bit back, by bits (a move: the sign of a zero is kept too).
        let magnitude_bits =
            self.reinterpret(block, magnitude, ScalarKind::Float, ScalarKind::Uint);
        let sign_mask = self.fb.u32(block, 0x8000_0000);
        let sign = self.fb.binary(block, B::And, b, sign_mask);
        let signed_bits = self.fb.binary(block, B::InclusiveOr, magnitude_bits, sign);
        let rounded = self.reinterpret(block, signed_bits, ScalarKind::Uint, ScalarKind::Float);
        let special = self.fb.binary(block, B::Equal, e, byte);
        self.fb.select(block, special, x, rounded)
    }
}

#[cfg(test)]
mod tests {
    use vyre_foundation::ir::Program;

    use crate::lower::{Form, ProgramFacts, lower, to_wgsl};
    use crate::workarounds::{Workaround, Workarounds};

    /// The shape NVIDIA distributes (`nvidia-f16-distributed-product`, DRIVER_BUGS.md).
    const PRODUCT_OF_A_SUM: &str = "program @workgroup_size(1, 1, 1) {
      buffer out0: output f16[5] @binding(0);
      buffer in1: read f16[25] @binding(1);
      let tid = gid.x;
      out0[tid] = ((13.75h - in1[((tid << 2u) + 2u)]) * -15.75h);
    }";

    fn wgsl(workarounds: Workarounds) -> String {
        let program: Program = PRODUCT_OF_A_SUM.parse().expect("parses");
        let evidence = vyre_foundation::validate(&program).expect("valid");
        let facts = ProgramFacts::of(&evidence);
        let lowered = lower(&evidence, &facts, &Form::default(), workarounds).expect("lowers");
        to_wgsl(&lowered).expect("writes")
    }

    #[test]
    fn an_f16_sum_goes_through_the_opaque_zero_only_under_its_workaround() {
        let hidden = wgsl(Workarounds::NONE.with(Workaround::OpaqueF16Sum));
        assert!(hidden.contains("bitcast<u32>(f32("), "{hidden}");
        assert!(hidden.contains("vyre_params[7u]"), "{hidden}");
        let plain = wgsl(Workarounds::NONE);
        assert!(!plain.contains("bitcast"), "{plain}");
        assert!(!plain.contains("vyre_params[7u]"), "{plain}");
    }
}
