//! Which `output` buffers a program writes in full, so a launch may skip zeroing them.
//!
//! An output starts at zero in every dispatch (SEMANTICS.md). Clearing it costs a full write of the
//! buffer; when every element is certainly overwritten before anything could observe the zero, the
//! clear changes nothing and is skipped. The rule, from the validated program:
//!
//! - the body never loads the buffer, never updates it atomically and never takes its length;
//! - a statement at the top level of the body stores to it at exactly `gid.x` (or a variable that
//!   only ever holds `gid.x`), and no `return` comes before that statement anywhere in the body, so
//!   every invocation reaches it (counted loops always end; a `while` that never ends never lets
//!   the dispatch finish, so no output of it is read);
//! - the launch has at least one invocation per element along x (`grid.x * workgroup.x >=` the
//!   element count), which the launch checks ([`covers`]).
//!
//! Then invocation `gid.x = i` stores element `i` for every `i` below the count.

use vyre_foundation::elementwise::GidAliases;

use vyre_foundation::ir::{BufferAccess, Node};
use vyre_foundation::validate::Validated;

/// The indices of the output buffers the program writes in full (given a covering grid).
pub(crate) fn fully_written_outputs(evidence: &Validated<'_>) -> Vec<usize> {
    let program = evidence.program();
    let uses = evidence.buffer_uses();
    let mut aliases = GidAliases::default();
    let mut written = Vec::new();
    for node in &program.body {
        if contains_return(node) {
            break;
        }
        match node {
            Node::Let { .. } => aliases.note(evidence, node),
            Node::Store { index, .. } => {
                let at_gid = aliases.at_gid(evidence, index);
                let Ok(b) = evidence.node_buffer(node) else {
                    continue;
                };
                let j = b.index();
                let untouched = uses
                    .get(j)
                    .is_some_and(|u| !u.loaded && !u.atomic && !u.length);
                if at_gid
                    && untouched
                    && program.buffers[j].access == BufferAccess::Output
                    && !written.contains(&j)
                {
                    written.push(j);
                }
            }
            // An atomic statement counts as a use (`u.atomic`), so it needs no case of its own; a
            // `break` or `continue` only ever stands inside a loop, never at the top level.
            // A private array is the invocation's own: it writes no buffer. A tile store writes
            // a block, never counted as covering an output.
            Node::Assign { .. }
            | Node::PrivateArray { .. }
            | Node::ArrayStore { .. }
            | Node::Tile { .. }
            | Node::TileLoad { .. }
            | Node::TileStore { .. }
            | Node::TileMultiplyAdd { .. }
            | Node::If { .. }
            | Node::Loop { .. }
            | Node::While { .. }
            | Node::Block(_)
            | Node::Barrier
            | Node::Return
            | Node::Break
            | Node::Continue
            | Node::Atomic { .. } => {}
        }
    }
    written
}

/// True when a launch of `grid` workgroups of `workgroup_x` invocations along x has an invocation
/// for each of `count` elements.
pub(crate) fn covers(grid_x: u32, workgroup_x: u32, count: u64) -> bool {
    u64::from(grid_x) * u64::from(workgroup_x) >= count
}

/// True when `node` is or holds a `return`.
fn contains_return(node: &Node) -> bool {
    let mut stack = vec![node];
    while let Some(n) = stack.pop() {
        if matches!(n, Node::Return) {
            return true;
        }
        for body in n.bodies() {
            stack.extend(body.iter());
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use vyre_foundation::ir::{BufferDecl, DataType, Expr, Program};

    fn written(body: Vec<Node>) -> Vec<usize> {
        let p = Program::new(
            vec![
                BufferDecl::read("a", 0, DataType::U32).with_count(64),
                BufferDecl::output("out", 1, DataType::U32).with_count(64),
                BufferDecl::output("other", 2, DataType::U32).with_count(64),
            ],
            [64, 1, 1],
            body,
        );
        let evidence = vyre_foundation::validate(&p).expect("valid");
        fully_written_outputs(&evidence)
    }

    #[test]
    fn a_top_level_store_at_gid_writes_the_output_in_full() {
        let store = Node::store("out", Expr::gid_x(), Expr::load("a", Expr::gid_x()));
        assert_eq!(written(vec![store.clone()]), vec![1]);
        let alias = vec![
            Node::let_bind("i", Expr::gid_x()),
            Node::store("out", Expr::var("i"), Expr::u32(1)),
        ];
        assert_eq!(written(alias), vec![1]);
    }

    #[test]
    fn conditions_returns_reads_and_other_indices_keep_the_clear() {
        let guarded = Node::if_then(
            Expr::lt(Expr::gid_x(), Expr::u32(9)),
            vec![Node::store("out", Expr::gid_x(), Expr::u32(1))],
        );
        assert!(written(vec![guarded]).is_empty());
        let after_return = vec![
            Node::if_then(Expr::eq(Expr::gid_x(), Expr::u32(3)), vec![Node::return_()]),
            Node::store("out", Expr::gid_x(), Expr::u32(1)),
        ];
        assert!(written(after_return).is_empty());
        let read_back = vec![
            Node::store("out", Expr::gid_x(), Expr::u32(1)),
            Node::store("other", Expr::gid_x(), Expr::load("out", Expr::u32(0))),
        ];
        assert_eq!(written(read_back), vec![2]);
        let elsewhere = Node::store("out", Expr::add(Expr::gid_x(), Expr::u32(1)), Expr::u32(1));
        assert!(written(vec![elsewhere]).is_empty());
        let reassigned = vec![
            Node::let_bind("i", Expr::gid_x()),
            Node::assign("i", Expr::u32(0)),
            Node::store("out", Expr::var("i"), Expr::u32(1)),
        ];
        assert!(written(reassigned).is_empty());
    }

    #[test]
    fn only_a_grid_with_an_invocation_per_element_covers() {
        assert!(covers(4, 64, 256));
        assert!(!covers(3, 64, 256));
        assert!(covers(u32::MAX, u32::MAX, u64::MAX - (1 << 33)));
    }
}
