//! `UdfError`: everything that can go wrong in making or running a vyre function, each message
//! naming the function and ending with `Fix: ...`.

use datafusion::arrow::datatypes::DataType as ArrowType;
use datafusion::error::DataFusionError;
use vyre::BackendError;
use vyre::ValidationErrors;

/// An error of a vyre function. DataFusion sees it as [`DataFusionError::External`], so
/// `error.find_root()` and a downcast give it back.
///
/// ```
/// use vyre::ir::{BufferDecl, DataType, Expr, Node, Program};
/// use vyre_datafusion::{UdfError, VyreUdf};
///
/// // Reads its neighbour's element, so a row's result would depend on other rows: refused.
/// let shifted = Program::new(
///     vec![
///         BufferDecl::read("x", 0, DataType::U32),
///         BufferDecl::output("y", 1, DataType::U32).with_count(64),
///     ],
///     [64, 1, 1],
///     vec![Node::store("y", Expr::gid_x(), Expr::load("x", Expr::gid_x() + 1u32))],
/// );
/// let backend = std::sync::Arc::new(vyre::ReferenceBackend::new());
/// let err = VyreUdf::builder("shifted", shifted).backend(backend).build().unwrap_err();
/// assert!(matches!(err, UdfError::NotElementwise { .. }));
/// assert!(err.to_string().contains("`shifted`") && err.to_string().contains("Fix: "));
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum UdfError {
    /// The program does not pass `vyre::validate`.
    #[error("vyre function `{name}`: its {errors}")]
    InvalidProgram {
        /// The function's name.
        name: String,
        /// What validation found; each error ends with its own `Fix:`.
        errors: Box<ValidationErrors>,
    },
    /// The program is valid but is not an elementwise function of its arguments.
    #[error(
        "vyre function `{name}`: the program is not elementwise: {reason}. Fix: write a program whose invocation `gid.x = i` reads element `i` of each `read` buffer (one per argument, in declaration order) and writes element `i` of its one `output` buffer, indexing every storage buffer with exactly `gid.x`."
    )]
    NotElementwise {
        /// The function's name.
        name: String,
        /// What breaks the rule.
        reason: String,
    },
    /// A call passes the wrong number of arguments.
    #[error(
        "vyre function `{name}` takes {expected} argument(s) (one per `read` buffer) but was called with {found}. Fix: call it with {expected} argument(s)."
    )]
    ArgumentCount {
        /// The function's name.
        name: String,
        /// The number of `read` buffers.
        expected: usize,
        /// The number of arguments in the call.
        found: usize,
    },
    /// An argument's Arrow type is not its buffer's type, and no lossless cast makes it one.
    #[error(
        "vyre function `{name}`: argument {index} is {found} but its buffer holds {expected}. Fix: cast the argument, e.g. {cast}."
    )]
    ArgumentType {
        /// The function's name.
        name: String,
        /// The argument's position, from 0.
        index: usize,
        /// The Arrow type of the argument's buffer.
        expected: Box<ArrowType>,
        /// The argument's Arrow type.
        found: Box<ArrowType>,
        /// A SQL expression that casts to `expected`.
        cast: String,
    },
    /// A batch has more rows than one dispatch on this backend holds.
    #[error(
        "vyre function `{name}`: a batch of {rows} rows is longer than the {max} rows one dispatch on `{backend}` holds. Fix: lower the batch size (`SET datafusion.execution.batch_size = {max}` or `SessionConfig::with_batch_size`)."
    )]
    TooLong {
        /// The function's name.
        name: String,
        /// The batch's rows.
        rows: usize,
        /// The most rows one dispatch holds.
        max: u64,
        /// The backend's id.
        backend: String,
    },
    /// The backend refused or failed the dispatch; its message ends with its own `Fix:`.
    #[error("vyre function `{name}` on `{backend}`: {source}")]
    Backend {
        /// The function's name.
        name: String,
        /// The backend's id.
        backend: String,
        /// The backend's error.
        source: BackendError,
    },
    /// A serialized function's bytes are not a vyre program (`VyreCodec`).
    #[error(
        "vyre function `{name}`: its bytes in the plan are malformed: {reason}. Fix: serialize and deserialize plans with `VyreCodec` of the same vyre-datafusion version on both sides, and check that the plan's bytes were not cut or altered in transit."
    )]
    Malformed {
        /// The function's name.
        name: String,
        /// What is wrong with the bytes.
        reason: String,
    },
    /// No backend could be chosen for a function built without one.
    #[error("vyre function `{name}`: no backend: {source}")]
    NoBackend {
        /// The function's name.
        name: String,
        /// Why `vyre::select` found none.
        source: BackendError,
    },
}

impl UdfError {
    /// The function this error is about.
    ///
    /// ```
    /// let err = vyre_datafusion::UdfError::ArgumentCount { name: "f".into(), expected: 2, found: 1 };
    /// assert_eq!(err.function(), "f");
    /// ```
    #[must_use]
    pub fn function(&self) -> &str {
        match self {
            UdfError::InvalidProgram { name, .. }
            | UdfError::NotElementwise { name, .. }
            | UdfError::ArgumentCount { name, .. }
            | UdfError::ArgumentType { name, .. }
            | UdfError::TooLong { name, .. }
            | UdfError::Backend { name, .. }
            | UdfError::Malformed { name, .. }
            | UdfError::NoBackend { name, .. } => name,
        }
    }
}

impl From<UdfError> for DataFusionError {
    fn from(error: UdfError) -> Self {
        DataFusionError::External(Box::new(error))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_error_stays_small() {
        assert!(
            std::mem::size_of::<UdfError>() <= 80,
            "{}",
            std::mem::size_of::<UdfError>()
        );
    }
}
