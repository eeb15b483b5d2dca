//! Helpers for tests that need a GPU adapter.

use crate::backend::WgpuBackend;
use crate::device::AdapterOptions;

/// The environment variable that turns "no adapter" from a skip into a failure.
///
/// ```
/// use vyre_driver_wgpu::testing::REQUIRE_GPU_ENV;
///
/// assert_eq!(REQUIRE_GPU_ENV, "VYRE_REQUIRE_GPU"); // CI: `VYRE_REQUIRE_GPU=1 cargo test`
/// let required = std::env::var(REQUIRE_GPU_ENV).as_deref() == Ok("1");
/// println!("GPU tests {}", if required { "must run" } else { "may skip" });
/// ```
pub const REQUIRE_GPU_ENV: &str = "VYRE_REQUIRE_GPU";

/// A backend for a GPU test, or `None` (after printing that `test` skipped) when no adapter exists.
///
/// # Panics
///
/// When no adapter exists and `VYRE_REQUIRE_GPU=1`: a GPU test must never pass without running.
///
/// ```
/// // In a test: runs on the adapter, prints that it skipped without one, and panics without one when
/// // VYRE_REQUIRE_GPU=1 (so CI never passes a GPU test that did not run).
/// let Some(backend) = vyre_driver_wgpu::testing::backend_or_skip("my_gpu_test") else {
///     return;
/// };
/// println!("testing on {}", backend.adapter_name());
/// ```
#[must_use]
pub fn backend_or_skip(test: &str) -> Option<WgpuBackend> {
    backend_with_or_skip(test, &AdapterOptions::default())
}

/// [`backend_or_skip`] with `options` (another disk cache directory, say).
///
/// # Panics
///
/// As [`backend_or_skip`].
///
/// ```
/// use vyre_driver_wgpu::testing::backend_with_or_skip;
/// use vyre_driver_wgpu::{AdapterOptions, DiskCacheLoad, PipelineCacheDir};
///
/// // A test that must not touch the user's pipeline cache.
/// let options = AdapterOptions::new().with_pipeline_cache(PipelineCacheDir::Off);
/// let Some(backend) = backend_with_or_skip("cache_off_test", &options) else {
///     return;
/// };
/// assert!(matches!(backend.disk_cache().load, DiskCacheLoad::Off(_)));
/// ```
#[must_use]
pub fn backend_with_or_skip(test: &str, options: &AdapterOptions) -> Option<WgpuBackend> {
    match WgpuBackend::acquire_with(options) {
        Ok(backend) => Some(backend),
        Err(error) if std::env::var(REQUIRE_GPU_ENV).as_deref() == Ok("1") => {
            panic!("{test}: {REQUIRE_GPU_ENV}=1 but no GPU adapter: {error}")
        }
        Err(error) => {
            eprintln!("skipped {test}: no GPU adapter ({error})");
            None
        }
    }
}
