//! `DispatchConfig`: how one dispatch is run.

use std::time::Duration;

/// Settings for one dispatch. `DispatchConfig::default()` derives the grid, sets no label, no timeout
/// and no execution budget.
///
/// ```
/// use std::time::Duration;
/// use vyre_driver::DispatchConfig;
///
/// let config = DispatchConfig::new()
///     .with_grid([16, 1, 1]) // 16 workgroups; leave it out to derive the grid from the buffers
///     .with_label("blur pass")
///     .with_timeout(Duration::from_secs(2))
///     .with_fuel(1_000_000);
/// assert_eq!(config.grid, Some([16, 1, 1]));
/// assert_eq!(DispatchConfig::default().grid, None);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct DispatchConfig {
    /// The number of workgroups along x, y and z. `None` derives it (see [`crate::derive_grid`]):
    /// enough workgroups along x for one invocation per element of the largest bound buffer, which
    /// suits elementwise programs. Set it for any other shape: a program that gives each workgroup
    /// a row, a tile or a reduction (one using `wid`, `nwg` or workgroup memory) runs as many
    /// workgroups as the derived grid says, silently, unless told.
    pub grid: Option<[u32; 3]>,
    /// A label for debugging tools and error messages.
    pub label: Option<String>,
    /// Wall-clock limit for the dispatch; past it the dispatch fails with [`crate::BackendError::Timeout`].
    pub timeout: Option<Duration>,
    /// An execution budget in IR operations, for interpreters (the reference backend). Past it the
    /// dispatch fails with [`crate::BackendError::Timeout`]. GPU backends ignore it.
    pub fuel: Option<u64>,
}

impl DispatchConfig {
    /// The default configuration.
    ///
    /// ```
    /// let config = vyre_driver::DispatchConfig::new();
    /// assert_eq!(config, vyre_driver::DispatchConfig::default());
    /// assert!(config.grid.is_none() && config.timeout.is_none() && config.fuel.is_none());
    /// ```
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets an explicit grid (workgroup counts).
    ///
    /// ```
    /// use vyre_driver::{DispatchConfig, VyreBackend};
    /// use vyre_foundation::ir::{BufferDecl, DataType, Expr, Node, Program};
    ///
    /// // One workgroup of 4 writes its ids; a grid of two writes all 8 elements.
    /// let program = Program::new(
    ///     vec![BufferDecl::output("o", 0, DataType::U32).with_count(8)],
    ///     [4, 1, 1],
    ///     vec![Node::store("o", Expr::gid_x(), Expr::add(Expr::gid_x(), Expr::u32(1)))],
    /// );
    /// let backend = vyre_reference::ReferenceBackend::new();
    /// let one = backend.dispatch(&program, &[], &DispatchConfig::new().with_grid([1, 1, 1]))?;
    /// assert_eq!(one[0][16..20], [0; 4]); // element 4 untouched
    /// let two = backend.dispatch(&program, &[], &DispatchConfig::new().with_grid([2, 1, 1]))?;
    /// assert_eq!(two[0][16..20], 5u32.to_le_bytes());
    /// # Ok::<(), vyre_driver::BackendError>(())
    /// ```
    #[must_use]
    pub fn with_grid(mut self, grid: [u32; 3]) -> Self {
        self.grid = Some(grid);
        self
    }

    /// Sets a label.
    ///
    /// ```
    /// let config = vyre_driver::DispatchConfig::new().with_label("histogram pass");
    /// assert_eq!(config.label.as_deref(), Some("histogram pass"));
    /// ```
    #[must_use]
    pub fn with_label(mut self, label: impl Into<String>) -> Self {
        self.label = Some(label.into());
        self
    }

    /// Sets a wall-clock timeout.
    ///
    /// ```
    /// use std::time::Duration;
    ///
    /// let config = vyre_driver::DispatchConfig::new().with_timeout(Duration::from_millis(500));
    /// assert_eq!(config.timeout, Some(Duration::from_millis(500)));
    /// ```
    #[must_use]
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// Sets an execution budget in IR operations.
    ///
    /// ```
    /// use vyre_driver::{DispatchConfig, VyreBackend};
    /// use vyre_foundation::ir::{BufferDecl, DataType, Expr, Node, Program};
    ///
    /// let program = Program::new(
    ///     vec![BufferDecl::output("o", 0, DataType::U32).with_count(1024)],
    ///     [64, 1, 1],
    ///     vec![Node::store("o", Expr::gid_x(), Expr::u32(1))],
    /// );
    /// let backend = vyre_reference::ReferenceBackend::new();
    /// // Far too small a budget for 1024 stores: the interpreter stops with a timeout.
    /// let err = backend.dispatch(&program, &[], &DispatchConfig::new().with_fuel(10)).unwrap_err();
    /// assert_eq!(err.kind_name(), "Timeout");
    /// ```
    #[must_use]
    pub fn with_fuel(mut self, fuel: u64) -> Self {
        self.fuel = Some(fuel);
        self
    }
}
