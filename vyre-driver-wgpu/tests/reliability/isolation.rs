//! Isolation (filled in by the next commit).
