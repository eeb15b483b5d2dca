//! The flow passes (`dce`, `cse`, `licm`, `unroll`) against the reference: every program a pass
//! changes still validates and gives the original's outputs bit for bit, over thousands of
//! generated programs and a few written by hand for the shapes the passes exist for.

use vyre_conformance::ReferenceBackend;
use vyre_conformance::fuzz::{self, FuzzOptions};
use vyre_conformance::r#gen::GenConfig;
use vyre_driver::VyreBackend;
use vyre_foundation::ir::{BinOp, Expr, Literal, Node, Program};
use vyre_foundation::pass::{self, Outcome, Pass};

/// What a differential run saw.
#[derive(Debug, Default)]
struct Tally {
    /// Programs the pass changed.
    changed: u64,
    /// Changed programs whose outputs were compared (the rest were indeterminate or ran out of fuel
    /// on the original).
    compared: u64,
}

/// Runs `pass` on `cases` generated programs of `seed` and compares every changed one with its
/// original on the reference.
fn differential(pass: &dyn Pass, seed: u64, cases: u64) -> Tally {
    differential_of(pass, seed, cases, |_| {})
}

/// [`differential`] on the generated programs as `shape` changes them; changed programs that no
/// longer validate are skipped.
fn differential_of(pass: &dyn Pass, seed: u64, cases: u64, shape: impl Fn(&mut Program)) -> Tally {
    let reference = ReferenceBackend::new();
    let config = GenConfig::differential();
    let fuel = FuzzOptions::default().fuel;
    let mut tally = Tally::default();
    for i in 0..cases {
        let Some((_, mut case)) = fuzz::generate(&config, seed, i) else {
            continue;
        };
        shape(&mut case.program);
        let Ok(validated) = vyre_foundation::validate(&case.program) else {
            continue;
        };
        let Outcome::Changed(after) = pass.run(&validated) else {
            continue;
        };
        tally.changed += 1;
        let show = || {
            format!(
                "case {seed}/{i}, before:\n{}\nafter:\n{after}",
                case.program
            )
        };
        if let Err(e) = vyre_foundation::validate(&after) {
            panic!("`{}` made an invalid program: {e}\n{}", pass.name(), show());
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
        let outputs = reference
            .dispatch(&after, &case.inputs, &dispatch)
            .unwrap_or_else(|e| {
                panic!(
                    "`{}`: the rewritten program fails: {e}\n{}",
                    pass.name(),
                    show()
                )
            });
        assert!(
            outputs == original.outputs,
            "`{}` changed the outputs of {}",
            pass.name(),
            show()
        );
        tally.compared += 1;
    }
    eprintln!(
        "`{}`, seed {seed}: {cases} programs, {tally:?}",
        pass.name()
    );
    tally
}

fn named(name: &str) -> Box<dyn Pass> {
    pass::by_name(name).unwrap_or_else(|| panic!("no built-in pass `{name}`"))
}

#[test]
fn dce_keeps_the_outputs_of_generated_programs() {
    let tally = differential(&*named("dce"), 0xdce, 4000);
    assert!(tally.compared > 2000, "{tally:?}");
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
            | Node::Barrier
            | Node::Return
            | Node::Break
            | Node::Continue
            | Node::Atomic { .. } => {}
        }
    }
}

#[test]
fn unroll_keeps_the_outputs_of_generated_programs() {
    let tally = differential_of(&*named("unroll"), 0x5011, 4000, |p| {
        with_literal_bounds(&mut p.body)
    });
    assert!(tally.compared > 400, "{tally:?}");
}

#[test]
fn cse_keeps_the_outputs_of_generated_programs() {
    let tally = differential(&*named("cse"), 0xc5e, 4000);
    assert!(tally.compared > 1000, "{tally:?}");
}

#[test]
fn licm_keeps_the_outputs_of_generated_programs() {
    let tally = differential(&*named("licm"), 0x11c3, 4000);
    assert!(tally.compared > 500, "{tally:?}");
}
