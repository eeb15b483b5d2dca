//! # vyre-foundation: the vyre IR and its validator
//!
//! vyre describes a GPU compute kernel as plain Rust data, a [`Program`](ir::Program), that any backend
//! can run. This crate holds that data model and the rules it must follow; it has no GPU dependency.
//!
//! ## The model
//!
//! - A **program** declares its **buffers**, a **workgroup size** `[x, y, z]`, and a **body**: a list of
//!   [`Node`](ir::Node)s (statements) over [`Expr`](ir::Expr)s (pure values).
//! - A **dispatch** runs the body once per **invocation**. Invocations are grouped into **workgroups**
//!   of `x * y * z` invocations; the **grid** is the number of workgroups along each axis. Each invocation
//!   sees its ids as builtins: `gid` (global id), `lid` (position in its workgroup), `wid` (its
//!   workgroup's position in the grid) and `nwg` (the grid size).
//! - A **buffer** is an array of 32-bit elements of one [`DataType`](ir::DataType). `read`,
//!   `read_write` and `uniform` buffers take their bytes from the caller; `output` buffers start zeroed and
//!   are read back; `workgroup` buffers are shared by the invocations of one workgroup and start zeroed
//!   for each workgroup.
//! - Every **variable** is local to one invocation. `let` declares one in the rest of its body;
//!   `assign` changes it; a `loop_for` variable counts through a range fixed when the loop starts.
//! - An **out-of-bounds access** is defined, not undefined: a load outside a buffer yields `0` (of the
//!   element type), a store outside it does nothing, an atomic outside it does nothing and yields `0`.
//!   Every backend guarantees this in the code it generates; it is also what keeps one program (or one
//!   coalesced work item) from seeing another's data.
//! - Integer arithmetic wraps; division by zero yields the dividend; shifts use the amount mod 32.
//!   `SEMANTICS.md` at the repository root is the full law, and the reference backend in
//!   `vyre-conformance` is its executable form.
//!
//! ## Building a program
//!
//! ```
//! use vyre_foundation::ir::{BufferDecl, DataType, Expr, Node, Program};
//!
//! let n = 256;
//! let i = Expr::gid_x();
//! let program = Program::wrapped(
//!     vec![
//!         BufferDecl::read("input", 0, DataType::U32).with_count(n),
//!         BufferDecl::output("out", 1, DataType::U32).with_count(n),
//!     ],
//!     [64, 1, 1],
//!     vec![Node::if_then(
//!         Expr::lt(i.clone(), Expr::u32(n)),
//!         vec![Node::store("out", i.clone(), Expr::add(Expr::load("input", i), Expr::u32(1)))],
//!     )],
//! );
//! vyre_foundation::validate(&program).expect("the program is valid");
//! println!("{program}");
//! ```
//!
//! ## Saving and loading
//!
//! A program travels in two forms, both exact (they read back to the same program, field for field):
//! [`Program::to_bytes`](ir::Program::to_bytes) / [`Program::from_bytes`](ir::Program::from_bytes),
//! compact versioned bytes specified in `WIRE.md` (and hashed by
//! [`Program::fingerprint`](ir::Program::fingerprint)), and the text form that `Display` prints and
//! `str::parse::<Program>` reads. Malformed input of either kind is an error
//! ([`WireError`](ir::WireError), [`ParseError`](ir::ParseError)), never a panic. With the `serde`
//! feature the IR types also implement `Serialize` and `Deserialize`; their nesting is the data's
//! own, so a deserializer's recursion limit applies (serde_json's default of 128 refuses some valid
//! programs nested deep: lift it with serde_json's `unbounded_depth` feature and
//! `Deserializer::disable_recursion_limit` on a larger stack, or use the wire format, which reads
//! any valid program).
//!
//! ## Validation
//!
//! [`validate()`] checks names, types, buffer declarations, writability, atomics, the uniformity of
//! barriers and nesting limits, and reports every error with a path and a `Fix:`.

pub mod elementwise;
pub mod ir;
pub mod pass;
pub mod validate;
mod visit;

pub use validate::validate;
pub use visit::{for_each_expr, for_each_node, for_each_subexpr};
