//! The backend-neutral reliability checks: bad input, isolation, load and timeouts, each a function
//! of a `&dyn VyreBackend` that prints its counts to stderr and panics listing what went wrong.
//! [`backend_tests!`](crate::backend_tests) runs them on a backend as `reliability::*` tests;
//! `RELIABILITY.md` at the workspace root says what each proves and the figures of the last runs.
//!
//! They are public so that a backend outside this workspace gets the same checks, and so that a
//! backend's own tests can add what only it can observe (wgpu's pool and cache statistics, device-loss
//! injection) around the same programs ([`mix`], [`isolation::poison`], [`load::warm_up`]).

pub mod bad_input;
mod case;
pub mod invalid_programs;
pub mod isolation;
pub mod load;
pub mod mix;
pub mod timeouts;

pub use bad_input::{
    Case, Expect, ROW_BUFFERS_AT_MOST, ROW_BYTES_AT_MOST, check_cases, check_table, table,
};
pub use invalid_programs::invalid_program_cases;
pub use isolation::{IsolationRun, check_isolation};
pub use load::check_threads;
pub use timeouts::check_timeout;

/// Little-endian bytes of `words`.
#[must_use]
pub fn bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// The `u32` words of little-endian bytes (a trailing partial word is ignored).
#[must_use]
pub fn words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}
