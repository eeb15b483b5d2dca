//! A loop unroller one trip short.

use vyre_foundation::ir::{Expr, Literal, Node, Program};

use super::each_body_mut;

/// The most trips a loop may have to be unrolled.
const MAX_TRIPS: i64 = 8;

/// Replaces each counted loop with literal bounds, at most 8 trips and no `break` or `continue` of
/// its own by a block holding, for each trip, a block that binds the counter and runs the body. The
/// bug: the last trip is left out. A loop of no trip is removed, which is right.
#[must_use]
pub fn unroll_drops_last_trip(program: &Program) -> Program {
    let mut out = program.clone();
    each_body_mut(&mut out.body, &mut |body| unroll_in(body));
    out
}

fn unroll_in(body: &mut [Node]) {
    for node in body.iter_mut() {
        let Node::Loop {
            var,
            from: Expr::Lit(from),
            to: Expr::Lit(to),
            body: inner,
        } = node
        else {
            continue;
        };
        let Some((first, trips)) = bounds(*from, *to) else {
            continue;
        };
        if exits(inner) {
            continue;
        }
        // The bug: `trips - 1` copies.
        let copies = (0..(trips - 1).max(0))
            .map(|k| {
                let mut copy = vec![Node::let_bind(var.as_str(), literal_like(*from, first + k))];
                copy.extend(inner.iter().cloned());
                Node::Block(copy)
            })
            .collect();
        *node = Node::Block(copies);
    }
}

/// The first counter value and the trip count of a loop from `from` to `to`, when both are
/// integer literals of one type and the count is at most [`MAX_TRIPS`].
fn bounds(from: Literal, to: Literal) -> Option<(i64, i64)> {
    let (first, end) = match (from, to) {
        (Literal::U32(a), Literal::U32(b)) => (i64::from(a), i64::from(b)),
        (Literal::I32(a), Literal::I32(b)) => (i64::from(a), i64::from(b)),
        _ => return None,
    };
    let trips = (end - first).max(0);
    (trips <= MAX_TRIPS).then_some((first, trips))
}

/// The literal of `like`'s type with value `value`.
fn literal_like(like: Literal, value: i64) -> Expr {
    match like {
        Literal::I32(_) => Expr::i32(value as i32),
        _ => Expr::u32(value as u32),
    }
}

/// True when `body` holds a `break` or `continue` of its own loop (not of a loop inside it).
fn exits(body: &[Node]) -> bool {
    body.iter().any(|node| match node {
        Node::Break | Node::Continue => true,
        Node::If {
            then, otherwise, ..
        } => exits(then) || exits(otherwise),
        Node::Block(inner) => exits(inner),
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
