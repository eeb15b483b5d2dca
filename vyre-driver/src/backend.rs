//! The `VyreBackend` trait and what a backend reports about itself.

use vyre_foundation::ir::{Features, Program, TileShape};
use vyre_foundation::validate::Validated;

use crate::{
    BackendError, BackendFuture, DeviceBuffer, DispatchConfig, DispatchPlan, PreparedStep, Step,
};

/// What a backend or its device can do. Limits a program exceeds give [`BackendError::LimitExceeded`].
///
/// The struct is `#[non_exhaustive]`: a backend outside this crate starts from
/// [`Capabilities::unlimited`] and sets the fields its device limits.
///
/// ```
/// use vyre_driver::{Capabilities, VyreBackend};
///
/// // A backend author describing a GPU with wgpu's default limits.
/// let mut caps = Capabilities::unlimited("my accelerator");
/// caps.is_gpu = true;
/// caps.max_workgroups_per_dimension = 65_535;
/// caps.max_workgroup_size = [256, 256, 64];
/// caps.max_invocations_per_workgroup = 256;
/// caps.max_bound_buffers = 8;
/// assert_eq!(caps.device_name, "my accelerator");
/// assert!(caps.max_workgroup_size[0] <= caps.max_invocations_per_workgroup);
///
/// // A user reading what a backend supports.
/// let reference = vyre_reference::ReferenceBackend::new().capabilities();
/// assert!(!reference.is_gpu);
/// assert!(reference.max_bound_buffers >= 8);
/// ```
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
    /// True when the device runs subgroup operations (`Expr::subgroup_add` and the rest).
    pub subgroups: bool,
    /// The smallest and largest subgroup size the device may use (`[0, 0]` without subgroups). A
    /// program must not assume one size inside this range: see SEMANTICS.md.
    pub subgroup_sizes: [u32; 2],
    /// True when the device has 16-bit floats (`DataType::F16`).
    pub f16: bool,
    /// True when the device has 64-bit integers (`DataType::U64`, `DataType::I64`).
    pub int64: bool,
    /// True when the device has atomics on 64-bit integers.
    pub int64_atomics: bool,
    /// The driver workarounds the backend applies on this device, by name (empty when none): rewrites
    /// that avoid known bugs of its driver's compiler without changing any result (the wgpu
    /// backend's `vyre_driver_wgpu::workarounds`).
    pub workarounds: Vec<String>,
    /// The matrix-tile multiply-add shapes the backend runs (`SEMANTICS.md` section 9a), empty
    /// when it has no tiles: the reference runs [`TileShape::all`], a GPU what its adapter reports
    /// and the IR can express.
    pub matrix_tiles: Vec<TileShape>,
}

impl Capabilities {
    /// Capabilities with no practical limits, for interpreters.
    ///
    /// ```
    /// let caps = vyre_driver::Capabilities::unlimited("my interpreter");
    /// assert_eq!(caps.device_name, "my interpreter");
    /// assert!(!caps.is_gpu && !caps.timestamps);
    /// assert_eq!(caps.max_workgroups_per_dimension, u32::MAX);
    /// ```
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
            subgroups: false,
            subgroup_sizes: [0, 0],
            f16: false,
            int64: false,
            int64_atomics: false,
            workarounds: Vec::new(),
            matrix_tiles: Vec::new(),
        }
    }

    /// The optional features (see [`Features`]) this backend's device has.
    ///
    /// ```
    /// use vyre_foundation::ir::Features;
    ///
    /// let mut caps = vyre_driver::Capabilities::unlimited("my interpreter");
    /// assert_eq!(caps.features(), Features::NONE);
    /// caps.f16 = true;
    /// assert_eq!(caps.features(), Features::F16);
    /// ```
    #[must_use]
    pub fn features(&self) -> Features {
        let mut features = Features::NONE;
        for (has, feature) in [
            (self.subgroups, Features::SUBGROUPS),
            (self.f16, Features::F16),
            (self.int64, Features::INT64),
            (self.int64_atomics, Features::INT64_ATOMICS),
            (!self.matrix_tiles.is_empty(), Features::TILES),
        ] {
            if has {
                features |= feature;
            }
        }
        features
    }
}

/// Refuses a program that needs optional features (`needed`, from
/// [`Validated::features`]) the device lacks (`available`), naming each missing feature, before
/// anything runs. `device` names the device in the message.
///
/// # Errors
///
/// [`BackendError::Unsupported`] naming the missing features, with a `Fix:`.
///
/// ```
/// use vyre_foundation::ir::Features;
///
/// assert!(vyre_driver::require_features("gpu", Features::ALL, Features::F16).is_ok());
/// let err = vyre_driver::require_features("gpu", Features::NONE, Features::SUBGROUPS).unwrap_err();
/// assert_eq!(err.kind_name(), "Unsupported");
/// assert!(err.to_string().contains("subgroups"));
/// ```
pub fn require_features(
    device: &str,
    available: Features,
    needed: Features,
) -> Result<(), BackendError> {
    let missing = needed.missing_from(available);
    if missing.is_empty() {
        return Ok(());
    }
    Err(BackendError::unsupported(format!(
        "the program uses {missing}, which the device `{device}` does not support. Fix: run it on a backend whose `capabilities()` report {missing} (the reference backend has every feature), or write the program without them."
    )))
}

/// [`require_features`] against a backend's capabilities, asked for only when the program needs an
/// optional feature (most need none, and `capabilities()` may allocate). The provided
/// [`VyreBackend::dispatch`] runs it after [`prepare`]; a backend overriding `dispatch` runs it too.
///
/// # Errors
///
/// [`BackendError::Unsupported`] naming the features the backend lacks.
///
/// ```
/// use vyre_driver::{check_features, prepare, DispatchConfig};
/// use vyre_foundation::ir::{BufferDecl, DataType, Expr, Node, Program};
///
/// let program = Program::new(
///     vec![BufferDecl::output("y", 0, DataType::U32).with_count(4)],
///     [64, 1, 1],
///     vec![Node::store("y", Expr::gid_x(), Expr::gid_x())],
/// );
/// let (validated, _) = prepare(&program, &[], &DispatchConfig::default())?;
/// // No optional feature needed: any backend may run it.
/// check_features(&vyre_reference::ReferenceBackend::new(), &validated)?;
/// # Ok::<(), vyre_driver::BackendError>(())
/// ```
pub fn check_features<B: VyreBackend + ?Sized>(
    backend: &B,
    program: &Validated<'_>,
) -> Result<(), BackendError> {
    let needed = program.features();
    if needed.is_empty() {
        return Ok(());
    }
    let caps = backend.capabilities();
    require_features(&caps.device_name, caps.features(), needed)?;
    crate::check_tiles(&caps, program)
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
    ///
    /// ```
    /// use vyre_driver::VyreBackend;
    ///
    /// let backend: Box<dyn VyreBackend> = Box::new(vyre_reference::ReferenceBackend::new());
    /// assert_eq!(backend.id(), "reference");
    /// ```
    fn id(&self) -> &str;

    /// What this backend and its device support.
    ///
    /// ```
    /// use vyre_driver::VyreBackend;
    ///
    /// let caps = vyre_reference::ReferenceBackend::new().capabilities();
    /// // Choose a workgroup size the backend accepts.
    /// let size = 256.min(caps.max_invocations_per_workgroup);
    /// assert!(size >= 64, "every backend takes workgroups of 64");
    /// ```
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
    ///
    /// ```
    /// use vyre_driver::{DispatchConfig, VyreBackend};
    /// use vyre_foundation::ir::{BufferDecl, DataType, Expr, Node, Program};
    ///
    /// // `y[i] = x[i] * 3`
    /// let triple = Program::new(
    ///     vec![
    ///         BufferDecl::read("x", 0, DataType::U32).with_count(4),
    ///         BufferDecl::output("y", 1, DataType::U32).with_count(4),
    ///     ],
    ///     [64, 1, 1],
    ///     vec![Node::store("y", Expr::gid_x(), Expr::mul(Expr::load("x", Expr::gid_x()), Expr::u32(3)))],
    /// );
    /// let x: Vec<u8> = [1u32, 2, 3, 4].iter().flat_map(|v| v.to_le_bytes()).collect();
    /// let backend = vyre_reference::ReferenceBackend::new();
    /// let outputs = backend.dispatch(&triple, &[x], &DispatchConfig::default())?;
    /// let expected: Vec<u8> = [3u32, 6, 9, 12].iter().flat_map(|v| v.to_le_bytes()).collect();
    /// assert_eq!(outputs, vec![expected]);
    /// # Ok::<(), vyre_driver::BackendError>(())
    /// ```
    fn dispatch(
        &self,
        program: &Program,
        inputs: &[Vec<u8>],
        config: &DispatchConfig,
    ) -> Result<Vec<Vec<u8>>, BackendError> {
        let (validated, plan) = prepare(program, inputs, config)?;
        check_features(self, &validated)?;
        self.execute(&validated, &plan, inputs, config)
    }

    /// Runs `program` once per item of `items`, each item being the inputs of one
    /// [`VyreBackend::dispatch`] (one byte vector per input buffer), and returns one output set per
    /// item, in the items' order: exactly what `dispatch` returns for each item on its own.
    ///
    /// The entry point for queues of many small independent work items. Provided: one `dispatch`
    /// per item, in order, stopping at the first error. A backend overrides it when it can run
    /// many items at once (the wgpu backend runs them through one coalesced pipeline, in the
    /// fewest launches); `vyre::Sharded` splits the items across its members.
    ///
    /// # Errors
    ///
    /// As [`VyreBackend::dispatch`]: the first failing item's error, its message starting `work item
    /// k: ` ([`BackendError::in_item`]; the provided method runs the items in order, so that is the
    /// failing item with the lowest index).
    ///
    /// ```
    /// use vyre_driver::{DispatchConfig, VyreBackend};
    /// use vyre_foundation::ir::{BufferDecl, DataType, Expr, Node, Program};
    ///
    /// // `y[i] = x[i] + 1` over one-word items.
    /// let increment = Program::new(
    ///     vec![
    ///         BufferDecl::read("x", 0, DataType::U32).with_count(1),
    ///         BufferDecl::output("y", 1, DataType::U32).with_count(1),
    ///     ],
    ///     [64, 1, 1],
    ///     vec![Node::store("y", Expr::gid_x(), Expr::add(Expr::load("x", Expr::gid_x()), Expr::u32(1)))],
    /// );
    /// let items: Vec<Vec<Vec<u8>>> = (0..5u32).map(|v| vec![v.to_le_bytes().to_vec()]).collect();
    /// let backend = vyre_reference::ReferenceBackend::new();
    /// let outputs = backend.dispatch_batch(&increment, &items, &DispatchConfig::default())?;
    /// assert_eq!(outputs.len(), 5);
    /// assert_eq!(outputs[4], vec![5u32.to_le_bytes().to_vec()]); // one output set per item
    /// let bad = vec![items[0].clone(), vec![vec![1, 2]]]; // item 1 is not a whole u32
    /// let err = backend.dispatch_batch(&increment, &bad, &DispatchConfig::default()).unwrap_err();
    /// assert!(err.to_string().starts_with("work item 1: "), "{err}");
    /// # Ok::<(), vyre_driver::BackendError>(())
    /// ```
    fn dispatch_batch(
        &self,
        program: &Program,
        items: &[Vec<Vec<u8>>],
        config: &DispatchConfig,
    ) -> Result<Vec<Vec<Vec<u8>>>, BackendError> {
        dispatch_each(self, program, items, config)
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
    ///
    /// ```
    /// use vyre_driver::{DispatchConfig, VyreBackend, prepare};
    /// use vyre_foundation::ir::{BufferDecl, DataType, Expr, Node, Program};
    ///
    /// let program = Program::new(
    ///     vec![BufferDecl::output("o", 0, DataType::U32).with_count(2)],
    ///     [64, 1, 1],
    ///     vec![Node::store("o", Expr::gid_x(), Expr::u32(5))],
    /// );
    /// let config = DispatchConfig::default();
    /// // What `dispatch` does: the shared checks, then the backend's own part.
    /// let (validated, plan) = prepare(&program, &[], &config)?;
    /// let outputs = vyre_reference::ReferenceBackend::new().execute(&validated, &plan, &[], &config)?;
    /// assert_eq!(outputs[0], [5u32, 5].iter().flat_map(|v| v.to_le_bytes()).collect::<Vec<u8>>());
    /// # Ok::<(), vyre_driver::BackendError>(())
    /// ```
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
    ///
    /// ```
    /// use vyre_driver::VyreBackend;
    ///
    /// let backend = vyre_reference::ReferenceBackend::new();
    /// let buffer = backend.create_buffer(8)?;
    /// assert_eq!(buffer.len(), 8);
    /// assert_eq!(backend.read_buffer(&buffer, 0..8)?, vec![0; 8]); // zero-filled
    /// # Ok::<(), vyre_driver::BackendError>(())
    /// ```
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
    ///
    /// ```
    /// use vyre_driver::VyreBackend;
    ///
    /// let backend = vyre_reference::ReferenceBackend::new();
    /// let buffer = backend.create_buffer(8)?;
    /// backend.write_buffer(&buffer, 2, &[1, 2, 3])?;
    /// assert_eq!(backend.read_buffer(&buffer, 0..8)?, [0, 0, 1, 2, 3, 0, 0, 0]);
    /// // Past the end: refused, nothing written.
    /// let err = backend.write_buffer(&buffer, 6, &[9, 9, 9]).unwrap_err();
    /// assert_eq!(err.kind_name(), "InvalidConfig");
    /// # Ok::<(), vyre_driver::BackendError>(())
    /// ```
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
    ///
    /// ```
    /// use vyre_driver::VyreBackend;
    ///
    /// let backend = vyre_reference::ReferenceBackend::new();
    /// let buffer = backend.create_buffer(4)?;
    /// backend.write_buffer(&buffer, 0, &0xdead_beef_u32.to_le_bytes())?;
    /// assert_eq!(backend.read_buffer(&buffer, 2..4)?, [0xad, 0xde]);
    /// assert!(backend.read_buffer(&buffer, 0..5).is_err()); // past the end
    /// # Ok::<(), vyre_driver::BackendError>(())
    /// ```
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
    /// buffer's length in whole elements (only `read` and `read_write` buffers may be runtime-sized:
    /// validation asks an `output` for its count). Provided: one [`Step`] of
    /// [`VyreBackend::dispatch_sequence`].
    ///
    /// # Errors
    ///
    /// As [`VyreBackend::dispatch`]; [`BackendError::InputMismatch`] for the wrong number of
    /// buffers or one smaller than its declared count, [`BackendError::InvalidConfig`] for a buffer
    /// of another backend, [`BackendError::DeviceLost`] for a buffer whose device was lost.
    ///
    /// ```
    /// use vyre_driver::{DispatchConfig, VyreBackend};
    /// use vyre_foundation::ir::{BufferDecl, DataType, Expr, Node, Program};
    ///
    /// // `y[i] = x[i] + 1` over buffers that stay on the device: only the reads copy data back.
    /// let program = Program::new(
    ///     vec![
    ///         BufferDecl::read("x", 0, DataType::U32).with_count(2),
    ///         BufferDecl::output("y", 1, DataType::U32).with_count(2),
    ///     ],
    ///     [64, 1, 1],
    ///     vec![Node::store("y", Expr::gid_x(), Expr::add(Expr::load("x", Expr::gid_x()), Expr::u32(1)))],
    /// );
    /// let backend = vyre_reference::ReferenceBackend::new();
    /// let (x, y) = (backend.create_buffer(8)?, backend.create_buffer(8)?);
    /// let words: Vec<u8> = [41u32, 99].iter().flat_map(|v| v.to_le_bytes()).collect();
    /// backend.write_buffer(&x, 0, &words)?;
    /// backend.dispatch_resident(&program, &[&x, &y], &DispatchConfig::default())?;
    /// assert_eq!(backend.read_buffer(&y, 0..4)?, 42u32.to_le_bytes());
    /// // One buffer per declared buffer, outputs included.
    /// let err = backend.dispatch_resident(&program, &[&x], &DispatchConfig::default()).unwrap_err();
    /// assert_eq!(err.kind_name(), "InputMismatch");
    /// # Ok::<(), vyre_driver::BackendError>(())
    /// ```
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
    ///
    /// ```
    /// use vyre_driver::{DispatchConfig, Step, VyreBackend};
    /// use vyre_foundation::ir::{BufferDecl, DataType, Expr, Node, Program};
    ///
    /// let rw = || vec![BufferDecl::read_write("a", 0, DataType::U32).with_count(4)];
    /// let fill = Program::new(rw(), [4, 1, 1], vec![Node::store("a", Expr::gid_x(), Expr::u32(7))]);
    /// let double = Program::new(
    ///     rw(),
    ///     [4, 1, 1],
    ///     vec![Node::store("a", Expr::gid_x(), Expr::mul(Expr::load("a", Expr::gid_x()), Expr::u32(2)))],
    /// );
    /// let backend = vyre_reference::ReferenceBackend::new();
    /// let a = backend.create_buffer(16)?;
    /// let small = backend.create_buffer(4)?;
    /// let config = DispatchConfig::default();
    /// // The second step sees the first's writes.
    /// backend.dispatch_sequence(&[Step::new(&fill, &[&a], &config), Step::new(&double, &[&a], &config)])?;
    /// assert_eq!(backend.read_buffer(&a, 12..16)?, 14u32.to_le_bytes());
    /// // A bad step 1 stops the whole sequence before step 0 runs, and the error names it.
    /// let (a_only, small_only) = ([&a], [&small]);
    /// let steps = [Step::new(&double, &a_only, &config), Step::new(&fill, &small_only, &config)];
    /// let err = backend.dispatch_sequence(&steps).unwrap_err();
    /// assert!(err.to_string().starts_with("step 1 of the sequence"));
    /// assert_eq!(backend.read_buffer(&a, 12..16)?, 14u32.to_le_bytes());
    /// # Ok::<(), vyre_driver::BackendError>(())
    /// ```
    fn dispatch_sequence(&self, steps: &[Step<'_>]) -> Result<(), BackendError> {
        let prepared = crate::prepare_sequence(steps)?;
        for step in &prepared {
            check_features(self, &step.program)?;
        }
        self.execute_sequence(&prepared)
    }

    /// The backend's own part of [`VyreBackend::dispatch_sequence`]: runs steps the shared checks
    /// accepted. Provided for backends that cannot hold data: [`BackendError::Unsupported`].
    ///
    /// # Errors
    ///
    /// As [`VyreBackend::dispatch_sequence`], less what the checks cover.
    ///
    /// ```
    /// use vyre_driver::{DispatchConfig, Step, VyreBackend, prepare_sequence};
    /// use vyre_foundation::ir::{BufferDecl, DataType, Expr, Node, Program};
    ///
    /// let fill = Program::new(
    ///     vec![BufferDecl::output("o", 0, DataType::U32).with_count(1)],
    ///     [1, 1, 1],
    ///     vec![Node::store("o", Expr::u32(0), Expr::u32(9))],
    /// );
    /// let backend = vyre_reference::ReferenceBackend::new();
    /// let o = backend.create_buffer(4)?;
    /// let config = DispatchConfig::default();
    /// // What `dispatch_sequence` does: the shared checks, then the backend's own part.
    /// let buffers = [&o];
    /// let prepared = prepare_sequence(&[Step::new(&fill, &buffers, &config)])?;
    /// backend.execute_sequence(&prepared)?;
    /// assert_eq!(backend.read_buffer(&o, 0..4)?, 9u32.to_le_bytes());
    /// # Ok::<(), vyre_driver::BackendError>(())
    /// ```
    fn execute_sequence(&self, steps: &[PreparedStep<'_>]) -> Result<(), BackendError> {
        let _ = steps;
        Err(no_resident(self.id()))
    }

    /// True when the backend's device is lost and [`VyreBackend::try_recover`] is needed.
    ///
    /// ```
    /// use vyre_driver::VyreBackend;
    ///
    /// let backend = vyre_reference::ReferenceBackend::new();
    /// if backend.device_lost() {
    ///     backend.try_recover()?;
    /// }
    /// assert!(!backend.device_lost()); // an interpreter never loses its device
    /// # Ok::<(), vyre_driver::BackendError>(())
    /// ```
    fn device_lost(&self) -> bool {
        false
    }

    /// Brings a lost device back (a no-op for backends that cannot lose one).
    ///
    /// # Errors
    ///
    /// [`BackendError::DeviceLost`] when the lost device could not be replaced.
    ///
    /// ```
    /// use vyre_driver::VyreBackend;
    ///
    /// let backend = vyre_reference::ReferenceBackend::new();
    /// backend.try_recover()?; // nothing to recover: a no-op
    /// assert!(!backend.device_lost());
    /// # Ok::<(), vyre_driver::BackendError>(())
    /// ```
    fn try_recover(&self) -> Result<(), BackendError> {
        Ok(())
    }

    /// The async counterpart of [`VyreBackend::dispatch`]: the same checks, the same results and
    /// errors, as a future (see [`BackendFuture`]).
    ///
    /// Provided: runs the blocking `dispatch` when the future is first polled, so for a backend
    /// without an async path **it blocks the polling thread for the whole dispatch** (the
    /// reference backend computes on that thread anyway). The wgpu backend overrides it: its
    /// future does the host work and the submit when first polled, then waits without blocking
    /// any thread, woken when the device's work is done.
    ///
    /// Cancelling (dropping the future before it finishes) is always safe: on wgpu the submitted
    /// work finishes on the device and every pooled buffer it used goes back to the pool then.
    ///
    /// # Errors
    ///
    /// As [`VyreBackend::dispatch`].
    ///
    /// ```
    /// use vyre_driver::{DispatchConfig, VyreBackend, block_on};
    /// use vyre_foundation::ir::{BufferDecl, DataType, Expr, Node, Program};
    ///
    /// let program = Program::new(
    ///     vec![BufferDecl::output("y", 0, DataType::U32).with_count(2)],
    ///     [64, 1, 1],
    ///     vec![Node::store("y", Expr::gid_x(), Expr::add(Expr::gid_x(), Expr::u32(40)))],
    /// );
    /// let backend = vyre_reference::ReferenceBackend::new();
    /// let config = DispatchConfig::default();
    /// // Inside an async runtime: `backend.dispatch_async(&program, &[], &config).await?`.
    /// let outputs = block_on(backend.dispatch_async(&program, &[], &config))?;
    /// assert_eq!(outputs[0][4..8], 41u32.to_le_bytes());
    /// # Ok::<(), vyre_driver::BackendError>(())
    /// ```
    fn dispatch_async<'a>(
        &'a self,
        program: &'a Program,
        inputs: &'a [Vec<u8>],
        config: &'a DispatchConfig,
    ) -> BackendFuture<'a, Vec<Vec<u8>>> {
        Box::pin(async move { self.dispatch(program, inputs, config) })
    }

    /// The async counterpart of [`VyreBackend::dispatch_batch`].
    ///
    /// Provided: runs the blocking `dispatch_batch` when first polled (**it blocks the polling
    /// thread**). The wgpu backend's own never blocks a thread.
    ///
    /// # Errors
    ///
    /// As [`VyreBackend::dispatch_batch`].
    ///
    /// ```
    /// use vyre_driver::{DispatchConfig, VyreBackend, block_on};
    /// use vyre_foundation::ir::{BufferDecl, DataType, Expr, Node, Program};
    ///
    /// let copy = Program::new(
    ///     vec![
    ///         BufferDecl::read("x", 0, DataType::U32).with_count(1),
    ///         BufferDecl::output("y", 1, DataType::U32).with_count(1),
    ///     ],
    ///     [1, 1, 1],
    ///     vec![Node::store("y", Expr::u32(0), Expr::load("x", Expr::u32(0)))],
    /// );
    /// let items: Vec<Vec<Vec<u8>>> = (0..3u32).map(|v| vec![v.to_le_bytes().to_vec()]).collect();
    /// let backend = vyre_reference::ReferenceBackend::new();
    /// let config = DispatchConfig::default();
    /// let outputs = block_on(backend.dispatch_batch_async(&copy, &items, &config))?;
    /// assert_eq!(outputs[2], vec![2u32.to_le_bytes().to_vec()]);
    /// # Ok::<(), vyre_driver::BackendError>(())
    /// ```
    fn dispatch_batch_async<'a>(
        &'a self,
        program: &'a Program,
        items: &'a [Vec<Vec<u8>>],
        config: &'a DispatchConfig,
    ) -> BackendFuture<'a, Vec<Vec<Vec<u8>>>> {
        Box::pin(async move { self.dispatch_batch(program, items, config) })
    }

    /// The async counterpart of [`VyreBackend::read_buffer`]: the bytes `range` of `buffer`, after
    /// every dispatch submitted before the call.
    ///
    /// Provided: runs the blocking `read_buffer` when first polled (**it blocks the polling
    /// thread**). Cancelling a read never changes the buffer.
    ///
    /// # Errors
    ///
    /// As [`VyreBackend::read_buffer`].
    ///
    /// ```
    /// use vyre_driver::{VyreBackend, block_on};
    ///
    /// let backend = vyre_reference::ReferenceBackend::new();
    /// let buffer = backend.create_buffer(4)?;
    /// backend.write_buffer(&buffer, 0, &[1, 2, 3, 4])?;
    /// assert_eq!(block_on(backend.read_buffer_async(&buffer, 1..3))?, [2, 3]);
    /// # Ok::<(), vyre_driver::BackendError>(())
    /// ```
    fn read_buffer_async<'a>(
        &'a self,
        buffer: &'a DeviceBuffer,
        range: std::ops::Range<u64>,
    ) -> BackendFuture<'a, Vec<u8>> {
        Box::pin(async move { self.read_buffer(buffer, range) })
    }

    /// The async counterpart of [`VyreBackend::dispatch_resident`].
    ///
    /// Provided: runs the blocking `dispatch_resident` when first polled (**it blocks the polling
    /// thread**). Cancelling never leaves a buffer half-written: a backend submits the whole
    /// dispatch at once (wgpu: in the first poll) or not at all.
    ///
    /// # Errors
    ///
    /// As [`VyreBackend::dispatch_resident`].
    ///
    /// ```
    /// use vyre_driver::{DispatchConfig, VyreBackend, block_on};
    /// use vyre_foundation::ir::{BufferDecl, DataType, Expr, Node, Program};
    ///
    /// let fill = Program::new(
    ///     vec![BufferDecl::output("o", 0, DataType::U32).with_count(1)],
    ///     [1, 1, 1],
    ///     vec![Node::store("o", Expr::u32(0), Expr::u32(5))],
    /// );
    /// let backend = vyre_reference::ReferenceBackend::new();
    /// let o = backend.create_buffer(4)?;
    /// let config = DispatchConfig::default();
    /// block_on(backend.dispatch_resident_async(&fill, &[&o], &config))?;
    /// assert_eq!(block_on(backend.read_buffer_async(&o, 0..4))?, 5u32.to_le_bytes());
    /// # Ok::<(), vyre_driver::BackendError>(())
    /// ```
    fn dispatch_resident_async<'a>(
        &'a self,
        program: &'a Program,
        buffers: &'a [&'a DeviceBuffer],
        config: &'a DispatchConfig,
    ) -> BackendFuture<'a, ()> {
        Box::pin(async move { self.dispatch_resident(program, buffers, config) })
    }

    /// The async counterpart of [`VyreBackend::dispatch_sequence`]: the same checks (nothing runs
    /// unless every step passes them), the steps in order, resolved when the device has finished
    /// them.
    ///
    /// Provided: runs the blocking `dispatch_sequence` when first polled (**it blocks the polling
    /// thread**). Cancelling never leaves a sequence half-run: a backend submits all of it at once
    /// (wgpu: one submit, in the first poll) or none of it.
    ///
    /// # Errors
    ///
    /// As [`VyreBackend::dispatch_sequence`].
    ///
    /// ```
    /// use vyre_driver::{DispatchConfig, Step, VyreBackend, block_on};
    /// use vyre_foundation::ir::{BufferDecl, DataType, Expr, Node, Program};
    ///
    /// let rw = || vec![BufferDecl::read_write("a", 0, DataType::U32).with_count(1)];
    /// let add = |k| Program::new(rw(), [1, 1, 1], vec![Node::store("a", Expr::u32(0), Expr::add(Expr::load("a", Expr::u32(0)), Expr::u32(k)))]);
    /// let (one, ten) = (add(1), add(10));
    /// let backend = vyre_reference::ReferenceBackend::new();
    /// let a = backend.create_buffer(4)?;
    /// let config = DispatchConfig::default();
    /// let buffers = [&a];
    /// let steps = [Step::new(&one, &buffers, &config), Step::new(&ten, &buffers, &config)];
    /// block_on(backend.dispatch_sequence_async(&steps))?;
    /// assert_eq!(backend.read_buffer(&a, 0..4)?, 11u32.to_le_bytes());
    /// # Ok::<(), vyre_driver::BackendError>(())
    /// ```
    fn dispatch_sequence_async<'a>(&'a self, steps: &'a [Step<'a>]) -> BackendFuture<'a, ()> {
        Box::pin(async move { self.dispatch_sequence(steps) })
    }
}

/// One [`VyreBackend::dispatch`] per item of `items`, in order: the provided
/// [`VyreBackend::dispatch_batch`], and what a backend's own `dispatch_batch` falls back to for
/// programs it cannot batch. The first failing item stops the batch, its error naming the item
/// ([`BackendError::in_item`]).
///
/// # Errors
///
/// The first failing item's error.
///
/// ```
/// use vyre_driver::{DispatchConfig, dispatch_each};
/// use vyre_foundation::ir::{BufferDecl, DataType, Expr, Node, Program};
///
/// let program = Program::new(
///     vec![BufferDecl::output("o", 0, DataType::U32).with_count(1)],
///     [1, 1, 1],
///     vec![Node::store("o", Expr::u32(0), Expr::u32(3))],
/// );
/// let backend = vyre_reference::ReferenceBackend::new();
/// let outputs = dispatch_each(&backend, &program, &[vec![], vec![]], &DispatchConfig::default())?;
/// assert_eq!(outputs.len(), 2);
/// # Ok::<(), vyre_driver::BackendError>(())
/// ```
pub fn dispatch_each<B: VyreBackend + ?Sized>(
    backend: &B,
    program: &Program,
    items: &[Vec<Vec<u8>>],
    config: &DispatchConfig,
) -> Result<Vec<Vec<Vec<u8>>>, BackendError> {
    items
        .iter()
        .enumerate()
        .map(|(k, inputs)| {
            backend
                .dispatch(program, inputs, config)
                .map_err(|e| e.in_item(k))
        })
        .collect()
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
///
/// ```
/// use vyre_driver::{DispatchConfig, prepare};
/// use vyre_foundation::ir::{BufferDecl, DataType, Program};
///
/// let program = Program::new(
///     vec![
///         BufferDecl::read("x", 0, DataType::U32).with_count(128),
///         BufferDecl::output("y", 1, DataType::U32).with_count(128),
///     ],
///     [64, 1, 1],
///     vec![],
/// );
/// let (validated, plan) = prepare(&program, &[vec![0; 512]], &DispatchConfig::default())?;
/// assert_eq!(validated.program().buffers.len(), 2);
/// assert_eq!(plan.grid, [2, 1, 1]); // 128 elements in workgroups of 64
/// assert_eq!(plan.buffers[0].input, Some(0));
/// // Too many bytes for `x`: refused before any backend runs.
/// let err = prepare(&program, &[vec![0; 516]], &DispatchConfig::default()).unwrap_err();
/// assert_eq!(err.kind_name(), "InputMismatch");
/// # Ok::<(), vyre_driver::BackendError>(())
/// ```
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

    fn dispatch_batch(
        &self,
        program: &Program,
        items: &[Vec<Vec<u8>>],
        config: &DispatchConfig,
    ) -> Result<Vec<Vec<Vec<u8>>>, BackendError> {
        (**self).dispatch_batch(program, items, config)
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

    fn dispatch_async<'a>(
        &'a self,
        program: &'a Program,
        inputs: &'a [Vec<u8>],
        config: &'a DispatchConfig,
    ) -> BackendFuture<'a, Vec<Vec<u8>>> {
        (**self).dispatch_async(program, inputs, config)
    }

    fn dispatch_batch_async<'a>(
        &'a self,
        program: &'a Program,
        items: &'a [Vec<Vec<u8>>],
        config: &'a DispatchConfig,
    ) -> BackendFuture<'a, Vec<Vec<Vec<u8>>>> {
        (**self).dispatch_batch_async(program, items, config)
    }

    fn read_buffer_async<'a>(
        &'a self,
        buffer: &'a DeviceBuffer,
        range: std::ops::Range<u64>,
    ) -> BackendFuture<'a, Vec<u8>> {
        (**self).read_buffer_async(buffer, range)
    }

    fn dispatch_resident_async<'a>(
        &'a self,
        program: &'a Program,
        buffers: &'a [&'a DeviceBuffer],
        config: &'a DispatchConfig,
    ) -> BackendFuture<'a, ()> {
        (**self).dispatch_resident_async(program, buffers, config)
    }

    fn dispatch_sequence_async<'a>(&'a self, steps: &'a [Step<'a>]) -> BackendFuture<'a, ()> {
        (**self).dispatch_sequence_async(steps)
    }
}
