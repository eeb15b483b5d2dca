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
//!
//! **Fixed active invocations.** When every stored buffer has a declared count, each item's plan
//! gives those buffers exactly that many elements, so an item runs `active = min(grid.x * W,
//! longest)` invocations with `longest` the largest declared count ([`fixed_active`]). In the usual
//! launch (a grid that covers the longest buffer) that is `longest` itself, and the module fixes it:
//! invocation `p` of the launch is `gid.x = p % longest` of item `p / longest` (a shift and a mask
//! for a power of two), and in a buffer whose declared count is `longest` the item's slice starts at
//! `p - gid.x`, so an access at `gid.x` is at element `p` itself, with no item arithmetic at all.
//! The engine runs such a module only where its `active` is that constant
//! (`engine::packed::packed_active`); a launch with fewer invocations per item takes the coalesced
//! form.

use vyre_foundation::elementwise::GidAliases;
use vyre_foundation::ir::{BufferAccess, Node, Program};
use vyre_foundation::validate::Validated;

/// The indices of the buffers the program stores to, when it can run packed; `None` when it cannot
/// (or when its evidence does not cover a store, which then keeps the always-correct coalesced form).
pub(crate) fn packed_stores(evidence: &Validated<'_>) -> Option<Vec<usize>> {
    let program = evidence.program();
    if program.workgroup_size[1] != 1
        || program.workgroup_size[2] != 1
        || super::vector::uses_subgroups(evidence)
    {
        return None;
    }
    if program
        .buffers
        .iter()
        .any(|b| b.access == BufferAccess::Workgroup)
    {
        return None;
    }
    if evidence.buffer_uses().iter().any(|u| u.atomic) {
        return None;
    }
    // Packed launches are coalesced, whose item layout is in 32-bit words.
    if program.buffers.iter().any(|b| !b.element.is_word()) {
        return None;
    }
    // The walk visits every declaration before the statements that can name it.
    let mut aliases = GidAliases::default();
    let mut stored = Vec::new();
    let mut ok = true;
    vyre_foundation::for_each_node(&program.body, |node| match node {
        // Atomics are refused above through the buffer uses; the arm keeps that explicit.
        // Tiles move blocks of buffers shared by the workgroup: never packed.
        Node::Barrier
        | Node::Atomic { .. }
        | Node::Tile { .. }
        | Node::TileLoad { .. }
        | Node::TileStore { .. }
        | Node::TileMultiplyAdd { .. } => ok = false,
        Node::Let { .. } => aliases.note(evidence, node),
        Node::Store { index, .. } => {
            let at_gid = aliases.at_gid(evidence, index);
            match evidence.node_buffer(node) {
                Ok(b) if at_gid => {
                    if !stored.contains(&b.index()) {
                        stored.push(b.index());
                    }
                }
                _ => ok = false,
            }
        }
        // A private array is the invocation's own, in every launch form.
        Node::Assign { .. }
        | Node::PrivateArray { .. }
        | Node::ArrayStore { .. }
        | Node::If { .. }
        | Node::Loop { .. }
        | Node::While { .. }
        | Node::Block(_)
        | Node::Return
        | Node::Break
        | Node::Continue => {}
    });
    ok.then_some(stored)
}

/// The declared counts of the stored buffers `stored` (by index), when every one has one.
pub(crate) fn stored_counts(program: &Program, stored: &[usize]) -> Option<Vec<u32>> {
    stored
        .iter()
        .map(|&j| program.buffers.get(j).map(|b| b.count).filter(|&c| c != 0))
        .collect()
}

/// The invocations every packed item of `program` runs when its grid covers its longest stored
/// buffer, when every stored buffer (`stored`) has a declared count: the longest count, at least 1.
pub(crate) fn fixed_active(program: &Program, stored: &[usize]) -> Option<u32> {
    let counts = stored_counts(program, stored)?;
    Some(counts.into_iter().max().unwrap_or(0).max(1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use vyre_foundation::ir::{BufferDecl, DataType, Expr, Program};

    fn packed(p: &Program) -> Option<Vec<usize>> {
        match vyre_foundation::validate(p) {
            Ok(evidence) => packed_stores(&evidence),
            Err(e) => panic!("{p}\n{e}"),
        }
    }

    fn program(body: Vec<Node>) -> Program {
        Program::new(
            vec![
                BufferDecl::read("input", 0, DataType::U32),
                BufferDecl::output("out", 1, DataType::U32).with_count(64),
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
        assert_eq!(packed(&p), Some(vec![1]));
    }

    #[test]
    fn a_store_elsewhere_an_assigned_alias_or_a_barrier_prevents_packing() {
        let elsewhere = program(vec![Node::store("out", Expr::u32(0), Expr::u32(1))]);
        assert_eq!(packed(&elsewhere), None);
        let reassigned = program(vec![
            Node::let_bind("i", Expr::gid_x()),
            Node::assign("i", Expr::u32(0)),
            Node::store("out", Expr::var("i"), Expr::u32(1)),
        ]);
        assert_eq!(packed(&reassigned), None);
        let barrier = program(vec![
            Node::barrier(),
            Node::store("out", Expr::gid_x(), Expr::u32(1)),
        ]);
        assert_eq!(packed(&barrier), None);
    }

    #[test]
    fn a_name_reused_for_another_value_in_a_later_block_still_packs() {
        // Two variables called `i`: the first only ever holds `gid.x`, the second never indexes a
        // store. Names alone would count `i` as spoiled; the evidence tells them apart.
        let p = program(vec![
            Node::block(vec![
                Node::let_bind("i", Expr::gid_x()),
                Node::store("out", Expr::var("i"), Expr::u32(1)),
            ]),
            Node::block(vec![
                Node::let_bind("i", Expr::u32(0)),
                Node::assign("i", Expr::u32(2)),
            ]),
        ]);
        assert_eq!(packed(&p), Some(vec![1]));
    }
}
