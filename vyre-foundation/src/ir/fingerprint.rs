//! A stable structural hash of programs, usable as a cache key across processes.

use std::hash::{Hash, Hasher};

use crate::ir::Program;

/// A 128-bit structural fingerprint of a [`Program`].
///
/// Two programs that compare equal have the same fingerprint, in every process and on every run; the
/// value depends only on the program's structure (it is pinned by a test). It is not a cryptographic
/// hash.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Fingerprint(pub u128);

impl std::fmt::Display for Fingerprint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:032x}", self.0)
    }
}

impl Program {
    /// The program's stable 128-bit structural hash.
    #[must_use]
    pub fn fingerprint(&self) -> Fingerprint {
        let mut hasher = StableHasher::new();
        self.hash(&mut hasher);
        Fingerprint(hasher.finish128())
    }
}

const K0: u64 = 0x9e37_79b9_7f4a_7c15;
const K1: u64 = 0xd6e8_feb8_6659_fd93;
const K2: u64 = 0xa076_1d64_78bd_642f;
const K3: u64 = 0xe703_7ed1_a0b4_28db;

/// A deterministic two-lane multiply-fold hasher.
///
/// Unlike `std`'s `DefaultHasher` it has no per-process seed, and it feeds every integer as a
/// fixed-width little-endian word (`usize` as `u64`), so the same sequence of `Hash` calls gives the
/// same value on every platform and in every run.
#[derive(Clone, Debug)]
pub struct StableHasher {
    a: u64,
    b: u64,
    len: u64,
}

impl Default for StableHasher {
    fn default() -> Self {
        Self::new()
    }
}

fn fold_mul(x: u64, k: u64) -> u64 {
    let p = u128::from(x) * u128::from(k);
    (p as u64) ^ ((p >> 64) as u64)
}

impl StableHasher {
    /// A hasher in its initial state.
    #[must_use]
    pub const fn new() -> Self {
        Self {
            a: K0,
            b: K1,
            len: 0,
        }
    }

    fn mix(&mut self, word: u64) {
        self.len = self.len.wrapping_add(1);
        self.a = fold_mul(self.a ^ word, K2).wrapping_add(self.len);
        self.b = fold_mul(self.b ^ word.rotate_left(23), K3) ^ self.a.rotate_left(17);
    }

    /// The 128-bit result.
    #[must_use]
    pub fn finish128(&self) -> u128 {
        let mut a = self.a ^ self.len;
        let mut b = self.b;
        for _ in 0..2 {
            a = fold_mul(a ^ b.rotate_left(31), K2);
            b = fold_mul(b ^ a.rotate_left(27), K3);
        }
        (u128::from(a) << 64) | u128::from(b)
    }
}

impl Hasher for StableHasher {
    fn finish(&self) -> u64 {
        self.finish128() as u64
    }

    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let mut word = [0u8; 8];
            word.copy_from_slice(chunk);
            self.mix(u64::from_le_bytes(word));
        }
        let rest = chunks.remainder();
        let mut word = [0u8; 8];
        word[..rest.len()].copy_from_slice(rest);
        // The tail word carries the byte count so that "ab" and "ab\0" differ.
        word[7] = rest.len() as u8 | 0x80;
        self.mix(u64::from_le_bytes(word));
    }

    fn write_u8(&mut self, i: u8) {
        self.mix(u64::from(i));
    }
    fn write_u16(&mut self, i: u16) {
        self.mix(u64::from(i));
    }
    fn write_u32(&mut self, i: u32) {
        self.mix(u64::from(i));
    }
    fn write_u64(&mut self, i: u64) {
        self.mix(i);
    }
    fn write_u128(&mut self, i: u128) {
        self.mix(i as u64);
        self.mix((i >> 64) as u64);
    }
    fn write_usize(&mut self, i: usize) {
        self.mix(i as u64);
    }
    fn write_i8(&mut self, i: i8) {
        self.write_u64(i as i64 as u64);
    }
    fn write_i16(&mut self, i: i16) {
        self.write_u64(i as i64 as u64);
    }
    fn write_i32(&mut self, i: i32) {
        self.write_u64(i as i64 as u64);
    }
    fn write_i64(&mut self, i: i64) {
        self.write_u64(i as u64);
    }
    fn write_isize(&mut self, i: isize) {
        self.write_u64(i as i64 as u64);
    }
}
