//! Known trailing zeros: how many low bits of a 32-bit integer expression are zero in every
//! evaluation. Row loads ask for two (a multiple of 4, `rows`), tile transfers for a 16-byte
//! multiple (`tiles`).
//!
//! The rules hold in wrapping arithmetic, the law's (`SEMANTICS.md`): modulo 2^32 a product keeps
//! the zeros of both factors together, a sum, difference, `|` or `^` the fewer of its operands', an
//! `&` the more, a shift left by a literal `s` adds `s % 32` (shifts are masked), and `min`, `max`
//! and `select` give one of their operands. Variables count only when declared by a `let` and never
//! assigned: a loop counter or an assigned variable takes other values than its declaration's.

use vyre_foundation::ir::{BinOp, DataType, Expr, Literal, Node};
use vyre_foundation::validate::{Validated, VarId};

/// The variables whose value is known to end in zeros, from the `let`s seen so far.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct KnownZeros {
    /// `(variable, its zeros)`, for those with at least one.
    vars: Vec<(VarId, u32)>,
}

impl KnownZeros {
    /// Records what a `let` of a 32-bit integer, never assigned, declares. Called on every node
    /// in program order, so each variable is known before its uses.
    pub(crate) fn note(&mut self, evidence: &Validated<'_>, node: &Node) {
        if let Node::Let { value, .. } = node
            && let Ok(id) = evidence.node_var(node)
            && evidence
                .var(id)
                .is_ok_and(|v| !v.assigned && matches!(v.ty, DataType::U32 | DataType::I32))
        {
            let zeros = self.of(evidence, value);
            if zeros > 0 {
                self.vars.push((id, zeros));
            }
        }
    }

    /// The zeros of the variable `id`.
    pub(crate) fn var(&self, id: VarId) -> u32 {
        self.vars
            .iter()
            .find(|(v, _)| *v == id)
            .map_or(0, |&(_, zeros)| zeros)
    }

    /// The low bits of `expr` that are zero in every evaluation (32 for the literal 0).
    pub(crate) fn of(&self, evidence: &Validated<'_>, expr: &Expr) -> u32 {
        match expr {
            Expr::Lit(literal) => literal_word(*literal).map_or(0, u32::trailing_zeros),
            Expr::Var(_) => evidence.var_of(expr).map_or(0, |id| self.var(id)),
            Expr::Binary { op, lhs, rhs } => {
                let l = || self.of(evidence, lhs);
                let r = || self.of(evidence, rhs);
                match op {
                    BinOp::Mul => (l() + r()).min(32),
                    BinOp::BitAnd => l().max(r()),
                    BinOp::Add
                    | BinOp::Sub
                    | BinOp::BitOr
                    | BinOp::BitXor
                    | BinOp::Min
                    | BinOp::Max => l().min(r()),
                    BinOp::Shl => {
                        if let Expr::Lit(Literal::U32(s)) = **rhs {
                            (l() + s % 32).min(32)
                        } else {
                            l()
                        }
                    }
                    // No fact about the others' results.
                    BinOp::Div
                    | BinOp::Rem
                    | BinOp::Shr
                    | BinOp::Eq
                    | BinOp::Ne
                    | BinOp::Lt
                    | BinOp::Le
                    | BinOp::Gt
                    | BinOp::Ge
                    | BinOp::And
                    | BinOp::Or => 0,
                }
            }
            Expr::Select {
                on_true, on_false, ..
            } => self.of(evidence, on_true).min(self.of(evidence, on_false)),
            Expr::Load { .. }
            | Expr::ArrayLoad { .. }
            | Expr::BufLen(_)
            | Expr::Builtin(_)
            | Expr::Unary { .. }
            | Expr::Cast { .. }
            | Expr::Bitcast { .. }
            | Expr::Fma { .. }
            | Expr::Atomic { .. }
            | Expr::Subgroup { .. }
            | Expr::SubgroupShuffle { .. } => 0,
        }
    }
}

/// The bits of a 32-bit integer literal (an index is `u32` or `i32`), `None` for any other.
pub(crate) fn literal_word(literal: Literal) -> Option<u32> {
    match literal {
        Literal::U32(v) => Some(v),
        Literal::I32(v) => Some(v as u32),
        Literal::Bool(_)
        | Literal::F32(_)
        | Literal::F16(_)
        | Literal::U64(_)
        | Literal::I64(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vyre_foundation::ir::{BufferDecl, Program};

    /// The zeros of `expr` stored after `lets`, as the analysis sees them.
    fn zeros(lets: Vec<Node>, expr: Expr) -> u32 {
        let mut body = lets;
        body.push(Node::store("out", expr, Expr::u32(0)));
        let program = Program::new(
            vec![BufferDecl::output("out", 0, DataType::U32).with_count(64)],
            [64, 1, 1],
            body,
        );
        let evidence = vyre_foundation::validate(&program).expect("valid");
        let mut known = KnownZeros::default();
        let mut found = None;
        vyre_foundation::for_each_node(&program.body, |node| {
            known.note(&evidence, node);
            if let Node::Store { index, .. } = node {
                found = Some(known.of(&evidence, index));
            }
        });
        found.expect("the store")
    }

    #[test]
    fn products_shifts_and_sums_keep_their_zeros() {
        let g = Expr::gid_x;
        assert_eq!(zeros(vec![], Expr::u32(0)), 32);
        assert_eq!(zeros(vec![], Expr::u32(24)), 3);
        assert_eq!(zeros(vec![], Expr::mul(g(), Expr::u32(12))), 2);
        assert_eq!(zeros(vec![], Expr::mul(Expr::u32(4), Expr::u32(6))), 3);
        assert_eq!(zeros(vec![], Expr::shl(g(), Expr::u32(35))), 3);
        assert_eq!(
            zeros(
                vec![],
                Expr::add(Expr::shl(g(), Expr::u32(4)), Expr::u32(8))
            ),
            3
        );
        assert_eq!(zeros(vec![], Expr::add(g(), Expr::u32(8))), 0);
        assert_eq!(zeros(vec![], Expr::bit_and(g(), Expr::u32(0xffff_fff0))), 4);
        assert_eq!(zeros(vec![], Expr::div(Expr::u32(64), Expr::u32(2))), 0);
    }

    #[test]
    fn only_lets_never_assigned_carry_zeros() {
        let kept = vec![Node::let_bind("b", Expr::mul(Expr::gid_x(), Expr::u32(16)))];
        assert_eq!(zeros(kept, Expr::add(Expr::var("b"), Expr::u32(32))), 4);
        let assigned = vec![
            Node::let_bind("b", Expr::mul(Expr::gid_x(), Expr::u32(16))),
            Node::assign("b", Expr::add(Expr::var("b"), Expr::u32(1))),
        ];
        assert_eq!(zeros(assigned, Expr::var("b")), 0);
    }
}
