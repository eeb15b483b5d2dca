//! The conformance catalogue: named cases grouped by area, batched into few dispatches.
//!
//! A [`Batch`] is one program with its inputs and the [`Case`]s it checks; a case names one input
//! combination and points at the output word that holds its result. What a backend must return is an
//! [`Expectation`]: bit-exact (the hand-written [`oracle`] value when there is one, else the reference
//! backend's word) or an [`Acceptance`] set (floats, indeterminate results).

pub mod accuracy;
mod build;
mod casts;
mod control;
mod driver;
mod exits;
mod float;
pub mod half;
mod integer;
pub mod interval;
mod memory;
mod oob;
pub mod oracle;
mod shapes;
mod subgroups;
mod values;
mod wide;
mod wide_casts;

use std::fmt;

use serde::{Deserialize, Serialize};
use vyre_driver::DispatchConfig;
use vyre_foundation::ir::{BinOp, DataType, Program};

pub use interval::Acceptance;

/// The areas of the catalogue, in the order reports list them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Area {
    /// Integer arithmetic: `add sub mul div rem min max neg abs` on `u32` and `i32`.
    Integer,
    /// Bit operations: `and or xor not`, shifts, `popcount clz ctz reverse_bits`.
    Bits,
    /// Comparisons on every type, and the bool operators.
    Compare,
    /// Value conversions and bit reinterpretations.
    Cast,
    /// `f32` arithmetic and math functions, within the WGSL accuracy table.
    Float,
    /// `if`, `select`, `return`, nested scopes, a barrier after a uniform `break`.
    Control,
    /// Loops: trip counts, empty ranges, signed bounds, nesting, `break`, `continue`, `loop_while`.
    Loops,
    /// Workgroup memory and barriers.
    Workgroup,
    /// Atomic read-modify-writes on storage and workgroup buffers, as expressions and statements.
    Atomics,
    /// Out-of-bounds loads, stores and atomics.
    OutOfBounds,
    /// Grids and workgroup shapes: every builtin on every axis.
    Grids,
    /// Runtime-sized buffers and `buf_len`.
    RuntimeSized,
    /// Programs with several inputs and outputs, uniform buffers, read-write buffers, readback ranges.
    MultiIo,
    /// Subgroup operations (an optional device feature): size-independent results against
    /// hand-written values, the rest against the reference at the backend's subgroup size.
    Subgroups,
}

impl Area {
    /// Every area, in report order.
    pub const ALL: [Area; 14] = [
        Area::Integer,
        Area::Bits,
        Area::Compare,
        Area::Cast,
        Area::Float,
        Area::Control,
        Area::Loops,
        Area::Workgroup,
        Area::Atomics,
        Area::OutOfBounds,
        Area::Grids,
        Area::RuntimeSized,
        Area::MultiIo,
        Area::Subgroups,
    ];

    /// The short name used on the command line and in JSON, e.g. `out_of_bounds`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Area::Integer => "integer",
            Area::Bits => "bits",
            Area::Compare => "compare",
            Area::Cast => "cast",
            Area::Float => "float",
            Area::Control => "control",
            Area::Loops => "loops",
            Area::Workgroup => "workgroup",
            Area::Atomics => "atomics",
            Area::OutOfBounds => "out_of_bounds",
            Area::Grids => "grids",
            Area::RuntimeSized => "runtime_sized",
            Area::MultiIo => "multi_io",
            Area::Subgroups => "subgroups",
        }
    }

    /// The area called `name` (see [`Area::name`]).
    #[must_use]
    pub fn from_name(name: &str) -> Option<Area> {
        Area::ALL.into_iter().find(|a| a.name() == name)
    }
}

impl fmt::Display for Area {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What a backend must return for one case.
#[derive(Clone, Debug, PartialEq)]
pub struct Expectation {
    /// The hand-written expectation (`catalogue/oracle.rs`), when the case has one. The reference
    /// backend must return exactly this element (its bits, zero-extended); a difference is a failure
    /// of the reference.
    pub oracle: Option<u64>,
    /// The set a backend's word must fall in. `None` means bit-exact: equal to `oracle` when given,
    /// else to the reference backend's word. Without an `oracle`, the reference must fall in it too.
    pub accept: Option<Acceptance>,
}

impl Expectation {
    /// Bit-exact, with a hand-written expectation.
    #[must_use]
    pub fn exact(oracle: u32) -> Self {
        Self::exact_bits(u64::from(oracle))
    }

    /// Bit-exact, with a hand-written expectation of any element size (the bits, zero-extended).
    #[must_use]
    pub fn exact_bits(oracle: u64) -> Self {
        Self {
            oracle: Some(oracle),
            accept: None,
        }
    }

    /// Bit-exact, equal to whatever the reference backend returns.
    #[must_use]
    pub fn reference() -> Self {
        Self {
            oracle: None,
            accept: None,
        }
    }

    /// Any word in `accept`, for the reference too.
    #[must_use]
    pub fn accept(accept: Acceptance) -> Self {
        Self {
            oracle: None,
            accept: Some(accept),
        }
    }

    /// The reference must return exactly `oracle`; other backends anything in `accept`.
    #[must_use]
    pub fn oracle_within(oracle: u32, accept: Acceptance) -> Self {
        Self::oracle_within_bits(u64::from(oracle), accept)
    }

    /// [`Expectation::oracle_within`] for an element of any size (the bits, zero-extended).
    #[must_use]
    pub fn oracle_within_bits(oracle: u64, accept: Acceptance) -> Self {
        Self {
            oracle: Some(oracle),
            accept: Some(accept),
        }
    }
}

/// One named input combination and where its result lands.
#[derive(Clone, Debug, PartialEq)]
pub struct Case {
    /// A name unique in the catalogue, e.g. `div.i32(-2147483648, -1)`.
    pub name: String,
    /// The inputs, readable, e.g. `-2147483648, -1`.
    pub inputs: String,
    /// The index of the output buffer (among the program's outputs) holding the result.
    pub output: usize,
    /// The index of the element (of type `ty`: 2, 4 or 8 bytes) in that output.
    pub word: usize,
    /// The type of the result, for printing it.
    pub ty: DataType,
    /// What a backend must return.
    pub expect: Expectation,
}

/// One program, its inputs and dispatch settings, and the cases its outputs answer.
#[derive(Clone, Debug)]
pub struct Batch {
    /// The area of every case in the batch.
    pub area: Area,
    /// A name unique in the catalogue, e.g. `integer.u32`.
    pub name: String,
    /// The program.
    pub program: Program,
    /// One byte vector per input buffer.
    pub inputs: Vec<Vec<u8>>,
    /// How to dispatch it.
    pub config: DispatchConfig,
    /// The cases.
    pub cases: Vec<Case>,
}

/// The comparison operators (equality and ordering), in the order of [`BinOp::ALL`].
fn comparison_ops() -> impl Iterator<Item = BinOp> {
    BinOp::ALL.iter().copied().filter(|op| op.is_comparison())
}

/// Every batch of the catalogue, area by area.
#[must_use]
pub fn catalogue() -> Vec<Batch> {
    let mut batches = Vec::new();
    batches.extend(integer::batches());
    batches.extend(casts::batches());
    batches.extend(float::batches());
    batches.extend(control::batches());
    batches.extend(exits::batches());
    batches.extend(memory::batches());
    batches.extend(oob::batches());
    batches.extend(shapes::batches());
    batches.extend(subgroups::batches());
    batches.extend(wide::batches());
    batches.extend(driver::batches());
    batches.sort_by_key(|b| b.area);
    batches
}

/// An element of type `ty` (its bits, zero-extended), readable: unsigned integers in hex, signed ones
/// in decimal, floats as their value.
#[must_use]
pub fn format_word(ty: DataType, word: impl Into<u64>) -> String {
    let word = word.into();
    match ty {
        DataType::Bool => format!("{}", word != 0),
        DataType::I32 => format!("{}", word as u32 as i32),
        DataType::I64 => format!("{}", word as i64),
        DataType::F32 => format!("{:?}", f32::from_bits(word as u32)),
        DataType::F16 => format!("{:?}h", vyre_foundation::ir::f16_bits_to_f32(word as u16)),
        _ => format!("0x{word:x}"),
    }
}
