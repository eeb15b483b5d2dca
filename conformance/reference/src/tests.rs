//! Unit tests of the reference backend's machinery that need its internals: programs the validator
//! rejects (to provoke a barrier mismatch at run time) are compiled and run directly.

use vyre_driver::{BackendError, DispatchConfig};
use vyre_foundation::ir::{BufferDecl, DataType, Expr, Node, Program};

use crate::compile::compile;

/// Compiles and runs `program`, whose barriers may be in divergent control flow (which validation
/// rejects).
fn run_unvalidated(program: &Program, grid: [u32; 3]) -> Result<Vec<Vec<u8>>, BackendError> {
    let evidence = vyre_foundation::validate::validate_allowing_divergent_barriers(program)?;
    let code = compile(&evidence)?;
    let config = DispatchConfig::new().with_grid(grid);
    let plan = vyre_driver::plan_dispatch(program, &[], &config)?;
    super::run::<false>(&code, program, &plan, &[], &config).map(|r| r.outputs)
}

fn barrier_program(body: Vec<Node>) -> Program {
    Program::wrapped(
        vec![
            BufferDecl::output("out", 0, DataType::U32).with_count(64),
            BufferDecl::workgroup("shared", 64, DataType::U32),
        ],
        [8, 1, 1],
        body,
    )
}

fn assert_barrier_error(result: Result<Vec<Vec<u8>>, BackendError>, what: &str) {
    match result {
        Ok(_) => panic!("{what}: the dispatch succeeded; expected a barrier error"),
        Err(error) => {
            let message = error.to_string();
            assert_eq!(error.kind_name(), "Other", "{what}: {message}");
            assert!(
                message.contains("barrier was reached by"),
                "{what}: {message}"
            );
            assert!(message.contains("Fix:"), "{what}: {message}");
        }
    }
}

#[test]
fn validator_rejects_the_misuse_programs_used_below() {
    let program = barrier_program(vec![Node::if_then(
        Expr::lt(Expr::local_x(), Expr::u32(4)),
        vec![Node::barrier()],
    )]);
    assert!(vyre_foundation::validate(&program).is_err());
}

#[test]
fn barrier_in_a_divergent_branch_is_an_error_not_a_hang() {
    let program = barrier_program(vec![Node::if_then(
        Expr::lt(Expr::local_x(), Expr::u32(4)),
        vec![Node::barrier()],
    )]);
    assert_barrier_error(
        run_unvalidated(&program, [2, 1, 1]),
        "barrier under lid < 4",
    );
}

#[test]
fn barrier_after_a_partial_return_is_an_error() {
    let program = barrier_program(vec![
        Node::if_then(
            Expr::eq(Expr::local_x(), Expr::u32(3)),
            vec![Node::return_()],
        ),
        Node::barrier(),
    ]);
    let result = run_unvalidated(&program, [1, 1, 1]);
    assert_barrier_error(result, "barrier after invocation 3 returned");
}

#[test]
fn barrier_in_a_loop_with_per_invocation_trip_counts_is_an_error() {
    let program = barrier_program(vec![Node::loop_for(
        "i",
        Expr::u32(0),
        Expr::local_x(),
        vec![Node::barrier()],
    )]);
    assert_barrier_error(
        run_unvalidated(&program, [1, 1, 1]),
        "barrier in loop 0..lid",
    );
}

#[test]
fn barrier_reached_by_every_invocation_passes_and_orders_memory() {
    // Each invocation writes its slot, then after the barrier reads its neighbour's.
    let lid = Expr::local_x();
    let program = barrier_program(vec![
        Node::store("shared", lid.clone(), Expr::mul(lid.clone(), Expr::u32(10))),
        Node::barrier(),
        Node::store(
            "out",
            Expr::gid_x(),
            Expr::load(
                "shared",
                Expr::rem(Expr::add(lid, Expr::u32(1)), Expr::u32(8)),
            ),
        ),
    ]);
    let out = run_unvalidated(&program, [2, 1, 1]).expect("a uniform barrier runs");
    let words: Vec<u32> = out[0]
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .take(16)
        .collect();
    let expected: Vec<u32> = (0..16u32).map(|g| ((g % 8 + 1) % 8) * 10).collect();
    assert_eq!(words, expected);
}

#[test]
fn a_program_with_unknown_names_never_reaches_the_compiler() {
    // The compiler takes only validated evidence, so unknown names stop at validation, even on the
    // path that lets divergent barriers through.
    let program = barrier_program(vec![Node::store("nope", Expr::u32(0), Expr::var("ghost"))]);
    let error = run_unvalidated(&program, [1, 1, 1]).expect_err("unknown names are invalid");
    assert_eq!(error.kind_name(), "InvalidProgram", "{error}");
    assert!(error.to_string().contains("Fix:"));
}
