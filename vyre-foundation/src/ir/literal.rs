//! Literal values.

use crate::ir::DataType;

/// A literal value. Floats are kept as their bits so literals hash and compare exactly.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Literal {
    /// A boolean.
    Bool(bool),
    /// An unsigned 32-bit integer.
    U32(u32),
    /// A signed 32-bit integer.
    I32(i32),
    /// The bits of an `f32`.
    F32(u32),
    /// The bits of an `f16` (IEEE binary16).
    F16(u16),
    /// An unsigned 64-bit integer.
    U64(u64),
    /// A signed 64-bit integer.
    I64(i64),
}

impl Literal {
    /// The literal's type.
    #[must_use]
    pub const fn ty(self) -> DataType {
        match self {
            Literal::Bool(_) => DataType::Bool,
            Literal::U32(_) => DataType::U32,
            Literal::I32(_) => DataType::I32,
            Literal::F32(_) => DataType::F32,
            Literal::F16(_) => DataType::F16,
            Literal::U64(_) => DataType::U64,
            Literal::I64(_) => DataType::I64,
        }
    }

    /// The bits a buffer element of the literal's type would hold, zero-extended to 64 bits: the
    /// 32-bit word of a `bool`, `u32`, `i32` or `f32`, the 16 bits of an `f16`, the 64 bits of a
    /// `u64` or `i64`.
    #[must_use]
    pub const fn to_bits(self) -> u64 {
        match self {
            Literal::Bool(b) => b as u64,
            Literal::U32(v) => v as u64,
            Literal::I32(v) => v as u32 as u64,
            Literal::F32(bits) => bits as u64,
            Literal::F16(bits) => bits as u64,
            Literal::U64(v) => v,
            Literal::I64(v) => v as u64,
        }
    }
}
