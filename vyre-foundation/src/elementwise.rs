//! Elementwise programs, and the piece of one that runs a range of its grid on its own.
//!
//! A validated program is *elementwise* ([`is_elementwise`]) when:
//!
//! - every `load`, `store` and atomic on a bound (storage) buffer indexes it with exactly `gid.x`, or
//!   with a variable declared by a `let` of exactly `gid.x` and never assigned;
//! - no buffer is `uniform` (a uniform binding is never cut, so such a program keeps one dispatch);
//! - workgroup buffers may be indexed any way: a range is cut at whole workgroups, so every
//!   workgroup, its shared memory and its barriers stay whole in one piece.
//!
//! Then invocation `gid.x = i` touches element `i` of each bound buffer and nothing else in them,
//! and no invocation with another `gid.x` touches it. Cutting the grid along x into runs of whole
//! workgroups (all of y and z in each), and running each run as a dispatch of its own over the
//! buffers' elements from its first `gid.x` on, computes what one dispatch computes, in any order of
//! the pieces. [`range_piece`] builds such a piece as an ordinary program, so that any backend runs
//! it: a backend that splits work across devices (`vyre::Sharded`) and the wgpu backend's launches
//! over buffers larger than one binding both rest on this rule.
//!
//! ```
//! use vyre_foundation::elementwise::{is_elementwise, range_piece};
//! use vyre_foundation::ir::{BufferDecl, DataType, Expr, Node, Program};
//!
//! // `c[i] = a[i] + i`: elementwise.
//! let program = Program::new(
//!     vec![
//!         BufferDecl::read("a", 0, DataType::U32).with_count(1000),
//!         BufferDecl::output("c", 1, DataType::U32).with_count(1000),
//!     ],
//!     [64, 1, 1],
//!     vec![Node::store("c", Expr::gid_x(), Expr::add(Expr::load("a", Expr::gid_x()), Expr::gid_x()))],
//! );
//! let evidence = vyre_foundation::validate(&program).expect("valid");
//! assert!(is_elementwise(&evidence));
//! // Workgroups 8.. of the 16 (elements 512..1000), as a program of its own.
//! let piece = range_piece(&evidence, [16, 1, 1], &[1000, 1000], 8, 8).expect("a piece");
//! assert_eq!(piece.ranges[0], Some(512..1000));
//! assert_eq!(piece.program.buffers[1].count, 488);
//! assert!(vyre_foundation::validate(&piece.program).is_ok());
//! ```

use std::collections::HashSet;
use std::ops::Range;

use crate::ir::{Axis, BufferAccess, Builtin, Expr, Node, Program};
use crate::validate::{BufferId, Validated, VarId};

/// True when the validated program is elementwise (see the module docs). A missing fact counts as
/// not elementwise, which keeps the always-correct single dispatch.
///
/// ```
/// use vyre_foundation::elementwise::is_elementwise;
/// use vyre_foundation::ir::{BufferDecl, DataType, Expr, Node, Program};
///
/// let shifted = Program::new(
///     vec![
///         BufferDecl::read("a", 0, DataType::U32).with_count(64),
///         BufferDecl::output("c", 1, DataType::U32).with_count(64),
///     ],
///     [64, 1, 1],
///     // Reads its neighbour's element: not elementwise.
///     vec![Node::store("c", Expr::gid_x(), Expr::load("a", Expr::add(Expr::gid_x(), Expr::u32(1))))],
/// );
/// assert!(!is_elementwise(&vyre_foundation::validate(&shifted).expect("valid")));
/// ```
#[must_use]
pub fn is_elementwise(evidence: &Validated<'_>) -> bool {
    let program = evidence.program();
    // A subgroup operation reads other invocations' values (and which invocations share a
    // subgroup would change with the launch), and a tile is a whole block of a buffer, so such a
    // program is never elementwise.
    if evidence.features().contains(crate::ir::Features::SUBGROUPS)
        || evidence.features().contains(crate::ir::Features::TILES)
        || program
            .buffers
            .iter()
            .any(|b| b.access == BufferAccess::Uniform)
    {
        return false;
    }
    let mut aliases = GidAliases::default();
    crate::for_each_node(&program.body, |node| aliases.note(evidence, node));
    let at_gid = |index: &Expr| aliases.at_gid(evidence, index);
    let shared = |id: Result<BufferId, _>| {
        id.ok()
            .and_then(|b| program.buffers.get(b.index()))
            .map(|b| b.access == BufferAccess::Workgroup)
    };
    let mut ok = true;
    crate::for_each_node(&program.body, |node| {
        if let Node::Store { index, .. } | Node::Atomic { index, .. } = node {
            match shared(evidence.node_buffer(node)) {
                Some(true) => {}
                Some(false) => ok &= at_gid(index),
                None => ok = false,
            }
        }
        for root in node.exprs() {
            let mut stack = vec![root];
            while let Some(expr) = stack.pop() {
                if let Expr::Load { index, .. } | Expr::Atomic { index, .. } = expr {
                    match shared(evidence.buffer_of(expr)) {
                        Some(true) => {}
                        Some(false) => ok &= at_gid(index),
                        None => ok = false,
                    }
                }
                stack.extend(expr.children());
            }
        }
    });
    ok
}

/// A range of an elementwise dispatch as a program of its own (see [`range_piece`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RangePiece {
    /// The piece's program: run it over the grid `[workgroups, grid[1], grid[2]]`.
    pub program: Program,
    /// Per program buffer, in declaration order: the whole dispatch's elements the piece's buffer
    /// holds (its element `k` is the whole buffer's element `range.start + k`); `None` for
    /// workgroup buffers. Its input is that range of the whole input (zero-extended as usual where
    /// the input is shorter), and its output goes back to that range of the whole output.
    pub ranges: Vec<Option<Range<u64>>>,
}

/// The workgroups `first .. first + workgroups` (along x; all of y and z) of a dispatch of the
/// elementwise program `evidence` over `grid` with `counts[j]` elements in program buffer `j`, as a
/// program that any backend runs on its own, with byte-identical results for those invocations.
///
/// The piece declares each bound buffer with the elements its invocations can touch,
/// `first * wx .. min(count, (first + workgroups) * wx)`, so its out-of-bounds rule (an index at or
/// past a buffer's length) holds for exactly the invocations the whole dispatch's does; its storage
/// accesses index at its own `gid.x`. Every other use of a builtin keeps its whole-dispatch value:
/// `gid.x` becomes `gid.x + first * wx`, `workgroup_id.x` becomes `workgroup_id.x + first`,
/// `num_workgroups.x` the whole grid's `grid[0]`, and `buf_len` of a bound buffer its whole count.
/// Output byte ranges are dropped (the caller trims the assembled whole output).
///
/// `None` when the program is not elementwise, the range is empty or leaves the grid, `counts`
/// does not have one entry per buffer, or some bound buffer has no element in the range (the
/// piece would need an empty buffer; cut below the shortest buffer's length instead).
///
/// ```
/// use vyre_foundation::elementwise::range_piece;
/// use vyre_foundation::ir::{BufferDecl, DataType, Expr, Node, Program};
///
/// let ids = Program::new(
///     vec![BufferDecl::output("o", 0, DataType::U32).with_count(256)],
///     [64, 1, 1],
///     vec![Node::store("o", Expr::gid_x(), Expr::gid_x())],
/// );
/// let evidence = vyre_foundation::validate(&ids).expect("valid");
/// let piece = range_piece(&evidence, [4, 1, 1], &[256], 1, 2).expect("a piece");
/// assert_eq!(piece.ranges, [Some(64..192)]);
/// // The stored value keeps its whole-dispatch meaning: `gid.x + 64`.
/// assert!(piece.program.to_string().contains("64"));
/// // Past the grid: no piece.
/// assert!(range_piece(&evidence, [4, 1, 1], &[256], 3, 2).is_none());
/// ```
#[must_use]
pub fn range_piece(
    evidence: &Validated<'_>,
    grid: [u32; 3],
    counts: &[u64],
    first: u32,
    workgroups: u32,
) -> Option<RangePiece> {
    let program = evidence.program();
    let end_group = first.checked_add(workgroups)?;
    if workgroups == 0 || end_group > grid[0] || counts.len() != program.buffers.len() {
        return None;
    }
    if !is_elementwise(evidence) {
        return None;
    }
    let wx = u64::from(program.workgroup_size[0]);
    let start = u64::from(first) * wx;
    let end = u64::from(end_group) * wx;
    let base = u32::try_from(start).ok()?;
    let mut piece = program.clone();
    let mut ranges = Vec::with_capacity(counts.len());
    let mut lengths = Vec::with_capacity(counts.len());
    for (decl, &count) in piece.buffers.iter_mut().zip(counts) {
        if decl.access == BufferAccess::Workgroup {
            ranges.push(None);
            lengths.push(None);
            continue;
        }
        let range = start..count.min(end);
        if range.start >= range.end {
            return None;
        }
        decl.count = u32::try_from(range.end - range.start).ok()?;
        decl.output_byte_range = None;
        lengths.push(Some(u32::try_from(count).ok()?));
        ranges.push(Some(range));
    }
    let rewrite = Rewrite {
        program,
        lengths: &lengths,
        base,
        first,
        grid_x: grid[0],
    };
    rewrite.body(&mut piece.body);
    Some(RangePiece {
        program: piece,
        ranges,
    })
}

/// What a piece's body changes (see [`range_piece`]).
struct Rewrite<'a> {
    program: &'a Program,
    /// Per program buffer: the whole count of a bound buffer, `None` for workgroup buffers.
    lengths: &'a [Option<u32>],
    base: u32,
    first: u32,
    grid_x: u32,
}

impl Rewrite<'_> {
    /// The whole count of the bound buffer called `name`, or `None` for a workgroup buffer. Names
    /// are looked up here, not through evidence, because the body being rewritten is a copy (the
    /// evidence is keyed by the original's addresses); validation made every buffer name unique
    /// and every use name a declared buffer.
    fn bound(&self, name: &str) -> Option<u32> {
        let j = self.program.buffers.iter().position(|b| b.name == name)?;
        self.lengths.get(j).copied().flatten()
    }

    fn body(&self, body: &mut [Node]) {
        let mut stack: Vec<&mut Node> = body.iter_mut().collect();
        while let Some(node) = stack.pop() {
            match node {
                Node::Store {
                    buffer,
                    index,
                    value,
                } => {
                    self.index(buffer, index);
                    self.expr(value);
                }
                Node::Atomic {
                    buffer,
                    index,
                    expected,
                    value,
                    ..
                } => {
                    self.index(buffer, index);
                    if let Some(expected) = expected {
                        self.expr(expected);
                    }
                    self.expr(value);
                }
                Node::Let { value, .. } | Node::Assign { value, .. } => self.expr(value),
                // A private array is the invocation's own: its index keeps its meaning, builtins
                // rewritten, as a workgroup buffer's does.
                Node::ArrayStore { index, value, .. } => {
                    self.expr(index);
                    self.expr(value);
                }
                Node::If {
                    cond,
                    then,
                    otherwise,
                } => {
                    self.expr(cond);
                    stack.extend(then.iter_mut());
                    stack.extend(otherwise.iter_mut());
                }
                Node::Loop { from, to, body, .. } => {
                    self.expr(from);
                    self.expr(to);
                    stack.extend(body.iter_mut());
                }
                Node::While { cond, body } => {
                    self.expr(cond);
                    stack.extend(body.iter_mut());
                }
                Node::Block(body) => stack.extend(body.iter_mut()),
                // Never met: a program with tiles is not elementwise (`is_elementwise`).
                Node::TileLoad { offset, stride, .. } | Node::TileStore { offset, stride, .. } => {
                    self.expr(offset);
                    self.expr(stride);
                }
                Node::PrivateArray { .. }
                | Node::Tile { .. }
                | Node::TileMultiplyAdd { .. }
                | Node::Barrier
                | Node::Return
                | Node::Break
                | Node::Continue => {}
            }
        }
    }

    /// A storage index is `gid.x` or an alias of it (the program is elementwise), whose value in
    /// the piece is the piece's own `gid.x` plus `base`: the piece's element is its own `gid.x`.
    /// A workgroup buffer's index keeps its meaning, builtins rewritten.
    fn index(&self, buffer: &str, index: &mut Expr) {
        if self.bound(buffer).is_some() {
            *index = Expr::gid_x();
        } else {
            self.expr(index);
        }
    }

    fn expr(&self, root: &mut Expr) {
        let mut stack: Vec<&mut Expr> = vec![root];
        while let Some(expr) = stack.pop() {
            match expr {
                Expr::Builtin(builtin) => {
                    if let Some(whole) = self.builtin(*builtin) {
                        *expr = whole;
                    }
                }
                Expr::BufLen(name) => {
                    if let Some(count) = self.bound(name) {
                        *expr = Expr::u32(count);
                    }
                }
                Expr::Load { buffer, index } => {
                    if self.bound(buffer).is_some() {
                        **index = Expr::gid_x();
                    } else {
                        stack.push(index);
                    }
                }
                Expr::ArrayLoad { index, .. } => stack.push(index),
                Expr::Atomic {
                    buffer,
                    index,
                    expected,
                    value,
                    ..
                } => {
                    if self.bound(buffer).is_some() {
                        **index = Expr::gid_x();
                    } else {
                        stack.push(index);
                    }
                    if let Some(expected) = expected {
                        stack.push(expected);
                    }
                    stack.push(value);
                }
                Expr::Lit(_) | Expr::Var(_) => {}
                Expr::Binary { lhs, rhs, .. } => {
                    stack.push(lhs);
                    stack.push(rhs);
                }
                Expr::Unary { arg, .. }
                | Expr::Cast { arg, .. }
                | Expr::Bitcast { arg, .. }
                | Expr::Subgroup { arg, .. } => {
                    stack.push(arg);
                }
                Expr::SubgroupShuffle { value, lane } => {
                    stack.push(value);
                    stack.push(lane);
                }
                Expr::Select {
                    cond,
                    on_true,
                    on_false,
                } => {
                    stack.push(cond);
                    stack.push(on_true);
                    stack.push(on_false);
                }
                Expr::Fma { a, b, c } => {
                    stack.push(a);
                    stack.push(b);
                    stack.push(c);
                }
            }
        }
    }

    /// The whole-dispatch value of a builtin in the piece, or `None` where the piece's own value is
    /// already the whole dispatch's (local ids, and the y and z axes, which a piece keeps whole).
    fn builtin(&self, builtin: Builtin) -> Option<Expr> {
        match builtin {
            Builtin::GlobalId(Axis::X) => Some(Expr::add(Expr::gid_x(), Expr::u32(self.base))),
            Builtin::WorkgroupId(Axis::X) => {
                Some(Expr::add(Expr::workgroup_x(), Expr::u32(self.first)))
            }
            Builtin::NumWorkgroups(Axis::X) => Some(Expr::u32(self.grid_x)),
            Builtin::GlobalId(Axis::Y | Axis::Z)
            | Builtin::WorkgroupId(Axis::Y | Axis::Z)
            | Builtin::NumWorkgroups(Axis::Y | Axis::Z)
            | Builtin::LocalId(_)
            // Never reached: a subgroup program is not elementwise, so it is never cut.
            | Builtin::SubgroupSize
            | Builtin::SubgroupInvocationId => None,
        }
    }
}

/// Variables that only ever hold `gid.x`: declared by a `let` of exactly `gid.x` and never
/// assigned. Every analysis that asks whether an access is at the invocation's own element (this
/// module's, and the wgpu lowering's vectorised, packed and coverage analyses) records them with
/// [`GidAliases::note`] while walking the program in order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GidAliases(HashSet<VarId>);

impl GidAliases {
    /// Records `node` when it declares such a variable.
    pub fn note(&mut self, evidence: &Validated<'_>, node: &Node) {
        if let Node::Let { value, .. } = node
            && is_gid_x(value)
            && let Ok(id) = evidence.node_var(node)
            && evidence.var(id).is_ok_and(|v| !v.assigned)
        {
            self.0.insert(id);
        }
    }

    /// True when `index` is `gid.x` itself or a variable recorded so far.
    #[must_use]
    pub fn at_gid(&self, evidence: &Validated<'_>, index: &Expr) -> bool {
        if let Expr::Var(_) = index {
            return evidence.var_of(index).is_ok_and(|id| self.0.contains(&id));
        }
        is_gid_x(index)
    }
}

/// True when `expr` is exactly `gid.x`.
#[must_use]
pub fn is_gid_x(expr: &Expr) -> bool {
    matches!(expr, Expr::Builtin(Builtin::GlobalId(Axis::X)))
}
