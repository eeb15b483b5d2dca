//! The fuzzer's DataFusion mode: programs the generator shapes as functions
//! (`GenConfig::udf`) run as `VyreUdf`s inside DataFusion queries (`UdfBackend`) and are compared
//! with the reference. Every generated program is a function `VyreUdf` accepts, the reference
//! behind DataFusion agrees with the reference, a planted wrong backend behind DataFusion is
//! caught and shrunk, and a dispatch that is not one row per invocation is refused, not run.
//! The 10 000-program run on wgpu is `.ci/run`'s (`vyre-conform fuzz --datafusion`).

use std::sync::Arc;

use crate::common;
use vyre::ir::{BinOp, BufferDecl, DataType, Expr, Node, Program};
use vyre::{BackendError, Capabilities, DeviceBuffer, DispatchConfig, Step, VyreBackend};
use vyre_conformance::ReferenceBackend;
use vyre_conformance::fuzz::{self, FuzzOptions, FuzzSummary};
use vyre_conformance::r#gen::GenConfig;
use vyre_datafusion::{UdfBackend, VyreUdf};

/// Runs `cases` generated functions of `seed` through DataFusion on `inner` against the reference.
fn run(inner: Arc<dyn VyreBackend>, cases: u64, seed: u64) -> FuzzSummary {
    let candidate = UdfBackend::new(inner).expect("a runtime");
    let options = FuzzOptions {
        cases,
        seed,
        config: GenConfig::udf(),
        max_mismatches: 1,
        ..FuzzOptions::default()
    };
    let reference = vyre_conformance::report::reference_for(&candidate);
    fuzz::run(&options, &reference, &candidate, &|_| {})
}

/// No mismatch, and at least 95% of the programs compared (a mode that skips them all checks
/// nothing).
fn assert_clean(summary: &FuzzSummary) {
    if let Some(m) = summary.mismatches.first() {
        panic!(
            "{} mismatches in {} programs; the first:\n{}",
            summary.mismatched,
            summary.programs,
            m.report()
        );
    }
    assert_eq!(summary.mismatched, 0);
    assert!(
        summary.compared() * 100 >= summary.programs * 95,
        "only {} of {} programs compared ({} skipped, {} indeterminate)",
        summary.compared(),
        summary.programs,
        summary.skipped,
        summary.indeterminate
    );
}

#[test]
fn every_generated_function_is_one_vyre_udf_accepts() {
    let backend: Arc<dyn VyreBackend> = Arc::new(ReferenceBackend::new());
    for index in 0..2000 {
        let (_, case) = fuzz::generate(&GenConfig::udf(), 3, index).expect("a case");
        if let Err(e) = VyreUdf::builder("f", case.program.clone())
            .backend(Arc::clone(&backend))
            .build()
        {
            panic!("case {index}: {e}\n{}", case.program);
        }
    }
}

#[test]
fn generated_functions_agree_with_the_reference_behind_datafusion() {
    let summary = run(Arc::new(ReferenceBackend::new()), 600, 1);
    assert_clean(&summary);
    assert_eq!(summary.programs, 600);
}

#[test]
fn generated_functions_on_wgpu_agree_with_the_reference() {
    let Some(wgpu) = common::wgpu("generated_functions_on_wgpu_agree_with_the_reference") else {
        return;
    };
    let started = std::time::Instant::now();
    let summary = run(wgpu, 1000, 2);
    eprintln!(
        "{} programs, {} compared, {} skipped, {} mismatches, {:.1} s",
        summary.programs,
        summary.compared(),
        summary.skipped,
        summary.mismatched,
        started.elapsed().as_secs_f64()
    );
    assert_clean(&summary);
}

#[test]
fn a_dispatch_that_is_not_one_row_per_invocation_is_refused() {
    let backend = UdfBackend::new(Arc::new(ReferenceBackend::new())).expect("a runtime");
    let program = |count: u32| {
        Program::new(
            vec![
                BufferDecl::read("x", 0, DataType::U32).with_count(count),
                BufferDecl::output("y", 1, DataType::U32).with_count(8),
            ],
            [4, 1, 1],
            vec![Node::store(
                "y",
                Expr::gid_x(),
                Expr::load("x", Expr::gid_x()) + 1u32,
            )],
        )
    };
    let input = vec![0u8; 32];
    let two = DispatchConfig::new().with_grid([2, 1, 1]);
    assert!(
        backend
            .dispatch(&program(8), std::slice::from_ref(&input), &two)
            .is_ok()
    );
    // Three workgroups of four for eight rows, and an argument of another length.
    let three = DispatchConfig::new().with_grid([3, 1, 1]);
    for (p, config) in [(program(8), &three), (program(12), &two)] {
        let err = backend
            .dispatch(&p, &[vec![0u8; p.buffers[0].count as usize * 4]], config)
            .expect_err("not a function's dispatch");
        assert_eq!(err.kind_name(), "Unsupported", "{err}");
        assert!(err.to_string().contains("Fix:"), "{err}");
    }
    // Not elementwise: the function's own rule.
    let shifted = Program::new(
        vec![
            BufferDecl::read("x", 0, DataType::U32).with_count(8),
            BufferDecl::output("y", 1, DataType::U32).with_count(8),
        ],
        [4, 1, 1],
        vec![Node::store(
            "y",
            Expr::gid_x(),
            Expr::load("x", Expr::u32(0)),
        )],
    );
    let err = backend
        .dispatch(&shifted, &[input], &two)
        .expect_err("refused");
    assert_eq!(err.kind_name(), "Unsupported", "{err}");
}

/// The reference with `a - b` computed as `a + b`, on every path (`dispatch` and the resident
/// sequences `VyreUdf` runs).
struct SubAsAdd {
    inner: ReferenceBackend,
}

fn plant(program: &Program) -> Program {
    fuzz::map_exprs(program, &mut |e| match e {
        Expr::Binary {
            op: BinOp::Sub,
            lhs,
            rhs,
        } => Some(Expr::add((**lhs).clone(), (**rhs).clone())),
        _ => None,
    })
}

impl VyreBackend for SubAsAdd {
    fn id(&self) -> &str {
        "sub-as-add"
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
        self.inner.dispatch(&plant(program), inputs, config)
    }

    fn create_buffer(&self, bytes: u64) -> Result<DeviceBuffer, BackendError> {
        self.inner.create_buffer(bytes)
    }

    fn write_buffer(
        &self,
        buffer: &DeviceBuffer,
        offset: u64,
        data: &[u8],
    ) -> Result<(), BackendError> {
        self.inner.write_buffer(buffer, offset, data)
    }

    fn read_buffer(
        &self,
        buffer: &DeviceBuffer,
        range: std::ops::Range<u64>,
    ) -> Result<Vec<u8>, BackendError> {
        self.inner.read_buffer(buffer, range)
    }

    fn dispatch_sequence(&self, steps: &[Step<'_>]) -> Result<(), BackendError> {
        let wrong: Vec<Program> = steps.iter().map(|s| plant(s.program)).collect();
        let steps: Vec<Step<'_>> = steps
            .iter()
            .zip(&wrong)
            .map(|(s, p)| Step::new(p, s.buffers, s.config))
            .collect();
        self.inner.dispatch_sequence(&steps)
    }
}

#[test]
fn a_planted_wrong_backend_behind_datafusion_is_caught_and_shrunk() {
    let planted = Arc::new(SubAsAdd {
        inner: ReferenceBackend::new(),
    });
    let summary = run(planted, 500, 4);
    let Some(found) = summary.mismatches.first() else {
        panic!("sub-as-add was not found in {} programs", summary.programs);
    };
    let minimal = found.minimal.program.to_string();
    let nodes = count_nodes(&found.minimal.program.body);
    // `let tid`, `let ltid` and the store that shows the wrong subtraction.
    assert!(nodes <= 4, "{nodes} nodes:\n{}", found.report());
    assert!(minimal.contains(" - "), "{}", found.report());
    assert!(found.detail.contains("+datafusion"), "{}", found.detail);
}

fn count_nodes(body: &[Node]) -> usize {
    body.iter()
        .map(|n| 1 + n.bodies().map(|b| count_nodes(b)).sum::<usize>())
        .sum()
}
