//! `licm`: loop-invariant code motion.
//!
//! In a `loop_for` or `while` body (and a `while`'s condition), every largest expression whose
//! value cannot change from one evaluation to the next while the loop runs is computed once, into
//! a fresh `let` placed just before the loop, and the loop reads the variable instead. Equal
//! invariant expressions share one `let`. Outer loops go first, then the loops inside them, so an
//! expression moves out of every loop it is invariant in. Its law:
//!
//! - **Pure expressions have no effect and cannot trap** (`SEMANTICS.md` sections 2 to 7: only
//!   atomics have effects; division by zero, out-of-bounds loads, overflow and every conversion are
//!   defined). So evaluating one more time, before a loop that then runs no iteration, or where a
//!   branch of the body would not have evaluated it, changes no output. Where the law leaves a
//!   result open (a float to integer conversion of NaN), the value is one the original could
//!   have produced, and a value nobody reads is no output at all.
//! - **Invariant.** An expression is invariant in a loop when it has no atomic and no subgroup
//!   operation, reads no variable the loop declares (its own variable, a `let` or an inner loop's
//!   variable: no shadowing, section 2, so the names are the loop's) or assigns, and loads only
//!   - `read` and `uniform` buffers, which nothing writes, or
//!   - a writable buffer that the loop (body and condition) never stores to or updates
//!     atomically, when the loop runs no barrier and no atomic at all and no atomic anywhere uses
//!     the buffer. Another invocation could then change it during the loop only through a race
//!     (sections 1 and 8: barriers and atomics are what order invocations), whose outputs are
//!     unspecified.
//! - **Never:** atomics (effects), subgroup operations and builtins (their result depends on the
//!   control flow they run in, section 9; the body's may differ from the loop's), leaves (nothing
//!   to save) and expressions of literals only (constant folding's work). Nothing moves across a
//!   barrier: a load of a writable buffer stays in a loop that has one.
//! - The `let` sits in the body that holds the loop, just before it, where every variable the
//!   expression reads is in scope (none is declared inside the loop); its name is used nowhere in
//!   the program, so it shadows nothing.

use std::collections::{BTreeSet, HashMap};

use crate::ir::{Expr, Node, Program};
use crate::validate::Validated;

use super::edit::{FreshNames, node_bodies_mut, rewrite_expr, rewrite_exprs};
use super::effects::{Buffers, Effects, is_constant, is_leaf};
use super::{Outcome, Pass};

/// Loop-invariant code motion; see the [module docs](self).
#[derive(Clone, Copy, Debug, Default)]
pub struct Licm;

impl Pass for Licm {
    fn name(&self) -> &'static str {
        "licm"
    }

    fn run(&self, program: &Validated<'_>) -> Outcome {
        let original = program.program();
        // Without a loop there is nothing to hoist out of, and nothing to copy.
        let mut loops = false;
        crate::for_each_node(&original.body, |n| {
            loops |= matches!(n, Node::Loop { .. } | Node::While { .. });
        });
        if !loops {
            return Outcome::Unchanged;
        }
        let mut cx = Cx {
            buffers: Buffers::of(program),
            names: FreshNames::new(original, "licm"),
        };
        let mut body = original.body.clone();
        if !cx.body(&mut body) {
            return Outcome::Unchanged;
        }
        Outcome::Changed(Program {
            body,
            ..original.clone()
        })
    }
}

struct Cx<'p> {
    buffers: Buffers<'p>,
    names: FreshNames,
}

/// What a loop may change while it runs.
struct Loop {
    /// Variables the loop declares or assigns.
    variant: BTreeSet<String>,
    effects: Effects,
}

impl Cx<'_> {
    /// Hoists what it may out of every loop in `body` and in its nested bodies. True when something
    /// changed.
    fn body(&mut self, body: &mut Vec<Node>) -> bool {
        let mut changed = false;
        let mut i = 0;
        while i < body.len() {
            let hoisted = self.hoist(&mut body[i]);
            for inner in node_bodies_mut(&mut body[i]) {
                changed |= self.body(inner);
            }
            let n = hoisted.len();
            if n > 0 {
                changed = true;
                body.splice(i..i, hoisted);
            }
            i += n + 1;
        }
        changed
    }

    /// Replaces the invariant expressions of `node`, when it is a loop, by fresh variables and
    /// returns the `let`s that compute them, in the order they were found.
    fn hoist(&mut self, node: &mut Node) -> Vec<Node> {
        let (own_var, cond, body) = match node {
            Node::Loop { var, body, .. } => (Some(var.clone()), None, body),
            Node::While { cond, body } => (None, Some(cond), body),
            Node::Let { .. }
            | Node::Assign { .. }
            | Node::Store { .. }
            | Node::PrivateArray { .. }
            | Node::ArrayStore { .. }
            | Node::Tile { .. }
            | Node::TileLoad { .. }
            | Node::TileStore { .. }
            | Node::TileMultiplyAdd { .. }
            | Node::If { .. }
            | Node::Block(_)
            | Node::Barrier
            | Node::Return
            | Node::Break
            | Node::Continue
            | Node::Atomic { .. } => return Vec::new(),
        };
        let mut effects = Effects::of_body(body);
        if let Some(cond) = &cond {
            effects.add_expr(cond);
        }
        let mut variant: BTreeSet<String> =
            effects.declares.union(&effects.assigns).cloned().collect();
        variant.extend(own_var);
        let facts = Loop { variant, effects };
        let mut names: HashMap<Expr, String> = HashMap::new();
        let mut hoisted = Vec::new();
        let mut replace = |e: &mut Expr| {
            if !invariant(&self.buffers, e, &facts) {
                return true;
            }
            let name = names.entry(e.clone()).or_insert_with(|| {
                let name = self.names.fresh();
                hoisted.push(Node::let_bind(name.clone(), e.clone()));
                name
            });
            *e = Expr::Var(name.clone());
            false
        };
        if let Some(cond) = cond {
            rewrite_expr(cond, &mut replace);
        }
        rewrite_exprs(body, &mut replace);
        hoisted
    }
}

/// True when `expr` may be computed once before the loop `facts` describes.
fn invariant(buffers: &Buffers<'_>, expr: &Expr, facts: &Loop) -> bool {
    if is_leaf(expr) || is_constant(expr) || expr.has_atomic() || expr.has_subgroup_op() {
        return false;
    }
    let memory_moves = facts.effects.barrier || facts.effects.any_atomic();
    let mut ok = true;
    crate::for_each_subexpr(expr, |e| {
        if let Expr::Var(name) | Expr::ArrayLoad { array: name, .. } = e {
            ok &= !facts.variant.contains(name);
        } else if let Expr::Load { buffer, .. } = e {
            ok &= buffers.stable(buffer)
                || !(buffers.atomic(buffer)
                    || facts.effects.stores.contains(buffer)
                    || memory_moves);
        }
    });
    ok
}

#[cfg(test)]
mod tests {
    use super::Licm;
    use crate::pass::flow_test::{keeps, rewrites};

    #[test]
    fn an_invariant_expression_is_computed_once_before_the_loop() {
        rewrites(
            &Licm,
            "for i in 0u..len(inp) { out[i] = ((inp[gid.x] * 3u) + i); rw[i] = (inp[gid.x] * 3u); }",
            "let licm0 = (inp[gid.x] * 3u); for i in 0u..len(inp) { out[i] = (licm0 + i); rw[i] = licm0; }",
        );
    }

    #[test]
    fn what_the_loop_declares_or_assigns_stays() {
        keeps(
            &Licm,
            "let a = inp[0u]; for i in 0u..4u { let b = (i * 2u); out[i] = ((a * 2u) + b); a = (a + 1u); }",
        );
    }

    #[test]
    fn loads_of_a_buffer_the_loop_writes_or_behind_a_barrier_or_atomic_stay() {
        keeps(
            &Licm,
            "for i in 0u..4u { out[i] = (rw[0u] + 1u); rw[0u] = i; }",
        );
        keeps(
            &Licm,
            "wg[lid.x] = 1u; for i in 0u..2u { out[lid.x] = (wg[0u] + 1u); barrier; }",
        );
        rewrites(
            &Licm,
            "for i in 0u..4u { out[i] = ((rw[0u] + 1u) + (inp[0u] * 2u)); atomic_add(cnt[0u], 1u); }",
            "let licm0 = (inp[0u] * 2u); for i in 0u..4u { out[i] = ((rw[0u] + 1u) + licm0); atomic_add(cnt[0u], 1u); }",
        );
        rewrites(
            &Licm,
            "for i in 0u..4u { out[i] = (rw[0u] + 1u); }",
            "let licm0 = (rw[0u] + 1u); for i in 0u..4u { out[i] = licm0; }",
        );
    }

    #[test]
    fn atomics_subgroup_operations_and_constants_stay() {
        keeps(
            &Licm,
            "for i in 0u..4u { out[i] = (atomic_add(cnt[0u], 1u) + 1u); }",
        );
        keeps(
            &Licm,
            "for i in 0u..4u { out[i] = (cnt[1u] + 1u); } atomic_add(cnt[0u], 1u);",
        );
        keeps(
            &Licm,
            "for i in 0u..2u { out[i] = (subgroup_add(gid.x) + 1u); }",
        );
        keeps(&Licm, "for i in 0u..4u { out[i] = (2u * 3u); }");
    }

    #[test]
    fn a_while_condition_and_body_give_up_their_invariants() {
        rewrites(
            &Licm,
            "let k = 0u; while (k < (len(inp) * 2u)) { out[k] = (gid.x * 3u); k = (k + 1u); }",
            "let k = 0u; let licm0 = (len(inp) * 2u); let licm1 = (gid.x * 3u); while (k < licm0) { out[k] = licm1; k = (k + 1u); }",
        );
    }

    #[test]
    fn an_expression_leaves_every_loop_it_is_invariant_in() {
        rewrites(
            &Licm,
            "for i in 0u..4u { for j in 0u..4u { out[((i * 4u) + j)] = ((gid.x * 2u) + (i * 3u)); } }",
            "let licm0 = (gid.x * 2u); for i in 0u..4u { let licm1 = (i * 4u); let licm2 = (licm0 + (i * 3u)); for j in 0u..4u { out[(licm1 + j)] = licm2; } }",
        );
    }

    #[test]
    fn loads_of_a_private_array_the_loop_stores_to_stay() {
        keeps(
            &Licm,
            "var a: u32[4]; for i in 0u..4u { out[i] = (a.[0u] * 3u); a.[0u] = (a.[0u] + i); }",
        );
        rewrites(
            &Licm,
            "var a: u32[4]; a.[0u] = inp[0u]; for i in 0u..4u { out[i] = (a.[0u] * 3u); }",
            "var a: u32[4]; a.[0u] = inp[0u]; let licm0 = (a.[0u] * 3u); for i in 0u..4u { out[i] = licm0; }",
        );
    }
}
