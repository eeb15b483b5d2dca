//! Row loads: a read-only buffer read four consecutive elements at a time is declared as `vec4`
//! rows, and the loads of one statement that share a row read it once.
//!
//! **Which buffers.** A `read` storage buffer of 32-bit elements whose every load is at an *aligned*
//! index `b + c`: `b` provably a multiple of 4 and `c` a literal in `0..=3` (or `b | c`, or a
//! literal index), with at least two different `c` among its loads. `b` is a multiple of 4 when it
//! is a literal multiple of 4; `x * k` with either side a multiple of 4; `x << s` with `s mod 32 >=
//! 2`, or `x` one; `x & k` with either side one; `+`, `-`, `|`, `^` and `select` of two; or a
//! variable declared by a `let` of one and never assigned. These facts hold in wrapping 32-bit
//! arithmetic (4 divides 2^32), for `u32` and `i32` alike. Such a buffer is what a kernel that
//! sums or transforms four elements per invocation reads (`data[4 * i + 0] + ... + data[4 * i + 3]`),
//! the scalar form of a `vec4` load.
//!
//! **The form.** Any plain launch (direct or folded, scalar or vectorised, any workgroup shape,
//! subgroups included, since the rows change no invocation's identity) of a program with such a
//! buffer declares it as `array<vec4<T>>`, when its binding can span whole 16-byte rows
//! (`backend::form` checks; the scalar layout is kept otherwise). Element `i` is lane `i % 4` of
//! row `i / 4`. A row buffer is never one of the vectorised form's buffers, which are accessed at
//! `gid.x` alone (not a multiple of 4).
//!
//! **A load** at `b + c` lowers to: `r = b >> 2`, the row `v = data[min(r, (len - 1) >> 2)]`
//! (`len >= 1` in every plain launch, and the binding spans `ceil(len / 4)` rows, so that row
//! exists), and the element `select(0, v[c], b + c < len)`. `b + c` does not wrap (`b <= 2^32 - 4`),
//! so the guard is exactly the scalar guard `index < len`, and an out-of-bounds load yields zero as
//! `SEMANTICS.md` section 3 requires. Where `bounds` proves the index in bounds, the guard and the
//! clamp go. Within one statement, loads of the same buffer with structurally equal `b` (without
//! atomics, whose results differ between evaluations) share one row: one statement's expressions are
//! evaluated in one block, with no assignment between them, and the buffer is never written, so
//! equal `b` read equal rows. The cache is cleared at every statement.

use naga::{BinaryOperator as B, Block, Expression, Handle, MathFunction as M};
use vyre_driver::BackendError;
use vyre_foundation::ir::{DataType, Expr, Literal};

use super::analysis::rows::{Base, RowFacts};
use super::planted::{Miscompile, planted};
use super::{CachedRow, Lowerer, RowLoads};

impl RowLoads {
    /// Row loads of the row buffers `rows` describes (`None`: the module declares none).
    pub(crate) fn new(rows: Option<&RowFacts>) -> Self {
        rows.map_or_else(RowLoads::default, |facts| RowLoads {
            rows: facts.buffers.clone(),
            aligned: facts.aligned.clone(),
            cache: Vec::new(),
        })
    }

    /// Called at every statement, before its expressions are lowered: forgets the previous
    /// statement's rows.
    pub(crate) fn statement(&mut self) {
        if !planted(Miscompile::RowKeptAcrossStatements) {
            self.cache.clear();
        }
    }
}

impl Lowerer<'_, '_> {
    /// `buffer[index]` when `buffer` is a row buffer and `index` aligned: the lane of a row read
    /// once per statement (see the module docs); `None` otherwise.
    pub(crate) fn row_load(
        &mut self,
        block: &mut Block,
        buffer: usize,
        index: &Expr,
        proven: bool,
    ) -> Result<Option<Handle<Expression>>, BackendError> {
        if !self.row_loads.rows.get(buffer).copied().unwrap_or(false) {
            return Ok(None);
        }
        let Some((base, lane)) = self.row_loads.aligned.split(self.evidence, index) else {
            return Ok(None);
        };
        let key = match base {
            Base::Literal(v) => Expr::Lit(Literal::U32(v)),
            Base::Expr(e) => e.clone(),
        };
        let shareable = !key.has_atomic();
        let cached = shareable
            .then(|| {
                self.row_loads
                    .cache
                    .iter()
                    .find(|r| r.buffer == buffer && r.base == key)
                    .map(|r| (r.base_u32, r.row))
            })
            .flatten();
        let len = self.prologue.lengths[buffer];
        let (base_u32, row) = match cached {
            Some(found) => found,
            None => {
                let base_u32 = match base {
                    Base::Literal(v) => self.fb.u32(block, v),
                    Base::Expr(e) => {
                        let (value, ty) = self.expr(block, e)?;
                        if ty == DataType::I32 {
                            self.fb.expr(
                                block,
                                Expression::As {
                                    expr: value,
                                    kind: naga::ScalarKind::Uint,
                                    convert: None,
                                },
                            )
                        } else {
                            value
                        }
                    }
                };
                let two = self.fb.u32(block, 2);
                let mut at = self.fb.binary(block, B::ShiftRight, base_u32, two);
                if !proven {
                    let one = self.fb.u32(block, 1);
                    let last = self.fb.binary(block, B::Subtract, len, one);
                    let last_row = self.fb.binary(block, B::ShiftRight, last, two);
                    at = self.fb.math(block, M::Min, &[at, last_row]);
                }
                let global = self.fb.expr(
                    block,
                    Expression::GlobalVariable(self.globals[buffer].global),
                );
                let pointer = self.fb.access(block, global, at);
                let row = self.fb.load(block, pointer);
                if shareable {
                    self.row_loads.cache.push(CachedRow {
                        buffer,
                        base: key,
                        base_u32,
                        row,
                    });
                }
                (base_u32, row)
            }
        };
        let word = self.fb.access_index(block, row, lane);
        let value = self.word_to_value(block, buffer, word);
        if proven {
            return Ok(Some(value));
        }
        let c = self.fb.u32(block, lane);
        let element = self.fb.binary(block, B::Add, base_u32, c);
        let in_bounds = self.fb.binary(block, B::Less, element, len);
        let zero = self.zero(block, self.program.buffers[buffer].element);
        Ok(Some(self.fb.select(block, in_bounds, value, zero)))
    }
}
