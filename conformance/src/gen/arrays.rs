//! Private arrays (`Feature::PrivateArrays`): a `let` in six becomes a per-invocation array of one
//! to eight elements of a type the program may use, one to three stores into it and a `let` of one
//! of its elements, which the rest of the program then reads as any variable.
//!
//! The indices are what make the shape worth fuzzing: literals in bounds and just past them (the
//! lowering's guards and its in-bounds proofs), `tid % n` (a run-time index the bounds analysis
//! proves), and any `u32` expression (mostly out of bounds: the law's dropped store and zero load).

use vyre_foundation::ir::{BinOp, DataType, Expr, Node};

use crate::r#gen::decode::{Ctx, TID};
use crate::r#gen::layout::types;
use crate::r#gen::recipe::Choices;

/// The longest array the generator declares.
const MAX_LEN: usize = 8;

impl Ctx {
    /// `var arrN: T[n]; arrN.[i] = e; ...; let vM = arrN.[j];` (see the module docs).
    pub(crate) fn private_array(&mut self, ch: &mut Choices<'_>) {
        let types = types(self.features);
        let ty = types[ch.below(types.len())];
        let len = 1 + ch.below(MAX_LEN);
        let name = self.fresh("arr");
        self.emit(Node::private_array(name.as_str(), ty, len as u32));
        for _ in 0..=ch.below(3) {
            let index = self.array_index(ch, len);
            let value = self.expr(ch, ty, self.config.max_expr_depth);
            self.emit(Node::array_store(name.as_str(), index, value));
        }
        let index = self.array_index(ch, len);
        let value = self.fresh("v");
        self.emit(Node::let_bind(
            value.as_str(),
            Expr::array_load(name.as_str(), index),
        ));
        self.declare(value, ty, true);
    }

    /// An index into an array of `len` elements (see the module docs).
    fn array_index(&mut self, ch: &mut Choices<'_>, len: usize) -> Expr {
        match ch.below(4) {
            0 => Expr::u32(ch.below(len) as u32),
            1 => Expr::u32((len + ch.below(2)) as u32),
            2 => Expr::binary(BinOp::Rem, Expr::var(TID), Expr::u32(len as u32)),
            _ => self.expr(ch, DataType::U32, 2),
        }
    }
}
