//! Typed data in and out of any backend: [`VyreBackendExt`].

use bytemuck::Pod;
use vyre_driver::{BackendError, DeviceBuffer, DispatchConfig, VyreBackend};
use vyre_foundation::ir::Program;

/// Typed helpers over `bytemuck::Pod` data for every backend, `dyn VyreBackend` included, so that
/// no user writes byte conversions.
///
/// ```
/// use vyre::VyreBackendExt;
/// use vyre::ir::{BufferDecl, DataType, Expr, Node, Program};
///
/// let backend: Box<dyn vyre::VyreBackend> = Box::new(vyre::ReferenceBackend::new());
/// let program = Program::new(
///     vec![
///         BufferDecl::read("x", 0, DataType::F32).with_count(3),
///         BufferDecl::output("y", 1, DataType::F32).with_count(3),
///     ],
///     [64, 1, 1],
///     vec![Node::store("y", Expr::gid_x(), Expr::mul(Expr::load("x", Expr::gid_x()), Expr::f32(2.0)))],
/// );
/// // Plain dispatch with typed inputs and outputs.
/// let out: Vec<Vec<f32>> = backend.dispatch_typed(&program, &[&[1.0f32, 2.0, 3.0]], &Default::default())?;
/// assert_eq!(out[0], [2.0, 4.0, 6.0]);
///
/// // The same over resident buffers.
/// let x = backend.create_buffer_from(&[1.5f32, 2.5, 3.5])?;
/// let y = backend.create_buffer_for::<f32>(3)?;
/// backend.dispatch_resident(&program, &[&x, &y], &Default::default())?;
/// assert_eq!(backend.read_buffer_as::<f32>(&y)?, [3.0, 5.0, 7.0]);
/// backend.write_buffer_from(&x, 1, &[10.0f32])?;
/// assert_eq!(backend.read_buffer_as::<f32>(&x)?, [1.5, 10.0, 3.5]);
/// # Ok::<(), vyre::BackendError>(())
/// ```
pub trait VyreBackendExt {
    /// A resident buffer holding `data`.
    ///
    /// # Errors
    ///
    /// As [`VyreBackend::create_buffer`] and [`VyreBackend::write_buffer`].
    fn create_buffer_from<T: Pod>(&self, data: &[T]) -> Result<DeviceBuffer, BackendError>;

    /// A zero-filled resident buffer of `len` elements of `T`.
    ///
    /// # Errors
    ///
    /// As [`VyreBackend::create_buffer`]; [`BackendError::LimitExceeded`] when the size overflows.
    fn create_buffer_for<T: Pod>(&self, len: usize) -> Result<DeviceBuffer, BackendError>;

    /// Writes `data` into `buffer` from element `first` on (elements of `T`).
    ///
    /// # Errors
    ///
    /// As [`VyreBackend::write_buffer`]: [`BackendError::InvalidConfig`] for elements past the
    /// buffer's end, however far past.
    ///
    /// ```
    /// use vyre::{ReferenceBackend, VyreBackendExt};
    ///
    /// let backend = ReferenceBackend::new();
    /// let buffer = backend.create_buffer_from(&[1u16, 2, 3])?;
    /// let err = backend.write_buffer_from(&buffer, u64::MAX / 2, &[7u32]).unwrap_err();
    /// assert_eq!(err.kind_name(), "InvalidConfig");
    /// assert!(err.to_string().contains("past u64"), "{err}");
    /// # Ok::<(), vyre::BackendError>(())
    /// ```
    fn write_buffer_from<T: Pod>(
        &self,
        buffer: &DeviceBuffer,
        first: u64,
        data: &[T],
    ) -> Result<(), BackendError>;

    /// The whole buffer as elements of `T`.
    ///
    /// # Errors
    ///
    /// As [`VyreBackend::read_buffer`]; [`BackendError::InvalidConfig`] when the buffer is not a
    /// whole number of `T`s.
    fn read_buffer_as<T: Pod>(&self, buffer: &DeviceBuffer) -> Result<Vec<T>, BackendError>;

    /// [`VyreBackend::dispatch`] with one typed slice per input buffer and typed outputs (every
    /// buffer of the program holding `T`, as bools and 32-bit numbers all do in memory).
    ///
    /// # Errors
    ///
    /// As [`VyreBackend::dispatch`]; [`BackendError::InvalidConfig`] when an output is not a whole
    /// number of `T`s.
    fn dispatch_typed<T: Pod>(
        &self,
        program: &Program,
        inputs: &[&[T]],
        config: &DispatchConfig,
    ) -> Result<Vec<Vec<T>>, BackendError>;
}

fn to_typed<T: Pod>(bytes: &[u8]) -> Result<Vec<T>, BackendError> {
    let size = std::mem::size_of::<T>();
    if size == 0 || !bytes.len().is_multiple_of(size) {
        return Err(BackendError::invalid_config(format!(
            "{} bytes are not a whole number of {size}-byte `{}`. Fix: read with an element type whose size divides the buffer's length.",
            bytes.len(),
            std::any::type_name::<T>()
        )));
    }
    // `pod_collect_to_vec` copies, so the bytes' alignment does not matter.
    Ok(bytemuck::pod_collect_to_vec(bytes))
}

impl<B: VyreBackend + ?Sized> VyreBackendExt for B {
    fn create_buffer_from<T: Pod>(&self, data: &[T]) -> Result<DeviceBuffer, BackendError> {
        let bytes: &[u8] = bytemuck::cast_slice(data);
        let buffer = self.create_buffer(bytes.len() as u64)?;
        self.write_buffer(&buffer, 0, bytes)?;
        Ok(buffer)
    }

    fn create_buffer_for<T: Pod>(&self, len: usize) -> Result<DeviceBuffer, BackendError> {
        let bytes = len.checked_mul(std::mem::size_of::<T>()).ok_or_else(|| {
            BackendError::limit_exceeded(format!(
                "{len} elements of `{}` overflow a byte count. Fix: use a smaller buffer.",
                std::any::type_name::<T>()
            ))
        })?;
        self.create_buffer(bytes as u64)
    }

    fn write_buffer_from<T: Pod>(
        &self,
        buffer: &DeviceBuffer,
        first: u64,
        data: &[T],
    ) -> Result<(), BackendError> {
        let size = std::mem::size_of::<T>() as u64;
        let Some(offset) = first.checked_mul(size) else {
            return Err(BackendError::invalid_config(format!(
                "writing from element {first} of {size}-byte elements: its byte offset is past u64. Fix: keep the first element within the buffer's {} bytes.",
                buffer.len()
            )));
        };
        self.write_buffer(buffer, offset, bytemuck::cast_slice(data))
    }

    fn read_buffer_as<T: Pod>(&self, buffer: &DeviceBuffer) -> Result<Vec<T>, BackendError> {
        to_typed(&self.read_buffer(buffer, 0..buffer.len())?)
    }

    fn dispatch_typed<T: Pod>(
        &self,
        program: &Program,
        inputs: &[&[T]],
        config: &DispatchConfig,
    ) -> Result<Vec<Vec<T>>, BackendError> {
        let bytes: Vec<Vec<u8>> = inputs
            .iter()
            .map(|i| bytemuck::cast_slice(i).to_vec())
            .collect();
        self.dispatch(program, &bytes, config)?
            .iter()
            .map(|o| to_typed(o))
            .collect()
    }
}
