//! Checking an IR pass with the fuzzer: any transformation of programs, built in or not, against
//! the contract of `vyre_foundation::pass` (the transformed program validates and means what the
//! original means under SEMANTICS.md).
//!
//! [`check_pass`] draws programs as the differential fuzzer does ([`crate::fuzz::generate`], with
//! [`FuzzOptions::config`]), and every case draws [`Feature::PassShapes`] where the configuration
//! has it, as the default one does: constant subexpressions at edge literals, operations by
//! constants, repeated subexpressions and loads around stores, dead lets and overwritten stores,
//! counted loops with literal bounds, loop-invariant lets and barriers inside uniform loops, the
//! things passes act on. For each it applies the pass and, when the pass changed
//! the program, checks that
//!
//! - the buffers and workgroup size are the same (callers pass the same inputs and read the same
//!   outputs, optimized or not),
//! - the transformed program passes `vyre_foundation::validate`,
//! - on the reference ([`ReferenceBackend`]), the transformed program gives the original's outputs
//!   under the differential fuzzer's rules: integers and bools bit for bit, floats within
//!   [`floats_agree`](crate::fuzz::floats_agree) and [`f16_agree`](crate::fuzz::f16_agree);
//!   programs whose original result SEMANTICS.md leaves open are skipped,
//! - and with [`check_pass_on`], that a backend runs the transformed program to the same outputs.
//!
//! A pass that panics fails too. The first failing program is shrunk as a differential mismatch
//! is (proptest on the recipe, then [`reduce`](crate::fuzz::reduce)), asking the same question
//! of every smaller program, and [`PassMismatch::report`] shows the shrunk program, what the pass
//! made of it, its inputs and both outputs. [`PassSummary::changed`] counts the programs the pass
//! changed: a pass that changes nothing is trivially right, and [`PassSummary::report`] says so.
//!
//! A [`Pass`](vyre_foundation::pass::Pass) is checked through [`apply_pass`], a
//! [`Pipeline`](vyre_foundation::pass::Pipeline) through [`apply_pipeline`]; [`map_exprs`] is the
//! traversal most small passes need. Your own pass, checked (FUZZING.md, "Fuzzing your own IR
//! pass", walks through this):
//!
//! ```
//! use vyre_conformance::fuzz::{self, FuzzOptions};
//! use vyre_foundation::ir::{BinOp, Expr, Literal};
//! use vyre_foundation::pass::{Outcome, Pass};
//! use vyre_foundation::validate::Validated;
//!
//! /// `x * 2` as `x + x` on integers: right, since both wrap alike.
//! #[derive(Debug)]
//! struct DoubleByAdding;
//!
//! impl Pass for DoubleByAdding {
//!     fn name(&self) -> &'static str {
//!         "double-by-adding"
//!     }
//!     fn run(&self, program: &Validated<'_>) -> Outcome {
//!         let two = |e: &Expr| matches!(e, Expr::Lit(Literal::U32(2) | Literal::I32(2) | Literal::U64(2) | Literal::I64(2)));
//!         let out = fuzz::map_exprs(program.program(), &mut |e| match e {
//!             Expr::Binary { op: BinOp::Mul, lhs, rhs } if two(rhs) && !lhs.has_atomic() => {
//!                 Some(Expr::add((**lhs).clone(), (**lhs).clone()))
//!             }
//!             _ => None,
//!         });
//!         if out == *program.program() { Outcome::Unchanged } else { Outcome::Changed(out) }
//!     }
//! }
//!
//! let options = FuzzOptions { cases: 1000, seed: 3, ..FuzzOptions::default() };
//! let summary = fuzz::check_pass(|p| fuzz::apply_pass(&DoubleByAdding, p), &options);
//! assert!(summary.proved_something(), "{}", summary.report());
//! assert!(summary.changed > 50);
//! ```
//!
//! A deliberately wrong strength reduction, `x / 2` as `x >> 1` on every integer type (for a
//! negative `i32`, division truncates toward zero and the shift rounds down), is caught and
//! shrunk:
//!
//! ```
//! use vyre_conformance::fuzz::{self, FuzzOptions};
//! use vyre_foundation::ir::{BinOp, Expr, Program};
//!
//! fn halve_by_shifting(program: &Program) -> Program {
//!     fuzz::map_exprs(program, &mut |e| match e {
//!         Expr::Binary { op: BinOp::Div, lhs, rhs } if **rhs == Expr::i32(2) => {
//!             Some(Expr::shr((**lhs).clone(), Expr::u32(1)))
//!         }
//!         _ => None,
//!     })
//! }
//!
//! let options = FuzzOptions { cases: 2000, seed: 1, max_mismatches: 1, ..FuzzOptions::default() };
//! let summary = fuzz::check_pass(halve_by_shifting, &options);
//! let found = &summary.mismatches[0];
//! println!("{}", found.report());
//! assert!(found.program().to_string().contains("/ 2i"));
//! assert!(found.program().body.len() <= 4);
//!
//! // The identity is a correct pass, but it proves nothing: the report says so.
//! let options = FuzzOptions { cases: 50, ..options };
//! let summary = fuzz::check_pass(|p| p.clone(), &options);
//! assert_eq!(summary.mismatched, 0);
//! assert!(summary.report().contains("proves nothing"));
//! ```

mod adapter;
mod rewrite;
mod summary;
mod verdict;

pub use adapter::{apply_pass, apply_pipeline};
pub use rewrite::map_exprs;
pub use summary::{PassMismatch, PassSummary};

use std::sync::atomic::AtomicU64;

use vyre_driver::VyreBackend;
use vyre_foundation::ir::Program;

use crate::ReferenceBackend;
use crate::fuzz::campaign::Campaign;
use crate::fuzz::{FuzzOptions, FuzzProgress, config_for, drawable};
use crate::r#gen::{Feature, Features, GenConfig};
use verdict::PassCheck;

/// Checks `pass` on `options.cases` generated programs, running both forms on the reference; see
/// the [module docs](self).
pub fn check_pass(pass: impl Fn(&Program) -> Program + Sync, options: &FuzzOptions) -> PassSummary {
    check_pass_with(&pass, options, None, &|_| {})
}

/// [`check_pass`], and every transformed program also run on `backend` and compared with the
/// original's outputs on the reference (run at `backend`'s subgroup size). Programs use only the
/// generator features `backend` supports; a program it refuses is compared on the reference only.
pub fn check_pass_on(
    pass: impl Fn(&Program) -> Program + Sync,
    options: &FuzzOptions,
    backend: &dyn VyreBackend,
) -> PassSummary {
    check_pass_with(&pass, options, Some(backend), &|_| {})
}

/// [`check_pass`] or, with a `backend`, [`check_pass_on`], calling `progress` after every batch.
pub fn check_pass_with(
    pass: &(dyn Fn(&Program) -> Program + Sync),
    options: &FuzzOptions,
    backend: Option<&dyn VyreBackend>,
    progress: &(dyn Fn(&FuzzProgress) + Sync),
) -> PassSummary {
    let reference = match backend {
        Some(b) => crate::report::reference_for(b),
        None => ReferenceBackend::new(),
    };
    let target: &dyn VyreBackend = backend.unwrap_or(&reference);
    let mut config = config_for(&options.config, target);
    // What the check is about: every case that may draw the pass shapes does.
    config.kept = config
        .kept
        .union(Features::none().with(Feature::PassShapes));
    let options = &FuzzOptions {
        config,
        ..options.clone()
    };
    let check = PassCheck {
        pass,
        options,
        reference: &reference,
        target: backend,
        changed: AtomicU64::new(0),
    };
    let campaign = Campaign {
        options,
        config: GenConfig {
            features: drawable(options.config.features, &reference, target),
            ..options.config.clone()
        },
        check: &check,
    };
    let run = campaign.run(progress);
    let mismatches = run
        .mismatches
        .into_iter()
        .map(|found| {
            let look = check.look(&found.minimal);
            PassMismatch {
                found,
                transformed: look.transformed.ok(),
                expected: look.expected,
                actual: look.actual,
            }
        })
        .collect();
    PassSummary {
        programs: run.programs,
        changed: check.changed.into_inner(),
        skipped: run.skipped,
        indeterminate: run.indeterminate,
        mismatched: run.mismatched,
        mismatches,
        ops_executed: run.ops_executed,
        elapsed: run.elapsed,
    }
}
