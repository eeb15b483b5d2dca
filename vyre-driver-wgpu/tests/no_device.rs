//! A machine without a usable adapter gets `NoDevice`, never `DeviceLost`: a caller's recovery loop
//! retries on `is_device_lost()`, and would spin forever on a device that never existed.
//!
//! The missing adapter is simulated with `VYRE_WGPU_ADAPTER` naming no adapter. The variable is set
//! for a child process (this test binary run again on one test), not for this process, whose other
//! tests must keep seeing the real adapters.

use std::process::Command;

use vyre_driver_wgpu::{ADAPTER_ENV, WgpuBackend};

/// Set in the child: it then acquires and reports instead of spawning.
const CHILD_ENV: &str = "VYRE_NO_DEVICE_CHILD";

#[test]
fn acquire_without_a_matching_adapter_is_no_device_with_a_fix() {
    if std::env::var(CHILD_ENV).is_ok() {
        match WgpuBackend::acquire() {
            Ok(backend) => panic!("acquired {} despite the filter", backend.adapter_name()),
            Err(e) => {
                assert_eq!(e.kind_name(), "NoDevice", "{e}");
                assert!(!e.is_device_lost(), "{e}");
                assert!(e.to_string().contains("Fix:"), "{e}");
                assert!(e.to_string().contains(ADAPTER_ENV), "{e}");
            }
        }
        return;
    }
    let exe = std::env::current_exe().expect("the test binary's path");
    let child = Command::new(exe)
        .args([
            "--exact",
            "acquire_without_a_matching_adapter_is_no_device_with_a_fix",
        ])
        .env(CHILD_ENV, "1")
        .env(ADAPTER_ENV, "no adapter is called this 7f3a")
        .output()
        .expect("running the test binary again");
    let stdout = String::from_utf8_lossy(&child.stdout);
    let stderr = String::from_utf8_lossy(&child.stderr);
    // The child must have run exactly this one test: a filter that matched nothing would pass too.
    assert!(
        child.status.success() && stdout.contains("1 passed"),
        "the child run failed or ran no test: {}\n{stdout}\n{stderr}",
        child.status
    );
}
