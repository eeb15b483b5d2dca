//! The one table between vyre's element types and Arrow's data types.
//!
//! Every vyre type has exactly one Arrow type, and the byte layouts agree where Arrow stores plain
//! little-endian values (so those columns go to the device as they are): `u32`, `i32`, `f32`,
//! `f16`, `u64` and `i64`. A vyre `bool` element is a 32-bit word (`SEMANTICS.md`) while Arrow packs
//! booleans into bits, so boolean columns are widened on the way in and packed on the way out.
//! Arrow types without a vyre counterpart (`Float64`, 8- and 16-bit integers, strings, ...) are
//! refused, except that an argument may be widened losslessly by DataFusion's coercion
//! ([`coercible`]).

use datafusion::arrow::datatypes::DataType as ArrowType;
use vyre::ir::DataType;

/// The Arrow type of a column of vyre `ty` elements.
///
/// ```
/// use datafusion::arrow::datatypes::DataType as ArrowType;
/// use vyre::ir::DataType;
///
/// assert_eq!(vyre_datafusion::arrow_type(DataType::F16), ArrowType::Float16);
/// assert_eq!(vyre_datafusion::arrow_type(DataType::Bool), ArrowType::Boolean);
/// ```
#[must_use]
pub fn arrow_type(ty: DataType) -> ArrowType {
    match ty {
        DataType::Bool => ArrowType::Boolean,
        DataType::U32 => ArrowType::UInt32,
        DataType::I32 => ArrowType::Int32,
        DataType::F32 => ArrowType::Float32,
        DataType::F16 => ArrowType::Float16,
        DataType::U64 => ArrowType::UInt64,
        DataType::I64 => ArrowType::Int64,
    }
}

/// The vyre element type of an Arrow column, or `None` when vyre has none.
///
/// ```
/// use datafusion::arrow::datatypes::DataType as ArrowType;
/// use vyre::ir::DataType;
///
/// assert_eq!(vyre_datafusion::vyre_type(&ArrowType::Int64), Some(DataType::I64));
/// assert_eq!(vyre_datafusion::vyre_type(&ArrowType::Float64), None); // vyre has no f64
/// ```
#[must_use]
pub fn vyre_type(ty: &ArrowType) -> Option<DataType> {
    DataType::ALL.into_iter().find(|&v| arrow_type(v) == *ty)
}

/// True when DataFusion may cast a `from` argument to the `to` parameter without changing any
/// value: the same type, SQL `NULL`, or a narrower integer of a kind `to` holds whole.
pub(crate) fn coercible(from: &ArrowType, to: DataType) -> bool {
    use ArrowType as A;
    if matches!(from, A::Null) || arrow_type(to) == *from {
        return true;
    }
    match to {
        DataType::I32 => matches!(from, A::Int8 | A::Int16 | A::UInt8 | A::UInt16),
        DataType::U32 => matches!(from, A::UInt8 | A::UInt16),
        DataType::I64 => matches!(
            from,
            A::Int8 | A::Int16 | A::Int32 | A::UInt8 | A::UInt16 | A::UInt32
        ),
        DataType::U64 => matches!(from, A::UInt8 | A::UInt16 | A::UInt32),
        DataType::F32 => matches!(from, A::Float16 | A::Int8 | A::Int16 | A::UInt8 | A::UInt16),
        DataType::Bool | DataType::F16 => false,
    }
}

/// How a user writes a cast to `ty` in SQL, for error messages.
pub(crate) fn sql_cast(ty: DataType) -> String {
    format!("arrow_cast(x, '{}')", arrow_type(ty))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_vyre_type_round_trips_through_its_arrow_type() {
        for ty in DataType::ALL {
            assert_eq!(vyre_type(&arrow_type(ty)), Some(ty), "{ty:?}");
        }
    }

    #[test]
    fn coercion_only_widens_losslessly() {
        assert!(coercible(&ArrowType::Int16, DataType::I32));
        assert!(coercible(&ArrowType::Null, DataType::Bool));
        assert!(!coercible(&ArrowType::Int64, DataType::I32));
        assert!(!coercible(&ArrowType::Int32, DataType::U32));
        assert!(!coercible(&ArrowType::Float64, DataType::F32));
        assert!(!coercible(&ArrowType::Utf8, DataType::U32));
    }
}
