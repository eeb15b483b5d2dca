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
    super::run::<false>(&code, program, &plan, &[], (&config, 32)).map(|r| r.outputs)
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

/// Runs a valid program on one workgroup of 8 and returns the first 8 words of `out`.
fn words(program: &Program) -> Vec<u32> {
    let out = run_unvalidated(program, [1, 1, 1]).expect("the program runs");
    out[0]
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .take(8)
        .collect()
}

fn counted(body: Vec<Node>) -> Node {
    Node::loop_for("i", Expr::u32(0), Expr::u32(10), body)
}

fn bump(by: Expr) -> Node {
    Node::assign("acc", Expr::add(Expr::var("acc"), by))
}

#[test]
fn continue_skips_the_rest_and_still_steps_break_leaves_at_the_invocations_own_iteration() {
    // Invocation l: skip i = 2, leave at i = l + 3; acc sums the rest of 0..l+3.
    let program = barrier_program(vec![
        Node::let_bind("acc", Expr::u32(0)),
        counted(vec![
            Node::if_then(
                Expr::eq(Expr::var("i"), Expr::u32(2)),
                vec![Node::continue_()],
            ),
            Node::if_then(
                Expr::eq(Expr::var("i"), Expr::add(Expr::local_x(), Expr::u32(3))),
                vec![Node::break_()],
            ),
            bump(Expr::var("i")),
        ]),
        Node::barrier(),
        Node::store("out", Expr::gid_x(), Expr::var("acc")),
    ]);
    assert!(vyre_foundation::validate(&program).is_ok());
    let expected: Vec<u32> = (0..8u32)
        .map(|l| (0..10u32.min(l + 3)).filter(|&i| i != 2).sum())
        .collect();
    assert_eq!(words(&program), expected);
}

#[test]
fn break_in_an_inner_loop_leaves_only_that_loop() {
    let program = barrier_program(vec![
        Node::let_bind("acc", Expr::u32(0)),
        counted(vec![Node::loop_for(
            "j",
            Expr::u32(0),
            Expr::u32(5),
            vec![
                Node::if_then(
                    Expr::ge(Expr::var("j"), Expr::local_x()),
                    vec![Node::break_()],
                ),
                bump(Expr::u32(1)),
            ],
        )]),
        Node::store("out", Expr::gid_x(), Expr::var("acc")),
    ]);
    let expected: Vec<u32> = (0..8u32).map(|l| 10 * l.min(5)).collect();
    assert_eq!(words(&program), expected);
}

#[test]
fn while_reevaluates_its_condition_and_may_not_run_at_all() {
    // Invocation l counts down from l: l iterations; invocation 0 never enters.
    let program = barrier_program(vec![
        Node::let_bind("n", Expr::local_x()),
        Node::let_bind("acc", Expr::u32(100)),
        Node::loop_while(
            Expr::gt(Expr::var("n"), Expr::u32(0)),
            vec![
                Node::assign("n", Expr::sub(Expr::var("n"), Expr::u32(1))),
                Node::if_then(
                    Expr::eq(Expr::var("n"), Expr::u32(1)),
                    vec![Node::continue_()],
                ),
                bump(Expr::u32(1)),
            ],
        ),
        Node::store("out", Expr::gid_x(), Expr::var("acc")),
    ]);
    let expected: Vec<u32> = (0..8u32).map(|l| 100 + l - u32::from(l >= 2)).collect();
    assert_eq!(words(&program), expected);
}

#[test]
fn atomic_statements_update_memory_and_drop_the_old_value() {
    let program = Program::wrapped(
        vec![BufferDecl::output("out", 0, DataType::U32).with_count(64)],
        [8, 1, 1],
        vec![
            Node::atomic(
                vyre_foundation::ir::AtomicOp::Add,
                "out",
                Expr::u32(0),
                Expr::local_x(),
            ),
            Node::atomic_compare_exchange("out", Expr::u32(1), Expr::u32(0), Expr::u32(9)),
        ],
    );
    let evidence = vyre_foundation::validate(&program).expect("valid");
    let code = compile(&evidence).expect("compiles");
    let config = DispatchConfig::new().with_grid([1, 1, 1]);
    let plan = vyre_driver::plan_dispatch(&program, &[], &config).expect("plan");
    let out = super::run::<false>(&code, &program, &plan, &[], (&config, 32))
        .expect("runs")
        .outputs;
    let word = |i: usize| {
        u32::from_le_bytes([
            out[0][4 * i],
            out[0][4 * i + 1],
            out[0][4 * i + 2],
            out[0][4 * i + 3],
        ])
    };
    assert_eq!((word(0), word(1)), (28, 9));
}

#[test]
fn a_while_that_never_ends_runs_out_of_fuel() {
    let program = barrier_program(vec![Node::loop_while(Expr::bool(true), vec![])]);
    let evidence = vyre_foundation::validate(&program).expect("valid");
    let code = compile(&evidence).expect("compiles");
    let config = DispatchConfig::new()
        .with_grid([1, 1, 1])
        .with_fuel(1_000_000);
    let plan = vyre_driver::plan_dispatch(&program, &[], &config).expect("plan");
    let error = super::run::<false>(&code, &program, &plan, &[], (&config, 32))
        .expect_err("the loop never ends");
    assert_eq!(error.kind_name(), "Timeout", "{error}");
    assert!(error.to_string().contains("Fix:"), "{error}");
}

#[test]
fn barrier_after_a_partial_break_in_the_loop_is_an_error() {
    let program = barrier_program(vec![counted(vec![
        Node::if_then(
            Expr::eq(Expr::local_x(), Expr::u32(3)),
            vec![Node::break_()],
        ),
        Node::barrier(),
    ])]);
    assert!(vyre_foundation::validate(&program).is_err());
    assert_barrier_error(
        run_unvalidated(&program, [1, 1, 1]),
        "barrier after invocation 3 broke",
    );
}

/// `out[gid.x] = a.[idx]` after `a.[k] = 10 + k + gid.x` for `k < 4`, on a private `a: T[4]`.
fn private_array_program(element: DataType, idx: Expr) -> Program {
    let value = |k: u32| Expr::cast(element, Expr::add(Expr::u32(10 + k), Expr::gid_x()));
    let mut body = vec![Node::private_array("a", element, 4)];
    for k in 0..4 {
        body.push(Node::array_store("a", Expr::u32(k), value(k)));
    }
    // An out-of-bounds store is dropped (it would otherwise change element 0 or 3).
    body.push(Node::array_store("a", Expr::u32(4), value(99)));
    body.push(Node::array_store("a", Expr::i32(-1), value(99)));
    body.push(Node::store(
        "out",
        Expr::gid_x(),
        Expr::cast(DataType::U32, Expr::array_load("a", idx)),
    ));
    Program::new(
        vec![BufferDecl::output("out", 0, DataType::U32).with_count(4)],
        [4, 1, 1],
        body,
    )
}

#[test]
fn private_arrays_are_per_invocation_zeroed_and_bounds_checked() {
    use vyre_driver::VyreBackend;
    let backend = crate::ReferenceBackend::new();
    let words = |bytes: &[u8]| -> Vec<u32> {
        bytes
            .chunks(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect()
    };
    for element in [DataType::U32, DataType::I32, DataType::F32, DataType::U64] {
        // In bounds: invocation i reads its own `12 + i`.
        let p = private_array_program(element, Expr::u32(2));
        let out = backend
            .dispatch(&p, &[], &DispatchConfig::new())
            .expect("runs");
        assert_eq!(words(&out[0]), [12, 13, 14, 15], "{element}");
        // Out of bounds (4, and -1 as an i32) reads 0.
        for idx in [Expr::u32(4), Expr::i32(-1)] {
            let p = private_array_program(element, idx);
            let out = backend
                .dispatch(&p, &[], &DispatchConfig::new())
                .expect("runs");
            assert_eq!(words(&out[0]), [0, 0, 0, 0], "{element}");
        }
    }
    // A declaration in a loop body zeroes the array every iteration.
    let p = Program::new(
        vec![BufferDecl::output("out", 0, DataType::U32).with_count(1)],
        [1, 1, 1],
        vec![Node::loop_for(
            "i",
            Expr::u32(0),
            Expr::u32(3),
            vec![
                Node::private_array("a", DataType::U32, 2),
                Node::array_store(
                    "a",
                    Expr::u32(0),
                    Expr::add(Expr::array_load("a", Expr::u32(0)), Expr::u32(1)),
                ),
                Node::store("out", Expr::u32(0), Expr::array_load("a", Expr::u32(0))),
            ],
        )],
    );
    let out = backend
        .dispatch(&p, &[], &DispatchConfig::new())
        .expect("runs");
    assert_eq!(words(&out[0]), [1]);
}
