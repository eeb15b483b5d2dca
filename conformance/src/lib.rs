//! # vyre-conformance: the reference backend and the conformance suite
//!
//! - [`ReferenceBackend`]: a CPU interpreter that is the executable form of `SEMANTICS.md`. It runs
//!   the whole grid with the GPU execution model (per-invocation variables, per-workgroup shared
//!   memory, barriers as rendezvous, sequentially consistent atomics) and is always available.
//! - [`semantics`]: backend-neutral test cases that check any [`vyre_driver::VyreBackend`] against
//!   hand-written expectations from `SEMANTICS.md`; [`semantics_suite!`] turns them into `#[test]`s.

mod reference;
pub mod semantics;

pub use reference::{ReferenceBackend, TracedRun};

pub mod catalogue;
pub mod report;

pub use report::{CheckOptions, ConformanceReport, check_with_reference};
