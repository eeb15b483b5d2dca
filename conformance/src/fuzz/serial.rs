//! A JSON form of [`Program`] for regression files.
//!
//! The foundation types carry no serde derives (they are the IR's public contract), so this module
//! mirrors them in small private types and converts both ways. Operators, types and builtins are
//! written by their text-form names, literals as their type and bits, so a file reads much like the
//! program's `Display` form and survives reordering of the IR's enums.

use serde::{Deserialize, Serialize};
use vyre_foundation::ir::{
    AtomicOp, Axis, BinOp, BufferAccess, BufferDecl, Builtin, DataType, Expr, Literal, Node,
    Program, UnOp,
};

/// A program in serialisable form.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProgramJson {
    workgroup_size: [u32; 3],
    buffers: Vec<BufferJson>,
    body: Vec<NodeJson>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
struct BufferJson {
    name: String,
    binding: u32,
    access: String,
    element: String,
    count: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    readback: Option<[usize; 2]>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum NodeJson {
    Let {
        name: String,
        value: ExprJson,
    },
    Assign {
        name: String,
        value: ExprJson,
    },
    Store {
        buffer: String,
        index: ExprJson,
        value: ExprJson,
    },
    If {
        cond: ExprJson,
        then: Vec<NodeJson>,
        otherwise: Vec<NodeJson>,
    },
    Loop {
        var: String,
        from: ExprJson,
        to: ExprJson,
        body: Vec<NodeJson>,
    },
    Block {
        body: Vec<NodeJson>,
    },
    Barrier,
    Return,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum ExprJson {
    Lit {
        ty: String,
        bits: u32,
    },
    Var {
        name: String,
    },
    Load {
        buffer: String,
        index: Box<ExprJson>,
    },
    BufLen {
        buffer: String,
    },
    Builtin {
        name: String,
    },
    Binary {
        op: String,
        lhs: Box<ExprJson>,
        rhs: Box<ExprJson>,
    },
    Unary {
        op: String,
        arg: Box<ExprJson>,
    },
    Select {
        cond: Box<ExprJson>,
        on_true: Box<ExprJson>,
        on_false: Box<ExprJson>,
    },
    Cast {
        to: String,
        arg: Box<ExprJson>,
    },
    Bitcast {
        to: String,
        arg: Box<ExprJson>,
    },
    Fma {
        a: Box<ExprJson>,
        b: Box<ExprJson>,
        c: Box<ExprJson>,
    },
    Atomic {
        op: String,
        buffer: String,
        index: Box<ExprJson>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        expected: Option<Box<ExprJson>>,
        value: Box<ExprJson>,
    },
}

const ACCESSES: [BufferAccess; 5] = [
    BufferAccess::Read,
    BufferAccess::ReadWrite,
    BufferAccess::Output,
    BufferAccess::Uniform,
    BufferAccess::Workgroup,
];

impl ProgramJson {
    /// The serialisable form of `program`.
    #[must_use]
    pub fn from_program(program: &Program) -> Self {
        ProgramJson {
            workgroup_size: program.workgroup_size,
            buffers: program.buffers.iter().map(buffer_json).collect(),
            body: program.body.iter().map(node_json).collect(),
        }
    }

    /// The program this form describes.
    ///
    /// # Errors
    ///
    /// A message naming the first unknown operator, type, access or builtin name.
    pub fn to_program(&self) -> Result<Program, String> {
        let buffers = self
            .buffers
            .iter()
            .map(buffer_ir)
            .collect::<Result<_, _>>()?;
        let body = nodes_ir(&self.body)?;
        Ok(Program::new(buffers, self.workgroup_size, body))
    }
}

fn buffer_json(b: &BufferDecl) -> BufferJson {
    BufferJson {
        name: b.name.clone(),
        binding: b.binding,
        access: b.access.name().to_owned(),
        element: b.element.name().to_owned(),
        count: b.count,
        readback: b.output_byte_range.as_ref().map(|r| [r.start, r.end]),
    }
}

fn buffer_ir(b: &BufferJson) -> Result<BufferDecl, String> {
    Ok(BufferDecl {
        name: b.name.clone(),
        binding: b.binding,
        access: by_name(&ACCESSES, &b.access, |a| a.name())?,
        element: data_type(&b.element)?,
        count: b.count,
        output_byte_range: b.readback.map(|[s, e]| s..e),
    })
}

fn by_name<T: Copy>(all: &[T], name: &str, f: impl Fn(&T) -> &'static str) -> Result<T, String> {
    all.iter()
        .copied()
        .find(|x| f(x) == name)
        .ok_or_else(|| format!("unknown name `{name}` in a regression file"))
}

fn data_type(name: &str) -> Result<DataType, String> {
    by_name(&DataType::ALL, name, |t| t.name())
}

fn node_json(node: &Node) -> NodeJson {
    let body = |b: &[Node]| b.iter().map(node_json).collect();
    match node {
        Node::Let { name, value } => NodeJson::Let {
            name: name.clone(),
            value: expr_json(value),
        },
        Node::Assign { name, value } => NodeJson::Assign {
            name: name.clone(),
            value: expr_json(value),
        },
        Node::Store {
            buffer,
            index,
            value,
        } => NodeJson::Store {
            buffer: buffer.clone(),
            index: expr_json(index),
            value: expr_json(value),
        },
        Node::If {
            cond,
            then,
            otherwise,
        } => NodeJson::If {
            cond: expr_json(cond),
            then: body(then),
            otherwise: body(otherwise),
        },
        Node::Loop {
            var,
            from,
            to,
            body: b,
        } => NodeJson::Loop {
            var: var.clone(),
            from: expr_json(from),
            to: expr_json(to),
            body: body(b),
        },
        Node::Block(b) => NodeJson::Block { body: body(b) },
        Node::Barrier => NodeJson::Barrier,
        Node::Return => NodeJson::Return,
    }
}

fn nodes_ir(nodes: &[NodeJson]) -> Result<Vec<Node>, String> {
    nodes.iter().map(node_ir).collect()
}

fn node_ir(node: &NodeJson) -> Result<Node, String> {
    Ok(match node {
        NodeJson::Let { name, value } => Node::let_bind(name.as_str(), expr_ir(value)?),
        NodeJson::Assign { name, value } => Node::assign(name.as_str(), expr_ir(value)?),
        NodeJson::Store {
            buffer,
            index,
            value,
        } => Node::store(buffer.as_str(), expr_ir(index)?, expr_ir(value)?),
        NodeJson::If {
            cond,
            then,
            otherwise,
        } => Node::if_then_else(expr_ir(cond)?, nodes_ir(then)?, nodes_ir(otherwise)?),
        NodeJson::Loop {
            var,
            from,
            to,
            body,
        } => Node::loop_for(var.as_str(), expr_ir(from)?, expr_ir(to)?, nodes_ir(body)?),
        NodeJson::Block { body } => Node::Block(nodes_ir(body)?),
        NodeJson::Barrier => Node::Barrier,
        NodeJson::Return => Node::Return,
    })
}

fn boxed(e: &Expr) -> Box<ExprJson> {
    Box::new(expr_json(e))
}

fn expr_json(expr: &Expr) -> ExprJson {
    match expr {
        Expr::Lit(lit) => ExprJson::Lit {
            ty: lit.ty().name().to_owned(),
            bits: lit.to_bits(),
        },
        Expr::Var(name) => ExprJson::Var { name: name.clone() },
        Expr::Load { buffer, index } => ExprJson::Load {
            buffer: buffer.clone(),
            index: boxed(index),
        },
        Expr::BufLen(buffer) => ExprJson::BufLen {
            buffer: buffer.clone(),
        },
        Expr::Builtin(b) => ExprJson::Builtin { name: b.name() },
        Expr::Binary { op, lhs, rhs } => ExprJson::Binary {
            op: op.name().to_owned(),
            lhs: boxed(lhs),
            rhs: boxed(rhs),
        },
        Expr::Unary { op, arg } => ExprJson::Unary {
            op: op.name().to_owned(),
            arg: boxed(arg),
        },
        Expr::Select {
            cond,
            on_true,
            on_false,
        } => ExprJson::Select {
            cond: boxed(cond),
            on_true: boxed(on_true),
            on_false: boxed(on_false),
        },
        Expr::Cast { to, arg } => ExprJson::Cast {
            to: to.name().to_owned(),
            arg: boxed(arg),
        },
        Expr::Bitcast { to, arg } => ExprJson::Bitcast {
            to: to.name().to_owned(),
            arg: boxed(arg),
        },
        Expr::Fma { a, b, c } => ExprJson::Fma {
            a: boxed(a),
            b: boxed(b),
            c: boxed(c),
        },
        Expr::Atomic {
            op,
            buffer,
            index,
            expected,
            value,
        } => ExprJson::Atomic {
            op: op.name().to_owned(),
            buffer: buffer.clone(),
            index: boxed(index),
            expected: expected.as_deref().map(boxed),
            value: boxed(value),
        },
    }
}

fn expr_ir(expr: &ExprJson) -> Result<Expr, String> {
    let e = |x: &ExprJson| expr_ir(x);
    Ok(match expr {
        ExprJson::Lit { ty, bits } => Expr::Lit(literal(data_type(ty)?, *bits)),
        ExprJson::Var { name } => Expr::var(name.as_str()),
        ExprJson::Load { buffer, index } => Expr::load(buffer.as_str(), e(index)?),
        ExprJson::BufLen { buffer } => Expr::buf_len(buffer.as_str()),
        ExprJson::Builtin { name } => Expr::Builtin(builtin(name)?),
        ExprJson::Binary { op, lhs, rhs } => {
            Expr::binary(by_name(BinOp::ALL, op, |o| o.name())?, e(lhs)?, e(rhs)?)
        }
        ExprJson::Unary { op, arg } => Expr::unary(by_name(UnOp::ALL, op, |o| o.name())?, e(arg)?),
        ExprJson::Select {
            cond,
            on_true,
            on_false,
        } => Expr::select(e(cond)?, e(on_true)?, e(on_false)?),
        ExprJson::Cast { to, arg } => Expr::cast(data_type(to)?, e(arg)?),
        ExprJson::Bitcast { to, arg } => Expr::bitcast(data_type(to)?, e(arg)?),
        ExprJson::Fma { a, b, c } => Expr::fma(e(a)?, e(b)?, e(c)?),
        ExprJson::Atomic {
            op,
            buffer,
            index,
            expected,
            value,
        } => Expr::Atomic {
            op: by_name(AtomicOp::ALL, op, |o| o.name())?,
            buffer: buffer.clone(),
            index: Box::new(e(index)?),
            expected: match expected {
                Some(x) => Some(Box::new(e(x)?)),
                None => None,
            },
            value: Box::new(e(value)?),
        },
    })
}

fn literal(ty: DataType, bits: u32) -> Literal {
    match ty {
        DataType::Bool => Literal::Bool(bits != 0),
        DataType::U32 => Literal::U32(bits),
        DataType::I32 => Literal::I32(bits as i32),
        _ => Literal::F32(bits),
    }
}

fn builtin(name: &str) -> Result<Builtin, String> {
    let axes = [Axis::X, Axis::Y, Axis::Z];
    let all = axes.iter().flat_map(|&a| {
        [
            Builtin::GlobalId(a),
            Builtin::LocalId(a),
            Builtin::WorkgroupId(a),
            Builtin::NumWorkgroups(a),
        ]
    });
    let mut all = all;
    all.find(|b| b.name() == name)
        .ok_or_else(|| format!("unknown builtin `{name}` in a regression file"))
}
