//! placeholder

pub mod catalogue;
pub mod report;

pub use report::{CheckOptions, ConformanceReport, check_with_reference};
