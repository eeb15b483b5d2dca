//! Programs shared by the foundation's tests.

#![allow(dead_code, unreachable_pub)]

use vyre_foundation::ir::{
    AtomicOp, Axis, BinOp, BufferDecl, Builtin, DataType, Expr, Literal, Node, Program, UnOp,
};

/// The upstream seed's `add_one_program`, built exactly as its test builds it.
pub fn add_one_program(words: u32) -> Program {
    let idx = Expr::gid_x();
    let in_bounds = Expr::lt(idx.clone(), Expr::u32(words));
    Program::wrapped(
        vec![
            BufferDecl::read("input", 0, DataType::U32).with_count(words),
            BufferDecl::output("out", 1, DataType::U32)
                .with_count(words)
                .with_output_byte_range(0..(words as usize * 4)),
        ],
        [64, 1, 1],
        vec![
            Node::if_then(
                in_bounds,
                vec![Node::store(
                    "out",
                    idx.clone(),
                    Expr::add(Expr::load("input", idx), Expr::u32(1)),
                )],
            ),
            Node::return_(),
        ],
    )
}

/// A program with the standard buffers `a: read u32[16]`, `f: read f32[16]`, `o: output u32[16]`,
/// `rw: read_write i32[16]`, `u: uniform u32[4]`, `wg: workgroup u32[64]` and the given body.
pub fn with_body(body: Vec<Node>) -> Program {
    Program::wrapped(
        vec![
            BufferDecl::read("a", 0, DataType::U32).with_count(16),
            BufferDecl::read("f", 1, DataType::F32).with_count(16),
            BufferDecl::output("o", 2, DataType::U32).with_count(16),
            BufferDecl::read_write("rw", 3, DataType::I32).with_count(16),
            BufferDecl::uniform("u", 4, DataType::U32).with_count(4),
            BufferDecl::workgroup("wg", 64, DataType::U32),
        ],
        [64, 1, 1],
        body,
    )
}

/// Every expression and statement form, every builtin, every literal type, every operator.
pub fn every_form() -> Program {
    let mut body = vec![
        Node::let_bind("b", Expr::bool(true)),
        Node::let_bind("u", Expr::u32(u32::MAX)),
        Node::let_bind("i", Expr::i32(i32::MIN)),
        Node::let_bind("f", Expr::f32(-0.0)),
        Node::let_bind("nan", Expr::Lit(Literal::F32(0x7fc0_0001))),
        Node::assign("u", Expr::buf_len("a")),
        Node::store("o", Expr::load("a", Expr::var("u")), Expr::var("u")),
        Node::let_bind(
            "s",
            Expr::select(Expr::var("b"), Expr::var("f"), Expr::f32(1.5)),
        ),
        Node::let_bind(
            "m",
            Expr::fma(Expr::var("f"), Expr::f32(2.0), Expr::f32(1e-40)),
        ),
        Node::let_bind("c", Expr::cast(DataType::I32, Expr::var("f"))),
        Node::let_bind("bc", Expr::bitcast(DataType::F32, Expr::var("u"))),
        Node::let_bind(
            "cx",
            Expr::atomic_compare_exchange("rw", Expr::u32(0), Expr::i32(1), Expr::i32(2)),
        ),
        Node::if_then_else(
            Expr::var("b"),
            vec![Node::barrier()],
            vec![Node::block(vec![Node::return_()])],
        ),
        Node::loop_for("k", Expr::u32(0), Expr::u32(4), vec![Node::barrier()]),
        Node::loop_while(
            Expr::var("b"),
            vec![
                Node::if_then(Expr::var("b"), vec![Node::break_()]),
                Node::continue_(),
            ],
        ),
        Node::atomic_compare_exchange("rw", Expr::u32(3), Expr::i32(-1), Expr::i32(4)),
    ];
    for axis in [Axis::X, Axis::Y, Axis::Z] {
        for b in [
            Builtin::GlobalId(axis),
            Builtin::LocalId(axis),
            Builtin::WorkgroupId(axis),
            Builtin::NumWorkgroups(axis),
        ] {
            body.push(Node::let_bind(b.name().replace('.', "_"), Expr::Builtin(b)));
        }
    }
    for op in BinOp::ALL {
        body.push(Node::let_bind(
            op.name(),
            Expr::binary(*op, Expr::var("u"), Expr::i32(-3)),
        ));
    }
    for op in UnOp::ALL {
        body.push(Node::let_bind(op.name(), Expr::unary(*op, Expr::var("f"))));
    }
    for op in AtomicOp::ALL {
        body.push(Node::let_bind(
            op.name(),
            Expr::atomic(*op, "rw", Expr::u32(1), Expr::i32(7)),
        ));
        body.push(Node::atomic(*op, "rw", Expr::u32(2), Expr::i32(-7)));
    }
    let mut program = with_body(body);
    program.buffers.push(
        BufferDecl::output("late", 9, DataType::Bool)
            .with_count(3)
            .with_output_byte_range(usize::MAX - 1..usize::MAX),
    );
    // A workgroup buffer ignores its binding, but the wire keeps it like every other field.
    let mut shared = BufferDecl::workgroup("wgb", 8, DataType::I32);
    shared.binding = 77;
    program.buffers.push(shared);
    program
}
