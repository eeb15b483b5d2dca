//! `dce`: dead-code and dead-store elimination.
//!
//! Every rule removes only what no output can observe under `SEMANTICS.md`. Its law:
//!
//! - **Expressions have no effect but their atomics** (section 2, "Only atomics have side
//!   effects"; section 3: an out-of-bounds load yields 0, division by zero and every other
//!   operation is defined, so nothing traps). Where a rule drops an expression that holds atomics, it
//!   keeps them as atomic statements, in evaluation order: the atomic statement has
//!   "exactly the effect of the atomic expression with the same fields bound to a variable nothing
//!   reads" (section 2).
//! - **Dead variables.** A `let` or `assign` of a variable that no live expression reads goes
//!   (liveness over [`VarId`]s of the evidence, closed under "read by the value of a live
//!   variable's definition"). Variables are local to one invocation (section 1), so nothing else
//!   can read them.
//! - **Overwritten definitions.** A definition followed, in the same body, by an `assign` to the
//!   same variable with no read of it, no `break` or `continue` in between (either could let the
//!   first value be read elsewhere) and no read in the new value: an `assign` goes, a
//!   `let` keeps its declaration with the value `0` of its type. So does a definition that the
//!   invocation's end follows (the end of the entry body, or a `return` in the same body) with no
//!   read in between.
//! - **Unreachable statements.** Statements after a `return`, `break` or `continue` in the same
//!   body, or after an `if` whose branches both end so, or a block that does, never run (section 2).
//!   A `return` ending the entry body and a `continue` ending a loop body jump where control goes
//!   anyway, and so do those ending an `if` or block in that last place.
//! - **Literal conditions and empty statements.** `if true`/`if false` keep the branch that runs
//!   (as a block when it declares variables, so their scope stays the branch's). `while false`, a
//!   `loop_for` with literal bounds and no iteration (`from >= to` in the loop's type, section
//!   2), and an `if`, block or `loop_for` left with nothing to run go, keeping the atomics of their
//!   condition or bounds. A `while` with any other condition stays even when empty: it may never
//!   end, and removing it would change a dispatch that times out into one that finishes.
//! - **Overwritten stores.** `b[i] = v` followed in the same body by `b[i] = w` with the
//!   *identical* index expression goes when nothing in between can observe it:
//!   - `i` reads no variable assigned in between and loads only `read`/`uniform` buffers (which no
//!     invocation writes), has no atomic and no subgroup operation, so it denotes the same element
//!     both times, and both stores are in bounds or both are dropped (section 3);
//!   - nothing in between (nor `i` or `w`) loads `b`; no barrier (after which other invocations may
//!     read `b[i]`, section 2), no atomic (section 8: atomics may order other invocations' accesses)
//!     and no `return`, `break` or `continue` lie in between;
//!   - `b` is used by no atomic anywhere: then every plain store to it is an atomic store (section
//!     8) that other invocations may read without a race. Any other invocation that reads `b[i]`
//!     between the two stores races with them, and racy programs have unspecified outputs (section 1).
//! - **Stores nobody reads.** A store to a `workgroup` buffer that no load or atomic reads: such
//!   memory is zeroed per workgroup and never returned (section 1). Stores to `read_write` buffers
//!   are kept even when nothing loads them: resident dispatches keep their contents.
//!
//! The pass refuses everything else; in particular it never removes a barrier, a `while` whose
//! condition is not the literal `false`, or a loop with bounds it cannot count.

use std::collections::BTreeSet;

use crate::for_each_node;
use crate::ir::{BufferAccess, DataType, Expr, Literal, Node, Program};
use crate::validate::{Validated, VarId};

use super::edit::{declares, keep_or_replace, splice_or_block};
use super::effects::{Buffers, Effects};
use super::{Outcome, Pass};

/// Dead-code and dead-store elimination; see the [module docs](self) for its rules.
#[derive(Clone, Copy, Debug, Default)]
pub struct DeadCode;

impl Pass for DeadCode {
    fn name(&self) -> &'static str {
        "dce"
    }

    fn run(&self, program: &Validated<'_>) -> Outcome {
        let original = program.program();
        let cx = Cx {
            validated: program,
            live: live_vars(program),
            buffers: Buffers::of(program),
        };
        let Some(body) = cx.body(&original.body, Tail::Return) else {
            return Outcome::Unchanged;
        };
        if body == original.body {
            return Outcome::Unchanged;
        }
        Outcome::Changed(Program {
            body,
            ..original.clone()
        })
    }
}

/// The exit that ending a body in a given place performs anyway, so that an explicit one there is
/// redundant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tail {
    /// The end of the entry body: the invocation ends.
    Return,
    /// The end of a loop body: the next iteration starts.
    Continue,
    /// Anywhere else.
    Nothing,
}

/// What the pass knows about the program it rewrites.
struct Cx<'v, 'p> {
    validated: &'v Validated<'p>,
    /// Whether some live expression reads each variable, by [`VarId::index`].
    live: Liveness,
    buffers: Buffers<'p>,
}

/// Which variables some live expression reads.
enum Liveness {
    /// Every variable, when some fact was missing (never for a validated program).
    All,
    /// By [`VarId::index`].
    Some(Vec<bool>),
}

impl Liveness {
    fn is_live(&self, id: VarId) -> bool {
        match self {
            Liveness::All => true,
            Liveness::Some(live) => live.get(id.index()).copied().unwrap_or(true),
        }
    }
}

impl Cx<'_, '_> {
    /// `body`, without what is dead in it; `None` when nothing in it is. Copies only from the
    /// first statement that changes, so a body with nothing dead is read and never copied.
    fn body(&self, body: &[Node], tail: Tail) -> Option<Vec<Node>> {
        let dead_defs = self.overwritten_defs(body, tail);
        let dead_stores = self.overwritten_stores(body);
        let mut out: Option<Vec<Node>> = None;
        let mut replaced = Vec::new();
        for (i, node) in body.iter().enumerate() {
            replaced.clear();
            let changed = self.node(
                node,
                dead_defs.contains(&i),
                dead_stores.contains(&i),
                &mut replaced,
            );
            let exits = if changed {
                replaced.iter().any(always_exits)
            } else {
                always_exits(node)
            };
            keep_or_replace(&mut out, body, i, changed, &mut replaced);
            if exits {
                // What follows never runs.
                if out.is_none() && i + 1 < body.len() {
                    out = Some(body[..=i].to_vec());
                }
                break;
            }
        }
        if out.is_none() && trims(body, tail) {
            out = Some(body.to_vec());
        }
        let mut out = out?;
        trim_tail(&mut out, tail);
        Some(out)
    }

    /// Pushes onto `out` what is left of `node` and returns true; false, with nothing pushed,
    /// when nothing of it is dead.
    fn node(&self, node: &Node, overwritten: bool, store_dead: bool, out: &mut Vec<Node>) -> bool {
        match node {
            Node::Let { name, value } => self.let_(node, name, value, overwritten, out),
            Node::Assign { value, .. } => {
                let dead = overwritten || !self.var_live(node);
                if dead {
                    out.extend(effects_of(value));
                }
                dead
            }
            Node::Store {
                buffer,
                index,
                value,
            } => {
                let dead = store_dead || self.unread_workgroup(buffer);
                if dead {
                    out.extend(effects_of(index));
                    out.extend(effects_of(value));
                }
                dead
            }
            Node::If {
                cond,
                then,
                otherwise,
            } => self.if_(cond, then, otherwise, out),
            Node::Loop {
                var,
                from,
                to,
                body,
            } => {
                if !runs_at_all(from, to) {
                    return true;
                }
                let new = self.body(body, Tail::Continue);
                if new.as_ref().map_or(body.is_empty(), Vec::is_empty) {
                    out.extend(effects_of(from));
                    out.extend(effects_of(to));
                    return true;
                }
                let Some(new) = new else {
                    return false;
                };
                out.push(Node::Loop {
                    var: var.clone(),
                    from: from.clone(),
                    to: to.clone(),
                    body: new,
                });
                true
            }
            Node::While { cond, body } => {
                if *cond == Expr::Lit(Literal::Bool(false)) {
                    return true;
                }
                let Some(new) = self.body(body, Tail::Continue) else {
                    return false;
                };
                out.push(Node::While {
                    cond: cond.clone(),
                    body: new,
                });
                true
            }
            Node::Block(body) => {
                let new = self.body(body, Tail::Nothing);
                // A block without a `let` at its top level is spliced into its body.
                if new.is_none() && body.iter().any(declares) {
                    return false;
                }
                splice_or_block(new.unwrap_or_else(|| body.clone()), out);
                true
            }
            // Private arrays and their stores are kept: the pass does not track array elements.
            Node::PrivateArray { .. }
            | Node::ArrayStore { .. }
            | Node::Tile { .. }
            | Node::TileLoad { .. }
            | Node::TileStore { .. }
            | Node::TileMultiplyAdd { .. }
            | Node::Barrier
            | Node::Return
            | Node::Break
            | Node::Continue
            | Node::Atomic { .. } => false,
        }
    }

    fn let_(
        &self,
        node: &Node,
        name: &str,
        value: &Expr,
        overwritten: bool,
        out: &mut Vec<Node>,
    ) -> bool {
        if !self.var_live(node) {
            out.extend(effects_of(value));
            return true;
        }
        if !overwritten {
            return false;
        }
        let zero = self.validated.type_of(value).ok().map(zero_of);
        match zero {
            Some(zero) if *value != zero => {
                out.extend(effects_of(value));
                out.push(Node::let_bind(name, zero));
                true
            }
            Some(_) | None => false,
        }
    }

    fn if_(&self, cond: &Expr, then: &[Node], otherwise: &[Node], out: &mut Vec<Node>) -> bool {
        if let Expr::Lit(Literal::Bool(taken)) = cond {
            let branch = if *taken { then } else { otherwise };
            let new = self.body(branch, Tail::Nothing);
            splice_or_block(new.unwrap_or_else(|| branch.to_vec()), out);
            return true;
        }
        let (new_then, new_otherwise) = (
            self.body(then, Tail::Nothing),
            self.body(otherwise, Tail::Nothing),
        );
        let empty = |new: &Option<Vec<Node>>, old: &[Node]| {
            new.as_ref().map_or(old.is_empty(), Vec::is_empty)
        };
        if empty(&new_then, then) && empty(&new_otherwise, otherwise) {
            out.extend(effects_of(cond));
            return true;
        }
        if new_then.is_none() && new_otherwise.is_none() {
            return false;
        }
        out.push(Node::if_then_else(
            cond.clone(),
            new_then.unwrap_or_else(|| then.to_vec()),
            new_otherwise.unwrap_or_else(|| otherwise.to_vec()),
        ));
        true
    }

    /// True when the variable `node` (a `let` or `assign`) defines is read by a live expression.
    fn var_live(&self, node: &Node) -> bool {
        match self.validated.node_var(node) {
            Ok(id) => self.live.is_live(id),
            Err(_) => true,
        }
    }

    /// True for a `workgroup` buffer that no load or atomic reads.
    fn unread_workgroup(&self, buffer: &str) -> bool {
        self.validated
            .program()
            .buffer(buffer)
            .is_some_and(|b| b.access == BufferAccess::Workgroup)
            && !self.buffers.read(buffer)
    }

    /// The positions in `body` of definitions (`let`, `assign`) whose value nothing reads: a later
    /// `assign` of the same body overwrites it first, or the invocation ends first (the entry
    /// body's end, a `return` of the body). A backward scan: `unread` holds the variables whose
    /// value, from the statement being looked at onwards, is never read.
    fn overwritten_defs(&self, body: &[Node], tail: Tail) -> BTreeSet<usize> {
        let mut dead = BTreeSet::new();
        let mut unread = match tail {
            Tail::Return => Unread::AllBut(BTreeSet::new()),
            Tail::Continue | Tail::Nothing => Unread::These(BTreeSet::new()),
        };
        for (i, node) in body.iter().enumerate().rev() {
            let value = match node {
                Node::Let { value, .. } | Node::Assign { value, .. } => value,
                Node::Return => {
                    unread = Unread::AllBut(BTreeSet::new());
                    continue;
                }
                Node::Store { .. }
                | Node::PrivateArray { .. }
                | Node::ArrayStore { .. }
                | Node::Tile { .. }
                | Node::TileLoad { .. }
                | Node::TileStore { .. }
                | Node::TileMultiplyAdd { .. }
                | Node::If { .. }
                | Node::Loop { .. }
                | Node::Block(_)
                | Node::Barrier
                | Node::While { .. }
                | Node::Break
                | Node::Continue
                | Node::Atomic { .. } => {
                    if !self.reads(&[], std::slice::from_ref(node), &mut unread) {
                        unread = Unread::These(BTreeSet::new());
                    }
                    continue;
                }
            };
            let Ok(id) = self.validated.node_var(node) else {
                unread = Unread::These(BTreeSet::new());
                continue;
            };
            if unread.contains(id) {
                dead.insert(i);
            }
            // Before an `assign` the old value is unread up to it; before a `let` the variable
            // does not exist.
            unread.set(id, matches!(node, Node::Assign { .. }));
            if !self.reads(std::slice::from_ref(value), &[], &mut unread) {
                unread = Unread::These(BTreeSet::new());
            }
        }
        dead
    }

    /// Marks as read every variable that `exprs` or the statements `nodes` (nested bodies
    /// included) read. False when a fact is missing or the statements may `break` or `continue`
    /// (control may then go where the variable is read): then no value may be considered unread
    /// across them. A `return` needs no care: after it nothing of the invocation reads anything.
    fn reads(&self, exprs: &[Expr], nodes: &[Node], unread: &mut Unread) -> bool {
        if matches!(unread, Unread::These(ids) if ids.is_empty()) {
            // Nothing is unread, and a false answer would leave it so: nothing to look at.
            return true;
        }
        let mut ok = true;
        for expr in exprs {
            ok &= self.mark_read(expr, unread);
        }
        for_each_node(nodes, |node| {
            ok &= !matches!(node, Node::Break | Node::Continue);
            for expr in node.exprs() {
                ok &= self.mark_read(expr, unread);
            }
        });
        ok
    }

    /// Marks as read every variable `expr` reads; false when a fact is missing.
    fn mark_read(&self, expr: &Expr, unread: &mut Unread) -> bool {
        let mut ok = true;
        crate::for_each_subexpr(expr, |e| {
            if let Expr::Var(_) = e {
                match self.validated.var_of(e) {
                    Ok(id) => unread.set(id, false),
                    Err(_) => ok = false,
                }
            }
        });
        ok
    }

    /// The positions in `body` of stores that a later store of the same body to the same element
    /// overwrites before anything can observe them (see the module docs for the rule). A backward
    /// scan: `pending` holds the (buffer, index) of stores later in the body that nothing between
    /// them and the statement being looked at can observe.
    fn overwritten_stores(&self, body: &[Node]) -> BTreeSet<usize> {
        let mut dead = BTreeSet::new();
        let mut pending: Vec<(&str, &Expr)> = Vec::new();
        for (i, node) in body.iter().enumerate().rev() {
            if let Node::Store {
                buffer,
                index,
                value,
            } = node
                && !self.buffers.atomic(buffer)
                && self.stable_index(index)
            {
                if pending.iter().any(|&(b, x)| b == buffer && x == index) {
                    dead.insert(i);
                } else {
                    pending.push((buffer, index));
                }
                // The store's own expressions run before it writes.
                observe_exprs(&[index, value], &mut pending);
            } else if let Node::Let { value, .. } = node {
                observe_exprs(&[value], &mut pending);
            } else if !pending.is_empty() {
                observe(&Effects::of_node(node), &mut pending);
            }
        }
        dead
    }

    /// True when `index` denotes the same element wherever it is evaluated, as long as no variable
    /// it reads is assigned: it is pure, has no subgroup operation and loads only buffers that
    /// nothing writes.
    fn stable_index(&self, index: &Expr) -> bool {
        let mut stable = !index.has_atomic() && !index.has_subgroup_op();
        crate::for_each_subexpr(index, |e| {
            if let Expr::Load { buffer, .. } = e {
                stable &= self.buffers.stable(buffer);
            }
            // An element of a private array may change between the stores without a variable
            // being assigned; such an index is not followed.
            stable &= !matches!(e, Expr::ArrayLoad { .. });
        });
        stable
    }
}

/// The variables whose current value nothing reads from some point of a body onwards.
enum Unread {
    /// These variables.
    These(BTreeSet<VarId>),
    /// Every variable but these (the invocation ends).
    AllBut(BTreeSet<VarId>),
}

impl Unread {
    fn contains(&self, id: VarId) -> bool {
        match self {
            Unread::These(ids) => ids.contains(&id),
            Unread::AllBut(ids) => !ids.contains(&id),
        }
    }

    /// Records whether `id`'s value is unread from here on.
    fn set(&mut self, id: VarId, unread: bool) {
        match (self, unread) {
            (Unread::These(ids), true) | (Unread::AllBut(ids), false) => {
                ids.insert(id);
            }
            (Unread::These(ids), false) | (Unread::AllBut(ids), true) => {
                ids.remove(&id);
            }
        }
    }
}

/// [`observe`] for statements that only evaluate `exprs` (a `let`, a store's operands), without
/// collecting their effects: expressions assign nothing, exit nothing and hold no barrier, so an
/// earlier store is observed when they load its buffer, and every one when they hold an atomic.
fn observe_exprs(exprs: &[&Expr], pending: &mut Vec<(&str, &Expr)>) {
    if pending.is_empty() {
        return;
    }
    let mut atomic = false;
    for e in exprs {
        crate::for_each_subexpr(e, |sub| match sub {
            Expr::Atomic { .. } => atomic = true,
            Expr::Load { buffer, .. } => pending.retain(|&(b, _)| b != buffer),
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
        });
    }
    if atomic {
        pending.clear();
    }
}

/// Drops from `pending` the stores that statements with `effects`, run between them and an
/// earlier store, could observe or make refer to another element.
fn observe(effects: &Effects, pending: &mut Vec<(&str, &Expr)>) {
    if effects.barrier || effects.exits || effects.any_atomic() {
        pending.clear();
        return;
    }
    pending.retain(|&(buffer, index)| {
        let mut reads_assigned = false;
        crate::for_each_subexpr(index, |e| {
            if let Expr::Var(name) = e {
                reads_assigned |= effects.assigns.contains(name);
            }
        });
        !effects.loads.contains(buffer) && !reads_assigned
    });
}

/// Which variables some live expression reads: those read outside definitions, then, until
/// nothing changes, those read by the value of a definition of a live variable. A definition whose
/// value has an atomic keeps its reads live (its atomics stay).
fn live_vars(validated: &Validated<'_>) -> Liveness {
    let vars = validated.vars().len();
    let mut live = vec![false; vars];
    // Each definition's target and the range of `read` its value reads.
    let mut defs: Vec<(VarId, std::ops::Range<usize>)> = Vec::with_capacity(vars);
    let mut read: Vec<VarId> = Vec::with_capacity(2 * vars);
    let mut complete = true;
    let mut reads = |expr: &Expr, into: &mut Vec<VarId>| {
        crate::for_each_subexpr(expr, |e| {
            if let Expr::Var(_) = e {
                match validated.var_of(e) {
                    Ok(id) => into.push(id),
                    Err(_) => complete = false,
                }
            }
        });
    };
    let mut roots: Vec<VarId> = Vec::with_capacity(vars);
    for_each_node(&validated.program().body, |node| match node {
        Node::Let { value, .. } | Node::Assign { value, .. } => match validated.node_var(node) {
            Ok(target) if !value.has_atomic() => {
                let start = read.len();
                reads(value, &mut read);
                defs.push((target, start..read.len()));
            }
            Ok(_) | Err(_) => reads(value, &mut roots),
        },
        Node::Store { .. }
        | Node::PrivateArray { .. }
        | Node::ArrayStore { .. }
        | Node::Tile { .. }
        | Node::TileLoad { .. }
        | Node::TileStore { .. }
        | Node::TileMultiplyAdd { .. }
        | Node::If { .. }
        | Node::Loop { .. }
        | Node::Block(_)
        | Node::Barrier
        | Node::Return
        | Node::While { .. }
        | Node::Break
        | Node::Continue
        | Node::Atomic { .. } => {
            for expr in node.exprs() {
                reads(expr, &mut roots);
            }
        }
    });
    if !complete || defs.iter().any(|(target, _)| target.index() >= live.len()) {
        return Liveness::All;
    }
    // The definitions grouped by variable, so each variable's are one run of `defs`.
    defs.sort_unstable_by_key(|(target, _)| target.index());
    // A worklist from the roots: each variable found live makes what its definitions read live,
    // once.
    let mut work: Vec<VarId> = Vec::new();
    for id in roots {
        if let Some(slot) = live.get_mut(id.index())
            && !*slot
        {
            *slot = true;
            work.push(id);
        }
    }
    while let Some(id) = work.pop() {
        let first = defs.partition_point(|(target, _)| target.index() < id.index());
        let own = defs[first..]
            .iter()
            .take_while(|(target, _)| target.index() == id.index());
        for (_, reads) in own {
            for &r in &read[reads.clone()] {
                match live.get_mut(r.index()) {
                    Some(slot) if !*slot => {
                        *slot = true;
                        work.push(r);
                    }
                    Some(_) => {}
                    None => return Liveness::All,
                }
            }
        }
    }
    Liveness::Some(live)
}

/// The effects of evaluating `expr` as statements: its outermost atomics, in evaluation order,
/// each as the atomic statement with the same fields (atomics inside their operands stay there).
/// Empty for a pure expression.
pub(super) fn effects_of(expr: &Expr) -> Vec<Node> {
    let mut out = Vec::new();
    let mut stack = vec![expr];
    while let Some(e) = stack.pop() {
        if let Expr::Atomic {
            op,
            buffer,
            index,
            expected,
            value,
        } = e
        {
            out.push(Node::Atomic {
                op: *op,
                buffer: buffer.clone(),
                index: (**index).clone(),
                expected: expected.as_deref().cloned(),
                value: (**value).clone(),
            });
        } else {
            let children: Vec<&Expr> = e.children().collect();
            stack.extend(children.into_iter().rev());
        }
    }
    out
}

/// False for a `loop_for` whose literal bounds give it no iteration.
fn runs_at_all(from: &Expr, to: &Expr) -> bool {
    match (from, to) {
        (Expr::Lit(Literal::U32(a)), Expr::Lit(Literal::U32(b))) => a < b,
        (Expr::Lit(Literal::I32(a)), Expr::Lit(Literal::I32(b))) => a < b,
        _ => true,
    }
}

/// True when control never goes past `node` to the next statement of its body.
fn always_exits(node: &Node) -> bool {
    match node {
        Node::Return | Node::Break | Node::Continue => true,
        Node::Block(body) => body.iter().any(always_exits),
        Node::If {
            then, otherwise, ..
        } => then.iter().any(always_exits) && otherwise.iter().any(always_exits),
        Node::Let { .. }
        | Node::Assign { .. }
        | Node::Store { .. }
        | Node::PrivateArray { .. }
        | Node::ArrayStore { .. }
        | Node::Tile { .. }
        | Node::TileLoad { .. }
        | Node::TileStore { .. }
        | Node::TileMultiplyAdd { .. }
        | Node::Loop { .. }
        | Node::While { .. }
        | Node::Barrier
        | Node::Atomic { .. } => false,
    }
}

/// Whether [`trim_tail`] would remove anything from `body`.
fn trims(body: &[Node], tail: Tail) -> bool {
    match body.last() {
        Some(Node::Return) => tail == Tail::Return,
        Some(Node::Continue) => tail == Tail::Continue,
        Some(Node::If {
            cond,
            then,
            otherwise,
        }) => {
            trims(then, tail)
                || trims(otherwise, tail)
                || (then.is_empty() && otherwise.is_empty() && !cond.has_atomic())
        }
        Some(Node::Block(inner)) => trims(inner, tail) || inner.is_empty(),
        Some(
            Node::Let { .. }
            | Node::Assign { .. }
            | Node::Store { .. }
            | Node::PrivateArray { .. }
            | Node::ArrayStore { .. }
            | Node::Tile { .. }
            | Node::TileLoad { .. }
            | Node::TileStore { .. }
            | Node::TileMultiplyAdd { .. }
            | Node::Loop { .. }
            | Node::While { .. }
            | Node::Barrier
            | Node::Break
            | Node::Atomic { .. },
        )
        | None => false,
    }
}

/// Removes the exits at the end of `body` that do what reaching its end does anyway (`tail`),
/// looking into a last `if` or block, and what that leaves empty.
fn trim_tail(body: &mut Vec<Node>, tail: Tail) {
    loop {
        let empty_now = match body.last_mut() {
            Some(Node::Return) => tail == Tail::Return,
            Some(Node::Continue) => tail == Tail::Continue,
            Some(Node::If {
                cond,
                then,
                otherwise,
            }) => {
                trim_tail(then, tail);
                trim_tail(otherwise, tail);
                then.is_empty() && otherwise.is_empty() && !cond.has_atomic()
            }
            Some(Node::Block(inner)) => {
                trim_tail(inner, tail);
                inner.is_empty()
            }
            Some(
                Node::Let { .. }
                | Node::Assign { .. }
                | Node::Store { .. }
                | Node::PrivateArray { .. }
                | Node::ArrayStore { .. }
                | Node::Tile { .. }
                | Node::TileLoad { .. }
                | Node::TileStore { .. }
                | Node::TileMultiplyAdd { .. }
                | Node::Loop { .. }
                | Node::While { .. }
                | Node::Barrier
                | Node::Break
                | Node::Atomic { .. },
            )
            | None => false,
        };
        if !empty_now {
            return;
        }
        body.pop();
    }
}

/// The literal zero of `ty`.
fn zero_of(ty: DataType) -> Expr {
    Expr::Lit(match ty {
        DataType::Bool => Literal::Bool(false),
        DataType::U32 => Literal::U32(0),
        DataType::I32 => Literal::I32(0),
        DataType::F32 => Literal::F32(0),
        DataType::F16 => Literal::F16(0),
        DataType::U64 => Literal::U64(0),
        DataType::I64 => Literal::I64(0),
    })
}

#[cfg(test)]
mod tests {
    use super::DeadCode;
    use crate::pass::flow_test::{keeps, rewrites};

    #[test]
    fn unread_lets_go_with_the_lets_only_they_read() {
        rewrites(
            &DeadCode,
            "let a = inp[0u]; let b = (a + 1u); let c = gid.x; out[c] = 2u;",
            "let c = gid.x; out[c] = 2u;",
        );
    }

    #[test]
    fn an_unread_let_keeps_its_atomics_as_statements_in_order() {
        rewrites(
            &DeadCode,
            "let a = (atomic_add(cnt[0u], 1u) + atomic_max(cnt[atomic_or(cnt[1u], 2u)], 3u)); out[0u] = 1u;",
            "atomic_add(cnt[0u], 1u); atomic_max(cnt[atomic_or(cnt[1u], 2u)], 3u); out[0u] = 1u;",
        );
    }

    #[test]
    fn an_assign_overwritten_before_any_read_goes_and_a_let_keeps_zero() {
        rewrites(
            &DeadCode,
            "let a = inp[1u]; a = (inp[2u] * 3u); if (gid.x == 1u) { out[1u] = 1u; } a = inp[0u]; out[0u] = a;",
            "let a = 0u; if (gid.x == 1u) { out[1u] = 1u; } a = inp[0u]; out[0u] = a;",
        );
    }

    #[test]
    fn assigns_the_invocation_never_reads_again_go() {
        rewrites(
            &DeadCode,
            "let a = inp[1u]; out[0u] = a; a = (a + 1u); if (gid.x == 0u) { a = 5u; out[1u] = 1u; return; } a = 7u;",
            "let a = inp[1u]; out[0u] = a; if (gid.x == 0u) { out[1u] = 1u; }",
        );
    }

    #[test]
    fn an_assign_read_in_a_later_iteration_or_after_an_exit_stays() {
        keeps(
            &DeadCode,
            "let a = 0u; for i in 0u..4u { out[i] = a; a = 1u; if (inp[i] == 0u) { break; } a = 2u; } out[4u] = a;",
        );
    }

    #[test]
    fn statements_after_return_break_and_continue_never_run() {
        rewrites(
            &DeadCode,
            "for i in 0u..4u { out[i] = 1u; if (inp[i] == 0u) { continue; out[i] = 3u; } else { break; } out[i] = 2u; } out[5u] = 1u; return; out[6u] = 1u;",
            // The `continue` ends the loop body once the store after it is gone.
            "for i in 0u..4u { out[i] = 1u; if (inp[i] == 0u) { } else { break; } } out[5u] = 1u;",
        );
    }

    #[test]
    fn a_trailing_continue_and_a_trailing_return_go_with_the_ifs_they_leave_empty() {
        rewrites(
            &DeadCode,
            "for i in 0u..4u { out[i] = 1u; if (inp[i] == 0u) { continue; } } if (gid.x == 0u) { out[7u] = 1u; return; } else { return; }",
            "for i in 0u..4u { out[i] = 1u; } if (gid.x == 0u) { out[7u] = 1u; }",
        );
    }

    #[test]
    fn literal_conditions_keep_the_branch_that_runs() {
        rewrites(
            &DeadCode,
            "if true { let a = 1u; out[a] = 2u; } else { out[0u] = 3u; } if false { out[1u] = 1u; } else { out[2u] = 2u; } while false { out[3u] = 3u; }",
            "{ let a = 1u; out[a] = 2u; } out[2u] = 2u;",
        );
    }

    #[test]
    fn empty_statements_go_keeping_the_atomics_of_their_conditions() {
        rewrites(
            &DeadCode,
            "if (atomic_add(cnt[0u], 1u) == 0u) { let a = 1u; } for i in 0u..atomic_add(cnt[1u], 1u) { } for j in 3i..2i { out[0u] = 1u; } { } if (gid.x == 0u) { } else { } out[1u] = 1u;",
            "atomic_add(cnt[0u], 1u); atomic_add(cnt[1u], 1u); out[1u] = 1u;",
        );
    }

    #[test]
    fn a_while_that_may_never_end_stays_even_when_empty() {
        keeps(&DeadCode, "while (inp[0u] == 0u) { } out[0u] = 1u;");
    }

    #[test]
    fn a_store_overwritten_at_the_identical_index_goes() {
        rewrites(
            &DeadCode,
            "let k = inp[gid.x]; out[(k + inp[1u])] = 1u; let t = 4u; out[2u] = t; out[(k + inp[1u])] = rw[0u]; rw[0u] = 5u;",
            "let k = inp[gid.x]; let t = 4u; out[2u] = t; out[(k + inp[1u])] = rw[0u]; rw[0u] = 5u;",
        );
    }

    #[test]
    fn a_store_something_may_observe_before_the_overwrite_stays() {
        // A load of the buffer, a barrier, an atomic, an exit, a change of the index's variable,
        // an index loading a writable buffer, and a buffer some atomic uses.
        keeps(&DeadCode, "out[0u] = 1u; out[1u] = out[0u]; out[0u] = 2u;");
        keeps(
            &DeadCode,
            "wg[0u] = 1u; barrier; out[lid.x] = wg[0u]; wg[0u] = 2u; out[0u] = wg[1u];",
        );
        keeps(
            &DeadCode,
            "out[0u] = 1u; atomic_add(cnt[0u], 1u); out[0u] = 2u;",
        );
        keeps(
            &DeadCode,
            "for i in 0u..2u { out[0u] = 1u; if (inp[i] == 0u) { break; } out[0u] = 2u; }",
        );
        keeps(
            &DeadCode,
            "let k = 0u; out[k] = 1u; k = 1u; out[k] = 2u; out[2u] = k;",
        );
        keeps(&DeadCode, "out[rw[0u]] = 1u; out[rw[0u]] = 2u;");
        keeps(
            &DeadCode,
            "cnt[0u] = 1u; cnt[0u] = 2u; atomic_add(cnt[1u], 1u);",
        );
    }

    #[test]
    fn stores_to_workgroup_memory_nothing_reads_go() {
        rewrites(
            &DeadCode,
            "wg[lid.x] = 1u; wg[atomic_add(cnt[0u], 1u)] = 2u; out[0u] = 3u;",
            "atomic_add(cnt[0u], 1u); out[0u] = 3u;",
        );
        keeps(&DeadCode, "wg[lid.x] = 1u; barrier; out[lid.x] = wg[0u];");
    }

    #[test]
    fn a_program_with_nothing_dead_is_unchanged() {
        keeps(
            &DeadCode,
            "let a = inp[gid.x]; for i in 0u..4u { if (a == i) { out[i] = atomic_add(cnt[0u], 1u); } } rw[gid.x] = a;",
        );
    }

    #[test]
    fn stores_whose_index_reads_a_private_array_are_not_overwritten() {
        keeps(
            &DeadCode,
            "var a: u32[2]; out[a.[0u]] = 1u; a.[0u] = 1u; out[a.[0u]] = 2u;",
        );
    }
}
