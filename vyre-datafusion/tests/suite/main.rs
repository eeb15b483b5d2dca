//! vyre-datafusion's integration tests, one binary: each file a module. Every test binary links
//! DataFusion and wgpu (a quarter of a gigabyte in a debug build), so one binary instead of six keeps
//! CI's disk and link time small.

#[macro_use]
mod common;

mod coalesce;
mod codec;
mod errors;
mod fuzz_udf;
mod plan;
mod udf;
