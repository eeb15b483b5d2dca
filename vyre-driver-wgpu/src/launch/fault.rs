//! Fault injection for tests of recovery: the device is lost at a chosen point of a chosen launch.
//!
//! Only with the `fault-injection` feature (which vyre-driver-wgpu's own tests turn on) can a fault
//! be armed; without it [`Faults`] is empty and every launch's check is a constant `None`, so a
//! production launch takes no lock for it. With the feature, an unarmed launch reads one atomic.

#[cfg(feature = "fault-injection")]
use std::sync::Mutex;
#[cfg(feature = "fault-injection")]
use std::sync::atomic::{AtomicBool, Ordering};

/// Where a fault is injected (tests of recovery); see [`crate::WgpuBackend::inject_fault`].
///
/// ```
/// use vyre_driver::{DispatchConfig, VyreBackend};
/// use vyre_driver_wgpu::{FaultPoint, WgpuBackend};
/// use vyre_foundation::ir::{BufferDecl, DataType, Expr, Node, Program};
///
/// let Ok(backend) = WgpuBackend::acquire() else { return Ok(()) };
/// let program = Program::new(
///     vec![BufferDecl::output("o", 0, DataType::U32).with_count(4)],
///     [64, 1, 1],
///     vec![Node::store("o", Expr::gid_x(), Expr::u32(11))],
/// );
/// // The device is lost right after the submit; the dispatch recovers and retries once.
/// backend.inject_fault(FaultPoint::AfterSubmit);
/// let outputs = backend.dispatch(&program, &[], &DispatchConfig::default())?;
/// assert_eq!(outputs[0][0..4], 11u32.to_le_bytes());
/// assert_eq!(backend.stats().recoveries, 1);
/// assert_eq!(backend.device_generation(), 1);
/// # Ok::<(), vyre_driver::BackendError>(())
/// ```
// Without the feature nothing outside the crate can name it, but the launch still compares against
// its points (always unequal), which keeps one launch path for both builds.
#[cfg_attr(not(feature = "fault-injection"), allow(unreachable_pub, dead_code))]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FaultPoint {
    /// The device is lost before the inputs are uploaded.
    BeforeUpload,
    /// The device is lost right after the submit.
    AfterSubmit,
    /// The device is lost while the readback is being mapped.
    DuringMap,
}

/// The fault armed for a coming launch, if any.
#[derive(Default)]
pub(crate) struct Faults {
    /// Set while `slot` holds a fault, so that unarmed launches skip the lock.
    #[cfg(feature = "fault-injection")]
    armed: AtomicBool,
    /// The launches to let pass first, and where the device is then lost.
    #[cfg(feature = "fault-injection")]
    slot: Mutex<Option<(u32, FaultPoint)>>,
}

impl Faults {
    /// Arms a loss at `point` of the launch after the next `skip` launches (replacing any armed one).
    #[cfg(feature = "fault-injection")]
    pub(crate) fn arm(&self, skip: u32, point: FaultPoint) {
        if let Ok(mut slot) = self.slot.lock() {
            *slot = Some((skip, point));
            self.armed.store(true, Ordering::Release);
        }
    }

    /// The fault injected for this launch, if any; counts down the launches to let pass.
    #[cfg(feature = "fault-injection")]
    pub(crate) fn take(&self) -> Option<FaultPoint> {
        if !self.armed.load(Ordering::Acquire) {
            return None;
        }
        let mut slot = self.slot.lock().ok()?;
        match slot.as_mut() {
            Some((0, point)) => {
                let point = *point;
                *slot = None;
                self.armed.store(false, Ordering::Release);
                Some(point)
            }
            Some((skip, _)) => {
                *skip -= 1;
                None
            }
            None => None,
        }
    }

    /// No fault can be armed without the `fault-injection` feature.
    #[cfg(not(feature = "fault-injection"))]
    #[allow(clippy::unused_self)]
    pub(crate) fn take(&self) -> Option<FaultPoint> {
        None
    }
}
