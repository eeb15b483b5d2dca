//! The nesting limits every valid program keeps: the checker enforces them, and everything that
//! walks a program recursively (display, the wire decoder, hashing) relies on them.

/// The deepest expression nesting accepted; deeper expressions are rejected (never a stack overflow).
pub const MAX_EXPR_DEPTH: usize = 512;

/// The deepest statement nesting (bodies inside bodies) accepted.
pub const MAX_NODE_DEPTH: usize = 128;
