//! # vyre-conformance: the reference backend and the conformance suite
//!
//! - [`ReferenceBackend`] is a CPU interpreter that is the executable form of `SEMANTICS.md`. It runs
//!   the whole grid with the GPU execution model: every invocation has its own variables, `workgroup`
//!   buffers are shared by one workgroup and zeroed for each, `barrier()` is a rendezvous of the whole
//!   workgroup (a program where invocations disagree at a barrier is an error, never a hang), atomics
//!   are sequentially consistent. It is always available, and
//!   [`ReferenceBackend::dispatch_traced`] also reports the operations executed and whether a result
//!   was indeterminate, for differential fuzzing.
//! - [`semantics`] holds backend-neutral test cases that check any [`vyre_driver::VyreBackend`]
//!   against expectations written by hand from `SEMANTICS.md`, and [`reliability`] the bad-input
//!   table and the isolation, load and timeout checks. [`backend_tests!`] instantiates them, with
//!   the catalogue below (one test per area), as `#[test]`s for one backend:
//!
//! ```
//! vyre_conformance::backend_tests!(reference, || Some(vyre_conformance::ReferenceBackend::new()));
//! # fn main() {}
//! ```
//!
//! - [`catalogue`] and [`check_backend`]: tens of thousands of named cases over every operator, type
//!   and edge value, batched into a few dozen dispatches, judged bit-exactly (integers, bools) or
//!   within the WGSL accuracy intervals (floats); [`assert_conforms`] and [`conformance_test!`] run
//!   them from a downstream crate's tests (see [`report`] for an example); `vyre-conform` is the CLI
//!   (its own crate, `conformance/cli`).
//! - `gen` generates random valid programs from recipes of small integers (biased, by its
//!   `EdgeOperands`, `WidthCasts` and `F16RoundTrips` features, toward shapes GPU drivers have
//!   miscompiled), and [`fuzz`] runs them: [`fuzz::run`] against the reference, and
//!   [`fuzz::metamorphic::run`] a backend against itself on semantics-preserving rewrites, both
//!   shrinking what they find to a regression case that [`fuzz::replay`] runs again.
//!
//! The library sees backends only through [`vyre_driver::VyreBackend`]: picking one by name or
//! automatically is `vyre::backend`'s job, which only the `vyre-conform` binary uses.

pub mod semantics;

pub mod batch;

pub use vyre_reference::{ReferenceBackend, TracedRun};

pub mod catalogue;
pub mod fixtures;
pub mod fuzz;
pub mod r#gen;
pub mod reliability;
pub mod report;
pub mod resident;
pub mod suite;

pub use report::{
    CheckOptions, ConformanceReport, assert_conforms, check_backend, check_backend_with,
    check_with_reference,
};
