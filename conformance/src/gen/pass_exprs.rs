//! Pass shapes in expressions (`Feature::PassShapes`): what constant folding, strength reduction
//! and common-subexpression elimination act on, at the values where they go wrong.
//!
//! - **Constant subexpressions** over every integer operator, at edge literals: `i32::MAX + 1i`,
//!   `0u - 1u`, `x / 0`, `MIN / -1`, `MIN % -1`, shifts by 32, 33, 63 and 64 (the amount is taken
//!   mod the width), `-MIN`, `abs(MIN)`, `clz(0u)`, casts and bitcasts of literals, comparisons of
//!   literals, `select` on a literal condition, and nested (`(7i + MAX) - 3i`, `(x + 1u) + 2u`,
//!   which a folder reassociates); float sums, products and guarded quotients of literals (`1.0 /
//!   (abs(2.0) + 1.0)` rounds).
//! - **Operations by constants**: `x * C`, `x / C`, `x % C`, `x << C`, `x >> C` and `C * x` with
//!   `C` a power of two, a negative power of two, 0, 1, -1, 3, MIN or MAX, and `x` a value whose
//!   sign varies (a variable, `tid` converted, any expression).
//! - **Repeated subexpressions**: `e op e` with the same `e` twice.
//!
//! Integer arithmetic is exact on every backend, so the comparable discipline holds as for any
//! integer expression; float shapes use only what `expr.rs` allows where they stand (no f16
//! arithmetic where floats must be exact, divisors of the guarded form `abs(y) + 1`).

use vyre_foundation::ir::{BinOp, DataType, Expr, UnClass, UnOp};

use crate::r#gen::Feature;
use crate::r#gen::decode::{Ctx, TID, bin};
use crate::r#gen::edges::int_literal;
use crate::r#gen::recipe::Choices;

/// Integer constants at the values folds and strength reductions get wrong, as the low bits of a
/// `u64` (so `-1` is every bit): 0, 1, 2, -1, -2, powers of two, 3 and 7, the 32-bit and 64-bit
/// MIN and MAX, and shift amounts at and past the widths.
const CONSTANTS: [u64; 22] = [
    0,
    1,
    2,
    u64::MAX,
    u64::MAX - 1,
    4,
    8,
    16,
    1 << 31,
    0x7fff_ffff,
    0xffff_ffff,
    3,
    7,
    31,
    32,
    33,
    63,
    64,
    (-4i64) as u64,
    (-8i64) as u64,
    1 << 63,
    (1 << 63) - 1,
];

/// Constant operands of `mul`, `div` and `rem` that strength reduction rewrites or must leave
/// alone: powers of two (`1 << 31` is `i32::MIN`), negative powers of two, 0, 1, 3, 7 and MAX, as
/// the low bits of a `u64`.
const FACTORS: [u64; 14] = [
    2,
    4,
    8,
    16,
    1,
    1 << 31,
    u64::MAX,
    (-2i64) as u64,
    (-4i64) as u64,
    (-8i64) as u64,
    0,
    3,
    7,
    0x7fff_ffff,
];

/// Shift amounts: small ones, and at and past the 32- and 64-bit widths (the amount is taken mod
/// the width).
const AMOUNTS: [u32; 10] = [1, 2, 4, 0, 31, 32, 33, 63, 64, 65];

/// Integer binary operators a folder must get right, shifts and comparisons apart.
const INT_OPS: [BinOp; 10] = [
    BinOp::Add,
    BinOp::Sub,
    BinOp::Mul,
    BinOp::Div,
    BinOp::Rem,
    BinOp::Min,
    BinOp::Max,
    BinOp::BitAnd,
    BinOp::BitOr,
    BinOp::BitXor,
];

/// The operators strength reduction rewrites when one operand is a constant.
const STRENGTH_OPS: [BinOp; 5] = [BinOp::Mul, BinOp::Div, BinOp::Rem, BinOp::Shl, BinOp::Shr];

impl Ctx {
    /// True when this case draws pass shapes.
    pub(crate) fn pass_shapes_on(&self) -> bool {
        self.features.has(Feature::PassShapes)
    }

    /// A pass shape of type `ty`: a constant subexpression, an operation by a constant or a
    /// repeated subexpression.
    pub(crate) fn pass_shape(&self, ch: &mut Choices<'_>, ty: DataType, depth: u32) -> Expr {
        if ty.is_float() {
            return self.float_pass_shape(ch, ty, depth);
        }
        if ty == DataType::Bool {
            return match ch.below(3) {
                0 => self.repeated(ch, ty, depth),
                _ => self.constant_compare(ch),
            };
        }
        match ch.below(5) {
            0 | 1 => self.constant_int(ch, ty, 2),
            2 | 3 => self.by_constant(ch, ty, depth),
            _ => self.repeated(ch, ty, depth),
        }
    }

    /// An integer expression of literals only, `nest` operators deep at most, now and then with
    /// one operand a variable (`(x + 1u) + 2u`, which a folder reassociates).
    fn constant_int(&self, ch: &mut Choices<'_>, ty: DataType, nest: u32) -> Expr {
        let operand = |ch: &mut Choices<'_>| {
            if nest > 0 && ch.one_in(3) {
                self.constant_int(ch, ty, nest - 1)
            } else if nest == 1 && ch.one_in(4) {
                self.edge_operand(ch, ty, 0)
            } else {
                self.pass_constant(ch, ty)
            }
        };
        match ch.below(8) {
            0 => {
                let unary = self.unary_of_constant(ch, ty);
                Expr::unary(unary, operand(ch))
            }
            1 => Expr::shl(operand(ch), self.pass_constant(ch, DataType::U32)),
            2 => Expr::shr(operand(ch), self.pass_constant(ch, DataType::U32)),
            3 => self.converted_constant(ch, ty),
            4 => {
                let cond = self.constant_compare(ch);
                Expr::select(cond, operand(ch), operand(ch))
            }
            _ => {
                let op = INT_OPS[ch.below(INT_OPS.len())];
                let lhs = operand(ch);
                bin(op, lhs, operand(ch))
            }
        }
    }

    /// A unary operator integer type `ty` has (`neg` only for signed types, the bit counts only
    /// for 32-bit ones).
    fn unary_of_constant(&self, ch: &mut Choices<'_>, ty: DataType) -> UnOp {
        let mut ops = vec![UnOp::Abs];
        if ty.is_signed() {
            ops.push(UnOp::Neg);
        }
        ops.extend(UnOp::of_class(UnClass::Bits).filter(|op| op.result_type(ty).is_some()));
        ops[ch.below(ops.len())]
    }

    /// A literal of another integer type (or a bool) converted or reinterpreted to `ty`.
    fn converted_constant(&self, ch: &mut Choices<'_>, ty: DataType) -> Expr {
        let sources: Vec<DataType> = crate::r#gen::layout::types(self.features)
            .into_iter()
            .filter(|t| *t != ty && (t.is_integer() || *t == DataType::Bool))
            .collect();
        let Some(&from) = sources.get(ch.below(sources.len())) else {
            return self.pass_constant(ch, ty);
        };
        let same_size = from.is_integer() && from.size_bytes() == ty.size_bytes();
        let value = if from == DataType::Bool {
            Expr::bool(ch.one_in(2))
        } else {
            self.pass_constant(ch, from)
        };
        if same_size && ch.one_in(2) {
            Expr::bitcast(ty, value)
        } else {
            Expr::cast(ty, value)
        }
    }

    /// A comparison of two integer constant expressions.
    fn constant_compare(&self, ch: &mut Choices<'_>) -> Expr {
        let ints: Vec<DataType> = crate::r#gen::layout::types(self.features)
            .into_iter()
            .filter(|t| t.is_integer())
            .collect();
        let ty = ints[ch.below(ints.len())];
        let ops = [
            BinOp::Eq,
            BinOp::Ne,
            BinOp::Lt,
            BinOp::Le,
            BinOp::Gt,
            BinOp::Ge,
        ];
        let op = ops[ch.below(ops.len())];
        let lhs = self.constant_int(ch, ty, 1);
        bin(op, lhs, self.pass_constant(ch, ty))
    }

    /// `x op C` (or `C * x`) for a strength-reducible `op`, `x` a value whose sign varies.
    fn by_constant(&self, ch: &mut Choices<'_>, ty: DataType, depth: u32) -> Expr {
        let op = STRENGTH_OPS[ch.below(STRENGTH_OPS.len())];
        let x = match ch.below(3) {
            // Around zero: `i32(tid) - 2i` is negative in the first invocations.
            0 if ty.is_signed() => Expr::sub(
                Expr::cast(ty, Expr::var(TID)),
                int_literal(ty, 2 + ch.below(3) as u64),
            ),
            _ => self.edge_operand(ch, ty, depth),
        };
        let word = ch.next_word() as usize;
        let c = if matches!(op, BinOp::Shl | BinOp::Shr) {
            Expr::u32(AMOUNTS[word % AMOUNTS.len()])
        } else {
            int_literal(ty, FACTORS[word % FACTORS.len()])
        };
        if op == BinOp::Mul && ch.one_in(3) {
            bin(op, c, x)
        } else {
            bin(op, x, c)
        }
    }

    /// `e op e`: the same subexpression twice (with no atomic: expressions never hold one).
    fn repeated(&self, ch: &mut Choices<'_>, ty: DataType, depth: u32) -> Expr {
        let e = self.expr(ch, ty, depth.saturating_sub(1));
        let op = if ty == DataType::Bool {
            [BinOp::And, BinOp::Or, BinOp::Eq, BinOp::Ne][ch.below(4)]
        } else if ty.is_float() {
            [BinOp::Add, BinOp::Sub, BinOp::Mul][ch.below(3)]
        } else {
            [
                BinOp::Add,
                BinOp::Sub,
                BinOp::BitXor,
                BinOp::Mul,
                BinOp::Max,
            ][ch.below(5)]
        };
        bin(op, e.clone(), e)
    }

    /// A constant of integer type `ty` from [`CONSTANTS`], or a small literal of the generator's.
    fn pass_constant(&self, ch: &mut Choices<'_>, ty: DataType) -> Expr {
        let word = ch.next_word();
        if word % 4 == 3 {
            return self.literal(ch, ty);
        }
        int_literal(ty, CONSTANTS[(word >> 2) as usize % CONSTANTS.len()])
    }

    /// A float pass shape: a sum, difference, product, `min` or `max` of literals, a guarded
    /// quotient of literals (which rounds: `1.0 / (abs(2.0) + 1.0)`), or a repeated
    /// subexpression, where the float rules allow each.
    fn float_pass_shape(&self, ch: &mut Choices<'_>, ty: DataType, depth: u32) -> Expr {
        let arithmetic = self.features.has(Feature::FloatArith);
        // As `float_forms`: no f16 arithmetic where floats must stay exact.
        let f16_exact = ty == DataType::F16 && self.exact_only();
        let quotient = self.features.has(Feature::FloatMath) && !self.exact_only();
        match ch.below(4) {
            0 | 1 if arithmetic && !f16_exact => {
                let ops = [BinOp::Add, BinOp::Sub, BinOp::Mul, BinOp::Min, BinOp::Max];
                let op = ops[ch.below(ops.len())];
                let lhs = self.literal(ch, ty);
                bin(op, lhs, self.literal(ch, ty))
            }
            2 if quotient => {
                let one = if ty == DataType::F16 {
                    Expr::f16(1.0)
                } else {
                    Expr::f32(1.0)
                };
                let num = self.literal(ch, ty);
                Expr::div(num, Expr::add(Expr::abs(self.literal(ch, ty)), one))
            }
            3 if arithmetic && !f16_exact => self.repeated(ch, ty, depth),
            _ => self.literal(ch, ty),
        }
    }
}
