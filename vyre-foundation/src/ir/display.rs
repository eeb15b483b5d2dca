//! The readable text form of programs, expressions and nodes.
//!
//! ```text
//! program @workgroup_size(64, 1, 1) {
//!   buffer input: read u32[1] @binding(0);
//!   buffer out: output u32[1] @binding(1) @readback(0..4);
//!   if (gid.x < 1u) {
//!     out[gid.x] = (input[gid.x] + 1u);
//!   }
//!   return;
//! }
//! ```

use std::fmt::{self, Write};

use crate::ir::{BufferAccess, BufferDecl, Expr, Literal, Node, Program};

impl fmt::Display for Literal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Literal::Bool(b) => write!(f, "{b}"),
            Literal::U32(v) => write!(f, "{v}u"),
            Literal::I32(v) => write!(f, "{v}i"),
            Literal::F32(bits) => {
                let v = f32::from_bits(bits);
                if v.is_finite() {
                    write!(f, "{v:?}f")
                } else {
                    write!(f, "f32_bits(0x{bits:08x})")
                }
            }
        }
    }
}

impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Expr::Lit(lit) => write!(f, "{lit}"),
            Expr::Var(name) => f.write_str(name),
            Expr::Load { buffer, index } => write!(f, "{buffer}[{index}]"),
            Expr::BufLen(buffer) => write!(f, "len({buffer})"),
            Expr::Builtin(b) => f.write_str(&b.name()),
            Expr::Binary { op, lhs, rhs } => match op.symbol() {
                Some(sym) => write!(f, "({lhs} {sym} {rhs})"),
                None => write!(f, "{}({lhs}, {rhs})", op.name()),
            },
            Expr::Unary { op, arg } => match op.symbol() {
                Some(sym) => write!(f, "{sym}{arg}"),
                None => write!(f, "{}({arg})", op.name()),
            },
            Expr::Select {
                cond,
                on_true,
                on_false,
            } => write!(f, "select({cond}, {on_true}, {on_false})"),
            Expr::Cast { to, arg } => write!(f, "{to}({arg})"),
            Expr::Bitcast { to, arg } => write!(f, "bitcast<{to}>({arg})"),
            Expr::Fma { a, b, c } => write!(f, "fma({a}, {b}, {c})"),
            Expr::Atomic {
                op,
                buffer,
                index,
                expected,
                value,
            } => match expected {
                Some(expected) => {
                    write!(f, "{}({buffer}[{index}], {expected}, {value})", op.name())
                }
                None => write!(f, "{}({buffer}[{index}], {value})", op.name()),
            },
        }
    }
}

impl fmt::Display for BufferDecl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "buffer {}: {} {}", self.name, self.access, self.element)?;
        if self.count == 0 {
            f.write_str("[]")?;
        } else {
            write!(f, "[{}]", self.count)?;
        }
        if self.access != BufferAccess::Workgroup {
            write!(f, " @binding({})", self.binding)?;
        }
        if let Some(range) = &self.output_byte_range {
            write!(f, " @readback({}..{})", range.start, range.end)?;
        }
        f.write_str(";")
    }
}

fn write_body(out: &mut String, body: &[Node], depth: usize) -> fmt::Result {
    for node in body {
        write_node(out, node, depth)?;
    }
    Ok(())
}

fn indent(out: &mut String, depth: usize) {
    for _ in 0..depth {
        out.push_str("  ");
    }
}

fn write_node(out: &mut String, node: &Node, depth: usize) -> fmt::Result {
    indent(out, depth);
    match node {
        Node::Let { name, value } => writeln!(out, "let {name} = {value};"),
        Node::Assign { name, value } => writeln!(out, "{name} = {value};"),
        Node::Store {
            buffer,
            index,
            value,
        } => writeln!(out, "{buffer}[{index}] = {value};"),
        Node::If {
            cond,
            then,
            otherwise,
        } => {
            writeln!(out, "if {cond} {{")?;
            write_body(out, then, depth + 1)?;
            if !otherwise.is_empty() {
                indent(out, depth);
                writeln!(out, "}} else {{")?;
                write_body(out, otherwise, depth + 1)?;
            }
            indent(out, depth);
            writeln!(out, "}}")
        }
        Node::Loop {
            var,
            from,
            to,
            body,
        } => {
            writeln!(out, "for {var} in {from}..{to} {{")?;
            write_body(out, body, depth + 1)?;
            indent(out, depth);
            writeln!(out, "}}")
        }
        Node::Block(body) => {
            writeln!(out, "{{")?;
            write_body(out, body, depth + 1)?;
            indent(out, depth);
            writeln!(out, "}}")
        }
        Node::Barrier => writeln!(out, "barrier;"),
        Node::Return => writeln!(out, "return;"),
    }
}

impl fmt::Display for Node {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = String::new();
        write_node(&mut out, self, 0)?;
        f.write_str(out.trim_end())
    }
}

impl fmt::Display for Program {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [x, y, z] = self.workgroup_size;
        let mut out = String::new();
        writeln!(out, "program @workgroup_size({x}, {y}, {z}) {{")?;
        for buffer in &self.buffers {
            writeln!(out, "  {buffer}")?;
        }
        write_body(&mut out, &self.body, 1)?;
        out.push('}');
        f.write_str(&out)
    }
}
