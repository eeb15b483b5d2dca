//! The memory scope of a barrier: workgroup memory always, storage memory only when it can matter.
//!
//! A vyre `barrier` orders every workgroup and storage write before it against every read after it,
//! within the workgroup (SEMANTICS.md section 2). A storage scope on the barrier is what makes one
//! invocation's storage write visible to another invocation's storage read; it costs a memory fence
//! on every barrier. That fence can only change an outcome when some invocation reads storage memory
//! another one wrote, so it is needed only when one non-workgroup buffer is both written (a store or
//! an atomic) and read (a load or an atomic: an atomic reads the value it updates) somewhere in the
//! program. The rule looks at the whole program rather than at what lies before and after each
//! barrier: it is coarser than it could be, and plainly sound.

use vyre_foundation::ir::BufferAccess;
use vyre_foundation::validate::Validated;

use super::planted::{Miscompile, planted};

/// The scope every barrier of the program carries.
pub(crate) fn barrier_scope(evidence: &Validated<'_>) -> naga::Barrier {
    let program = evidence.program();
    let shared_storage = program
        .buffers
        .iter()
        .zip(evidence.buffer_uses())
        .any(|(decl, uses)| {
            let storage = match decl.access {
                BufferAccess::Read
                | BufferAccess::ReadWrite
                | BufferAccess::Output
                | BufferAccess::Uniform => true,
                BufferAccess::Workgroup => false,
            };
            let written = uses.stored || uses.atomic;
            let read = uses.loaded || uses.atomic;
            storage && written && read
        });
    if shared_storage && !planted(Miscompile::WeakBarrierScope) {
        naga::Barrier::WORK_GROUP | naga::Barrier::STORAGE
    } else {
        naga::Barrier::WORK_GROUP
    }
}

#[cfg(test)]
mod tests {
    use vyre_foundation::ir::{BufferDecl, DataType, Expr, Node, Program};

    use super::barrier_scope;

    fn scope(buffers: Vec<BufferDecl>, body: Vec<Node>) -> naga::Barrier {
        let program = Program::new(buffers, [4, 1, 1], body);
        match vyre_foundation::validate(&program) {
            Ok(evidence) => barrier_scope(&evidence),
            Err(e) => panic!("{program}\n{e}"),
        }
    }

    fn wg() -> BufferDecl {
        BufferDecl::workgroup("wg", 4, DataType::U32)
    }

    #[test]
    fn workgroup_traffic_alone_needs_no_storage_scope() {
        let body = vec![
            Node::store("wg", Expr::local_x(), Expr::load("input", Expr::gid_x())),
            Node::barrier(),
            Node::store("out", Expr::gid_x(), Expr::load("wg", Expr::u32(0))),
        ];
        let buffers = vec![
            BufferDecl::read("input", 0, DataType::U32),
            BufferDecl::output("out", 1, DataType::U32).with_count(4),
            wg(),
        ];
        assert_eq!(scope(buffers, body), naga::Barrier::WORK_GROUP);
    }

    #[test]
    fn a_storage_buffer_written_and_read_needs_storage_scope() {
        let both = naga::Barrier::WORK_GROUP | naga::Barrier::STORAGE;
        let rw = || BufferDecl::read_write("rw", 0, DataType::U32).with_count(4);
        // Stored, then loaded at another invocation's index.
        let body = vec![
            Node::store("rw", Expr::gid_x(), Expr::u32(1)),
            Node::barrier(),
            Node::store("wg", Expr::local_x(), Expr::load("rw", Expr::u32(3))),
        ];
        assert_eq!(scope(vec![rw(), wg()], body), both);
        // Updated atomically only: an atomic reads what it updates.
        let body = vec![
            Node::let_bind("old", Expr::atomic_add("rw", Expr::u32(0), Expr::u32(1))),
            Node::barrier(),
            Node::let_bind("again", Expr::atomic_add("rw", Expr::u32(0), Expr::u32(1))),
        ];
        assert_eq!(scope(vec![rw(), wg()], body), both);
    }

    #[test]
    fn a_storage_buffer_written_but_never_read_needs_no_storage_scope() {
        let body = vec![
            Node::store("out", Expr::gid_x(), Expr::u32(1)),
            Node::barrier(),
            Node::store("out", Expr::gid_x(), Expr::u32(2)),
        ];
        let buffers = vec![BufferDecl::output("out", 0, DataType::U32).with_count(4)];
        assert_eq!(scope(buffers, body), naga::Barrier::WORK_GROUP);
    }
}
