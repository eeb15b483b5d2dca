//! Which programs the driver workarounds rewrite (see `lower/workaround.rs` for the rewrites).

use vyre_foundation::ir::{BinOp, DataType, Expr};
use vyre_foundation::validate::Validated;

use crate::workarounds::{Workaround, Workarounds};

/// Whether `evidence`'s program has a value a workaround of `workarounds` rewrites with the opaque
/// zero: an integer `min` or `max` under `IntMinMax`, a 32-to-64-bit integer widening under
/// `OpaqueWidening`. The prologue loads the zero only then, so other modules bind nothing new.
pub(crate) fn needs_opaque_zero(evidence: &Validated<'_>, workarounds: Workarounds) -> bool {
    let min_max = workarounds.contains(Workaround::IntMinMax);
    let widening = workarounds.contains(Workaround::OpaqueWidening);
    if !min_max && !widening {
        return false;
    }
    let mut needed = false;
    vyre_foundation::for_each_expr(evidence.program(), |expr| {
        let rewritten = match expr {
            Expr::Binary {
                op: BinOp::Min | BinOp::Max,
                lhs,
                ..
            } => min_max && evidence.type_of(lhs).is_ok_and(|t| t.is_integer()),
            Expr::Cast { to, arg } => {
                widening
                    && evidence
                        .type_of(arg)
                        .is_ok_and(|from| is_widening(from, *to))
            }
            Expr::Binary { .. }
            | Expr::Lit(_)
            | Expr::Var(_)
            | Expr::Load { .. }
            | Expr::BufLen(_)
            | Expr::Builtin(_)
            | Expr::Unary { .. }
            | Expr::Select { .. }
            | Expr::Bitcast { .. }
            | Expr::Fma { .. }
            | Expr::Atomic { .. }
            | Expr::Subgroup { .. }
            | Expr::SubgroupShuffle { .. } => false,
        };
        needed |= rewritten;
    });
    needed
}

/// A 32-bit integer converted to a 64-bit one.
pub(crate) fn is_widening(from: DataType, to: DataType) -> bool {
    from.is_integer() && to.is_integer() && from.bits() < to.bits()
}
