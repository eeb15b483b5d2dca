//! The `VyreBackend` trait and what a backend reports about itself.

use vyre_foundation::ir::Program;

use crate::{BackendError, DispatchConfig};

/// What a backend or its device can do. Limits a program exceeds give [`BackendError::LimitExceeded`].
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Capabilities {
    /// A human-readable device name, e.g. `"llvmpipe (LLVM 15.0.6, 256 bits) (Vulkan, Cpu)"`.
    pub device_name: String,
    /// True when the backend runs on a GPU (or a CPU Vulkan driver), false for interpreters.
    pub is_gpu: bool,
    /// The most workgroups one dispatch may have along one axis before the backend must fold the grid.
    pub max_workgroups_per_dimension: u32,
    /// The largest workgroup size along each axis.
    pub max_workgroup_size: [u32; 3],
    /// The most invocations in one workgroup.
    pub max_invocations_per_workgroup: u32,
    /// The most workgroup memory in bytes.
    pub max_workgroup_storage_bytes: u32,
    /// The largest storage buffer in bytes.
    pub max_storage_buffer_bytes: u64,
    /// The largest uniform buffer in bytes.
    pub max_uniform_buffer_bytes: u64,
    /// The most bound buffers one program may declare.
    pub max_bound_buffers: u32,
    /// True when the backend can time dispatches on the device.
    pub timestamps: bool,
}

impl Capabilities {
    /// Capabilities with no practical limits, for interpreters.
    #[must_use]
    pub fn unlimited(device_name: impl Into<String>) -> Self {
        Self {
            device_name: device_name.into(),
            is_gpu: false,
            max_workgroups_per_dimension: u32::MAX,
            max_workgroup_size: [1024, 1024, 1024],
            max_invocations_per_workgroup: 1024,
            max_workgroup_storage_bytes: u32::MAX,
            max_storage_buffer_bytes: u64::from(u32::MAX) * 4,
            max_uniform_buffer_bytes: u64::from(u32::MAX) * 4,
            max_bound_buffers: u32::MAX,
            timestamps: false,
        }
    }
}

/// A backend: something that runs validated vyre programs.
///
/// Implementations must be safe to share between threads: many threads may call `dispatch` at once.
pub trait VyreBackend: Send + Sync {
    /// A short stable identifier, e.g. `"reference"` or `"wgpu"`.
    fn id(&self) -> &str;

    /// What this backend and its device support.
    fn capabilities(&self) -> Capabilities;

    /// Runs `program` once over its grid.
    ///
    /// `inputs` holds one byte vector per `read`, `read_write` and `uniform` buffer, in declaration
    /// order. The result holds one byte vector per `output` buffer, in declaration order, trimmed to its
    /// output byte range.
    ///
    /// # Errors
    ///
    /// A [`BackendError`] when the program is invalid, the inputs do not fit it, a limit is exceeded,
    /// the device is lost, or the dispatch times out. Never a panic.
    fn dispatch(
        &self,
        program: &Program,
        inputs: &[Vec<u8>],
        config: &DispatchConfig,
    ) -> Result<Vec<Vec<u8>>, BackendError>;

    /// True when the backend's device is lost and [`VyreBackend::try_recover`] is needed.
    fn device_lost(&self) -> bool {
        false
    }

    /// Brings a lost device back (a no-op for backends that cannot lose one).
    ///
    /// # Errors
    ///
    /// [`BackendError::DeviceLost`] when the lost device could not be replaced.
    fn try_recover(&self) -> Result<(), BackendError> {
        Ok(())
    }
}
