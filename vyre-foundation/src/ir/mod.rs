//! The vyre IR: a plain tree of enums that users build by hand.

mod buffer;
mod display;
mod expr;
mod fingerprint;
mod node;
mod program;
mod types;

pub use buffer::BufferDecl;
pub use expr::{AtomicOp, Axis, BinOp, Builtin, Expr, Literal, UnOp};
pub use fingerprint::{Fingerprint, StableHasher};
pub use node::Node;
pub use program::{MAX_WORKGROUP_INVOCATIONS, Program};
pub use types::{BufferAccess, DataType};
