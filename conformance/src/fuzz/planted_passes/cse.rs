//! A common-subexpression elimination that forgets stores.

use vyre_foundation::ir::{Expr, Node, Program};

use super::{each_body_mut, pure_load};

/// In every body, `let b = e` becomes `let b = a` when an earlier `let a = e` of the same body
/// holds the same loading expression. The bug: a store between them, which may change what `e`
/// loads, does not stop the reuse. Everything else that may change `e` does: an assignment, an
/// atomic, a barrier, or any statement with a body (an `if`, a loop or a block) ends every reuse.
#[must_use]
pub fn cse_across_store(program: &Program) -> Program {
    let mut out = program.clone();
    each_body_mut(&mut out.body, &mut |body| reuse_in(body));
    out
}

fn reuse_in(body: &mut [Node]) {
    // The loading expressions bound so far, with their variables.
    let mut available: Vec<(Expr, String)> = Vec::new();
    for node in body.iter_mut() {
        match node {
            Node::Let { name, value } if pure_load(value) => {
                if let Some((_, earlier)) = available.iter().find(|(e, _)| e == value) {
                    *value = Expr::var(earlier.as_str());
                } else {
                    available.push((value.clone(), name.clone()));
                }
            }
            // The bug: a store leaves every loaded value available.
            Node::Store { .. } => {}
            Node::Let { value, .. } if !value.has_atomic() => {}
            Node::Let { .. }
            | Node::Assign { .. }
            | Node::PrivateArray { .. }
            | Node::ArrayStore { .. }
            | Node::Tile { .. }
            | Node::TileLoad { .. }
            | Node::TileStore { .. }
            | Node::TileMultiplyAdd { .. }
            | Node::Atomic { .. }
            | Node::Barrier
            | Node::If { .. }
            | Node::Loop { .. }
            | Node::While { .. }
            | Node::Block(_)
            | Node::Return
            | Node::Break
            | Node::Continue => available.clear(),
        }
    }
}
