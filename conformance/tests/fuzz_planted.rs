//! The fuzzer must find a planted bug and shrink it to a program of a few nodes.
//!
//! `PlantedBug` wraps the reference backend and, behind its switch, rewrites every `i32` shift right
//! into a logical one (a classic lowering slip). Only programs that shift a negative `i32` by a
//! non-zero amount and store the result can notice.

use vyre_conformance::ReferenceBackend;
use vyre_conformance::fuzz::{self, FuzzOptions};
use vyre_driver::{BackendError, Capabilities, DispatchConfig, VyreBackend};
use vyre_foundation::ir::{BinOp, DataType, Expr, Node, Program};

/// The reference, with an optional wrong `shr` on `i32`.
struct PlantedBug {
    inner: ReferenceBackend,
    logical_i32_shr: bool,
}

impl VyreBackend for PlantedBug {
    fn id(&self) -> &str {
        "planted-bug"
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
        if !self.logical_i32_shr {
            return self.inner.dispatch(program, inputs, config);
        }
        let mut wrong = program.clone();
        // Types are looked up in the original program: the rewrite keeps every name and type.
        let types = VarTypes::new(program);
        for node in &mut wrong.body {
            rewrite_node(node, &types, program);
        }
        self.inner.dispatch(&wrong, inputs, config)
    }
}

/// Variable types of a generated program: every variable name is unique there, so a flat map works.
struct VarTypes(Vec<(String, DataType)>);

impl VarTypes {
    fn new(program: &Program) -> Self {
        let mut out = Vec::new();
        collect_vars(&program.body, program, &mut out);
        VarTypes(out)
    }

    fn get(&self, name: &str) -> Option<DataType> {
        self.0.iter().find(|(n, _)| n == name).map(|(_, t)| *t)
    }
}

fn collect_vars(body: &[Node], program: &Program, out: &mut Vec<(String, DataType)>) {
    for node in body {
        match node {
            Node::Let { name, value } => {
                let known = VarTypes(out.clone());
                if let Some(t) =
                    vyre_foundation::validate::expr_type(value, program, &|n| known.get(n))
                {
                    out.push((name.clone(), t));
                }
            }
            Node::Loop { var, from, .. } => {
                let known = VarTypes(out.clone());
                if let Some(t) =
                    vyre_foundation::validate::expr_type(from, program, &|n| known.get(n))
                {
                    out.push((var.clone(), t));
                }
            }
            _ => {}
        }
        for b in node.bodies() {
            collect_vars(b, program, out);
        }
    }
}

fn rewrite_node(node: &mut Node, types: &VarTypes, program: &Program) {
    match node {
        Node::Let { value, .. } | Node::Assign { value, .. } => rewrite(value, types, program),
        Node::Store { index, value, .. } | Node::ArrayStore { index, value, .. } => {
            rewrite(index, types, program);
            rewrite(value, types, program);
        }
        Node::If {
            cond,
            then,
            otherwise,
        } => {
            rewrite(cond, types, program);
            then.iter_mut()
                .chain(otherwise.iter_mut())
                .for_each(|n| rewrite_node(n, types, program));
        }
        Node::Loop { from, to, body, .. } => {
            rewrite(from, types, program);
            rewrite(to, types, program);
            body.iter_mut()
                .for_each(|n| rewrite_node(n, types, program));
        }
        Node::While { cond, body } => {
            rewrite(cond, types, program);
            body.iter_mut()
                .for_each(|n| rewrite_node(n, types, program));
        }
        Node::Atomic {
            index,
            expected,
            value,
            ..
        } => {
            rewrite(index, types, program);
            if let Some(expected) = expected {
                rewrite(expected, types, program);
            }
            rewrite(value, types, program);
        }
        Node::Block(body) => body
            .iter_mut()
            .for_each(|n| rewrite_node(n, types, program)),
        Node::TileLoad { offset, stride, .. } | Node::TileStore { offset, stride, .. } => {
            rewrite(offset, types, program);
            rewrite(stride, types, program);
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

/// Rewrites `a >> b` on `i32` into `bitcast<i32>(bitcast<u32>(a) >> b)`, everywhere below `expr`.
fn rewrite(expr: &mut Expr, types: &VarTypes, program: &Program) {
    let ty = vyre_foundation::validate::expr_type(expr, program, &|n| types.get(n));
    match expr {
        Expr::Binary {
            op: BinOp::Shr,
            lhs,
            rhs,
        } if ty == Some(DataType::I32) => {
            rewrite(lhs, types, program);
            rewrite(rhs, types, program);
            let a = Expr::bitcast(DataType::U32, (**lhs).clone());
            *expr = Expr::bitcast(DataType::I32, Expr::shr(a, (**rhs).clone()));
        }
        Expr::Binary { lhs, rhs, .. } => {
            rewrite(lhs, types, program);
            rewrite(rhs, types, program);
        }
        Expr::Load { index, .. } | Expr::ArrayLoad { index, .. } => rewrite(index, types, program),
        Expr::Unary { arg, .. }
        | Expr::Cast { arg, .. }
        | Expr::Bitcast { arg, .. }
        | Expr::Subgroup { arg, .. } => rewrite(arg, types, program),
        Expr::SubgroupShuffle { value, lane } => {
            rewrite(value, types, program);
            rewrite(lane, types, program);
        }
        Expr::Select {
            cond,
            on_true,
            on_false,
        } => {
            rewrite(cond, types, program);
            rewrite(on_true, types, program);
            rewrite(on_false, types, program);
        }
        Expr::Fma { a, b, c } => {
            rewrite(a, types, program);
            rewrite(b, types, program);
            rewrite(c, types, program);
        }
        Expr::Atomic {
            index,
            expected,
            value,
            ..
        } => {
            rewrite(index, types, program);
            if let Some(e) = expected {
                rewrite(e, types, program);
            }
            rewrite(value, types, program);
        }
        Expr::Lit(_) | Expr::Var(_) | Expr::BufLen(_) | Expr::Builtin(_) => {}
    }
}

fn count_nodes(body: &[Node]) -> usize {
    body.iter()
        .map(|n| 1 + n.bodies().map(|b| count_nodes(b)).sum::<usize>())
        .sum()
}

fn options(dir: &std::path::Path) -> FuzzOptions {
    FuzzOptions {
        cases: 3000,
        seed: 11,
        max_mismatches: 1,
        batch: 64,
        regressions_dir: Some(dir.to_path_buf()),
        ..FuzzOptions::default()
    }
}

#[test]
fn planted_logical_i32_shr_is_found_and_shrunk_to_a_few_nodes() {
    let reference = ReferenceBackend::new();
    let buggy = PlantedBug {
        inner: ReferenceBackend::new(),
        logical_i32_shr: true,
    };
    let dir = std::env::temp_dir().join(format!("vyre-planted-{}", std::process::id()));
    let summary = fuzz::run(&options(&dir), &reference, &buggy, &|_| {});
    let Some(found) = summary.mismatches.first() else {
        panic!(
            "the planted bug was not found in {} programs",
            summary.programs
        );
    };
    eprintln!("{}", found.report());
    let nodes = count_nodes(&found.minimal.program.body);
    // `let tid`, `let ltid` (kept by the reducer) and the one store that shows the wrong shift.
    assert!(
        nodes <= 4,
        "the minimal program has {nodes} nodes:\n{}",
        found.report()
    );
    assert!(
        found.minimal.program.to_string().contains(">>"),
        "{}",
        found.report()
    );
    // The saved case replays as a failure against the bug and as agreement without it.
    let saved = found
        .saved
        .as_ref()
        .unwrap_or_else(|| panic!("the case was not saved"));
    let text = std::fs::read_to_string(saved).unwrap_or_else(|e| panic!("{e}"));
    let regression = fuzz::Regression::from_json(&text).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(regression.case.program, found.minimal.program);
    assert!(matches!(
        fuzz::replay(&regression, &reference, &buggy),
        fuzz::Verdict::Mismatch(_)
    ));
    let fixed = PlantedBug {
        inner: ReferenceBackend::new(),
        logical_i32_shr: false,
    };
    assert!(matches!(
        fuzz::replay(&regression, &reference, &fixed),
        fuzz::Verdict::Agree { .. }
    ));
    if std::env::var_os("VYRE_SAVE_PLANTED").is_some() {
        let mut seed = regression.clone();
        seed.note = format!(
            "seed case: the minimal program the planted logical-i32-shr bug shrank to; every backend must shift negative i32 arithmetically. Found as: {}",
            regression.note
        );
        let _ = seed.save(&fuzz::checked_in_dir());
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A regressions directory that cannot be written is said in the mismatch (and its report), not
/// dropped: found from outside, where such a save vanished without a word.
#[test]
fn a_failed_regression_save_is_reported_with_the_mismatch() {
    let reference = ReferenceBackend::new();
    let buggy = PlantedBug {
        inner: ReferenceBackend::new(),
        logical_i32_shr: true,
    };
    // A regular file where the directory should be: create_dir_all fails.
    let file = std::env::temp_dir().join(format!("vyre-planted-file-{}", std::process::id()));
    std::fs::write(&file, b"not a directory").unwrap_or_else(|e| panic!("{e}"));
    let summary = fuzz::run(&options(&file), &reference, &buggy, &|_| {});
    let found = summary.mismatches.first().expect("the planted bug");
    assert!(found.saved.is_none());
    let why = found.save_error.as_deref().expect("the save's error");
    assert!(why.contains("Fix:"), "{why}");
    assert!(found.report().contains(why), "{}", found.report());
    let _ = std::fs::remove_file(&file);
}

#[test]
fn with_the_switch_off_the_wrapper_agrees_with_the_reference() {
    let reference = ReferenceBackend::new();
    let fixed = PlantedBug {
        inner: ReferenceBackend::new(),
        logical_i32_shr: false,
    };
    let options = FuzzOptions {
        cases: 300,
        seed: 11,
        regressions_dir: None,
        ..FuzzOptions::default()
    };
    let summary = fuzz::run(&options, &reference, &fixed, &|_| {});
    assert!(
        summary.mismatches.is_empty(),
        "{}",
        summary.mismatches[0].report()
    );
    assert_eq!(summary.programs, 300);
}
