//! What statements and expressions read and change: the questions the flow passes (`dce`, `cse`,
//! `licm`, `unroll`) ask before they remove, merge or move code.
//!
//! Names are enough to answer them inside one scope: the validator forbids a `let` or a loop
//! variable from shadowing a variable in scope (`VariableRedeclared`), so a name read anywhere in a
//! body means one variable throughout the region where it is visible. Buffers have one name each.

use std::collections::BTreeSet;

use crate::ir::{BufferAccess, Expr, Node};
use crate::validate::Validated;
use crate::{for_each_node, for_each_subexpr};

/// Everything a run of statements may read or change, over all of its nested bodies.
#[derive(Debug, Default)]
pub(super) struct Effects {
    /// Variables read by some `Var`, private arrays read by some `array_load`, and tiles read by a
    /// tile store or multiply-add.
    pub(super) reads: BTreeSet<String>,
    /// Variables declared by a `let` or a loop, private arrays and tiles.
    pub(super) declares: BTreeSet<String>,
    /// Variables written by an `assign`, private arrays written by an `array_store`, and tiles
    /// written by a tile load or multiply-add.
    pub(super) assigns: BTreeSet<String>,
    /// Buffers read by a `load` or a tile load.
    pub(super) loads: BTreeSet<String>,
    /// Buffers written by a `store` or a tile store.
    pub(super) stores: BTreeSet<String>,
    /// Buffers updated by an atomic (statement or expression).
    pub(super) atomics: BTreeSet<String>,
    /// Some `barrier` runs.
    pub(super) barrier: bool,
    /// Some `return`, `break` or `continue` runs (whichever loop it leaves).
    pub(super) exits: bool,
}

impl Effects {
    /// The effects of `body` and everything nested in it.
    pub(super) fn of_body(body: &[Node]) -> Self {
        let mut effects = Self::default();
        for_each_node(body, |node| effects.add_node_itself(node));
        effects
    }

    /// The effects of `node` and everything nested in it.
    pub(super) fn of_node(node: &Node) -> Self {
        Self::of_body(std::slice::from_ref(node))
    }

    /// Adds what `node` itself does (its own expressions, not its nested bodies).
    fn add_node_itself(&mut self, node: &Node) {
        for expr in node.exprs() {
            self.add_expr(expr);
        }
        match node {
            Node::Let { name, .. }
            | Node::Loop { var: name, .. }
            | Node::PrivateArray { name, .. }
            | Node::Tile { name, .. } => {
                self.declares.insert(name.clone());
            }
            // A tile is a variable to the flow passes too: a load or multiply-add writes it, a
            // store or multiply-add reads it.
            Node::TileLoad { tile, buffer, .. } => {
                self.assigns.insert(tile.clone());
                self.loads.insert(buffer.clone());
            }
            Node::TileStore { tile, buffer, .. } => {
                self.reads.insert(tile.clone());
                self.stores.insert(buffer.clone());
            }
            Node::TileMultiplyAdd { target, a, b, c } => {
                self.reads.extend([a.clone(), b.clone(), c.clone()]);
                self.assigns.insert(target.clone());
            }
            // A private array is a variable to the flow passes: a store to one element changes
            // "the array", so every load of it is read anew (coarse, never wrong).
            Node::Assign { name, .. } | Node::ArrayStore { array: name, .. } => {
                self.assigns.insert(name.clone());
            }
            Node::Store { buffer, .. } => {
                self.stores.insert(buffer.clone());
            }
            Node::Atomic { buffer, .. } => {
                self.atomics.insert(buffer.clone());
            }
            Node::Barrier => self.barrier = true,
            Node::Return | Node::Break | Node::Continue => self.exits = true,
            Node::If { .. } | Node::Block(_) | Node::While { .. } => {}
        }
    }

    /// Adds what evaluating `expr` reads and changes.
    pub(super) fn add_expr(&mut self, expr: &Expr) {
        for_each_subexpr(expr, |e| match e {
            Expr::Var(name) | Expr::ArrayLoad { array: name, .. } => {
                self.reads.insert(name.clone());
            }
            Expr::Load { buffer, .. } => {
                self.loads.insert(buffer.clone());
            }
            Expr::Atomic { buffer, .. } => {
                self.atomics.insert(buffer.clone());
            }
            Expr::Lit(_)
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

    /// True when some atomic runs.
    pub(super) fn any_atomic(&self) -> bool {
        !self.atomics.is_empty()
    }
}

/// The buffers of a program as the flow passes see them: which never change during a dispatch and
/// which some atomic uses. Looked up by name in declaration order: programs declare a handful.
#[derive(Debug)]
pub(super) struct Buffers<'p> {
    buffers: Vec<(&'p str, Use)>,
}

/// What the flow passes know of one buffer.
#[derive(Clone, Copy, Debug)]
struct Use {
    /// A `read` or `uniform` buffer: no invocation writes it.
    stable: bool,
    /// Some atomic updates it. `SEMANTICS.md` section 8: a plain load or store of such a buffer
    /// is an atomic load or store, so other invocations may change it between two loads of this
    /// one, or read it between two stores, without a race.
    atomic: bool,
    /// Some `load` or atomic reads it.
    read: bool,
}

/// What an undeclared name is taken to be: the worst case of every question.
const UNKNOWN: Use = Use {
    stable: false,
    atomic: true,
    read: true,
};

impl<'p> Buffers<'p> {
    /// The facts of `validated`'s buffers, from its evidence ([`crate::validate::BufferUse`]). A
    /// pass never adds a load or an atomic, so they stay true of what it makes.
    pub(super) fn of(validated: &Validated<'p>) -> Self {
        let uses = validated.buffer_uses();
        let buffers = validated
            .program()
            .buffers
            .iter()
            .enumerate()
            .map(|(i, decl)| {
                // Evidence for every buffer is a validation guarantee; without it, assume the
                // worst.
                let (atomic, read) = uses
                    .get(i)
                    .map_or((true, true), |u| (u.atomic, u.loaded || u.atomic));
                let stable = match decl.access {
                    BufferAccess::Read | BufferAccess::Uniform => true,
                    BufferAccess::ReadWrite | BufferAccess::Output | BufferAccess::Workgroup => {
                        false
                    }
                };
                (
                    decl.name.as_str(),
                    Use {
                        stable,
                        atomic,
                        read,
                    },
                )
            })
            .collect();
        Self { buffers }
    }

    fn get(&self, buffer: &str) -> Use {
        self.buffers
            .iter()
            .find(|(name, _)| *name == buffer)
            .map_or(UNKNOWN, |&(_, u)| u)
    }

    /// True for a `read` or `uniform` buffer, which nothing writes during a dispatch.
    pub(super) fn stable(&self, buffer: &str) -> bool {
        self.get(buffer).stable
    }

    /// True when some atomic in the program updates `buffer`.
    pub(super) fn atomic(&self, buffer: &str) -> bool {
        self.get(buffer).atomic
    }

    /// True when some load or atomic in the program reads `buffer`.
    pub(super) fn read(&self, buffer: &str) -> bool {
        self.get(buffer).read
    }
}

/// True for an expression with no operands: a literal, a variable, a builtin or a `buf_len`.
pub(super) fn is_leaf(expr: &Expr) -> bool {
    matches!(
        expr,
        Expr::Lit(_) | Expr::Var(_) | Expr::Builtin(_) | Expr::BufLen(_)
    )
}

/// The number of expression nodes in `expr`.
pub(super) fn expr_size(expr: &Expr) -> usize {
    let mut n = 0;
    for_each_subexpr(expr, |_| n += 1);
    n
}

/// The number of statements and expression nodes in `body`: what unrolling multiplies.
pub(super) fn body_size(body: &[Node]) -> usize {
    let mut n = 0;
    for_each_node(body, |node| {
        n += 1 + node.exprs().map(expr_size).sum::<usize>();
    });
    n
}

/// True when `expr` only reads literals: it reads no variable, buffer or builtin.
pub(super) fn is_constant(expr: &Expr) -> bool {
    let mut constant = true;
    for_each_subexpr(expr, |e| {
        constant &= !matches!(
            e,
            Expr::Var(_)
                | Expr::Load { .. }
                | Expr::ArrayLoad { .. }
                | Expr::BufLen(_)
                | Expr::Builtin(_)
                | Expr::Atomic { .. }
                | Expr::Subgroup { .. }
                | Expr::SubgroupShuffle { .. }
        );
    });
    constant
}
