//! Iterative dropping of expressions, so freeing a deep tree cannot overflow the stack.

use crate::ir::{Expr, Literal};

impl Drop for Expr {
    /// Dropping is iterative so that a pathologically deep expression (which the validator rejects)
    /// cannot overflow the stack when it is freed.
    fn drop(&mut self) {
        let mut stack: Vec<Box<Expr>> = Vec::new();
        take_children(self, &mut stack);
        while let Some(mut child) = stack.pop() {
            take_children(&mut child, &mut stack);
        }
    }
}

#[allow(clippy::vec_box)] // The boxes are moved out of the tree as they are; unboxing would copy.
fn take_children(expr: &mut Expr, stack: &mut Vec<Box<Expr>>) {
    let leaf = || Box::new(Expr::Lit(Literal::Bool(false)));
    let mut take = |slot: &mut Box<Expr>| {
        if !matches!(
            **slot,
            Expr::Lit(_) | Expr::Var(_) | Expr::BufLen(_) | Expr::Builtin(_)
        ) {
            stack.push(std::mem::replace(slot, leaf()));
        }
    };
    match expr {
        Expr::Lit(_) | Expr::Var(_) | Expr::BufLen(_) | Expr::Builtin(_) => {}
        Expr::Load { index, .. } | Expr::ArrayLoad { index, .. } => take(index),
        Expr::Binary { lhs, rhs, .. } => {
            take(lhs);
            take(rhs);
        }
        Expr::Unary { arg, .. }
        | Expr::Cast { arg, .. }
        | Expr::Bitcast { arg, .. }
        | Expr::Subgroup { arg, .. } => take(arg),
        Expr::SubgroupShuffle { value, lane } => {
            take(value);
            take(lane);
        }
        Expr::Select {
            cond,
            on_true,
            on_false,
        } => {
            take(cond);
            take(on_true);
            take(on_false);
        }
        Expr::Fma { a, b, c } => {
            take(a);
            take(b);
            take(c);
        }
        Expr::Atomic {
            index,
            expected,
            value,
            ..
        } => {
            take(index);
            if let Some(e) = expected {
                take(e);
            }
            take(value);
        }
    }
}
