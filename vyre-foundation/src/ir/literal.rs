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
        }
    }

    /// The literal as the 32-bit word a buffer would hold.
    #[must_use]
    pub const fn to_bits(self) -> u32 {
        match self {
            Literal::Bool(b) => b as u32,
            Literal::U32(v) => v,
            Literal::I32(v) => v as u32,
            Literal::F32(bits) => bits,
        }
    }
}
