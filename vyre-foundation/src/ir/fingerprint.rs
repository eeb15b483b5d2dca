//! A stable fingerprint of programs, usable as a cache key across processes.

use crate::ir::Program;

/// A 128-bit fingerprint of a [`Program`]: XXH3-128 of its wire bytes ([`Program::to_bytes`]).
///
/// Equal programs have equal fingerprints, in every process, on every platform and in every release
/// that writes the same [`WIRE_VERSION`](crate::ir::WIRE_VERSION): the value depends only on the
/// bytes, which `WIRE.md` specifies, and a test pins it for a set of programs. A version bump
/// changes fingerprints (caches keyed by them miss once). It is not a cryptographic hash: two
/// different programs can collide, so a cache must still compare the programs on a hit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Fingerprint(pub u128);

impl std::fmt::Display for Fingerprint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:032x}", self.0)
    }
}

impl Program {
    /// The program's stable 128-bit fingerprint: XXH3-128 of [`Program::to_bytes`].
    ///
    /// It never recurses, so it is safe on a program of any depth, validated or not.
    #[must_use]
    pub fn fingerprint(&self) -> Fingerprint {
        Fingerprint(xxhash_rust::xxh3::xxh3_128(&self.to_bytes()))
    }
}
