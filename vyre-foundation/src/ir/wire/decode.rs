//! Reading a program back from the wire format (`WIRE.md`).
//!
//! Every read is checked against the bytes that remain: a length or count that claims more than is
//! left is an error before anything is allocated for it, and no vector is reserved from a count
//! (a hostile count would reserve memory at every nesting level); vectors grow only as items really
//! decode. Nesting is bounded by the validator's limits, [`MAX_EXPR_DEPTH`] and [`MAX_NODE_DEPTH`],
//! so the recursion here is at most a few hundred frames deep, and what decodes can be dropped,
//! cloned and compared by the IR's recursive derives.
//!
//! Every value has exactly one encoding (varints must be minimal, bools and option tags 0 or 1), so
//! a successful decode re-encodes to the very same bytes.

use crate::ir::wire::error::{WireError, WireErrorKind};
use crate::ir::wire::tags::{BuiltinTag, ExprTag, LiteralTag, NONE, NodeTag, SOME};
use crate::ir::wire::{WIRE_MAGIC, WIRE_VERSION};
use crate::ir::{
    AtomicOp, Axis, BinOp, BufferAccess, BufferDecl, Builtin, DataType, Expr, Literal, Node,
    Program, SubgroupOp, TileLayout, TileRole, TileType, UnOp,
};
use crate::validate::{MAX_EXPR_DEPTH, MAX_NODE_DEPTH};

type Result<T> = std::result::Result<T, WireError>;

/// The input and how far it has been read.
struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
    /// The version the header names; a statement newer than it is an unknown tag.
    version: u16,
    /// The lowest version that holds what has been read so far.
    needed: u16,
}

impl<'a> Reader<'a> {
    fn error(&self, at: usize, kind: WireErrorKind) -> WireError {
        WireError::new(at, kind)
    }

    fn remaining(&self) -> usize {
        self.bytes.len() - self.pos
    }

    fn byte(&mut self, expected: &'static str) -> Result<u8> {
        let Some(&b) = self.bytes.get(self.pos) else {
            return Err(self.error(self.pos, WireErrorKind::UnexpectedEnd { expected }));
        };
        self.pos += 1;
        Ok(b)
    }

    fn take(&mut self, n: usize, expected: &'static str) -> Result<&'a [u8]> {
        if n > self.remaining() {
            return Err(self.error(self.bytes.len(), WireErrorKind::UnexpectedEnd { expected }));
        }
        let out = &self.bytes[self.pos..self.pos + n];
        self.pos += n;
        Ok(out)
    }

    /// A tag byte, mapped through its table.
    fn tag<T>(&mut self, expected: &'static str, table: impl Fn(u8) -> Option<T>) -> Result<T> {
        let at = self.pos;
        let tag = self.byte(expected)?;
        table(tag).ok_or_else(|| self.error(at, WireErrorKind::BadTag { expected, tag }))
    }

    /// A minimal unsigned LEB128 varint of at most `bits` bits.
    fn varint(&mut self, expected: &'static str, bits: u32) -> Result<u64> {
        let at = self.pos;
        let bad = |r: &Self| r.error(at, WireErrorKind::BadVarint { expected });
        let mut value = 0u64;
        let mut shift = 0u32;
        loop {
            let b = self.byte(expected)?;
            let payload = u64::from(b & 0x7f);
            if shift >= 64 || (payload << shift) >> shift != payload {
                return Err(bad(self));
            }
            value |= payload << shift;
            if b & 0x80 == 0 {
                // A last byte of 0 after others is an overlong form of a shorter varint.
                if (b == 0 && shift > 0) || (bits < 64 && value >> bits != 0) {
                    return Err(bad(self));
                }
                return Ok(value);
            }
            shift += 7;
        }
    }

    fn u32(&mut self, expected: &'static str) -> Result<u32> {
        // The varint was bounded to 32 bits.
        Ok(self.varint(expected, 32)? as u32)
    }

    /// A length or count of items at least one byte each, so never more than the bytes remaining.
    fn len(&mut self, expected: &'static str) -> Result<usize> {
        let at = self.pos;
        let length = self.varint(expected, 64)?;
        let remaining = self.remaining();
        match usize::try_from(length) {
            Ok(n) if n <= remaining => Ok(n),
            _ => Err(self.error(
                at,
                WireErrorKind::LengthPastEnd {
                    expected,
                    length,
                    remaining,
                },
            )),
        }
    }

    fn string(&mut self, expected: &'static str) -> Result<String> {
        let n = self.len(expected)?;
        let at = self.pos;
        let bytes = self.take(n, expected)?;
        match std::str::from_utf8(bytes) {
            Ok(s) => Ok(s.to_owned()),
            Err(_) => Err(self.error(at, WireErrorKind::InvalidUtf8 { expected })),
        }
    }

    fn usize_bound(&mut self, expected: &'static str) -> Result<usize> {
        let at = self.pos;
        let v = self.varint(expected, 64)?;
        usize::try_from(v).map_err(|_| self.error(at, WireErrorKind::RangeTooLarge { value: v }))
    }

    fn header(&mut self) -> Result<u16> {
        if self.bytes.len() < WIRE_MAGIC.len() && WIRE_MAGIC.starts_with(self.bytes) {
            return Err(self.error(
                self.bytes.len(),
                WireErrorKind::UnexpectedEnd {
                    expected: "the magic `VYRE`",
                },
            ));
        }
        if !self.bytes.starts_with(&WIRE_MAGIC) {
            return Err(self.error(0, WireErrorKind::BadMagic));
        }
        self.pos = WIRE_MAGIC.len();
        let at = self.pos;
        let v = self.take(2, "the format version (two bytes)")?;
        let version = u16::from_le_bytes([v[0], v[1]]);
        if version == 0 || version > WIRE_VERSION {
            return Err(self.error(at, WireErrorKind::UnsupportedVersion { found: version }));
        }
        Ok(version)
    }

    fn literal(&mut self) -> Result<Literal> {
        let at = self.pos;
        let tag = self.tag("a literal tag", LiteralTag::from_wire_tag)?;
        let since = match tag {
            LiteralTag::Bool | LiteralTag::U32 | LiteralTag::I32 | LiteralTag::F32 => 1,
            LiteralTag::F16 | LiteralTag::U64 | LiteralTag::I64 => 3,
        };
        self.since(at, since, "a literal tag", tag.wire_tag())?;
        Ok(match tag {
            LiteralTag::Bool => {
                Literal::Bool(self.tag("a bool literal (0 or 1)", |b| match b {
                    0 => Some(false),
                    1 => Some(true),
                    _ => None,
                })?)
            }
            LiteralTag::U32 => Literal::U32(self.u32("a u32 literal")?),
            LiteralTag::I32 => {
                let z = self.u32("an i32 literal (zigzag)")?;
                Literal::I32((z >> 1) as i32 ^ -((z & 1) as i32))
            }
            LiteralTag::F32 => {
                let b = self.take(4, "an f32 literal (four bytes)")?;
                Literal::F32(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            }
            LiteralTag::F16 => {
                let b = self.take(2, "an f16 literal (two bytes)")?;
                Literal::F16(u16::from_le_bytes([b[0], b[1]]))
            }
            LiteralTag::U64 => Literal::U64(self.varint("a u64 literal", 64)?),
            LiteralTag::I64 => {
                let z = self.varint("an i64 literal (zigzag)", 64)?;
                Literal::I64((z >> 1) as i64 ^ -((z & 1) as i64))
            }
        })
    }

    /// Checks that a tag read at `at`, first in format version `since`, exists in the version
    /// the header names; bytes of an older version are read as that version's reader would.
    fn since(&mut self, at: usize, since: u16, expected: &'static str, tag: u8) -> Result<()> {
        if since > self.version {
            return Err(self.error(at, WireErrorKind::BadTag { expected, tag }));
        }
        self.needed = self.needed.max(since);
        Ok(())
    }

    fn builtin(&mut self) -> Result<Builtin> {
        let at = self.pos;
        let kind = self.tag("a builtin tag", BuiltinTag::from_wire_tag)?;
        self.since(at, kind.since(), "a builtin tag", kind.wire_tag())?;
        let mut axis = || self.tag("an axis tag", Axis::from_wire_tag);
        Ok(match kind {
            BuiltinTag::GlobalId => Builtin::GlobalId(axis()?),
            BuiltinTag::LocalId => Builtin::LocalId(axis()?),
            BuiltinTag::WorkgroupId => Builtin::WorkgroupId(axis()?),
            BuiltinTag::NumWorkgroups => Builtin::NumWorkgroups(axis()?),
            BuiltinTag::SubgroupSize => Builtin::SubgroupSize,
            BuiltinTag::SubgroupInvocationId => Builtin::SubgroupInvocationId,
        })
    }

    fn data_type(&mut self) -> Result<DataType> {
        let at = self.pos;
        let ty = self.tag("a data type tag", DataType::from_wire_tag)?;
        self.since(at, ty.since(), "a data type tag", ty.wire_tag())?;
        Ok(ty)
    }

    fn option_tag(&mut self, expected: &'static str) -> Result<bool> {
        self.tag(expected, |b| match b {
            NONE => Some(false),
            SOME => Some(true),
            _ => None,
        })
    }

    fn buffer(&mut self) -> Result<BufferDecl> {
        let name = self.string("a buffer name")?;
        let binding = self.u32("a binding")?;
        let access = self.tag("a buffer access tag", BufferAccess::from_wire_tag)?;
        let element = self.data_type()?;
        let count = self.u32("an element count")?;
        let output_byte_range = if self.option_tag("a readback range tag (0 or 1)")? {
            let start = self.usize_bound("a readback range start")?;
            let end = self.usize_bound("a readback range end")?;
            Some(start..end)
        } else {
            None
        };
        Ok(BufferDecl {
            name,
            binding,
            access,
            element,
            count,
            output_byte_range,
        })
    }

    /// An expression whose root is `depth` levels below an expression root.
    fn expr(&mut self, depth: usize) -> Result<Expr> {
        if depth >= MAX_EXPR_DEPTH {
            return Err(self.error(
                self.pos,
                WireErrorKind::TooDeep {
                    expected: "expression",
                    limit: MAX_EXPR_DEPTH,
                },
            ));
        }
        let child = |r: &mut Self| r.expr(depth + 1).map(Box::new);
        let at = self.pos;
        let tag = self.tag("an expression tag", ExprTag::from_wire_tag)?;
        self.since(at, tag.since(), "an expression tag", tag.wire_tag())?;
        Ok(match tag {
            ExprTag::Lit => Expr::Lit(self.literal()?),
            ExprTag::Var => Expr::Var(self.string("a variable name")?),
            ExprTag::Load => {
                let buffer = self.string("a buffer name")?;
                Expr::Load {
                    buffer,
                    index: child(self)?,
                }
            }
            ExprTag::ArrayLoad => {
                let array = self.string("a private array name")?;
                Expr::ArrayLoad {
                    array,
                    index: child(self)?,
                }
            }
            ExprTag::BufLen => Expr::BufLen(self.string("a buffer name")?),
            ExprTag::Builtin => Expr::Builtin(self.builtin()?),
            ExprTag::Binary => {
                let op = self.tag("a binary operator tag", BinOp::from_wire_tag)?;
                let lhs = child(self)?;
                Expr::Binary {
                    op,
                    lhs,
                    rhs: child(self)?,
                }
            }
            ExprTag::Unary => {
                let op = self.tag("a unary operator tag", UnOp::from_wire_tag)?;
                Expr::Unary {
                    op,
                    arg: child(self)?,
                }
            }
            ExprTag::Select => {
                let cond = child(self)?;
                let on_true = child(self)?;
                Expr::Select {
                    cond,
                    on_true,
                    on_false: child(self)?,
                }
            }
            ExprTag::Cast => {
                let to = self.data_type()?;
                Expr::Cast {
                    to,
                    arg: child(self)?,
                }
            }
            ExprTag::Bitcast => {
                let to = self.data_type()?;
                Expr::Bitcast {
                    to,
                    arg: child(self)?,
                }
            }
            ExprTag::Fma => {
                let a = child(self)?;
                let b = child(self)?;
                Expr::Fma {
                    a,
                    b,
                    c: child(self)?,
                }
            }
            ExprTag::Atomic => self.atomic(depth)?,
            ExprTag::Subgroup => {
                let op = self.tag("a subgroup operator tag", SubgroupOp::from_wire_tag)?;
                Expr::Subgroup {
                    op,
                    arg: child(self)?,
                }
            }
            ExprTag::SubgroupShuffle => {
                let value = child(self)?;
                Expr::SubgroupShuffle {
                    value,
                    lane: child(self)?,
                }
            }
        })
    }

    fn atomic(&mut self, depth: usize) -> Result<Expr> {
        let op = self.tag("an atomic operator tag", AtomicOp::from_wire_tag)?;
        let buffer = self.string("a buffer name")?;
        let has_expected = self.option_tag("an expected-value tag (0 or 1)")?;
        let index = Box::new(self.expr(depth + 1)?);
        let expected = if has_expected {
            Some(Box::new(self.expr(depth + 1)?))
        } else {
            None
        };
        Ok(Expr::Atomic {
            op,
            buffer,
            index,
            expected,
            value: Box::new(self.expr(depth + 1)?),
        })
    }

    /// A body `depth` levels inside the entry body (which is at 0).
    fn body(&mut self, depth: usize) -> Result<Vec<Node>> {
        if depth > MAX_NODE_DEPTH {
            return Err(self.error(
                self.pos,
                WireErrorKind::TooDeep {
                    expected: "statement",
                    limit: MAX_NODE_DEPTH,
                },
            ));
        }
        let n = self.len("a statement count")?;
        let mut nodes = Vec::new();
        for _ in 0..n {
            nodes.push(self.node(depth)?);
        }
        Ok(nodes)
    }

    fn node(&mut self, depth: usize) -> Result<Node> {
        let at = self.pos;
        let tag = self.tag("a statement tag", NodeTag::from_wire_tag)?;
        self.since(at, tag.since(), "a statement tag", tag.wire_tag())?;
        Ok(match tag {
            NodeTag::Let => Node::Let {
                name: self.string("a variable name")?,
                value: self.expr(0)?,
            },
            NodeTag::Assign => Node::Assign {
                name: self.string("a variable name")?,
                value: self.expr(0)?,
            },
            NodeTag::Store => Node::Store {
                buffer: self.string("a buffer name")?,
                index: self.expr(0)?,
                value: self.expr(0)?,
            },
            NodeTag::PrivateArray => Node::PrivateArray {
                name: self.string("a private array name")?,
                element: self.data_type()?,
                len: self.u32("a private array length")?,
            },
            NodeTag::ArrayStore => Node::ArrayStore {
                array: self.string("a private array name")?,
                index: self.expr(0)?,
                value: self.expr(0)?,
            },
            NodeTag::Tile => Node::Tile {
                name: self.string("a tile name")?,
                tile: TileType {
                    role: self.tag("a tile role tag", TileRole::from_wire_tag)?,
                    element: self.data_type()?,
                    rows: self.u32("a tile's row count")?,
                    columns: self.u32("a tile's column count")?,
                },
            },
            NodeTag::TileLoad | NodeTag::TileStore => {
                let tile = self.string("a tile name")?;
                let buffer = self.string("a buffer name")?;
                let layout = self.tag("a tile layout tag", TileLayout::from_wire_tag)?;
                let offset = self.expr(0)?;
                let stride = self.expr(0)?;
                if tag == NodeTag::TileLoad {
                    Node::tile_load(tile, buffer, offset, stride, layout)
                } else {
                    Node::tile_store(tile, buffer, offset, stride, layout)
                }
            }
            NodeTag::TileMultiplyAdd => Node::TileMultiplyAdd {
                target: self.string("a tile name")?,
                a: self.string("a tile name")?,
                b: self.string("a tile name")?,
                c: self.string("a tile name")?,
            },
            NodeTag::If => Node::If {
                cond: self.expr(0)?,
                then: self.body(depth + 1)?,
                otherwise: self.body(depth + 1)?,
            },
            NodeTag::Loop => Node::Loop {
                var: self.string("a loop variable name")?,
                from: self.expr(0)?,
                to: self.expr(0)?,
                body: self.body(depth + 1)?,
            },
            NodeTag::Block => Node::Block(self.body(depth + 1)?),
            NodeTag::Barrier => Node::Barrier,
            NodeTag::Return => Node::Return,
            NodeTag::Break => Node::Break,
            NodeTag::Continue => Node::Continue,
            NodeTag::While => Node::While {
                cond: self.expr(0)?,
                body: self.body(depth + 1)?,
            },
            NodeTag::Atomic => self.atomic_node()?,
        })
    }

    /// An atomic statement: the fields of an atomic expression, its operands each a root.
    fn atomic_node(&mut self) -> Result<Node> {
        let op = self.tag("an atomic operator tag", AtomicOp::from_wire_tag)?;
        let buffer = self.string("a buffer name")?;
        let has_expected = self.option_tag("an expected-value tag (0 or 1)")?;
        let index = self.expr(0)?;
        let expected = if has_expected {
            Some(self.expr(0)?)
        } else {
            None
        };
        Ok(Node::Atomic {
            op,
            buffer,
            index,
            expected,
            value: self.expr(0)?,
        })
    }
}

/// The program `bytes` encode.
pub(super) fn decode(bytes: &[u8]) -> Result<Program> {
    let mut r = Reader {
        bytes,
        pos: 0,
        version: 1,
        needed: 1,
    };
    // Version 2 only added statements, version 3 only types and literals, version 4 only the
    // private array statements and load and version 5 only the tile statements, so the layouts
    // agree and nothing branches on the version but the tags it allows.
    r.version = r.header()?;
    let workgroup_size = [
        r.u32("the workgroup size x")?,
        r.u32("the workgroup size y")?,
        r.u32("the workgroup size z")?,
    ];
    let n = r.len("a buffer count")?;
    let mut buffers = Vec::new();
    for _ in 0..n {
        buffers.push(r.buffer()?);
    }
    let body = r.body(0)?;
    if r.remaining() > 0 {
        return Err(r.error(
            r.pos,
            WireErrorKind::TrailingBytes {
                count: r.remaining(),
            },
        ));
    }
    if r.version > r.needed {
        // The writer writes the lowest version that holds the program, so these bytes have a
        // canonical twin with a smaller version; accepting both would give a program two encodings.
        let kind = WireErrorKind::VersionNotMinimal {
            found: r.version,
            needed: r.needed,
        };
        return Err(r.error(WIRE_MAGIC.len(), kind));
    }
    Ok(Program {
        buffers,
        workgroup_size,
        body,
    })
}
