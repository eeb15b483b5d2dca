//! `unroll`: full unrolling of counted loops with literal bounds.
//!
//! `for v in a..b { body }` with `a` and `b` literals of one type becomes `b - a` copies of `body`
//! (none when `a >= b`), copy `k` with every read of `v` replaced by the literal `a + k`, each copy
//! in a block of its own when it declares variables (so every copy's `let`s live in their own
//! scope, as each iteration's do; copies without one are spliced in as they are). Its law:
//!
//! - `loop_for` evaluates `from` and `to` once, then runs the body for `v = a, a + 1, ..., b - 1`
//!   in order, with no iteration when `a >= b` compared in the loop's type, and `v` is read-only in
//!   the body (`SEMANTICS.md` section 2). Literal bounds have no effect, so evaluating them is
//!   nothing to keep.
//! - No `let` may shadow a variable in scope (section 2), so every `Var(v)` in the body is the loop
//!   variable, and replacing it by the iteration's value is exact.
//! - A `return` in a copy ends the invocation as it did in the loop; a barrier in a copy runs in
//!   the control flow the loop's body ran in (literal bounds are uniform), so copies of a barrier
//!   stay in uniform control flow. Nested loops are unrolled first, and again inside each copy,
//!   where the outer variable may have made their bounds literal.
//!
//! The pass refuses:
//!
//! - a loop whose body has a `break` or `continue` leaving it (not one of an inner loop):
//!   lowering them needs flags that would make later copies conditional. Run `dce` first: it removes
//!   a `continue` that ends the body;
//! - a loop of more than [`MAX_TRIPS`] iterations, or whose copies would hold more than
//!   [`MAX_UNROLLED_SIZE`] statements and expression nodes, or that would grow the program past
//!   what is left of [`MAX_GROWTH`] for the whole run.
//!
//! Copies keep the loop's nesting depth (a block at the loop's place holds each copy's statements
//! at the depth the loop's body had), so the validator's depth limits hold.

use crate::ir::{Expr, Literal, Node, Program};
use crate::validate::Validated;

use super::effects::body_size;
use super::rewrite::{node_bodies_mut, splice_or_block, substitute_var};
use super::{Outcome, Pass};

/// The most iterations of one loop the pass unrolls.
pub const MAX_TRIPS: u64 = 64;

/// The most statements and expression nodes the copies of one unrolled loop may hold together.
pub const MAX_UNROLLED_SIZE: usize = 1024;

/// The most statements and expression nodes one run of the pass may add to a program.
pub const MAX_GROWTH: usize = 8192;

/// Full unrolling of counted loops with literal bounds; see the [module docs](self).
#[derive(Clone, Copy, Debug, Default)]
pub struct Unroll;

impl Pass for Unroll {
    fn name(&self) -> &'static str {
        "unroll"
    }

    fn run(&self, program: &Validated<'_>) -> Outcome {
        let original = program.program();
        let mut body = original.body.clone();
        let mut budget = MAX_GROWTH;
        if !unroll_body(&mut body, &mut budget) {
            return Outcome::Unchanged;
        }
        Outcome::Changed(Program {
            body,
            ..original.clone()
        })
    }
}

/// Unrolls what it may in `body` and its nested bodies, innermost loops first, spending `budget`.
/// True when something changed.
fn unroll_body(body: &mut Vec<Node>, budget: &mut usize) -> bool {
    let mut changed = false;
    let mut i = 0;
    while i < body.len() {
        for inner in node_bodies_mut(&mut body[i]) {
            changed |= unroll_body(inner, budget);
        }
        let Some(copies) = unrolled(&mut body[i], budget) else {
            i += 1;
            continue;
        };
        changed = true;
        let mut replacement = Vec::new();
        for mut copy in copies {
            // The loop variable may have made inner loops' bounds literal.
            unroll_body(&mut copy, budget);
            splice_or_block(copy, &mut replacement);
        }
        let n = replacement.len();
        body.splice(i..=i, replacement);
        i += n;
    }
    changed
}

/// The copies of `node`'s body, one per iteration, when `node` is a loop the pass unrolls (its
/// body is taken out of it); `None` otherwise.
fn unrolled(node: &mut Node, budget: &mut usize) -> Option<Vec<Vec<Node>>> {
    let Node::Loop {
        var,
        from,
        to,
        body,
    } = node
    else {
        return None;
    };
    let values = iteration_values(from, to)?;
    if leaves_loop(body) {
        return None;
    }
    let size = body_size(body);
    let unrolled_size = size.saturating_mul(values.len());
    let growth = unrolled_size.saturating_sub(size);
    if unrolled_size > MAX_UNROLLED_SIZE || growth > *budget {
        return None;
    }
    *budget -= growth;
    let body = std::mem::take(body);
    let copies = values
        .into_iter()
        .map(|value| {
            let mut copy = body.clone();
            substitute_var(&mut copy, var, &Expr::Lit(value));
            copy
        })
        .collect();
    Some(copies)
}

/// The values the variable of a loop from `from` to `to` takes, when both are literals and there
/// are at most [`MAX_TRIPS`] of them.
fn iteration_values(from: &Expr, to: &Expr) -> Option<Vec<Literal>> {
    let (Expr::Lit(from), Expr::Lit(to)) = (from, to) else {
        return None;
    };
    let (a, b, unsigned) = match (*from, *to) {
        (Literal::U32(a), Literal::U32(b)) => (i64::from(a), i64::from(b), true),
        (Literal::I32(a), Literal::I32(b)) => (i64::from(a), i64::from(b), false),
        // Loop bounds are `u32` or `i32` of one type (the validator's `LoopBoundTypes`).
        _ => return None,
    };
    let trips = u64::try_from(b - a).unwrap_or(0);
    if trips > MAX_TRIPS {
        return None;
    }
    // Every value lies in `a..b`, whose ends are of the loop's type, so the conversions succeed.
    let value = |v: i64| {
        if unsigned {
            u32::try_from(v).ok().map(Literal::U32)
        } else {
            i32::try_from(v).ok().map(Literal::I32)
        }
    };
    (a..b).map(value).collect()
}

/// True when `body` has a `break` or `continue` that leaves the loop it is the body of (one
/// nested in an inner loop leaves that loop instead).
fn leaves_loop(body: &[Node]) -> bool {
    body.iter().any(|node| match node {
        Node::Break | Node::Continue => true,
        Node::If {
            then, otherwise, ..
        } => leaves_loop(then) || leaves_loop(otherwise),
        Node::Block(inner) => leaves_loop(inner),
        Node::Loop { .. }
        | Node::While { .. }
        | Node::Let { .. }
        | Node::Assign { .. }
        | Node::Store { .. }
        | Node::Barrier
        | Node::Return
        | Node::Atomic { .. } => false,
    })
}

#[cfg(test)]
mod tests {
    use super::Unroll;
    use crate::pass::flow_test::{keeps, rewrites};

    #[test]
    fn a_literal_loop_becomes_one_copy_per_iteration_with_the_variable_replaced() {
        rewrites(
            &Unroll,
            "for i in 0u..3u { out[i] = (inp[i] + 1u); }",
            "out[0u] = (inp[0u] + 1u); out[1u] = (inp[1u] + 1u); out[2u] = (inp[2u] + 1u);",
        );
    }

    #[test]
    fn copies_that_declare_variables_get_a_block_each() {
        rewrites(
            &Unroll,
            "for i in -1i..1i { let t = inp[u32((i + 1i))]; out[u32((i + 1i))] = t; }",
            "{ let t = inp[u32((-1i + 1i))]; out[u32((-1i + 1i))] = t; } { let t = inp[u32((0i + 1i))]; out[u32((0i + 1i))] = t; }",
        );
    }

    #[test]
    fn a_loop_without_iterations_goes() {
        rewrites(
            &Unroll,
            "for i in 3i..1i { out[0u] = 1u; } for j in 2u..2u { out[0u] = 1u; } out[1u] = 2u;",
            "out[1u] = 2u;",
        );
    }

    #[test]
    fn an_inner_loop_whose_bounds_the_outer_variable_made_literal_unrolls_too() {
        rewrites(
            &Unroll,
            "for i in 0u..2u { for j in i..2u { out[((i * 2u) + j)] = 1u; } }",
            "out[((0u * 2u) + 0u)] = 1u; out[((0u * 2u) + 1u)] = 1u; out[((1u * 2u) + 1u)] = 1u;",
        );
    }

    #[test]
    fn barriers_and_returns_are_copied_in_place() {
        rewrites(
            &Unroll,
            "for i in 0u..2u { wg[lid.x] = i; barrier; out[lid.x] = wg[(3u - lid.x)]; barrier; } for k in 0u..2u { if (inp[k] == 0u) { return; } out[k] = 1u; }",
            "wg[lid.x] = 0u; barrier; out[lid.x] = wg[(3u - lid.x)]; barrier; wg[lid.x] = 1u; barrier; out[lid.x] = wg[(3u - lid.x)]; barrier; if (inp[0u] == 0u) { return; } out[0u] = 1u; if (inp[1u] == 0u) { return; } out[1u] = 1u;",
        );
    }

    #[test]
    fn an_outer_loop_unrolls_around_an_inner_loop_that_breaks() {
        rewrites(
            &Unroll,
            "for i in 0u..2u { for j in 0u..gid.x { if (inp[j] == i) { break; } } }",
            "for j in 0u..gid.x { if (inp[j] == 0u) { break; } } for j in 0u..gid.x { if (inp[j] == 1u) { break; } }",
        );
    }

    #[test]
    fn loops_that_exit_early_are_too_long_or_have_unknown_bounds_stay() {
        keeps(
            &Unroll,
            "for i in 0u..4u { if (inp[i] == 0u) { break; } out[i] = 1u; }",
        );
        keeps(&Unroll, "for i in 0u..4u { { continue; } }");
        keeps(&Unroll, "for i in 0u..65u { out[0u] = i; }");
        keeps(
            &Unroll,
            "for i in 0u..64u { out[(i % 8u)] = ((((((((((((((((i + 1u) + 1u) + 1u) + 1u) + 1u) + 1u) + 1u) + 1u) + 1u) + 1u) + 1u) + 1u) + 1u) + 1u) + 1u) + 1u); }",
        );
        keeps(&Unroll, "for i in 0u..len(inp) { out[i] = 1u; }");
    }
}
