//! # vyre-driver: the contract between programs and backends
//!
//! A backend implements [`VyreBackend`]: it takes a [`Program`](vyre_foundation::ir::Program), one byte
//! vector per input buffer and a [`DispatchConfig`], and returns one byte vector per output buffer or a
//! [`BackendError`]. [`plan_dispatch`] holds the input and grid rules every backend shares, so all of
//! them reject the same bad inputs the same way.

mod asynch;
mod backend;
mod config;
mod error;
mod plan;
mod resident;
mod tiles;

pub use asynch::{BackendFuture, block_on};
pub use backend::{
    Capabilities, VyreBackend, check_features, dispatch_each, prepare, require_features,
};
pub use config::DispatchConfig;
pub use error::BackendError;
pub use plan::{DispatchPlan, ResolvedBuffer, derive_grid, plan_dispatch};
pub use resident::{
    DeviceBuffer, InstanceId, PreparedStep, Step, plan_resident, prepare_resident, prepare_sequence,
};
pub use tiles::check_tiles;
