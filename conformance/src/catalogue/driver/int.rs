//! Integer values of one type as element bits (zero-extended to `u64`), computed by the
//! hand-written rules of SEMANTICS.md section 4: [`oracle::binary`] for the 32-bit types and
//! [`binary64`] for the 64-bit ones, so the driver cases' expectations never come from the
//! reference.

use vyre_foundation::ir::{BinOp, DataType, UnOp};

use crate::catalogue::oracle;
use crate::catalogue::wide::binary64;

/// Arithmetic on the element bits of one integer type.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Int(pub(crate) DataType);

impl Int {
    fn wide(self) -> bool {
        self.0.size_bytes() == 8
    }

    /// The bits of the value `v` in this type (wrapped to its width).
    pub(crate) fn of(self, v: i64) -> u64 {
        if self.wide() {
            v as u64
        } else {
            u64::from(v as u32)
        }
    }

    /// The value of `bits`, sign-extended for a signed type.
    pub(crate) fn value(self, bits: u64) -> i128 {
        match (self.wide(), self.0.is_signed()) {
            (true, true) => i128::from(bits as i64),
            (true, false) => i128::from(bits),
            (false, true) => i128::from(bits as u32 as i32),
            (false, false) => i128::from(bits as u32),
        }
    }

    /// `op(a, b)`; a bool result is 0 or 1. An operator the oracles do not define on integers
    /// (`and`, `or`) gives 0; no shape uses one.
    pub(crate) fn bin(self, op: BinOp, a: u64, b: u64) -> u64 {
        let result = if self.wide() {
            binary64(op, self.0, a, b)
        } else {
            oracle::binary(op, self.0, a as u32, b as u32).map(u64::from)
        };
        result.unwrap_or(0)
    }

    /// `-a`, wrapping (`-MIN = MIN`).
    pub(crate) fn neg(self, a: u64) -> u64 {
        if self.wide() {
            (a as i64).wrapping_neg() as u64
        } else {
            oracle::unary(UnOp::Neg, self.0, a as u32).map_or(0, u64::from)
        }
    }

    /// `abs(a)`, wrapping (`abs(MIN) = MIN`); the identity for unsigned types.
    pub(crate) fn abs(self, a: u64) -> u64 {
        match (self.wide(), self.0.is_signed()) {
            (true, true) => (a as i64).wrapping_abs() as u64,
            (true, false) => a,
            (false, _) => oracle::unary(UnOp::Abs, self.0, a as u32).map_or(0, u64::from),
        }
    }

    /// `min(a, b)`.
    pub(crate) fn min(self, a: u64, b: u64) -> u64 {
        self.bin(BinOp::Min, a, b)
    }

    /// `max(a, b)`.
    pub(crate) fn max(self, a: u64, b: u64) -> u64 {
        self.bin(BinOp::Max, a, b)
    }

    /// `a - b`, wrapping.
    pub(crate) fn sub(self, a: u64, b: u64) -> u64 {
        self.bin(BinOp::Sub, a, b)
    }

    /// `a % b`: truncating, `x % 0 = 0`, `MIN % -1 = 0`.
    pub(crate) fn rem(self, a: u64, b: u64) -> u64 {
        self.bin(BinOp::Rem, a, b)
    }

    /// `f32(a)` of a value exactly representable in `f32` (every shape converts a remainder by a
    /// small divisor), as word bits.
    pub(crate) fn to_f32(self, a: u64) -> u64 {
        u64::from((self.value(a) as f32).to_bits())
    }

    /// The value `bits` of this type converted to `to` (an integer type): sign- or zero-extended by
    /// the source's signedness, then wrapped to the target's width (SEMANTICS.md section 6).
    pub(crate) fn cast(self, to: DataType, bits: u64) -> u64 {
        Int(to).of(self.value(bits) as i64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn negation_and_order_follow_the_width_and_the_sign() {
        let (i, l, u) = (Int(DataType::I32), Int(DataType::I64), Int(DataType::U64));
        assert_eq!(i.neg(i.of(i64::from(i32::MIN))), i.of(i64::from(i32::MIN)));
        assert_eq!(i.min(i.of(1), i.neg(i.of(1))), i.of(-1));
        assert_eq!(
            l.min(l.of(-3), l.of(i64::MIN + 17_892_187)),
            l.of(i64::MIN + 17_892_187)
        );
        assert_eq!(u.min(1 << 32, 0xffff_ffff), 0xffff_ffff);
        assert_eq!(i.rem(i.of(-1), i.of(17)), i.of(-1));
        assert_eq!(i.to_f32(i.of(-1)), u64::from((-1.0f32).to_bits()));
    }

    #[test]
    fn casts_extend_by_the_source_sign_and_wrap_to_the_target() {
        let (i, u) = (Int(DataType::I32), Int(DataType::U32));
        assert_eq!(i.cast(DataType::U64, i.of(1)), 1);
        assert_eq!(i.cast(DataType::U64, i.of(-1)), u64::MAX);
        assert_eq!(u.cast(DataType::I64, 0xffff_ffff), 0xffff_ffff);
        assert_eq!(Int(DataType::I64).cast(DataType::I32, 1 << 32 | 5), 5);
        // The bug's shape: u64(i32(1)) << 31 (959816159 mod 64).
        let wide = i.cast(DataType::U64, i.of(1));
        assert_eq!(
            Int(DataType::U64).bin(BinOp::Shl, wide, 959_816_159),
            0x8000_0000
        );
    }
}
