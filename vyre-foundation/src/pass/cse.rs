//! `cse`: common-subexpression elimination within straight-line code.
//!
//! In each body, an expression computed two or more times with the same value is computed once,
//! into a fresh `let` placed just before the statement that first computes it, and every one of
//! those computations reads the variable instead. Its law:
//!
//! - **Pure expressions are values.** An expression without atomics has no effect, and every
//!   operation is total and deterministic (`SEMANTICS.md` sections 2 to 7: nothing traps, division by
//!   zero and out-of-bounds loads are defined), so two evaluations with equal operands give equal
//!   values and one evaluation may stand for both. Where the law leaves a result open (a float to
//!   integer conversion of NaN, a subgroup `f32` sum), using one evaluation for both is one of the
//!   allowed outcomes.
//! - **Equal operands.** Two occurrences of one expression have equal operands when nothing it
//!   reads can change between them. The pass tracks, in evaluation order (section 2: left to right,
//!   operands before the operation, a statement's expressions before its effect), a version per
//!   variable, bumped by every `assign` to it, and a version per writable buffer, bumped by every
//!   store or atomic on it; a barrier or any atomic bumps every writable buffer (after either, this
//!   invocation may see other invocations' writes without a race, sections 2 and 8). Between two
//!   loads of a buffer with none of these in between, another invocation can change it only through
//!   a race, whose outputs are unspecified (section 1). `read` and `uniform` buffers never change.
//!   A statement with nested bodies bumps everything its bodies (and a `while`'s condition) might.
//! - **Never:** atomics (each has an effect), loads of a buffer some atomic uses (plain accesses to
//!   it are atomic, section 8, so other invocations may change it between two loads without a race),
//!   a `while` condition (evaluated again on every iteration), leaves (literals, variables,
//!   builtins, `buf_len`: nothing to save), and an expression whose first occurrence follows, in
//!   the same statement, an atomic that changes what it reads (the `let` before the statement would
//!   read the value from before the atomic).
//! - Only the statements of one body form a region: expressions in nested bodies are their own
//!   regions (an `if` branch or a loop body runs conditionally or repeatedly). The fresh `let` sits
//!   in the body of the occurrences, before the first, where every variable the expression reads is
//!   declared; its name is used nowhere in the program, so it shadows nothing.
//!
//! The largest repeated expression is taken first, so nested repeats (`a + b` inside a repeated
//! `(a + b) * c`) are shared as well, from the `let` that holds the larger one.

use std::collections::{BTreeMap, BTreeSet};
use std::hash::{BuildHasherDefault, Hash, Hasher};

use smallvec::SmallVec;

use crate::ir::{Expr, Node, Program};
use crate::validate::Validated;

use super::edit::{FreshNames, children_mut, node_bodies_mut, node_exprs_mut};
use super::effects::{Buffers, Effects, expr_size, is_leaf};
use super::{Outcome, Pass};

/// Maps and sets keyed by shape hashes, hashed with [`Mix`].
type HashMap<K, V> = std::collections::HashMap<K, V, BuildHasherDefault<Mix>>;
type HashSet<K> = std::collections::HashSet<K, BuildHasherDefault<Mix>>;
/// Counts or facts by shape hash.
type ShapeMap<V> = HashMap<u64, V>;

/// A fast non-cryptographic hasher (multiply and rotate, 8 bytes at a time) for shape hashes and
/// the maps keyed by them: the keys are the program's own structure, never chosen to collide, and
/// equal hashes are compared in full before two expressions are taken as one.
#[derive(Clone, Copy, Default)]
struct Mix(u64);

impl Hasher for Mix {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let mut word = [0; 8];
            word.copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(word));
        }
        let mut last = [0; 8];
        last[..chunks.remainder().len()].copy_from_slice(chunks.remainder());
        self.write_u64(u64::from_le_bytes(last) ^ bytes.len() as u64);
    }

    fn write_u64(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// The most expressions one body shares; bodies with more keep the rest.
const MAX_SHARED_PER_BODY: usize = 256;

/// Common-subexpression elimination; see the [module docs](self).
#[derive(Clone, Copy, Debug, Default)]
pub struct Cse;

impl Pass for Cse {
    fn name(&self) -> &'static str {
        "cse"
    }

    fn run(&self, program: &Validated<'_>) -> Outcome {
        let original = program.program();
        let buffers = Buffers::of(program);
        // Most programs repeat nothing: one look at each body, without copying it, settles it.
        if !repeats(&original.body, &buffers) {
            return Outcome::Unchanged;
        }
        let mut cx = Cx {
            buffers,
            names: FreshNames::new(original, "cse"),
        };
        let mut body = original.body.clone();
        if !cx.body(&mut body) {
            return Outcome::Unchanged;
        }
        Outcome::Changed(Program {
            body,
            ..original.clone()
        })
    }
}

struct Cx<'p> {
    buffers: Buffers<'p>,
    names: FreshNames,
}

/// Where an occurrence is: its statement in the body, the statement's expression (in
/// [`Node::exprs`] order) and its position in that expression, counted in pre-order.
type Place = (usize, usize, usize);

/// The occurrences of one expression with one set of operand versions.
struct Group<'b> {
    expr: &'b Expr,
    places: Vec<Place>,
    /// True when the operand versions at the start of the first occurrence's statement are the
    /// occurrences' own, so a `let` before that statement computes the same value.
    hoistable: bool,
}

impl Cx<'_> {
    /// Shares the repeated expressions of `body` and of its nested bodies. True when something
    /// changed.
    fn body(&mut self, body: &mut Vec<Node>) -> bool {
        let mut changed = false;
        for node in body.iter_mut() {
            for inner in node_bodies_mut(node) {
                changed |= self.body(inner);
            }
        }
        for _ in 0..MAX_SHARED_PER_BODY {
            let Some(places) = self.best_group(body) else {
                break;
            };
            let name = self.names.fresh();
            share(body, &places, &name);
            changed = true;
        }
        changed
    }

    /// Where the largest expression computed twice or more in `body` with the same operands is;
    /// the earliest first of equal sizes.
    fn best_group(&self, body: &[Node]) -> Option<Vec<Place>> {
        // First the shapes seen twice or more, whatever their operands' versions: only those
        // need versions and a group.
        let mut counts: ShapeMap<u32> = ShapeMap::default();
        for node in body {
            if !matches!(node, Node::While { .. }) {
                for expr in node.exprs() {
                    shape(expr, &self.buffers, &mut |hash, _| {
                        *counts.entry(hash).or_default() += 1;
                    });
                }
            }
        }
        counts.retain(|_, n| *n >= 2);
        if counts.is_empty() {
            return None;
        }
        let mut groups: HashMap<(u64, Stamp), Vec<Group<'_>>> = HashMap::default();
        let mut versions = Versions::default();
        for (s, node) in body.iter().enumerate() {
            // The versions at the statement's start, copied only when an atomic inside the
            // statement is about to change them (most statements hold none).
            let mut start = None;
            if !matches!(node, Node::While { .. }) {
                for (k, expr) in node.exprs().enumerate() {
                    let mut walk = Walk {
                        cx: self,
                        repeated: &counts,
                        start: &mut start,
                        versions: &mut versions,
                        groups: &mut groups,
                        statement: s,
                        slot: k,
                        counter: 0,
                    };
                    walk.expr(expr);
                }
            }
            versions.after(node, &self.buffers);
        }
        groups
            .into_values()
            .flatten()
            .filter(|g| g.places.len() >= 2 && g.hoistable)
            .max_by(|a, b| {
                expr_size(a.expr)
                    .cmp(&expr_size(b.expr))
                    .then_with(|| b.places[0].cmp(&a.places[0]))
            })
            .map(|g| g.places)
    }
}

/// Calls `found` with the shape hash of every subexpression of `expr` the pass may share (see
/// the module docs: not a leaf, no atomic, no load of a buffer an atomic uses), children first,
/// and returns `expr`'s hash and whether it is pure (no atomic and no such load). Equal
/// expressions have equal hashes; each hash is computed once, from the children's.
fn shape(expr: &Expr, buffers: &Buffers<'_>, found: &mut impl FnMut(u64, &Expr)) -> (u64, bool) {
    let mut hasher = Mix::default();
    let pure = own_fields(expr, buffers, &mut hasher);
    let mut all_pure = pure;
    for child in expr.children() {
        let (hash, pure) = shape(child, buffers, found);
        hasher.write_u64(hash);
        all_pure &= pure;
    }
    let hash = hasher.finish();
    if all_pure && !is_leaf(expr) {
        found(hash, expr);
    }
    (hash, all_pure)
}

/// Feeds `hasher` what `expr` holds besides its children; false when `expr` itself is an atomic or
/// a load of a buffer an atomic uses.
fn own_fields(expr: &Expr, buffers: &Buffers<'_>, hasher: &mut Mix) -> bool {
    std::mem::discriminant(expr).hash(hasher);
    match expr {
        Expr::Lit(lit) => lit.hash(hasher),
        Expr::Var(name) | Expr::BufLen(name) => name.hash(hasher),
        Expr::ArrayLoad { array, .. } => array.hash(hasher),
        Expr::Load { buffer, .. } => {
            buffer.hash(hasher);
            return !buffers.atomic(buffer);
        }
        Expr::Builtin(builtin) => builtin.hash(hasher),
        Expr::Binary { op, .. } => op.hash(hasher),
        Expr::Unary { op, .. } => op.hash(hasher),
        Expr::Cast { to, .. } | Expr::Bitcast { to, .. } => to.hash(hasher),
        Expr::Subgroup { op, .. } => op.hash(hasher),
        Expr::Atomic { .. } => return false,
        Expr::Select { .. } | Expr::Fma { .. } | Expr::SubgroupShuffle { .. } => {}
    }
    true
}

/// Whether some body of `body` (itself or a nested one) has a candidate expression twice among
/// its statements' expressions, whatever their operands' versions: without one the pass has
/// nothing to share.
fn repeats(body: &[Node], buffers: &Buffers<'_>) -> bool {
    let mut seen: HashSet<u64> = HashSet::default();
    let mut again = false;
    for node in body {
        if node.bodies().any(|inner| repeats(inner, buffers)) {
            return true;
        }
        if !matches!(node, Node::While { .. }) {
            for expr in node.exprs() {
                shape(expr, buffers, &mut |hash, _| again |= !seen.insert(hash));
            }
        }
        if again {
            return true;
        }
    }
    false
}

/// One walk over one expression of a statement, in evaluation order, recording occurrences of
/// the shapes in `repeated`.
struct Walk<'a, 'b> {
    cx: &'a Cx<'a>,
    repeated: &'a ShapeMap<u32>,
    /// The versions at the start of the statement, once an atomic in it has changed `versions`;
    /// `None` while they are `versions` themselves.
    start: &'a mut Option<Versions>,
    versions: &'a mut Versions,
    /// By shape hash and operand versions; equal hashes of different expressions are told apart
    /// by comparing them.
    groups: &'a mut HashMap<(u64, Stamp), Vec<Group<'b>>>,
    statement: usize,
    slot: usize,
    counter: usize,
}

impl<'b> Walk<'_, 'b> {
    /// Walks `expr`; returns its shape hash and whether it is pure, as [`shape`] does.
    fn expr(&mut self, expr: &'b Expr) -> (u64, bool) {
        let place = (self.statement, self.slot, self.counter);
        self.counter += 1;
        let mut hasher = Mix::default();
        let mut pure = own_fields(expr, &self.cx.buffers, &mut hasher);
        for child in expr.children() {
            let (hash, child_pure) = self.expr(child);
            hasher.write_u64(hash);
            pure &= child_pure;
        }
        let hash = hasher.finish();
        if pure && !is_leaf(expr) && self.repeated.contains_key(&hash) {
            let stamp = self.versions.stamp(expr, &self.cx.buffers);
            let hoistable = match self.start {
                None => true,
                Some(start) => start.stamp(expr, &self.cx.buffers) == stamp,
            };
            let same = self.groups.entry((hash, stamp)).or_default();
            match same.iter_mut().find(|g| g.expr == expr) {
                Some(group) => group.places.push(place),
                None => same.push(Group {
                    expr,
                    places: vec![place],
                    hoistable,
                }),
            }
        }
        if let Expr::Atomic { buffer, .. } = expr {
            if self.start.is_none() {
                *self.start = Some(self.versions.clone());
            }
            self.versions.atomic(buffer);
        }
        (hash, pure)
    }
}

/// The versions one expression's value depends on ([`Versions::stamp`]).
type Stamp = SmallVec<[u64; 4]>;

/// Versions of what expressions read, bumped by whatever may change it.
#[derive(Clone, Debug, Default)]
struct Versions {
    vars: BTreeMap<String, u64>,
    buffers: BTreeMap<String, u64>,
    /// Bumped by every barrier and atomic: loads of writable buffers may then see other
    /// invocations' writes.
    memory: u64,
}

impl Versions {
    /// The versions `expr`'s value depends on, in a fixed order of its operands' names.
    fn stamp(&self, expr: &Expr, buffers: &Buffers<'_>) -> Stamp {
        let mut vars: SmallVec<[&str; 8]> = SmallVec::new();
        let mut loads: SmallVec<[&str; 4]> = SmallVec::new();
        crate::for_each_subexpr(expr, |e| {
            if let Expr::Var(name) | Expr::ArrayLoad { array: name, .. } = e {
                vars.push(name.as_str());
            } else if let Expr::Load { buffer, .. } = e
                && !buffers.stable(buffer)
            {
                loads.push(buffer.as_str());
            }
        });
        vars.sort_unstable();
        vars.dedup();
        loads.sort_unstable();
        loads.dedup();
        let version = |map: &BTreeMap<String, u64>, name: &str| map.get(name).copied().unwrap_or(0);
        let mut stamp: Stamp = vars.iter().map(|v| version(&self.vars, v)).collect();
        stamp.extend(loads.iter().map(|b| version(&self.buffers, b)));
        if !loads.is_empty() {
            stamp.push(self.memory);
        }
        stamp
    }

    fn bump(map: &mut BTreeMap<String, u64>, name: &str) {
        match map.get_mut(name) {
            Some(version) => *version += 1,
            None => {
                map.insert(name.to_owned(), 1);
            }
        }
    }

    /// An atomic on `buffer` ran.
    fn atomic(&mut self, buffer: &str) {
        Self::bump(&mut self.buffers, buffer);
        self.memory += 1;
    }

    /// `node`'s own effect (after its expressions) and everything its nested bodies may do.
    fn after(&mut self, node: &Node, buffers: &Buffers<'_>) {
        let effects = match node {
            // No expression reads a tile, and a tile load reads memory without changing it.
            Node::Let { .. }
            | Node::Return
            | Node::Break
            | Node::Continue
            | Node::Tile { .. }
            | Node::TileLoad { .. }
            | Node::TileMultiplyAdd { .. } => return,
            Node::Assign { name, .. }
            | Node::ArrayStore { array: name, .. }
            | Node::PrivateArray { name, .. } => return Self::bump(&mut self.vars, name),
            Node::Store { buffer, .. } | Node::TileStore { buffer, .. } => {
                return Self::bump(&mut self.buffers, buffer);
            }
            Node::Atomic { buffer, .. } => return self.atomic(buffer),
            Node::Barrier => {
                self.memory += 1;
                return;
            }
            // A `while` condition runs again after each iteration: its atomics count as the body's.
            Node::If { .. } | Node::Loop { .. } | Node::Block(_) | Node::While { .. } => {
                Effects::of_node(node)
            }
        };
        for name in &effects.assigns {
            Self::bump(&mut self.vars, name);
        }
        for buffer in effects.stores.iter().chain(&effects.atomics) {
            if !buffers.stable(buffer) {
                Self::bump(&mut self.buffers, buffer);
            }
        }
        if effects.barrier || effects.any_atomic() {
            self.memory += 1;
        }
    }
}

/// Makes every one of `places` (occurrences of one expression) read `name`, and puts `let name`
/// of the first occurrence taken out before the statement of the first of them.
fn share(body: &mut Vec<Node>, places: &[Place], name: &str) {
    let mut by_slot: BTreeMap<(usize, usize), BTreeSet<usize>> = BTreeMap::new();
    for &(s, k, p) in places {
        by_slot.entry((s, k)).or_default().insert(p);
    }
    let mut value = None;
    for ((s, k), positions) in by_slot {
        if let Some(slot) = body
            .get_mut(s)
            .and_then(|n| node_exprs_mut(n).into_iter().nth(k))
        {
            let mut counter = 0;
            replace_at(slot, &mut counter, &positions, name, &mut value);
        }
    }
    // Every place holds the shared expression, so the first taken out is its value.
    let Some(value) = value else {
        return;
    };
    let first = places.iter().map(|&(s, _, _)| s).min().unwrap_or(0);
    body.insert(first, Node::let_bind(name, value));
}

/// Replaces the subexpressions of `expr` at the pre-order `positions` (counted from `counter`, in
/// the expression as it was) by `Var(name)`, keeping the first one taken out in `taken`.
fn replace_at(
    expr: &mut Expr,
    counter: &mut usize,
    positions: &BTreeSet<usize>,
    name: &str,
    taken: &mut Option<Expr>,
) {
    let here = *counter;
    *counter += 1;
    if positions.contains(&here) {
        *counter += expr_size(expr) - 1;
        let out = std::mem::replace(expr, Expr::Var(name.to_owned()));
        taken.get_or_insert(out);
        return;
    }
    for child in children_mut(expr) {
        replace_at(child, counter, positions, name, taken);
    }
}

#[cfg(test)]
mod tests {
    use super::Cse;
    use crate::pass::flow_test::{keeps, rewrites};

    #[test]
    fn the_largest_repeat_is_computed_once_into_a_fresh_let() {
        rewrites(
            &Cse,
            "let cse0 = 1u; out[0u] = (((inp[gid.x] * 3u) + cse0) + 1u); out[1u] = ((inp[gid.x] * 3u) + cse0);",
            "let cse0 = 1u; let cse1 = ((inp[gid.x] * 3u) + cse0); out[0u] = (cse1 + 1u); out[1u] = cse1;",
        );
    }

    #[test]
    fn repeats_inside_one_statement_and_inside_a_shared_expression_are_shared() {
        rewrites(
            &Cse,
            "out[0u] = (((gid.x * 2u) + lid.x) * ((gid.x * 2u) + lid.x)); out[1u] = (gid.x * 2u);",
            "let cse1 = (gid.x * 2u); let cse0 = (cse1 + lid.x); out[0u] = (cse0 * cse0); out[1u] = cse1;",
        );
    }

    #[test]
    fn an_assign_to_an_operand_separates_two_computations() {
        keeps(
            &Cse,
            "let a = inp[0u]; out[0u] = (a + 1u); a = 5u; out[1u] = (a + 1u);",
        );
    }

    #[test]
    fn a_store_to_the_loaded_buffer_separates_two_loads_but_another_buffer_does_not() {
        keeps(
            &Cse,
            "out[0u] = (rw[1u] + 1u); rw[1u] = 3u; out[1u] = (rw[1u] + 1u);",
        );
        rewrites(
            &Cse,
            "out[0u] = (rw[1u] * 2u); out[2u] = 3u; out[1u] = (rw[1u] * 2u);",
            "let cse0 = (rw[1u] * 2u); out[0u] = cse0; out[2u] = 3u; out[1u] = cse0;",
        );
    }

    #[test]
    fn barriers_and_atomics_separate_loads_of_writable_buffers_only() {
        keeps(
            &Cse,
            "wg[lid.x] = 1u; out[0u] = (wg[1u] + 1u); barrier; out[1u] = (wg[1u] + 1u);",
        );
        keeps(
            &Cse,
            "out[0u] = (rw[1u] + 1u); atomic_add(cnt[0u], 1u); out[1u] = (rw[1u] + 1u);",
        );
        rewrites(
            &Cse,
            "out[0u] = (inp[1u] + 1u); barrier; atomic_add(cnt[0u], 1u); out[1u] = (inp[1u] + 1u);",
            "let cse0 = (inp[1u] + 1u); out[0u] = cse0; barrier; atomic_add(cnt[0u], 1u); out[1u] = cse0;",
        );
    }

    #[test]
    fn atomics_and_loads_of_buffers_atomics_use_are_never_shared() {
        keeps(
            &Cse,
            "out[0u] = atomic_add(cnt[0u], 1u); out[1u] = atomic_add(cnt[0u], 1u);",
        );
        keeps(
            &Cse,
            "out[0u] = (cnt[1u] + 1u); out[1u] = (cnt[1u] + 1u); atomic_add(cnt[0u], 1u);",
        );
    }

    #[test]
    fn an_atomic_earlier_in_the_statement_keeps_a_load_it_may_change_in_place() {
        keeps(
            &Cse,
            "out[atomic_add(cnt[0u], 1u)] = ((rw[2u] * 2u) + (rw[2u] * 2u));",
        );
        rewrites(
            &Cse,
            "out[atomic_add(cnt[0u], 1u)] = ((inp[2u] * 2u) + (inp[2u] * 2u));",
            "let cse0 = (inp[2u] * 2u); out[atomic_add(cnt[0u], 1u)] = (cse0 + cse0);",
        );
    }

    #[test]
    fn nested_bodies_are_regions_of_their_own() {
        rewrites(
            &Cse,
            "out[2u] = (gid.x * 5u); if (inp[0u] == 1u) { out[0u] = (gid.x * 5u); out[1u] = (gid.x * 5u); } while ((inp[gid.x] + 1u) == (inp[gid.x] + 1u)) { return; }",
            "out[2u] = (gid.x * 5u); if (inp[0u] == 1u) { let cse0 = (gid.x * 5u); out[0u] = cse0; out[1u] = cse0; } while ((inp[gid.x] + 1u) == (inp[gid.x] + 1u)) { return; }",
        );
    }

    #[test]
    fn loads_of_a_private_array_are_not_shared_across_a_store_to_it() {
        keeps(
            &Cse,
            "var a: u32[4]; out[0u] = (a.[1u] + 1u); a.[2u] = 5u; out[1u] = (a.[1u] + 1u);",
        );
        rewrites(
            &Cse,
            "var a: u32[4]; out[0u] = (a.[1u] + 1u); out[1u] = (a.[1u] + 1u);",
            "var a: u32[4]; let cse0 = (a.[1u] + 1u); out[0u] = cse0; out[1u] = cse0;",
        );
    }
}
