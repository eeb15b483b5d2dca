//! Statement decoding: one [`StmtRecipe`] becomes at most one node (or opens or closes a scope).

use vyre_foundation::ir::{DataType, Expr, Node};

use crate::r#gen::access::AtomicTarget;
use crate::r#gen::decode::{Ctx, Phase};
use crate::r#gen::layout::{Role, types};
use crate::r#gen::recipe::Choices;
use crate::r#gen::{Feature, StmtKind, StmtRecipe};

/// Expression depth for loop bounds and indices: shallow, so they stay cheap and readable.
const SHALLOW: u32 = 2;

impl Ctx {
    /// Decodes one statement recipe at the current position.
    pub(crate) fn stmt(&mut self, recipe: &StmtRecipe) {
        let mut ch = Choices::new(&recipe.choices);
        let ch = &mut ch;
        let features = self.features;
        let on = |f: Feature| features.has(f);
        match StmtKind::from_byte(recipe.kind) {
            StmtKind::Store => self.store(ch),
            StmtKind::Let if on(Feature::Variables) => self.let_stmt(ch),
            StmtKind::Assign if on(Feature::Variables) => self.assign(ch),
            StmtKind::If if on(Feature::Ifs) && self.room() => {
                let cond = self.expr(ch, DataType::Bool, self.config.max_expr_depth);
                self.open_if(cond);
            }
            StmtKind::Else if self.in_then() => self.switch_to_else(),
            StmtKind::Loop if on(Feature::Loops) && self.room() && self.loop_nesting() < 2 => {
                self.loop_stmt(ch)
            }
            StmtKind::While if on(Feature::Loops) && self.room() && self.loop_nesting() < 2 => {
                let bound = ch.below(self.config.max_trip as usize + 1) as u32;
                // The condition runs again for the invocations still in the loop: never uniform.
                let cond = self.subgroup_free_expr(ch, DataType::Bool, self.config.max_expr_depth);
                self.open_while(bound, cond);
            }
            // Barriers only stand at the top level, outside every loop, so leaving a loop early
            // never puts one in non-uniform control flow.
            StmtKind::Break if self.loop_nesting() > 0 => self.emit(Node::Break),
            StmtKind::Continue if self.loop_nesting() > 0 => self.emit(Node::Continue),
            StmtKind::Block if self.room() => self.open_block(),
            StmtKind::Close if self.nesting() > 0 => self.close(),
            StmtKind::Barrier
                if on(Feature::Workgroup) && self.nesting() == 0 && !self.diverged =>
            {
                // With pass shapes, half the barriers stand in a uniform loop (`pass_stmts.rs`).
                if !(self.pass_shapes_on() && ch.one_in(2) && self.barrier_loop(ch)) {
                    self.barrier(ch);
                }
            }
            StmtKind::Atomic if on(Feature::Atomics) => self.atomic(ch),
            StmtKind::Return if on(Feature::Returns) && self.nesting() > 0 => {
                // Conservatively treat every nested return as non-uniform: no barrier may follow.
                self.diverged = true;
                self.emit(Node::Return);
            }
            // A statement whose feature is off, or that does not fit here, stores instead: outputs
            // are what is compared, so every statement should have a chance to reach one.
            _ => self.store(ch),
        }
    }

    /// A barrier, and the phase it starts. One that ends a write phase passes data between
    /// invocations for certain where a workgroup buffer of own slots can be read: the invocation
    /// stores into its own slot before the barrier, and after it loads a neighbour's slot into a
    /// variable, which the epilogue folds into `out0`. (Left to chance, a value written to workgroup
    /// memory reached an output across a barrier in about one program in 10 000, and a backend that
    /// made workgroup memory private to each invocation went unnoticed.)
    fn barrier(&mut self, ch: &mut Choices<'_>) {
        // Integers and bools only: a float passed this way is as exact as what computed it, and an
        // inexact `f16` quotient folded into `out0` next to a larger term lost its tolerance there
        // (-9.76h + 9h is off by 16 of its ULPs when the quotient is off by one of its own; NVIDIA
        // H100, fuzz seed 29210).
        let exchange = if self.phase == Phase::Write {
            self.buffers.iter().position(|b| {
                b.role == Role::OwnWorkgroup && !b.decl.element.is_float() && self.can_load(b)
            })
        } else {
            None
        };
        if let Some(wg) = exchange {
            let info = &self.buffers[wg];
            let index = self.index(ch, info, SHALLOW);
            let (name, ty) = (info.decl.name.clone(), info.decl.element);
            let value = self.expr(ch, ty, self.config.max_expr_depth);
            self.emit(Node::store(name.as_str(), index, value));
        }
        self.emit(Node::Barrier);
        self.phase = match self.phase {
            Phase::Write => Phase::Read,
            Phase::Read => Phase::Write,
        };
        if let Some(wg) = exchange {
            let info = &self.buffers[wg];
            let (name, ty) = (info.decl.name.clone(), info.decl.element);
            let step = 1 + ch.below(info.slots.max(1) as usize * 2) as u32;
            let neighbour = Expr::rem(
                Expr::add(Expr::var(crate::r#gen::decode::LTID), Expr::u32(step)),
                Expr::u32(info.decl.count.max(1)),
            );
            let var = self.fresh("n");
            self.emit(Node::let_bind(
                var.as_str(),
                Expr::load(name.as_str(), neighbour),
            ));
            self.declare(var, ty, true);
        }
    }

    fn room(&self) -> bool {
        self.nesting() < self.config.max_nesting
    }

    fn store(&mut self, ch: &mut Choices<'_>) {
        let targets = self.store_targets();
        let Some(&target) = targets.get(ch.below(targets.len())) else {
            return;
        };
        let info = &self.buffers[target];
        let index = self.index(ch, info, SHALLOW);
        let value = self.expr(ch, info.decl.element, self.config.max_expr_depth);
        let name = info.decl.name.clone();
        let count = info.decl.count;
        let node = Node::store(name.as_str(), index.clone(), value);
        // Sometimes guarded by a bound on its index, as hand-written kernels are: `buf_len` or a
        // literal one below, at or one past the declared count (what the wgpu lowering's in-bounds
        // proofs must get exactly right).
        // Only on `tid`, a `u32`: the bound compares in `u32`.
        let at_tid = matches!(&index, Expr::Var(name) if name == crate::r#gen::decode::TID);
        // A guard would put a subgroup operation of the value in non-uniform control flow.
        let guard = self.features.has(Feature::Ifs) && at_tid && !node_has_subgroup_op(&node);
        if guard && ch.next_word() % 3 == 1 {
            let bound = match (ch.next_word() % 4, count) {
                (0, _) | (_, 0) => Expr::buf_len(name.as_str()),
                (k, n) => Expr::u32((n + k).saturating_sub(2)),
            };
            self.emit(Node::if_then(Expr::lt(index, bound), vec![node]));
        } else {
            self.emit(node);
        }
    }

    fn let_stmt(&mut self, ch: &mut Choices<'_>) {
        // With pass shapes, a let in three is a statement shape (`pass_stmts.rs`).
        if self.pass_shapes_on() && ch.one_in(3) {
            return self.pass_stmt(ch);
        }
        // With round trips on, a let in four holds a rounded f16 (`round_trips.rs`).
        if self.round_trips_on() && ch.one_in(4) {
            let value = self.rounded_value(ch, SHALLOW);
            let name = self.fresh("r");
            self.emit(Node::let_bind(name.as_str(), value));
            self.declare_rounded(name);
            return;
        }
        if self.features.has(Feature::PrivateArrays) && ch.one_in(6) {
            return self.private_array(ch);
        }
        if self.features.has(Feature::Tiles) && self.tile_room() && ch.one_in(5) {
            return self.tile_block(ch);
        }
        let types = types(self.features);
        let ty = types[ch.below(types.len())];
        let value = self.expr(ch, ty, self.config.max_expr_depth);
        let name = self.fresh("v");
        self.emit(Node::let_bind(name.as_str(), value));
        self.declare(name, ty, true);
    }

    fn assign(&mut self, ch: &mut Choices<'_>) {
        let mutable: Vec<usize> = (0..self.vars.len())
            .filter(|&i| self.vars[i].mutable)
            .collect();
        let Some(&var) = mutable.get(ch.below(mutable.len())) else {
            return self.let_stmt(ch);
        };
        let (name, ty) = (self.vars[var].name.clone(), self.vars[var].ty);
        let value = self.expr(ch, ty, self.config.max_expr_depth);
        self.emit(Node::assign(name, value));
    }

    /// `for i in lo .. lo + trip`: at most `max_trip` iterations (none when the addition wraps).
    /// With `EdgeOperands`, half the loops run one trip from a large literal (`edges.rs`).
    fn loop_stmt(&mut self, ch: &mut Choices<'_>) {
        // With pass shapes, half the loops count between literals (`pass_stmts.rs`).
        if self.pass_shapes_on() && ch.one_in(2) {
            return self.literal_loop(ch);
        }
        let word = ch.next_word();
        let big = self.features.has(Feature::EdgeOperands) && ch.one_in(2);
        // Three big loops in four count in `i32`, whose negation the H100 dropped.
        let ty = match (big, word % 4) {
            (true, 3) | (false, 0 | 2) => DataType::U32,
            _ => DataType::I32,
        };
        let (from, trip) = if big {
            (self.large_bound(ch, ty), 1)
        } else {
            let from = self.expr(ch, ty, SHALLOW);
            (from, ch.below(self.config.max_trip as usize + 1) as u32)
        };
        let step = match ty {
            DataType::I32 => Expr::i32(trip as i32),
            _ => Expr::u32(trip),
        };
        let to = Expr::add(from.clone(), step);
        let var = self.fresh("i");
        self.open_loop(var.clone(), ty, from, to);
        if big && !ch.one_in(4) {
            self.feed_counter(ch, &var, ty);
        }
    }

    fn atomic(&mut self, ch: &mut Choices<'_>) {
        let targets = self.atomic_targets();
        let Some(&(target, kind)) = targets.get(ch.below(targets.len())) else {
            return;
        };
        let info = &self.buffers[target];
        let op = self.atomic_op(ch, info, kind);
        let elem = info.decl.element;
        let index = self.index(ch, info, SHALLOW);
        let depth = self.config.max_expr_depth;
        let value = self.expr(ch, elem, depth);
        let name = info.decl.name.clone();
        let expected = (op == vyre_foundation::ir::AtomicOp::CompareExchange)
            .then(|| self.expr(ch, elem, depth));
        let keep = kind == AtomicTarget::Owned;
        // An old value nobody reads may just as well be dropped by an atomic statement; an owned
        // slot's atomic is a statement too a third of the time (every operation, exchange and
        // compare-exchange included, on `output`, `read_write` and workgroup slots).
        if ch.one_in(if keep { 3 } else { 2 }) {
            self.emit(match expected {
                Some(expected) => Node::atomic_compare_exchange(name, index, expected, value),
                None => Node::atomic(op, name, index, value),
            });
            return;
        }
        let atomic = match expected {
            Some(expected) => Expr::atomic_compare_exchange(name, index, expected, value),
            None => Expr::atomic(op, name, index, value),
        };
        // A contended atomic's old value depends on the order of invocations: bind it to a variable
        // that nothing reads (`drop` prefix), never to one in the pool.
        let var = self.fresh(if keep { "a" } else { "drop" });
        self.emit(Node::let_bind(var.as_str(), atomic));
        if keep {
            self.declare(var, elem, true);
        }
    }

    /// The last statement of every program: the root-scope variables folded into one of the
    /// invocation's own `out0` slots, so that what the body computed is observable even when none of
    /// its own stores ran (`f16` ones by magnitude, below). Floats only reach a float `out0`
    /// (comparable programs keep them there), and
    /// integers reach it reduced like every integer converted to `f32`: `f32(v1) + f32(v2)` of two
    /// large integers has no fixed answer once a backend reassociates the sum (the NVIDIA H200 gave
    /// another result than the reference for `v2 = ~(v1 | tid)`, fuzz seed 20261203).
    pub(crate) fn epilogue(&mut self) {
        let out = self.buffers[0].decl.element;
        let vars: Vec<(String, DataType)> = self
            .vars
            .iter()
            .filter(|v| v.mutable)
            .map(|v| (v.name.clone(), v.ty))
            .collect();
        let mut folded: Option<Expr> = None;
        for (name, ty) in vars {
            let var = self.moderate_cast_arg(out, ty, Expr::var(name));
            let Some(term) = observe(var, ty, out) else {
                continue;
            };
            folded = Some(match (folded, out) {
                (None, _) => term,
                // `f16` terms are added by magnitude: a quotient off by its 2.5 ULP beside a value
                // of the other sign would cancel into far more than `f16`'s tolerance of the sum
                // (`-8.5h + 7.58984375h` for the reference's `-8.5h + 7.59765625h`: 1% apart; the
                // H100, seed 99501 case 70314). A sum of magnitudes keeps each term's error
                // relative to the result.
                (Some(acc), DataType::F16) => Expr::add(Expr::abs(acc), Expr::abs(term)),
                (Some(acc), DataType::F32) => Expr::add(acc, term),
                (Some(acc), DataType::Bool) => {
                    Expr::binary(vyre_foundation::ir::BinOp::Ne, acc, term)
                }
                (Some(acc), _) => Expr::bit_xor(acc, term),
            });
        }
        if let Some(value) = folded {
            let index = match self.buffers[0].slots {
                0 | 1 => Expr::var(crate::r#gen::decode::TID),
                s => Expr::add(
                    Expr::mul(Expr::var(crate::r#gen::decode::TID), Expr::u32(s)),
                    Expr::u32(s - 1),
                ),
            };
            self.emit(Node::store(
                self.buffers[0].decl.name.as_str(),
                index,
                value,
            ));
        }
    }
}

/// `var` (of type `ty`) as a value of type `out`, or `None` for a float that must not leave floats.
/// A float is observed only through an output of its own type: an `f32` would round to an `f16`
/// out, and an `f16` (a quotient may be off by its 2.5 ULP) widened to an `f32` out would be
/// compared at f32 precision (found on the H200, seed 20261210).
fn observe(var: Expr, ty: DataType, out: DataType) -> Option<Expr> {
    match (ty, out) {
        (t, o) if t == o => Some(var),
        (t, _) if t.is_float() => None,
        (DataType::U32, DataType::I32)
        | (DataType::I32, DataType::U32)
        | (DataType::U64, DataType::I64)
        | (DataType::I64, DataType::U64) => Some(Expr::bitcast(out, var)),
        _ => Some(Expr::cast(out, var)),
    }
}

/// True when a store's operands hold a subgroup operation.
fn node_has_subgroup_op(node: &Node) -> bool {
    node.exprs().any(Expr::has_subgroup_op)
}
