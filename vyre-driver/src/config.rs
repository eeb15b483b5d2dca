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
    /// The number of workgroups along x, y and z. `None` derives it (see [`crate::derive_grid`]).
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
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets an explicit grid (workgroup counts).
    #[must_use]
    pub fn with_grid(mut self, grid: [u32; 3]) -> Self {
        self.grid = Some(grid);
        self
    }

    /// Sets a label.
    #[must_use]
    pub fn with_label(mut self, label: impl Into<String>) -> Self {
        self.label = Some(label.into());
        self
    }

    /// Sets a wall-clock timeout.
    #[must_use]
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// Sets an execution budget in IR operations.
    #[must_use]
    pub fn with_fuel(mut self, fuel: u64) -> Self {
        self.fuel = Some(fuel);
        self
    }
}
