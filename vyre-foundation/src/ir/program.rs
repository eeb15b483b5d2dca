//! Whole programs.

use crate::ir::{BufferDecl, Node};

/// The largest number of invocations one workgroup may have.
pub const MAX_WORKGROUP_INVOCATIONS: u32 = 1024;

/// The most elements a private array ([`crate::ir::Node::PrivateArray`]) may have. Private
/// arrays live in each invocation's registers or local memory; 1024 elements of the widest type
/// are WGSL's 8 KiB bound on a function's memory.
pub const MAX_PRIVATE_ARRAY_LEN: u32 = 1024;

/// A compute program: the buffers it uses, its workgroup size, and the body every invocation runs.
///
/// A program is plain data: build it by hand, compare it, hash it, print it. Check it with
/// [`crate::validate()`] before handing it to a backend (every backend does so itself too).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Program {
    /// The buffers, in declaration order. Inputs and outputs of a dispatch follow this order.
    pub buffers: Vec<BufferDecl>,
    /// Invocations per workgroup along x, y and z.
    pub workgroup_size: [u32; 3],
    /// The entry body.
    pub body: Vec<Node>,
}

impl Program {
    /// A program from its buffers, workgroup size and entry body.
    #[must_use]
    pub fn new(buffers: Vec<BufferDecl>, workgroup_size: [u32; 3], body: Vec<Node>) -> Self {
        Self {
            buffers,
            workgroup_size,
            body,
        }
    }

    /// A program whose body is wrapped as the single entry point. Same as [`Program::new`]; the name
    /// is kept for compatibility with the upstream API.
    #[must_use]
    pub fn wrapped(buffers: Vec<BufferDecl>, workgroup_size: [u32; 3], body: Vec<Node>) -> Self {
        Self::new(buffers, workgroup_size, body)
    }

    /// The buffer called `name`, if declared.
    #[must_use]
    pub fn buffer(&self, name: &str) -> Option<&BufferDecl> {
        self.buffers.iter().find(|b| b.name == name)
    }

    /// The index in [`Program::buffers`] of the buffer called `name`.
    #[must_use]
    pub fn buffer_index(&self, name: &str) -> Option<usize> {
        self.buffers.iter().position(|b| b.name == name)
    }

    /// Buffers whose bytes the caller passes, in declaration order (`read`, `read_write`, `uniform`).
    pub fn input_buffers(&self) -> impl Iterator<Item = &BufferDecl> {
        self.buffers.iter().filter(|b| b.access.takes_input())
    }

    /// Buffers read back after the dispatch, in declaration order.
    pub fn output_buffers(&self) -> impl Iterator<Item = &BufferDecl> {
        self.buffers
            .iter()
            .filter(|b| b.access == crate::ir::BufferAccess::Output)
    }

    /// Invocations per workgroup (`x * y * z`), or `None` when the product does not fit a `u64`.
    ///
    /// Each dimension is a `u32`, so the product reaches almost 2^96: `[1 << 22, 1 << 21, 1 << 21]`
    /// has exactly 2^64 invocations, which a plain `u64` product would wrap to 0. Callers must treat
    /// `None` as "too many", never as a number.
    #[must_use]
    pub fn invocations_per_workgroup(&self) -> Option<u64> {
        self.workgroup_size
            .iter()
            .try_fold(1u64, |product, &d| product.checked_mul(u64::from(d)))
    }
}
