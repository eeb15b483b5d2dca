//! The plan node and the rule that places it: consecutive vyre functions over a batch as one
//! `dispatch_sequence` with every intermediate column resident on the device.
//!
//! `chain.rs` compiles a projection's or filter's expressions into a sequence of calls, `exec.rs`
//! is the node that runs it per batch (small batches together, `coalesce.rs`; its output stream,
//! `stream.rs`), `rule.rs` the physical optimizer rule.

mod chain;
mod coalesce;
mod exec;
mod rule;
mod stream;

pub use exec::VyreExec;
pub use rule::VyreRule;
