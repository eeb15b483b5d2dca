//! The built-in passes and their order.
//!
//! This list lives apart from the [`Pass`] trait so that the passes, which implement the trait
//! from the folder's root, and the list, which names them, do not import each other in a circle.

use super::{ConstantFold, Pass, StrengthReduce};

/// The built-in passes, in the order [`super::Pipeline::standard`] runs them.
///
/// Folding comes first: it turns literal subtrees into literals and removes branches a literal
/// decides, which leaves less for every later pass and exposes the literal operands strength
/// reduction looks for.
#[must_use]
pub fn builtin() -> Vec<Box<dyn Pass>> {
    vec![Box::new(ConstantFold), Box::new(StrengthReduce)]
}

/// The built-in pass called `name`, if there is one.
#[must_use]
pub fn by_name(name: &str) -> Option<Box<dyn Pass>> {
    builtin().into_iter().find(|pass| pass.name() == name)
}
