//! Scalar data types and buffer access modes.

use std::fmt;

/// The type of a value or of a buffer element.
///
/// `Bool`, `U32`, `I32` and `F32` are 32 bits wide in memory, `F16` is 16 bits and `U64`/`I64` are
/// 64 bits ([`DataType::size_bytes`]). A `Bool` element of a buffer occupies one 32-bit word: loading
/// it yields `word != 0`, storing it writes `1` or `0`. `F16`, `U64` and `I64` are optional device
/// features ([`crate::ir::Features::of_type`]): a backend without them refuses the program.
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
    /// An IEEE-754 binary16 float (WGSL `f16`); needs [`crate::ir::Features::F16`].
    F16,
    /// A 64-bit unsigned integer with wrapping arithmetic; needs [`crate::ir::Features::INT64`].
    U64,
    /// A 64-bit two's-complement signed integer with wrapping arithmetic; needs
    /// [`crate::ir::Features::INT64`].
    I64,
}

impl DataType {
    /// All types this version of the IR knows, in declaration order.
    pub const ALL: [DataType; 7] = [
        DataType::Bool,
        DataType::U32,
        DataType::I32,
        DataType::F32,
        DataType::F16,
        DataType::U64,
        DataType::I64,
    ];

    /// Size in bytes of one buffer element of this type.
    #[must_use]
    pub const fn size_bytes(self) -> usize {
        match self {
            DataType::Bool | DataType::U32 | DataType::I32 | DataType::F32 => 4,
            DataType::F16 => 2,
            DataType::U64 | DataType::I64 => 8,
        }
    }

    /// True for `U32`, `I32`, `U64` and `I64`.
    #[must_use]
    pub const fn is_integer(self) -> bool {
        matches!(
            self,
            DataType::U32 | DataType::I32 | DataType::U64 | DataType::I64
        )
    }

    /// True for the signed integers `I32` and `I64`.
    #[must_use]
    pub const fn is_signed(self) -> bool {
        matches!(self, DataType::I32 | DataType::I64)
    }

    /// True for `F32` and `F16`.
    #[must_use]
    pub const fn is_float(self) -> bool {
        matches!(self, DataType::F32 | DataType::F16)
    }

    /// True for the types an index, a loop counter or a shift amount may have: `U32` and `I32`.
    #[must_use]
    pub const fn is_index(self) -> bool {
        matches!(self, DataType::U32 | DataType::I32)
    }

    /// True for every integer and float type.
    #[must_use]
    pub const fn is_numeric(self) -> bool {
        self.is_integer() || self.is_float()
    }

    /// True for the types whose buffer elements are one 32-bit word: `Bool`, `U32`, `I32`, `F32`.
    #[must_use]
    pub const fn is_word(self) -> bool {
        self.size_bytes() == 4
    }

    /// The width of a value of this type in bits (a `Bool` counts as its 32-bit buffer word).
    #[must_use]
    pub const fn bits(self) -> u32 {
        (self.size_bytes() * 8) as u32
    }

    /// The lower-case name used by the text form, e.g. `u32`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            DataType::Bool => "bool",
            DataType::U32 => "u32",
            DataType::I32 => "i32",
            DataType::F32 => "f32",
            DataType::F16 => "f16",
            DataType::U64 => "u64",
            DataType::I64 => "i64",
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
