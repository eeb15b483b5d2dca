//! Deliberately wrong IR passes, each wrong in one named way and right otherwise: they prove that
//! [`check_pass`](crate::fuzz::check_pass) catches and shrinks the bugs real passes have
//! (`conformance/tests/planted_passes.rs` checks each is caught within 5000 programs).
//!
//! | pass | what it gets wrong |
//! |---|---|
//! | [`wrong_fold`] | folds `i32` `a + b` of literals with saturation, `u32` `a - b` without wrapping, and `x / 0` to `0` (SEMANTICS.md: wrapping, and `x / 0 = x`) |
//! | [`cse_across_store`] | reuses an earlier `let` of the same loading expression after a store to the buffer it loads |
//! | [`licm_across_barrier`] | hoists a loop-invariant `let` whose load's buffer the loop stores to at other indices, as if only this invocation's own stores could change it (a barrier in the loop brings the others') |
//! | [`unroll_drops_last_trip`] | unrolls a counted loop with literal bounds one trip short |
//!
//! ```
//! use vyre_conformance::fuzz::{self, FuzzOptions, planted_passes};
//!
//! let options = FuzzOptions { cases: 1000, seed: 1, max_mismatches: 1, ..FuzzOptions::default() };
//! let summary = fuzz::check_pass(planted_passes::unroll_drops_last_trip, &options);
//! assert!(summary.mismatched > 0);
//! ```

mod cse;
mod fold;
mod licm;
mod unroll;

pub use cse::cse_across_store;
pub use fold::wrong_fold;
pub use licm::licm_across_barrier;
pub use unroll::unroll_drops_last_trip;

use vyre_foundation::ir::{Expr, Node, Program};

/// A planted pass: its name and the transformation.
pub type Planted = (&'static str, fn(&Program) -> Program);

/// Every planted pass with its name.
pub const ALL: [Planted; 4] = [
    ("wrong-fold", wrong_fold),
    ("cse-across-store", cse_across_store),
    ("licm-across-barrier", licm_across_barrier),
    ("unroll-drops-last-trip", unroll_drops_last_trip),
];

/// Calls `f` on every body of `body`, inner bodies before the bodies holding them, `body` itself
/// last.
fn each_body_mut(body: &mut Vec<Node>, f: &mut dyn FnMut(&mut Vec<Node>)) {
    for node in body.iter_mut() {
        match node {
            Node::If {
                then, otherwise, ..
            } => {
                each_body_mut(then, f);
                each_body_mut(otherwise, f);
            }
            Node::Loop { body, .. } | Node::While { body, .. } | Node::Block(body) => {
                each_body_mut(body, f);
            }
            Node::Let { .. }
            | Node::Assign { .. }
            | Node::Store { .. }
            | Node::PrivateArray { .. }
            | Node::ArrayStore { .. }
            | Node::Tile { .. }
            | Node::TileLoad { .. }
            | Node::TileStore { .. }
            | Node::TileMultiplyAdd { .. }
            | Node::Barrier
            | Node::Return
            | Node::Break
            | Node::Continue
            | Node::Atomic { .. } => {}
        }
    }
    f(body);
}

/// True when `e` reads memory (a load) and has no effect and no subgroup operation: the
/// expressions the memory-moving passes move.
fn pure_load(e: &Expr) -> bool {
    let mut loads = false;
    vyre_foundation::for_each_subexpr(e, |s| loads |= matches!(s, Expr::Load { .. }));
    loads && !e.has_atomic() && !e.has_subgroup_op()
}
