//! Behaviour specific to the reference backend: budgets, tracing, caching, parallel execution.

use std::time::{Duration, Instant};

use vyre_conformance::ReferenceBackend;
use vyre_conformance::fixtures::add_one_program;
use vyre_driver::{DispatchConfig, VyreBackend};
use vyre_foundation::ir::{BufferDecl, DataType, Expr, Node, Program};

fn bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

fn words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

#[test]
fn id_is_reference() {
    assert_eq!(ReferenceBackend::new().id(), "reference");
    assert!(!ReferenceBackend::new().capabilities().is_gpu);
}

#[test]
fn add_one_program_gives_x_plus_one() {
    let backend = ReferenceBackend::new();
    for n in [1u32, 63, 64, 65, 1000] {
        let input: Vec<u32> = (0..n).map(|i| i.wrapping_mul(0x9e37_79b9)).collect();
        let out = backend
            .dispatch(
                &add_one_program(n),
                &[bytes(&input)],
                &DispatchConfig::default(),
            )
            .expect("add_one runs");
        let expected: Vec<u32> = input.iter().map(|x| x.wrapping_add(1)).collect();
        assert_eq!(words(&out[0]), expected, "add_one over {n} words");
    }
}

/// A single invocation running `outer * inner` iterations of an accumulating loop.
fn nested_loop_program(outer: u32, inner: u32) -> Program {
    Program::wrapped(
        vec![BufferDecl::output("out", 0, DataType::U32).with_count(1)],
        [1, 1, 1],
        vec![
            Node::let_bind("acc", Expr::u32(0)),
            Node::loop_for(
                "i",
                Expr::u32(0),
                Expr::u32(outer),
                vec![Node::loop_for(
                    "j",
                    Expr::u32(0),
                    Expr::u32(inner),
                    vec![Node::assign(
                        "acc",
                        Expr::add(Expr::var("acc"), Expr::var("j")),
                    )],
                )],
            ),
            Node::store("out", Expr::u32(0), Expr::var("acc")),
        ],
    )
}

#[test]
fn a_2_pow_40_iteration_loop_times_out_within_a_second() {
    let program = nested_loop_program(1 << 20, 1 << 20);
    let config = DispatchConfig::new().with_timeout(Duration::from_millis(200));
    let start = Instant::now();
    let error = ReferenceBackend::new()
        .dispatch(&program, &[], &config)
        .expect_err("2^40 iterations cannot finish in 200 ms");
    let elapsed = start.elapsed();
    assert_eq!(error.kind_name(), "Timeout", "{error}");
    assert!(error.to_string().contains("Fix:"), "{error}");
    assert!(elapsed < Duration::from_secs(1), "took {elapsed:?}");
}

#[test]
fn fuel_bounds_the_operations_exactly() {
    let backend = ReferenceBackend::new();
    let program = nested_loop_program(10, 20);
    let traced = backend
        .dispatch_traced(&program, &[], &DispatchConfig::default())
        .expect("a small loop runs");
    assert_eq!(words(&traced.outputs[0]), [10 * (0..20).sum::<u32>()]);
    let ops = traced.ops_executed;
    assert!(ops > 200, "200 iterations took only {ops} operations");
    let enough = DispatchConfig::new().with_fuel(ops);
    assert!(backend.dispatch(&program, &[], &enough).is_ok());
    let short = DispatchConfig::new().with_fuel(ops - 1);
    let error = backend
        .dispatch(&program, &[], &short)
        .expect_err("one operation short");
    assert_eq!(error.kind_name(), "Timeout", "{error}");
    assert!(error.to_string().contains("fuel"), "{error}");
}

#[test]
fn fuel_stops_a_2_pow_40_iteration_loop() {
    let config = DispatchConfig::new().with_fuel(1_000_000);
    let start = Instant::now();
    let error = ReferenceBackend::new()
        .dispatch(&nested_loop_program(1 << 20, 1 << 20), &[], &config)
        .expect_err("fuel runs out");
    assert_eq!(error.kind_name(), "Timeout", "{error}");
    assert!(start.elapsed() < Duration::from_secs(1));
}

fn float_program(body: Expr) -> Program {
    Program::wrapped(
        vec![
            BufferDecl::read("x", 0, DataType::F32).with_count(4),
            BufferDecl::output("out", 1, DataType::U32).with_count(4),
        ],
        [4, 1, 1],
        vec![Node::store("out", Expr::gid_x(), body)],
    )
}

fn traced_indeterminate(program: &Program, x: [f32; 4]) -> bool {
    let input: Vec<u8> = x.iter().flat_map(|v| v.to_bits().to_le_bytes()).collect();
    ReferenceBackend::new()
        .dispatch_traced(program, &[input], &DispatchConfig::default())
        .expect("the float program runs")
        .indeterminate
}

#[test]
fn traced_runs_flag_nan_and_infinite_casts() {
    let x = || Expr::load("x", Expr::gid_x());
    let to_int = float_program(Expr::bitcast(DataType::U32, Expr::cast(DataType::I32, x())));
    assert!(!traced_indeterminate(&to_int, [1.5, -3e9, 3e9, 0.0]));
    assert!(traced_indeterminate(&to_int, [1.5, f32::NAN, 0.0, 0.0]));
    assert!(traced_indeterminate(
        &to_int,
        [f32::INFINITY, 1.0, 0.0, 0.0]
    ));
    let to_uint = float_program(Expr::cast(DataType::U32, x()));
    assert!(traced_indeterminate(
        &to_uint,
        [1.0, 2.0, 3.0, f32::NEG_INFINITY]
    ));
}

#[test]
fn traced_runs_flag_overflow_and_nan_from_finite_inputs() {
    let x = || Expr::load("x", Expr::gid_x());
    let square = float_program(Expr::bitcast(DataType::U32, Expr::mul(x(), x())));
    assert!(!traced_indeterminate(&square, [1.0, 2.0, 1e19, -3.0]));
    assert!(traced_indeterminate(&square, [1.0, 2.0, 1e20, -3.0]));
    // NaN in, NaN out is not an indeterminate *operation*; sqrt(-1) from a finite input is.
    assert!(!traced_indeterminate(&square, [f32::NAN, 2.0, 1.0, 1.0]));
    let root = float_program(Expr::bitcast(DataType::U32, Expr::sqrt(x())));
    assert!(traced_indeterminate(&root, [4.0, -1.0, 1.0, 1.0]));
    let fused = float_program(Expr::bitcast(DataType::U32, Expr::fma(x(), x(), x())));
    assert!(traced_indeterminate(&fused, [3e38, 1.0, 1.0, 1.0]));
}

#[test]
fn traced_and_untraced_outputs_agree() {
    let backend = ReferenceBackend::new();
    let program = add_one_program(300);
    let input = bytes(&(0..300).collect::<Vec<u32>>());
    let config = DispatchConfig::default();
    let plain = backend
        .dispatch(&program, std::slice::from_ref(&input), &config)
        .expect("runs");
    let traced = backend
        .dispatch_traced(&program, &[input], &config)
        .expect("runs");
    assert_eq!(plain, traced.outputs);
    assert!(!traced.indeterminate);
    assert!(traced.ops_executed >= 300 * 4, "{}", traced.ops_executed);
}

#[test]
fn compiled_programs_are_cached_and_the_cache_is_bounded() {
    let backend = ReferenceBackend::new();
    let config = DispatchConfig::default();
    let input = bytes(&[1, 2, 3]);
    for _ in 0..3 {
        backend
            .dispatch(&add_one_program(3), std::slice::from_ref(&input), &config)
            .expect("runs");
    }
    assert_eq!(backend.cached_programs(), 1);
    for n in 1..=100u32 {
        backend
            .dispatch(&add_one_program(n), &[vec![]], &config)
            .expect("runs");
    }
    let cached = backend.cached_programs();
    assert!((2..=64).contains(&cached), "{cached} programs cached");
}

/// A program that is not batchable (workgroup memory, barriers) and one that is, both over a large
/// grid: every workgroup reverses its slice of the input through workgroup memory.
fn reverse_program(groups: u32) -> Program {
    let lid = Expr::local_x();
    Program::wrapped(
        vec![
            BufferDecl::read("input", 0, DataType::U32).with_count(groups * 128),
            BufferDecl::output("out", 1, DataType::U32).with_count(groups * 128),
            BufferDecl::workgroup("tile", 128, DataType::U32),
        ],
        [128, 1, 1],
        vec![
            Node::store("tile", lid.clone(), Expr::load("input", Expr::gid_x())),
            Node::barrier(),
            Node::store(
                "out",
                Expr::gid_x(),
                Expr::load("tile", Expr::sub(Expr::u32(127), lid)),
            ),
        ],
    )
}

fn run_in_pool(threads: usize, f: impl FnOnce() -> Vec<Vec<u8>> + Send) -> Vec<Vec<u8>> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("a thread pool")
        .install(f)
}

#[test]
fn parallel_and_serial_runs_agree_on_a_large_grid() {
    let groups: u32 = 2048;
    let input: Vec<u32> = (0..groups * 128)
        .map(|i| i.wrapping_mul(2_654_435_761))
        .collect();
    let inputs = [bytes(&input)];
    let config = DispatchConfig::default();
    for program in [reverse_program(groups), add_one_program(groups * 128)] {
        let backend = ReferenceBackend::new();
        let serial = run_in_pool(1, || {
            backend.dispatch(&program, &inputs, &config).expect("runs")
        });
        let parallel = run_in_pool(4, || {
            backend.dispatch(&program, &inputs, &config).expect("runs")
        });
        assert_eq!(serial, parallel, "serial and parallel outputs differ");
    }
    let out = words(
        &ReferenceBackend::new()
            .dispatch(&reverse_program(groups), &inputs, &config)
            .expect("runs")[0],
    );
    for (g, chunk) in out.chunks(128).enumerate() {
        let mut expected = input[g * 128..(g + 1) * 128].to_vec();
        expected.reverse();
        assert_eq!(chunk, &expected[..], "workgroup {g}");
    }
}

#[test]
fn storage_atomics_run_in_workgroup_order_on_any_pool() {
    // Atomics on a bound buffer keep the dispatch on one thread, so the tickets are deterministic.
    let program = Program::wrapped(
        vec![
            BufferDecl::output("counter", 0, DataType::U32).with_count(1),
            BufferDecl::output("tickets", 1, DataType::U32).with_count(1 << 16),
        ],
        [64, 1, 1],
        vec![Node::store(
            "tickets",
            Expr::gid_x(),
            Expr::atomic_add("counter", Expr::u32(0), Expr::u32(1)),
        )],
    );
    let backend = ReferenceBackend::new();
    let config = DispatchConfig::default();
    let out = run_in_pool(4, || {
        backend.dispatch(&program, &[], &config).expect("runs")
    });
    assert_eq!(words(&out[0]), [1 << 16]);
    assert_eq!(words(&out[1]), (0..1u32 << 16).collect::<Vec<u32>>());
}

#[test]
fn batched_workgroups_with_a_partial_last_block_see_their_ids() {
    // 7-wide workgroups are batched into blocks of 146; 1000 workgroups leave a partial last block.
    let program = Program::wrapped(
        vec![BufferDecl::output("out", 0, DataType::U32).with_count(7000)],
        [7, 1, 1],
        vec![Node::store(
            "out",
            Expr::gid_x(),
            Expr::add(
                Expr::mul(Expr::workgroup_x(), Expr::u32(1000)),
                Expr::local_x(),
            ),
        )],
    );
    let config = DispatchConfig::new().with_grid([1000, 1, 1]);
    let out = ReferenceBackend::new()
        .dispatch(&program, &[], &config)
        .expect("runs");
    let expected: Vec<u32> = (0..7000u32).map(|g| (g / 7) * 1000 + g % 7).collect();
    assert_eq!(words(&out[0]), expected);
}

#[test]
fn the_deepest_valid_expression_compiles_and_runs() {
    // 500 nested additions: near the validator's depth limit of 512.
    let deep = (0..500).fold(Expr::gid_x(), |e, _| Expr::add(e, Expr::u32(1)));
    let program = Program::wrapped(
        vec![BufferDecl::output("out", 0, DataType::U32).with_count(4)],
        [4, 1, 1],
        vec![Node::store("out", Expr::gid_x(), deep)],
    );
    let out = ReferenceBackend::new()
        .dispatch(&program, &[], &DispatchConfig::default())
        .expect("runs");
    assert_eq!(words(&out[0]), [500, 501, 502, 503]);
}
