//! Constant folding: operators on literals become their value, exact identities drop what they
//! cannot change, and literal conditions choose their branch.
//!
//! **The law of this pass.** Every rewrite gives, for every input, exactly the bits the reference
//! interpreter (the executable form of SEMANTICS.md) computes for the expression it replaces, and
//! the value every conforming backend must compute; a result the law leaves open (an interval, a
//! device's choice, an indeterminate value) is never folded. In detail:
//!
//! - `int.rs`: integer and bool operators on literals, every rule of sections 4 and 5 (wrapping,
//!   `x / 0 = x`, `x % 0 = 0`, `MIN / -1 = MIN`, shifts mod the width, signed comparisons).
//! - `float.rs`: `f32` and `f16` operators on literals, only where section 7 pins one value
//!   (plain operands, exact and plain results; `div`, `rem` and the transcendental functions
//!   never), and comparisons with a NaN, which the law fixes as false.
//! - `convert.rs`: casts and bitcasts of literals (section 6): every move and integer conversion,
//!   integer to `f32`, saturating float-to-integer of finite values; never a NaN or an infinity
//!   to an integer, nor a rounding to `f16`.
//! - `identity.rs`: identities exact for every value of an integer or bool type (`x + 0`,
//!   `x * 0`, `x / 0 = x`, `x & ~0`, `x ^ x`, `select(true, a, b)`...), dropping only operands
//!   without atomics, plus casts and bitcasts that are moves; no float identity.
//! - `control.rs`: `if` on a literal, `while false`, and counted loops with a literal empty range.
//!
//! Atomics, loads, builtins, `buf_len` and subgroup operations are never evaluated: they are not
//! literals, and an operand holding an atomic is never dropped. Folding keeps every expression's
//! type and never makes an expression less uniform (a literal is uniform, and every other
//! replacement is an operand of what it replaces), so the result validates whenever the input did.
//!
//! ```
//! use vyre_foundation::ir::{BufferDecl, DataType, Expr, Node, Program};
//! use vyre_foundation::pass::{ConstantFold, Pipeline};
//!
//! let program = Program::new(
//!     vec![BufferDecl::output("o", 0, DataType::I32).with_count(4)],
//!     [4, 1, 1],
//!     vec![Node::store(
//!         "o",
//!         Expr::gid_x(),
//!         // `MIN / -1` is `MIN` under the law, and `x * 1` is `x`.
//!         Expr::mul(Expr::div(Expr::i32(i32::MIN), Expr::i32(-1)), Expr::i32(1)),
//!     )],
//! );
//! let folded = Pipeline::empty().with(ConstantFold).run(&program)?;
//! assert_eq!(folded.body, [Node::store("o", Expr::gid_x(), Expr::i32(i32::MIN))]);
//! # Ok::<(), vyre_foundation::pass::PassError>(())
//! ```

mod control;
mod convert;
mod float;
mod identity;
mod int;

use crate::ir::{DataType, Expr, Literal, Node};
use crate::pass::rewrite::{self, Rewrite};
use crate::pass::{Outcome, Pass};
use crate::validate::Validated;

/// The constant folding pass, `const_fold`; see the [module docs](self) for what it folds.
#[derive(Clone, Copy, Debug, Default)]
pub struct ConstantFold;

impl Pass for ConstantFold {
    fn name(&self) -> &'static str {
        "const_fold"
    }

    fn run(&self, program: &Validated<'_>) -> Outcome {
        let source = program.program();
        let atomic: Vec<bool> = program.buffer_uses().iter().map(|u| u.atomic).collect();
        let stable = |e: &Expr| rewrite::stable(e, source, &atomic);
        let mut folder = Folder {
            evidence: program,
            stable: &stable,
        };
        match rewrite::program(source, &mut folder) {
            Some(folded) => Outcome::Changed(folded),
            None => Outcome::Unchanged,
        }
    }
}

/// The rewrite: literals first, then identities, then statements.
struct Folder<'v, 'p> {
    evidence: &'v Validated<'p>,
    stable: &'v dyn Fn(&Expr) -> bool,
}

impl Rewrite for Folder<'_, '_> {
    fn expr(&mut self, original: &Expr, rebuilt: Option<Expr>) -> Option<Expr> {
        let current = rebuilt.as_ref().unwrap_or(original);
        // The evidence must agree with the folded literal's type; a disagreement would be a bug
        // somewhere, and leaving the expression alone is always correct.
        if let Some(value) = literal(current)
            && self.evidence.type_of(original).ok() == Some(value.ty())
        {
            return Some(Expr::Lit(value));
        }
        let Some((operand, inner)) = self.operand_types(original) else {
            return rebuilt;
        };
        let cx = identity::Context {
            operand,
            inner,
            stable: self.stable,
        };
        identity::simplify(current, &cx).or(rebuilt)
    }

    fn node(&mut self, original: &Node, rebuilt: Option<Node>, out: &mut Vec<Node>) -> bool {
        control::statement(rebuilt.as_ref().unwrap_or(original), out) || rewrite::push(rebuilt, out)
    }
}

impl Folder<'_, '_> {
    /// The type of the operands [`identity::Context`] describes, and for a bitcast of a bitcast
    /// the type of the inner one's argument; `None` where no identity applies.
    fn operand_types(&self, original: &Expr) -> Option<(DataType, Option<DataType>)> {
        let ty = |e: &Expr| self.evidence.type_of(e).ok();
        match original {
            Expr::Binary { lhs, .. } => Some((ty(lhs)?, None)),
            Expr::Unary { arg, .. } | Expr::Cast { arg, .. } => Some((ty(arg)?, None)),
            Expr::Bitcast { arg, .. } => {
                let inner = match &**arg {
                    Expr::Bitcast { arg: x, .. } => ty(x),
                    Expr::Lit(_)
                    | Expr::Var(_)
                    | Expr::Load { .. }
                    | Expr::ArrayLoad { .. }
                    | Expr::BufLen(_)
                    | Expr::Builtin(_)
                    | Expr::Binary { .. }
                    | Expr::Unary { .. }
                    | Expr::Select { .. }
                    | Expr::Cast { .. }
                    | Expr::Fma { .. }
                    | Expr::Atomic { .. }
                    | Expr::Subgroup { .. }
                    | Expr::SubgroupShuffle { .. } => None,
                };
                Some((ty(arg)?, inner))
            }
            Expr::Select { on_true, .. } => Some((ty(on_true)?, None)),
            Expr::Lit(_)
            | Expr::Var(_)
            | Expr::Load { .. }
            | Expr::ArrayLoad { .. }
            | Expr::BufLen(_)
            | Expr::Builtin(_)
            | Expr::Fma { .. }
            | Expr::Atomic { .. }
            | Expr::Subgroup { .. }
            | Expr::SubgroupShuffle { .. } => None,
        }
    }
}

/// The literal `e` evaluates to, when all its operands are literals and the law pins its value.
fn literal(e: &Expr) -> Option<Literal> {
    use identity::lit;
    match e {
        Expr::Binary { op, lhs, rhs } => {
            let (a, b) = (lit(lhs)?, lit(rhs)?);
            int::binary(*op, a, b).or_else(|| float::binary(*op, a, b))
        }
        Expr::Unary { op, arg } => {
            let a = lit(arg)?;
            int::unary(*op, a).or_else(|| float::unary(*op, a))
        }
        Expr::Cast { to, arg } => convert::cast(*to, lit(arg)?),
        Expr::Bitcast { to, arg } => convert::bitcast(*to, lit(arg)?),
        Expr::Fma { a, b, c } => float::fma(lit(a)?, lit(b)?, lit(c)?),
        // A select on a literal is an identity (its arms need not be literals).
        Expr::Select { .. }
        | Expr::Lit(_)
        | Expr::Var(_)
        | Expr::Load { .. }
        | Expr::ArrayLoad { .. }
        | Expr::BufLen(_)
        | Expr::Builtin(_)
        | Expr::Atomic { .. }
        | Expr::Subgroup { .. }
        | Expr::SubgroupShuffle { .. } => None,
    }
}

#[cfg(test)]
mod tests;
