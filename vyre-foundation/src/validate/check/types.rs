//! `expr_type`: the type of an expression from its variables' types, without a checker.

use crate::ir::{DataType, Expr, Literal, Program};

/// The type of a validated expression, given the types of the variables in scope.
///
/// A convenience for tools that hold one expression and the types of its variables, without the
/// program's evidence; on an expression of a program [`crate::validate()`] accepted it never returns
/// `None`. Backends do not use it: they read each expression's type from the evidence
/// ([`crate::validate::Validated::type_of`]), which is what to prefer whenever the program was
/// validated. It re-derives types from names, so on an unvalidated program it answers `None` rather
/// than reporting why; use [`crate::validate()`] for that.
#[must_use]
pub fn expr_type(
    expr: &Expr,
    program: &Program,
    var_type: &dyn Fn(&str) -> Option<DataType>,
) -> Option<DataType> {
    match expr {
        Expr::Lit(Literal::Bool(_)) => Some(DataType::Bool),
        Expr::Lit(lit) => Some(lit.ty()),
        // A private array's `var_type` is its element type.
        Expr::Var(name) | Expr::ArrayLoad { array: name, .. } => var_type(name),
        Expr::Load { buffer, .. } | Expr::Atomic { buffer, .. } => {
            program.buffer(buffer).map(|b| b.element)
        }
        Expr::BufLen(_) | Expr::Builtin(_) => Some(DataType::U32),
        Expr::Binary { op, lhs, rhs } => op.result_type(
            expr_type(lhs, program, var_type)?,
            expr_type(rhs, program, var_type)?,
        ),
        Expr::Unary { op, arg } => op.result_type(expr_type(arg, program, var_type)?),
        Expr::Select { on_true, .. } => expr_type(on_true, program, var_type),
        Expr::Cast { to, .. } | Expr::Bitcast { to, .. } => Some(*to),
        Expr::Fma { .. } => Some(DataType::F32),
        Expr::Subgroup { op, arg } => op.result_type(expr_type(arg, program, var_type)?),
        Expr::SubgroupShuffle { value, .. } => expr_type(value, program, var_type),
    }
}
