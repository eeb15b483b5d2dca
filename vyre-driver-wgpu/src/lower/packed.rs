//! Which programs may run coalesced items *packed*: only the invocations that can have an effect.
//!
//! A coalesced item runs every invocation of its grid, and for small items most of them only fail
//! their bounds guards (an item of one element in a 64-wide workgroup wastes 63 lanes). When every
//! side effect of a program is a store at index `gid.x`, an invocation with `gid.x` past every stored
//! buffer's length changes nothing: its stores are dropped (SEMANTICS.md section 3) and it has no
//! other effect. Such a program runs packed: item `k`'s first `active` invocations are laid end to end
//! with the other items', in workgroups shared between items, and the rest are never started.
//!
//! Sharing a workgroup between items is only sound without workgroup memory and barriers, and the
//! invocation numbering only stays simple in one dimension; programs outside these rules take the
//! ordinary coalesced form.

use std::collections::HashSet;

use vyre_foundation::for_each_expr;
use vyre_foundation::ir::{Axis, BufferAccess, Builtin, Expr, Node, Program};

/// The indices of the buffers `program` stores to, when it can run packed; `None` when it cannot.
pub(crate) fn packed_stores(program: &Program) -> Option<Vec<usize>> {
    if program.workgroup_size[1] != 1 || program.workgroup_size[2] != 1 {
        return None;
    }
    if program
        .buffers
        .iter()
        .any(|b| b.access == BufferAccess::Workgroup)
    {
        return None;
    }
    let mut atomic = false;
    for_each_expr(program, |e| atomic |= matches!(e, Expr::Atomic { .. }));
    if atomic {
        return None;
    }
    let aliases = gid_aliases(&program.body);
    let mut stored = Vec::new();
    let mut ok = true;
    walk(&program.body, &mut |node| match node {
        Node::Barrier => ok = false,
        Node::Store { buffer, index, .. } => {
            let at_gid = match index {
                Expr::Builtin(Builtin::GlobalId(Axis::X)) => true,
                Expr::Var(name) => aliases.contains(name.as_str()),
                _ => false,
            };
            match program.buffer_index(buffer) {
                Some(j) if at_gid => {
                    if !stored.contains(&j) {
                        stored.push(j);
                    }
                }
                _ => ok = false,
            }
        }
        Node::Let { .. }
        | Node::Assign { .. }
        | Node::If { .. }
        | Node::Loop { .. }
        | Node::Block(_)
        | Node::Return => {}
    });
    ok.then_some(stored)
}

/// Names that can only ever hold `gid.x`: every `let` of the name binds exactly `gid.x`, and no
/// assignment or loop writes it.
fn gid_aliases(body: &[Node]) -> HashSet<&str> {
    let mut candidates = HashSet::new();
    let mut spoiled = HashSet::new();
    walk(body, &mut |node| match node {
        Node::Let { name, value } => {
            if matches!(value, Expr::Builtin(Builtin::GlobalId(Axis::X))) {
                candidates.insert(name.as_str());
            } else {
                spoiled.insert(name.as_str());
            }
        }
        Node::Assign { name, .. } | Node::Loop { var: name, .. } => {
            spoiled.insert(name.as_str());
        }
        Node::Store { .. } | Node::If { .. } | Node::Block(_) | Node::Barrier | Node::Return => {}
    });
    candidates.retain(|n| !spoiled.contains(n));
    candidates
}

/// Calls `f` on every node, parents before children.
fn walk<'a>(body: &'a [Node], f: &mut impl FnMut(&'a Node)) {
    let mut stack: Vec<&Node> = body.iter().rev().collect();
    while let Some(node) = stack.pop() {
        f(node);
        for inner in node.bodies().collect::<Vec<_>>().into_iter().rev() {
            stack.extend(inner.iter().rev());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vyre_foundation::ir::{BufferDecl, DataType};

    fn program(body: Vec<Node>) -> Program {
        Program::new(
            vec![
                BufferDecl::read("input", 0, DataType::U32),
                BufferDecl::output("out", 1, DataType::U32),
            ],
            [64, 1, 1],
            body,
        )
    }

    #[test]
    fn elementwise_stores_at_gid_run_packed() {
        let p = program(vec![
            Node::let_bind("i", Expr::gid_x()),
            Node::if_then(
                Expr::lt(Expr::var("i"), Expr::u32(9)),
                vec![Node::store(
                    "out",
                    Expr::var("i"),
                    Expr::load("input", Expr::u32(0)),
                )],
            ),
        ]);
        assert_eq!(packed_stores(&p), Some(vec![1]));
    }

    #[test]
    fn a_store_elsewhere_an_assigned_alias_or_a_barrier_prevents_packing() {
        let elsewhere = program(vec![Node::store("out", Expr::u32(0), Expr::u32(1))]);
        assert_eq!(packed_stores(&elsewhere), None);
        let reassigned = program(vec![
            Node::let_bind("i", Expr::gid_x()),
            Node::assign("i", Expr::u32(0)),
            Node::store("out", Expr::var("i"), Expr::u32(1)),
        ]);
        assert_eq!(packed_stores(&reassigned), None);
        let barrier = program(vec![
            Node::barrier(),
            Node::store("out", Expr::gid_x(), Expr::u32(1)),
        ]);
        assert_eq!(packed_stores(&barrier), None);
    }
}
