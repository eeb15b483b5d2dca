//! Vectorised elementwise modules: each invocation handles four consecutive elements with `vec4`
//! loads and stores, where the raw lowering would move one scalar per invocation.
//!
//! A program qualifies when every effect it has is on the invocation's own element: every access to
//! a writable buffer is at `gid.x` itself (or a `let` of exactly `gid.x` that is never assigned), and
//! it has no atomics, barriers, workgroup memory or `return`, in a workgroup of one dimension, and
//! the module is not coalesced. The buffers *vectorised* are the storage buffers (not uniform) whose
//! every access is at `gid.x` and whose declared count is a non-zero multiple of four: they are
//! declared as `array<vec4<T>>`, and their binding of `4 * count` bytes is a whole number of rows.
//! Other buffers are accessed as before, element by element, with their guards.
//!
//! The grid does not change, so the dispatch side needs to know nothing: invocation `lid` of the
//! (virtual) workgroup `wid` takes the group of four `c = wid.x * W + lid`, elements `4c .. 4c + 4`,
//! and the three quarters of workgroups whose groups lie past the grid's end return at once. Element
//! `4c + k` is the virtual invocation `gid.x = 4c + k` (`lid.x`, `wid.x` follow from it; y and z are
//! the invocation's own), and it exists when `4c + k` is at most the grid's last `gid.x`. Then:
//!
//! - **Fast path**, when all four elements exist and lie inside every vectorised buffer: each
//!   vectorised buffer's row `c` is loaded once into a local `vec4` (skipped for a buffer that is never
//!   loaded and always stored at the top level), the body runs four times on lanes 0 to 3 of those
//!   locals with no guards, and each stored buffer's row is written back once. The elements are no
//!   other invocation's, so writing back a lane the body did not store rewrites the value it read.
//! - **Tail**, otherwise: the body runs once per existing element, in a loop, with every access
//!   guarded as usual (a vectorised buffer's element `i` is lane `i % 4` of row `i / 4`).
//!
//! Every virtual invocation therefore runs exactly once, with its own builtins, as SEMANTICS.md
//! requires; only the grouping of invocations changes, which an elementwise program cannot observe.

use std::collections::HashSet;

use naga::{BinaryOperator as B, Block, Expression, Handle, Statement};
use vyre_driver::BackendError;
use vyre_foundation::ir::{Axis, BufferAccess, Builtin, Expr, Node};
use vyre_foundation::validate::{Validated, VarId};

use super::LowerOptions;
use super::lowerer::Lowerer;
use super::planted::{Miscompile, planted};

/// Elements per invocation of a vectorised module.
pub(crate) const WIDTH: u32 = 4;

/// How a program is vectorised.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct VectorPlan {
    /// Per program buffer: vectorised or not.
    pub(crate) vectorised: Vec<bool>,
    /// Per program buffer: its row must be loaded before the body runs (it is loaded, or some
    /// element may not be stored).
    pub(crate) preload: Vec<bool>,
    /// Per program buffer: some store writes it.
    pub(crate) stored: Vec<bool>,
    /// Variables that only ever hold `gid.x`.
    pub(crate) aliases: HashSet<VarId>,
}

/// The lane the fast path is lowering, and the row locals of the vectorised buffers.
#[derive(Clone, Debug)]
pub(crate) struct Lanes {
    pub(crate) lane: u32,
    pub(crate) rows: Vec<Option<Handle<Expression>>>,
}

/// The program's vectorisation, or `None` when it does not qualify (see the module docs).
pub(crate) fn plan(evidence: &Validated<'_>, options: &LowerOptions) -> Option<VectorPlan> {
    let program = evidence.program();
    let [_, y, z] = program.workgroup_size;
    if options.coalesced || options.packed || y != 1 || z != 1 {
        return None;
    }
    if evidence.buffer_uses().iter().any(|u| u.atomic)
        || program
            .buffers
            .iter()
            .any(|b| b.access == BufferAccess::Workgroup)
    {
        return None;
    }
    let n = program.buffers.len();
    let mut aliases = HashSet::new();
    // Per buffer: some access is elsewhere than at `gid.x`.
    let mut elsewhere = vec![false; n];
    let mut stored = vec![false; n];
    let mut ok = true;
    walk(&program.body, &mut |node| match node {
        Node::Barrier | Node::Return => ok = false,
        Node::Let { value, .. } => {
            if matches!(value, Expr::Builtin(Builtin::GlobalId(Axis::X)))
                && let Ok(id) = evidence.node_var(node)
                && evidence.var(id).is_ok_and(|v| !v.assigned)
            {
                aliases.insert(id);
            }
        }
        Node::Store { index, .. } => match evidence.node_buffer(node) {
            Ok(b) => {
                stored[b.index()] = true;
                if !at_gid(evidence, &aliases, index) {
                    elsewhere[b.index()] = true;
                }
            }
            Err(_) => ok = false,
        },
        Node::Assign { .. } | Node::If { .. } | Node::Loop { .. } | Node::Block(_) => {}
    });
    // Loads, wherever they stand (the walk above saw every alias before its uses).
    let mut loaded = vec![false; n];
    walk(&program.body, &mut |node| {
        for expr in node_exprs(node) {
            visit_loads(expr, &mut |load, index| match evidence.buffer_of(load) {
                Ok(b) => {
                    loaded[b.index()] = true;
                    if !at_gid(evidence, &aliases, index) {
                        elsewhere[b.index()] = true;
                    }
                }
                Err(_) => ok = false,
            });
        }
    });
    let mut vectorised = vec![false; n];
    for (j, decl) in program.buffers.iter().enumerate() {
        let writable = decl.access.is_writable();
        if writable && elsewhere[j] {
            return None;
        }
        let storage = matches!(
            decl.access,
            BufferAccess::Read | BufferAccess::ReadWrite | BufferAccess::Output
        );
        vectorised[j] = storage
            && !elsewhere[j]
            && (loaded[j] || stored[j])
            && decl.count != 0
            && decl.count % WIDTH == 0;
    }
    if !ok || !vectorised.contains(&true) {
        return None;
    }
    let top_stored: Vec<bool> = (0..n)
        .map(|j| {
            program.body.iter().any(|node| {
                matches!(node, Node::Store { .. })
                    && evidence.node_buffer(node).is_ok_and(|b| b.index() == j)
            })
        })
        .collect();
    let preload = (0..n)
        .map(|j| vectorised[j] && (loaded[j] || !top_stored[j]))
        .collect();
    Some(VectorPlan {
        vectorised,
        preload,
        stored,
        aliases,
    })
}

/// True when `index` is `gid.x` itself or a variable that only ever holds it.
pub(crate) fn at_gid(evidence: &Validated<'_>, aliases: &HashSet<VarId>, index: &Expr) -> bool {
    match index {
        Expr::Builtin(Builtin::GlobalId(Axis::X)) => true,
        Expr::Var(_) => evidence.var_of(index).is_ok_and(|id| aliases.contains(&id)),
        Expr::Lit(_)
        | Expr::Load { .. }
        | Expr::BufLen(_)
        | Expr::Builtin(_)
        | Expr::Binary { .. }
        | Expr::Unary { .. }
        | Expr::Select { .. }
        | Expr::Cast { .. }
        | Expr::Bitcast { .. }
        | Expr::Fma { .. }
        | Expr::Atomic { .. } => false,
    }
}

/// The expressions a statement holds directly (not those of nested statements).
fn node_exprs(node: &Node) -> Vec<&Expr> {
    match node {
        Node::Let { value, .. } | Node::Assign { value, .. } => vec![value],
        Node::Store { index, value, .. } => vec![index, value],
        Node::If { cond, .. } => vec![cond],
        Node::Loop { from, to, .. } => vec![from, to],
        Node::Block(_) | Node::Barrier | Node::Return => Vec::new(),
    }
}

/// Calls `f(load, index)` for every load below `expr`.
fn visit_loads<'a>(expr: &'a Expr, f: &mut impl FnMut(&'a Expr, &'a Expr)) {
    let mut stack = vec![expr];
    while let Some(e) = stack.pop() {
        if let Expr::Load { index, .. } = e {
            f(e, index);
        }
        stack.extend(e.children());
    }
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

impl Lowerer<'_, '_> {
    /// Lowers the body of a vectorised program (see the module docs).
    pub(crate) fn vector_body(
        &mut self,
        block: &mut Block,
        body: &[Node],
        plan: &VectorPlan,
    ) -> Result<(), BackendError> {
        let width = self.program.workgroup_size[0];
        let [_, lid, wid, nwg] = self.prologue.builtins;
        let w = self.fb.u32(block, width);
        let four = self.fb.u32(block, WIDTH);
        let one = self.fb.u32(block, 1);
        // The grid's last gid.x, (nwg.x - 1) * W + W - 1, which fits a u32 where nwg.x * W might not.
        let groups_before = self.fb.binary(block, B::Subtract, nwg[0], one);
        let start = self.fb.binary(block, B::Multiply, groups_before, w);
        let w_less = self.fb.u32(block, width - 1);
        let last = self.fb.binary(block, B::Add, start, w_less);
        let row_of_workgroup = self.fb.binary(block, B::Multiply, wid[0], w);
        let row = self.fb.binary(block, B::Add, row_of_workgroup, lid[0]);
        let last_row = self.fb.binary(block, B::Divide, last, four);
        let past = self.fb.binary(block, B::Greater, row, last_row);
        self.fb.if_then(block, past, |fb, inner| {
            fb.stmt(inner, Statement::Return { value: None })
        });
        let first = self.fb.binary(block, B::Multiply, row, four);
        // Elements first + k exist for k <= rest.
        let rest = self.fb.binary(block, B::Subtract, last, first);
        let three = self.fb.u32(block, WIDTH - 1);
        let mut full = if planted(Miscompile::VectorIgnoresGridEnd) {
            self.literal(block, vyre_foundation::ir::Literal::Bool(true))
        } else {
            self.fb.binary(block, B::GreaterEqual, rest, three)
        };
        // One comparison per distinct count: inside the shortest is inside them all, but every
        // count is still checked rather than trusting an order.
        let mut counts: Vec<u32> = (0..self.program.buffers.len())
            .filter(|&j| plan.vectorised[j])
            .map(|j| self.program.buffers[j].count)
            .collect();
        counts.sort_unstable();
        counts.dedup();
        for count in counts {
            // Vectorised counts are non-zero multiples of four, so this does not wrap.
            let limit = self.fb.u32(block, count - (WIDTH - 1));
            let inside = self.fb.binary(block, B::Less, first, limit);
            full = self.fb.binary(block, B::LogicalAnd, full, inside);
        }
        self.fb.flush(block);
        let mut fast = Block::new();
        self.fast_path(&mut fast, body, plan, row, first)?;
        self.fb.flush(&mut fast);
        let mut tail = Block::new();
        self.tail(&mut tail, body, first, rest)?;
        self.fb.flush(&mut tail);
        self.fb.stmt(
            block,
            Statement::If {
                condition: full,
                accept: fast,
                reject: tail,
            },
        );
        Ok(())
    }

    /// Sets the x builtins to those of element `gid_x` (the invocation's own y and z stay).
    fn element_builtins(&mut self, block: &mut Block, gid_x: Handle<Expression>) {
        let width = self.program.workgroup_size[0];
        let w = self.fb.u32(block, width);
        let lid = self.fb.binary(block, B::Modulo, gid_x, w);
        let wid = self.fb.binary(block, B::Divide, gid_x, w);
        self.prologue.builtins[0][0] = gid_x;
        self.prologue.builtins[1][0] = lid;
        self.prologue.builtins[2][0] = wid;
    }

    fn fast_path(
        &mut self,
        block: &mut Block,
        body: &[Node],
        plan: &VectorPlan,
        row: Handle<Expression>,
        first: Handle<Expression>,
    ) -> Result<(), BackendError> {
        let saved = self.prologue.builtins;
        let mut rows = vec![None; self.program.buffers.len()];
        for (j, decl) in self.program.buffers.iter().enumerate() {
            if !plan.vectorised[j] {
                continue;
            }
            let ty = self.types.vec4(decl.element);
            let local = self.fb.local(block, None, ty);
            if plan.preload[j] {
                let pointer = self.row_pointer(block, j, row);
                let value = self.fb.load(block, pointer);
                self.fb.stmt(
                    block,
                    Statement::Store {
                        pointer: local,
                        value,
                    },
                );
            }
            rows[j] = Some(local);
        }
        for lane in 0..WIDTH {
            let k = self.fb.u32(block, lane);
            let gid_x = self.fb.binary(block, B::Add, first, k);
            self.element_builtins(block, gid_x);
            self.lanes = Some(Lanes {
                lane,
                rows: rows.clone(),
            });
            let lowered = self.body(block, body);
            self.lanes = None;
            lowered?;
        }
        self.prologue.builtins = saved;
        for (j, local) in rows.iter().enumerate() {
            if let Some(local) = *local
                && plan.stored[j]
            {
                let value = self.fb.load(block, local);
                let pointer = self.row_pointer(block, j, row);
                self.fb.stmt(block, Statement::Store { pointer, value });
            }
        }
        Ok(())
    }

    /// `for k in 0..4 { if k > rest { break } body(gid.x = first + k) }`, every access guarded.
    fn tail(
        &mut self,
        block: &mut Block,
        body: &[Node],
        first: Handle<Expression>,
        rest: Handle<Expression>,
    ) -> Result<(), BackendError> {
        let saved = self.prologue.builtins;
        let counter = self
            .fb
            .local(block, Some("vyre_lane".to_owned()), self.types.u32);
        let zero = self.fb.u32(block, 0);
        self.fb.stmt(
            block,
            Statement::Store {
                pointer: counter,
                value: zero,
            },
        );
        self.fb.flush(block);
        let mut loop_body = Block::new();
        let k = self.fb.load(&mut loop_body, counter);
        let four = self.fb.u32(&mut loop_body, WIDTH);
        let done = self.fb.binary(&mut loop_body, B::GreaterEqual, k, four);
        let missing = if planted(Miscompile::VectorTailOffByOne) {
            self.fb.binary(&mut loop_body, B::GreaterEqual, k, rest)
        } else {
            self.fb.binary(&mut loop_body, B::Greater, k, rest)
        };
        let stop = self.fb.binary(&mut loop_body, B::LogicalOr, done, missing);
        self.fb.if_then(&mut loop_body, stop, |fb, inner| {
            fb.stmt(inner, Statement::Break)
        });
        let gid_x = self.fb.binary(&mut loop_body, B::Add, first, k);
        self.element_builtins(&mut loop_body, gid_x);
        let lowered = self.body(&mut loop_body, body);
        self.prologue.builtins = saved;
        lowered?;
        self.fb.flush(&mut loop_body);
        let mut continuing = Block::new();
        let current = self.fb.load(&mut continuing, counter);
        let one = self.fb.u32(&mut continuing, 1);
        let next = self.fb.binary(&mut continuing, B::Add, current, one);
        self.fb.stmt(
            &mut continuing,
            Statement::Store {
                pointer: counter,
                value: next,
            },
        );
        self.fb.stmt(
            block,
            Statement::Loop {
                body: loop_body,
                continuing,
                break_if: None,
            },
        );
        Ok(())
    }

    /// A pointer to row `row` (a `vec4`) of vectorised buffer `buffer`.
    fn row_pointer(
        &mut self,
        block: &mut Block,
        buffer: usize,
        row: Handle<Expression>,
    ) -> Handle<Expression> {
        let base = self.fb.expr(
            block,
            Expression::GlobalVariable(self.globals[buffer].global),
        );
        self.fb.access(block, base, row)
    }

    /// In the fast path: the pointer to this lane of the row local of `buffer` when `index` is the
    /// invocation's own element of a vectorised buffer.
    pub(crate) fn lane_pointer(
        &mut self,
        block: &mut Block,
        buffer: usize,
        index: &Expr,
    ) -> Option<Handle<Expression>> {
        let lanes = self.lanes.as_ref()?;
        let local = lanes.rows.get(buffer).copied().flatten()?;
        let plan = self.vector.as_ref()?;
        if !at_gid(self.evidence, &plan.aliases, index) {
            return None;
        }
        let lane = lanes.lane;
        Some(self.fb.access_index(block, local, lane))
    }
}
