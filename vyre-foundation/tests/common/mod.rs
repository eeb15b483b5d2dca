//! Programs shared by the foundation's tests.

#![allow(dead_code, unreachable_pub)]

use vyre_foundation::ir::{BufferDecl, DataType, Expr, Node, Program};

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
