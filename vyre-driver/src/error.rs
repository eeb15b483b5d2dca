//! `BackendError`: everything a dispatch can fail with.

use vyre_foundation::validate::ValidationErrors;

/// Why a backend could not run a program. Every message says what happened and ends with a
/// `Fix:` sentence.
///
/// ```
/// use vyre_driver::{BackendError, DispatchConfig, VyreBackend};
/// use vyre_foundation::ir::{BufferDecl, DataType, Program};
///
/// let backend = vyre_reference::ReferenceBackend::new();
/// // Two inputs for a program with one input buffer.
/// let program = Program::new(
///     vec![BufferDecl::read("x", 0, DataType::U32).with_count(4)],
///     [64, 1, 1],
///     vec![],
/// );
/// match backend.dispatch(&program, &[vec![0; 16], vec![0; 16]], &DispatchConfig::default()) {
///     Err(e) if e.is_device_lost() => { /* open a new backend and retry */ }
///     Err(e) => {
///         assert_eq!(e.kind_name(), "InputMismatch");
///         assert!(e.to_string().contains("Fix:"));
///     }
///     Ok(_) => unreachable!("two inputs for one buffer"),
/// }
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BackendError {
    /// The program failed validation.
    #[error(
        "{0} Fix: correct the program as each error above says, and validate it with `vyre::validate` first."
    )]
    InvalidProgram(Box<ValidationErrors>),
    /// The inputs do not match the program's buffers: their number or their byte lengths.
    #[error("{0}")]
    InputMismatch(String),
    /// The program, its grid or its buffers exceed what this backend or device supports.
    #[error("{0}")]
    LimitExceeded(String),
    /// The backend does not implement something the program uses.
    #[error("{0}")]
    Unsupported(String),
    /// Lowering or pipeline creation failed.
    #[error("{0}")]
    Compile(String),
    /// No device could be obtained in the first place: no usable adapter, or the adapter refused a
    /// device. Unlike [`BackendError::DeviceLost`] there is nothing to recover, so retrying is futile
    /// until the machine changes (a driver is installed, an adapter filter is corrected).
    #[error("{0}")]
    NoDevice(String),
    /// The device was lost (driver reset, removal, or `destroy`) and could not be recovered in time.
    #[error("{0}")]
    DeviceLost(String),
    /// The device or host ran out of memory.
    #[error("{0}")]
    OutOfMemory(String),
    /// The dispatch exceeded its timeout or execution budget.
    #[error("{0}")]
    Timeout(String),
    /// The dispatch configuration is unusable (e.g. a grid with a zero dimension).
    #[error("{0}")]
    InvalidConfig(String),
    /// Anything else.
    #[error("{0}")]
    Other(String),
}

/// Appends a generic `Fix:` when a message has none, so every error tells the user what to do.
fn with_fix(message: String) -> String {
    if message.contains("Fix:") {
        message
    } else {
        format!(
            "{message} Fix: this is unexpected; report it to the vyre developers with the program text."
        )
    }
}

macro_rules! constructors {
    ($($(#[$doc:meta])* $name:ident => $variant:ident),* $(,)?) => {
        impl BackendError {
            $(
                $(#[$doc])*
                #[must_use]
                pub fn $name(message: impl Into<String>) -> Self {
                    BackendError::$variant(with_fix(message.into()))
                }
            )*
        }
    };
}

constructors! {
    /// An [`BackendError::Other`] error. A message without a `Fix:` gets a generic one.
    ///
    /// ```
    /// use vyre_driver::BackendError;
    ///
    /// let e = BackendError::new("the widget jammed");
    /// assert_eq!(e.kind_name(), "Other");
    /// assert!(e.to_string().starts_with("the widget jammed Fix:"));
    /// // A message with its own `Fix:` is kept as it is.
    /// let e = BackendError::new("the widget jammed. Fix: oil it.");
    /// assert_eq!(e.to_string(), "the widget jammed. Fix: oil it.");
    /// ```
    new => Other,
    /// An [`BackendError::InputMismatch`] error.
    ///
    /// ```
    /// let e = vyre_driver::BackendError::input_mismatch("what happened. Fix: what to do.");
    /// assert_eq!(e.kind_name(), "InputMismatch");
    /// assert_eq!(e.is_device_lost(), false);
    /// ```
    input_mismatch => InputMismatch,
    /// A [`BackendError::LimitExceeded`] error.
    ///
    /// ```
    /// let e = vyre_driver::BackendError::limit_exceeded("what happened. Fix: what to do.");
    /// assert_eq!(e.kind_name(), "LimitExceeded");
    /// assert_eq!(e.is_device_lost(), false);
    /// ```
    limit_exceeded => LimitExceeded,
    /// An [`BackendError::Unsupported`] error.
    ///
    /// ```
    /// let e = vyre_driver::BackendError::unsupported("what happened. Fix: what to do.");
    /// assert_eq!(e.kind_name(), "Unsupported");
    /// assert_eq!(e.is_device_lost(), false);
    /// ```
    unsupported => Unsupported,
    /// A [`BackendError::Compile`] error.
    ///
    /// ```
    /// let e = vyre_driver::BackendError::compile("what happened. Fix: what to do.");
    /// assert_eq!(e.kind_name(), "Compile");
    /// assert_eq!(e.is_device_lost(), false);
    /// ```
    compile => Compile,
    /// A [`BackendError::NoDevice`] error.
    ///
    /// ```
    /// let e = vyre_driver::BackendError::no_device("what happened. Fix: what to do.");
    /// assert_eq!(e.kind_name(), "NoDevice");
    /// assert_eq!(e.is_device_lost(), false);
    /// ```
    no_device => NoDevice,
    /// A [`BackendError::DeviceLost`] error.
    ///
    /// ```
    /// let e = vyre_driver::BackendError::device_lost("what happened. Fix: what to do.");
    /// assert_eq!(e.kind_name(), "DeviceLost");
    /// assert_eq!(e.is_device_lost(), true);
    /// ```
    device_lost => DeviceLost,
    /// An [`BackendError::OutOfMemory`] error.
    ///
    /// ```
    /// let e = vyre_driver::BackendError::out_of_memory("what happened. Fix: what to do.");
    /// assert_eq!(e.kind_name(), "OutOfMemory");
    /// assert_eq!(e.is_device_lost(), false);
    /// ```
    out_of_memory => OutOfMemory,
    /// A [`BackendError::Timeout`] error.
    ///
    /// ```
    /// let e = vyre_driver::BackendError::timeout("what happened. Fix: what to do.");
    /// assert_eq!(e.kind_name(), "Timeout");
    /// assert_eq!(e.is_device_lost(), false);
    /// ```
    timeout => Timeout,
    /// A [`BackendError::InvalidConfig`] error.
    ///
    /// ```
    /// let e = vyre_driver::BackendError::invalid_config("what happened. Fix: what to do.");
    /// assert_eq!(e.kind_name(), "InvalidConfig");
    /// assert_eq!(e.is_device_lost(), false);
    /// ```
    invalid_config => InvalidConfig,
}

impl From<vyre_foundation::validate::MissingEvidence> for BackendError {
    /// A backend asked for facts of something outside the validated program: a bug in the backend,
    /// reported as [`BackendError::Compile`].
    fn from(missing: vyre_foundation::validate::MissingEvidence) -> Self {
        BackendError::Compile(missing.to_string())
    }
}

impl From<ValidationErrors> for BackendError {
    fn from(errors: ValidationErrors) -> Self {
        BackendError::InvalidProgram(Box::new(errors))
    }
}

/// An invalid input stays [`BackendError::InvalidProgram`]; a pass that broke its contract is a
/// [`BackendError::Compile`] naming the pass (a bug of the pass, not of the caller's program).
impl From<vyre_foundation::pass::PassError> for BackendError {
    fn from(error: vyre_foundation::pass::PassError) -> Self {
        match error {
            vyre_foundation::pass::PassError::InvalidInput(errors) => errors.into(),
            other => BackendError::compile(other.to_string()),
        }
    }
}

impl BackendError {
    /// The same error, its message prefixed with `step {index} of the sequence: ` (an invalid
    /// program's errors stay as they are). The variant never changes.
    ///
    /// ```
    /// let e = vyre_driver::BackendError::timeout("too slow. Fix: raise the timeout.").in_step(3);
    /// assert_eq!(e.kind_name(), "Timeout");
    /// assert_eq!(e.to_string(), "step 3 of the sequence: too slow. Fix: raise the timeout.");
    /// ```
    #[must_use]
    pub fn in_step(self, index: usize) -> Self {
        self.prefixed(&format!("step {index} of the sequence: "))
    }

    /// The same error, its message prefixed with `work item {index}: `, for an error of one item of
    /// a [`dispatch_batch`](crate::VyreBackend::dispatch_batch) (an invalid program's errors stay as
    /// they are). The variant never changes.
    ///
    /// ```
    /// let e = vyre_driver::BackendError::input_mismatch("input 0 is 6 bytes. Fix: pass whole words.");
    /// assert_eq!(e.in_item(40).to_string(), "work item 40: input 0 is 6 bytes. Fix: pass whole words.");
    /// ```
    #[must_use]
    pub fn in_item(self, index: usize) -> Self {
        self.prefixed(&format!("work item {index}: "))
    }

    /// The same error, its message prefixed with `prefix` (an invalid program's errors stay as they
    /// are): context added by a layer that wraps a backend. The variant never changes.
    ///
    /// ```
    /// let e = vyre_driver::BackendError::timeout("too slow. Fix: raise the timeout.");
    /// assert_eq!(e.prefixed("member 1: ").to_string(), "member 1: too slow. Fix: raise the timeout.");
    /// ```
    #[must_use]
    pub fn prefixed(self, prefix: &str) -> Self {
        let prefix = |m: String| format!("{prefix}{m}");
        match self {
            BackendError::InvalidProgram(e) => BackendError::InvalidProgram(e),
            BackendError::InputMismatch(m) => BackendError::InputMismatch(prefix(m)),
            BackendError::LimitExceeded(m) => BackendError::LimitExceeded(prefix(m)),
            BackendError::Unsupported(m) => BackendError::Unsupported(prefix(m)),
            BackendError::Compile(m) => BackendError::Compile(prefix(m)),
            BackendError::NoDevice(m) => BackendError::NoDevice(prefix(m)),
            BackendError::DeviceLost(m) => BackendError::DeviceLost(prefix(m)),
            BackendError::OutOfMemory(m) => BackendError::OutOfMemory(prefix(m)),
            BackendError::Timeout(m) => BackendError::Timeout(prefix(m)),
            BackendError::InvalidConfig(m) => BackendError::InvalidConfig(prefix(m)),
            BackendError::Other(m) => BackendError::Other(prefix(m)),
        }
    }

    /// [`BackendError::in_step`] for step `index` of a sequence of `steps`: a one-step sequence is
    /// a `dispatch_resident`, whose errors name no step.
    ///
    /// ```
    /// let e = || vyre_driver::BackendError::timeout("too slow. Fix: raise the timeout.");
    /// assert!(e().in_sequence(0, 2).to_string().starts_with("step 0 of the sequence: "));
    /// assert_eq!(e().in_sequence(0, 1).to_string(), e().to_string());
    /// ```
    #[must_use]
    pub fn in_sequence(self, index: usize, steps: usize) -> Self {
        if steps > 1 { self.in_step(index) } else { self }
    }

    /// True for [`BackendError::DeviceLost`], the one error recovery can act on. False for
    /// [`BackendError::NoDevice`]: a device that never existed cannot be recovered.
    ///
    /// ```
    /// use vyre_driver::BackendError;
    ///
    /// assert!(BackendError::device_lost("reset. Fix: retry.").is_device_lost());
    /// assert!(!BackendError::no_device("no adapter. Fix: install a driver.").is_device_lost());
    /// ```
    #[must_use]
    pub fn is_device_lost(&self) -> bool {
        matches!(self, BackendError::DeviceLost(_))
    }

    /// The variant's name, e.g. `"Timeout"`; useful in reports and tests.
    ///
    /// ```
    /// use vyre_driver::{DispatchConfig, VyreBackend};
    /// use vyre_foundation::ir::{BufferDecl, DataType, Program};
    ///
    /// let program = Program::new(
    ///     vec![BufferDecl::output("o", 0, DataType::U32).with_count(4)],
    ///     [64, 1, 1],
    ///     vec![],
    /// );
    /// let backend = vyre_reference::ReferenceBackend::new();
    /// let config = DispatchConfig::new().with_grid([0, 1, 1]);
    /// let err = backend.dispatch(&program, &[], &config).unwrap_err();
    /// assert_eq!(err.kind_name(), "InvalidConfig"); // a grid with a zero dimension
    /// ```
    #[must_use]
    pub fn kind_name(&self) -> &'static str {
        match self {
            BackendError::InvalidProgram(_) => "InvalidProgram",
            BackendError::InputMismatch(_) => "InputMismatch",
            BackendError::LimitExceeded(_) => "LimitExceeded",
            BackendError::Unsupported(_) => "Unsupported",
            BackendError::Compile(_) => "Compile",
            BackendError::NoDevice(_) => "NoDevice",
            BackendError::DeviceLost(_) => "DeviceLost",
            BackendError::OutOfMemory(_) => "OutOfMemory",
            BackendError::Timeout(_) => "Timeout",
            BackendError::InvalidConfig(_) => "InvalidConfig",
            BackendError::Other(_) => "Other",
        }
    }
}
