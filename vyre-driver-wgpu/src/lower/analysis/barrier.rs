//! The memory scope of each barrier: workgroup memory always, storage memory only where it can
//! matter.
//!
//! A vyre `barrier` orders every workgroup and storage write before it against every read after it,
//! within the workgroup (SEMANTICS.md section 2). A storage scope on a barrier is what makes one
//! invocation's storage write visible to another invocation's storage read across it; it costs a
//! memory fence each time the barrier runs. The fence can only change an outcome when some storage
//! buffer may be written (a store or an atomic) before the barrier and read (a load or an atomic:
//! an atomic reads the value it updates) after it, so a barrier gets the storage scope exactly then.
//!
//! "Before" and "after" are program order, made conservative for loops: for a barrier inside a loop,
//! everything in its outermost enclosing loop is both before it (earlier iterations) and after it
//! (later ones). Both branches of an `if` count, in order; barriers are in uniform control flow, so
//! every invocation of a workgroup takes the same branch, and counting the other branch only adds
//! scope. A reduction whose only storage write is an atomic after its last barrier needs no
//! storage scope on any barrier.

use std::collections::HashSet;

use vyre_foundation::ir::{BufferAccess, Expr, Node};
use vyre_foundation::validate::Validated;

use crate::lower::planted::{Miscompile, planted};

/// The barriers of a program that need the storage scope, by their ordinal: the `k`-th barrier of
/// the program in program order (the order the lowering meets them in, statement by statement and
/// `then` before `otherwise`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct BarrierScopes {
    storage: HashSet<usize>,
}

impl BarrierScopes {
    /// Decides the scope of every barrier of `evidence`'s program (see the module docs).
    pub(crate) fn of(evidence: &Validated<'_>) -> Self {
        let program = evidence.program();
        let mut walk = Walk {
            evidence,
            events: Vec::new(),
            barriers: Vec::new(),
            loop_depth: 0,
            outer_loop_start: 0,
        };
        walk.body(&program.body);
        let events = &walk.events;
        let mut storage = HashSet::new();
        for barrier in &walk.barriers {
            let in_loop = |i: usize| barrier.outer_loop.is_some_and(|(s, e)| i >= s && i < e);
            let written_before = |buffer: usize| {
                events
                    .iter()
                    .enumerate()
                    .any(|(i, e)| (i < barrier.at || in_loop(i)) && *e == Event::Write(buffer))
            };
            let read_after = events.iter().enumerate().filter_map(|(i, e)| match e {
                Event::Read(buffer) if i > barrier.at || in_loop(i) => Some(*buffer),
                _ => None,
            });
            let mut needed = false;
            for buffer in read_after {
                if written_before(buffer) {
                    needed = true;
                    break;
                }
            }
            if needed && !planted(Miscompile::WeakBarrierScope) {
                storage.insert(barrier.ordinal);
            }
        }
        Self { storage }
    }

    /// The scope of the program's `ordinal`-th barrier.
    pub(crate) fn scope(&self, ordinal: usize) -> naga::Barrier {
        if self.storage.contains(&ordinal) {
            naga::Barrier::WORK_GROUP | naga::Barrier::STORAGE
        } else {
            naga::Barrier::WORK_GROUP
        }
    }
}

/// A storage access or a barrier, in program order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Event {
    /// A storage buffer (by declaration index) may be read.
    Read(usize),
    /// A storage buffer may be written.
    Write(usize),
    /// A barrier.
    Barrier,
}

/// Where a barrier stands among the events.
struct BarrierAt {
    ordinal: usize,
    at: usize,
    /// The event range of the outermost loop around the barrier.
    outer_loop: Option<(usize, usize)>,
}

struct Walk<'v, 'p> {
    evidence: &'v Validated<'p>,
    events: Vec<Event>,
    barriers: Vec<BarrierAt>,
    loop_depth: usize,
    outer_loop_start: usize,
}

impl Walk<'_, '_> {
    /// The declaration index of the buffer `resolved` names (as the evidence resolved it), when it
    /// is a storage (non-workgroup) buffer.
    fn storage(&self, resolved: Option<usize>) -> Option<usize> {
        let b = resolved?;
        let decl = self.evidence.program().buffers.get(b)?;
        (decl.access != BufferAccess::Workgroup).then_some(b)
    }

    fn expr_buffer(&self, expr: &Expr) -> Option<usize> {
        self.storage(self.evidence.buffer_of(expr).ok().map(|b| b.index()))
    }

    fn node_buffer(&self, node: &Node) -> Option<usize> {
        self.storage(self.evidence.node_buffer(node).ok().map(|b| b.index()))
    }

    fn expr(&mut self, expr: &Expr) {
        for child in expr.children() {
            self.expr(child);
        }
        match expr {
            Expr::Load { .. } => {
                if let Some(b) = self.expr_buffer(expr) {
                    self.events.push(Event::Read(b));
                }
            }
            Expr::Atomic { .. } => self.atomic(self.expr_buffer(expr)),
            // No other expression touches memory (subgroup operations exchange registers).
            Expr::Lit(_)
            | Expr::Var(_)
            | Expr::ArrayLoad { .. }
            | Expr::BufLen(_)
            | Expr::Builtin(_)
            | Expr::Binary { .. }
            | Expr::Unary { .. }
            | Expr::Select { .. }
            | Expr::Cast { .. }
            | Expr::Bitcast { .. }
            | Expr::Fma { .. }
            | Expr::Subgroup { .. }
            | Expr::SubgroupShuffle { .. } => {}
        }
    }

    fn atomic(&mut self, buffer: Option<usize>) {
        if let Some(b) = buffer {
            self.events.push(Event::Read(b));
            self.events.push(Event::Write(b));
        }
    }

    fn body(&mut self, body: &[Node]) {
        for node in body {
            self.node(node);
        }
    }

    fn node(&mut self, node: &Node) {
        let is_loop = matches!(node, Node::Loop { .. } | Node::While { .. });
        if is_loop && self.loop_depth == 0 {
            // From before the loop's own expressions: a `while` condition runs every iteration.
            self.outer_loop_start = self.events.len();
        }
        for expr in node.exprs() {
            self.expr(expr);
        }
        match node {
            Node::Store { .. } => {
                if let Some(b) = self.node_buffer(node) {
                    self.events.push(Event::Write(b));
                }
            }
            Node::Atomic { .. } => self.atomic(self.node_buffer(node)),
            // A tile moves a block of its buffer at once.
            Node::TileStore { .. } => {
                if let Some(b) = self.node_buffer(node) {
                    self.events.push(Event::Write(b));
                }
            }
            Node::TileLoad { .. } => {
                if let Some(b) = self.node_buffer(node) {
                    self.events.push(Event::Read(b));
                }
            }
            Node::Barrier => {
                let outer_loop = (self.loop_depth > 0).then_some((self.outer_loop_start, 0));
                self.barriers.push(BarrierAt {
                    ordinal: self.barriers.len(),
                    at: self.events.len(),
                    outer_loop,
                });
                self.events.push(Event::Barrier);
            }
            Node::Loop { body, .. } | Node::While { body, .. } => {
                self.loop_depth += 1;
                let first_barrier = self.barriers.len();
                self.body(body);
                self.loop_depth -= 1;
                if self.loop_depth == 0 {
                    let end = self.events.len();
                    for barrier in &mut self.barriers[first_barrier..] {
                        if let Some(range) = &mut barrier.outer_loop {
                            range.1 = end;
                        }
                    }
                }
            }
            Node::If {
                then, otherwise, ..
            } => {
                self.body(then);
                self.body(otherwise);
            }
            Node::Block(body) => self.body(body),
            // Private arrays are no shared memory.
            Node::Let { .. }
            | Node::Assign { .. }
            | Node::PrivateArray { .. }
            | Node::ArrayStore { .. }
            | Node::Tile { .. }
            | Node::TileMultiplyAdd { .. }
            | Node::Return
            | Node::Break
            | Node::Continue => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use vyre_foundation::ir::{BufferDecl, DataType, Expr, Node, Program};

    use super::BarrierScopes;

    const WG: naga::Barrier = naga::Barrier::WORK_GROUP;
    const BOTH: naga::Barrier = naga::Barrier::WORK_GROUP.union(naga::Barrier::STORAGE);

    /// The scope of every barrier of the (valid) program, in program order.
    fn scopes(buffers: Vec<BufferDecl>, body: Vec<Node>) -> Vec<naga::Barrier> {
        fn collect<'a>(body: &'a [Node], out: &mut Vec<&'a Node>) {
            for node in body {
                if matches!(node, Node::Barrier) {
                    out.push(node);
                }
                for inner in node.bodies() {
                    collect(inner, out);
                }
            }
        }
        let program = Program::new(buffers, [4, 1, 1], body);
        let evidence = match vyre_foundation::validate(&program) {
            Ok(evidence) => evidence,
            Err(e) => panic!("{program}\n{e}"),
        };
        let decided = BarrierScopes::of(&evidence);
        let mut barriers = Vec::new();
        collect(&program.body, &mut barriers);
        (0..barriers.len()).map(|k| decided.scope(k)).collect()
    }

    fn wg() -> BufferDecl {
        BufferDecl::workgroup("wg", 4, DataType::U32)
    }

    fn rw() -> BufferDecl {
        BufferDecl::read_write("rw", 0, DataType::U32).with_count(4)
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
        assert_eq!(scopes(buffers, body), [WG]);
    }

    #[test]
    fn a_storage_write_before_and_a_read_after_needs_storage_scope() {
        // Stored, then loaded at another invocation's index.
        let body = vec![
            Node::store("rw", Expr::gid_x(), Expr::u32(1)),
            Node::barrier(),
            Node::store("wg", Expr::local_x(), Expr::load("rw", Expr::u32(3))),
        ];
        assert_eq!(scopes(vec![rw(), wg()], body), [BOTH]);
        // Updated atomically on both sides: an atomic reads what it updates.
        let body = vec![
            Node::let_bind("old", Expr::atomic_add("rw", Expr::u32(0), Expr::u32(1))),
            Node::barrier(),
            Node::let_bind("again", Expr::atomic_add("rw", Expr::u32(0), Expr::u32(1))),
        ];
        assert_eq!(scopes(vec![rw(), wg()], body), [BOTH]);
        // An atomic statement before, a load after.
        let body = vec![
            Node::atomic(
                vyre_foundation::ir::AtomicOp::Add,
                "rw",
                Expr::u32(0),
                Expr::u32(1),
            ),
            Node::barrier(),
            Node::store("wg", Expr::local_x(), Expr::load("rw", Expr::u32(0))),
        ];
        assert_eq!(scopes(vec![rw(), wg()], body), [BOTH]);
    }

    #[test]
    fn a_storage_buffer_written_but_never_read_needs_no_storage_scope() {
        let body = vec![
            Node::store("out", Expr::gid_x(), Expr::u32(1)),
            Node::barrier(),
            Node::store("out", Expr::gid_x(), Expr::u32(2)),
        ];
        let buffers = vec![BufferDecl::output("out", 0, DataType::U32).with_count(4)];
        assert_eq!(scopes(buffers, body), [WG]);
    }

    #[test]
    fn only_barriers_between_a_write_and_a_later_read_get_storage_scope() {
        // Read, barrier, write, barrier, read: only the second barrier orders a write before a read.
        let body = vec![
            Node::store("wg", Expr::local_x(), Expr::load("rw", Expr::gid_x())),
            Node::barrier(),
            Node::store("rw", Expr::gid_x(), Expr::u32(7)),
            Node::barrier(),
            Node::store("wg", Expr::local_x(), Expr::load("rw", Expr::u32(1))),
        ];
        assert_eq!(scopes(vec![rw(), wg()], body), [WG, BOTH]);
        // A reduction's shape: workgroup traffic and barriers, then one atomic after the last one.
        let body = vec![
            Node::store("wg", Expr::local_x(), Expr::u32(1)),
            Node::barrier(),
            Node::if_then(
                Expr::lt(Expr::local_x(), Expr::u32(2)),
                vec![Node::store(
                    "wg",
                    Expr::local_x(),
                    Expr::add(
                        Expr::load("wg", Expr::local_x()),
                        Expr::load("wg", Expr::add(Expr::local_x(), Expr::u32(2))),
                    ),
                )],
            ),
            Node::barrier(),
            Node::if_then(
                Expr::eq(Expr::local_x(), Expr::u32(0)),
                vec![Node::let_bind(
                    "old",
                    Expr::atomic_add("rw", Expr::u32(0), Expr::load("wg", Expr::u32(0))),
                )],
            ),
        ];
        assert_eq!(scopes(vec![rw(), wg()], body), [WG, WG]);
    }

    #[test]
    fn inside_a_loop_later_iterations_count_as_after() {
        // The write comes after the barrier in the body, the read before it: the next iteration's
        // read follows this iteration's write across the barrier.
        let body = vec![Node::loop_for(
            "k",
            Expr::u32(0),
            Expr::u32(3),
            vec![
                Node::store("wg", Expr::local_x(), Expr::load("rw", Expr::u32(0))),
                Node::barrier(),
                Node::store("rw", Expr::gid_x(), Expr::var("k")),
            ],
        )];
        assert_eq!(scopes(vec![rw(), wg()], body), [BOTH]);
        // The same with the loop nested in another: the outermost loop is what counts.
        let body = vec![Node::loop_for(
            "j",
            Expr::u32(0),
            Expr::u32(2),
            vec![
                Node::store("wg", Expr::local_x(), Expr::load("rw", Expr::u32(0))),
                Node::loop_for("k", Expr::u32(0), Expr::u32(3), vec![Node::barrier()]),
                Node::store("rw", Expr::gid_x(), Expr::var("j")),
            ],
        )];
        assert_eq!(scopes(vec![rw(), wg()], body), [BOTH]);
        // A while loop: the atomic after the barriers of one iteration is read by the load before
        // them in the next.
        let body = vec![
            Node::let_bind("n", Expr::u32(0)),
            Node::loop_while(
                Expr::lt(Expr::var("n"), Expr::u32(3)),
                vec![
                    Node::store("wg", Expr::local_x(), Expr::load("rw", Expr::u32(0))),
                    Node::barrier(),
                    Node::if_then(
                        Expr::eq(Expr::local_x(), Expr::u32(0)),
                        vec![Node::atomic(
                            vyre_foundation::ir::AtomicOp::Add,
                            "rw",
                            Expr::u32(0),
                            Expr::u32(1),
                        )],
                    ),
                    Node::barrier(),
                    Node::assign("n", Expr::add(Expr::var("n"), Expr::u32(1))),
                ],
            ),
        ];
        assert_eq!(scopes(vec![rw(), wg()], body), [BOTH, BOTH]);
    }
}
