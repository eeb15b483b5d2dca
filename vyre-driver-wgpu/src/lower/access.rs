//! Guarded buffer accesses: every load, store and atomic checks its index against the buffer's length
//! for this dispatch (or this item) in the generated code itself, as `SEMANTICS.md` section 3 requires,
//! unless `bounds` proved the index in bounds for every dispatch of the module.

use naga::{BinaryOperator as B, Block, Expression, Handle, Literal, ScalarKind, Statement};
use vyre_foundation::ir::{AtomicOp, DataType};

use super::Lowerer;
use super::globals::Layout;

/// One access: the buffer, the lowered index and its type, and whether it is proven in bounds.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Target {
    pub(crate) buffer: usize,
    pub(crate) index: Handle<Expression>,
    pub(crate) index_ty: DataType,
    pub(crate) proven: bool,
}

/// A bounds-checked element address.
pub(crate) struct Address {
    /// `index < length` (the index as u32: an i32 index below zero wraps past every length), or
    /// `None` where the index is proven in bounds.
    pub(crate) in_bounds: Option<Handle<Expression>>,
    /// A pointer to the element, or to element 0 of the slice when out of bounds (never dereferenced
    /// for stores and atomics; its value is discarded for loads).
    pub(crate) pointer: Handle<Expression>,
}

impl Lowerer<'_, '_> {
    /// The index as `u32`: an `i32` is reinterpreted, so negative indices are huge and out of bounds.
    pub(crate) fn index_u32(
        &mut self,
        block: &mut Block,
        index: Handle<Expression>,
        ty: DataType,
    ) -> Handle<Expression> {
        if ty == DataType::I32 {
            self.fb.expr(
                block,
                Expression::As {
                    expr: index,
                    kind: ScalarKind::Uint,
                    convert: None,
                },
            )
        } else {
            index
        }
    }

    /// Computes the guarded address of `buffer[index]`.
    pub(crate) fn address(&mut self, block: &mut Block, target: Target) -> Address {
        let buffer = target.buffer;
        let index = self.index_u32(block, target.index, target.index_ty);
        let global = self.globals[buffer];
        // A piece of a split launch binds its storage buffers from element `rebase` on. The guard
        // still compares the whole-dispatch index with the whole buffer's length; only the slot moves.
        // Elementwise programs index at `gid.x`, which is at least `rebase` in this piece, so an
        // index that passes its guard (or its proof) lands inside the piece's binding.
        let slot_index = match (self.prologue.rebase, global.layout) {
            (Some(base), Layout::Storage) => self.fb.binary(block, B::Subtract, index, base),
            _ => index,
        };
        let (in_bounds, clamped) = if target.proven {
            (None, slot_index)
        } else {
            let len = self.prologue.lengths[buffer];
            let in_bounds = self.fb.binary(block, B::Less, index, len);
            let zero = self.fb.u32(block, 0);
            (
                Some(in_bounds),
                self.fb.select(block, in_bounds, slot_index, zero),
            )
        };
        let gid_x = self.prologue.builtins[0][0];
        let slot = match (self.prologue.offsets[buffer], self.prologue.at_gid[buffer]) {
            // A proven access at `gid.x` of a packed slice that starts at `p - gid.x`.
            (Some(_), Some(p)) if clamped == gid_x => p,
            (Some(offset), _) => self.fb.binary(block, B::Add, offset, clamped),
            (None, _) => clamped,
        };
        let base = self
            .fb
            .expr(block, Expression::GlobalVariable(global.global));
        let pointer = match global.layout {
            Layout::UniformVec4 => {
                let four = self.fb.u32(block, 4);
                let row = self.fb.binary(block, B::Divide, slot, four);
                let lane = self.fb.binary(block, B::Modulo, slot, four);
                let vector = self.fb.access(block, base, row);
                self.fb.access(block, vector, lane)
            }
            Layout::StorageVec4 | Layout::WorkgroupVec4 => {
                // Row `slot / 4`, lane `slot % 4`, as a shift and a mask (naga wraps integer
                // division in a zero check).
                let two = self.fb.u32(block, 2);
                let three = self.fb.u32(block, 3);
                let row = self.fb.binary(block, B::ShiftRight, slot, two);
                let lane = self.fb.binary(block, B::And, slot, three);
                let vector = self.fb.access(block, base, row);
                self.fb.access(block, vector, lane)
            }
            Layout::Storage | Layout::Workgroup => self.fb.access(block, base, slot),
        };
        Address { in_bounds, pointer }
    }

    /// A stored word of `buffer` as a value: a bool is `word != 0`.
    pub(crate) fn word_to_value(
        &mut self,
        block: &mut Block,
        buffer: usize,
        word: Handle<Expression>,
    ) -> Handle<Expression> {
        if self.program.buffers[buffer].element == DataType::Bool {
            let zero = self.fb.u32(block, 0);
            self.fb.binary(block, B::NotEqual, word, zero)
        } else {
            word
        }
    }

    /// A value as the word `buffer` stores: a bool is 1 or 0.
    pub(crate) fn value_to_word(
        &mut self,
        block: &mut Block,
        buffer: usize,
        value: Handle<Expression>,
    ) -> Handle<Expression> {
        if self.program.buffers[buffer].element == DataType::Bool {
            let one = self.fb.u32(block, 1);
            let zero = self.fb.u32(block, 0);
            self.fb.select(block, value, one, zero)
        } else {
            value
        }
    }

    /// `buffer[index]`, or zero out of bounds.
    pub(crate) fn guarded_load(&mut self, block: &mut Block, target: Target) -> Handle<Expression> {
        let address = self.address(block, target);
        let word = self.fb.load(block, address.pointer);
        let element = self.program.buffers[target.buffer].element;
        let value = self.word_to_value(block, target.buffer, word);
        match address.in_bounds {
            Some(in_bounds) => {
                let zero = self.zero(block, element);
                self.fb.select(block, in_bounds, value, zero)
            }
            None => value,
        }
    }

    /// `buffer[index] = value`, dropped out of bounds.
    pub(crate) fn guarded_store(
        &mut self,
        block: &mut Block,
        target: Target,
        value: Handle<Expression>,
    ) {
        let address = self.address(block, target);
        let word = self.value_to_word(block, target.buffer, value);
        let store = Statement::Store {
            pointer: address.pointer,
            value: word,
        };
        match address.in_bounds {
            Some(in_bounds) => self
                .fb
                .if_then(block, in_bounds, |fb, inner| fb.stmt(inner, store)),
            None => self.fb.stmt(block, store),
        }
    }

    /// An atomic read-modify-write; out of bounds it does nothing and yields zero.
    pub(crate) fn guarded_atomic(
        &mut self,
        block: &mut Block,
        op: AtomicOp,
        target: Target,
        expected: Option<Handle<Expression>>,
        value: Handle<Expression>,
    ) -> Handle<Expression> {
        let element = self.program.buffers[target.buffer].element;
        let ty = self.types.value(element);
        let address = self.address(block, target);
        let old = self.fb.local(block, None, ty);
        let zero = self.zero(block, element);
        self.fb.stmt(
            block,
            Statement::Store {
                pointer: old,
                value: zero,
            },
        );
        let pointer = address.pointer;
        let exchange_result = expected.map(|_| {
            self.module.generate_predeclared_type(
                naga::PredeclaredType::AtomicCompareExchangeWeakResult(
                    super::globals::storage_scalar(element),
                ),
            )
        });
        let update = |fb: &mut super::func::FunctionBuilder, inner: &mut Block| match (
            expected,
            exchange_result,
        ) {
            (Some(expected), Some(result_ty)) => {
                strong_compare_exchange(fb, inner, pointer, expected, value, old, result_ty);
            }
            _ => {
                let fun = atomic_function(op);
                let result = fb.expr(
                    inner,
                    Expression::AtomicResult {
                        ty,
                        comparison: false,
                    },
                );
                fb.stmt(
                    inner,
                    Statement::Atomic {
                        pointer,
                        fun,
                        value,
                        result: Some(result),
                    },
                );
                fb.stmt(
                    inner,
                    Statement::Store {
                        pointer: old,
                        value: result,
                    },
                );
            }
        };
        match address.in_bounds {
            Some(in_bounds) => self.fb.if_then(block, in_bounds, update),
            // Proven in bounds: the update runs unconditionally, in a block of its own so that its
            // expressions are emitted where it stands.
            None => {
                let inner = self.fb.nested(block, update);
                self.fb.stmt(block, Statement::Block(inner));
            }
        }
        self.fb.load(block, old)
    }

    /// An atomic whose old value nobody reads; out of bounds it does nothing. naga needs a result
    /// for the exchanges (without one an exchange would be a plain store), so those take the
    /// expression's path and drop its value; the others need no result at all.
    pub(crate) fn guarded_atomic_statement(
        &mut self,
        block: &mut Block,
        op: AtomicOp,
        target: Target,
        expected: Option<Handle<Expression>>,
        value: Handle<Expression>,
    ) {
        match op {
            AtomicOp::Exchange | AtomicOp::CompareExchange => {
                self.guarded_atomic(block, op, target, expected, value);
            }
            AtomicOp::Add
            | AtomicOp::Sub
            | AtomicOp::Min
            | AtomicOp::Max
            | AtomicOp::And
            | AtomicOp::Or
            | AtomicOp::Xor => {
                let address = self.address(block, target);
                let update = Statement::Atomic {
                    pointer: address.pointer,
                    fun: atomic_function(op),
                    value,
                    result: None,
                };
                match address.in_bounds {
                    Some(in_bounds) => self
                        .fb
                        .if_then(block, in_bounds, |fb, inner| fb.stmt(inner, update)),
                    None => self.fb.stmt(block, update),
                }
            }
        }
    }

    /// The zero of `ty`.
    pub(crate) fn zero(&mut self, block: &mut Block, ty: DataType) -> Handle<Expression> {
        let literal = match ty {
            DataType::Bool => Literal::Bool(false),
            DataType::I32 => Literal::I32(0),
            DataType::F32 => Literal::F32(0.0),
            DataType::U32 => Literal::U32(0),
            DataType::F16 => Literal::F16(half::f16::ZERO),
            DataType::U64 => Literal::U64(0),
            DataType::I64 => Literal::I64(0),
        };
        self.fb.expr(block, Expression::Literal(literal))
    }
}

fn atomic_function(op: AtomicOp) -> naga::AtomicFunction {
    use naga::AtomicFunction as F;
    match op {
        AtomicOp::Add => F::Add,
        AtomicOp::Sub => F::Subtract,
        AtomicOp::Min => F::Min,
        AtomicOp::Max => F::Max,
        AtomicOp::And => F::And,
        AtomicOp::Or => F::InclusiveOr,
        AtomicOp::Xor => F::ExclusiveOr,
        AtomicOp::Exchange | AtomicOp::CompareExchange => F::Exchange { compare: None },
    }
}

/// A compare-exchange that never fails spuriously: WGSL only offers the weak form, so retry while it
/// reports "not exchanged" although the old value matched.
fn strong_compare_exchange(
    fb: &mut super::func::FunctionBuilder,
    block: &mut Block,
    pointer: Handle<Expression>,
    expected: Handle<Expression>,
    value: Handle<Expression>,
    old: Handle<Expression>,
    result_ty: Handle<naga::Type>,
) {
    let body = fb.nested(block, |fb, body| {
        let result = fb.expr(
            body,
            Expression::AtomicResult {
                ty: result_ty,
                comparison: true,
            },
        );
        fb.stmt(
            body,
            Statement::Atomic {
                pointer,
                fun: naga::AtomicFunction::Exchange {
                    compare: Some(expected),
                },
                value,
                result: Some(result),
            },
        );
        let previous = fb.access_index(body, result, 0);
        let exchanged = fb.access_index(body, result, 1);
        fb.stmt(
            body,
            Statement::Store {
                pointer: old,
                value: previous,
            },
        );
        let differs = fb.binary(body, B::NotEqual, previous, expected);
        let done = fb.binary(body, B::LogicalOr, exchanged, differs);
        fb.if_then(body, done, |fb, inner| fb.stmt(inner, Statement::Break));
    });
    fb.stmt(
        block,
        Statement::Loop {
            body,
            continuing: Block::new(),
            break_if: None,
        },
    );
}
