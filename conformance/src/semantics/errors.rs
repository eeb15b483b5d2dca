//! Bad dispatches (`SEMANTICS.md` sections 1 and 9): every backend rejects them with the same
//! error variant, whose message ends with a `Fix:`.

use vyre_driver::{DispatchConfig, VyreBackend};
use vyre_foundation::ir::{BufferDecl, DataType, Expr, Node, Program};

use crate::semantics::harness::{bytes_u32, expect_error};

fn two_input_program() -> Program {
    Program::wrapped(
        vec![
            BufferDecl::read("fixed", 0, DataType::U32).with_count(4),
            BufferDecl::read("dynamic", 1, DataType::U32),
            BufferDecl::output("out", 2, DataType::U32).with_count(4),
        ],
        [4, 1, 1],
        vec![Node::store(
            "out",
            Expr::gid_x(),
            Expr::add(
                Expr::load("fixed", Expr::gid_x()),
                Expr::load("dynamic", Expr::gid_x()),
            ),
        )],
    )
}

/// Wrong input count, a length that is not a whole number of elements, an input longer than its
/// declared count, and an empty runtime-sized input are all `InputMismatch`.
pub fn bad_inputs_are_input_mismatch(backend: &dyn VyreBackend) {
    let case = "bad_inputs_are_input_mismatch";
    let program = two_input_program();
    let ok = bytes_u32(&[1, 2, 3, 4]);
    let config = DispatchConfig::default();
    let cases: [(&str, Vec<Vec<u8>>); 6] = [
        ("no inputs", vec![]),
        ("one input of two", vec![ok.clone()]),
        (
            "three inputs of two",
            vec![ok.clone(), ok.clone(), ok.clone()],
        ),
        ("a 6-byte input", vec![vec![0; 6], ok.clone()]),
        (
            "5 elements for a 4-element buffer",
            vec![bytes_u32(&[1, 2, 3, 4, 5]), ok.clone()],
        ),
        ("an empty runtime-sized input", vec![ok.clone(), vec![]]),
    ];
    for (what, inputs) in cases {
        expect_error(
            backend,
            &format!("{case}: {what}"),
            &program,
            &inputs,
            &config,
            "InputMismatch",
        );
    }
}

/// A grid with a zero dimension is `InvalidConfig`; an invalid program is `InvalidProgram`.
pub fn bad_grid_and_program_are_rejected(backend: &dyn VyreBackend) {
    let case = "bad_grid_and_program_are_rejected";
    let program = two_input_program();
    let inputs = [bytes_u32(&[1, 2, 3, 4]), bytes_u32(&[5])];
    for grid in [[0, 1, 1], [1, 0, 1], [1, 1, 0]] {
        let config = DispatchConfig::new().with_grid(grid);
        expect_error(
            backend,
            &format!("{case}: grid {grid:?}"),
            &program,
            &inputs,
            &config,
            "InvalidConfig",
        );
    }
    let invalid = Program::wrapped(
        vec![BufferDecl::read("ro", 0, DataType::U32).with_count(4)],
        [4, 1, 1],
        vec![Node::store("ro", Expr::gid_x(), Expr::f32(1.0))],
    );
    let config = DispatchConfig::default();
    expect_error(
        backend,
        &format!("{case}: store into a read buffer"),
        &invalid,
        &[vec![]],
        &config,
        "InvalidProgram",
    );
}
