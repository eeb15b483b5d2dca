//! Which programs the driver workarounds rewrite (see `lower/workaround.rs` for the rewrites).

use vyre_foundation::ir::{BinOp, DataType, Expr};
use vyre_foundation::validate::Validated;

use crate::workarounds::{Workaround, Workarounds};

/// Which of the patterns the workarounds rewrite with the opaque zero a program has.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Patterns {
    /// An integer `min` or `max` (`IntMinMax` rewrites it).
    pub(crate) int_min_max: bool,
    /// A 32-to-64-bit integer widening (`OpaqueWidening` rewrites it).
    pub(crate) widening: bool,
    /// A 64-bit integer division or remainder (`OpaqueDivisor` rewrites it with the opaque zero;
    /// `SoftWideDivision` needs no zero).
    pub(crate) wide_division: bool,
    /// A 64-to-32-bit integer narrowing (`OpaqueNarrowing` rewrites it).
    pub(crate) narrowing: bool,
    /// An ordering comparison of 64-bit integers (`OpaqueWideCompare` rewrites it).
    pub(crate) wide_compare: bool,
    /// An `f16` sum or difference (`OpaqueF16Sum` rewrites it).
    pub(crate) f16_sum: bool,
}

impl Patterns {
    /// The patterns of `evidence`'s program.
    pub(crate) fn of(evidence: &Validated<'_>) -> Self {
        let mut found = Self::default();
        vyre_foundation::for_each_expr(evidence.program(), |expr| match expr {
            Expr::Binary {
                op: BinOp::Min | BinOp::Max,
                lhs,
                ..
            } => found.int_min_max |= evidence.type_of(lhs).is_ok_and(|t| t.is_integer()),
            Expr::Binary {
                op: BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge,
                lhs,
                ..
            } => {
                found.wide_compare |= evidence
                    .type_of(lhs)
                    .is_ok_and(|t| t.is_integer() && t.bits() == 64);
            }
            Expr::Binary {
                op: BinOp::Add | BinOp::Sub,
                lhs,
                ..
            } => found.f16_sum |= evidence.type_of(lhs).is_ok_and(|t| t == DataType::F16),
            Expr::Binary {
                op: BinOp::Div | BinOp::Rem,
                lhs,
                ..
            } => {
                found.wide_division |= evidence
                    .type_of(lhs)
                    .is_ok_and(|t| t.is_integer() && t.bits() == 64);
            }
            Expr::Cast { to, arg } => {
                let from = evidence.type_of(arg);
                found.widening |= from.is_ok_and(|from| is_widening(from, *to));
                found.narrowing |= from.is_ok_and(|from| is_narrowing(from, *to));
            }
            Expr::Binary { .. }
            | Expr::Lit(_)
            | Expr::Var(_)
            | Expr::Load { .. }
            | Expr::ArrayLoad { .. }
            | Expr::BufLen(_)
            | Expr::Builtin(_)
            | Expr::Unary { .. }
            | Expr::Select { .. }
            | Expr::Bitcast { .. }
            | Expr::Fma { .. }
            | Expr::Atomic { .. }
            | Expr::Subgroup { .. }
            | Expr::SubgroupShuffle { .. } => {}
        });
        found
    }

    /// Whether a workaround of `workarounds` rewrites one of these patterns with the opaque zero.
    /// The prologue loads the zero only then, so other modules bind nothing new.
    pub(crate) fn need_opaque_zero(self, workarounds: Workarounds) -> bool {
        (self.int_min_max && workarounds.contains(Workaround::IntMinMax))
            || (self.widening && workarounds.contains(Workaround::OpaqueWidening))
            || (self.wide_division && workarounds.contains(Workaround::OpaqueDivisor))
            || (self.narrowing && workarounds.contains(Workaround::OpaqueNarrowing))
            || (self.wide_compare && workarounds.contains(Workaround::OpaqueWideCompare))
            || (self.f16_sum && workarounds.contains(Workaround::OpaqueF16Sum))
    }
}

/// A 32-bit integer converted to a 64-bit one.
pub(crate) fn is_widening(from: DataType, to: DataType) -> bool {
    from.is_integer() && to.is_integer() && from.bits() < to.bits()
}

/// A 64-bit integer converted to a 32-bit one.
pub(crate) fn is_narrowing(from: DataType, to: DataType) -> bool {
    from.is_integer() && to.is_integer() && from.bits() > to.bits()
}
