//! Buffer declarations.

use std::ops::Range;

use crate::ir::{BufferAccess, DataType};

/// One buffer a program uses.
///
/// Bound buffers (every access but [`BufferAccess::Workgroup`]) are addressed by `binding`, which must be
/// unique within a program; workgroup buffers have no binding and ignore the field.
///
/// `count` is the number of elements. A count of `0` on a `read` or `read_write` buffer means
/// *runtime-sized*: the element count is the caller's byte length divided by the element size. Output,
/// uniform and workgroup buffers need a declared count.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct BufferDecl {
    /// The name expressions use to refer to the buffer.
    pub name: String,
    /// The binding slot in bind group 0. Ignored for workgroup buffers.
    pub binding: u32,
    /// How the program may use the buffer.
    pub access: BufferAccess,
    /// The element type.
    pub element: DataType,
    /// The element count; `0` means runtime-sized.
    pub count: u32,
    /// For outputs: the byte range the host gets back. `None` means the whole buffer.
    pub output_byte_range: Option<Range<usize>>,
}

impl BufferDecl {
    fn new(name: impl Into<String>, binding: u32, access: BufferAccess, element: DataType) -> Self {
        Self {
            name: name.into(),
            binding,
            access,
            element,
            count: 0,
            output_byte_range: None,
        }
    }

    /// A read-only storage buffer whose bytes the caller passes.
    #[must_use]
    pub fn read(name: impl Into<String>, binding: u32, element: DataType) -> Self {
        Self::new(name, binding, BufferAccess::Read, element)
    }

    /// A read-write storage buffer whose initial bytes the caller passes. It is not read back.
    #[must_use]
    pub fn read_write(name: impl Into<String>, binding: u32, element: DataType) -> Self {
        Self::new(name, binding, BufferAccess::ReadWrite, element)
    }

    /// A zero-initialised storage buffer that is read back to the host. Give it a count.
    #[must_use]
    pub fn output(name: impl Into<String>, binding: u32, element: DataType) -> Self {
        Self::new(name, binding, BufferAccess::Output, element)
    }

    /// A read-only uniform buffer whose bytes the caller passes. Give it a count.
    #[must_use]
    pub fn uniform(name: impl Into<String>, binding: u32, element: DataType) -> Self {
        Self::new(name, binding, BufferAccess::Uniform, element)
    }

    /// Memory shared by one workgroup's invocations, zeroed for every workgroup.
    #[must_use]
    pub fn workgroup(name: impl Into<String>, count: u32, element: DataType) -> Self {
        Self::new(name, 0, BufferAccess::Workgroup, element).with_count(count)
    }

    /// Sets the element count (`0` means runtime-sized).
    #[must_use]
    pub fn with_count(mut self, count: u32) -> Self {
        self.count = count;
        self
    }

    /// Sets which bytes of an output the host gets back.
    #[must_use]
    pub fn with_output_byte_range(mut self, range: Range<usize>) -> Self {
        self.output_byte_range = Some(range);
        self
    }

    /// True when the element count comes from the caller's bytes.
    #[must_use]
    pub fn is_runtime_sized(&self) -> bool {
        self.count == 0
    }

    /// The declared size in bytes, or `None` when runtime-sized.
    #[must_use]
    pub fn declared_bytes(&self) -> Option<u64> {
        // A u32 count times a 4-byte element is below 2^34, so this product cannot wrap a u64.
        (self.count != 0).then(|| u64::from(self.count) * self.element.size_bytes() as u64)
    }

    /// The byte range read back for an output of `buffer_bytes` bytes.
    #[must_use]
    pub fn readback_range(&self, buffer_bytes: usize) -> Range<usize> {
        self.output_byte_range.clone().unwrap_or(0..buffer_bytes)
    }
}
