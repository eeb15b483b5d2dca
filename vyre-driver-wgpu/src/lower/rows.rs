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

use vyre_foundation::ir::{BinOp, BufferAccess, DataType, Expr, Literal, Node};
use vyre_foundation::validate::{Validated, VarId};

use naga::{BinaryOperator as B, Block, Expression, Handle, MathFunction as M};
use vyre_driver::BackendError;

use super::lowerer::Lowerer;
use super::planted::{Miscompile, planted};

/// The multiple of 4 an aligned index starts from.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Base<'a> {
    /// A literal: `v & !3`.
    Literal(u32),
    /// An expression of the program, a multiple of 4 in every evaluation.
    Expr(&'a Expr),
}

/// One row read in the current statement: the buffer, its base expression, the base as `u32`
/// and the row's value.
#[derive(Clone, Debug)]
pub(crate) struct CachedRow {
    buffer: usize,
    base: Expr,
    base_u32: Handle<Expression>,
    row: Handle<Expression>,
}

/// Variables declared by a `let` of a multiple of 4 and never assigned.
#[derive(Clone, Debug, Default)]
struct Aligned(Vec<VarId>);

impl Aligned {
    fn note(&mut self, evidence: &Validated<'_>, node: &Node) {
        if let Node::Let { value, .. } = node
            && let Ok(id) = evidence.node_var(node)
            && evidence.var(id).is_ok_and(|v| !v.assigned)
            && self.multiple_of_4(evidence, value)
        {
            self.0.push(id);
        }
    }

    /// True when `expr` is a multiple of 4 in every evaluation (see the module docs).
    fn multiple_of_4(&self, evidence: &Validated<'_>, expr: &Expr) -> bool {
        match expr {
            Expr::Lit(Literal::U32(v)) => v % 4 == 0,
            Expr::Lit(Literal::I32(v)) => v.rem_euclid(4) == 0,
            Expr::Var(_) => evidence.var_of(expr).is_ok_and(|id| self.0.contains(&id)),
            Expr::Binary { op, lhs, rhs } => {
                let l = || self.multiple_of_4(evidence, lhs);
                let r = || self.multiple_of_4(evidence, rhs);
                match op {
                    BinOp::Mul | BinOp::BitAnd => l() || r(),
                    BinOp::Add | BinOp::Sub | BinOp::BitOr | BinOp::BitXor => l() && r(),
                    BinOp::Shl => l() || matches!(**rhs, Expr::Lit(Literal::U32(s)) if s % 32 >= 2),
                    _ => false,
                }
            }
            Expr::Select {
                on_true, on_false, ..
            } => self.multiple_of_4(evidence, on_true) && self.multiple_of_4(evidence, on_false),
            _ => false,
        }
    }

    /// `index` as `b + c` (see the module docs), or `None` when it is not aligned.
    fn split<'a>(&self, evidence: &Validated<'_>, index: &'a Expr) -> Option<(Base<'a>, u32)> {
        let lane = |e: &Expr| match e {
            Expr::Lit(Literal::U32(c)) if *c < 4 => Some(*c),
            Expr::Lit(Literal::I32(c)) if (0..4).contains(c) => Some(*c as u32),
            _ => None,
        };
        match index {
            Expr::Lit(Literal::U32(v)) => return Some((Base::Literal(v & !3), v & 3)),
            Expr::Lit(Literal::I32(v)) => {
                let v = *v as u32;
                return Some((Base::Literal(v & !3), v & 3));
            }
            Expr::Binary {
                op: BinOp::Add | BinOp::BitOr,
                lhs,
                rhs,
            } => {
                if let Some(c) = lane(rhs)
                    && self.multiple_of_4(evidence, lhs)
                {
                    return Some((Base::Expr(lhs), c));
                }
                if let Some(c) = lane(lhs)
                    && self.multiple_of_4(evidence, rhs)
                {
                    return Some((Base::Expr(rhs), c));
                }
            }
            _ => {}
        }
        self.multiple_of_4(evidence, index)
            .then_some((Base::Expr(index), 0))
    }
}

/// Which program buffers a plain launch declares as `vec4` rows (see the module docs), or `None`
/// when none qualifies.
pub(crate) fn row_buffers(evidence: &Validated<'_>) -> Option<Vec<bool>> {
    let program = evidence.program();
    let n = program.buffers.len();
    let mut aligned = Aligned::default();
    let mut all_aligned = vec![true; n];
    let mut lanes = vec![0u8; n];
    // Declarations come before their uses in the walk, so every aligned variable is known at its
    // uses.
    vyre_foundation::for_each_node(&program.body, |node| {
        aligned.note(evidence, node);
        for expr in node.exprs() {
            vyre_foundation::for_each_subexpr(expr, |e| {
                if let Expr::Load { index, .. } = e
                    && let Ok(b) = evidence.buffer_of(e)
                {
                    match aligned.split(evidence, index) {
                        Some((_, c)) => lanes[b.index()] |= 1 << c,
                        None => all_aligned[b.index()] = false,
                    }
                }
            });
        }
    });
    let uses = evidence.buffer_uses();
    let rows: Vec<bool> = program
        .buffers
        .iter()
        .enumerate()
        .map(|(j, decl)| {
            decl.access == BufferAccess::Read
                && decl.element.is_word()
                && !uses.get(j).is_some_and(|u| u.atomic || u.stored)
                && all_aligned[j]
                && lanes[j].count_ones() >= 2
        })
        .collect();
    rows.contains(&true).then_some(rows)
}

/// The lowering's view of the row buffers of a module.
#[derive(Clone, Debug, Default)]
pub(crate) struct RowLoads {
    /// Per program buffer: declared as rows.
    rows: Vec<bool>,
    aligned: Aligned,
    /// The rows read so far in the current statement.
    cache: Vec<CachedRow>,
}

impl RowLoads {
    /// Row loads for the buffers `rows` marks (empty: none).
    pub(crate) fn new(rows: Vec<bool>) -> Self {
        RowLoads {
            rows,
            ..RowLoads::default()
        }
    }

    /// Called at every statement, before its expressions are lowered: records an aligned `let`
    /// and forgets the previous statement's rows.
    pub(crate) fn statement(&mut self, evidence: &Validated<'_>, node: &Node) {
        if self.rows.contains(&true) {
            self.aligned.note(evidence, node);
        }
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

#[cfg(test)]
mod tests {
    use super::*;
    use vyre_foundation::ir::{BufferDecl, Program};

    fn rows_of(body: Vec<Node>) -> Option<Vec<bool>> {
        let program = Program::new(
            vec![
                BufferDecl::read("data", 0, DataType::U32),
                BufferDecl::output("out", 1, DataType::U32).with_count(64),
            ],
            [64, 1, 1],
            body,
        );
        let evidence = vyre_foundation::validate(&program).expect("valid");
        row_buffers(&evidence)
    }

    fn sum_of(indices: Vec<Expr>) -> Node {
        let mut sum = Expr::u32(0);
        for i in indices {
            sum = Expr::add(sum, Expr::load("data", i));
        }
        Node::store("out", Expr::gid_x(), sum)
    }

    #[test]
    fn four_loads_at_4i_plus_c_are_rows() {
        let base = || Expr::mul(Expr::gid_x(), Expr::u32(4));
        let body = vec![sum_of(
            (0..4).map(|c| Expr::add(base(), Expr::u32(c))).collect(),
        )];
        assert_eq!(rows_of(body), Some(vec![true, false]));
    }

    #[test]
    fn shifts_lets_and_or_are_aligned() {
        let body = vec![
            Node::let_bind("b", Expr::shl(Expr::gid_x(), Expr::u32(2))),
            sum_of(vec![
                Expr::var("b"),
                Expr::bit_or(Expr::var("b"), Expr::u32(3)),
                Expr::add(Expr::u32(1), Expr::var("b")),
            ]),
        ];
        assert_eq!(rows_of(body), Some(vec![true, false]));
    }

    #[test]
    fn an_unaligned_load_or_an_assigned_base_keeps_the_scalar_form() {
        let base = || Expr::mul(Expr::gid_x(), Expr::u32(4));
        let mixed = vec![sum_of(vec![
            Expr::add(base(), Expr::u32(1)),
            Expr::add(base(), Expr::u32(2)),
            Expr::gid_x(),
        ])];
        assert_eq!(rows_of(mixed), None);
        // A stride of 2 is not a multiple of 4, nor a shift by 1.
        let two = vec![sum_of(vec![
            Expr::mul(Expr::gid_x(), Expr::u32(2)),
            Expr::add(Expr::shl(Expr::gid_x(), Expr::u32(1)), Expr::u32(1)),
        ])];
        assert_eq!(rows_of(two), None);
        // A shift by 33 is a shift by 1.
        let wide = vec![sum_of(vec![
            Expr::shl(Expr::gid_x(), Expr::u32(33)),
            Expr::add(Expr::shl(Expr::gid_x(), Expr::u32(33)), Expr::u32(1)),
        ])];
        assert_eq!(rows_of(wide), None);
        let assigned = vec![
            Node::let_bind("b", Expr::mul(Expr::gid_x(), Expr::u32(4))),
            Node::assign("b", Expr::add(Expr::var("b"), Expr::u32(1))),
            sum_of(vec![
                Expr::var("b"),
                Expr::add(Expr::var("b"), Expr::u32(1)),
            ]),
        ];
        assert_eq!(rows_of(assigned), None);
    }

    #[test]
    fn one_lane_alone_keeps_the_scalar_form() {
        let body = vec![sum_of(vec![
            Expr::mul(Expr::gid_x(), Expr::u32(4)),
            Expr::mul(Expr::u32(8), Expr::gid_x()),
        ])];
        assert_eq!(rows_of(body), None);
    }
}
