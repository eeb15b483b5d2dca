//! Writing a program in the wire format (`WIRE.md`).
//!
//! The walk is iterative, with explicit stacks, so that encoding (and with it
//! [`Program::fingerprint`](crate::ir::Program::fingerprint)) never recurses once per nesting level:
//! a hand-built program nested far deeper than the validator allows still encodes without
//! overflowing the stack. Such bytes are then refused by the decoder, which keeps the validator's
//! depth limits.

use crate::ir::wire::WIRE_MAGIC;
use crate::ir::wire::tags::{BuiltinTag, ExprTag, LiteralTag, NONE, NodeTag, SOME};
use crate::ir::{BufferDecl, Builtin, DataType, Expr, Literal, Node, Program};

/// The output being written, with the primitive encodings of `WIRE.md`.
struct Writer {
    out: Vec<u8>,
    /// The lowest format version that holds what has been written so far.
    version: u16,
}

impl Writer {
    fn byte(&mut self, b: u8) {
        self.out.push(b);
    }

    /// Unsigned LEB128: seven bits per byte, low bits first, the high bit set on every byte but the
    /// last. Always the shortest form.
    fn varint(&mut self, mut v: u64) {
        while v >= 0x80 {
            self.out.push((v as u8 & 0x7f) | 0x80);
            v >>= 7;
        }
        self.out.push(v as u8);
    }

    fn u32(&mut self, v: u32) {
        self.varint(u64::from(v));
    }

    fn len(&mut self, n: usize) {
        // A usize always fits a u64 on the platforms Rust supports.
        self.varint(n as u64);
    }

    fn str(&mut self, s: &str) {
        self.len(s.len());
        self.out.extend_from_slice(s.as_bytes());
    }

    /// A type tag, raising the version to the first one that has the type.
    fn data_type(&mut self, ty: DataType) {
        self.version = self.version.max(ty.since());
        self.byte(ty.wire_tag());
    }

    fn literal(&mut self, lit: Literal) {
        self.version = self.version.max(lit.ty().since());
        self.byte(LiteralTag::of(&lit).wire_tag());
        match lit {
            Literal::Bool(b) => self.byte(u8::from(b)),
            Literal::U32(v) => self.u32(v),
            // Zigzag, so that small negative numbers stay one byte: 0, -1, 1, -2 ... -> 0, 1, 2, 3 ...
            Literal::I32(v) => self.u32(((v << 1) ^ (v >> 31)) as u32),
            Literal::F32(bits) => self.out.extend_from_slice(&bits.to_le_bytes()),
            Literal::F16(bits) => self.out.extend_from_slice(&bits.to_le_bytes()),
            Literal::U64(v) => self.varint(v),
            Literal::I64(v) => self.varint(((v << 1) ^ (v >> 63)) as u64),
        }
    }

    fn builtin(&mut self, b: Builtin) {
        let tag = BuiltinTag::of(&b);
        self.version = self.version.max(tag.since());
        self.byte(tag.wire_tag());
        if let Some(axis) = b.axis() {
            self.byte(axis.wire_tag());
        }
    }

    fn buffer(&mut self, b: &BufferDecl) {
        self.str(&b.name);
        self.u32(b.binding);
        self.byte(b.access.wire_tag());
        self.data_type(b.element);
        self.u32(b.count);
        match &b.output_byte_range {
            None => self.byte(NONE),
            Some(range) => {
                self.byte(SOME);
                self.len(range.start);
                self.len(range.end);
            }
        }
    }

    /// An expression in prefix order: each node's tag and own fields, then its children in
    /// evaluation order.
    fn expr(&mut self, root: &Expr) {
        let mut stack: Vec<&Expr> = vec![root];
        while let Some(e) = stack.pop() {
            self.expr_head(e);
            let first_child = stack.len();
            stack.extend(e.children());
            stack[first_child..].reverse();
        }
    }

    /// The tag and the non-expression fields of `e`.
    fn expr_head(&mut self, e: &Expr) {
        let tag = ExprTag::of(e);
        self.version = self.version.max(tag.since());
        self.byte(tag.wire_tag());
        match e {
            Expr::Lit(lit) => self.literal(*lit),
            Expr::Var(name)
            | Expr::BufLen(name)
            | Expr::Load { buffer: name, .. }
            | Expr::ArrayLoad { array: name, .. } => {
                self.str(name);
            }
            Expr::Builtin(b) => self.builtin(*b),
            Expr::Binary { op, .. } => self.byte(op.wire_tag()),
            Expr::Unary { op, .. } => self.byte(op.wire_tag()),
            Expr::Cast { to, .. } | Expr::Bitcast { to, .. } => self.data_type(*to),
            Expr::Subgroup { op, .. } => self.byte(op.wire_tag()),
            Expr::Select { .. } | Expr::Fma { .. } | Expr::SubgroupShuffle { .. } => {}
            Expr::Atomic {
                op,
                buffer,
                expected,
                ..
            } => {
                self.byte(op.wire_tag());
                self.str(buffer);
                self.byte(if expected.is_some() { SOME } else { NONE });
            }
        }
    }

    /// A body: its statement count, then each statement.
    fn body(&mut self, root: &[Node]) {
        enum Work<'a> {
            Body(&'a [Node]),
            Node(&'a Node),
        }
        let mut stack = vec![Work::Body(root)];
        while let Some(work) = stack.pop() {
            let node = match work {
                Work::Body(nodes) => {
                    self.len(nodes.len());
                    stack.extend(nodes.iter().rev().map(Work::Node));
                    continue;
                }
                Work::Node(node) => node,
            };
            let tag = NodeTag::of(node);
            self.version = self.version.max(tag.since());
            self.byte(tag.wire_tag());
            match node {
                Node::Let { name, value } | Node::Assign { name, value } => {
                    self.str(name);
                    self.expr(value);
                }
                Node::Store {
                    buffer: name,
                    index,
                    value,
                }
                | Node::ArrayStore {
                    array: name,
                    index,
                    value,
                } => {
                    self.str(name);
                    self.expr(index);
                    self.expr(value);
                }
                Node::If {
                    cond,
                    then,
                    otherwise,
                } => {
                    self.expr(cond);
                    stack.push(Work::Body(otherwise));
                    stack.push(Work::Body(then));
                }
                Node::Loop {
                    var,
                    from,
                    to,
                    body,
                } => {
                    self.str(var);
                    self.expr(from);
                    self.expr(to);
                    stack.push(Work::Body(body));
                }
                Node::While { cond, body } => {
                    self.expr(cond);
                    stack.push(Work::Body(body));
                }
                Node::Atomic {
                    op,
                    buffer,
                    index,
                    expected,
                    value,
                } => {
                    self.byte(op.wire_tag());
                    self.str(buffer);
                    self.byte(if expected.is_some() { SOME } else { NONE });
                    self.expr(index);
                    if let Some(expected) = expected {
                        self.expr(expected);
                    }
                    self.expr(value);
                }
                Node::PrivateArray { name, element, len } => {
                    self.str(name);
                    self.data_type(*element);
                    self.u32(*len);
                }
                Node::Tile { name, tile } => {
                    self.str(name);
                    self.byte(tile.role.wire_tag());
                    self.data_type(tile.element);
                    self.u32(tile.rows);
                    self.u32(tile.columns);
                }
                Node::TileLoad {
                    tile,
                    buffer,
                    offset,
                    stride,
                    layout,
                }
                | Node::TileStore {
                    tile,
                    buffer,
                    offset,
                    stride,
                    layout,
                } => {
                    self.str(tile);
                    self.str(buffer);
                    self.byte(layout.wire_tag());
                    self.expr(offset);
                    self.expr(stride);
                }
                Node::TileMultiplyAdd { target, a, b, c } => {
                    self.str(target);
                    self.str(a);
                    self.str(b);
                    self.str(c);
                }
                Node::Block(body) => stack.push(Work::Body(body)),
                Node::Barrier | Node::Return | Node::Break | Node::Continue => {}
            }
        }
    }
}

/// The wire bytes of `program`.
pub(super) fn encode(program: &Program) -> Vec<u8> {
    let mut w = Writer {
        out: Vec::new(),
        version: 1,
    };
    w.out.extend_from_slice(&WIRE_MAGIC);
    // The version is known once the body is written; it is patched in below.
    w.out.extend_from_slice(&[0, 0]);
    for d in program.workgroup_size {
        w.u32(d);
    }
    w.len(program.buffers.len());
    for b in &program.buffers {
        w.buffer(b);
    }
    w.body(&program.body);
    let version = w.version.to_le_bytes();
    w.out[WIRE_MAGIC.len()..WIRE_MAGIC.len() + 2].copy_from_slice(&version);
    w.out
}
