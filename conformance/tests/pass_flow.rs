//! The flow passes (`dce`, `cse`, `licm`, `unroll`) against the reference: every program a pass
//! changes still validates and gives the original's outputs bit for bit, over thousands of
//! generated programs and a few written by hand for the shapes the passes exist for.
//!
//! The `*_survives_check_pass` tests run `fuzz::check_pass` on `VYRE_PASS_FUZZ_CASES` programs
//! (3000 by default, a CI-sized run) from seed `VYRE_PASS_FUZZ_SEED` (each pass's own by
//! default); the release runs recorded in FUZZING.md set them, e.g.
//! `VYRE_PASS_FUZZ_CASES=100000 cargo test --release -p vyre-conformance --test pass_flow check_pass`.

use vyre_conformance::ReferenceBackend;
use vyre_conformance::fuzz::{self, FuzzOptions};
use vyre_conformance::r#gen::GenConfig;
use vyre_driver::{DispatchConfig, VyreBackend};
use vyre_foundation::ir::{BinOp, BufferDecl, DataType, Expr, Literal, Node, Program};
use vyre_foundation::pass::{self, Pass, Pipeline};

/// What a differential run saw.
#[derive(Debug, Default)]
struct Tally {
    /// Programs the pass changed.
    changed: u64,
    /// Changed programs whose outputs were compared (the rest were indeterminate or ran out of fuel
    /// on the original).
    compared: u64,
    /// The first changed program that did not validate or gave other outputs, described.
    wrong: Option<String>,
}

/// Runs `pass` on `cases` generated programs of `seed` as `shape` changes them (shaped programs
/// that do not validate are skipped) and compares every program it changes with its original on
/// the reference, bit for bit; stops at the first wrong one.
fn differential_of(
    pass: &dyn Fn(&Program) -> Program,
    seed: u64,
    cases: u64,
    shape: impl Fn(&mut Program),
) -> Tally {
    let reference = ReferenceBackend::new();
    let config = GenConfig::differential();
    let fuel = FuzzOptions::default().fuel;
    let mut tally = Tally::default();
    for i in 0..cases {
        let Some((_, mut case)) = fuzz::generate(&config, seed, i) else {
            continue;
        };
        shape(&mut case.program);
        if vyre_foundation::validate(&case.program).is_err() {
            continue;
        }
        let after = pass(&case.program);
        if after == case.program {
            continue;
        }
        tally.changed += 1;
        let show = |what: &str| {
            format!(
                "case {seed}/{i}: {what}\nbefore:\n{}\nafter:\n{after}",
                case.program
            )
        };
        if let Err(e) = vyre_foundation::validate(&after) {
            tally.wrong = Some(show(&format!("the result does not validate: {e}")));
            break;
        }
        let mut dispatch = case.config.clone();
        dispatch.fuel = Some(fuel);
        let Ok(original) = reference.dispatch_traced(&case.program, &case.inputs, &dispatch) else {
            continue;
        };
        if original.indeterminate {
            continue;
        }
        // The rewritten program may spend a few more operations (a hoisted expression of a loop
        // that runs no iteration); it gets twice the fuel.
        dispatch.fuel = Some(fuel * 2);
        match reference.dispatch(&after, &case.inputs, &dispatch) {
            Ok(outputs) if outputs == original.outputs => tally.compared += 1,
            Ok(_) => {
                tally.wrong = Some(show("the outputs differ"));
                break;
            }
            Err(e) => {
                tally.wrong = Some(show(&format!("the result fails: {e}")));
                break;
            }
        }
    }
    eprintln!("seed {seed}: {cases} programs, {tally:?}");
    tally
}

fn named(name: &str) -> Box<dyn Pass> {
    pass::by_name(name).unwrap_or_else(|| panic!("no built-in pass `{name}`"))
}

/// Gives every `loop_for` of `program` whose bounds are pure literal bounds: the generator writes
/// `for v in from..(from + trip)`, which becomes `for v in a..(a + trip)` computed, with `a` the
/// literal `from` or 0 (the shape constant folding leaves for `unroll`).
fn with_literal_bounds(body: &mut [Node]) {
    for node in body {
        match node {
            Node::Loop { from, to, body, .. } => {
                with_literal_bounds(body);
                let Expr::Binary {
                    op: BinOp::Add,
                    rhs,
                    ..
                } = &*to
                else {
                    continue;
                };
                let (a, to_value) = match (&*from, &**rhs) {
                    (Expr::Lit(Literal::U32(a)), Expr::Lit(Literal::U32(t))) => {
                        (Literal::U32(*a), Literal::U32(a.wrapping_add(*t)))
                    }
                    (Expr::Lit(Literal::I32(a)), Expr::Lit(Literal::I32(t))) => {
                        (Literal::I32(*a), Literal::I32(a.wrapping_add(*t)))
                    }
                    (_, Expr::Lit(Literal::U32(t))) if !from.has_atomic() => {
                        (Literal::U32(0), Literal::U32(*t))
                    }
                    (_, Expr::Lit(Literal::I32(t))) if !from.has_atomic() => {
                        (Literal::I32(0), Literal::I32(*t))
                    }
                    _ => continue,
                };
                *from = Expr::Lit(a);
                *to = Expr::Lit(to_value);
            }
            Node::If {
                then, otherwise, ..
            } => {
                with_literal_bounds(then);
                with_literal_bounds(otherwise);
            }
            Node::While { body, .. } | Node::Block(body) => with_literal_bounds(body),
            Node::Let { .. }
            | Node::Assign { .. }
            | Node::Store { .. }
            | Node::PrivateArray { .. }
            | Node::ArrayStore { .. }
            | Node::Tile { .. }
            | Node::TileLoad { .. }
            | Node::TileStore { .. }
            | Node::TileMultiplyAdd { .. }
            | Node::Barrier
            | Node::Return
            | Node::Break
            | Node::Continue
            | Node::Atomic { .. } => {}
        }
    }
}

/// `program` after the built-in pass `name` (unchanged when it does not validate).
fn apply(name: &str, program: &Program) -> Program {
    fuzz::apply_pass(&*named(name), program)
}

/// `unroll` on generated programs whose loops were given literal bounds: until the generator draws
/// literal loops itself, the shape `check_pass` cannot give it.
#[test]
fn unroll_keeps_the_outputs_of_generated_loops_given_literal_bounds() {
    let tally = differential_of(&|p| apply("unroll", p), 0x5011, 4000, |p| {
        with_literal_bounds(&mut p.body)
    });
    assert!(tally.wrong.is_none(), "{}", tally.wrong.unwrap_or_default());
    assert!(tally.compared > 400, "{tally:?}");
}

/// The check above fails when it should: a planted unrolling that runs one iteration too few
/// (every literal loop's end lowered by one before unrolling) is caught.
#[test]
fn an_unrolling_one_iteration_short_is_caught() {
    let short = |program: &Program| {
        let mut shorter = program.clone();
        shorten_literal_loops(&mut shorter.body);
        apply("unroll", &shorter)
    };
    let tally = differential_of(&short, 0x5011, 4000, |p| with_literal_bounds(&mut p.body));
    let wrong = tally.wrong.expect("the short unrolling is caught");
    assert!(wrong.contains("the outputs differ"), "{wrong}");
}

/// Lowers the end of every `loop_for` with literal bounds that runs at least once by one.
fn shorten_literal_loops(body: &mut [Node]) {
    for node in body {
        match node {
            Node::Loop { from, to, body, .. } => {
                shorten_literal_loops(body);
                match (&*from, &mut *to) {
                    (Expr::Lit(Literal::U32(a)), Expr::Lit(Literal::U32(b))) if a < b => *b -= 1,
                    (Expr::Lit(Literal::I32(a)), Expr::Lit(Literal::I32(b))) if a < b => *b -= 1,
                    _ => {}
                }
            }
            Node::If {
                then, otherwise, ..
            } => {
                shorten_literal_loops(then);
                shorten_literal_loops(otherwise);
            }
            Node::While { body, .. } | Node::Block(body) => shorten_literal_loops(body),
            Node::Let { .. }
            | Node::Assign { .. }
            | Node::Store { .. }
            | Node::PrivateArray { .. }
            | Node::ArrayStore { .. }
            | Node::Tile { .. }
            | Node::TileLoad { .. }
            | Node::TileStore { .. }
            | Node::TileMultiplyAdd { .. }
            | Node::Barrier
            | Node::Return
            | Node::Break
            | Node::Continue
            | Node::Atomic { .. } => {}
        }
    }
}

/// The `check_pass` options: `VYRE_PASS_FUZZ_CASES` programs (3000 by default) from
/// `VYRE_PASS_FUZZ_SEED` (or `seed`).
fn check_options(seed: u64) -> FuzzOptions {
    let env = |name: &str| std::env::var(name).ok().and_then(|v| v.parse::<u64>().ok());
    FuzzOptions {
        cases: env("VYRE_PASS_FUZZ_CASES").unwrap_or(3000),
        seed: env("VYRE_PASS_FUZZ_SEED").unwrap_or(seed),
        max_mismatches: 1,
        ..FuzzOptions::default()
    }
}

/// `fuzz::check_pass` on the built-in pass `name`: no mismatch, and at least `min_changed` in a
/// thousand programs changed (a pass that changes nothing proves nothing).
fn survives_check_pass(name: &str, seed: u64, min_changed_per_mille: u64) {
    let pass = named(name);
    let options = check_options(seed);
    let summary = fuzz::check_pass(|p| fuzz::apply_pass(&*pass, p), &options);
    eprintln!("`{name}`: {}", summary.report());
    assert_eq!(summary.mismatched, 0, "{}", summary.mismatches[0].report());
    assert!(
        summary.changed * 1000 >= summary.programs * min_changed_per_mille,
        "`{name}` changed too few programs: {}",
        summary.report()
    );
}

#[test]
fn dce_survives_check_pass() {
    survives_check_pass("dce", 0xdce, 500);
}

#[test]
fn cse_survives_check_pass() {
    survives_check_pass("cse", 0xc5e, 500);
}

#[test]
fn licm_survives_check_pass() {
    survives_check_pass("licm", 0x11c3, 100);
}

#[test]
fn unroll_survives_check_pass() {
    survives_check_pass("unroll", 0x5011, 50);
}

#[test]
fn the_standard_pipeline_survives_check_pass() {
    let pipeline = Pipeline::standard();
    let options = check_options(0x9199);
    let summary = fuzz::check_pass(|p| fuzz::apply_pipeline(&pipeline, p), &options);
    eprintln!("`{}`: {}", pipeline.key(), summary.report());
    assert_eq!(summary.mismatched, 0, "{}", summary.mismatches[0].report());
    assert!(
        summary.changed * 2 >= summary.programs,
        "{}",
        summary.report()
    );
}

/// The size of a program: its statements and expression nodes.
fn size(program: &Program) -> usize {
    let mut n = 0;
    vyre_foundation::for_each_node(&program.body, |_| n += 1);
    vyre_foundation::for_each_expr(program, |_| n += 1);
    n
}

/// A 10-operation elementwise chain written as a user composes functions on `Expr`: each step
/// uses its input up to three times, so the tree repeats every earlier step many times.
fn elementwise_chain() -> (Program, Vec<Vec<u8>>) {
    let n = 256;
    let i = Expr::gid_x();
    let mut x = Expr::mul(Expr::load("a", i.clone()), Expr::u32(3));
    x = Expr::add(x, Expr::load("b", i.clone()));
    x = Expr::max(x.clone(), Expr::shr(x, Expr::u32(1)));
    x = Expr::bit_xor(x.clone(), Expr::shl(x, Expr::u32(3)));
    x = Expr::min(x, Expr::u32(100_000));
    x = Expr::mul(x.clone(), x);
    x = Expr::select(
        Expr::gt(x.clone(), Expr::u32(100)),
        Expr::sub(x.clone(), Expr::u32(100)),
        x,
    );
    x = Expr::add(x, Expr::u32(7));
    x = Expr::bit_and(x.clone(), Expr::shr(x, Expr::u32(2)));
    x = Expr::rem(x, Expr::u32(1_000_003));
    let program = Program::new(
        vec![
            BufferDecl::read("a", 0, DataType::U32).with_count(n),
            BufferDecl::read("b", 1, DataType::U32).with_count(n),
            BufferDecl::output("out", 2, DataType::U32).with_count(n),
        ],
        [64, 1, 1],
        vec![Node::if_then(
            Expr::lt(i.clone(), Expr::u32(n)),
            vec![Node::store("out", i, x)],
        )],
    );
    let words = |k: u32| {
        (0..n)
            .flat_map(|j| (j * k + 11).to_le_bytes())
            .collect::<Vec<u8>>()
    };
    (program, vec![words(7), words(13)])
}

/// A dot product per invocation with the weights tiled through workgroup memory: loops with
/// literal bounds, barriers inside them and a loop-invariant row offset.
fn tiled_loop() -> (Program, Vec<Vec<u8>>) {
    let rows = 64;
    let at = |t: Expr, k: Expr| Expr::add(Expr::mul(t, Expr::u32(4)), k);
    let row = || Expr::mul(Expr::gid_x(), Expr::u32(16));
    let body = vec![
        Node::let_bind("acc", Expr::u32(0)),
        Node::loop_for(
            "t",
            Expr::u32(0),
            Expr::u32(4),
            vec![
                Node::store(
                    "tile",
                    Expr::local_x(),
                    Expr::load("w", at(Expr::var("t"), Expr::local_x())),
                ),
                Node::barrier(),
                Node::loop_for(
                    "k",
                    Expr::u32(0),
                    Expr::u32(4),
                    vec![Node::assign(
                        "acc",
                        Expr::add(
                            Expr::var("acc"),
                            Expr::mul(
                                Expr::load(
                                    "a",
                                    Expr::add(row(), at(Expr::var("t"), Expr::var("k"))),
                                ),
                                Expr::load("tile", Expr::var("k")),
                            ),
                        ),
                    )],
                ),
                Node::barrier(),
            ],
        ),
        Node::store("out", Expr::gid_x(), Expr::var("acc")),
    ];
    let program = Program::new(
        vec![
            BufferDecl::read("a", 0, DataType::U32).with_count(rows * 16),
            BufferDecl::read("w", 1, DataType::U32).with_count(16),
            BufferDecl::output("out", 2, DataType::U32).with_count(rows),
            BufferDecl::workgroup("tile", 4, DataType::U32),
        ],
        [4, 1, 1],
        body,
    );
    let words = |n: u32, k: u32| {
        (0..n)
            .flat_map(|j| (j * k + 3).to_le_bytes())
            .collect::<Vec<u8>>()
    };
    (program, vec![words(rows * 16, 5), words(16, 9)])
}

/// Each flow pass and the standard pipeline keep the outputs of the two typical programs bit for
/// bit; CSE shrinks the chain and the pipeline cuts the tiled loop's executed operations. The
/// sizes and operation counts are printed (`--nocapture`) for the record.
#[test]
fn typical_programs_keep_their_outputs_and_shrink() {
    let reference = ReferenceBackend::new();
    let pipeline = Pipeline::standard();
    let mut results = Vec::new();
    for (what, (program, inputs)) in [("chain", elementwise_chain()), ("tiled", tiled_loop())] {
        vyre_foundation::validate(&program).expect("the typical program is valid");
        let config = DispatchConfig::default();
        let before = reference
            .dispatch_traced(&program, &inputs, &config)
            .expect("it runs");
        let mut afters: Vec<(String, Program)> = ["dce", "unroll", "licm", "cse"]
            .iter()
            .map(|name| ((*name).to_owned(), apply(name, &program)))
            .collect();
        let optimized = pipeline
            .run(&program)
            .expect("the pipeline's output validates");
        afters.push((pipeline.key(), optimized.into_owned()));
        for (name, after) in afters {
            let run = reference
                .dispatch_traced(&after, &inputs, &config)
                .expect("it runs");
            assert!(
                run.outputs == before.outputs,
                "`{name}` changed the {what} program:\n{after}"
            );
            eprintln!(
                "{what}: `{name}`: size {} -> {}, operations executed {} -> {}",
                size(&program),
                size(&after),
                before.ops_executed,
                run.ops_executed
            );
            results.push((
                what,
                name,
                size(&program),
                size(&after),
                before.ops_executed,
                run.ops_executed,
            ));
        }
    }
    let find = |what: &str, name: &str| {
        results
            .iter()
            .find(|r| r.0 == what && r.1.starts_with(name))
            .map(|r| (r.2, r.3, r.4, r.5))
            .expect("measured")
    };
    let (chain_before, chain_after, _, _) = find("chain", "cse");
    assert!(
        chain_after * 4 < chain_before,
        "cse: {chain_before} -> {chain_after}"
    );
    let (_, _, ops_before, ops_after) = find("tiled", &Pipeline::standard().key());
    assert!(
        ops_after < ops_before,
        "the pipeline: {ops_before} -> {ops_after} operations"
    );
}
