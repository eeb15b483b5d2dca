//! What every backend checks and derives before it runs a program: the element count of each buffer,
//! which input feeds it, and the grid. Keeping this in one place makes every backend reject the same
//! inputs with the same errors.

use vyre_foundation::ir::{BufferAccess, Program};

use crate::{BackendError, DispatchConfig};

/// One buffer of a dispatch, resolved against the caller's inputs.
///
/// ```
/// use vyre_driver::{DispatchConfig, ResolvedBuffer, plan_dispatch};
/// use vyre_foundation::ir::{BufferDecl, DataType, Program};
///
/// let program = Program::new(
///     vec![
///         BufferDecl::read("x", 0, DataType::U32), // runtime-sized: its length comes from the input
///         BufferDecl::output("y", 1, DataType::U32).with_count(8),
///     ],
///     [64, 1, 1],
///     vec![],
/// );
/// let plan = plan_dispatch(&program, &[12], &DispatchConfig::default())?;
/// assert_eq!(plan.buffers[0], ResolvedBuffer { element_count: 3, input: Some(0) });
/// assert_eq!(plan.buffers[1], ResolvedBuffer { element_count: 8, input: None });
/// # Ok::<(), vyre_driver::BackendError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ResolvedBuffer {
    /// The buffer's element count for this dispatch (what `buf_len` yields).
    pub element_count: u64,
    /// For buffers that take input: the index of their byte vector in the caller's inputs. For a
    /// resident dispatch ([`crate::plan_resident`]): the index of every non-workgroup buffer's
    /// [`crate::DeviceBuffer`].
    pub input: Option<usize>,
}

/// The checked shape of one dispatch, made by [`plan_dispatch`] (byte vectors) or
/// [`crate::plan_resident`] (resident buffers) and handed to [`crate::VyreBackend::execute`].
///
/// ```
/// use vyre_driver::{DispatchConfig, plan_dispatch};
/// use vyre_foundation::ir::{BufferDecl, DataType, Program};
///
/// let program = Program::new(
///     vec![BufferDecl::output("y", 0, DataType::U32).with_count(300)],
///     [64, 1, 1],
///     vec![],
/// );
/// let plan = plan_dispatch(&program, &[], &DispatchConfig::default())?;
/// assert_eq!(plan.grid, [5, 1, 1]); // ceil(300 / 64)
/// assert_eq!(plan.buffers.len(), 1);
/// # Ok::<(), vyre_driver::BackendError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DispatchPlan {
    /// One entry per program buffer, in declaration order.
    pub buffers: Vec<ResolvedBuffer>,
    /// The number of workgroups along x, y and z.
    pub grid: [u32; 3],
}

impl DispatchPlan {
    /// The total number of invocations, or `None` when it does not fit a `u64`.
    ///
    /// A planned grid keeps every axis's global ids within `u32`, but the three axes together still
    /// reach 2^96 invocations (`[u32::MAX; 3]` workgroups of one invocation), so the product is
    /// checked rather than wrapped.
    ///
    /// ```
    /// use vyre_driver::{DispatchConfig, plan_dispatch};
    /// use vyre_foundation::ir::{BufferDecl, DataType, Program};
    ///
    /// let program = Program::new(
    ///     vec![BufferDecl::output("y", 0, DataType::U32).with_count(16)],
    ///     [8, 2, 1],
    ///     vec![],
    /// );
    /// let plan = plan_dispatch(&program, &[], &DispatchConfig::new().with_grid([3, 2, 1]))?;
    /// assert_eq!(plan.invocations(&program), Some(8 * 2 * 3 * 2));
    /// # Ok::<(), vyre_driver::BackendError>(())
    /// ```
    #[must_use]
    pub fn invocations(&self, program: &Program) -> Option<u64> {
        self.grid
            .iter()
            .try_fold(program.invocations_per_workgroup()?, |product, &g| {
                product.checked_mul(u64::from(g))
            })
    }
}

/// The grid used when [`DispatchConfig::grid`] is `None`: enough workgroups along x for one invocation
/// per element of the largest bound buffer, `[ceil(n / workgroup_size.x), 1, 1]`, and at least one.
///
/// The count saturates at `u32::MAX` workgroups. [`plan_dispatch`] never reaches that: it only passes
/// element counts that fit a `u32`, and `ceil(n / x) <= n`.
///
/// ```
/// use vyre_driver::derive_grid;
/// use vyre_foundation::ir::{BufferDecl, DataType, Program};
///
/// let program = Program::new(
///     vec![
///         BufferDecl::read("small", 0, DataType::U32).with_count(10),
///         BufferDecl::output("large", 1, DataType::U32).with_count(1000),
///     ],
///     [256, 1, 1],
///     vec![],
/// );
/// // The largest bound buffer decides: ceil(1000 / 256) = 4 workgroups.
/// assert_eq!(derive_grid(&program, &[10, 1000]), [4, 1, 1]);
/// // Never zero workgroups.
/// assert_eq!(derive_grid(&program, &[0, 0]), [1, 1, 1]);
/// ```
#[must_use]
pub fn derive_grid(program: &Program, element_counts: &[u64]) -> [u32; 3] {
    let largest = program
        .buffers
        .iter()
        .zip(element_counts)
        .filter(|(b, _)| b.access.is_bound())
        .map(|(_, &n)| n)
        .max()
        .unwrap_or(1);
    let wx = u64::from(program.workgroup_size[0].max(1));
    let groups = u32::try_from(largest.div_ceil(wx)).unwrap_or(u32::MAX);
    [groups.max(1), 1, 1]
}

/// Checks `inputs` (their byte lengths) against `program`'s buffers and resolves the grid.
///
/// Rules (`SEMANTICS.md`, "Dispatch"): one input per `read`, `read_write` and `uniform` buffer, in
/// declaration order; each a whole number of elements; no longer than a declared count (shorter inputs
/// are zero-extended); runtime-sized buffers need at least one element; the grid has no zero dimension
/// and every global id fits in a `u32`.
///
/// # Errors
///
/// [`BackendError::InputMismatch`] for wrong inputs, [`BackendError::InvalidConfig`] for a zero grid,
/// [`BackendError::LimitExceeded`] for ids or sizes past 32 bits.
///
/// ```
/// use vyre_driver::{DispatchConfig, derive_grid, plan_dispatch};
/// use vyre_foundation::ir::{BufferDecl, DataType, Program};
///
/// let program = Program::new(
///     vec![
///         BufferDecl::read("x", 0, DataType::U32).with_count(1000),
///         BufferDecl::output("y", 1, DataType::U32).with_count(1000),
///     ],
///     [64, 1, 1],
///     vec![],
/// );
/// // 1000 elements in workgroups of 64: 16 workgroups.
/// assert_eq!(derive_grid(&program, &[1000, 1000]), [16, 1, 1]);
/// let plan = plan_dispatch(&program, &[4000], &DispatchConfig::default())?;
/// assert_eq!(plan.grid, [16, 1, 1]);
/// // An input of 3 bytes is not a whole number of u32s.
/// assert!(plan_dispatch(&program, &[3], &DispatchConfig::default()).is_err());
/// # Ok::<(), vyre_driver::BackendError>(())
/// ```
pub fn plan_dispatch(
    program: &Program,
    input_lens: &[usize],
    config: &DispatchConfig,
) -> Result<DispatchPlan, BackendError> {
    let expected = program.input_buffers().count();
    if input_lens.len() != expected {
        let names: Vec<&str> = program.input_buffers().map(|b| b.name.as_str()).collect();
        return Err(BackendError::input_mismatch(format!(
            "the program takes {expected} input(s) ({}) but {} were passed. Fix: pass one byte vector per read, read_write and uniform buffer, in declaration order.",
            names.join(", "),
            input_lens.len()
        )));
    }
    let mut next_input = 0;
    let mut buffers = Vec::with_capacity(program.buffers.len());
    for decl in &program.buffers {
        let size = decl.element.size_bytes();
        if !decl.access.takes_input() {
            buffers.push(ResolvedBuffer {
                element_count: u64::from(decl.count),
                input: None,
            });
            continue;
        }
        let index = next_input;
        next_input += 1;
        let len = input_lens[index];
        if !len.is_multiple_of(size) {
            return Err(BackendError::input_mismatch(format!(
                "input {index} for buffer `{}` is {len} bytes, not a whole number of {size}-byte {} elements. Fix: pass a multiple of {size} bytes.",
                decl.name, decl.element
            )));
        }
        // A usize is at most 64 bits on every target Rust supports, but the conversion is checked
        // so that a wider one cannot truncate a length into an accepted one.
        let elements = u64::try_from(len / size).map_err(|_| {
            BackendError::limit_exceeded(format!(
                "input {index} for buffer `{}` is {len} bytes, more elements than a u64 counts. Fix: split the data over several dispatches.",
                decl.name
            ))
        })?;
        let element_count = if decl.count == 0 {
            if elements == 0 {
                return Err(BackendError::input_mismatch(format!(
                    "input {index} for runtime-sized buffer `{}` is empty. Fix: pass at least one element, or declare a count with `with_count`.",
                    decl.name
                )));
            }
            if elements > u64::from(u32::MAX) {
                return Err(BackendError::limit_exceeded(format!(
                    "input {index} for buffer `{}` has {elements} elements, more than a u32 index reaches. Fix: split the data over several dispatches.",
                    decl.name
                )));
            }
            elements
        } else {
            if elements > u64::from(decl.count) {
                return Err(BackendError::input_mismatch(format!(
                    "input {index} for buffer `{}` has {elements} elements but the buffer declares {}. Fix: pass at most {} bytes, or raise the declared count.",
                    decl.name,
                    decl.count,
                    decl.declared_bytes().unwrap_or(0)
                )));
            }
            u64::from(decl.count)
        };
        debug_assert!(decl.access != BufferAccess::Workgroup);
        buffers.push(ResolvedBuffer {
            element_count,
            input: Some(index),
        });
    }
    finish_plan(program, buffers, config)
}

/// The grid of a dispatch whose buffers are resolved, checked as [`plan_dispatch`] does.
pub(crate) fn finish_plan(
    program: &Program,
    buffers: Vec<ResolvedBuffer>,
    config: &DispatchConfig,
) -> Result<DispatchPlan, BackendError> {
    let counts: Vec<u64> = buffers.iter().map(|b| b.element_count).collect();
    let grid = config.grid.unwrap_or_else(|| derive_grid(program, &counts));
    if grid.contains(&0) {
        return Err(BackendError::invalid_config(format!(
            "the grid {grid:?} has a zero dimension. Fix: give every grid dimension at least 1, or leave `grid` unset to derive it."
        )));
    }
    for axis in 0..3 {
        // Two u32 factors: the product is below 2^64, so it cannot wrap. Ids run from 0 to
        // `grid * size - 1`, so exactly 2^32 ids still fit a u32.
        let ids = u64::from(grid[axis]) * u64::from(program.workgroup_size[axis]);
        if ids > 1 << 32 {
            return Err(BackendError::limit_exceeded(format!(
                "grid {grid:?} with workgroup size {:?} gives global ids past u32 on axis {axis}. Fix: use fewer workgroups along that axis.",
                program.workgroup_size
            )));
        }
    }
    Ok(DispatchPlan { buffers, grid })
}
