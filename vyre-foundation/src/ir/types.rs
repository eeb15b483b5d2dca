//! Scalar data types and buffer access modes.

use std::fmt;

/// The type of a value or of a buffer element.
///
/// Every type is 32 bits wide in memory today. A `Bool` element of a buffer occupies one 32-bit word:
/// loading it yields `word != 0`, storing it writes `1` or `0`.
///
/// Deliberately exhaustive (no `#[non_exhaustive]`): every backend matches on it without a wildcard
/// arm, so a new type fails to compile in every lowering until it is handled there.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum DataType {
    /// A boolean.
    Bool,
    /// A 32-bit unsigned integer with wrapping arithmetic.
    U32,
    /// A 32-bit two's-complement signed integer with wrapping arithmetic.
    I32,
    /// An IEEE-754 binary32 float.
    F32,
}

impl DataType {
    /// All types this version of the IR knows, in declaration order.
    pub const ALL: [DataType; 4] = [DataType::Bool, DataType::U32, DataType::I32, DataType::F32];

    /// Size in bytes of one buffer element of this type.
    #[must_use]
    pub const fn size_bytes(self) -> usize {
        match self {
            DataType::Bool | DataType::U32 | DataType::I32 | DataType::F32 => 4,
        }
    }

    /// True for `U32` and `I32`.
    #[must_use]
    pub const fn is_integer(self) -> bool {
        matches!(self, DataType::U32 | DataType::I32)
    }

    /// True for `U32`, `I32` and `F32`.
    #[must_use]
    pub const fn is_numeric(self) -> bool {
        matches!(self, DataType::U32 | DataType::I32 | DataType::F32)
    }

    /// The lower-case name used by the text form, e.g. `u32`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            DataType::Bool => "bool",
            DataType::U32 => "u32",
            DataType::I32 => "i32",
            DataType::F32 => "f32",
        }
    }
}

impl fmt::Display for DataType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How a program may use a buffer, and where its contents come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum BufferAccess {
    /// Storage the program only reads. The caller passes its bytes.
    Read,
    /// Storage the program reads and writes. The caller passes its initial bytes; it is not read back.
    ReadWrite,
    /// Storage that starts zeroed and is read back to the host after the dispatch.
    Output,
    /// A small read-only buffer in the uniform address space. The caller passes its bytes.
    Uniform,
    /// Memory shared by the invocations of one workgroup, zeroed at the start of every workgroup.
    Workgroup,
}

impl BufferAccess {
    /// True when the caller passes bytes for a buffer of this access (`Read`, `ReadWrite`, `Uniform`).
    #[must_use]
    pub const fn takes_input(self) -> bool {
        matches!(
            self,
            BufferAccess::Read | BufferAccess::ReadWrite | BufferAccess::Uniform
        )
    }

    /// True when the program may store into a buffer of this access.
    #[must_use]
    pub const fn is_writable(self) -> bool {
        matches!(
            self,
            BufferAccess::ReadWrite | BufferAccess::Output | BufferAccess::Workgroup
        )
    }

    /// True for buffers bound to the pipeline (everything but `Workgroup`).
    #[must_use]
    pub const fn is_bound(self) -> bool {
        !matches!(self, BufferAccess::Workgroup)
    }

    /// The lower-case name used by the text form.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            BufferAccess::Read => "read",
            BufferAccess::ReadWrite => "read_write",
            BufferAccess::Output => "output",
            BufferAccess::Uniform => "uniform",
            BufferAccess::Workgroup => "workgroup",
        }
    }
}

impl fmt::Display for BufferAccess {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
