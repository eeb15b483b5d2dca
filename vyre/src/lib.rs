//! # vyre: a portable GPU compute IR for Rust
//!
//! Build a [`Program`](ir::Program) of buffers, a workgroup size and a body of [`Node`](ir::Node)s over
//! [`Expr`](ir::Expr)s; check it with [`validate`]; run it on any [`VyreBackend`]. The wgpu backend
//! (feature `wgpu`, on by default) lowers programs to naga and runs them on Vulkan, Metal or DX12.
//! `SEMANTICS.md` defines what every program means.

/// The IR: programs, buffers, expressions, statements.
pub mod ir {
    pub use vyre_foundation::ir::{
        AtomicOp, Axis, BinOp, BufferAccess, BufferDecl, Builtin, DataType, Expr, Fingerprint,
        Literal, Node, Program, UnOp,
    };
}

mod select;

pub use select::{BACKEND_ENV_VAR, BACKEND_NAMES, Choice, Selected, backend, select};
pub use vyre_driver::{BackendError, Capabilities, DispatchConfig, VyreBackend};
pub use vyre_foundation::validate;
pub use vyre_foundation::validate::{ValidationError, ValidationErrorKind, ValidationErrors};
pub use vyre_reference::ReferenceBackend;

/// The wgpu backend.
#[cfg(feature = "wgpu")]
pub use vyre_driver_wgpu as wgpu;

/// The README's example, compiled and run as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
pub struct ReadmeDoctests;
