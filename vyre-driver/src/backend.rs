//! The `VyreBackend` trait and what a backend reports about itself.

use vyre_foundation::ir::Program;
use vyre_foundation::validate::Validated;

use crate::{BackendError, DeviceBuffer, DispatchConfig, DispatchPlan, PreparedStep, Step};

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
/// A backend implements [`VyreBackend::execute`]; the provided [`VyreBackend::dispatch`] owns the
/// order every backend shares ([`prepare`]: validation, which also bounds nesting, then
/// [`crate::plan_dispatch`]), so all backends reject the same input with the same error and only
/// ever execute a validated program with checked inputs.
///
/// Implementations must be safe to share between threads: many threads may call `dispatch` at once.
///
/// ```
/// use vyre_driver::{BackendError, Capabilities, DispatchConfig, DispatchPlan, VyreBackend};
/// use vyre_foundation::validate::Validated;
///
/// /// A backend that runs nothing: every output stays zero.
/// struct Zeros;
///
/// impl VyreBackend for Zeros {
///     fn id(&self) -> &str {
///         "zeros"
///     }
///     fn capabilities(&self) -> Capabilities {
///         Capabilities::unlimited("zeros")
///     }
///     fn execute(
///         &self,
///         program: &Validated<'_>,
///         plan: &DispatchPlan,
///         _inputs: &[Vec<u8>],
///         _config: &DispatchConfig,
///     ) -> Result<Vec<Vec<u8>>, BackendError> {
///         let program = program.program();
///         Ok(program
///             .buffers
///             .iter()
///             .zip(&plan.buffers)
///             .filter(|(decl, _)| decl.access == vyre_foundation::ir::BufferAccess::Output)
///             .map(|(decl, b)| vec![0; b.element_count as usize * decl.element.size_bytes()])
///             .collect())
///     }
/// }
///
/// use vyre_foundation::ir::{BufferDecl, DataType, Program};
/// let bad = Program::new(vec![BufferDecl::output("o", 0, DataType::U32)], [1, 1, 1], vec![]);
/// // Invalid (an output needs a count): rejected by the shared order before `execute` runs.
/// let err = Zeros.dispatch(&bad, &[], &DispatchConfig::default()).unwrap_err();
/// assert_eq!(err.kind_name(), "InvalidProgram");
/// ```
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
    /// Provided: [`prepare`] validates the program and plans the dispatch, then
    /// [`VyreBackend::execute`] runs it. A backend overrides this only to wrap another backend.
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
    ) -> Result<Vec<Vec<u8>>, BackendError> {
        let (validated, plan) = prepare(program, inputs, config)?;
        self.execute(&validated, &plan, inputs, config)
    }

    /// The backend's own part of [`VyreBackend::dispatch`]: runs a validated program whose inputs
    /// `plan` has checked (`plan.buffers[j].input` indexes `inputs`), and returns one byte vector per
    /// `output` buffer, in declaration order, trimmed to its output byte range.
    ///
    /// Provided only so that backends written against `dispatch` alone keep compiling: the default
    /// is [`BackendError::Unsupported`].
    ///
    /// # Errors
    ///
    /// As [`VyreBackend::dispatch`], less what [`prepare`] already checked.
    fn execute(
        &self,
        program: &Validated<'_>,
        plan: &DispatchPlan,
        inputs: &[Vec<u8>],
        config: &DispatchConfig,
    ) -> Result<Vec<Vec<u8>>, BackendError> {
        let _ = (program, plan, inputs, config);
        Err(BackendError::unsupported(format!(
            "backend `{}` implements neither `execute` nor `dispatch`. Fix: implement `VyreBackend::execute`.",
            self.id()
        )))
    }

    /// A zero-filled buffer of `bytes` bytes on the backend's device.
    ///
    /// Provided for backends that cannot hold data: [`BackendError::Unsupported`]. Both in-tree
    /// backends implement it.
    ///
    /// # Errors
    ///
    /// [`BackendError::LimitExceeded`] past the device's largest buffer, [`BackendError::OutOfMemory`]
    /// when the device refuses the memory.
    fn create_buffer(&self, bytes: u64) -> Result<DeviceBuffer, BackendError> {
        let _ = bytes;
        Err(no_resident(self.id()))
    }

    /// Writes `data` into `buffer` at byte `offset`; later dispatches and reads see it.
    ///
    /// # Errors
    ///
    /// [`BackendError::InvalidConfig`] for a buffer of another backend or a range past its end;
    /// [`BackendError::DeviceLost`] for a buffer whose device was lost since it was created.
    fn write_buffer(
        &self,
        buffer: &DeviceBuffer,
        offset: u64,
        data: &[u8],
    ) -> Result<(), BackendError> {
        let _ = (buffer, offset, data);
        Err(no_resident(self.id()))
    }

    /// The bytes `range` of `buffer`, after every dispatch submitted before the call.
    ///
    /// # Errors
    ///
    /// As [`VyreBackend::write_buffer`].
    fn read_buffer(
        &self,
        buffer: &DeviceBuffer,
        range: std::ops::Range<u64>,
    ) -> Result<Vec<u8>, BackendError> {
        let _ = (buffer, range);
        Err(no_resident(self.id()))
    }

    /// Runs `program` once over buffers that stay on the device: one buffer per declared
    /// non-workgroup buffer, in declaration order (every access, `output` and `read_write` included).
    ///
    /// The same meaning as [`VyreBackend::dispatch`]: `output` buffers start at zero in every
    /// dispatch (the elements the program declares), `read_write` buffers keep their contents, a
    /// declared count smaller than the buffer bounds the accesses, a runtime-sized buffer takes the
    /// buffer's length in whole elements. Provided: one [`Step`] of
    /// [`VyreBackend::dispatch_sequence`].
    ///
    /// # Errors
    ///
    /// As [`VyreBackend::dispatch`]; [`BackendError::InputMismatch`] for the wrong number of
    /// buffers or one smaller than its declared count, [`BackendError::InvalidConfig`] for a buffer
    /// of another backend, [`BackendError::DeviceLost`] for a buffer whose device was lost.
    fn dispatch_resident(
        &self,
        program: &Program,
        buffers: &[&DeviceBuffer],
        config: &DispatchConfig,
    ) -> Result<(), BackendError> {
        self.dispatch_sequence(&[Step::new(program, buffers, config)])
    }

    /// Runs `steps` in order over resident buffers, each step seeing the writes of the steps before
    /// it (on wgpu: one command encoder and one submit). Nothing runs unless every step passes the
    /// shared checks ([`crate::prepare_sequence`]).
    ///
    /// Provided: the checks, then [`VyreBackend::execute_sequence`].
    ///
    /// # Errors
    ///
    /// As [`VyreBackend::dispatch_resident`], the message naming the step.
    fn dispatch_sequence(&self, steps: &[Step<'_>]) -> Result<(), BackendError> {
        let prepared = crate::prepare_sequence(steps)?;
        self.execute_sequence(&prepared)
    }

    /// The backend's own part of [`VyreBackend::dispatch_sequence`]: runs steps the shared checks
    /// accepted. Provided for backends that cannot hold data: [`BackendError::Unsupported`].
    ///
    /// # Errors
    ///
    /// As [`VyreBackend::dispatch_sequence`], less what the checks cover.
    fn execute_sequence(&self, steps: &[PreparedStep<'_>]) -> Result<(), BackendError> {
        let _ = steps;
        Err(no_resident(self.id()))
    }

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

fn no_resident(backend: &str) -> BackendError {
    BackendError::unsupported(format!(
        "backend `{backend}` cannot hold data on its device. Fix: use `dispatch` with byte vectors, or a backend with resident buffers (wgpu, reference)."
    ))
}

/// The checks every dispatch makes before a backend runs anything, in the one order all backends
/// share: the program is validated (nesting limits first, so nothing recurses on an over-deep
/// program), then the inputs and grid are checked by [`crate::plan_dispatch`]. Errors pass through
/// unchanged.
///
/// # Errors
///
/// [`BackendError::InvalidProgram`] for an invalid program; [`crate::plan_dispatch`]'s errors for
/// inputs or a grid that do not fit it.
pub fn prepare<'p>(
    program: &'p Program,
    inputs: &[Vec<u8>],
    config: &DispatchConfig,
) -> Result<(Validated<'p>, DispatchPlan), BackendError> {
    let validated = vyre_foundation::validate(program)?;
    let lens: Vec<usize> = inputs.iter().map(Vec::len).collect();
    let plan = crate::plan_dispatch(program, &lens, config)?;
    Ok((validated, plan))
}

/// A boxed backend is a backend: every method forwards, so wrappers (such as the conformance
/// crate's resident mode) take `Box<dyn VyreBackend>` as readily as a concrete backend.
impl<B: VyreBackend + ?Sized> VyreBackend for Box<B> {
    fn id(&self) -> &str {
        (**self).id()
    }

    fn capabilities(&self) -> Capabilities {
        (**self).capabilities()
    }

    fn dispatch(
        &self,
        program: &Program,
        inputs: &[Vec<u8>],
        config: &DispatchConfig,
    ) -> Result<Vec<Vec<u8>>, BackendError> {
        (**self).dispatch(program, inputs, config)
    }

    fn execute(
        &self,
        program: &Validated<'_>,
        plan: &DispatchPlan,
        inputs: &[Vec<u8>],
        config: &DispatchConfig,
    ) -> Result<Vec<Vec<u8>>, BackendError> {
        (**self).execute(program, plan, inputs, config)
    }

    fn create_buffer(&self, bytes: u64) -> Result<DeviceBuffer, BackendError> {
        (**self).create_buffer(bytes)
    }

    fn write_buffer(
        &self,
        buffer: &DeviceBuffer,
        offset: u64,
        data: &[u8],
    ) -> Result<(), BackendError> {
        (**self).write_buffer(buffer, offset, data)
    }

    fn read_buffer(
        &self,
        buffer: &DeviceBuffer,
        range: std::ops::Range<u64>,
    ) -> Result<Vec<u8>, BackendError> {
        (**self).read_buffer(buffer, range)
    }

    fn dispatch_resident(
        &self,
        program: &Program,
        buffers: &[&DeviceBuffer],
        config: &DispatchConfig,
    ) -> Result<(), BackendError> {
        (**self).dispatch_resident(program, buffers, config)
    }

    fn dispatch_sequence(&self, steps: &[Step<'_>]) -> Result<(), BackendError> {
        (**self).dispatch_sequence(steps)
    }

    fn execute_sequence(&self, steps: &[PreparedStep<'_>]) -> Result<(), BackendError> {
        (**self).execute_sequence(steps)
    }

    fn device_lost(&self) -> bool {
        (**self).device_lost()
    }

    fn try_recover(&self) -> Result<(), BackendError> {
        (**self).try_recover()
    }
}
