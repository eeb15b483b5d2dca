//! The wire format: a program as compact, versioned, deterministic bytes.
//!
//! [`Program::to_bytes`] writes a program so that another process, another machine or a later
//! release can read it back with [`Program::from_bytes`]. The format is specified byte by byte in
//! `WIRE.md` at the repository root; in short: the magic `VYRE`, a little-endian `u16` version, then
//! the workgroup size, the buffers and the body, with LEB128 varints for numbers and counts,
//! length-prefixed UTF-8 for names, and one tag byte for each enum variant (`tags.rs` and the
//! operator table in `ir/ops.rs` define them).
//!
//! The same program always gives the same bytes (there is no map, no padding, no platform-dependent
//! width), and every program has exactly one encoding, which is what lets
//! [`Program::fingerprint`] hash the bytes.

mod decode;
mod encode;
mod error;
mod tags;

pub use error::{WireError, WireErrorKind};

use crate::ir::Program;

/// The first four bytes of every encoded program.
pub const WIRE_MAGIC: [u8; 4] = *b"VYRE";

/// The newest format version this build writes. It reads every version from 1 up to this one.
///
/// A program is written in the lowest version whose layout holds it (`WIRE.md`, "Versions"): a
/// program without the statements version 2 added keeps its version-1 bytes, and so its
/// fingerprint; one without the `f16`, `u64` and `i64` types and the subgroup operations version 3
/// added keeps its version-1 or version-2 bytes, and one without the private arrays version 4 added
/// keeps the bytes of the version before; one without the matrix tiles version 5 added keeps those
/// of version 4 or before.
pub const WIRE_VERSION: u16 = 5;

impl Program {
    /// The program in the wire format (`WIRE.md`), in the lowest version that holds it: the same
    /// program gives the same bytes in every process, on every platform, in every release that
    /// knows its version.
    ///
    /// Encoding never fails and never recurses, however deep the program; a program nested deeper
    /// than the validator allows encodes, but [`Program::from_bytes`] refuses it.
    #[must_use]
    pub fn to_bytes(&self) -> Vec<u8> {
        encode::encode(self)
    }

    /// Reads a program written by [`Program::to_bytes`], by this release or an older one.
    ///
    /// The result is the program that was written, field for field; it has not been validated (a
    /// saved program may be invalid, just as a hand-built one may). Malformed bytes, whatever they
    /// are, give an error, never a panic, a huge allocation or a deep recursion.
    ///
    /// # Errors
    ///
    /// [`WireError`] naming the byte offset where the bytes stop being a program: a wrong magic, a
    /// newer format version, a truncation, an unknown tag, a non-minimal varint, a length past the
    /// end, invalid UTF-8, nesting deeper than [`crate::validate::MAX_EXPR_DEPTH`] or
    /// [`crate::validate::MAX_NODE_DEPTH`], or bytes after the end of the program.
    pub fn from_bytes(bytes: &[u8]) -> Result<Program, WireError> {
        decode::decode(bytes)
    }
}
