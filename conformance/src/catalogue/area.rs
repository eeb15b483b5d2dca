//! The areas of the catalogue: what a case checks, for filtering and for the order of reports.

use std::fmt;

use serde::{Deserialize, Serialize};

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
    /// Private arrays: every element type, in-bounds and out-of-bounds loads and stores, arrays
    /// declared in loops, invocations' arrays apart.
    PrivateArrays,
    /// Matrix tiles (an optional device feature): multiply-adds of every shape the IR has, both
    /// layouts, accumulation over a loop, workgroup buffers, and loads and stores out of bounds.
    Tiles,
}

impl Area {
    /// Every area, in report order.
    pub const ALL: [Area; 16] = [
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
        Area::PrivateArrays,
        Area::Tiles,
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
            Area::PrivateArrays => "private_arrays",
            Area::Tiles => "tiles",
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
