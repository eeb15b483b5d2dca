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
//! - A `break` or `continue` leaving the loop (not one of an inner loop) is resolved copy by copy
//!   when, once the variable is replaced, whether it runs is fixed: it stands in the copy itself,
//!   in blocks, or in `if`s whose conditions are comparisons of integer or bool literals (and
//!   `not`/`and`/`or` of them, sections 4 and 5), such as `if (i == 3u) { break; }` in the copy
//!   for `i = 3u`. The branch taken stays (a literal condition has no effect to keep), the
//!   statements after the exit go (they never run, section 2), and after a `break` no further
//!   copy is made: exactly the iterations the loop ran.
//!
//! The pass refuses:
//!
//! - a loop with a `break` or `continue` leaving it whose running depends on what the program
//!   computes: lowering it needs flags that would make later copies conditional;
//! - a loop of more than [`MAX_TRIPS`] iterations, or whose copies would hold more than
//!   [`MAX_UNROLLED_SIZE`] statements and expression nodes, or that would grow the program past
//!   what is left of [`MAX_GROWTH`] for the whole run.
//!
//! Copies keep the loop's nesting depth (a block at the loop's place holds each copy's statements
//! at the depth the loop's body had), so the validator's depth limits hold.

use crate::ir::{BinOp, Expr, Literal, Node, Program, UnOp};
use crate::validate::Validated;

use super::edit::{node_bodies_mut, splice_or_block, substitute_var};
use super::effects::body_size;
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
        // Only a counted loop with literal bounds unrolls: without one, nothing is copied.
        let mut counted = false;
        crate::for_each_node(&original.body, |n| {
            counted |= matches!(
                n,
                Node::Loop {
                    from: Expr::Lit(_),
                    to: Expr::Lit(_),
                    ..
                }
            );
        });
        if !counted {
            return Outcome::Unchanged;
        }
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

/// The copies of `node`'s body, one per iteration that runs, when `node` is a loop the pass
/// unrolls (its body is taken out of it); `None` otherwise.
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
    let size = body_size(body);
    let unrolled_size = size.saturating_mul(values.len());
    let growth = unrolled_size.saturating_sub(size);
    if unrolled_size > MAX_UNROLLED_SIZE || growth > *budget {
        return None;
    }
    let exits = leaves_loop(body);
    let mut copies = Vec::with_capacity(values.len());
    for value in values {
        let mut copy = body.clone();
        substitute_var(&mut copy, var, &Expr::Lit(value));
        let (copy, end) = if exits {
            resolve_exits(copy)?
        } else {
            (copy, End::FallsThrough)
        };
        copies.push(copy);
        if end == End::Break {
            break;
        }
    }
    *budget -= growth;
    *body = Vec::new();
    Some(copies)
}

/// How one iteration's copy of a loop body ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum End {
    /// It runs to its end: the next iteration follows.
    FallsThrough,
    /// A `continue` ends it: the next iteration follows.
    Continue,
    /// A `break` ends it: no iteration follows.
    Break,
}

/// `copy` (one iteration's body, the loop variable replaced) without the `break`s and
/// `continue`s that leave the loop, and how it ends, when every one of them is reached or not
/// reached whatever the inputs: each sits in the copy itself, or in blocks, or in `if`s whose
/// conditions [`literal_condition`] decides (the branch taken stays, as a block when it declares
/// variables; evaluating such a condition has no effect). Statements after the exit that ends it
/// never run and go. `None` when some exit depends on what the program computes.
fn resolve_exits(copy: Vec<Node>) -> Option<(Vec<Node>, End)> {
    let mut out = Vec::with_capacity(copy.len());
    for mut node in copy {
        if !leaves_loop(std::slice::from_ref(&node)) {
            out.push(node);
            continue;
        }
        let inner = match &mut node {
            Node::Break => return Some((out, End::Break)),
            Node::Continue => return Some((out, End::Continue)),
            Node::If {
                cond,
                then,
                otherwise,
            } => std::mem::take(if literal_condition(cond)? {
                then
            } else {
                otherwise
            }),
            Node::Block(inner) => std::mem::take(inner),
            Node::Let { .. }
            | Node::Assign { .. }
            | Node::Store { .. }
            | Node::PrivateArray { .. }
            | Node::ArrayStore { .. }
            | Node::Tile { .. }
            | Node::TileLoad { .. }
            | Node::TileStore { .. }
            | Node::TileMultiplyAdd { .. }
            | Node::Loop { .. }
            | Node::While { .. }
            | Node::Barrier
            | Node::Return
            | Node::Atomic { .. } => return None,
        };
        let (inner, end) = resolve_exits(inner)?;
        splice_or_block(inner, &mut out);
        if end != End::FallsThrough {
            return Some((out, end));
        }
    }
    Some((out, End::FallsThrough))
}

/// The value of a condition made of literals only: `true`, `false`, comparisons of two integer
/// or bool literals of one type (signed for `i32` and `i64`, `SEMANTICS.md` section 4), and `not`,
/// `and`, `or` of such conditions (section 5). `None` for anything else, floats included.
fn literal_condition(cond: &Expr) -> Option<bool> {
    match cond {
        Expr::Lit(Literal::Bool(b)) => Some(*b),
        Expr::Unary { op: UnOp::Not, arg } => literal_condition(arg).map(|b| !b),
        Expr::Binary {
            op: BinOp::And,
            lhs,
            rhs,
        } => Some(literal_condition(lhs)? & literal_condition(rhs)?),
        Expr::Binary {
            op: BinOp::Or,
            lhs,
            rhs,
        } => Some(literal_condition(lhs)? | literal_condition(rhs)?),
        Expr::Binary { op, lhs, rhs } => {
            let (Expr::Lit(a), Expr::Lit(b)) = (&**lhs, &**rhs) else {
                return None;
            };
            compared(*op, literal_order(*a, *b)?)
        }
        Expr::Lit(_)
        | Expr::Unary { .. }
        | Expr::Var(_)
        | Expr::Load { .. }
        | Expr::ArrayLoad { .. }
        | Expr::BufLen(_)
        | Expr::Builtin(_)
        | Expr::Select { .. }
        | Expr::Cast { .. }
        | Expr::Bitcast { .. }
        | Expr::Fma { .. }
        | Expr::Atomic { .. }
        | Expr::Subgroup { .. }
        | Expr::SubgroupShuffle { .. } => None,
    }
}

/// The result of comparison `op` for operands that compare as `ordering`; `None` when `op` is not
/// a comparison.
fn compared(op: BinOp, ordering: std::cmp::Ordering) -> Option<bool> {
    match op {
        BinOp::Eq => Some(ordering.is_eq()),
        BinOp::Ne => Some(ordering.is_ne()),
        BinOp::Lt => Some(ordering.is_lt()),
        BinOp::Le => Some(ordering.is_le()),
        BinOp::Gt => Some(ordering.is_gt()),
        BinOp::Ge => Some(ordering.is_ge()),
        BinOp::Add
        | BinOp::Sub
        | BinOp::Mul
        | BinOp::Div
        | BinOp::Rem
        | BinOp::BitAnd
        | BinOp::BitOr
        | BinOp::BitXor
        | BinOp::Shl
        | BinOp::Shr
        | BinOp::And
        | BinOp::Or
        | BinOp::Min
        | BinOp::Max => None,
    }
}

/// How two literals of one integer or bool type compare; `None` for floats and mixed types.
fn literal_order(a: Literal, b: Literal) -> Option<std::cmp::Ordering> {
    let (a, b) = match (a, b) {
        (Literal::Bool(a), Literal::Bool(b)) => (i128::from(a), i128::from(b)),
        (Literal::U32(a), Literal::U32(b)) => (i128::from(a), i128::from(b)),
        (Literal::I32(a), Literal::I32(b)) => (i128::from(a), i128::from(b)),
        (Literal::U64(a), Literal::U64(b)) => (i128::from(a), i128::from(b)),
        (Literal::I64(a), Literal::I64(b)) => (i128::from(a), i128::from(b)),
        // Floats compare as IEEE values, which this does not decide; mixed types do not validate.
        _ => return None,
    };
    Some(a.cmp(&b))
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
        | Node::PrivateArray { .. }
        | Node::ArrayStore { .. }
        | Node::Tile { .. }
        | Node::TileLoad { .. }
        | Node::TileStore { .. }
        | Node::TileMultiplyAdd { .. }
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
    fn a_break_or_continue_the_copy_decides_ends_that_copy_or_the_copies() {
        rewrites(
            &Unroll,
            "for i in 0u..4u { if (i == 2u) { break; } out[i] = 1u; }",
            "out[0u] = 1u; out[1u] = 1u;",
        );
        rewrites(
            &Unroll,
            "for i in 0u..3u { if (!(i != 1u) || false) { let t = i; out[t] = 3u; continue; } out[i] = 2u; }",
            "out[0u] = 2u; { let t = 1u; out[t] = 3u; } out[2u] = 2u;",
        );
        rewrites(
            &Unroll,
            "for i in 0u..4u { out[i] = 1u; { break; } out[7u] = 1u; } for j in 0u..2u { { continue; } }",
            "out[0u] = 1u;",
        );
    }

    #[test]
    fn loops_that_exit_early_are_too_long_or_have_unknown_bounds_stay() {
        keeps(
            &Unroll,
            "for i in 0u..4u { if (inp[i] == 0u) { break; } out[i] = 1u; }",
        );
        keeps(&Unroll, "for i in 0u..65u { out[0u] = i; }");
        keeps(
            &Unroll,
            "for i in 0u..64u { out[(i % 8u)] = ((((((((((((((((i + 1u) + 1u) + 1u) + 1u) + 1u) + 1u) + 1u) + 1u) + 1u) + 1u) + 1u) + 1u) + 1u) + 1u) + 1u) + 1u); }",
        );
        keeps(&Unroll, "for i in 0u..len(inp) { out[i] = 1u; }");
    }

    #[test]
    fn a_private_array_declared_in_the_body_gets_a_block_per_copy() {
        rewrites(
            &Unroll,
            "for i in 0u..2u { var a: u32[2]; a.[i] = i; out[i] = a.[i]; }",
            "{ var a: u32[2]; a.[0u] = 0u; out[0u] = a.[0u]; } { var a: u32[2]; a.[1u] = 1u; out[1u] = a.[1u]; }",
        );
    }
}
