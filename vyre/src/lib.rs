//! # vyre: a portable GPU compute IR for Rust
//!
//! Build a [`Program`](ir::Program) of buffers, a workgroup size and a body of [`Node`](ir::Node)s over
//! [`Expr`](ir::Expr)s; check it with [`validate()`]; run it on any [`VyreBackend`]. The wgpu backend
//! (feature `wgpu`, on by default) lowers programs to naga and runs them on Vulkan, Metal or DX12.
//! `SEMANTICS.md` defines what every program means.
//!
//! # Backends
//!
//! Two backends come with vyre, and [`backend`] picks one:
//!
//! - [`ReferenceBackend`], a CPU interpreter that is the executable form of `SEMANTICS.md`. It is
//!   always there, in every build.
//! - `vyre::wgpu::WgpuBackend` (the `vyre-driver-wgpu` crate), with the `wgpu` feature.
//!
//! [`Choice::Auto`] takes a GPU adapter, then a CPU Vulkan adapter (such as lavapipe), then the
//! reference; the environment variable `VYRE_BACKEND` ([`BACKEND_ENV_VAR`]) names one of
//! [`BACKEND_NAMES`] instead, and `VYRE_WGPU_ADAPTER=<substring>` picks the wgpu adapter by name.
//! [`Choice::Named`] asks for one backend and is an error when it is missing; [`select`] also says
//! why it chose what it did:
//!
//! ```
//! let picked = vyre::select(vyre::Choice::Named("reference"))?;
//! assert_eq!(picked.backend.id(), "reference");
//! eprintln!("{}", picked.reason);
//! # Ok::<(), vyre::BackendError>(())
//! ```
//!
//! # Data that stays on the device
//!
//! [`VyreBackend::create_buffer`] makes a [`DeviceBuffer`] that lives on the backend's device;
//! [`VyreBackend::dispatch_resident`] runs a program over such buffers (one per declared
//! non-workgroup buffer, in declaration order) and [`VyreBackend::dispatch_sequence`] runs several
//! [`Step`]s in order, each seeing the writes of the steps before (on wgpu: one submit). Nothing is
//! copied back until [`VyreBackend::read_buffer`]; [`VyreBackendExt`] adds typed forms.
//!
//! ```
//! use vyre::ir::{BufferDecl, DataType, Expr, Node, Program};
//! use vyre::{DispatchConfig, Step, VyreBackend, VyreBackendExt};
//!
//! // `dst[i] = src[i] * 2 + 1`, run twice over data that never leaves the device.
//! let double = Program::new(
//!     vec![
//!         BufferDecl::read("src", 0, DataType::U32).with_count(4),
//!         BufferDecl::output("dst", 1, DataType::U32).with_count(4),
//!     ],
//!     [64, 1, 1],
//!     vec![Node::store(
//!         "dst",
//!         Expr::gid_x(),
//!         Expr::add(Expr::mul(Expr::load("src", Expr::gid_x()), Expr::u32(2)), Expr::u32(1)),
//!     )],
//! );
//! let backend = vyre::backend(vyre::Choice::Auto)?;
//! let a = backend.create_buffer_from(&[1u32, 2, 3, 4])?;
//! let b = backend.create_buffer_for::<u32>(4)?;
//! let config = DispatchConfig::default();
//! backend.dispatch_sequence(&[
//!     Step::new(&double, &[&a, &b], &config),
//!     Step::new(&double, &[&b, &a], &config),
//! ])?;
//! assert_eq!(backend.read_buffer_as::<u32>(&a)?, [7, 11, 15, 19]);
//! # Ok::<(), vyre::BackendError>(())
//! ```
//!
//! # Async
//!
//! Every call that waits for a device has an async counterpart on [`VyreBackend`]:
//! [`dispatch_async`](VyreBackend::dispatch_async), [`dispatch_batch_async`](VyreBackend::dispatch_batch_async),
//! [`read_buffer_async`](VyreBackend::read_buffer_async),
//! [`dispatch_resident_async`](VyreBackend::dispatch_resident_async) and
//! [`dispatch_sequence_async`](VyreBackend::dispatch_sequence_async). Each returns a
//! [`BackendFuture`] (a boxed `Send` future, so the trait stays object-safe and the futures run on
//! any multi-threaded runtime), with the same checks, results and errors as the blocking call. vyre
//! depends on no runtime: on wgpu a future does its host work and its submit when first polled, then
//! waits without holding a thread, woken by one poller thread per device when the device is done.
//! Dropping a future cancels it safely: submitted work finishes on the device, and its pooled
//! buffers go back to the pool then. Backends without an async path (the reference, [`Sharded`])
//! run the blocking call when the future is first polled, which blocks the polling thread.
//! [`block_on`] runs a future where there is no runtime.
//!
//! ```
//! use vyre::ir::{BufferDecl, DataType, Expr, Node, Program};
//! use vyre::{DispatchConfig, VyreBackend};
//!
//! // `y[i] = x[i] * x[i]`
//! let square = Program::new(
//!     vec![
//!         BufferDecl::read("x", 0, DataType::U32).with_count(3),
//!         BufferDecl::output("y", 1, DataType::U32).with_count(3),
//!     ],
//!     [64, 1, 1],
//!     vec![Node::store(
//!         "y",
//!         Expr::gid_x(),
//!         Expr::mul(Expr::load("x", Expr::gid_x()), Expr::load("x", Expr::gid_x())),
//!     )],
//! );
//! // wgpu where there is an adapter (lavapipe counts), the reference otherwise.
//! let backend = vyre::backend(vyre::Choice::Auto)?;
//! let config = DispatchConfig::default();
//! let x: Vec<u8> = [2u32, 3, 4].iter().flat_map(|v| v.to_le_bytes()).collect();
//! let inputs = [x];
//! // Inside a runtime (tokio, a browser's event loop) this is just `.await`ed.
//! let work = async {
//!     let outputs = backend.dispatch_async(&square, &inputs, &config).await?;
//!     let kept = backend.create_buffer(12)?;
//!     backend.write_buffer(&kept, 0, &outputs[0])?;
//!     backend.read_buffer_async(&kept, 4..8).await
//! };
//! assert_eq!(vyre::block_on(work)?, 9u32.to_le_bytes());
//! # Ok::<(), vyre::BackendError>(())
//! ```
//!
//! With `default-features = false` vyre builds no GPU code at all: the reference is the only backend,
//! and `Choice::Named("wgpu")` is [`BackendError::Unsupported`] with a `Fix:`. Either way a user builds
//! only the IR, the driver contract and the backends; the conformance suite (`vyre-conformance`),
//! which checks a backend against the reference, is a separate crate for tests.

mod typed;

/// The IR: programs, buffers, expressions, statements.
pub mod ir {
    pub use vyre_foundation::ir::{
        AtomicOp, Axis, BinOp, BufferAccess, BufferDecl, Builtin, DataType, Expr, Features,
        Fingerprint, Literal, MAX_PRIVATE_ARRAY_LEN, Node, ParseError, ParseErrorKind, Program,
        SubgroupOp, TILE_SIZES, TileLayout, TileRole, TileShape, TileType, UnOp, WIRE_MAGIC,
        WIRE_VERSION, WireError, WireErrorKind, f16_bits_to_f32, f32_to_f16_bits,
    };
}

/// IR passes: transformations of a validated program that keep its meaning (the wgpu backend runs
/// [`pass::Pipeline::standard`] before lowering).
pub mod pass {
    pub use vyre_foundation::pass::{Outcome, Pass, PassError, Pipeline, builtin, by_name};
}

mod select;
mod sharded;

pub use select::{BACKEND_ENV_VAR, BACKEND_NAMES, Choice, Selected, backend, select};
pub use sharded::{DEFAULT_SPLIT_THRESHOLD, MemberStats, Sharded};
pub use typed::VyreBackendExt;
pub use vyre_driver::{
    BackendError, BackendFuture, Capabilities, DeviceBuffer, DispatchConfig, DispatchPlan,
    PreparedStep, Step, VyreBackend, block_on, check_tiles, prepare_resident, prepare_sequence,
};
pub use vyre_foundation::validate;
pub use vyre_foundation::validate::{
    Validated, ValidationError, ValidationErrorKind, ValidationErrors,
};
pub use vyre_reference::ReferenceBackend;

/// The wgpu backend.
#[cfg(feature = "wgpu")]
pub use vyre_driver_wgpu as wgpu;

/// The README's example, compiled and run as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
pub struct ReadmeDoctests;
