//! vyre-ballista's integration tests, one binary (each links Ballista, DataFusion and wgpu): the
//! codecs, and the cluster of separate scheduler and executor processes.

mod common;

mod cluster;
mod codec;
