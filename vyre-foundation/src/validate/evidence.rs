//! What validation proves about a program, kept for the backends that compile it.
//!
//! [`crate::validate()`] returns a [`Validated`]: the program it checked, borrowed, with the facts the
//! checker established on the way (the model is naga's `ModuleInfo`). Backends compile from it and
//! never resolve a name again:
//!
//! - every expression's type and whether it is the same for every invocation of a workgroup;
//! - the variable ([`VarId`]) each `Var`, `let`, `assign` and loop names, and the buffer
//!   ([`BufferId`]) each load, store, atomic and `buf_len` names;
//! - for every statement, whether control flow reaching it is uniform (every barrier is: that is a
//!   validation rule);
//! - per variable its type and uniformity, per buffer how it is used.
//!
//! Facts are keyed by the identity (the address) of the expression or statement inside the borrowed
//! program. While a `Validated` lives the program cannot change, so the evidence cannot go stale:
//!
//! ```compile_fail,E0502
//! use vyre_foundation::ir::{BufferDecl, DataType, Expr, Node, Program};
//!
//! let mut program = Program::new(
//!     vec![BufferDecl::output("out", 0, DataType::U32).with_count(1)],
//!     [1, 1, 1],
//!     vec![Node::store("out", Expr::u32(0), Expr::u32(7))],
//! );
//! let validated = vyre_foundation::validate(&program).unwrap();
//! // error[E0502]: the program is borrowed by its evidence and cannot be changed.
//! program.body.push(Node::store("missing", Expr::u32(0), Expr::u32(1)));
//! let _ = validated.program();
//! ```
//!
//! An equal copy of the program is a different program to the evidence: asking about an expression
//! that is not part of the validated program gives [`MissingEvidence`], never another expression's
//! facts.

use crate::ir::{BufferDecl, DataType, Expr, Features, Node, Program};

/// A variable of a validated program. Every `let` and every loop variable is its own variable, in
/// declaration order, so a shadowing `let` gets a new id though it reuses a name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct VarId(u32);

impl VarId {
    /// The variable's position in [`Validated::vars`].
    #[must_use]
    pub fn index(self) -> usize {
        self.0 as usize
    }

    pub(crate) fn new(index: usize) -> Self {
        // The checker numbers at most one variable per statement, and a program with 2^32
        // statements does not fit in memory as `Node`s; saturating keeps this total regardless.
        Self(u32::try_from(index).unwrap_or(u32::MAX))
    }
}

/// A buffer of a validated program: its position in `Program::buffers`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BufferId(u32);

impl BufferId {
    /// The buffer's position in `Program::buffers` (declaration order).
    #[must_use]
    pub fn index(self) -> usize {
        self.0 as usize
    }

    pub(crate) fn new(index: usize) -> Self {
        Self(u32::try_from(index).unwrap_or(u32::MAX))
    }
}

/// What a name in an expression or statement refers to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Resolved {
    /// The expression or statement names nothing (a literal, an `if`, a barrier, ...).
    Nothing,
    /// A variable: read by `Var`, declared by `let` and loops, written by `assign`.
    Var(VarId),
    /// A buffer: read by `load` and `buf_len`, written by `store`, updated by an atomic.
    Buffer(BufferId),
}

/// What validation proved about one expression.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ExprFacts {
    /// The expression's type.
    pub ty: DataType,
    /// True when the value is the same for every invocation of a workgroup.
    pub uniform: bool,
    /// True when the value is the same for every lane of each subgroup (`uniform`, or made of
    /// `local_id(x) / subgroup_size()`, subgroup reductions and such values; SEMANTICS.md 9a).
    pub subgroup_uniform: bool,
    /// The variable or buffer the expression names.
    pub resolved: Resolved,
}

/// What validation proved about one statement.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct NodeFacts {
    /// The variable the statement declares or assigns, or the buffer it stores to.
    pub resolved: Resolved,
    /// True when every invocation of a workgroup reaches this statement together (no enclosing `if`
    /// or loop with a non-uniform condition, no earlier non-uniform `return`). Always true for a
    /// barrier.
    pub uniform_control: bool,
    /// The tiles a tile statement names: the tile of a `tile` declaration, load or store;
    /// `[target, a, b, c]` of a multiply-add. All `None` for other statements.
    pub tiles: [Option<VarId>; 4],
}

/// What validation proved about one variable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct VarFacts {
    /// The variable's type, fixed at its declaration.
    pub ty: DataType,
    /// True when the variable holds the same value for every invocation of a workgroup throughout.
    pub uniform: bool,
    /// True when the variable holds the same value for every lane of each subgroup throughout
    /// (implied by `uniform`).
    pub subgroup_uniform: bool,
    /// True for a loop variable (it cannot be assigned).
    pub loop_var: bool,
    /// True when some `assign` writes the variable after its declaration.
    pub assigned: bool,
    /// For a private array ([`crate::ir::Node::PrivateArray`]): its element count, `ty` being the
    /// element type. `None` for a `let` or loop variable.
    pub array: Option<u32>,
    /// For a tile ([`crate::ir::Node::Tile`]): its type, `ty` being the element type. `None` for
    /// every other variable.
    pub tile: Option<crate::ir::TileType>,
}

/// How the body uses one buffer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct BufferUse {
    /// Some `load` reads it.
    pub loaded: bool,
    /// Some `store` writes it.
    pub stored: bool,
    /// Some atomic updates it.
    pub atomic: bool,
    /// Some `buf_len` reads its length.
    pub length: bool,
}

/// A program [`crate::validate()`] accepted, with the facts it proved. See the module docs.
#[derive(Debug)]
pub struct Validated<'p> {
    program: &'p Program,
    exprs: AddrTable<ExprFacts>,
    nodes: AddrTable<NodeFacts>,
    vars: Vec<VarFacts>,
    buffers: Vec<BufferUse>,
    features: Features,
}

/// Asked for the facts of an expression, statement, variable or buffer that is not part of the
/// validated program. Only a backend bug gets this: everything reached from
/// [`Validated::program`] has facts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MissingEvidence {
    what: &'static str,
}

impl std::fmt::Display for MissingEvidence {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "validation holds no facts for this {}: it is not part of the validated program. Fix: this is a bug in the backend; it must compile only what `Validated::program()` holds, with that program's evidence.",
            self.what
        )
    }
}

impl std::error::Error for MissingEvidence {}

impl<'p> Validated<'p> {
    pub(crate) fn new(
        program: &'p Program,
        exprs: AddrTable<ExprFacts>,
        nodes: AddrTable<NodeFacts>,
        vars: Vec<VarFacts>,
        buffers: Vec<BufferUse>,
        features: Features,
    ) -> Self {
        Self {
            program,
            exprs,
            nodes,
            vars,
            buffers,
            features,
        }
    }

    /// The optional device features the program uses (subgroup operations, `f16`, 64-bit
    /// integers): a backend whose device lacks one must refuse the program before running it.
    ///
    /// ```
    /// use vyre_foundation::ir::{BufferDecl, DataType, Expr, Features, Node, Program};
    ///
    /// let program = Program::new(
    ///     vec![BufferDecl::output("o", 0, DataType::U32).with_count(4)],
    ///     [64, 1, 1],
    ///     vec![Node::store("o", Expr::gid_x(), Expr::u32(1))],
    /// );
    /// let validated = vyre_foundation::validate(&program)?;
    /// assert_eq!(validated.features(), Features::NONE);
    /// # Ok::<(), vyre_foundation::validate::ValidationErrors>(())
    /// ```
    #[must_use]
    pub fn features(&self) -> Features {
        self.features
    }

    /// The validated program.
    #[must_use]
    pub fn program(&self) -> &'p Program {
        self.program
    }

    /// The facts of `expr`, an expression of [`Validated::program`].
    ///
    /// # Errors
    ///
    /// [`MissingEvidence`] when `expr` is not part of the validated program (an equal copy is not).
    pub fn expr(&self, expr: &Expr) -> Result<ExprFacts, MissingEvidence> {
        self.exprs
            .get(address(expr))
            .ok_or(MissingEvidence { what: "expression" })
    }

    /// The facts of `node`, a statement of [`Validated::program`].
    ///
    /// # Errors
    ///
    /// [`MissingEvidence`] when `node` is not part of the validated program.
    pub fn node(&self, node: &Node) -> Result<NodeFacts, MissingEvidence> {
        self.nodes
            .get(address(node))
            .ok_or(MissingEvidence { what: "statement" })
    }

    /// The type of `expr`.
    ///
    /// # Errors
    ///
    /// [`MissingEvidence`] when `expr` is not part of the validated program.
    pub fn type_of(&self, expr: &Expr) -> Result<DataType, MissingEvidence> {
        self.expr(expr).map(|f| f.ty)
    }

    /// The variable `expr` (a `Var`) reads.
    ///
    /// # Errors
    ///
    /// [`MissingEvidence`] when `expr` is not a `Var` of the validated program.
    pub fn var_of(&self, expr: &Expr) -> Result<VarId, MissingEvidence> {
        match self.expr(expr)?.resolved {
            Resolved::Var(id) => Ok(id),
            Resolved::Nothing | Resolved::Buffer(_) => Err(MissingEvidence { what: "variable" }),
        }
    }

    /// The buffer `expr` (a load, an atomic or a `buf_len`) names.
    ///
    /// # Errors
    ///
    /// [`MissingEvidence`] when `expr` names no buffer of the validated program.
    pub fn buffer_of(&self, expr: &Expr) -> Result<BufferId, MissingEvidence> {
        match self.expr(expr)?.resolved {
            Resolved::Buffer(id) => Ok(id),
            Resolved::Nothing | Resolved::Var(_) => Err(MissingEvidence { what: "buffer" }),
        }
    }

    /// The variable `node` (a `let`, an `assign` or a loop) declares or writes.
    ///
    /// # Errors
    ///
    /// [`MissingEvidence`] when `node` names no variable of the validated program.
    pub fn node_var(&self, node: &Node) -> Result<VarId, MissingEvidence> {
        match self.node(node)?.resolved {
            Resolved::Var(id) => Ok(id),
            Resolved::Nothing | Resolved::Buffer(_) => Err(MissingEvidence { what: "variable" }),
        }
    }

    /// The tiles `node` names (see [`NodeFacts::tiles`]).
    ///
    /// # Errors
    ///
    /// [`MissingEvidence`] when `node` is not a statement of the validated program.
    pub fn node_tiles(&self, node: &Node) -> Result<[Option<VarId>; 4], MissingEvidence> {
        Ok(self.node(node)?.tiles)
    }

    /// The buffer `node` (a `store`) writes.
    ///
    /// # Errors
    ///
    /// [`MissingEvidence`] when `node` names no buffer of the validated program.
    pub fn node_buffer(&self, node: &Node) -> Result<BufferId, MissingEvidence> {
        match self.node(node)?.resolved {
            Resolved::Buffer(id) => Ok(id),
            Resolved::Nothing | Resolved::Var(_) => Err(MissingEvidence { what: "buffer" }),
        }
    }

    /// Every variable's facts, indexed by [`VarId::index`].
    #[must_use]
    pub fn vars(&self) -> &[VarFacts] {
        &self.vars
    }

    /// The facts of variable `id`.
    ///
    /// # Errors
    ///
    /// [`MissingEvidence`] for an id of another program's evidence.
    pub fn var(&self, id: VarId) -> Result<VarFacts, MissingEvidence> {
        self.vars
            .get(id.index())
            .copied()
            .ok_or(MissingEvidence { what: "variable" })
    }

    /// The declaration of buffer `id`.
    ///
    /// # Errors
    ///
    /// [`MissingEvidence`] for an id of another program's evidence.
    pub fn buffer(&self, id: BufferId) -> Result<&'p BufferDecl, MissingEvidence> {
        self.program
            .buffers
            .get(id.index())
            .ok_or(MissingEvidence { what: "buffer" })
    }

    /// How the body uses each buffer, in declaration order.
    #[must_use]
    pub fn buffer_uses(&self) -> &[BufferUse] {
        &self.buffers
    }
}

/// The key of a fact: the address of the expression or statement it is about.
pub(crate) fn address<T>(item: &T) -> usize {
    std::ptr::from_ref(item).addr()
}

/// Facts keyed by address: appended in walk order, then sorted once for binary search. A later
/// entry for the same address replaces an earlier one (the checker walks a loop body again when an
/// earlier `return` made its second iteration non-uniform; the second walk's facts are the true ones).
#[derive(Debug)]
pub(crate) struct AddrTable<T> {
    entries: Vec<(usize, T)>,
}

impl<T: Copy> AddrTable<T> {
    pub(crate) fn new() -> Self {
        Self {
            entries: Vec::new(),
        }
    }

    pub(crate) fn push(&mut self, key: usize, facts: T) {
        self.entries.push((key, facts));
    }

    pub(crate) fn clear(&mut self) {
        self.entries.clear();
    }

    /// Sorts by address, keeping the last entry of each.
    pub(crate) fn finish(mut self) -> Self {
        // Stable: entries for one address stay in walk order. `dedup_by` hands each entry with the
        // one kept before it; a later entry for the same address overwrites the kept one.
        self.entries.sort_by_key(|&(key, _)| key);
        self.entries.dedup_by(|later, kept| {
            let same = later.0 == kept.0;
            if same {
                kept.1 = later.1;
            }
            same
        });
        self
    }

    fn get(&self, key: usize) -> Option<T> {
        self.entries
            .binary_search_by_key(&key, |&(k, _)| k)
            .ok()
            .map(|i| self.entries[i].1)
    }
}
