//! The translation of expressions.

use naga::{
    BinaryOperator as B, Block, Expression, Handle, Literal as NagaLiteral, MathFunction as M,
    ScalarKind,
};
use vyre_driver::BackendError;
use vyre_foundation::ir::{BinOp, Builtin, DataType, Expr, Literal, UnOp, f16_bits_to_f32};

use super::func::FunctionBuilder;
use super::{Local, Lowerer, Value};

impl Lowerer<'_, '_> {
    /// Lowers `expr` into `block`, in evaluation order.
    pub(crate) fn expr(&mut self, block: &mut Block, expr: &Expr) -> Result<Value, BackendError> {
        let facts = self.evidence.expr(expr)?;
        let ty = facts.ty;
        let value = match expr {
            Expr::Lit(lit) => self.literal(block, *lit),
            Expr::Var(_) => {
                let id = self.evidence.var_of(expr)?;
                match self.local(id)? {
                    Local::Pointer(pointer) => self.fb.load(block, pointer),
                    Local::Value(value) => value,
                }
            }
            Expr::Load { index, .. } => {
                let b = self.evidence.buffer_of(expr)?.index();
                if let Some(word) = self.lane_load(block, b, index) {
                    return Ok((self.word_to_value(block, b, word), ty));
                }
                let proven = self.bounds.proven(self.evidence, b, index);
                if let Some(value) = self.row_load(block, b, index, proven)? {
                    return Ok((value, ty));
                }
                let (index, index_ty) = self.expr(block, index)?;
                let target = super::access::Target {
                    buffer: b,
                    index,
                    index_ty,
                    proven,
                };
                self.guarded_load(block, target)
            }
            Expr::ArrayLoad { index, .. } => {
                let id = self.evidence.var_of(expr)?;
                self.array_load(block, id, index)?
            }
            Expr::BufLen(_) => {
                let b = self.evidence.buffer_of(expr)?.index();
                self.prologue.lengths[b]
            }
            Expr::Builtin(b) => self.builtin(*b)?,
            Expr::Binary { op, lhs, rhs } => {
                let l = self.expr(block, lhs)?;
                let r = self.expr(block, rhs)?;
                self.binary(block, *op, l, r)?
            }
            Expr::Unary { op, arg } => {
                let a = self.expr(block, arg)?;
                self.unary(block, *op, a)
            }
            Expr::Select {
                cond,
                on_true,
                on_false,
            } => {
                let (c, _) = self.expr(block, cond)?;
                let (t, _) = self.expr(block, on_true)?;
                let (f, _) = self.expr(block, on_false)?;
                self.fb.select(block, c, t, f)
            }
            Expr::Cast { to, arg } => {
                let a = self.expr(block, arg)?;
                self.cast(block, a, *to)?
            }
            Expr::Bitcast { to, arg } => {
                let (a, from) = self.expr(block, arg)?;
                if from == *to {
                    a
                } else {
                    let kind = scalar_kind(*to);
                    self.fb.expr(
                        block,
                        Expression::As {
                            expr: a,
                            kind,
                            convert: None,
                        },
                    )
                }
            }
            Expr::Fma { a, b, c } => {
                let a = self.expr(block, a)?.0;
                let b = self.expr(block, b)?.0;
                let c = self.expr(block, c)?.0;
                self.fb.math(block, M::Fma, &[a, b, c])
            }
            Expr::Atomic {
                op,
                index,
                expected,
                value,
                ..
            } => {
                let b = self.evidence.buffer_of(expr)?.index();
                let proven = self.bounds.proven(self.evidence, b, index);
                let (index, index_ty) = self.expr(block, index)?;
                let expected = match expected.as_deref() {
                    Some(e) => Some(self.expr(block, e)?.0),
                    None => None,
                };
                let (value, _) = self.expr(block, value)?;
                let target = super::access::Target {
                    buffer: b,
                    index,
                    index_ty,
                    proven,
                };
                self.guarded_atomic(block, *op, target, expected, value)
            }
            Expr::Subgroup { op, arg } => self.subgroup_op(block, *op, arg)?,
            Expr::SubgroupShuffle { value, lane } => self.subgroup_shuffle(block, value, lane)?,
        };
        Ok((value, ty))
    }

    fn builtin(&self, b: Builtin) -> Result<Handle<Expression>, BackendError> {
        let [gid, lid, wid, nwg] = &self.prologue.builtins;
        Ok(match b {
            Builtin::GlobalId(a) => gid[a.index()],
            Builtin::LocalId(a) => lid[a.index()],
            Builtin::WorkgroupId(a) => wid[a.index()],
            Builtin::NumWorkgroups(a) => nwg[a.index()],
            Builtin::SubgroupSize => self.subgroup_ids()?.size,
            Builtin::SubgroupInvocationId => self.subgroup_ids()?.lane,
        })
    }

    /// A literal. Non-finite floats are built from their bits: naga rejects NaN and infinite literals.
    pub(crate) fn literal(&mut self, block: &mut Block, lit: Literal) -> Handle<Expression> {
        let literal = match lit {
            Literal::Bool(b) => NagaLiteral::Bool(b),
            Literal::U32(v) => NagaLiteral::U32(v),
            Literal::I32(v) => NagaLiteral::I32(v),
            Literal::F32(bits) if f32::from_bits(bits).is_finite() => {
                NagaLiteral::F32(f32::from_bits(bits))
            }
            Literal::F32(bits) => {
                let word = self.fb.u32(block, bits);
                return self.fb.expr(
                    block,
                    Expression::As {
                        expr: word,
                        kind: ScalarKind::Float,
                        convert: None,
                    },
                );
            }
            Literal::F16(bits) if half::f16::from_bits(bits).is_finite() => {
                NagaLiteral::F16(half::f16::from_bits(bits))
            }
            Literal::F16(bits) => {
                // An infinity or NaN: the f32 of the same value, converted. WGSL has no 16-bit
                // integer to bitcast from, so a NaN's payload is the conversion's (SEMANTICS.md).
                let wide = Literal::F32(f16_bits_to_f32(bits).to_bits());
                let wide = self.literal(block, wide);
                return self.fb.expr(
                    block,
                    Expression::As {
                        expr: wide,
                        kind: ScalarKind::Float,
                        convert: Some(2),
                    },
                );
            }
            Literal::U64(v) => NagaLiteral::U64(v),
            Literal::I64(v) => NagaLiteral::I64(v),
        };
        self.fb.expr(block, Expression::Literal(literal))
    }

    fn binary(
        &mut self,
        block: &mut Block,
        op: BinOp,
        (l, ty): Value,
        (r, _): Value,
    ) -> Result<Handle<Expression>, BackendError> {
        let simple = |fb: &mut FunctionBuilder, block: &mut Block, naga_op: B| {
            fb.binary(block, naga_op, l, r)
        };
        Ok(match op {
            BinOp::Add | BinOp::Sub => {
                let naga_op = if op == BinOp::Add {
                    B::Add
                } else {
                    B::Subtract
                };
                let sum = simple(&mut self.fb, block, naga_op);
                return self.opaque_f16_sum(block, sum, ty);
            }
            BinOp::Mul => simple(&mut self.fb, block, B::Multiply),
            BinOp::BitAnd => simple(&mut self.fb, block, B::And),
            BinOp::BitOr => simple(&mut self.fb, block, B::InclusiveOr),
            BinOp::BitXor => simple(&mut self.fb, block, B::ExclusiveOr),
            BinOp::And => simple(&mut self.fb, block, B::LogicalAnd),
            BinOp::Or => simple(&mut self.fb, block, B::LogicalOr),
            BinOp::Eq => simple(&mut self.fb, block, B::Equal),
            BinOp::Ne => simple(&mut self.fb, block, B::NotEqual),
            BinOp::Lt => return self.ordering(block, B::Less, l, r, ty),
            BinOp::Le => return self.ordering(block, B::LessEqual, l, r, ty),
            BinOp::Gt => return self.ordering(block, B::Greater, l, r, ty),
            BinOp::Ge => return self.ordering(block, B::GreaterEqual, l, r, ty),
            BinOp::Div | BinOp::Rem => return self.division(block, op, l, r, ty),
            BinOp::Shl | BinOp::Shr => {
                // The shift amount is taken mod the width, 32 or 64 (SEMANTICS.md section 4). A
                // literal amount is reduced here, which also keeps lavapipe (Mesa 22.3) from
                // shifting a 64-bit value by `K & 63` wrongly when the constant `K` has its top bit
                // set (`1u64 << (4294967264u & 63u)` gave 1 there, where 96u was right).
                let amount = match self.fb.function.expressions[r] {
                    Expression::Literal(NagaLiteral::U32(k)) => {
                        self.fb.u32(block, k & (ty.bits() - 1))
                    }
                    _ => {
                        let mask = self.fb.u32(block, ty.bits() - 1);
                        self.fb.binary(block, B::And, r, mask)
                    }
                };
                let naga_op = if op == BinOp::Shl {
                    B::ShiftLeft
                } else {
                    B::ShiftRight
                };
                self.fb.binary(block, naga_op, l, amount)
            }
            BinOp::Min | BinOp::Max => return self.min_max(block, op, l, r, ty),
        })
    }

    /// Integer division and remainder with the divisor replaced by 1 where WGSL's rules would be
    /// undefined (`x / 0 = x`, `x % 0 = 0`, `MIN / -1 = MIN`, `MIN % -1 = 0`), made explicit here rather
    /// than left to the driver or to naga's backend.
    fn division(
        &mut self,
        block: &mut Block,
        op: BinOp,
        l: Handle<Expression>,
        r: Handle<Expression>,
        ty: DataType,
    ) -> Result<Handle<Expression>, BackendError> {
        let naga_op = if op == BinOp::Div {
            B::Divide
        } else {
            B::Modulo
        };
        let divisor = match ty {
            DataType::U32 => {
                let zero = self.fb.u32(block, 0);
                let one = self.fb.u32(block, 1);
                let is_zero = self.fb.binary(block, B::Equal, r, zero);
                self.fb.select(block, is_zero, one, r)
            }
            DataType::I32 => {
                let zero = self
                    .fb
                    .expr(block, Expression::Literal(NagaLiteral::I32(0)));
                let one = self
                    .fb
                    .expr(block, Expression::Literal(NagaLiteral::I32(1)));
                let minus_one = self
                    .fb
                    .expr(block, Expression::Literal(NagaLiteral::I32(-1)));
                let min = self
                    .fb
                    .expr(block, Expression::Literal(NagaLiteral::I32(i32::MIN)));
                let is_zero = self.fb.binary(block, B::Equal, r, zero);
                let lhs_min = self.fb.binary(block, B::Equal, l, min);
                let rhs_neg = self.fb.binary(block, B::Equal, r, minus_one);
                let overflow = self.fb.binary(block, B::LogicalAnd, lhs_min, rhs_neg);
                let bad = self.fb.binary(block, B::LogicalOr, is_zero, overflow);
                self.fb.select(block, bad, one, r)
            }
            DataType::U64 => {
                let zero = self.lit(block, NagaLiteral::U64(0));
                let one = self.lit(block, NagaLiteral::U64(1));
                let is_zero = self.fb.binary(block, B::Equal, r, zero);
                self.fb.select(block, is_zero, one, r)
            }
            DataType::I64 => {
                let zero = self.lit(block, NagaLiteral::I64(0));
                let one = self.lit(block, NagaLiteral::I64(1));
                let minus_one = self.lit(block, NagaLiteral::I64(-1));
                let min = self.lit(block, NagaLiteral::I64(i64::MIN));
                let is_zero = self.fb.binary(block, B::Equal, r, zero);
                let lhs_min = self.fb.binary(block, B::Equal, l, min);
                let rhs_neg = self.fb.binary(block, B::Equal, r, minus_one);
                let overflow = self.fb.binary(block, B::LogicalAnd, lhs_min, rhs_neg);
                let bad = self.fb.binary(block, B::LogicalOr, is_zero, overflow);
                self.fb.select(block, bad, one, r)
            }
            // IEEE division needs no guard; validation rejects `div` and `rem` on bools.
            DataType::F32 | DataType::F16 | DataType::Bool => r,
        };
        let divisor = self.opaque_divisor(block, divisor, ty)?;
        if let Some(soft) = self.soft_wide_division(block, op, l, (divisor, r), ty) {
            return Ok(soft);
        }
        Ok(self.fb.binary(block, naga_op, l, divisor))
    }

    fn unary(&mut self, block: &mut Block, op: UnOp, (a, ty): Value) -> Handle<Expression> {
        use naga::UnaryOperator as U;
        match op {
            UnOp::Neg => self.fb.expr(
                block,
                Expression::Unary {
                    op: U::Negate,
                    expr: a,
                },
            ),
            UnOp::BitNot => self.fb.expr(
                block,
                Expression::Unary {
                    op: U::BitwiseNot,
                    expr: a,
                },
            ),
            UnOp::Not => self.fb.expr(
                block,
                Expression::Unary {
                    op: U::LogicalNot,
                    expr: a,
                },
            ),
            UnOp::Abs => self.abs(block, a, ty),
            UnOp::Popcount => self.fb.math(block, M::CountOneBits, &[a]),
            UnOp::Clz => self.fb.math(block, M::CountLeadingZeros, &[a]),
            UnOp::Ctz => self.fb.math(block, M::CountTrailingZeros, &[a]),
            UnOp::ReverseBits => self.fb.math(block, M::ReverseBits, &[a]),
            UnOp::Sqrt => self.fb.math(block, M::Sqrt, &[a]),
            UnOp::InverseSqrt => self.fb.math(block, M::InverseSqrt, &[a]),
            UnOp::Exp => self.fb.math(block, M::Exp, &[a]),
            UnOp::Exp2 => self.fb.math(block, M::Exp2, &[a]),
            UnOp::Log => self.fb.math(block, M::Log, &[a]),
            UnOp::Log2 => self.fb.math(block, M::Log2, &[a]),
            UnOp::Sin => self.fb.math(block, M::Sin, &[a]),
            UnOp::Cos => self.fb.math(block, M::Cos, &[a]),
            UnOp::Floor => self.fb.math(block, M::Floor, &[a]),
            UnOp::Ceil => self.fb.math(block, M::Ceil, &[a]),
            UnOp::Round => self.fb.math(block, M::Round, &[a]),
            UnOp::Trunc => self.fb.math(block, M::Trunc, &[a]),
            UnOp::Fract => self.fb.math(block, M::Fract, &[a]),
        }
    }

    fn lit(&mut self, block: &mut Block, literal: NagaLiteral) -> Handle<Expression> {
        self.fb.expr(block, Expression::Literal(literal))
    }

    /// `abs`: identity on unsigned integers, wrapping on signed ones (`abs(MIN) = MIN`), IEEE on
    /// floats.
    fn abs(
        &mut self,
        block: &mut Block,
        a: Handle<Expression>,
        ty: DataType,
    ) -> Handle<Expression> {
        match ty {
            DataType::U32 | DataType::U64 => a,
            DataType::I32 | DataType::I64 => {
                let zero = self.zero(block, ty);
                let negative = self.fb.binary(block, B::Less, a, zero);
                let negated = self.fb.binary(block, B::Subtract, zero, a);
                self.fb.select(block, negative, negated, a)
            }
            DataType::F32 | DataType::F16 => self.fb.math(block, M::Abs, &[a]),
            // Validation rejects `abs` of a bool; the identity keeps this match total.
            DataType::Bool => a,
        }
    }

    /// Value conversion (SEMANTICS.md section 6).
    fn cast(
        &mut self,
        block: &mut Block,
        (a, from): Value,
        to: DataType,
    ) -> Result<Handle<Expression>, BackendError> {
        if from == to {
            return Ok(a);
        }
        if super::analysis::workaround::is_widening(from, to)
            && let Some(wide) = self.opaque_widening(block, a, from, to)?
        {
            return Ok(wide);
        }
        if to == DataType::F16
            && from != DataType::Bool
            && let Some(rounded) = self.f16_rounded(block, a, from)
        {
            // Exactly an f16 value already: the conversion cannot round it (or fail to).
            return Ok(self.convert(block, rounded, to));
        }
        Ok(match Conversion::of(from, to) {
            Conversion::FromBool => {
                let one = self.one(block, to);
                let zero = self.zero(block, to);
                self.fb.select(block, a, one, zero)
            }
            Conversion::FloatToBool => {
                // `!(x == 0.0)`: NaN converts to true.
                let zero = self.zero(block, from);
                let is_zero = self.fb.binary(block, B::Equal, a, zero);
                self.fb.expr(
                    block,
                    Expression::Unary {
                        op: naga::UnaryOperator::LogicalNot,
                        expr: is_zero,
                    },
                )
            }
            Conversion::IntToBool => {
                let zero = self.zero(block, from);
                self.fb.binary(block, B::NotEqual, a, zero)
            }
            Conversion::FloatToInt => {
                // Saturate at the bounds representable in the source float before converting
                // (never rely on the driver's out-of-range behaviour).
                let (lo, hi) = float_to_int_bounds(from, to);
                let lo = self.lit(block, lo);
                let hi = self.lit(block, hi);
                let clamped = self.fb.math(block, M::Clamp, &[a, lo, hi]);
                self.convert(block, clamped, to)
            }
            Conversion::Narrow => {
                // Truncation: keep the low word as a u64, then convert it, in range, to u32. Written
                // so even on a literal it never asks WGSL for an out-of-range constant conversion
                // (a shader-creation error), and reinterpreted for an i32 target.
                let bits = self.reinterpret(block, a, scalar_kind(from), ScalarKind::Uint);
                let mask = self.lit(block, NagaLiteral::U64(0xffff_ffff));
                let low = self.fb.binary(block, B::And, bits, mask);
                let word = self.convert(block, low, DataType::U32);
                let word = self.opaque_narrowing(block, word)?;
                self.reinterpret(block, word, ScalarKind::Uint, scalar_kind(to))
            }
            Conversion::SignExtend => {
                // Sign extension written as a zero extension and two shifts, `(i64(u64(bitcast<u32>
                // (x))) << 32) >> 32` (an arithmetic shift back). lavapipe (Mesa 22.3.6, LLVM 15)
                // compares a value made by SPIR-V's sign extension wrongly: `i64(0i) < 1li` and
                // `i64(-1i) < 0li` were false there, while `==`, `>`, `min` and `max` were right and
                // this form compares right (found by the fuzzer, 2026-12-04).
                let bits = self.reinterpret(block, a, ScalarKind::Sint, ScalarKind::Uint);
                let wide = self.fb.expr(
                    block,
                    Expression::As {
                        expr: bits,
                        kind: ScalarKind::Uint,
                        convert: Some(to.size_bytes() as u8),
                    },
                );
                let signed = self.reinterpret(block, wide, ScalarKind::Uint, ScalarKind::Sint);
                let half = self.lit(block, NagaLiteral::U32(from.bits()));
                let up = self.fb.binary(block, B::ShiftLeft, signed, half);
                let extended = self.fb.binary(block, B::ShiftRight, up, half);
                self.reinterpret(block, extended, ScalarKind::Sint, scalar_kind(to))
            }
            Conversion::ZeroExtend => {
                // Zero extension of an unsigned source: widening in the source's signedness (sign- or zero-extension), then a
                // reinterpretation: naga picks the extension by the target's signedness, which
                // would sign-extend a u32 into an i64.
                let resized = self.fb.expr(
                    block,
                    Expression::As {
                        expr: a,
                        kind: scalar_kind(from),
                        convert: Some(to.size_bytes() as u8),
                    },
                );
                self.reinterpret(block, resized, scalar_kind(from), scalar_kind(to))
            }
            // Integer to float, float to float, and integers of one width.
            Conversion::Plain => self.convert(block, a, to),
        })
    }

    /// `a`, of kind `from`, reinterpreted as the integer kind `kind` of its width.
    pub(crate) fn reinterpret(
        &mut self,
        block: &mut Block,
        a: Handle<Expression>,
        from: ScalarKind,
        kind: ScalarKind,
    ) -> Handle<Expression> {
        if from == kind {
            return a;
        }
        self.fb.expr(
            block,
            Expression::As {
                expr: a,
                kind,
                convert: None,
            },
        )
    }

    pub(crate) fn convert(
        &mut self,
        block: &mut Block,
        a: Handle<Expression>,
        to: DataType,
    ) -> Handle<Expression> {
        self.fb.expr(
            block,
            Expression::As {
                expr: a,
                kind: scalar_kind(to),
                convert: Some(to.size_bytes() as u8),
            },
        )
    }

    fn one(&mut self, block: &mut Block, ty: DataType) -> Handle<Expression> {
        let literal = match ty {
            DataType::Bool => NagaLiteral::Bool(true),
            DataType::I32 => NagaLiteral::I32(1),
            DataType::F32 => NagaLiteral::F32(1.0),
            DataType::U32 => NagaLiteral::U32(1),
            DataType::F16 => NagaLiteral::F16(half::f16::ONE),
            DataType::U64 => NagaLiteral::U64(1),
            DataType::I64 => NagaLiteral::I64(1),
        };
        self.fb.expr(block, Expression::Literal(literal))
    }
}

/// How a value of one type becomes a value of another (SEMANTICS.md section 6), one case per way
/// the lowering writes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Conversion {
    /// From `bool`: a select of one and zero.
    FromBool,
    /// A float to `bool`: `!(x == 0)`, so NaN is true.
    FloatToBool,
    /// An integer to `bool`: `x != 0`.
    IntToBool,
    /// A float to an integer: saturated first.
    FloatToInt,
    /// A wider integer to a narrower one: the low word.
    Narrow,
    /// A signed integer to a wider one.
    SignExtend,
    /// An unsigned integer to a wider one.
    ZeroExtend,
    /// One conversion instruction: integer to float, float to float, integers of one width.
    Plain,
}

impl Conversion {
    fn of(from: DataType, to: DataType) -> Self {
        use DataType as T;
        match (from, to) {
            (T::Bool, _) => Conversion::FromBool,
            (T::F32 | T::F16, T::Bool) => Conversion::FloatToBool,
            (T::U32 | T::I32 | T::U64 | T::I64, T::Bool) => Conversion::IntToBool,
            (T::F32 | T::F16, T::U32 | T::I32 | T::U64 | T::I64) => Conversion::FloatToInt,
            (T::U32 | T::I32 | T::U64 | T::I64, T::U32 | T::I32 | T::U64 | T::I64) => {
                match from.bits().cmp(&to.bits()) {
                    std::cmp::Ordering::Greater => Conversion::Narrow,
                    std::cmp::Ordering::Less if from.is_signed() => Conversion::SignExtend,
                    std::cmp::Ordering::Less => Conversion::ZeroExtend,
                    std::cmp::Ordering::Equal => Conversion::Plain,
                }
            }
            (T::U32 | T::I32 | T::U64 | T::I64 | T::F32 | T::F16, T::F32 | T::F16) => {
                Conversion::Plain
            }
        }
    }
}

/// The clamp bounds of a conversion from the float type `from` to the integer type `to`: the
/// values nearest the integer range that are exact in `from` (SEMANTICS.md section 6). Every finite
/// f16 (at most 65504 in magnitude) fits every integer type but the unsigned ones below zero.
fn float_to_int_bounds(from: DataType, to: DataType) -> (NagaLiteral, NagaLiteral) {
    if from == DataType::F16 {
        let lo = if to.is_signed() {
            half::f16::MIN
        } else {
            half::f16::ZERO
        };
        return (NagaLiteral::F16(lo), NagaLiteral::F16(half::f16::MAX));
    }
    let (lo, hi) = match to {
        DataType::I32 => (-2147483648.0f32, 2147483520.0f32),
        DataType::I64 => (-9.223372e18f32, 9.2233715e18f32),
        DataType::U64 => (0.0, 1.8446743e19f32),
        // Callers convert to integers only; the others keep this match total.
        DataType::U32 | DataType::Bool | DataType::F32 | DataType::F16 => (0.0, 4294967040.0),
    };
    (NagaLiteral::F32(lo), NagaLiteral::F32(hi))
}

pub(crate) fn scalar_kind(ty: DataType) -> ScalarKind {
    match ty {
        DataType::Bool => ScalarKind::Bool,
        DataType::I32 => ScalarKind::Sint,
        DataType::F32 | DataType::F16 => ScalarKind::Float,
        DataType::U32 | DataType::U64 => ScalarKind::Uint,
        DataType::I64 => ScalarKind::Sint,
    }
}
