//! Programs that tests across the workspace share.

use vyre_foundation::ir::{BufferDecl, DataType, Expr, Node, Program};

/// The upstream seed's `add_one_program`, built exactly as its test builds it: `out[i] = input[i] + 1`
/// for `i < words`, on 64-wide workgroups, with the whole output as the readback range.
#[must_use]
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
