//! The reliability suite: bad input, isolation, faults, load and timeouts, on the reference backend
//! and on wgpu (lavapipe in CI). `RELIABILITY.md` at the workspace root lists what each part proves
//! and the figures its last runs printed.
//!
//! Backend-neutral checks take a `&dyn VyreBackend` and are instantiated once per backend by
//! [`on_both_backends!`]; the wgpu instance uses `backend_or_skip`, so with `VYRE_REQUIRE_GPU=1` a
//! missing adapter fails the test instead of skipping it. Every test prints its counts to stderr
//! (`cargo test --test reliability -- --nocapture` shows them).

#[path = "../common.rs"]
mod common;

/// Instantiates `$check(&dyn VyreBackend)` as two tests, `$name::reference` and `$name::wgpu`.
macro_rules! on_both_backends {
    ($name:ident, $check:path) => {
        mod $name {
            #[test]
            fn reference() {
                $check(&vyre_conformance::ReferenceBackend::new());
            }

            #[test]
            fn wgpu() {
                let test = concat!(stringify!($name), "::wgpu");
                if let Some(backend) = vyre_driver_wgpu::testing::backend_or_skip(test) {
                    $check(&backend);
                }
            }
        }
    };
}

mod bad_input;
mod faults;
mod invalid_programs;
mod isolation;
mod load;
mod mix;
mod timeouts;
