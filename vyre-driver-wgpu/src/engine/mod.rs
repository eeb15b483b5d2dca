//! Execution engines beyond a single dispatch.

mod coalesce;
pub mod persistent;
