//! What every stage of a launch runs on.

use std::sync::{Arc, Mutex};

use crate::device::DeviceState;
use crate::pool::BufferPool;
use crate::stats::Counters;

use super::fault::Faults;

/// What a launch runs on: the device, the pool its buffers come from and go back to, the counters it
/// bumps, and the faults tests inject.
#[derive(Clone, Copy)]
pub(crate) struct LaunchContext<'a> {
    pub(crate) state: &'a Arc<DeviceState>,
    pub(crate) pool: &'a Arc<Mutex<BufferPool>>,
    pub(crate) counters: &'a Counters,
    pub(crate) faults: &'a Faults,
}
