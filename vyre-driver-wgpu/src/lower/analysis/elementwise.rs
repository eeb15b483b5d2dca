//! Which programs are *elementwise*: every access of every bound buffer is at the invocation's own
//! index `gid.x`. Such a program may run as several launches over ranges of its buffers (see
//! `LowerOptions::split`) when a buffer is larger than the device binds at once.
//!
//! The rule, from the validated program:
//!
//! - every `load`, `store` and atomic on a storage buffer indexes it with exactly `gid.x`, or with a
//!   variable declared by a `let` of exactly `gid.x` and never assigned (the aliases `packed` and
//!   `coverage` accept too);
//! - no buffer is `uniform` (a uniform binding has a fixed size and a 64 KiB-class limit; it is never
//!   split, so the program keeps the single launch and its limit error);
//! - workgroup buffers may be indexed any way: a split cuts the grid at whole workgroups, so every
//!   workgroup, its shared memory and its barriers stay whole in one launch.
//!
//! Then invocation `gid.x = i` touches element `i` of each storage buffer and nothing else in them, and
//! invocations with another `gid.x` never touch it: cutting the grid along x into runs of whole
//! workgroups, each launched with its buffers bound from its first `gid.x` on, runs every invocation
//! with the builtins and element values it has in one launch, in any order of the launches.

use vyre_foundation::validate::Validated;

/// True when the validated program is elementwise (see the module docs). The rule is
/// `vyre_foundation::elementwise::is_elementwise`, which `vyre::Sharded` also uses to cut a
/// dispatch across devices; a missing fact counts as not elementwise, which keeps the
/// always-correct single launch.
pub(crate) fn elementwise(evidence: &Validated<'_>) -> bool {
    // A split cuts bindings at element offsets counted in 32-bit words (`backend::split`): f16 and
    // 64-bit buffers are never split, so a dispatch over the binding limit is refused instead.
    if evidence
        .program()
        .buffers
        .iter()
        .any(|b| !b.element.is_word())
    {
        return false;
    }
    vyre_foundation::elementwise::is_elementwise(evidence)
}

#[cfg(test)]
mod tests {
    use super::*;
    use vyre_foundation::ir::{AtomicOp, BufferDecl, DataType, Expr, Node, Program};

    fn check(extra: Vec<BufferDecl>, body: Vec<Node>) -> bool {
        let mut buffers = vec![
            BufferDecl::read("a", 0, DataType::U32),
            BufferDecl::read_write("b", 1, DataType::U32),
            BufferDecl::output("out", 2, DataType::U32).with_count(64),
        ];
        buffers.extend(extra);
        let p = Program::new(buffers, [64, 1, 1], body);
        match vyre_foundation::validate(&p) {
            Ok(evidence) => elementwise(&evidence),
            Err(e) => panic!("{p}\n{e}"),
        }
    }

    fn add_at(index: Expr) -> Node {
        Node::store(
            "out",
            index.clone(),
            Expr::add(Expr::load("a", index.clone()), Expr::load("b", index)),
        )
    }

    #[test]
    fn loads_stores_and_atomics_at_gid_or_its_alias_are_elementwise() {
        assert!(check(vec![], vec![add_at(Expr::gid_x())]));
        let alias = vec![
            Node::let_bind("i", Expr::gid_x()),
            Node::if_then(
                Expr::lt(Expr::var("i"), Expr::buf_len("a")),
                vec![add_at(Expr::var("i"))],
            ),
        ];
        assert!(check(vec![], alias));
        let atomic = Node::let_bind(
            "old",
            Expr::atomic(AtomicOp::Add, "b", Expr::gid_x(), Expr::u32(1)),
        );
        assert!(check(vec![], vec![atomic]));
        let statement = Node::atomic(AtomicOp::Add, "b", Expr::gid_x(), Expr::u32(1));
        assert!(check(vec![], vec![statement]));
        // Builtins used as values, lengths and workgroup memory at any index are allowed.
        let shared = vec![
            Node::store("tile", Expr::local_x(), Expr::gid_x()),
            Node::barrier(),
            Node::store("out", Expr::gid_x(), Expr::load("tile", Expr::u32(0))),
        ];
        assert!(check(
            vec![BufferDecl::workgroup("tile", 64, DataType::U32)],
            shared
        ));
    }

    #[test]
    fn another_index_an_assigned_alias_or_a_uniform_buffer_is_not_elementwise() {
        assert!(!check(vec![], vec![add_at(Expr::u32(0))]));
        let neighbour = Node::store(
            "out",
            Expr::gid_x(),
            Expr::load("a", Expr::add(Expr::gid_x(), Expr::u32(1))),
        );
        assert!(!check(vec![], vec![neighbour]));
        let reassigned = vec![
            Node::let_bind("i", Expr::gid_x()),
            Node::assign("i", Expr::u32(3)),
            add_at(Expr::var("i")),
        ];
        assert!(!check(vec![], reassigned));
        let nested = Node::if_then(
            Expr::eq(Expr::load("a", Expr::local_x()), Expr::u32(0)),
            vec![add_at(Expr::gid_x())],
        );
        assert!(!check(vec![], vec![nested]));
        // An atomic statement is an access like any other: a shared counter is not elementwise.
        let counter = Node::atomic(AtomicOp::Add, "b", Expr::u32(0), Expr::u32(1));
        assert!(!check(vec![], vec![add_at(Expr::gid_x()), counter]));
        let uniform = BufferDecl::uniform("u", 3, DataType::U32).with_count(4);
        assert!(!check(vec![uniform], vec![add_at(Expr::gid_x())]));
    }
}
