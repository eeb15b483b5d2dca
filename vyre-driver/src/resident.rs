//! Data that stays on the device: [`DeviceBuffer`], the [`Step`]s of a sequence, and the checks
//! every backend makes before it runs one ([`prepare_resident`]).

use std::any::Any;
use std::num::NonZeroU64;
use std::ops::Range;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use vyre_foundation::ir::{BufferAccess, BufferDecl, Program};
use vyre_foundation::validate::Validated;

use crate::plan::{ResolvedBuffer, finish_plan};
use crate::{BackendError, DispatchConfig, DispatchPlan};

/// Which backend instance made a [`DeviceBuffer`]: every backend instance that can hold data takes a
/// fresh one, so a buffer handed to another instance is recognised and refused.
///
/// ```
/// use vyre_driver::VyreBackend;
///
/// let a = vyre_reference::ReferenceBackend::new();
/// let b = vyre_reference::ReferenceBackend::new();
/// let buffer = a.create_buffer(4)?;
/// // Each instance stamps its buffers with its own id, so `b` refuses `a`'s buffer.
/// assert_eq!(a.create_buffer(4)?.owner(), buffer.owner());
/// assert_ne!(b.create_buffer(4)?.owner(), buffer.owner());
/// assert_eq!(b.read_buffer(&buffer, 0..4).unwrap_err().kind_name(), "InvalidConfig");
/// # Ok::<(), vyre_driver::BackendError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct InstanceId(NonZeroU64);

impl InstanceId {
    /// An id no other instance in this process has.
    ///
    /// ```
    /// use vyre_driver::InstanceId;
    ///
    /// // A backend takes one when it is created and stamps every buffer it makes with it.
    /// let (first, second) = (InstanceId::fresh(), InstanceId::fresh());
    /// assert_ne!(first, second);
    /// assert_eq!(first, first.clone());
    /// ```
    #[must_use]
    pub fn fresh() -> Self {
        static NEXT: AtomicU64 = AtomicU64::new(1);
        let id = NEXT.fetch_add(1, Ordering::Relaxed);
        // 2^64 instances cannot be created in one process; saturating keeps this total anyway.
        Self(NonZeroU64::new(id).unwrap_or(NonZeroU64::MAX))
    }
}

/// A buffer that lives on a backend's device, made by [`crate::VyreBackend::create_buffer`].
///
/// A shared handle: cloning is cheap, every clone names the same memory, and the memory is freed
/// when the last clone drops. `Send + Sync`, so threads may share buffers (the backend orders the
/// work that touches them: each call takes effect whole, in some order, except that a backend may
/// split a large `write_buffer` or `read_buffer` into several steps, between which another
/// thread's conflicting write or dispatch can land; the wgpu backend does past 16 MiB written or
/// 192 MiB read, so order such work between threads yourself).
///
/// Backend authors build one with [`DeviceBuffer::new`] around their own storage and get it back with
/// [`DeviceBuffer::storage`]; users only ever see [`DeviceBuffer::len`].
///
/// ```
/// use vyre_driver::VyreBackend;
///
/// let backend = vyre_reference::ReferenceBackend::new();
/// let buffer = backend.create_buffer(16)?; // four u32s, zero-filled, on the backend's device
/// backend.write_buffer(&buffer, 4, &7u32.to_le_bytes())?;
/// assert_eq!(buffer.len(), 16);
/// assert_eq!(backend.read_buffer(&buffer, 4..8)?, 7u32.to_le_bytes());
/// # Ok::<(), vyre_driver::BackendError>(())
/// ```
#[derive(Clone)]
pub struct DeviceBuffer {
    len: u64,
    owner: InstanceId,
    storage: Arc<dyn Any + Send + Sync>,
}

impl std::fmt::Debug for DeviceBuffer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DeviceBuffer")
            .field("len", &self.len)
            .field("owner", &self.owner)
            .finish_non_exhaustive()
    }
}

impl DeviceBuffer {
    /// A buffer of `len` bytes held in `storage` by the backend instance `owner` (for backend
    /// implementations).
    ///
    /// ```
    /// use std::sync::Mutex;
    /// use vyre_driver::{DeviceBuffer, InstanceId};
    ///
    /// // A host-memory backend keeps each buffer's bytes behind a lock.
    /// let me = InstanceId::fresh();
    /// let buffer = DeviceBuffer::new(me, 8, Mutex::new(vec![0u8; 8]));
    /// assert_eq!(buffer.len(), 8);
    /// assert_eq!(buffer.owner(), me);
    /// let bytes = buffer.storage_of::<Mutex<Vec<u8>>>(me, "host")?;
    /// assert_eq!(bytes.lock().map(|b| b.len()).unwrap_or(0), 8);
    /// # Ok::<(), vyre_driver::BackendError>(())
    /// ```
    pub fn new(owner: InstanceId, len: u64, storage: impl Any + Send + Sync) -> Self {
        Self {
            len,
            owner,
            storage: Arc::new(storage),
        }
    }

    /// The buffer's length in bytes.
    ///
    /// ```
    /// use vyre_driver::VyreBackend;
    ///
    /// let backend = vyre_reference::ReferenceBackend::new();
    /// assert_eq!(backend.create_buffer(1 << 10)?.len(), 1024);
    /// # Ok::<(), vyre_driver::BackendError>(())
    /// ```
    #[must_use]
    pub fn len(&self) -> u64 {
        self.len
    }

    /// True for a buffer of zero bytes.
    ///
    /// ```
    /// use vyre_driver::{DeviceBuffer, InstanceId};
    ///
    /// assert!(DeviceBuffer::new(InstanceId::fresh(), 0, ()).is_empty());
    /// assert!(!DeviceBuffer::new(InstanceId::fresh(), 4, ()).is_empty());
    /// ```
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The backend instance that made the buffer.
    ///
    /// ```
    /// use vyre_driver::{DeviceBuffer, InstanceId};
    ///
    /// let id = InstanceId::fresh();
    /// assert_eq!(DeviceBuffer::new(id, 4, ()).owner(), id);
    /// ```
    #[must_use]
    pub fn owner(&self) -> InstanceId {
        self.owner
    }

    /// The backend's storage behind the buffer, when it is a `T` (for backend implementations).
    ///
    /// ```
    /// use vyre_driver::{DeviceBuffer, InstanceId};
    ///
    /// /// What a backend keeps for each buffer: here, the index of its allocation.
    /// struct Slot(usize);
    ///
    /// let buffer = DeviceBuffer::new(InstanceId::fresh(), 16, Slot(3));
    /// assert_eq!(buffer.storage::<Slot>().map(|s| s.0), Some(3));
    /// assert!(buffer.storage::<String>().is_none()); // another type: none
    /// ```
    #[must_use]
    pub fn storage<T: Any>(&self) -> Option<&T> {
        self.storage.downcast_ref()
    }

    /// True when `self` and `other` are clones of one buffer.
    ///
    /// ```
    /// use vyre_driver::VyreBackend;
    ///
    /// let backend = vyre_reference::ReferenceBackend::new();
    /// let a = backend.create_buffer(4)?;
    /// let b = backend.create_buffer(4)?;
    /// assert!(a.same_buffer(&a.clone()));
    /// assert!(!a.same_buffer(&b)); // same size and owner, other memory
    /// # Ok::<(), vyre_driver::BackendError>(())
    /// ```
    #[must_use]
    pub fn same_buffer(&self, other: &DeviceBuffer) -> bool {
        Arc::ptr_eq(&self.storage, &other.storage)
    }

    /// The storage of a buffer that must belong to `owner`, as a `T` (for backend implementations).
    ///
    /// # Errors
    ///
    /// [`BackendError::InvalidConfig`] for a buffer of another backend instance.
    ///
    /// ```
    /// use vyre_driver::{DeviceBuffer, InstanceId};
    ///
    /// let (mine, theirs) = (InstanceId::fresh(), InstanceId::fresh());
    /// let buffer = DeviceBuffer::new(theirs, 4, vec![0u8; 4]);
    /// // Storage of the right type, but another instance's buffer: refused with a `Fix:`.
    /// let err = buffer.storage_of::<Vec<u8>>(mine, "host").unwrap_err();
    /// assert_eq!(err.kind_name(), "InvalidConfig");
    /// assert!(err.to_string().contains("Fix:"));
    /// assert_eq!(buffer.storage_of::<Vec<u8>>(theirs, "host")?.len(), 4);
    /// # Ok::<(), vyre_driver::BackendError>(())
    /// ```
    pub fn storage_of<T: Any>(&self, owner: InstanceId, backend: &str) -> Result<&T, BackendError> {
        match self.storage() {
            Some(storage) if self.owner == owner => Ok(storage),
            _ => Err(BackendError::invalid_config(format!(
                "a {}-byte DeviceBuffer made by another backend instance was passed to this `{backend}` backend. Fix: create the buffer with the backend that dispatches on it, or copy its data over with read_buffer and write_buffer.",
                self.len
            ))),
        }
    }

    /// Checks that `range` lies within the buffer.
    ///
    /// # Errors
    ///
    /// [`BackendError::InvalidConfig`] for a range that ends past the buffer or starts after it ends.
    ///
    /// ```
    /// use vyre_driver::{DeviceBuffer, InstanceId};
    ///
    /// let buffer = DeviceBuffer::new(InstanceId::fresh(), 16, ());
    /// assert!(buffer.check_range(&(0..16), "reading").is_ok());
    /// assert!(buffer.check_range(&(8..20), "reading").is_err()); // past the end
    /// let err = buffer.check_range(&(12..4), "writing").unwrap_err(); // reversed
    /// assert!(err.to_string().starts_with("writing bytes 12..4"));
    /// ```
    pub fn check_range(&self, range: &Range<u64>, what: &str) -> Result<(), BackendError> {
        self.check_bytes(range.start, range.end, what)
    }

    /// Checks that `len` bytes at byte `offset` lie within the buffer: [`DeviceBuffer::check_range`]
    /// for a write of `len` bytes, whose end may pass `u64`.
    ///
    /// # Errors
    ///
    /// [`BackendError::InvalidConfig`] for bytes past the buffer's end, or past `u64`.
    ///
    /// ```
    /// use vyre_driver::{DeviceBuffer, InstanceId};
    ///
    /// let buffer = DeviceBuffer::new(InstanceId::fresh(), 6, ());
    /// assert!(buffer.check_span(2, 4, "writing").is_ok());
    /// let err = buffer.check_span(u64::MAX / 2, 4, "writing").unwrap_err();
    /// assert!(err.to_string().starts_with("writing 4 bytes at byte 9223372036854775807 of a 6-byte buffer"));
    /// let err = buffer.check_span(u64::MAX, 4, "writing").unwrap_err();
    /// assert!(err.to_string().contains("past u64"), "{err}");
    /// ```
    pub fn check_span(&self, offset: u64, len: u64, what: &str) -> Result<(), BackendError> {
        match offset.checked_add(len) {
            Some(end) if end <= self.len => Ok(()),
            end => Err(BackendError::invalid_config(format!(
                "{what} {len} bytes at byte {offset} of a {}-byte buffer: {}. Fix: keep the bytes within 0..{}.",
                self.len,
                if end.is_none() {
                    "their end is past u64"
                } else {
                    "outside it"
                },
                self.len
            ))),
        }
    }

    fn check_bytes(&self, start: u64, end: u64, what: &str) -> Result<(), BackendError> {
        let range = start..end;
        if range.start <= range.end && range.end <= self.len {
            Ok(())
        } else {
            Err(BackendError::invalid_config(format!(
                "{what} bytes {range:?} of a {}-byte buffer: outside it. Fix: keep the range within 0..{}.",
                self.len, self.len
            )))
        }
    }
}

/// One dispatch of a [`crate::VyreBackend::dispatch_sequence`]: a program, one buffer per declared
/// non-workgroup buffer (in declaration order, every access), and its configuration.
///
/// ```
/// use vyre_driver::{DispatchConfig, Step, VyreBackend};
/// use vyre_foundation::ir::{BufferDecl, DataType, Expr, Node, Program};
///
/// // `x[i] += 1`, run twice in one sequence over a buffer that stays on the device.
/// let increment = Program::new(
///     vec![BufferDecl::read_write("x", 0, DataType::U32).with_count(4)],
///     [4, 1, 1],
///     vec![Node::store("x", Expr::gid_x(), Expr::add(Expr::load("x", Expr::gid_x()), Expr::u32(1)))],
/// );
/// let backend = vyre_reference::ReferenceBackend::new();
/// let x = backend.create_buffer(16)?;
/// let config = DispatchConfig::default();
/// backend.dispatch_sequence(&[
///     Step::new(&increment, &[&x], &config),
///     Step::new(&increment, &[&x], &config),
/// ])?;
/// assert_eq!(backend.read_buffer(&x, 0..4)?, 2u32.to_le_bytes());
/// # Ok::<(), vyre_driver::BackendError>(())
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Step<'a> {
    /// The program.
    pub program: &'a Program,
    /// One buffer per declared buffer that is not `workgroup`, in declaration order.
    pub buffers: &'a [&'a DeviceBuffer],
    /// How the step runs (grid, timeout, fuel).
    pub config: &'a DispatchConfig,
}

impl<'a> Step<'a> {
    /// A step running `program` over `buffers` with `config`.
    ///
    /// ```
    /// use vyre_driver::{DispatchConfig, Step, VyreBackend};
    /// use vyre_foundation::ir::{BufferDecl, DataType, Program};
    ///
    /// let program = Program::new(
    ///     vec![BufferDecl::read_write("x", 0, DataType::U32).with_count(4)],
    ///     [64, 1, 1],
    ///     vec![],
    /// );
    /// let x = vyre_reference::ReferenceBackend::new().create_buffer(16)?;
    /// let config = DispatchConfig::new().with_label("no-op");
    /// let buffers = [&x];
    /// let step = Step::new(&program, &buffers, &config);
    /// assert_eq!(step.buffers.len(), 1);
    /// assert_eq!(step.config.label.as_deref(), Some("no-op"));
    /// # Ok::<(), vyre_driver::BackendError>(())
    /// ```
    #[must_use]
    pub fn new(
        program: &'a Program,
        buffers: &'a [&'a DeviceBuffer],
        config: &'a DispatchConfig,
    ) -> Self {
        Self {
            program,
            buffers,
            config,
        }
    }
}

/// A step the shared checks accepted: its validated program, its plan (each bound buffer's
/// `input` is the index of its [`DeviceBuffer`] in `buffers`), its buffers and configuration.
///
/// Made by [`prepare_resident`] and [`prepare_sequence`]; what a backend's
/// [`crate::VyreBackend::execute_sequence`] receives.
///
/// ```
/// use vyre_driver::{DispatchConfig, Step, VyreBackend, prepare_resident};
/// use vyre_foundation::ir::{BufferDecl, DataType, Program};
///
/// let program = Program::new(
///     vec![
///         BufferDecl::workgroup("scratch", 64, DataType::U32),
///         BufferDecl::output("y", 0, DataType::U32).with_count(100),
///     ],
///     [64, 1, 1],
///     vec![],
/// );
/// let y = vyre_reference::ReferenceBackend::new().create_buffer(400)?;
/// let config = DispatchConfig::default();
/// let buffers = [&y];
/// let prepared = prepare_resident(&Step::new(&program, &buffers, &config))?;
/// // Workgroup memory takes no DeviceBuffer; `y` is buffer 0 of the step.
/// assert_eq!(prepared.plan.buffers[0].input, None);
/// assert_eq!(prepared.plan.buffers[1].input, Some(0));
/// assert_eq!(prepared.plan.grid, [2, 1, 1]);
/// assert!(prepared.buffers[0].same_buffer(&y));
/// assert_eq!(prepared.program.program().buffers.len(), 2);
/// # Ok::<(), vyre_driver::BackendError>(())
/// ```
#[derive(Debug)]
pub struct PreparedStep<'a> {
    /// The validated program.
    pub program: Validated<'a>,
    /// The checked shape of the dispatch.
    pub plan: DispatchPlan,
    /// The step's buffers, as given.
    pub buffers: &'a [&'a DeviceBuffer],
    /// The step's configuration.
    pub config: &'a DispatchConfig,
}

/// The checks of a resident dispatch, in the order every backend shares: the program is validated,
/// then the buffers are checked against it (their number; each at least its declared count; a
/// runtime-sized one at least one element, its whole elements within a `u32` index; bytes after
/// the last whole element are never accessed) and the grid planned.
///
/// # Errors
///
/// [`BackendError::InvalidProgram`] for an invalid program, [`BackendError::InputMismatch`] for
/// buffers that do not fit it, [`crate::plan_dispatch`]'s grid errors.
///
/// ```
/// use vyre_driver::{DispatchConfig, Step, VyreBackend, prepare_resident};
/// use vyre_foundation::ir::{BufferDecl, DataType, Program};
///
/// let program = Program::new(
///     vec![BufferDecl::output("y", 0, DataType::U32).with_count(8)],
///     [64, 1, 1],
///     vec![],
/// );
/// let backend = vyre_reference::ReferenceBackend::new();
/// let (fits, short) = (backend.create_buffer(32)?, backend.create_buffer(16)?);
/// let config = DispatchConfig::default();
/// assert_eq!(prepare_resident(&Step::new(&program, &[&fits], &config))?.plan.buffers[0].element_count, 8);
/// // 16 bytes cannot hold the 8 declared u32s.
/// let err = prepare_resident(&Step::new(&program, &[&short], &config)).unwrap_err();
/// assert_eq!(err.kind_name(), "InputMismatch");
/// # Ok::<(), vyre_driver::BackendError>(())
/// ```
pub fn prepare_resident<'a>(step: &Step<'a>) -> Result<PreparedStep<'a>, BackendError> {
    let program = step.program;
    let validated = vyre_foundation::validate(program)?;
    let plan = plan_resident(program, step.buffers, step.config)?;
    Ok(PreparedStep {
        program: validated,
        plan,
        buffers: step.buffers,
        config: step.config,
    })
}

/// [`prepare_resident`] for every step, before any runs.
///
/// # Errors
///
/// The first step's error, prefixed with the step's position when there are several steps (a
/// one-step sequence is a `dispatch_resident`, whose errors name no step).
///
/// ```
/// use vyre_driver::{DispatchConfig, Step, VyreBackend, prepare_sequence};
/// use vyre_foundation::ir::{BufferDecl, DataType, Program};
///
/// let program = Program::new(
///     vec![BufferDecl::read_write("x", 0, DataType::U32).with_count(4)],
///     [64, 1, 1],
///     vec![],
/// );
/// let backend = vyre_reference::ReferenceBackend::new();
/// let x = backend.create_buffer(16)?;
/// let config = DispatchConfig::default();
/// let zero_grid = DispatchConfig::new().with_grid([1, 0, 1]);
/// assert_eq!(prepare_sequence(&[Step::new(&program, &[&x], &config); 3])?.len(), 3);
/// let buffers = [&x];
/// let steps = [Step::new(&program, &buffers, &config), Step::new(&program, &buffers, &zero_grid)];
/// let err = prepare_sequence(&steps).unwrap_err();
/// assert_eq!(err.kind_name(), "InvalidConfig");
/// assert!(err.to_string().starts_with("step 1 of the sequence"));
/// let alone = prepare_sequence(&steps[1..]).unwrap_err();
/// assert!(!alone.to_string().contains("of the sequence"), "{alone}");
/// # Ok::<(), vyre_driver::BackendError>(())
/// ```
pub fn prepare_sequence<'a>(steps: &[Step<'a>]) -> Result<Vec<PreparedStep<'a>>, BackendError> {
    steps
        .iter()
        .enumerate()
        .map(|(i, step)| prepare_resident(step).map_err(|e| e.in_sequence(i, steps.len())))
        .collect()
}

/// The plan of a resident dispatch of `program` over `buffers` (see [`prepare_resident`]).
///
/// # Errors
///
/// As [`prepare_resident`], less validation.
///
/// ```
/// use vyre_driver::{DispatchConfig, VyreBackend, plan_resident};
/// use vyre_foundation::ir::{BufferDecl, DataType, Program};
///
/// let program = Program::new(
///     vec![
///         BufferDecl::read("x", 0, DataType::U32), // runtime-sized: the buffer's length decides
///         BufferDecl::read_write("y", 1, DataType::U32),
///     ],
///     [64, 1, 1],
///     vec![],
/// );
/// let backend = vyre_reference::ReferenceBackend::new();
/// let (x, y) = (backend.create_buffer(4 * 1000)?, backend.create_buffer(4 * 1000)?);
/// let plan = plan_resident(&program, &[&x, &y], &DispatchConfig::default())?;
/// assert_eq!(plan.buffers[0].element_count, 1000);
/// assert_eq!(plan.grid, [16, 1, 1]);
/// // One buffer for both: refused, since the program writes `y`.
/// let err = plan_resident(&program, &[&x, &x], &DispatchConfig::default()).unwrap_err();
/// assert_eq!(err.kind_name(), "InvalidConfig");
/// # Ok::<(), vyre_driver::BackendError>(())
/// ```
pub fn plan_resident(
    program: &Program,
    buffers: &[&DeviceBuffer],
    config: &DispatchConfig,
) -> Result<DispatchPlan, BackendError> {
    let bound: Vec<&BufferDecl> = program
        .buffers
        .iter()
        .filter(|b| b.access != BufferAccess::Workgroup)
        .collect();
    if buffers.len() != bound.len() {
        let names: Vec<&str> = bound.iter().map(|b| b.name.as_str()).collect();
        return Err(BackendError::input_mismatch(format!(
            "the program declares {} buffer(s) other than workgroup ones ({}) but {} DeviceBuffer(s) were passed. Fix: pass one buffer per declared non-workgroup buffer, in declaration order, outputs and read_write ones included.",
            bound.len(),
            names.join(", "),
            buffers.len()
        )));
    }
    // One buffer under two names is only sound when neither is written: a GPU forbids a buffer
    // bound writable twice, or writable and read-only, in one dispatch.
    for (i, a) in buffers.iter().enumerate() {
        for (j, b) in buffers.iter().enumerate().skip(i + 1) {
            if a.same_buffer(b) && (bound[i].access.is_writable() || bound[j].access.is_writable())
            {
                return Err(BackendError::invalid_config(format!(
                    "one DeviceBuffer is passed for both `{}` and `{}`, and the program may write one of them. Fix: pass distinct buffers (copy the data with read_buffer and write_buffer if both need it).",
                    bound[i].name, bound[j].name
                )));
            }
        }
    }
    let mut next = 0;
    let mut resolved = Vec::with_capacity(program.buffers.len());
    for decl in &program.buffers {
        if decl.access == BufferAccess::Workgroup {
            resolved.push(ResolvedBuffer {
                element_count: u64::from(decl.count),
                input: None,
            });
            continue;
        }
        let index = next;
        next += 1;
        let len = buffers[index].len();
        let size = decl.element.size_bytes() as u64;
        let element_count = if decl.count == 0 {
            let elements = len / size;
            if elements == 0 {
                return Err(BackendError::input_mismatch(format!(
                    "buffer {index} for runtime-sized `{}` holds {len} bytes, not one {size}-byte element. Fix: create it with at least {size} bytes.",
                    decl.name
                )));
            }
            if elements > u64::from(u32::MAX) {
                return Err(BackendError::limit_exceeded(format!(
                    "buffer {index} for `{}` holds {elements} elements, more than a u32 index reaches. Fix: split the data over several buffers.",
                    decl.name
                )));
            }
            elements
        } else {
            // A u32 count times a 4-byte element cannot overflow a u64.
            let needed = u64::from(decl.count) * size;
            if len < needed {
                return Err(BackendError::input_mismatch(format!(
                    "buffer {index} for `{}` holds {len} bytes but the program declares {} elements ({needed} bytes). Fix: create the buffer with at least {needed} bytes, or declare a smaller count.",
                    decl.name, decl.count
                )));
            }
            u64::from(decl.count)
        };
        resolved.push(ResolvedBuffer {
            element_count,
            input: Some(index),
        });
    }
    finish_plan(program, resolved, config)
}
