//! Private arrays (`var a: T[n]`, `SEMANTICS.md` section 3): one naga function-local
//! `array<T, n>` per declaration, every access guarded in the generated code unless `bounds` proves
//! its index below `n`.
//!
//! Why it is exact:
//!
//! - **Per invocation.** A function-local variable belongs to the invocation that runs the
//!   function, so no other invocation sees it, whatever the launch form (plain, split, coalesced or
//!   packed: each runs the same entry point per invocation). The vectorised form, whose four lanes
//!   share one invocation, is never chosen for a program with a private array
//!   (`analysis/vector.rs`).
//! - **Zeroed at the declaration.** The declaration stores `array<T, n>()` (naga's `ZeroValue`)
//!   where it stands, so one in a loop body starts every iteration from zeros, as the law says; a
//!   naga local's own initialiser would run only once, at function entry.
//! - **Out of bounds.** A load yields `select(0, a[j], i < n)` and a store runs under `if i < n`,
//!   where `j` is `select(0, i, i < n)`, so the access itself is always in bounds (naga or the
//!   driver may clamp it again; that changes nothing). An `i32` index is reinterpreted as `u32`
//!   first, so a negative one is huge and out of bounds. Where `bounds` proves `i < n` in every
//!   dispatch (a literal below `n`, an enclosing condition or loop, the index's shape), the guard
//!   goes; after unrolling, most indices of a register-blocked kernel are literals, and the driver
//!   keeps such an array in registers.

use std::num::NonZeroU32;

use naga::{BinaryOperator as B, Block, Expression, Handle, Span, Statement, Type, TypeInner};
use vyre_driver::BackendError;
use vyre_foundation::ir::{DataType, Expr};
use vyre_foundation::validate::VarId;

use super::{Local, Lowerer};

impl Lowerer<'_, '_> {
    /// `var name: element[len]`: a zeroed function-local array, bound to `id`.
    pub(crate) fn declare_array(
        &mut self,
        block: &mut Block,
        id: VarId,
        name: &str,
        element: DataType,
        len: u32,
    ) -> Result<(), BackendError> {
        let base = self.types.value(element);
        let stride = self.module.types[base].inner.size(self.module.to_ctx());
        let size = NonZeroU32::new(len).ok_or_else(|| {
            BackendError::compile(
                "the wgpu lowering met a private array of no elements. Fix: this is a vyre lowering bug (validation refuses such arrays); report it with the program text (Display).",
            )
        })?;
        let ty = self.module.types.insert(
            Type {
                name: None,
                inner: TypeInner::Array {
                    base,
                    size: naga::ArraySize::Constant(size),
                    stride,
                },
            },
            Span::UNDEFINED,
        );
        self.zeroed_local(block, id, name, ty);
        Ok(())
    }

    /// A function-local variable `name` of type `ty`, bound to `id` and set to the type's zero
    /// value where it stands (so again on every trip of a loop it is declared in: a naga local's
    /// own initialiser would run only once, at function entry). Private arrays and tiles.
    pub(crate) fn zeroed_local(
        &mut self,
        block: &mut Block,
        id: VarId,
        name: &str,
        ty: Handle<Type>,
    ) {
        let pointer = self.fb.local(block, Some(name.to_owned()), ty);
        let zero = self.fb.expr(block, Expression::ZeroValue(ty));
        self.fb.stmt(
            block,
            Statement::Store {
                pointer,
                value: zero,
            },
        );
        self.bind(id, Local::Pointer(pointer));
    }

    /// The array `id` indexed by `index`: a pointer to the element, and `i < len` where the index
    /// is not proven in bounds (the pointer then goes to element 0 out of bounds).
    fn array_element(
        &mut self,
        block: &mut Block,
        id: VarId,
        index: &Expr,
    ) -> Result<(Handle<Expression>, Option<Handle<Expression>>), BackendError> {
        let array = self.local_pointer(id)?;
        let len = self.evidence.var(id)?.array.unwrap_or(0);
        let proven = self.bounds.proven_below(self.evidence, len, index);
        let (index, index_ty) = self.expr(block, index)?;
        if proven {
            return Ok((self.fb.access(block, array, index), None));
        }
        let index = if index_ty == DataType::I32 {
            self.fb.expr(
                block,
                Expression::As {
                    expr: index,
                    kind: naga::ScalarKind::Uint,
                    convert: None,
                },
            )
        } else {
            index
        };
        let n = self.fb.u32(block, len);
        let in_bounds = self.fb.binary(block, B::Less, index, n);
        let zero = self.fb.u32(block, 0);
        let clamped = self.fb.select(block, in_bounds, index, zero);
        Ok((self.fb.access(block, array, clamped), Some(in_bounds)))
    }

    /// `array.[index]`, or zero out of bounds.
    pub(crate) fn array_load(
        &mut self,
        block: &mut Block,
        id: VarId,
        index: &Expr,
    ) -> Result<Handle<Expression>, BackendError> {
        let (pointer, in_bounds) = self.array_element(block, id, index)?;
        let value = self.fb.load(block, pointer);
        Ok(match in_bounds {
            Some(in_bounds) => {
                let element = self.evidence.var(id)?.ty;
                let zero = self.zero(block, element);
                self.fb.select(block, in_bounds, value, zero)
            }
            None => value,
        })
    }

    /// `array.[index] = value`, dropped out of bounds (`index`, then `value`, evaluated first).
    pub(crate) fn array_store(
        &mut self,
        block: &mut Block,
        id: VarId,
        index: &Expr,
        value: &Expr,
    ) -> Result<(), BackendError> {
        let (pointer, in_bounds) = self.array_element(block, id, index)?;
        let (value, _) = self.expr(block, value)?;
        let store = Statement::Store { pointer, value };
        match in_bounds {
            Some(in_bounds) => self
                .fb
                .if_then(block, in_bounds, |fb, inner| fb.stmt(inner, store)),
            None => self.fb.stmt(block, store),
        }
        Ok(())
    }
}
