//! # vyre-conformance: the reference backend and the conformance suite
//!
//! - [`ReferenceBackend`]: a CPU interpreter that is the executable form of `SEMANTICS.md`. It runs
//!   the whole grid with the GPU execution model (per-invocation variables, per-workgroup shared
//!   memory, barriers as rendezvous, sequentially consistent atomics) and is always available.
//! - [`semantics`]: backend-neutral test cases that check any [`vyre_driver::VyreBackend`] against
//!   hand-written expectations from `SEMANTICS.md`; [`semantics_suite!`] turns them into `#[test]`s.
//! - [`catalogue`] and [`check_backend`]: tens of thousands of named cases over every operator, type
//!   and edge value, batched into a few dozen dispatches, judged bit-exactly (integers, bools) or
//!   within the WGSL accuracy intervals (floats); [`assert_conforms`] and [`conformance_test!`] run
//!   them from a downstream crate's tests (see [`report`] for an example); `vyre-conform` is the CLI.
//! - [`select`]: picking a backend by name or automatically (`VYRE_BACKEND` overrides).

mod reference;
pub mod semantics;

pub use reference::{ReferenceBackend, TracedRun};

pub mod catalogue;
pub mod report;
pub mod select;

pub use report::{
    CheckOptions, ConformanceReport, assert_conforms, check_backend, check_backend_with,
    check_with_reference,
};
