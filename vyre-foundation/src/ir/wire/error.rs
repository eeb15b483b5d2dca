//! Why bytes are not a program: [`WireError`].

use std::fmt;

/// What was wrong with the bytes given to [`Program::from_bytes`](crate::ir::Program::from_bytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum WireErrorKind {
    /// The bytes do not start with the magic `VYRE`: they are not a saved program at all.
    BadMagic,
    /// The format version is newer than this reader knows, or is 0 (never written).
    UnsupportedVersion {
        /// The version the bytes carry.
        found: u16,
    },
    /// The bytes end in the middle of a value.
    UnexpectedEnd {
        /// What was being read.
        expected: &'static str,
    },
    /// A tag byte names no variant.
    BadTag {
        /// What the tag was for.
        expected: &'static str,
        /// The byte found.
        tag: u8,
    },
    /// A varint is longer than its canonical form, or does not fit its type.
    BadVarint {
        /// What the varint was for.
        expected: &'static str,
    },
    /// A length or count claims more bytes than remain.
    LengthPastEnd {
        /// What the length was for.
        expected: &'static str,
        /// The length claimed.
        length: u64,
        /// The bytes that remain after it.
        remaining: usize,
    },
    /// A name is not valid UTF-8.
    InvalidUtf8 {
        /// What the string was.
        expected: &'static str,
    },
    /// Expressions or statements nest deeper than the validator allows.
    TooDeep {
        /// `"expression"` or `"statement"`.
        expected: &'static str,
        /// The deepest nesting accepted.
        limit: usize,
    },
    /// A readback range bound does not fit this platform's `usize`.
    RangeTooLarge {
        /// The bound.
        value: u64,
    },
    /// The header names a later version than the program needs. The writer always writes the
    /// lowest version whose layout holds the program, so these bytes are not canonical.
    VersionNotMinimal {
        /// The version the bytes carry.
        found: u16,
        /// The lowest version that holds the program.
        needed: u16,
    },
    /// Bytes follow the end of the program.
    TrailingBytes {
        /// How many.
        count: usize,
    },
}

/// Bytes that are not a program in the wire format, and where they stop being one.
///
/// The message names the byte offset, what was expected there and what was found, and ends with a
/// `Fix:`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WireError {
    offset: usize,
    kind: WireErrorKind,
}

impl WireError {
    pub(super) const fn new(offset: usize, kind: WireErrorKind) -> Self {
        Self { offset, kind }
    }

    /// The offset, in bytes from the start of the input, where decoding failed.
    #[must_use]
    pub const fn offset(&self) -> usize {
        self.offset
    }

    /// What was wrong.
    #[must_use]
    pub const fn kind(&self) -> WireErrorKind {
        self.kind
    }

    fn fix(&self) -> &'static str {
        match self.kind {
            WireErrorKind::BadMagic => {
                "pass bytes made by `Program::to_bytes`; a text-form program is read with `str::parse::<Program>`"
            }
            WireErrorKind::UnsupportedVersion { found: 0 } => {
                "the bytes are corrupt; write them again with `Program::to_bytes`"
            }
            WireErrorKind::UnsupportedVersion { .. } => {
                "the bytes were written by a newer vyre; upgrade vyre-foundation to read them"
            }
            WireErrorKind::UnexpectedEnd { .. } | WireErrorKind::LengthPastEnd { .. } => {
                "the bytes are truncated; pass the whole output of `Program::to_bytes`"
            }
            WireErrorKind::RangeTooLarge { .. } => {
                "read the program on a 64-bit platform, or give the buffer a smaller readback range"
            }
            WireErrorKind::TooDeep { .. } => {
                "split the deep expression into `let` bindings or flatten the nested bodies; no valid program nests this deep"
            }
            WireErrorKind::TrailingBytes { .. } => {
                "pass exactly one program's bytes, without padding or a second program"
            }
            WireErrorKind::BadTag { .. }
            | WireErrorKind::VersionNotMinimal { .. }
            | WireErrorKind::BadVarint { .. }
            | WireErrorKind::InvalidUtf8 { .. } => {
                "the bytes are corrupt or were not written by `Program::to_bytes`; write them again"
            }
        }
    }
}

impl fmt::Display for WireError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "wire format error at byte {}: ", self.offset)?;
        match self.kind {
            WireErrorKind::BadMagic => {
                f.write_str("expected the magic `VYRE`, found other bytes.")?
            }
            WireErrorKind::UnsupportedVersion { found } => write!(
                f,
                "expected a format version from 1 to {}, found version {found}.",
                super::WIRE_VERSION
            )?,
            WireErrorKind::UnexpectedEnd { expected } => {
                write!(f, "expected {expected}, found the end of the bytes.")?;
            }
            WireErrorKind::BadTag { expected, tag } => {
                write!(f, "expected {expected}, found the unknown tag {tag}.")?;
            }
            WireErrorKind::BadVarint { expected } => write!(
                f,
                "expected {expected} as a canonical varint, found an overlong or out-of-range one."
            )?,
            WireErrorKind::LengthPastEnd {
                expected,
                length,
                remaining,
            } => write!(
                f,
                "expected {expected} of at most {remaining} (the bytes that remain), found {length}."
            )?,
            WireErrorKind::InvalidUtf8 { expected } => {
                write!(f, "expected {expected} in UTF-8, found invalid UTF-8.")?;
            }
            WireErrorKind::TooDeep { expected, limit } => write!(
                f,
                "expected {expected}s nested at most {limit} deep, found deeper nesting."
            )?,
            WireErrorKind::RangeTooLarge { value } => write!(
                f,
                "expected a readback bound that fits a usize, found {value}."
            )?,
            WireErrorKind::VersionNotMinimal { found, needed } => write!(
                f,
                "expected version {needed}, the lowest that holds this program, found version {found}."
            )?,
            WireErrorKind::TrailingBytes { count } => write!(
                f,
                "expected the end of the program, found {count} more byte(s)."
            )?,
        }
        write!(f, " Fix: {}.", self.fix())
    }
}

impl std::error::Error for WireError {}
