//! A loop-invariant code motion that does not see other invocations' stores.

use std::collections::BTreeSet;

use vyre_foundation::ir::{Expr, Node, Program};

use super::{each_body_mut, pure_load};

/// Moves each `let` at the top of a counted loop's body whose value the loop cannot change to just
/// before the loop. A value the loop cannot change uses no variable declared or assigned in the
/// loop, and loads only buffers the loop neither changes atomically nor stores to at the load's
/// own index. The bug is in that last rule: a store at another index may still write the loaded
/// element, and a barrier in the loop lets other invocations' stores to it (their own slots, at
/// indices this invocation's stores never name) arrive between trips.
#[must_use]
pub fn licm_across_barrier(program: &Program) -> Program {
    let mut out = program.clone();
    each_body_mut(&mut out.body, &mut hoist_in);
    out
}

/// Hoists the invariant lets of every loop of `body` to just before it.
fn hoist_in(body: &mut Vec<Node>) {
    let mut out = Vec::with_capacity(body.len());
    for mut node in std::mem::take(body) {
        if let Node::Loop {
            var, body: inner, ..
        } = &mut node
        {
            let effects = Effects::of(var, inner);
            let (hoisted, kept) = std::mem::take(inner)
                .into_iter()
                .partition(|n| matches!(n, Node::Let { value, .. } if effects.leaves(value)));
            *inner = kept;
            out.extend(hoisted);
        }
        out.push(node);
    }
    *body = out;
}

/// What a loop body may change.
struct Effects {
    /// Variables declared (the counter included) or assigned in the loop.
    vars: BTreeSet<String>,
    /// Buffers changed by atomics in the loop.
    atomics: BTreeSet<String>,
    /// Each store's buffer and index.
    stores: Vec<(String, Expr)>,
}

impl Effects {
    fn of(counter: &str, body: &[Node]) -> Self {
        let mut effects = Effects {
            vars: BTreeSet::from([counter.to_owned()]),
            atomics: BTreeSet::new(),
            stores: Vec::new(),
        };
        vyre_foundation::for_each_node(body, |node| {
            match node {
                Node::Let { name, .. }
                | Node::Assign { name, .. }
                | Node::PrivateArray { name, .. }
                | Node::ArrayStore { array: name, .. }
                | Node::Tile { name, .. }
                | Node::TileLoad { tile: name, .. }
                | Node::TileMultiplyAdd { target: name, .. } => {
                    effects.vars.insert(name.clone());
                }
                Node::TileStore { buffer, offset, .. } => {
                    effects.stores.push((buffer.clone(), offset.clone()));
                }
                Node::Loop { var, .. } => {
                    effects.vars.insert(var.clone());
                }
                Node::Store { buffer, index, .. } => {
                    effects.stores.push((buffer.clone(), index.clone()));
                }
                Node::Atomic { buffer, .. } => {
                    effects.atomics.insert(buffer.clone());
                }
                Node::If { .. }
                | Node::While { .. }
                | Node::Block(_)
                | Node::Barrier
                | Node::Return
                | Node::Break
                | Node::Continue => {}
            }
            for e in node.exprs() {
                vyre_foundation::for_each_subexpr(e, |s| {
                    if let Expr::Atomic { buffer, .. } = s {
                        effects.atomics.insert(buffer.clone());
                    }
                });
            }
        });
        effects
    }

    /// True when the loop cannot change `value` (by the rules above, the wrong one included).
    fn leaves(&self, value: &Expr) -> bool {
        if !pure_load(value) {
            return false;
        }
        let mut invariant = true;
        vyre_foundation::for_each_subexpr(value, |e| match e {
            Expr::Var(name) => invariant &= !self.vars.contains(name),
            Expr::Load { buffer, index } => {
                invariant &= !self.atomics.contains(buffer);
                // The bug: only a store at this very index counts.
                invariant &= !self
                    .stores
                    .iter()
                    .any(|(b, i)| b == buffer && **index == *i);
            }
            _ => {}
        });
        invariant
    }
}
