//! Metamorphic fuzzing (`fuzz::metamorphic`): every rewrite of a generated program is a valid
//! program that means what the original means, and a backend that miscompiles a pattern in one
//! syntactic form only is caught with no reference to compare with.

use std::collections::BTreeMap;

use vyre_conformance::ReferenceBackend;
use vyre_conformance::fuzz::metamorphic::{self, Rewrite};
use vyre_conformance::fuzz::{self, FuzzOptions, Untraced};
use vyre_conformance::r#gen::GenConfig;
use vyre_driver::{BackendError, Capabilities, DispatchConfig, VyreBackend};
use vyre_foundation::ir::{BinOp, Expr, Node, Program, UnOp};

/// Every variant of 3000 comparable and 1000 valid-only programs passes the validator, keeps the
/// original's outputs in order and adds at most one input; and every rewrite is made often.
#[test]
fn every_variant_of_thousands_of_generated_programs_validates() {
    let mut made: BTreeMap<&str, u64> = BTreeMap::new();
    for (config, cases) in [
        (GenConfig::differential(), 3000),
        (GenConfig::valid_only(), 1000),
    ] {
        for i in 0..cases {
            let (_, case) = fuzz::generate(&config, 41, i).expect("a generated case");
            for v in metamorphic::variants(&case, i) {
                *made.entry(v.rewrite.name()).or_default() += 1;
                if let Err(e) = vyre_foundation::validate(&v.case.program) {
                    panic!(
                        "`{}` of case {i} is invalid:\n{e}\noriginal:\n{}\nvariant:\n{}",
                        v.rewrite.name(),
                        case.program,
                        v.case.program
                    );
                }
                let outputs = |p: &Program| p.output_buffers().cloned().collect::<Vec<_>>();
                assert_eq!(outputs(&case.program), outputs(&v.case.program));
                assert!(v.case.inputs.len() <= case.inputs.len() + 1);
                assert_eq!(v.case.inputs[..case.inputs.len()], case.inputs[..]);
                assert_ne!(v.case.program, case.program, "{}", v.rewrite.name());
            }
        }
    }
    for rewrite in Rewrite::ALL {
        let n = made.get(rewrite.name()).copied().unwrap_or(0);
        assert!(n > 1500, "`{}` made only {n} variants", rewrite.name());
    }
}

/// The laws, checked on the reference, which computes every operation one way: each variant of
/// 1500 programs gives the original's output bytes exactly (floats included: the reference does
/// not reassociate), except where the original is indeterminate.
#[test]
fn variants_give_the_original_outputs_bit_for_bit_on_the_reference() {
    let reference = ReferenceBackend::new();
    let config = GenConfig::differential();
    let mut compared = 0;
    for i in 0..1500 {
        let (_, case) = fuzz::generate(&config, 43, i).expect("a generated case");
        let mut dispatch = case.config.clone();
        dispatch.fuel = Some(FuzzOptions::default().fuel);
        let Ok(original) = reference.dispatch_traced(&case.program, &case.inputs, &dispatch) else {
            continue;
        };
        if original.indeterminate {
            continue;
        }
        for v in metamorphic::variants(&case, i) {
            let outputs = reference
                .dispatch(&v.case.program, &v.case.inputs, &dispatch)
                .unwrap_or_else(|e| panic!("`{}` of case {i}: {e}", v.rewrite.name()));
            assert!(
                outputs == original.outputs,
                "`{}` of case {i} changed the outputs:\n{}\nvariant:\n{}",
                v.rewrite.name(),
                case.program,
                v.case.program
            );
            compared += 1;
        }
    }
    assert!(compared > 6000, "{compared} variants compared");
}

/// The metamorphic run on a correct backend finds nothing, compares most programs, and reports
/// the same summary type as the differential run.
#[test]
fn the_reference_agrees_with_itself_under_every_rewrite() {
    let reference = ReferenceBackend::new();
    let options = FuzzOptions {
        cases: 600,
        seed: 47,
        batch: 64,
        ..FuzzOptions::default()
    };
    let summary = metamorphic::run(&options, &reference, &ReferenceBackend::new(), &|_| {});
    assert!(
        summary.mismatches.is_empty(),
        "{}",
        summary.mismatches[0].report()
    );
    assert_eq!(summary.programs, 600);
    assert!(summary.compared() > 550, "{summary:?}");
}

#[derive(Clone, Copy, Debug)]
enum OneForm {
    /// `min(a, b)` computed as `max(a, b)` when `b` is a negation and `a` is not: right when the
    /// operands come the other way round.
    MinWithNegationOnTheRight,
    /// `x << k` with a literal `k` computed as `x << (k & 15)`, as a constant folder that kept 4
    /// bits might: right when the amount is not a literal.
    LiteralShiftAmountOnFourBits,
}

/// The reference with one pattern miscompiled in one syntactic form.
struct OneFormWrong {
    inner: ReferenceBackend,
    bug: OneForm,
}

impl VyreBackend for OneFormWrong {
    fn id(&self) -> &str {
        "one-form-wrong"
    }

    fn capabilities(&self) -> Capabilities {
        self.inner.capabilities()
    }

    fn dispatch(
        &self,
        program: &Program,
        inputs: &[Vec<u8>],
        config: &DispatchConfig,
    ) -> Result<Vec<Vec<u8>>, BackendError> {
        let mut wrong = program.clone();
        for node in &mut wrong.body {
            each_expr_in(node, &mut |e| miscompile(self.bug, e));
        }
        self.inner.dispatch(&wrong, inputs, config)
    }
}

fn miscompile(bug: OneForm, e: &mut Expr) {
    let Expr::Binary { op, lhs, rhs } = e else {
        return;
    };
    let negation = |x: &Expr| matches!(x, Expr::Unary { op: UnOp::Neg, .. });
    match bug {
        OneForm::MinWithNegationOnTheRight
            if *op == BinOp::Min && negation(rhs) && !negation(lhs) =>
        {
            *op = BinOp::Max;
        }
        OneForm::LiteralShiftAmountOnFourBits if *op == BinOp::Shl => {
            if let Expr::Lit(vyre_foundation::ir::Literal::U32(k)) = &mut **rhs {
                *k &= 15;
            }
        }
        _ => {}
    }
}

/// Calls `f` on every expression of `node` and its bodies, operands after their expression.
fn each_expr_in(node: &mut Node, f: &mut dyn FnMut(&mut Expr)) {
    fn expr(e: &mut Expr, f: &mut dyn FnMut(&mut Expr)) {
        f(e);
        match e {
            Expr::Load { index, .. } | Expr::ArrayLoad { index, .. } => expr(index, f),
            Expr::Binary { lhs, rhs, .. } => {
                expr(lhs, f);
                expr(rhs, f);
            }
            Expr::Unary { arg, .. }
            | Expr::Cast { arg, .. }
            | Expr::Bitcast { arg, .. }
            | Expr::Subgroup { arg, .. } => expr(arg, f),
            Expr::SubgroupShuffle { value, lane } => {
                expr(value, f);
                expr(lane, f);
            }
            Expr::Select {
                cond,
                on_true,
                on_false,
            } => {
                expr(cond, f);
                expr(on_true, f);
                expr(on_false, f);
            }
            Expr::Fma { a, b, c } => {
                expr(a, f);
                expr(b, f);
                expr(c, f);
            }
            Expr::Atomic {
                index,
                expected,
                value,
                ..
            } => {
                expr(index, f);
                if let Some(x) = expected {
                    expr(x, f);
                }
                expr(value, f);
            }
            Expr::Lit(_) | Expr::Var(_) | Expr::BufLen(_) | Expr::Builtin(_) => {}
        }
    }
    match node {
        Node::Let { value, .. } | Node::Assign { value, .. } => expr(value, f),
        Node::Store { index, value, .. } | Node::ArrayStore { index, value, .. } => {
            expr(index, f);
            expr(value, f);
        }
        Node::If {
            cond,
            then,
            otherwise,
        } => {
            expr(cond, f);
            then.iter_mut()
                .chain(otherwise.iter_mut())
                .for_each(|n| each_expr_in(n, f));
        }
        Node::Loop { from, to, body, .. } => {
            expr(from, f);
            expr(to, f);
            body.iter_mut().for_each(|n| each_expr_in(n, f));
        }
        Node::While { cond, body } => {
            expr(cond, f);
            body.iter_mut().for_each(|n| each_expr_in(n, f));
        }
        Node::Block(body) => body.iter_mut().for_each(|n| each_expr_in(n, f)),
        Node::Atomic {
            index,
            expected,
            value,
            ..
        } => {
            expr(index, f);
            if let Some(x) = expected {
                expr(x, f);
            }
            expr(value, f);
        }
        Node::TileLoad { offset, stride, .. } | Node::TileStore { offset, stride, .. } => {
            expr(offset, f);
            expr(stride, f);
        }
        Node::PrivateArray { .. }
        | Node::Tile { .. }
        | Node::TileMultiplyAdd { .. }
        | Node::Barrier
        | Node::Return
        | Node::Break
        | Node::Continue => {}
    }
}

/// With the wrong backend as its own oracle, the differential run has nothing to compare with
/// and finds nothing; the metamorphic run, given the same wrong backend as its "reference" (asked
/// only whether a result is indeterminate, which it never says), finds the bug, shrinks it, and
/// names a variant made by one of `rewrites` on which the backend disagrees with itself, while the
/// correct reference gives the variant and the minimal case the same outputs.
fn assert_found_without_a_reference(bug: OneForm, rewrites: &[Rewrite], cases: u64) {
    let wrong = || OneFormWrong {
        inner: ReferenceBackend::new(),
        bug,
    };
    let oracle = Untraced(wrong());
    let options = FuzzOptions {
        cases,
        seed: 53,
        batch: 32,
        max_mismatches: 1,
        reduce_attempts: 1000,
        ..FuzzOptions::default()
    };
    let differential = fuzz::run(&options, &oracle, &wrong(), &|_| {});
    assert_eq!(
        differential.mismatched, 0,
        "{bug:?}: the backend agrees with itself"
    );
    let summary = metamorphic::run(&options, &oracle, &wrong(), &|_| {});
    let Some(found) = summary.mismatches.first() else {
        panic!("{bug:?} was not found in {} programs", summary.programs);
    };
    eprintln!(
        "{bug:?}: found after {} programs\n{}",
        summary.programs,
        found.report()
    );
    let variant = found.variant.as_ref().expect("the variant that disagreed");
    assert!(
        rewrites.iter().any(|r| r.name() == variant.rewrite),
        "{}",
        found.report()
    );
    assert!(
        found.minimal.program.body.len() <= 5,
        "not shrunk:\n{}",
        found.report()
    );
    let run = |backend: &dyn VyreBackend, case: &vyre_conformance::r#gen::GeneratedCase| {
        backend
            .dispatch(&case.program, &case.inputs, &case.config)
            .unwrap_or_else(|e| panic!("{e}"))
    };
    assert_ne!(run(&wrong(), &found.minimal), run(&wrong(), &variant.case));
    let reference = ReferenceBackend::new();
    assert_eq!(
        run(&reference, &found.minimal),
        run(&reference, &variant.case)
    );
}

#[test]
fn a_min_wrong_in_one_operand_order_is_found_without_a_reference() {
    assert_found_without_a_reference(
        OneForm::MinWithNegationOnTheRight,
        &[
            Rewrite::SwapOperands,
            Rewrite::AddOpaqueZero,
            Rewrite::XorOpaqueZero,
        ],
        640,
    );
}

#[test]
fn a_shift_wrong_only_for_literal_amounts_is_found_without_a_reference() {
    assert_found_without_a_reference(
        OneForm::LiteralShiftAmountOnFourBits,
        &[Rewrite::AddOpaqueZero, Rewrite::XorOpaqueZero],
        640,
    );
}

/// The same on wgpu (lavapipe in CI): its programs and their variants agree with each other.
#[test]
fn wgpu_agrees_with_itself_under_every_rewrite() {
    let Some(wgpu) =
        vyre_driver_wgpu::testing::backend_or_skip("wgpu_agrees_with_itself_under_every_rewrite")
    else {
        return;
    };
    let reference = vyre_conformance::report::reference_for(&wgpu);
    let options = FuzzOptions {
        cases: 48,
        seed: 59,
        batch: 16,
        ..FuzzOptions::default()
    };
    let summary = metamorphic::run(&options, &reference, &wgpu, &|_| {});
    assert!(
        summary.mismatches.is_empty(),
        "{}",
        summary.mismatches[0].report()
    );
    assert!(summary.compared() > 40, "{summary:?}");
}
