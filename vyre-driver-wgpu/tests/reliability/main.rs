//! The wgpu-only part of the reliability suite: device losses through a long run, and the bounds of
//! the buffer pool and pipeline cache under load. `RELIABILITY.md` at the workspace root lists what
//! each part proves and the figures its last runs printed.
//!
//! The backend-neutral checks (bad input, isolation, load, timeouts) live in
//! `vyre_conformance::reliability` and run on wgpu as `wgpu::reliability::*` in the `suite` test
//! binary. Every test here uses `backend_or_skip`, so with `VYRE_REQUIRE_GPU=1` a missing adapter fails
//! it instead of skipping it, and prints its counts to stderr
//! (`cargo test --test reliability -- --nocapture` shows them).

#[path = "../common.rs"]
mod common;

mod faults;
mod load;
