//! The vyre IR: a plain tree of enums that users build by hand.

mod buffer;
mod builtin;
mod constructors;
mod display;
mod drop;
mod expr;
mod features;
mod fingerprint;
pub(crate) mod half;
mod literal;
mod node;
mod ops;
mod parse;
mod program;
mod subgroup;
mod tile;
mod types;
mod wire;

pub use buffer::BufferDecl;
pub use builtin::{Axis, Builtin};
pub use expr::Expr;
pub use features::Features;
pub use fingerprint::Fingerprint;
pub use half::{f16_bits_to_f32, f32_to_f16_bits};
pub use literal::Literal;
pub use node::Node;
pub use ops::{AtomicClass, AtomicOp, BinClass, BinOp, SubgroupClass, SubgroupOp, UnClass, UnOp};
pub use parse::{ParseError, ParseErrorKind};
pub use program::{MAX_PRIVATE_ARRAY_LEN, MAX_WORKGROUP_INVOCATIONS, Program};
pub use tile::{TILE_SIZES, TileLayout, TileRole, TileShape, TileType};
pub use types::{BufferAccess, DataType};
pub use wire::{WIRE_MAGIC, WIRE_VERSION, WireError, WireErrorKind};
