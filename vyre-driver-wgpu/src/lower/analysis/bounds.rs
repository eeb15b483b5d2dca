//! Which accesses are proven in bounds, so that their guards can go.
//!
//! Every access is guarded unless one of these proofs shows its index is below the buffer's length
//! in *every* dispatch of the module (a compiled pipeline is cached and reused with other grids and
//! inputs, so facts about one dispatch's sizes prove nothing):
//!
//! 1. **A literal** index below a length the module fixes (a workgroup buffer's count, or a declared
//!    count, which is every dispatch's and every coalesced item's length, and which the prologue
//!    uses as a literal).
//! 2. **An enclosing condition** `x < y` (also `y > x`, `x <= y`, `y >= x`, and either side of
//!    `&&`) on a `u32` subject `x` that cannot change (a builtin, a loop variable, or a `let` never
//!    assigned), where `y` is `buf_len(b)`, a literal at most `b`'s fixed length, or anything already
//!    bounded by one of those. It holds in the `then` branch only.
//! 3. **A counted loop**: a `u32` loop variable is below the loop's `to`, evaluated once.
//! 4. **The workgroup size**: `lid` on an axis is below the workgroup size on that axis.
//! 5. **The shape of the index**: `x % y` is below `y` (or 0 when `y` is 0), `min(x, y)` below
//!    either bound, `x & m` at most `m`; an immutable `let` keeps the bounds of its value. `x %
//!    buf_len(b)` counts only where every length is at least 1 (not in coalesced modules, whose items
//!    may have empty slices).
//!
//! 6. **Arithmetic on constant bounds**, where the law's wrapping cannot happen: with `x < a` and
//!    `y < b` (constants), `x + y < a + b - 1` and `x * y < (a - 1)(b - 1) + 1` when the largest
//!    value fits in `u32`, `x << k < ((a - 1) << k) + 1` likewise (`k` a literal, taken mod 32 as
//!    the law shifts), `x | y` and `x ^ y` below the power of two at or above `max(a, b)`, and
//!    `max(x, y) < max(a, b)`; `x / y` and `x >> y` are at most `x` (`x / 0 = x` by the law), so
//!    they keep every bound of `x`, lengths included, and by a literal `c >= 1` or `k` they are
//!    at most `(a - 1) / c` or `(a - 1) >> k`; `c - y` of a literal `c` and `y < a <= c + 1` is in
//!    `0..=c` (it cannot wrap), so below `c + 1` (a double-buffered stage's other half, `len - cur`).
//!
//! 7. **The packed grid**: in a packed module, `gid.x` is below the item's active invocations, which
//!    the engine makes at most the longest stored buffer's length (`engine::packed::packed_active`);
//!    when every stored buffer has a declared count, that is a constant (see [`packed_gid_bound`]).
//!
//! Every bound is exclusive and on `u32` values only: an `i32` index below zero is out of bounds
//! whatever the comparison says.

use vyre_foundation::ir::{BinOp, Builtin, DataType, Expr, Literal};
use vyre_foundation::validate::{Validated, VarId};

use crate::lower::planted::{Miscompile, planted};

/// In a packed module of a program whose stored buffers (`stored`, by index) all have declared
/// counts: an exclusive bound of `gid.x` in every launch. Each item runs
/// `active = min(grid.x * W, longest stored length)` invocations, at least 1, and `gid.x` is the
/// invocation's index within its item (`lower::packed`), so `gid.x < max(longest, 1)`.
pub(crate) fn packed_gid_bound(
    program: &vyre_foundation::ir::Program,
    stored: &[usize],
) -> Option<u32> {
    if planted(Miscompile::PackedBoundFromShortestStore) {
        let counts = super::packed::stored_counts(program, stored)?;
        return Some(counts.into_iter().min().unwrap_or(0).max(1));
    }
    super::packed::fixed_active(program, stored)
}

/// An exclusive upper bound of a `u32` value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Bound {
    /// Below the length of buffer `b` in this dispatch (or item).
    Length(usize),
    /// Below the constant.
    Const(u32),
}

/// A value that cannot change while a fact about it holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Subject {
    Var(VarId),
    Builtin(Builtin),
}

/// The proofs available at the current point of the lowering.
#[derive(Debug)]
pub(crate) struct Bounds {
    /// Per buffer, its length when the module fixes it for every dispatch.
    fixed: Vec<Option<u32>>,
    /// Every buffer has at least one element in every dispatch.
    lengths_nonzero: bool,
    workgroup_size: [u32; 3],
    /// Facts of the enclosing conditions and loops, innermost last.
    facts: Vec<(Subject, Bound)>,
    /// Bounds of immutable `u32` variables' values, by variable.
    defs: Vec<Vec<Bound>>,
}

impl Bounds {
    pub(crate) fn new(
        fixed: Vec<Option<u32>>,
        lengths_nonzero: bool,
        workgroup_size: [u32; 3],
    ) -> Self {
        Self {
            fixed,
            lengths_nonzero,
            workgroup_size,
            facts: Vec::new(),
            defs: Vec::new(),
        }
    }

    /// Records that `gid.x` is below `n` everywhere in the module (see [`packed_gid_bound`]).
    pub(crate) fn assume_gid_x_below(&mut self, n: u32) {
        self.facts.insert(
            0,
            (
                Subject::Builtin(Builtin::GlobalId(vyre_foundation::ir::Axis::X)),
                Bound::Const(n),
            ),
        );
    }

    /// The mark to [`Bounds::restore`] when the scope of facts pushed after it ends.
    pub(crate) fn mark(&self) -> usize {
        self.facts.len()
    }

    pub(crate) fn restore(&mut self, mark: usize) {
        self.facts.truncate(mark);
    }

    /// True when `index`, a `u32` index into buffer `buffer`, is below its length.
    pub(crate) fn proven(&self, evidence: &Validated<'_>, buffer: usize, index: &Expr) -> bool {
        if !is_u32(evidence, index) {
            return false;
        }
        self.strict(evidence, index)
            .iter()
            .any(|&bound| self.covers(buffer, bound))
    }

    /// True when `index`, a `u32` index into a private array of `len` elements, is below `len`:
    /// some constant bound of it is at most `len` (an array's length is the module's own).
    pub(crate) fn proven_below(&self, evidence: &Validated<'_>, len: u32, index: &Expr) -> bool {
        if !is_u32(evidence, index) {
            return false;
        }
        let slack = u32::from(planted(Miscompile::PrivateArrayBoundOffByOne));
        self.strict(evidence, index)
            .iter()
            .any(|&bound| match bound {
                Bound::Const(n) => n <= len.saturating_add(slack),
                Bound::Length(_) => false,
            })
    }

    fn covers(&self, buffer: usize, bound: Bound) -> bool {
        match bound {
            Bound::Length(b) => b == buffer,
            Bound::Const(n) => {
                let slack = u32::from(planted(Miscompile::GuardBoundOffByOne));
                self.fixed
                    .get(buffer)
                    .copied()
                    .flatten()
                    .is_some_and(|len| n <= len.saturating_add(slack))
            }
        }
    }

    /// Records the facts that hold where `cond` is true; [`Bounds::restore`] ends them.
    pub(crate) fn assume(&mut self, evidence: &Validated<'_>, cond: &Expr) {
        let facts = self.condition_facts(evidence, cond);
        self.facts.extend(facts);
    }

    /// Records that loop variable `var` is below `to` inside the loop's body.
    pub(crate) fn assume_below(&mut self, evidence: &Validated<'_>, var: VarId, to: &Expr) {
        if evidence.var(var).is_ok_and(|v| v.ty == DataType::U32) {
            let bounds = self.at_most(evidence, to);
            self.facts
                .extend(bounds.into_iter().map(|b| (Subject::Var(var), b)));
        }
    }

    /// Records the bounds of the value of `let var = value` when `var` is never assigned.
    pub(crate) fn define(&mut self, evidence: &Validated<'_>, var: VarId, value: &Expr) {
        let immutable = evidence
            .var(var)
            .is_ok_and(|v| v.ty == DataType::U32 && !v.assigned);
        if !immutable {
            return;
        }
        let bounds = self.strict(evidence, value);
        let i = var.index();
        if self.defs.len() <= i {
            self.defs.resize(i + 1, Vec::new());
        }
        self.defs[i] = bounds;
    }

    fn subject(&self, evidence: &Validated<'_>, expr: &Expr) -> Option<Subject> {
        if !is_u32(evidence, expr) {
            return None;
        }
        match expr {
            Expr::Var(_) => {
                let id = evidence.var_of(expr).ok()?;
                let facts = evidence.var(id).ok()?;
                (!facts.assigned).then_some(Subject::Var(id))
            }
            Expr::Builtin(b) => Some(Subject::Builtin(*b)),
            Expr::Lit(_)
            | Expr::Load { .. }
            | Expr::ArrayLoad { .. }
            | Expr::BufLen(_)
            | Expr::Binary { .. }
            | Expr::Unary { .. }
            | Expr::Select { .. }
            | Expr::Cast { .. }
            | Expr::Bitcast { .. }
            | Expr::Fma { .. }
            | Expr::Atomic { .. }
            | Expr::Subgroup { .. }
            | Expr::SubgroupShuffle { .. } => None,
        }
    }

    /// Bounds `B` with `value <= B`.
    fn at_most(&self, evidence: &Validated<'_>, expr: &Expr) -> Vec<Bound> {
        let mut out = self.strict(evidence, expr);
        match expr {
            Expr::BufLen(_) => {
                if let Ok(b) = evidence.buffer_of(expr) {
                    out.push(Bound::Length(b.index()));
                }
            }
            Expr::Lit(Literal::U32(n)) => out.push(Bound::Const(*n)),
            Expr::Lit(_)
            | Expr::Var(_)
            | Expr::Load { .. }
            | Expr::ArrayLoad { .. }
            | Expr::Builtin(_)
            | Expr::Binary { .. }
            | Expr::Unary { .. }
            | Expr::Select { .. }
            | Expr::Cast { .. }
            | Expr::Bitcast { .. }
            | Expr::Fma { .. }
            | Expr::Atomic { .. }
            | Expr::Subgroup { .. }
            | Expr::SubgroupShuffle { .. } => {}
        }
        out
    }

    /// Bounds `B` with `value < B`, for a `u32` expression.
    fn strict(&self, evidence: &Validated<'_>, expr: &Expr) -> Vec<Bound> {
        let mut out = Vec::new();
        if let Some(subject) = self.subject(evidence, expr) {
            out.extend(
                self.facts
                    .iter()
                    .filter(|(s, _)| *s == subject)
                    .map(|&(_, b)| b),
            );
            match subject {
                Subject::Var(id) => {
                    if let Some(defs) = self.defs.get(id.index()) {
                        out.extend_from_slice(defs);
                    }
                }
                Subject::Builtin(Builtin::LocalId(axis)) => {
                    out.push(Bound::Const(self.workgroup_size[axis.index()]));
                }
                // Subgroups have at most 128 lanes.
                Subject::Builtin(Builtin::SubgroupInvocationId) => out.push(Bound::Const(128)),
                Subject::Builtin(
                    Builtin::GlobalId(_)
                    | Builtin::WorkgroupId(_)
                    | Builtin::NumWorkgroups(_)
                    | Builtin::SubgroupSize,
                ) => {}
            }
        }
        match expr {
            Expr::Lit(Literal::U32(n)) => {
                if let Some(above) = n.checked_add(1) {
                    out.push(Bound::Const(above));
                }
            }
            Expr::Binary { op, lhs, rhs } if is_u32(evidence, expr) => {
                out.extend(self.binary(evidence, *op, lhs, rhs));
            }
            Expr::Lit(_)
            | Expr::Var(_)
            | Expr::Load { .. }
            | Expr::ArrayLoad { .. }
            | Expr::BufLen(_)
            | Expr::Builtin(_)
            | Expr::Binary { .. }
            | Expr::Unary { .. }
            | Expr::Select { .. }
            | Expr::Cast { .. }
            | Expr::Bitcast { .. }
            | Expr::Fma { .. }
            | Expr::Atomic { .. }
            | Expr::Subgroup { .. }
            | Expr::SubgroupShuffle { .. } => {}
        }
        out
    }

    fn binary(&self, evidence: &Validated<'_>, op: BinOp, lhs: &Expr, rhs: &Expr) -> Vec<Bound> {
        match op {
            // `x % y < y` for y >= 1 and `x % 0 = 0`: below any bound of `y` except zero, and below
            // a length only where no length is zero.
            BinOp::Rem => self
                .at_most(evidence, rhs)
                .into_iter()
                .filter(|b| match b {
                    Bound::Const(n) => *n >= 1,
                    Bound::Length(_) => self.lengths_nonzero,
                })
                .collect(),
            BinOp::Min => {
                let mut out = self.strict(evidence, lhs);
                out.extend(self.strict(evidence, rhs));
                out
            }
            BinOp::BitAnd => [lhs, rhs]
                .into_iter()
                .filter_map(|side| u32_literal(side)?.checked_add(1).map(Bound::Const))
                .collect(),
            // The largest values: `a - 1` and `b - 1`.
            BinOp::Add => self.combine(evidence, lhs, rhs, |x, y| x + y),
            BinOp::Mul => self.combine(evidence, lhs, rhs, |x, y| x * y),
            BinOp::Max => self.combine(evidence, lhs, rhs, u64::max),
            BinOp::BitOr | BinOp::BitXor => self.combine(evidence, lhs, rhs, |x, y| {
                // Both below 2^k, so every bit set in either is below bit k.
                (x.max(y) + 1).next_power_of_two() - 1
            }),
            BinOp::Shl => u32_literal(rhs)
                .and_then(|k| self.tightest(evidence, lhs).map(|x| x << (k % 32)))
                .and_then(below_largest)
                .into_iter()
                .collect(),
            // At most `lhs` (`x / 0 = x`, and no shift makes a `u32` larger); by a literal, at
            // most the largest `lhs` divided or shifted.
            BinOp::Div | BinOp::Shr => {
                let mut out = self.strict(evidence, lhs);
                let scaled = match u32_literal(rhs) {
                    Some(k) if op == BinOp::Shr => {
                        self.tightest(evidence, lhs).map(|x| x >> (k % 32))
                    }
                    Some(c) if c >= 1 => self.tightest(evidence, lhs).map(|x| x / u64::from(c)),
                    Some(_) | None => None,
                };
                out.extend(scaled.and_then(below_largest));
                out
            }
            // `c - y` of a literal `c` and `y <= c`: in `0..=c`, no wrap.
            BinOp::Sub => u32_literal(lhs)
                .filter(|&c| {
                    self.tightest(evidence, rhs)
                        .is_some_and(|largest| largest <= u64::from(c))
                })
                .and_then(|c| below_largest(u64::from(c)))
                .into_iter()
                .collect(),
            BinOp::Eq
            | BinOp::Ne
            | BinOp::Lt
            | BinOp::Le
            | BinOp::Gt
            | BinOp::Ge
            | BinOp::And
            | BinOp::Or => Vec::new(),
        }
    }

    /// The largest value `expr` can have by its tightest constant bound, if it has one.
    fn tightest(&self, evidence: &Validated<'_>, expr: &Expr) -> Option<u64> {
        let below = self
            .strict(evidence, expr)
            .into_iter()
            .filter_map(|b| match b {
                Bound::Const(n) => Some(n),
                Bound::Length(_) => None,
            })
            .min()?;
        // `x < 0` holds of no value: code under it never runs, and nothing is claimed for it.
        u64::from(below).checked_sub(1)
    }

    /// The bound of `op(lhs, rhs)` from the largest values of both sides, when both have one and
    /// `largest` (monotone in both, computed without wrapping) stays within `u32`.
    fn combine(
        &self,
        evidence: &Validated<'_>,
        lhs: &Expr,
        rhs: &Expr,
        largest: impl Fn(u64, u64) -> u64,
    ) -> Vec<Bound> {
        let (Some(x), Some(y)) = (self.tightest(evidence, lhs), self.tightest(evidence, rhs))
        else {
            return Vec::new();
        };
        below_largest(largest(x, y)).into_iter().collect()
    }

    /// The facts `cond` being true establishes.
    fn condition_facts(&self, evidence: &Validated<'_>, cond: &Expr) -> Vec<(Subject, Bound)> {
        let Expr::Binary { op, lhs, rhs } = cond else {
            return Vec::new();
        };
        // `small < big`, or `small <= big` (then only strict bounds of `big` carry over).
        let (small, big, strict) = match op {
            BinOp::And => {
                let mut out = self.condition_facts(evidence, lhs);
                out.extend(self.condition_facts(evidence, rhs));
                return out;
            }
            BinOp::Lt => (lhs, rhs, true),
            BinOp::Gt => (rhs, lhs, true),
            BinOp::Le => (lhs, rhs, false),
            BinOp::Ge => (rhs, lhs, false),
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
            | BinOp::Eq
            | BinOp::Ne
            | BinOp::Or
            | BinOp::Min
            | BinOp::Max => return Vec::new(),
        };
        let Some(subject) = self.subject(evidence, small) else {
            return Vec::new();
        };
        let bounds = if strict {
            self.at_most(evidence, big)
        } else {
            self.strict(evidence, big)
        };
        bounds.into_iter().map(|b| (subject, b)).collect()
    }
}

/// The value of `expr` when it is a `u32` literal.
fn u32_literal(expr: &Expr) -> Option<u32> {
    match expr {
        Expr::Lit(Literal::U32(n)) => Some(*n),
        Expr::Lit(_)
        | Expr::Var(_)
        | Expr::Load { .. }
        | Expr::ArrayLoad { .. }
        | Expr::BufLen(_)
        | Expr::Builtin(_)
        | Expr::Binary { .. }
        | Expr::Unary { .. }
        | Expr::Select { .. }
        | Expr::Cast { .. }
        | Expr::Bitcast { .. }
        | Expr::Fma { .. }
        | Expr::Atomic { .. }
        | Expr::Subgroup { .. }
        | Expr::SubgroupShuffle { .. } => None,
    }
}

/// The exclusive bound of a value at most `largest`, when `largest` is a `u32` (no wrapping) and
/// the bound is one too.
fn below_largest(largest: u64) -> Option<Bound> {
    u32::try_from(largest.checked_add(1)?)
        .ok()
        .map(Bound::Const)
}

fn is_u32(evidence: &Validated<'_>, expr: &Expr) -> bool {
    evidence.type_of(expr) == Ok(DataType::U32)
}

#[cfg(test)]
mod tests {
    use vyre_foundation::ir::{BufferDecl, DataType, Expr, Node, Program};

    use super::Bounds;

    /// Whether the index of the store `body[at]` (at the top level) is proven in bounds of `out`
    /// (count 8, buffer 0), in a module that fixes lengths (`fixed`) or not, with `assumptions`
    /// (conditions) in force.
    fn proven(body: Vec<Node>, fixed: bool, assume: &[usize]) -> bool {
        let program = Program::new(
            vec![
                BufferDecl::output("out", 0, DataType::U32).with_count(8),
                BufferDecl::read("input", 1, DataType::U32),
            ],
            [4, 1, 1],
            body,
        );
        let evidence = vyre_foundation::validate(&program).unwrap_or_else(|e| panic!("{e}"));
        let mut bounds = Bounds::new(vec![fixed.then_some(8), None], fixed, [4, 1, 1]);
        let mut index = None;
        for (i, node) in program.body.iter().enumerate() {
            match node {
                Node::Let { value, .. } => {
                    let id = evidence.node_var(node).unwrap_or_else(|e| panic!("{e}"));
                    bounds.define(&evidence, id, value);
                }
                Node::If { cond, .. } if assume.contains(&i) => bounds.assume(&evidence, cond),
                Node::Store { index: at, .. } => index = Some(at),
                Node::If { .. }
                | Node::Assign { .. }
                | Node::PrivateArray { .. }
                | Node::ArrayStore { .. }
                | Node::Tile { .. }
                | Node::TileLoad { .. }
                | Node::TileStore { .. }
                | Node::TileMultiplyAdd { .. }
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
        bounds.proven(&evidence, 0, index.unwrap_or_else(|| panic!("no store")))
    }

    fn gated(cond: Expr, index: Expr) -> Vec<Node> {
        vec![
            Node::let_bind("i", Expr::gid_x()),
            Node::if_then(cond, vec![]),
            Node::store("out", index, Expr::u32(1)),
        ]
    }

    #[test]
    fn a_length_or_literal_bound_in_force_proves_the_index() {
        let i = || Expr::var("i");
        let by_len = gated(Expr::lt(i(), Expr::buf_len("out")), i());
        assert!(proven(by_len.clone(), false, &[1]));
        assert!(
            !proven(by_len, false, &[]),
            "only while the condition holds"
        );
        assert!(proven(gated(Expr::lt(i(), Expr::u32(8)), i()), true, &[1]));
        assert!(!proven(gated(Expr::lt(i(), Expr::u32(9)), i()), true, &[1]));
        assert!(!proven(
            gated(Expr::lt(i(), Expr::u32(8)), i()),
            false,
            &[1]
        ));
        assert!(proven(gated(Expr::le(i(), Expr::u32(7)), i()), true, &[1]));
        let both = Expr::and(Expr::lt(i(), Expr::u32(3)), Expr::ne(i(), Expr::u32(1)));
        assert!(proven(gated(both, i()), true, &[1]));
        let either = Expr::or(Expr::lt(i(), Expr::u32(3)), Expr::ne(i(), Expr::u32(1)));
        assert!(!proven(gated(either, i()), true, &[1]));
    }

    #[test]
    fn literals_local_ids_and_remainders_prove_themselves() {
        let store = |index: Expr| vec![Node::store("out", index, Expr::u32(1))];
        assert!(proven(store(Expr::u32(7)), true, &[]));
        assert!(!proven(store(Expr::u32(8)), true, &[]));
        assert!(proven(store(Expr::local_x()), true, &[]));
        assert!(!proven(store(Expr::gid_x()), true, &[]));
        let rem_len = Expr::rem(Expr::gid_x(), Expr::buf_len("out"));
        assert!(proven(store(rem_len.clone()), true, &[]));
        assert!(!proven(store(rem_len), false, &[]), "a length may be 0");
        assert!(proven(
            store(Expr::rem(Expr::gid_x(), Expr::u32(8))),
            true,
            &[]
        ));
        assert!(!proven(
            store(Expr::rem(Expr::gid_x(), Expr::u32(9))),
            true,
            &[]
        ));
        assert!(proven(
            store(Expr::bit_and(Expr::gid_x(), Expr::u32(7))),
            true,
            &[]
        ));
        let via_let = vec![
            Node::let_bind("j", Expr::rem(Expr::gid_x(), Expr::u32(4))),
            Node::store("out", Expr::var("j"), Expr::u32(1)),
        ];
        assert!(proven(via_let, true, &[]));
    }

    #[test]
    fn a_literal_minus_a_value_it_bounds_is_bounded() {
        let store = |index: Expr| vec![Node::store("out", index, Expr::u32(1))];
        let lid = Expr::local_x; // below 4
        // 7 - lid is in 4..=7; 2 - lid may wrap (lid = 3), and so may 7 - gid.x.
        assert!(proven(store(Expr::sub(Expr::u32(7), lid())), true, &[]));
        assert!(!proven(store(Expr::sub(Expr::u32(2), lid())), true, &[]));
        assert!(!proven(
            store(Expr::sub(Expr::u32(7), Expr::gid_x())),
            true,
            &[]
        ));
        // 3 - lid <= 3, and 3 - lid + 4 <= 7: the other half of a double buffer.
        assert!(proven(
            store(Expr::add(Expr::sub(Expr::u32(3), lid()), Expr::u32(4))),
            true,
            &[]
        ));
        assert!(!proven(store(Expr::sub(Expr::u32(8), lid())), true, &[]));
    }

    #[test]
    fn sums_products_and_shifts_of_bounded_values_are_bounded_without_wrapping() {
        let store = |index: Expr| vec![Node::store("out", index, Expr::u32(1))];
        let lid = Expr::local_x; // below 4
        // lid * 2 + 1 <= 7 < 8; lid * 2 + 2 may be 8.
        assert!(proven(
            store(Expr::add(Expr::mul(lid(), Expr::u32(2)), Expr::u32(1))),
            true,
            &[]
        ));
        assert!(!proven(
            store(Expr::add(Expr::mul(lid(), Expr::u32(2)), Expr::u32(2))),
            true,
            &[]
        ));
        assert!(proven(store(Expr::add(lid(), lid())), true, &[]));
        assert!(proven(store(Expr::shl(lid(), Expr::u32(1))), true, &[]));
        assert!(!proven(store(Expr::shl(lid(), Expr::u32(2))), true, &[]));
        // The law shifts by the amount mod 32: `<< 33` is `<< 1`.
        assert!(proven(store(Expr::shl(lid(), Expr::u32(33))), true, &[]));
        assert!(proven(store(Expr::bit_or(lid(), Expr::u32(4))), true, &[]));
        assert!(!proven(store(Expr::bit_or(lid(), Expr::u32(8))), true, &[]));
        assert!(proven(store(Expr::max(lid(), Expr::u32(7))), true, &[]));
        assert!(!proven(store(Expr::max(lid(), Expr::u32(8))), true, &[]));
        // Division and right shifts keep the bounds of their left side, lengths included.
        assert!(proven(
            store(Expr::div(Expr::u32(7), Expr::gid_x())),
            true,
            &[]
        ));
        // lid * 8 <= 24, / 4 <= 6; >> 2 the same; / 0 is the value itself.
        let eight = || Expr::mul(lid(), Expr::u32(8));
        assert!(proven(store(Expr::div(eight(), Expr::u32(4))), true, &[]));
        assert!(proven(store(Expr::shr(eight(), Expr::u32(2))), true, &[]));
        assert!(!proven(store(Expr::div(eight(), Expr::u32(0))), true, &[]));
        assert!(!proven(store(Expr::div(eight(), Expr::u32(3))), true, &[]));
        assert!(proven(
            store(Expr::shr(
                Expr::rem(Expr::gid_x(), Expr::buf_len("out")),
                Expr::gid_x()
            )),
            true,
            &[]
        ));
        // A sum or product that may wrap proves nothing, however small it wraps to.
        let huge = Expr::add(lid(), Expr::u32(u32::MAX));
        assert!(!proven(store(huge), true, &[]));
        let wraps = Expr::mul(Expr::add(lid(), Expr::u32(1)), Expr::u32(0x8000_0000));
        assert!(!proven(store(wraps), true, &[]));
        // Unbounded operands prove nothing; subtraction wraps below zero.
        assert!(!proven(
            store(Expr::add(Expr::gid_x(), Expr::u32(0))),
            true,
            &[]
        ));
        assert!(!proven(store(Expr::sub(lid(), Expr::u32(1))), true, &[]));
        // Lengths do not add.
        let len_plus = Expr::add(Expr::rem(Expr::gid_x(), Expr::buf_len("out")), Expr::u32(0));
        assert!(!proven(store(len_plus), false, &[]));
    }

    #[test]
    fn assigned_variables_and_i32_indices_prove_nothing() {
        let assigned = vec![
            Node::let_bind("i", Expr::u32(0)),
            Node::if_then(Expr::lt(Expr::var("i"), Expr::u32(8)), vec![]),
            Node::assign("i", Expr::gid_x()),
            Node::store("out", Expr::var("i"), Expr::u32(1)),
        ];
        assert!(!proven(assigned, true, &[1]));
        let signed = vec![
            Node::let_bind("i", Expr::bitcast(DataType::I32, Expr::gid_x())),
            Node::if_then(Expr::lt(Expr::var("i"), Expr::i32(8)), vec![]),
            Node::store("out", Expr::var("i"), Expr::u32(1)),
        ];
        assert!(!proven(signed, true, &[1]));
    }
}
