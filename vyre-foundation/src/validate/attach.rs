//! Evidence that can be kept: what validation proved about a program, owned and keyed by position
//! (naga's `ModuleInfo` is the model), and attached again to an equal program in one walk.
//!
//! A [`Validated`] borrows its program and looks facts up by the address of each expression and
//! statement, so it cannot outlive a dispatch. [`Validated::to_evidence`] keeps the facts by
//! *position* instead, with a copy of the program they are about. Positions are the program's
//! canonical order: statements in [`crate::for_each_node`] order, and within each statement its
//! expressions ([`crate::ir::Node::exprs`]) each followed by the expressions below it
//! ([`crate::for_each_subexpr`]). [`Evidence::attach`] walks another program in that order beside
//! the kept copy, checks at every step that the two agree (same statement or expression, same
//! operator, names, literal bits, types, and as many children), and records the other program's
//! addresses: a `Validated` of that program, without checking a rule again. A program that differs
//! anywhere is refused with [`StaleEvidence`], so kept evidence never describes another program.
//!
//! ```
//! use vyre_foundation::ir::{BufferDecl, DataType, Expr, Node, Program};
//!
//! let program = Program::new(
//!     vec![BufferDecl::output("out", 0, DataType::U32).with_count(4)],
//!     [4, 1, 1],
//!     vec![Node::store("out", Expr::gid_x(), Expr::add(Expr::gid_x(), Expr::u32(1)))],
//! );
//! let kept = vyre_foundation::validate(&program)?.to_evidence();
//! // Later, for an equal program (the same one built again, say): no validation, one walk.
//! let again = program.clone();
//! let validated = kept.attach(&again)?;
//! let Node::Store { value, .. } = &again.body[0] else { unreachable!() };
//! assert_eq!(validated.type_of(value)?, DataType::U32);
//! // Any difference is refused.
//! let mut other = program.clone();
//! other.body.push(Node::store("out", Expr::u32(0), Expr::u32(2)));
//! assert!(kept.attach(&other).is_err());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::sync::Arc;

use crate::ir::{Expr, Node, Program};

use super::evidence::{AddrTable, BufferUse, ExprFacts, NodeFacts, Validated, VarFacts, address};
use crate::ir::Features;

/// What validation proved about one program, owned: its facts by position and the program itself.
/// Cheap to clone (both are shared).
#[derive(Clone, Debug)]
pub struct Evidence {
    program: Arc<Program>,
    facts: Arc<Facts>,
}

/// The facts of one program by position (see the module docs).
#[derive(Debug)]
pub(crate) struct Facts {
    pub(crate) exprs: Vec<ExprFacts>,
    pub(crate) nodes: Vec<NodeFacts>,
    pub(crate) vars: Vec<VarFacts>,
    pub(crate) buffers: Vec<BufferUse>,
    pub(crate) features: Features,
}

/// Kept evidence was offered a program it is not about: the message says where they differ.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StaleEvidence {
    what: String,
}

impl std::fmt::Display for StaleEvidence {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the kept evidence is about another program ({}). Fix: validate this program (`vyre_foundation::validate`), or attach the evidence only to a program equal to the one it was made from.",
            self.what
        )
    }
}

impl std::error::Error for StaleEvidence {}

fn stale(what: impl Into<String>) -> StaleEvidence {
    StaleEvidence { what: what.into() }
}

/// Every statement of `program` in canonical order, and every expression.
fn canonical(program: &Program) -> (Vec<&Node>, Vec<&Expr>) {
    let mut nodes = Vec::new();
    let mut exprs = Vec::new();
    crate::for_each_node(&program.body, |node| {
        nodes.push(node);
        for expr in node.exprs() {
            crate::for_each_subexpr(expr, |e| exprs.push(e));
        }
    });
    (nodes, exprs)
}

impl Evidence {
    /// The program this evidence is about.
    #[must_use]
    pub fn program(&self) -> &Program {
        &self.program
    }

    /// The kept program itself, shared.
    #[must_use]
    pub fn shared_program(&self) -> &Arc<Program> {
        &self.program
    }

    /// The optional device features the program uses.
    #[must_use]
    pub fn features(&self) -> Features {
        self.facts.features
    }

    /// This evidence as a [`Validated`] of `program`, which must equal the program it was made
    /// from: one walk that compares the two and records `program`'s addresses.
    ///
    /// # Errors
    ///
    /// [`StaleEvidence`] naming the first difference when `program` is another program.
    pub fn attach<'p>(&self, program: &'p Program) -> Result<Validated<'p>, StaleEvidence> {
        let kept = &*self.program;
        if kept.workgroup_size != program.workgroup_size {
            return Err(stale("another workgroup size"));
        }
        if kept.buffers != program.buffers {
            return Err(stale("other buffer declarations"));
        }
        let (kept_nodes, kept_exprs) = canonical(kept);
        let (nodes, exprs) = canonical(program);
        if kept_nodes.len() != nodes.len() || kept_exprs.len() != exprs.len() {
            return Err(stale("another number of statements or expressions"));
        }
        if kept_nodes.len() != self.facts.nodes.len() || kept_exprs.len() != self.facts.exprs.len()
        {
            return Err(stale("facts of another shape"));
        }
        let same = std::ptr::eq(kept, program);
        let mut node_table = AddrTable::new();
        for (i, (a, b)) in kept_nodes.iter().zip(&nodes).enumerate() {
            if !same && !same_node(a, b) {
                return Err(stale(format!("statement {i} differs")));
            }
            node_table.push(address(*b), self.facts.nodes[i]);
        }
        let mut expr_table = AddrTable::new();
        for (i, (a, b)) in kept_exprs.iter().zip(&exprs).enumerate() {
            if !same && !same_expr(a, b) {
                return Err(stale(format!("expression {i} differs")));
            }
            expr_table.push(address(*b), self.facts.exprs[i]);
        }
        Ok(Validated::new(
            program,
            expr_table.finish(),
            node_table.finish(),
            self.facts.vars.clone(),
            self.facts.buffers.clone(),
            self.facts.features,
        ))
    }
}

impl Validated<'_> {
    /// The facts kept by position, with a copy of the program: evidence that outlives this borrow
    /// and attaches to any equal program ([`Evidence::attach`]).
    #[must_use]
    pub fn to_evidence(&self) -> Evidence {
        let program = self.program();
        let (nodes, exprs) = canonical(program);
        // Every statement and expression of a validated program has facts. A gap (only a bug of
        // the checker could leave one) leaves fewer facts than positions, and `attach` then refuses
        // every program rather than shift facts onto the wrong expressions.
        let facts = Facts {
            exprs: exprs.iter().filter_map(|e| self.expr(e).ok()).collect(),
            nodes: nodes.iter().filter_map(|n| self.node(n).ok()).collect(),
            vars: self.vars().to_vec(),
            buffers: self.buffer_uses().to_vec(),
            features: self.features(),
        };
        Evidence {
            program: Arc::new(program.clone()),
            facts: Arc::new(facts),
        }
    }
}

/// The same statement, children aside (they are compared at their own positions).
fn same_node(a: &Node, b: &Node) -> bool {
    match (a, b) {
        (Node::Let { name: x, .. }, Node::Let { name: y, .. })
        | (Node::Assign { name: x, .. }, Node::Assign { name: y, .. })
        | (Node::Store { buffer: x, .. }, Node::Store { buffer: y, .. })
        | (Node::ArrayStore { array: x, .. }, Node::ArrayStore { array: y, .. }) => x == y,
        (
            Node::PrivateArray {
                name: x,
                element: e1,
                len: l1,
            },
            Node::PrivateArray {
                name: y,
                element: e2,
                len: l2,
            },
        ) => x == y && e1 == e2 && l1 == l2,
        (Node::Tile { name: x, tile: t1 }, Node::Tile { name: y, tile: t2 }) => x == y && t1 == t2,
        (
            Node::TileLoad {
                tile: t1,
                buffer: b1,
                layout: l1,
                ..
            },
            Node::TileLoad {
                tile: t2,
                buffer: b2,
                layout: l2,
                ..
            },
        )
        | (
            Node::TileStore {
                tile: t1,
                buffer: b1,
                layout: l1,
                ..
            },
            Node::TileStore {
                tile: t2,
                buffer: b2,
                layout: l2,
                ..
            },
        ) => t1 == t2 && b1 == b2 && l1 == l2,
        (
            Node::TileMultiplyAdd {
                target: d1,
                a: a1,
                b: b1,
                c: c1,
            },
            Node::TileMultiplyAdd {
                target: d2,
                a: a2,
                b: b2,
                c: c2,
            },
        ) => d1 == d2 && a1 == a2 && b1 == b2 && c1 == c2,
        (
            Node::If {
                then: t1,
                otherwise: o1,
                ..
            },
            Node::If {
                then: t2,
                otherwise: o2,
                ..
            },
        ) => t1.len() == t2.len() && o1.len() == o2.len(),
        (
            Node::Loop {
                var: x, body: p, ..
            },
            Node::Loop {
                var: y, body: q, ..
            },
        ) => x == y && p.len() == q.len(),
        (Node::While { body: p, .. }, Node::While { body: q, .. })
        | (Node::Block(p), Node::Block(q)) => p.len() == q.len(),
        (Node::Barrier, Node::Barrier)
        | (Node::Return, Node::Return)
        | (Node::Break, Node::Break)
        | (Node::Continue, Node::Continue) => true,
        (
            Node::Atomic {
                op: o1,
                buffer: b1,
                expected: e1,
                ..
            },
            Node::Atomic {
                op: o2,
                buffer: b2,
                expected: e2,
                ..
            },
        ) => o1 == o2 && b1 == b2 && e1.is_some() == e2.is_some(),
        (
            Node::Let { .. }
            | Node::Assign { .. }
            | Node::Store { .. }
            | Node::PrivateArray { .. }
            | Node::ArrayStore { .. }
            | Node::Tile { .. }
            | Node::TileLoad { .. }
            | Node::TileStore { .. }
            | Node::TileMultiplyAdd { .. }
            | Node::If { .. }
            | Node::Loop { .. }
            | Node::While { .. }
            | Node::Block(_)
            | Node::Barrier
            | Node::Return
            | Node::Break
            | Node::Continue
            | Node::Atomic { .. },
            _,
        ) => false,
    }
}

/// The same expression, children aside (they are compared at their own positions).
fn same_expr(a: &Expr, b: &Expr) -> bool {
    match (a, b) {
        (Expr::Lit(x), Expr::Lit(y)) => x == y,
        (Expr::Var(x), Expr::Var(y))
        | (Expr::Load { buffer: x, .. }, Expr::Load { buffer: y, .. })
        | (Expr::ArrayLoad { array: x, .. }, Expr::ArrayLoad { array: y, .. })
        | (Expr::BufLen(x), Expr::BufLen(y)) => x == y,
        (Expr::Builtin(x), Expr::Builtin(y)) => x == y,
        (Expr::Binary { op: x, .. }, Expr::Binary { op: y, .. }) => x == y,
        (Expr::Unary { op: x, .. }, Expr::Unary { op: y, .. }) => x == y,
        (Expr::Cast { to: x, .. }, Expr::Cast { to: y, .. })
        | (Expr::Bitcast { to: x, .. }, Expr::Bitcast { to: y, .. }) => x == y,
        (Expr::Subgroup { op: x, .. }, Expr::Subgroup { op: y, .. }) => x == y,
        (Expr::Select { .. }, Expr::Select { .. })
        | (Expr::Fma { .. }, Expr::Fma { .. })
        | (Expr::SubgroupShuffle { .. }, Expr::SubgroupShuffle { .. }) => true,
        (
            Expr::Atomic {
                op: o1,
                buffer: b1,
                expected: e1,
                ..
            },
            Expr::Atomic {
                op: o2,
                buffer: b2,
                expected: e2,
                ..
            },
        ) => o1 == o2 && b1 == b2 && e1.is_some() == e2.is_some(),
        (
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
            | Expr::SubgroupShuffle { .. },
            _,
        ) => false,
    }
}

#[cfg(test)]
mod tests {
    use crate::ir::{BufferDecl, DataType, Expr, Node, Program};

    fn program(k: u32) -> Program {
        Program::new(
            vec![
                BufferDecl::read("a", 0, DataType::U32).with_count(8),
                BufferDecl::output("out", 1, DataType::U32).with_count(8),
            ],
            [8, 1, 1],
            vec![
                Node::let_bind("x", Expr::load("a", Expr::gid_x())),
                Node::if_then(
                    Expr::lt(Expr::var("x"), Expr::u32(k)),
                    vec![Node::store("out", Expr::gid_x(), Expr::var("x"))],
                ),
            ],
        )
    }

    #[test]
    fn evidence_attached_to_an_equal_program_gives_the_validators_facts() {
        let original = program(5);
        let validated = crate::validate(&original).expect("valid");
        let kept = validated.to_evidence();
        let copy = program(5);
        let attached = kept.attach(&copy).expect("equal");
        let (original_nodes, original_exprs) = super::canonical(&original);
        let (copy_nodes, copy_exprs) = super::canonical(&copy);
        assert_eq!(copy_exprs.len(), 7);
        for (a, b) in original_exprs.iter().zip(&copy_exprs) {
            assert_eq!(validated.expr(a).ok(), attached.expr(b).ok());
            // The copy's expressions are not the original's: the facts were attached to them.
            assert!(validated.expr(b).is_err());
        }
        for (a, b) in original_nodes.iter().zip(&copy_nodes) {
            assert_eq!(validated.node(a).ok(), attached.node(b).ok());
        }
        assert_eq!(attached.vars(), validated.vars());
        assert_eq!(attached.buffer_uses(), validated.buffer_uses());
        assert_eq!(attached.features(), validated.features());
    }

    #[test]
    fn every_kind_of_difference_is_refused() {
        let kept = crate::validate(&program(5)).expect("valid").to_evidence();
        assert!(kept.attach(kept.program()).is_ok());
        let literal = program(6);
        let mut renamed = program(5);
        renamed.buffers[0].name = "b".to_string();
        let mut wider = program(5);
        wider.workgroup_size = [16, 1, 1];
        let mut longer = program(5);
        longer.body.push(Node::barrier());
        let mut other_op = program(5);
        other_op.body[1] = Node::if_then(
            Expr::le(Expr::var("x"), Expr::u32(5)),
            vec![Node::store("out", Expr::gid_x(), Expr::var("x"))],
        );
        for other in [literal, renamed, wider, longer, other_op] {
            let refused = kept.attach(&other).expect_err("another program");
            assert!(refused.to_string().contains("Fix:"), "{refused}");
        }
    }
}
