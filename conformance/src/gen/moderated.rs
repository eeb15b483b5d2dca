//! The float rules of comparable programs, checked on any program.
//!
//! The generator keeps comparable programs' floats exact or within the tolerance of
//! `fuzz::floats_agree` by construction (`expr.rs`): integers converted to `f32` are first reduced
//! into `[-16, 16]`, divisors and math-function arguments carry their guards, and the arguments of
//! `floor`, `ceil`, `round`, `trunc`, `fract`, `sin` and `cos` hold only exact floats. An edit of a
//! generated program (the IR reducer's) can break a rule while the program stays valid: dropping the
//! `% 17` of `f32(v1 % 17)` gives a float whose neighbours are 128 apart, and backends may then
//! legally disagree (SEMANTICS.md section 7). [`keeps_float_rules`] says whether a program still
//! follows every rule, so the reducer only keeps candidates whose disagreement is still a bug.

use vyre_foundation::ir::{BinOp, DataType, Expr, Literal, UnOp};
use vyre_foundation::validate::Validated;

use crate::r#gen::expr::{MAGNITUDE_BOUND, guarded, magnifies};

/// True when every float of `validated`'s program is computed the way comparable programs compute
/// floats (see the module documentation).
#[must_use]
pub fn keeps_float_rules(validated: &Validated<'_>) -> bool {
    let mut ok = true;
    vyre_foundation::for_each_expr(validated.program(), |e| {
        ok = ok && expr_follows_rules(validated, e);
    });
    ok
}

fn expr_follows_rules(validated: &Validated<'_>, expr: &Expr) -> bool {
    let ty = |e: &Expr| validated.type_of(e).ok();
    match expr {
        Expr::Cast { to, arg } if to.is_float() => match ty(arg) {
            Some(t) if t.is_integer() => moderate_int(arg),
            Some(_) => true,
            None => false,
        },
        Expr::Cast { arg, .. } => !is_float(ty(arg)),
        Expr::Bitcast { to, arg } => !to.is_float() && !is_float(ty(arg)),
        Expr::Binary { op, lhs, rhs } if is_float(ty(lhs)) => match op {
            BinOp::Div => guarded(None, rhs),
            BinOp::Rem => false,
            op => !op.is_comparison(),
        },
        Expr::Unary { op, arg } if op.is_float_math() => {
            let exact_arg = match op {
                UnOp::Sin | UnOp::Cos => fract_argument(arg),
                op if magnifies(*op) => Some(&**arg),
                _ => None,
            };
            guarded(Some(*op), arg) && exact_arg.is_none_or(|a| exact(validated, a))
        }
        _ => true,
    }
}

fn is_float(ty: Option<DataType>) -> bool {
    ty.is_some_and(DataType::is_float)
}

/// An integer the generator reduced into `[-16, 16]`: `x % k` for a literal `k` with `0 < |k| <= 17`,
/// or a literal of at most 16 in magnitude.
fn moderate_int(expr: &Expr) -> bool {
    let small = |lit: &Literal, bound: u32| match *lit {
        Literal::U32(v) => v <= bound,
        Literal::I32(v) => v.unsigned_abs() <= bound,
        Literal::U64(v) => v <= u64::from(bound),
        Literal::I64(v) => v.unsigned_abs() <= u64::from(bound),
        _ => false,
    };
    match expr {
        Expr::Lit(lit) => small(lit, MAGNITUDE_BOUND),
        Expr::Binary {
            op: BinOp::Rem,
            rhs,
            ..
        } => {
            matches!(&**rhs, Expr::Lit(lit) if small(lit, MAGNITUDE_BOUND + 1) && lit.to_bits() != 0)
        }
        _ => false,
    }
}

/// The `x` of a `sin`/`cos` guard `fract(x) * 6.0 - 3.0`.
fn fract_argument(arg: &Expr) -> Option<&Expr> {
    let Expr::Binary {
        op: BinOp::Sub,
        lhs,
        ..
    } = arg
    else {
        return None;
    };
    let Expr::Binary {
        op: BinOp::Mul,
        lhs: fract,
        ..
    } = &**lhs
    else {
        return None;
    };
    match &**fract {
        Expr::Unary {
            op: UnOp::Fract,
            arg,
        } => Some(arg),
        _ => None,
    }
}

/// True when `expr` holds only floats every backend computes alike: no float variables, no loads of
/// writable float buffers (they may hold inexact values), no division, no math functions, no `f16`
/// arithmetic and no `f32` rounded to `f16` except the round trips' (see [`rounds_exactly`]).
fn exact(validated: &Validated<'_>, expr: &Expr) -> bool {
    let ty = |e: &Expr| validated.type_of(e).ok();
    let here = match expr {
        Expr::Var(_) => !is_float(ty(expr)),
        Expr::Load { buffer, .. } => validated
            .program()
            .buffer(buffer)
            .is_none_or(|b| !(b.element.is_float() && b.access.is_writable())),
        Expr::Binary { op: BinOp::Div, .. } => !is_float(ty(expr)),
        Expr::Binary { op, .. } if ty(expr) == Some(DataType::F16) => {
            op.class() != vyre_foundation::ir::BinClass::Arithmetic
        }
        Expr::Cast {
            to: DataType::F16,
            arg,
        } => ty(arg) != Some(DataType::F32) || rounds_exactly(arg),
        Expr::Unary { op, .. } => op.class() != vyre_foundation::ir::UnClass::Transcendental,
        _ => true,
    };
    here && expr.children().all(|c| exact(validated, c))
}

/// True for the `f32` operands whose conversion to `f16` every backend rounds alike, because the
/// operand itself is exact and a conversion is correctly rounded (SEMANTICS.md section 6): a
/// literal or its negation, a load (of a read-only buffer: [`exact`] checks the load itself), a
/// `select` of such values (a row load picks one of two lanes), and the widening of an `f16`
/// (`f16(f32(h))`, whose `h` [`exact`] checks). These are the operands of
/// the generator's round trips (`round_trips.rs`); the `f32` arithmetic a backend may round either
/// way, or contract, is not among them.
fn rounds_exactly(arg: &Expr) -> bool {
    match arg {
        Expr::Lit(_) | Expr::Load { .. } | Expr::Cast { .. } => true,
        Expr::Select {
            on_true, on_false, ..
        } => rounds_exactly(on_true) && rounds_exactly(on_false),
        Expr::Unary { op: UnOp::Neg, arg } => matches!(&**arg, Expr::Lit(_)),
        _ => false,
    }
}
