//! IR passes: backend-neutral transformations of a validated program, run before any lowering.
//!
//! A [`Pass`] takes a program that [`crate::validate()`] accepted (with the facts it proved) and
//! returns either [`Outcome::Unchanged`] or a new program that **means the same thing under
//! SEMANTICS.md**: for every input, the same integer and bool outputs bit for bit, and float outputs
//! within the intervals the law already allows a backend. That is the whole contract, and
//! `vyre_conformance::fuzz::check_pass` tests it for any pass, built in or not. A pass is
//! deterministic (the same program gives the same result), and its output must validate.
//!
//! A [`Pipeline`] runs passes in order. After every pass that changed the program it validates the
//! result again (the next pass needs the facts, and a pass that breaks a rule is caught at the
//! pass that broke it, as a [`PassError`] naming it). [`Pipeline::key`] names the passes and their
//! versions; backends put it in every cache key that depends on the code they emit, so turning a
//! pass off or changing one never reuses a stale pipeline.
//!
//! ```
//! use vyre_foundation::ir::{BufferDecl, DataType, Expr, Node, Program};
//! use vyre_foundation::pass::{Outcome, Pass, Pipeline};
//! use vyre_foundation::validate::Validated;
//!
//! /// Never changes anything: the smallest correct pass.
//! #[derive(Debug)]
//! struct Nothing;
//!
//! impl Pass for Nothing {
//!     fn name(&self) -> &'static str {
//!         "nothing"
//!     }
//!     fn run(&self, _program: &Validated<'_>) -> Outcome {
//!         Outcome::Unchanged
//!     }
//! }
//!
//! let program = Program::new(
//!     vec![BufferDecl::output("o", 0, DataType::U32).with_count(4)],
//!     [64, 1, 1],
//!     vec![Node::store("o", Expr::gid_x(), Expr::u32(1))],
//! );
//! let pipeline = Pipeline::empty().with(Nothing);
//! let optimized = pipeline.run(&program)?;
//! assert_eq!(*optimized, program);
//! assert_eq!(pipeline.key(), "nothing@1");
//! # Ok::<(), vyre_foundation::pass::PassError>(())
//! ```

pub mod cse;
pub mod dce;
mod edit;
mod effects;
#[cfg(test)]
mod flow_test;
pub mod fold;
pub mod licm;
mod pipeline;
mod registry;
pub(crate) mod rewrite;
pub mod strength;
pub mod unroll;

pub use cse::Cse;
pub use dce::DeadCode;
pub use fold::ConstantFold;
pub use licm::Licm;
pub use pipeline::{PassError, Pipeline};
pub use registry::{builtin, by_name};
pub use strength::StrengthReduce;
pub use unroll::Unroll;

use crate::ir::Program;
use crate::validate::Validated;

/// One transformation of a validated program. See the module docs for the contract.
pub trait Pass: Send + Sync + std::fmt::Debug {
    /// A short, stable name: how `vyre-conform fuzz --pass NAME` and [`by_name`] find it, and part of
    /// [`Pipeline::key`].
    fn name(&self) -> &'static str;

    /// The pass's version, part of [`Pipeline::key`]: raise it whenever the pass's output for some
    /// program changes, so that caches keyed on the pipeline do not serve the old output.
    fn version(&self) -> u32 {
        1
    }

    /// Transforms `program`. [`Outcome::Changed`] must hold a program that validates and means what
    /// `program.program()` means.
    fn run(&self, program: &Validated<'_>) -> Outcome;
}

/// What a [`Pass`] did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Nothing: the program is left as it was (no copy is made).
    Unchanged,
    /// A new program of the same meaning.
    Changed(Program),
}

impl Outcome {
    /// True for [`Outcome::Changed`].
    #[must_use]
    pub fn changed(&self) -> bool {
        matches!(self, Self::Changed(_))
    }

    /// The program after the pass: the new one, or `original` when nothing changed.
    #[must_use]
    pub fn into_program(self, original: &Program) -> Program {
        match self {
            Self::Unchanged => original.clone(),
            Self::Changed(program) => program,
        }
    }
}
