//! Lowering expressions: operand registers first, in evaluation order, then the operation.

use vyre_driver::BackendError;
use vyre_foundation::ir::{AtomicOp, BinOp, DataType, Expr, Literal, SubgroupOp, UnOp};
use vyre_foundation::validate::BufferId;

use super::{Compiler, builtin_prefill, compile_error};
use crate::inst::{AtomicKind, BinKind, Block, Inst, Prefill, Reg, SubgroupKind, UnKind};

impl<'p> Compiler<'_, 'p> {
    /// The register of a leaf (literal, variable, builtin, `buf_len`), which needs no instruction.
    fn leaf(&self, e: &Expr) -> Result<Option<(Reg, DataType)>, BackendError> {
        let prefilled = |p: Prefill, ty: DataType| {
            self.prefills
                .get(&p)
                .map(|&r| Some((r, ty)))
                .ok_or_else(|| compile_error(format!("no register for {p:?}")))
        };
        match e {
            Expr::Lit(lit) => prefilled(Prefill::Const(lit.to_bits()), lit_type(*lit)),
            Expr::Builtin(b) => prefilled(builtin_prefill(*b), DataType::U32),
            Expr::BufLen(_) => {
                let id = self.evidence.buffer_of(e)?;
                prefilled(Prefill::BufLen(id.index()), DataType::U32)
            }
            Expr::Var(_) => self.var(self.evidence.var_of(e)?).map(Some),
            Expr::Load { .. }
            | Expr::ArrayLoad { .. }
            | Expr::Binary { .. }
            | Expr::Unary { .. }
            | Expr::Select { .. }
            | Expr::Cast { .. }
            | Expr::Bitcast { .. }
            | Expr::Fma { .. }
            | Expr::Atomic { .. }
            | Expr::Subgroup { .. }
            | Expr::SubgroupShuffle { .. } => Ok(None),
        }
    }

    /// Compiles `e`, returning the register that holds its value and its type.
    pub(super) fn expr(
        &mut self,
        e: &'p Expr,
        out: &mut Block,
    ) -> Result<(Reg, DataType), BackendError> {
        if let Some(leaf) = self.leaf(e)? {
            return Ok(leaf);
        }
        let dst = self.temp();
        let ty = self.op_into(e, dst, out)?;
        Ok((dst, ty))
    }

    /// Compiles `e` so that its value ends up in `dst`.
    pub(super) fn expr_into(
        &mut self,
        e: &'p Expr,
        dst: Reg,
        out: &mut Block,
    ) -> Result<DataType, BackendError> {
        if let Some((src, ty)) = self.leaf(e)? {
            if src != dst {
                out.insts.push(Inst::Copy { dst, src });
            }
            return Ok(ty);
        }
        self.op_into(e, dst, out)
    }

    fn op_into(
        &mut self,
        e: &'p Expr,
        dst: Reg,
        out: &mut Block,
    ) -> Result<DataType, BackendError> {
        match e {
            Expr::Load { index, .. } => {
                let id = self.evidence.buffer_of(e)?;
                let (index, index_ty) = self.expr(index, out)?;
                let (buf, element) = self.buf_ref(id, index_ty)?;
                out.insts.push(Inst::Load { dst, buf, index });
                Ok(element)
            }
            Expr::ArrayLoad { index, .. } => {
                let id = self.evidence.var_of(e)?;
                let (index, index_ty) = self.expr(index, out)?;
                let (array, element) = self.array_ref(id, index_ty)?;
                out.insts.push(Inst::ArrayLoad { dst, array, index });
                Ok(element)
            }
            Expr::Binary { op, lhs, rhs } => self.binary(*op, lhs, rhs, dst, out),
            Expr::Unary { op, arg } => self.unary(*op, arg, dst, out),
            Expr::Select {
                cond,
                on_true,
                on_false,
            } => {
                let (cond, _) = self.expr(cond, out)?;
                let (on_true, ty) = self.expr(on_true, out)?;
                let (on_false, _) = self.expr(on_false, out)?;
                out.insts.push(Inst::Select {
                    dst,
                    cond,
                    on_true,
                    on_false,
                });
                Ok(ty)
            }
            Expr::Cast { to, arg } => self.cast(*to, arg, dst, out),
            Expr::Bitcast { to, arg } => {
                let (src, _) = self.expr(arg, out)?;
                out.insts.push(Inst::Copy { dst, src });
                Ok(*to)
            }
            Expr::Fma { a, b, c } => {
                let (a, _) = self.expr(a, out)?;
                let (b, _) = self.expr(b, out)?;
                let (c, _) = self.expr(c, out)?;
                out.insts.push(Inst::Fma { dst, a, b, c });
                Ok(DataType::F32)
            }
            Expr::Atomic {
                op,
                index,
                expected,
                value,
                ..
            } => {
                let id = self.evidence.buffer_of(e)?;
                self.atomic(*op, id, index, expected.as_deref(), value, dst, out)
            }
            Expr::Subgroup { op, arg } => {
                let (a, ty) = self.expr(arg, out)?;
                let kind = subgroup_kind(*op, ty);
                out.insts.push(Inst::Subgroup {
                    op: kind,
                    dst,
                    a,
                    lane: a,
                });
                op.result_type(ty)
                    .ok_or_else(|| compile_error(format!("`{}` on {ty}", op.name())))
            }
            Expr::SubgroupShuffle { value, lane } => {
                let (a, ty) = self.expr(value, out)?;
                let (lane, _) = self.expr(lane, out)?;
                out.insts.push(Inst::Subgroup {
                    op: SubgroupKind::Shuffle,
                    dst,
                    a,
                    lane,
                });
                Ok(ty)
            }
            Expr::Lit(_) | Expr::Var(_) | Expr::BufLen(_) | Expr::Builtin(_) => {
                Err(compile_error("a leaf expression reached op_into".into()))
            }
        }
    }

    fn binary(
        &mut self,
        op: BinOp,
        lhs: &'p Expr,
        rhs: &'p Expr,
        dst: Reg,
        out: &mut Block,
    ) -> Result<DataType, BackendError> {
        let (a, lt) = self.expr(lhs, out)?;
        let (b, rt) = self.expr(rhs, out)?;
        let result = op
            .result_type(lt, rt)
            .ok_or_else(|| compile_error(format!("`{}` on {lt} and {rt}", op.name())))?;
        // `f16` computes in `f32` and rounds the result once: exact for comparisons, min and max,
        // and correctly rounded for `+ - * / %`, since f32 carries more than twice f16's precision.
        let (a, b, operands) = if lt == DataType::F16 {
            (
                self.widen_f16(a, out),
                self.widen_f16(b, out),
                DataType::F32,
            )
        } else {
            (a, b, lt)
        };
        let (kind, swap) = bin_kind(op, operands)
            .ok_or_else(|| compile_error(format!("`{}` on {lt} and {rt}", op.name())))?;
        let (a, b) = if swap { (b, a) } else { (a, b) };
        if result == DataType::F16 {
            let wide = self.temp();
            out.insts.push(Inst::Bin {
                op: kind,
                dst: wide,
                a,
                b,
            });
            out.insts.push(Inst::Un {
                op: UnKind::F32ToF16,
                dst,
                a: wide,
            });
        } else {
            out.insts.push(Inst::Bin {
                op: kind,
                dst,
                a,
                b,
            });
        }
        Ok(result)
    }

    /// A new register holding the `f32` value of the `f16` in `a`.
    fn widen_f16(&mut self, a: Reg, out: &mut Block) -> Reg {
        let wide = self.temp();
        out.insts.push(Inst::Un {
            op: UnKind::F16ToF32,
            dst: wide,
            a,
        });
        wide
    }

    fn unary(
        &mut self,
        op: UnOp,
        arg: &'p Expr,
        dst: Reg,
        out: &mut Block,
    ) -> Result<DataType, BackendError> {
        let (a, ty) = self.expr(arg, out)?;
        let result = op
            .result_type(ty)
            .ok_or_else(|| compile_error(format!("`{}` on {ty}", op.name())))?;
        if ty == DataType::F16 {
            // Negation, abs and the rounding functions are exact in f32 on an f16 value.
            let wide = self.widen_f16(a, out);
            let kind = un_kind(op, DataType::F32)
                .ok_or_else(|| compile_error(format!("`{}` on {ty}", op.name())))?;
            let t = self.temp();
            out.insts.push(Inst::Un {
                op: kind,
                dst: t,
                a: wide,
            });
            out.insts.push(Inst::Un {
                op: UnKind::F32ToF16,
                dst,
                a: t,
            });
            return Ok(result);
        }
        match un_kind(op, ty) {
            Some(kind) => out.insts.push(Inst::Un { op: kind, dst, a }),
            // `abs` of an unsigned integer is the identity.
            None => out.insts.push(Inst::Copy { dst, src: a }),
        }
        Ok(result)
    }

    fn cast(
        &mut self,
        to: DataType,
        arg: &'p Expr,
        dst: Reg,
        out: &mut Block,
    ) -> Result<DataType, BackendError> {
        let (a, from) = self.expr(arg, out)?;
        let steps = cast_steps(from, to);
        let Some((&last, first)) = steps.split_last() else {
            out.insts.push(Inst::Copy { dst, src: a });
            return Ok(to);
        };
        let mut src = a;
        for &op in first {
            let t = self.temp();
            out.insts.push(Inst::Un { op, dst: t, a: src });
            src = t;
        }
        out.insts.push(Inst::Un {
            op: last,
            dst,
            a: src,
        });
        Ok(to)
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn atomic(
        &mut self,
        op: AtomicOp,
        buffer: BufferId,
        index: &'p Expr,
        expected: Option<&'p Expr>,
        value: &'p Expr,
        dst: Reg,
        out: &mut Block,
    ) -> Result<DataType, BackendError> {
        let (index, index_ty) = self.expr(index, out)?;
        let expected = match expected {
            Some(e) => Some(self.expr(e, out)?.0),
            None => None,
        };
        let (value, _) = self.expr(value, out)?;
        let (buf, element) = self.buf_ref(buffer, index_ty)?;
        if matches!(buf.slot, crate::inst::Slot::Storage(_)) {
            self.storage_atomics = true;
        }
        let signed = element.is_signed();
        let wide = element.bits() == 64;
        let kind = match op {
            AtomicOp::Add if wide => AtomicKind::Add64,
            AtomicOp::Add => AtomicKind::Add,
            AtomicOp::Sub if wide => AtomicKind::Sub64,
            AtomicOp::Sub => AtomicKind::Sub,
            AtomicOp::Min if signed && wide => AtomicKind::MinS64,
            AtomicOp::Min if signed => AtomicKind::MinS,
            AtomicOp::Min => AtomicKind::MinU,
            AtomicOp::Max if signed && wide => AtomicKind::MaxS64,
            AtomicOp::Max if signed => AtomicKind::MaxS,
            AtomicOp::Max => AtomicKind::MaxU,
            AtomicOp::And => AtomicKind::And,
            AtomicOp::Or => AtomicKind::Or,
            AtomicOp::Xor => AtomicKind::Xor,
            AtomicOp::Exchange => AtomicKind::Exchange,
            AtomicOp::CompareExchange => AtomicKind::CompareExchange,
        };
        out.insts.push(Inst::Atomic {
            op: kind,
            dst,
            buf,
            index,
            expected: expected.unwrap_or(value),
            value,
        });
        Ok(element)
    }
}

fn lit_type(lit: Literal) -> DataType {
    lit.ty()
}

/// The resolved operator for `op` on operands of type `ty` (never `f16`, which computes in `f32`),
/// and whether the operands swap (`a > b` is `b < a`).
fn bin_kind(op: BinOp, ty: DataType) -> Option<(BinKind, bool)> {
    use BinKind as K;
    let float = ty == DataType::F32;
    let signed = ty.is_signed();
    let wide = ty.bits() == 64;
    // Picks the kind for unsigned, signed and float operands at 32 bits, and for unsigned and signed
    // operands at 64 bits.
    let pick = |u: K, s: K, f: K, u64: K, s64: K| match (float, signed, wide) {
        (true, _, _) => f,
        (false, false, false) => u,
        (false, true, false) => s,
        (false, false, true) => u64,
        (false, true, true) => s64,
    };
    let kind = match op {
        BinOp::Add => pick(K::Add, K::Add, K::AddF, K::Add64, K::Add64),
        BinOp::Sub => pick(K::Sub, K::Sub, K::SubF, K::Sub64, K::Sub64),
        BinOp::Mul => pick(K::Mul, K::Mul, K::MulF, K::Mul64, K::Mul64),
        BinOp::Div => pick(K::DivU, K::DivS, K::DivF, K::DivU64, K::DivS64),
        BinOp::Rem => pick(K::RemU, K::RemS, K::RemF, K::RemU64, K::RemS64),
        // Zero-extended words order alike at both widths when unsigned.
        BinOp::Min => pick(K::MinU, K::MinS, K::MinF, K::MinU, K::MinS64),
        BinOp::Max => pick(K::MaxU, K::MaxS, K::MaxF, K::MaxU, K::MaxS64),
        BinOp::BitAnd | BinOp::And => K::And,
        BinOp::BitOr | BinOp::Or => K::Or,
        BinOp::BitXor => K::Xor,
        BinOp::Shl => pick(K::Shl, K::Shl, K::Shl, K::Shl64, K::Shl64),
        BinOp::Shr => pick(K::ShrU, K::ShrS, K::ShrU, K::ShrU64, K::ShrS64),
        BinOp::Eq => pick(K::Eq, K::Eq, K::EqF, K::Eq, K::Eq),
        BinOp::Ne => pick(K::Ne, K::Ne, K::NeF, K::Ne, K::Ne),
        BinOp::Lt => pick(K::LtU, K::LtS, K::LtF, K::LtU, K::LtS64),
        BinOp::Le => pick(K::LeU, K::LeS, K::LeF, K::LeU, K::LeS64),
        BinOp::Gt => return Some((pick(K::LtU, K::LtS, K::LtF, K::LtU, K::LtS64), true)),
        BinOp::Ge => return Some((pick(K::LeU, K::LeS, K::LeF, K::LeU, K::LeS64), true)),
    };
    Some((kind, false))
}

/// The resolved unary operator (never on `f16`, which computes in `f32`); `None` where it is the
/// identity.
fn un_kind(op: UnOp, ty: DataType) -> Option<UnKind> {
    use UnKind as K;
    let float = ty == DataType::F32;
    let wide = ty.bits() == 64;
    Some(match op {
        UnOp::Neg if float => K::NegF,
        UnOp::Neg if wide => K::NegI64,
        UnOp::Neg => K::NegI,
        UnOp::Abs if float => K::AbsF,
        UnOp::Abs if ty == DataType::I32 => K::AbsS,
        UnOp::Abs if ty == DataType::I64 => K::AbsS64,
        UnOp::Abs => return None,
        UnOp::BitNot if wide => K::BitNot64,
        UnOp::BitNot => K::BitNot,
        UnOp::Not => K::Not,
        UnOp::Popcount => K::Popcount,
        UnOp::Clz => K::Clz,
        UnOp::Ctz => K::Ctz,
        UnOp::ReverseBits => K::ReverseBits,
        UnOp::Sqrt => K::Sqrt,
        UnOp::InverseSqrt => K::InverseSqrt,
        UnOp::Exp => K::Exp,
        UnOp::Exp2 => K::Exp2,
        UnOp::Log => K::Log,
        UnOp::Log2 => K::Log2,
        UnOp::Sin => K::Sin,
        UnOp::Cos => K::Cos,
        UnOp::Floor => K::Floor,
        UnOp::Ceil => K::Ceil,
        UnOp::Round => K::Round,
        UnOp::Trunc => K::Trunc,
        UnOp::Fract => K::Fract,
    })
}

/// The conversions from `from` to `to`, applied in order; empty where the bits stay as they are.
///
/// Every conversion involving `f16` goes through `f32`: `f16 -> f32` is exact, and an integer that
/// is finite in `f16` is exact in `f32`, so rounding once to `f16` at the end is correctly rounded.
fn cast_steps(from: DataType, to: DataType) -> &'static [UnKind] {
    use DataType as T;
    use UnKind as K;
    match (from, to) {
        (T::F32, T::I32) => &[K::F32ToI32],
        (T::F32, T::U32) => &[K::F32ToU32],
        (T::F32, T::I64) => &[K::F32ToI64],
        (T::F32, T::U64) => &[K::F32ToU64],
        (T::F32, T::Bool) => &[K::F32ToBool],
        (T::F32, T::F16) => &[K::F32ToF16],
        (T::F16, T::F32) => &[K::F16ToF32],
        (T::F16, T::I32) => &[K::F16ToF32, K::F32ToI32],
        (T::F16, T::U32) => &[K::F16ToF32, K::F32ToU32],
        (T::F16, T::I64) => &[K::F16ToF32, K::F32ToI64],
        (T::F16, T::U64) => &[K::F16ToF32, K::F32ToU64],
        (T::F16, T::Bool) => &[K::F16ToF32, K::F32ToBool],
        (T::I32, T::F32) => &[K::I32ToF32],
        (T::U32, T::F32) => &[K::U32ToF32],
        (T::I64, T::F32) => &[K::I64ToF32],
        (T::U64, T::F32) => &[K::U64ToF32],
        (T::Bool, T::F32) => &[K::BoolToF32],
        (T::I32, T::F16) => &[K::I32ToF32, K::F32ToF16],
        (T::U32, T::F16) => &[K::U32ToF32, K::F32ToF16],
        (T::I64, T::F16) => &[K::I64ToF32, K::F32ToF16],
        (T::U64, T::F16) => &[K::U64ToF32, K::F32ToF16],
        (T::Bool, T::F16) => &[K::BoolToF32, K::F32ToF16],
        (T::U32 | T::I32 | T::U64 | T::I64, T::Bool) => &[K::NonZero],
        // Widening keeps the value: a signed source sign-extends, an unsigned one is already
        // zero-extended in its register.
        (T::I32, T::U64 | T::I64) => &[K::SignExtend32],
        (T::U64 | T::I64, T::U32 | T::I32) => &[K::Truncate32],
        // bool -> integer is 0 or 1, which is already the register's word; u32 <-> i32 and
        // u64 <-> i64 keep bits; u32 -> 64 bits is already zero-extended; a cast to the same type is
        // the identity.
        (T::Bool, T::Bool | T::U32 | T::I32 | T::U64 | T::I64)
        | (T::U32 | T::I32, T::U32 | T::I32)
        | (T::U64 | T::I64, T::U64 | T::I64)
        | (T::U32, T::U64 | T::I64)
        | (T::F32, T::F32)
        | (T::F16, T::F16) => &[],
    }
}

/// The resolved subgroup operation for `op` on an operand of type `ty`.
fn subgroup_kind(op: SubgroupOp, ty: DataType) -> SubgroupKind {
    use SubgroupKind as K;
    // Validation gives subgroup operations 32-bit operands only (`SubgroupOp::result_type`); the
    // wider types never reach here, and take the unsigned kind to stay total.
    let pick = |u: K, s: K, f: K| match ty {
        DataType::F32 => f,
        DataType::I32 => s,
        DataType::Bool | DataType::U32 | DataType::F16 | DataType::U64 | DataType::I64 => u,
    };
    match op {
        SubgroupOp::Add => pick(K::Add, K::Add, K::AddF),
        SubgroupOp::Min => pick(K::MinU, K::MinS, K::MinF),
        SubgroupOp::Max => pick(K::MaxU, K::MaxS, K::MaxF),
        SubgroupOp::And => K::And,
        SubgroupOp::Or => K::Or,
        SubgroupOp::Xor => K::Xor,
        SubgroupOp::BroadcastFirst => K::BroadcastFirst,
        SubgroupOp::Ballot => K::Ballot,
    }
}
