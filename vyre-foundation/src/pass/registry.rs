//! The built-in passes and their order.
//!
//! This list lives apart from the [`Pass`] trait so that the passes, which implement the trait
//! from the folder's root, and the list, which names them, do not import each other in a circle.

use super::{ConstantFold, Cse, DeadCode, Licm, Pass, StrengthReduce, Unroll};

/// The built-in passes, in the order [`super::Pipeline::standard`] runs them:
///
/// 1. [`const_fold`](ConstantFold): literal subtrees become literals and branches a literal
///    decides go, which leaves less for every later pass and makes loop bounds literal;
/// 2. [`dce`](DeadCode), so that the others work on less, and a `continue` ending a loop body no
///    longer keeps `unroll` from the loop;
/// 3. [`unroll`](Unroll), whose copies give literal values to what read the loop variable;
/// 4. [`const_fold`](ConstantFold) again, over those literal values;
/// 5. [`strength_reduce`](StrengthReduce), on the literal operands folding left;
/// 6. [`licm`](Licm) on the loops left, before `cse`, so that an expression repeated inside a loop
///    and outside it is shared once it stands before the loop;
/// 7. [`cse`](Cse) last, over the straight-line code the others made longer.
#[must_use]
pub fn builtin() -> Vec<Box<dyn Pass>> {
    vec![
        Box::new(ConstantFold),
        Box::new(DeadCode),
        Box::new(Unroll),
        Box::new(ConstantFold),
        Box::new(StrengthReduce),
        Box::new(Licm),
        Box::new(Cse),
    ]
}

/// The built-in pass called `name`, if there is one.
#[must_use]
pub fn by_name(name: &str) -> Option<Box<dyn Pass>> {
    builtin().into_iter().find(|pass| pass.name() == name)
}
