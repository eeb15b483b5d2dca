//! `fuzz::check_pass` itself: correct passes survive, a wrong one is caught with a readable
//! report, an invalid output or a changed interface is a mismatch, and a pass that changes
//! nothing is reported as proving nothing.

use vyre_conformance::ReferenceBackend;
use vyre_conformance::fuzz::{self, FuzzOptions, PassSummary};
use vyre_foundation::ir::{BinOp, BufferDecl, DataType, Expr, Program};
use vyre_foundation::pass::{Outcome, Pass, Pipeline};
use vyre_foundation::validate::Validated;

fn options(cases: u64, seed: u64) -> FuzzOptions {
    FuzzOptions {
        cases,
        seed,
        max_mismatches: 1,
        ..FuzzOptions::default()
    }
}

/// `a - b` as `b - a`: wrong wherever a difference of two different values is observed.
fn swapped_sub(program: &Program) -> Program {
    fuzz::map_exprs(program, &mut |e| match e {
        Expr::Binary {
            op: BinOp::Sub,
            lhs,
            rhs,
        } => Some(Expr::sub((**rhs).clone(), (**lhs).clone())),
        _ => None,
    })
}

/// `a + b` as `b + a` on integers: a correct pass that changes many programs (float sums too:
/// IEEE addition is commutative).
fn swapped_add(program: &Program) -> Program {
    fuzz::map_exprs(program, &mut |e| match e {
        Expr::Binary {
            op: BinOp::Add,
            lhs,
            rhs,
        } if !lhs.has_atomic() && !rhs.has_atomic() => {
            Some(Expr::add((**rhs).clone(), (**lhs).clone()))
        }
        _ => None,
    })
}

fn assert_clean(summary: &PassSummary) {
    assert_eq!(summary.mismatched, 0, "{}", summary.report());
}

#[test]
fn the_identity_survives_and_is_reported_as_proving_nothing() {
    let summary = fuzz::check_pass(|p| p.clone(), &options(2000, 11));
    assert_clean(&summary);
    assert_eq!(summary.programs, 2000);
    assert_eq!(summary.changed, 0);
    assert!(!summary.proved_something());
    assert!(
        summary.report().contains("proves nothing"),
        "{}",
        summary.report()
    );
}

#[test]
fn a_correct_pass_survives_and_changes_programs() {
    let summary = fuzz::check_pass(swapped_add, &options(1000, 12));
    assert_clean(&summary);
    assert!(summary.changed > 300, "{}", summary.report());
    assert!(summary.proved_something());
}

#[test]
fn a_wrong_pass_is_caught_shrunk_and_reported() {
    let summary = fuzz::check_pass(swapped_sub, &options(500, 13));
    assert!(summary.mismatched > 0, "{}", summary.report());
    let found = &summary.mismatches[0];
    let report = found.report();
    assert!(found.program().to_string().contains(" - "), "{report}");
    let transformed = found.transformed.as_ref().expect("the pass does not panic");
    assert_eq!(*transformed, swapped_sub(found.program()));
    assert!(
        found.expected.is_some() && found.actual.is_some(),
        "{report}"
    );
    for part in [
        "what the pass made of it",
        "expected (the original",
        "actual (the transformed",
    ] {
        assert!(report.contains(part), "{part} missing from:\n{report}");
    }
    // Shrunk: the prelude's two lets, a store and at most a few more statements.
    assert!(found.program().body.len() <= 4, "{report}");
}

#[test]
fn an_invalid_output_is_a_mismatch_with_the_validation_error() {
    // Every store's value replaced by a bool: the stores no longer type-check.
    let breaks_types = |program: &Program| {
        let mut out = program.clone();
        for node in &mut out.body {
            if let vyre_foundation::ir::Node::Store { value, .. } = node {
                *value = Expr::bool(true);
            }
        }
        out
    };
    let summary = fuzz::check_pass(breaks_types, &options(200, 14));
    let found = &summary.mismatches[0];
    assert!(
        found.found.detail.contains("does not validate"),
        "{}",
        found.report()
    );
    assert!(found.found.detail.contains("Fix:"), "{}", found.report());
}

#[test]
fn a_changed_interface_is_a_mismatch() {
    let adds_a_buffer = |program: &Program| {
        let mut out = program.clone();
        let binding = out.buffers.iter().map(|b| b.binding).max().unwrap_or(0) + 1;
        out.buffers
            .push(BufferDecl::output("extra", binding, DataType::U32).with_count(1));
        out
    };
    let summary = fuzz::check_pass(adds_a_buffer, &options(50, 15));
    assert_eq!(summary.mismatched, 50, "{}", summary.report());
    assert!(
        summary.mismatches[0]
            .found
            .detail
            .contains("buffer declarations")
    );
}

#[test]
fn a_panicking_pass_is_a_mismatch() {
    let panics = |program: &Program| -> Program {
        assert!(
            program.body.len() < 6,
            "a pass that gives up on long programs"
        );
        program.clone()
    };
    let summary = fuzz::check_pass(panics, &options(100, 16));
    let found = &summary.mismatches[0];
    assert!(found.found.detail.contains("the pass panicked"));
    assert!(found.transformed.is_none());
    assert_eq!(found.program().body.len(), 6, "{}", found.report());
}

/// Swaps the operands of integer additions, as a `Pass`.
#[derive(Debug)]
struct SwapAdd;

impl Pass for SwapAdd {
    fn name(&self) -> &'static str {
        "swap-add"
    }
    fn run(&self, program: &Validated<'_>) -> Outcome {
        let out = swapped_add(program.program());
        if out == *program.program() {
            Outcome::Unchanged
        } else {
            Outcome::Changed(out)
        }
    }
}

#[test]
fn passes_and_pipelines_are_checked_through_the_adapters() {
    let summary = fuzz::check_pass(|p| fuzz::apply_pass(&SwapAdd, p), &options(300, 17));
    assert_clean(&summary);
    assert!(summary.changed > 0);
    // Twice swapped is the original: the pipeline changes nothing.
    let twice = Pipeline::empty().with(SwapAdd).with(SwapAdd);
    let summary = fuzz::check_pass(|p| fuzz::apply_pipeline(&twice, p), &options(300, 17));
    assert_clean(&summary);
    assert_eq!(summary.changed, 0);
}

#[test]
fn check_pass_on_runs_the_transformed_program_on_the_backend() {
    let backend = ReferenceBackend::new();
    let summary = fuzz::check_pass_on(swapped_add, &options(300, 18), &backend);
    assert_clean(&summary);
    assert!(summary.proved_something());
    let summary = fuzz::check_pass_on(swapped_sub, &options(300, 18), &backend);
    assert!(summary.mismatched > 0);
}
