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
//!
//! A private array is declared `var acc: f32[64];` and indexed `acc.[i]` (a load) and
//! `acc.[i] = v;` (a store): the `.` keeps its accesses apart from a buffer's `b[i]` without
//! knowing which names are arrays.
//!
//! The text is exact: `str::parse::<Program>` (`ir/parse/`) reads it back to the same program, field
//! for field. That is why a few things print in a particular way:
//!
//! - Every binary operation is parenthesised, so no precedence is needed to read it.
//! - A float literal prints the shortest decimal that reads back to the same bits (`-0.0f`, `1e-40f`);
//!   infinities and NaNs print their bits, `f32_bits(0x7fc00000)`.
//! - Negating a literal prints `-(1i)`, since `-1i` is the literal minus one.
//! - A name that is not a plain identifier, or is one of [`KEYWORDS`], prints quoted with escapes:
//!   `"9z"`, `"let"`, `""`.
//! - A workgroup buffer's binding is ignored by the IR but kept by the text: it prints
//!   `@binding(n)` when it is not 0.
//! - Nesting past the validator's limits ([`crate::validate::MAX_EXPR_DEPTH`],
//!   [`crate::validate::MAX_NODE_DEPTH`]) prints its first level past them and elides the rest as
//!   `…`: such a program is invalid, and printing it whole could overflow the stack. Every program
//!   `validate` accepts prints whole.

use std::fmt::{self, Write};

use crate::ir::{BufferAccess, BufferDecl, Expr, Literal, Node, Program, UnOp};

/// Words the text form gives a meaning of their own wherever a name may stand, so a name spelled
/// like one of them prints quoted. Function-like words (`len`, `min`, `u32`...) are not among them:
/// a name is never followed by `(`, so `min(a, b)` and a variable `min` cannot be confused.
pub(crate) const KEYWORDS: [&str; 19] = [
    "program", "buffer", "let", "if", "else", "for", "in", "barrier", "return", "true", "false",
    "bitcast", "gid", "lid", "wid", "nwg", "while", "break", "continue",
];

/// True when `name` prints as it is: an ASCII identifier that is not a keyword.
pub(crate) fn is_plain_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !KEYWORDS.contains(&name)
}

/// A buffer or variable name as the text form writes it.
struct Name<'a>(&'a str);

impl fmt::Display for Name<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if is_plain_name(self.0) {
            return f.write_str(self.0);
        }
        f.write_char('"')?;
        for c in self.0.chars() {
            match c {
                '"' => f.write_str("\\\"")?,
                '\\' => f.write_str("\\\\")?,
                '\n' => f.write_str("\\n")?,
                '\t' => f.write_str("\\t")?,
                '\r' => f.write_str("\\r")?,
                c if c.is_control() => write!(f, "\\u{{{:x}}}", u32::from(c))?,
                c => f.write_char(c)?,
            }
        }
        f.write_char('"')
    }
}

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
            Literal::F16(bits) => {
                // Every f16 is an f32, and `{:?}` of that f32 reads back as exactly it.
                let v = crate::ir::f16_bits_to_f32(bits);
                if v.is_finite() {
                    write!(f, "{v:?}h")
                } else {
                    write!(f, "f16_bits(0x{bits:04x})")
                }
            }
            Literal::U64(v) => write!(f, "{v}u64"),
            Literal::I64(v) => write!(f, "{v}i64"),
        }
    }
}

impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_expr(f, self, 0)
    }
}

/// The mark standing for whatever lies past the validator's depth limits. Such a program is invalid
/// (`validate` says which depth), so its text need not read back; printing it whole could overflow
/// the stack (the printer recurses) or, for statements, write text quadratic in the depth.
pub(crate) const ELIDED: &str = "\u{2026}";

/// `expr` at nesting depth `depth` (0 for an expression root), as `Display` prints it.
struct At<'a>(&'a Expr, usize);

impl fmt::Display for At<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_expr(f, self.0, self.1)
    }
}

fn write_expr(f: &mut fmt::Formatter<'_>, expr: &Expr, depth: usize) -> fmt::Result {
    if depth > crate::validate::MAX_EXPR_DEPTH {
        return f.write_str(ELIDED);
    }
    let d = depth + 1;
    match expr {
        Expr::Lit(lit) => write!(f, "{lit}"),
        Expr::Var(name) => write!(f, "{}", Name(name)),
        Expr::Load { buffer, index } => write!(f, "{}[{}]", Name(buffer), At(index, d)),
        Expr::ArrayLoad { array, index } => write!(f, "{}.[{}]", Name(array), At(index, d)),
        Expr::BufLen(buffer) => write!(f, "len({})", Name(buffer)),
        Expr::Builtin(b) => f.write_str(&b.name()),
        Expr::Binary { op, lhs, rhs } => match op.symbol() {
            Some(sym) => write!(f, "({} {sym} {})", At(lhs, d), At(rhs, d)),
            None => write!(f, "{}({}, {})", op.name(), At(lhs, d), At(rhs, d)),
        },
        Expr::Unary { op, arg } => match op.symbol() {
            // `-1i` is a literal; the negation of one is `-(1i)`.
            Some(sym) if *op == UnOp::Neg && matches!(**arg, Expr::Lit(_)) => {
                write!(f, "{sym}({})", At(arg, d))
            }
            Some(sym) => write!(f, "{sym}{}", At(arg, d)),
            None => write!(f, "{}({})", op.name(), At(arg, d)),
        },
        Expr::Select {
            cond,
            on_true,
            on_false,
        } => write!(
            f,
            "select({}, {}, {})",
            At(cond, d),
            At(on_true, d),
            At(on_false, d)
        ),
        Expr::Cast { to, arg } => write!(f, "{to}({})", At(arg, d)),
        Expr::Bitcast { to, arg } => write!(f, "bitcast<{to}>({})", At(arg, d)),
        Expr::Fma { a, b, c } => write!(f, "fma({}, {}, {})", At(a, d), At(b, d), At(c, d)),
        Expr::Atomic {
            op,
            buffer,
            index,
            expected,
            value,
        } => match expected {
            Some(expected) => write!(
                f,
                "{}({}[{}], {}, {})",
                op.name(),
                Name(buffer),
                At(index, d),
                At(expected, d),
                At(value, d)
            ),
            None => write!(
                f,
                "{}({}[{}], {})",
                op.name(),
                Name(buffer),
                At(index, d),
                At(value, d)
            ),
        },
        Expr::Subgroup { op, arg } => write!(f, "{}({})", op.name(), At(arg, d)),
        Expr::SubgroupShuffle { value, lane } => write!(
            f,
            "{}({}, {})",
            crate::ir::builtin::SUBGROUP_SHUFFLE,
            At(value, d),
            At(lane, d)
        ),
    }
}

impl fmt::Display for BufferDecl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "buffer {}: {} {}",
            Name(&self.name),
            self.access,
            self.element
        )?;
        if self.count == 0 {
            f.write_str("[]")?;
        } else {
            write!(f, "[{}]", self.count)?;
        }
        if self.access != BufferAccess::Workgroup || self.binding != 0 {
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
    // `depth` counts the program's own body as 1 (its indentation); the validator counts it as 0.
    // As for expressions, the first level past the limit still prints (the parser then names the
    // depth); the ones below it are elided.
    if depth > crate::validate::MAX_NODE_DEPTH + 2 {
        indent(out, depth.min(crate::validate::MAX_NODE_DEPTH + 3));
        return writeln!(out, "{ELIDED}");
    }
    indent(out, depth);
    match node {
        Node::Let { name, value } => writeln!(out, "let {} = {value};", Name(name)),
        Node::Assign { name, value } => writeln!(out, "{} = {value};", Name(name)),
        Node::Store {
            buffer,
            index,
            value,
        } => writeln!(out, "{}[{index}] = {value};", Name(buffer)),
        Node::PrivateArray { name, element, len } => {
            writeln!(out, "var {}: {element}[{len}];", Name(name))
        }
        Node::ArrayStore {
            array,
            index,
            value,
        } => writeln!(out, "{}.[{index}] = {value};", Name(array)),
        Node::Tile { name, tile } => writeln!(
            out,
            "tile {}: {}<{}, {}, {}>;",
            Name(name),
            tile.role.word(),
            tile.element,
            tile.rows,
            tile.columns
        ),
        Node::TileLoad {
            tile,
            buffer,
            offset,
            stride,
            layout,
        } => writeln!(
            out,
            "tile_load({}, {}, {offset}, {stride}, {});",
            Name(tile),
            Name(buffer),
            layout.word()
        ),
        Node::TileStore {
            tile,
            buffer,
            offset,
            stride,
            layout,
        } => writeln!(
            out,
            "tile_store({}, {}, {offset}, {stride}, {});",
            Name(tile),
            Name(buffer),
            layout.word()
        ),
        Node::TileMultiplyAdd { target, a, b, c } => writeln!(
            out,
            "tile_multiply_add({}, {}, {}, {});",
            Name(target),
            Name(a),
            Name(b),
            Name(c)
        ),
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
            writeln!(out, "for {} in {from}..{to} {{", Name(var))?;
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
        Node::While { cond, body } => {
            writeln!(out, "while {cond} {{")?;
            write_body(out, body, depth + 1)?;
            indent(out, depth);
            writeln!(out, "}}")
        }
        Node::Barrier => writeln!(out, "barrier;"),
        Node::Return => writeln!(out, "return;"),
        Node::Break => writeln!(out, "break;"),
        Node::Continue => writeln!(out, "continue;"),
        // The statement reads as the expression would, with the old value dropped by the `;`.
        Node::Atomic {
            op,
            buffer,
            index,
            expected,
            value,
        } => match expected {
            Some(expected) => writeln!(
                out,
                "{}({}[{index}], {expected}, {value});",
                op.name(),
                Name(buffer)
            ),
            None => writeln!(out, "{}({}[{index}], {value});", op.name(), Name(buffer)),
        },
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
