//! Pass shapes in statements (`Feature::PassShapes`): what dead-code elimination, CSE, loop-
//! invariant code motion and unrolling act on, next to what makes each of them wrong.
//!
//! - **Loads around a store**: `let a = b[i]; b[i] = v; let c = b[i]`, the same load twice with a
//!   store to its element between (a CSE that reuses `a` for `c` is wrong).
//! - **Overwritten stores**: `b[i] = v1; b[i] = v2`, half the time with a load of `b[i]` between
//!   (which keeps the first store alive).
//! - **Dead lets**: `let dead = e` that nothing reads, and `let dead = atomic_op(b[i], v)` on the
//!   invocation's own slot, whose effect stays (a DCE that drops it is wrong).
//! - **Counted loops with literal bounds** (`for i in 3u..6u`, `-2i..1i`, zero-trip ones such as
//!   `5u..5u` and `4u..3u`): the first statements accumulate the counter into a variable
//!   declared just before the loop, into the invocation's own slot of a buffer (`b[i] = b[i] * 3 +
//!   i`) or through an atomic on it, so every trip shows; a loop-invariant `let` (built before the
//!   counter is in scope, sometimes a load of the buffer the loop stores to), and a `break` or
//!   `continue` on a literal trip. The loop stays open: the statements that follow go inside it,
//!   nested loops among them.
//! - **Barriers inside a uniform loop** (`for k in 0u..Ku`, literal bounds): each trip stores into
//!   the invocation's own slot of a workgroup buffer, a barrier, a load of a neighbour's slot folded
//!   into an accumulator, and a barrier that ends the read phase. The neighbour's load is invariant
//!   in form only: a loop-invariant code motion that hoists it past the barriers reads the slot
//!   before anyone wrote it.
//!
//! Every access keeps the comparable discipline: stores and own-slot loads go through
//! `Ctx::index`, workgroup phases alternate at every barrier, and loop bounds are literals.

use vyre_foundation::ir::{AtomicOp, DataType, Expr, Node};

use crate::r#gen::access::AtomicTarget;
use crate::r#gen::decode::{Ctx, LTID, Phase};
use crate::r#gen::edges::int_literal;
use crate::r#gen::layout::Role;
use crate::r#gen::recipe::Choices;

/// Expression depth for the operands of the shapes: shallow, so shrunk cases stay readable.
const SHALLOW: u32 = 2;

impl Ctx {
    /// A statement shape (drawn at a `let`): loads around a store, an overwritten store or a dead
    /// `let`.
    pub(crate) fn pass_stmt(&mut self, ch: &mut Choices<'_>) {
        match ch.below(3) {
            0 => self.loads_around_store(ch),
            1 => self.overwritten_store(ch),
            _ => self.dead_let(ch),
        }
    }

    /// The store targets that may also be loaded here (own slots), with plain indices.
    fn loadable_targets(&self) -> Vec<usize> {
        let targets = self.store_targets().into_iter();
        targets
            .filter(|&i| self.can_load(&self.buffers[i]) && !self.buffers[i].rows)
            .collect()
    }

    /// `let a = b[i]; b[i] = v; let c = b[i]`.
    fn loads_around_store(&mut self, ch: &mut Choices<'_>) {
        let targets = self.loadable_targets();
        let Some(&target) = targets.get(ch.below(targets.len())) else {
            return self.dead_let(ch);
        };
        let info = &self.buffers[target];
        let (name, ty) = (info.decl.name.clone(), info.decl.element);
        let index = self.index(ch, info, SHALLOW);
        let load = Expr::load(name.as_str(), index.clone());
        let before = self.fresh("ld");
        self.emit(Node::let_bind(before.as_str(), load.clone()));
        self.declare(before, ty, true);
        let value = self.expr(ch, ty, SHALLOW);
        self.emit(Node::store(name.as_str(), index, value));
        let after = self.fresh("ld");
        self.emit(Node::let_bind(after.as_str(), load));
        self.declare(after, ty, true);
    }

    /// `b[i] = v1; [let m = b[i];] b[i] = v2`.
    fn overwritten_store(&mut self, ch: &mut Choices<'_>) {
        let targets = self.loadable_targets();
        let Some(&target) = targets.get(ch.below(targets.len())) else {
            return self.dead_let(ch);
        };
        let info = &self.buffers[target];
        let (name, ty) = (info.decl.name.clone(), info.decl.element);
        let index = self.index(ch, info, SHALLOW);
        let first = self.expr(ch, ty, SHALLOW);
        self.emit(Node::store(name.as_str(), index.clone(), first));
        if ch.one_in(2) {
            let between = self.fresh("ld");
            let load = Expr::load(name.as_str(), index.clone());
            self.emit(Node::let_bind(between.as_str(), load));
            self.declare(between, ty, true);
        }
        let second = self.expr(ch, ty, SHALLOW);
        self.emit(Node::store(name.as_str(), index, second));
    }

    /// `let dead = e` that nothing reads (its name is never declared), or one holding an atomic on
    /// the invocation's own slot, whose effect stays.
    fn dead_let(&mut self, ch: &mut Choices<'_>) {
        let owned: Vec<usize> = self
            .atomic_targets()
            .into_iter()
            .filter(|&(_, t)| t == AtomicTarget::Owned)
            .map(|(i, _)| i)
            .collect();
        let value = match owned.get(ch.below(owned.len() + 1)) {
            Some(&target) => {
                let info = &self.buffers[target];
                let op = self.atomic_op(ch, info, AtomicTarget::Owned);
                let (name, elem) = (info.decl.name.clone(), info.decl.element);
                let index = self.index(ch, info, SHALLOW);
                let operand = self.expr(ch, elem, SHALLOW);
                match op {
                    AtomicOp::CompareExchange => {
                        let expected = self.expr(ch, elem, SHALLOW);
                        Expr::atomic_compare_exchange(name, index, expected, operand)
                    }
                    op => Expr::atomic(op, name, index, operand),
                }
            }
            None => {
                let types = crate::r#gen::layout::types(self.features);
                let ty = types[ch.below(types.len())];
                self.expr(ch, ty, self.config.max_expr_depth)
            }
        };
        let name = self.fresh("dead");
        self.emit(Node::let_bind(name, value));
    }

    /// A counted loop with literal bounds whose first statements make every trip observable (see
    /// the module docs). The loop stays open.
    pub(crate) fn literal_loop(&mut self, ch: &mut Choices<'_>) {
        let ty = if ch.one_in(2) {
            DataType::U32
        } else {
            DataType::I32
        };
        let from: i64 = match (ty, ch.below(4)) {
            (DataType::I32, 0) => -2,
            (DataType::I32, 1) => i64::from(i32::MIN),
            (_, k) => [0, 1, 3, 7][k],
        };
        let trips = ch.below(self.config.max_trip as usize + 1) as i64;
        // One loop in six runs backwards, which is no trip at all (from `MIN` or `0u`, `from..from`).
        let to = match ch.one_in(6) {
            true if from == i64::from(i32::MIN) || from == 0 => from,
            true => from - 1,
            false => from + trips,
        };
        let invariant_ty = if ch.one_in(2) { ty } else { DataType::U32 };
        // Built before the counter is in scope: invariant in the loop.
        let invariant = self.invariant_value(ch, invariant_ty);
        // Declared before the loop opens, so that it stays in scope when the loop closes.
        let acc = self.fresh("sum");
        let start = self.literal(ch, ty);
        self.emit(Node::let_bind(acc.as_str(), start));
        self.declare(acc.clone(), ty, true);
        let var = self.fresh("i");
        let lit = |v: i64| int_literal(ty, v as u64);
        self.open_loop(var.clone(), ty, lit(from), lit(to));
        let counter = Expr::var(var.as_str());
        let exit = ch.below(4);
        let exit_at = lit(from + ch.below(3) as i64);
        if exit == 0 {
            self.exit_on_trip(ch, &counter, exit_at.clone());
        }
        self.accumulate(ch, &acc, ty, counter.clone());
        if exit == 1 {
            self.exit_on_trip(ch, &counter, exit_at);
        }
        let inv = self.fresh("inv");
        self.emit(Node::let_bind(inv.as_str(), invariant));
        self.declare(inv, invariant_ty, true);
    }

    /// An expression of type `ty` that the loop about to open does not change: any expression
    /// built now, or a load of a buffer the loop may store to. It holds no subgroup operation,
    /// since it goes inside the loop.
    fn invariant_value(&self, ch: &mut Choices<'_>, ty: DataType) -> Expr {
        self.subgroup_free.set(self.subgroup_free.get() + 1);
        let value = self.invariant_load(ch, ty);
        self.subgroup_free.set(self.subgroup_free.get() - 1);
        value
    }

    fn invariant_load(&self, ch: &mut Choices<'_>, ty: DataType) -> Expr {
        if ch.one_in(2) {
            let targets = self.loadable_targets();
            let of_type: Vec<usize> = targets
                .into_iter()
                .filter(|&i| self.buffers[i].decl.element == ty)
                .collect();
            if let Some(&t) = of_type.get(ch.below(of_type.len())) {
                let info = &self.buffers[t];
                let index = self.index(ch, info, SHALLOW);
                return Expr::load(info.decl.name.as_str(), index);
            }
        }
        self.expr(ch, ty, SHALLOW)
    }

    /// `if counter == at { break; }` or `continue`.
    fn exit_on_trip(&mut self, ch: &mut Choices<'_>, counter: &Expr, at: Expr) {
        let exit = if ch.one_in(2) {
            Node::Break
        } else {
            Node::Continue
        };
        self.emit(Node::if_then(Expr::eq(counter.clone(), at), vec![exit]));
    }

    /// Folds `counter` into the variable `acc`, into the invocation's own slot of a buffer of the
    /// counter's type, or through an atomic on such a slot.
    fn accumulate(&mut self, ch: &mut Choices<'_>, acc: &str, ty: DataType, counter: Expr) {
        let three = int_literal(ty, 3);
        let acc_var = Expr::var(acc);
        let slots: Vec<usize> = self
            .loadable_targets()
            .into_iter()
            .filter(|&i| self.buffers[i].decl.element == ty)
            .collect();
        let atomics: Vec<usize> = self
            .atomic_targets()
            .into_iter()
            .filter(|&(i, t)| t == AtomicTarget::Owned && self.buffers[i].decl.element == ty)
            .map(|(i, _)| i)
            .collect();
        match ch.below(4) {
            1 if !slots.is_empty() => {
                let info = &self.buffers[slots[ch.below(slots.len())]];
                let name = info.decl.name.clone();
                let index = self.index(ch, info, SHALLOW);
                let old = Expr::load(name.as_str(), index.clone());
                let value = Expr::add(Expr::mul(old, three), counter);
                self.emit(Node::store(name, index, value));
            }
            2 if !atomics.is_empty() => {
                let info = &self.buffers[atomics[ch.below(atomics.len())]];
                let name = info.decl.name.clone();
                let index = self.index(ch, info, SHALLOW);
                let old = self.fresh("a");
                let atomic = Expr::atomic(AtomicOp::Add, name, index, counter);
                self.emit(Node::let_bind(old.as_str(), atomic));
                let folded = Expr::bit_xor(acc_var.clone(), Expr::var(old.as_str()));
                self.emit(Node::assign(acc, folded));
                self.declare(old, ty, true);
            }
            _ => {
                let value = Expr::add(Expr::mul(acc_var, three), counter);
                self.emit(Node::assign(acc, value));
            }
        }
    }

    /// A uniform loop with barriers inside (see the module docs); false when no workgroup buffer
    /// of own integer slots can take it, or the phase is not a write phase.
    pub(crate) fn barrier_loop(&mut self, ch: &mut Choices<'_>) -> bool {
        let wg = self.buffers.iter().position(|b| {
            b.role == Role::OwnWorkgroup && b.decl.element.is_integer() && self.can_load(b)
        });
        let Some(wg) = wg.filter(|_| self.phase == Phase::Write) else {
            return false;
        };
        let (name, ty) = (
            self.buffers[wg].decl.name.clone(),
            self.buffers[wg].decl.element,
        );
        let (count, slots) = (self.buffers[wg].decl.count.max(1), self.buffers[wg].slots);
        let acc = self.fresh("sum");
        self.emit(Node::let_bind(acc.as_str(), int_literal(ty, 0)));
        let k = self.fresh("i");
        let trips = 1 + ch.below(3) as u32;
        self.open_loop(k.clone(), DataType::U32, Expr::u32(0), Expr::u32(trips));
        let index = self.index(ch, &self.buffers[wg], SHALLOW);
        let trip = if ty == DataType::U32 {
            Expr::var(k.as_str())
        } else {
            Expr::cast(ty, Expr::var(k.as_str()))
        };
        let value = Expr::add(trip, self.expr(ch, ty, SHALLOW));
        self.emit(Node::store(name.as_str(), index, value));
        self.emit(Node::Barrier);
        let step = 1 + ch.below(slots.max(1) as usize * 2) as u32;
        let neighbour = Expr::rem(
            Expr::add(Expr::var(LTID), Expr::u32(step)),
            Expr::u32(count),
        );
        let n = self.fresh("n");
        self.emit(Node::let_bind(
            n.as_str(),
            Expr::load(name.as_str(), neighbour),
        ));
        let folded = Expr::bit_xor(Expr::var(acc.as_str()), Expr::var(n.as_str()));
        self.emit(Node::assign(acc.as_str(), folded));
        self.emit(Node::Barrier);
        self.close();
        self.declare(acc, ty, true);
        true
    }
}
