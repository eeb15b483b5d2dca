//! Arrow columns to the bytes a dispatch reads, and the bytes it writes back to an Arrow column.
//!
//! A primitive column's values buffer already is a vyre buffer (little-endian elements, no
//! gaps), so [`Column::bytes`] borrows it and the device upload reads Arrow's memory directly:
//! no host copy. Only booleans (bits in Arrow, 32-bit words in vyre) and scalars (one value,
//! broadcast to every row) are materialised. A result comes back as one byte vector; it becomes
//! the Arrow values buffer as it is when it is aligned for the element type (Arrow requires
//! that), else it is copied once into an aligned buffer.
//!
//! Nulls never reach the device: a row whose argument is null computes on whatever value the
//! null slot holds, and the result's validity is the intersection of the arguments' (a null in
//! any argument makes the row null), which is DataFusion's rule for strict functions.

use std::sync::Arc;

use datafusion::arrow::array::{
    Array, ArrayRef, AsArray, BooleanArray, PrimitiveArray, new_null_array,
};
use datafusion::arrow::buffer::{BooleanBuffer, Buffer, NullBuffer, ScalarBuffer};
use datafusion::arrow::datatypes::{
    ArrowPrimitiveType, Float16Type, Float32Type, Int32Type, Int64Type, UInt32Type, UInt64Type,
};
use datafusion::error::{DataFusionError, Result};
use datafusion::logical_expr::ColumnarValue;
use vyre::ir::DataType;

use crate::error::UdfError;
use crate::types::{arrow_type, sql_cast};

/// One argument of one call, as the device will read it.
pub(crate) struct Column {
    /// The argument as an Arrow array of the call's rows (a scalar broadcast to them).
    array: ArrayRef,
    /// The 32-bit words of a boolean column; `None` for every other type, whose values buffer is
    /// used as it is.
    words: Option<Vec<u8>>,
}

impl Column {
    /// Argument `index` of function `name`, of `rows` rows, checked to hold vyre `ty` elements.
    pub(crate) fn new(
        name: &str,
        index: usize,
        value: &ColumnarValue,
        ty: DataType,
        rows: usize,
    ) -> Result<Self> {
        let array = match value {
            ColumnarValue::Array(array) => Arc::clone(array),
            ColumnarValue::Scalar(scalar) => scalar.to_array_of_size(rows)?,
        };
        let expected = arrow_type(ty);
        if *array.data_type() != expected {
            return Err(UdfError::ArgumentType {
                name: name.to_string(),
                index,
                expected: Box::new(expected),
                found: Box::new(array.data_type().clone()),
                cast: sql_cast(ty),
            }
            .into());
        }
        if array.len() != rows {
            return Err(DataFusionError::Internal(format!(
                "vyre function `{name}`: argument {index} has {} rows in a batch of {rows}. Fix: this is a bug in the caller of the function; report it with the query.",
                array.len()
            )));
        }
        let words = match ty {
            DataType::Bool => Some(
                array
                    .as_boolean()
                    .values()
                    .iter()
                    .flat_map(|b| u32::from(b).to_le_bytes())
                    .collect(),
            ),
            DataType::U32
            | DataType::I32
            | DataType::F32
            | DataType::F16
            | DataType::U64
            | DataType::I64 => None,
        };
        Ok(Self { array, words })
    }

    /// The column's rows as vyre elements: Arrow's own values buffer where the layouts agree.
    pub(crate) fn bytes(&self) -> &[u8] {
        if let Some(words) = &self.words {
            return words;
        }
        let array = self.array.as_ref();
        values(array).unwrap_or(&[])
    }

    /// The column's validity (`None`: no nulls). For the primitive and boolean arrays vyre takes,
    /// the physical nulls are the logical ones.
    pub(crate) fn nulls(&self) -> Option<&NullBuffer> {
        self.array.nulls()
    }
}

/// The values buffer of a primitive array of a vyre type, as bytes.
fn values(array: &dyn Array) -> Option<&[u8]> {
    fn of<T: ArrowPrimitiveType>(array: &dyn Array) -> Option<&[u8]> {
        array
            .as_primitive_opt::<T>()
            .map(|a| a.values().inner().as_slice())
    }
    of::<UInt32Type>(array)
        .or_else(|| of::<Int32Type>(array))
        .or_else(|| of::<Float32Type>(array))
        .or_else(|| of::<Float16Type>(array))
        .or_else(|| of::<UInt64Type>(array))
        .or_else(|| of::<Int64Type>(array))
}

/// The result's validity: a row is valid when every argument's row is.
pub(crate) fn validity(columns: &[Column]) -> Option<NullBuffer> {
    validity_of(columns)
}

/// [`validity`] over any columns.
pub(crate) fn validity_of<'c>(columns: impl IntoIterator<Item = &'c Column>) -> Option<NullBuffer> {
    NullBuffer::union_many(columns.into_iter().map(Column::nulls))
}

/// True when some argument is null in every row (a null scalar): the result is all null and no
/// dispatch is needed.
pub(crate) fn all_null(columns: &[Column], rows: usize) -> bool {
    rows > 0
        && columns
            .iter()
            .any(|c| c.nulls().is_some_and(|n| n.null_count() == rows))
}

/// An all-null result column.
pub(crate) fn null_column(ty: DataType, rows: usize) -> ArrayRef {
    new_null_array(&arrow_type(ty), rows)
}

/// The Arrow column of `rows` elements of vyre type `ty` in `bytes` (at least `rows` elements),
/// with validity `nulls`.
pub(crate) fn result(
    bytes: Vec<u8>,
    ty: DataType,
    rows: usize,
    nulls: Option<NullBuffer>,
) -> Result<ArrayRef> {
    let need = rows * ty.size_bytes();
    if bytes.len() < need {
        return Err(DataFusionError::Internal(format!(
            "a vyre dispatch returned {} bytes for {rows} rows of {ty:?} ({need} bytes). Fix: this is a backend bug; report it with the program.",
            bytes.len()
        )));
    }
    let array: ArrayRef = match ty {
        DataType::Bool => {
            let word = |i: usize| bytes[4 * i..4 * i + 4] != [0; 4];
            Arc::new(BooleanArray::new(
                BooleanBuffer::collect_bool(rows, word),
                nulls,
            ))
        }
        DataType::U32 => primitive::<UInt32Type>(bytes, rows, nulls)?,
        DataType::I32 => primitive::<Int32Type>(bytes, rows, nulls)?,
        DataType::F32 => primitive::<Float32Type>(bytes, rows, nulls)?,
        DataType::F16 => primitive::<Float16Type>(bytes, rows, nulls)?,
        DataType::U64 => primitive::<UInt64Type>(bytes, rows, nulls)?,
        DataType::I64 => primitive::<Int64Type>(bytes, rows, nulls)?,
    };
    Ok(array)
}

/// `bytes` as the values of a primitive array, without a copy when they are aligned.
fn primitive<T: ArrowPrimitiveType>(
    bytes: Vec<u8>,
    rows: usize,
    nulls: Option<NullBuffer>,
) -> Result<ArrayRef> {
    let buffer = Buffer::from_vec(bytes);
    let aligned = buffer
        .as_ptr()
        .align_offset(std::mem::align_of::<T::Native>())
        == 0;
    let buffer = if aligned {
        buffer
    } else {
        // Arrow's own allocations are 64-byte aligned.
        Buffer::from_slice_ref(buffer.as_slice())
    };
    let values = ScalarBuffer::<T::Native>::new(buffer, 0, rows);
    Ok(Arc::new(PrimitiveArray::<T>::try_new(values, nulls)?))
}

#[cfg(test)]
mod tests {
    use datafusion::arrow::array::Int64Array;
    use datafusion::common::ScalarValue;

    use super::*;

    #[test]
    fn a_primitive_column_is_uploaded_from_arrows_own_memory() {
        let whole = Int64Array::from_iter_values(0..100);
        // A slice has an offset into the shared buffer; the bytes still are Arrow's.
        let slice = whole.slice(10, 50);
        let value = ColumnarValue::Array(Arc::new(slice.clone()));
        let column = Column::new("f", 0, &value, DataType::I64, 50).expect("an Int64 column");
        assert_eq!(column.bytes().as_ptr(), slice.values().inner().as_ptr());
        assert_eq!(column.bytes().len(), 50 * 8);
        assert_eq!(column.bytes()[..8], 10i64.to_le_bytes());
    }

    #[test]
    fn booleans_become_words_and_scalars_are_broadcast() {
        let bools = ColumnarValue::Array(Arc::new(BooleanArray::from(vec![true, false, true])));
        let column = Column::new("f", 0, &bools, DataType::Bool, 3).expect("booleans");
        assert_eq!(column.bytes(), [1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0]);
        let scalar = ColumnarValue::Scalar(ScalarValue::Float16(Some(half::f16::ONE)));
        let column = Column::new("f", 0, &scalar, DataType::F16, 2).expect("a scalar");
        assert_eq!(column.bytes(), [0x00, 0x3c, 0x00, 0x3c]);
    }

    #[test]
    fn a_result_keeps_the_arguments_nulls() {
        let nulls = NullBuffer::from(vec![true, false, true]);
        let bytes: Vec<u8> = [5u32, 6, 7].iter().flat_map(|v| v.to_le_bytes()).collect();
        let array = result(bytes, DataType::U32, 3, Some(nulls)).expect("a column");
        assert_eq!(array.null_count(), 1);
        assert!(array.is_null(1));
        let short = result(vec![0; 4], DataType::U64, 1, None);
        assert!(short.is_err(), "4 bytes are not one u64");
    }
}
