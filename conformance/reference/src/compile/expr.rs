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
        let (kind, swap) = bin_kind(op, lt)
            .ok_or_else(|| compile_error(format!("`{}` on {lt} and {rt}", op.name())))?;
        let (a, b) = if swap { (b, a) } else { (a, b) };
        out.insts.push(Inst::Bin {
            op: kind,
            dst,
            a,
            b,
        });
        Ok(result)
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
        match un_kind(op, ty) {
            Some(kind) => out.insts.push(Inst::Un { op: kind, dst, a }),
            // `abs` of a u32 is the identity.
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
        match cast_kind(from, to) {
            Some(kind) => out.insts.push(Inst::Un { op: kind, dst, a }),
            None => out.insts.push(Inst::Copy { dst, src: a }),
        }
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
        let signed = element == DataType::I32;
        let kind = match op {
            AtomicOp::Add => AtomicKind::Add,
            AtomicOp::Sub => AtomicKind::Sub,
            AtomicOp::Min if signed => AtomicKind::MinS,
            AtomicOp::Min => AtomicKind::MinU,
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

/// The resolved operator for `op` on operands of type `ty`, and whether the operands swap
/// (`a > b` is `b < a`).
fn bin_kind(op: BinOp, ty: DataType) -> Option<(BinKind, bool)> {
    use BinKind as K;
    let float = ty == DataType::F32;
    let signed = ty == DataType::I32;
    let pick = |u: K, s: K, f: K| {
        if float {
            f
        } else if signed {
            s
        } else {
            u
        }
    };
    let kind = match op {
        BinOp::Add => pick(K::Add, K::Add, K::AddF),
        BinOp::Sub => pick(K::Sub, K::Sub, K::SubF),
        BinOp::Mul => pick(K::Mul, K::Mul, K::MulF),
        BinOp::Div => pick(K::DivU, K::DivS, K::DivF),
        BinOp::Rem => pick(K::RemU, K::RemS, K::RemF),
        BinOp::Min => pick(K::MinU, K::MinS, K::MinF),
        BinOp::Max => pick(K::MaxU, K::MaxS, K::MaxF),
        BinOp::BitAnd | BinOp::And => K::And,
        BinOp::BitOr | BinOp::Or => K::Or,
        BinOp::BitXor => K::Xor,
        BinOp::Shl => K::Shl,
        BinOp::Shr => pick(K::ShrU, K::ShrS, K::ShrU),
        BinOp::Eq => pick(K::Eq, K::Eq, K::EqF),
        BinOp::Ne => pick(K::Ne, K::Ne, K::NeF),
        BinOp::Lt => pick(K::LtU, K::LtS, K::LtF),
        BinOp::Le => pick(K::LeU, K::LeS, K::LeF),
        BinOp::Gt => return Some((pick(K::LtU, K::LtS, K::LtF), true)),
        BinOp::Ge => return Some((pick(K::LeU, K::LeS, K::LeF), true)),
    };
    Some((kind, false))
}

/// The resolved unary operator; `None` where it is the identity.
fn un_kind(op: UnOp, ty: DataType) -> Option<UnKind> {
    use UnKind as K;
    let float = ty == DataType::F32;
    Some(match op {
        UnOp::Neg if float => K::NegF,
        UnOp::Neg => K::NegI,
        UnOp::Abs if float => K::AbsF,
        UnOp::Abs if ty == DataType::I32 => K::AbsS,
        UnOp::Abs => return None,
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

/// The conversion from `from` to `to`; `None` where the bits stay as they are.
fn cast_kind(from: DataType, to: DataType) -> Option<UnKind> {
    use DataType as T;
    match (from, to) {
        (T::F32, T::I32) => Some(UnKind::F32ToI32),
        (T::F32, T::U32) => Some(UnKind::F32ToU32),
        (T::F32, T::Bool) => Some(UnKind::F32ToBool),
        (T::I32, T::F32) => Some(UnKind::I32ToF32),
        (T::U32, T::F32) => Some(UnKind::U32ToF32),
        (T::Bool, T::F32) => Some(UnKind::BoolToF32),
        (T::U32 | T::I32, T::Bool) => Some(UnKind::NonZero),
        // bool -> integer is 0 or 1, which is already the register's word; u32 <-> i32 keeps bits;
        // a cast to the same type is the identity.
        (T::Bool, T::Bool | T::U32 | T::I32)
        | (T::U32 | T::I32, T::U32 | T::I32)
        | (T::F32, T::F32) => None,
    }
}

/// The resolved subgroup operation for `op` on an operand of type `ty`.
fn subgroup_kind(op: SubgroupOp, ty: DataType) -> SubgroupKind {
    use SubgroupKind as K;
    let pick = |u: K, s: K, f: K| match ty {
        DataType::F32 => f,
        DataType::I32 => s,
        DataType::Bool | DataType::U32 => u,
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
