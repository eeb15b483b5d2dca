//! Edge operands (`Feature::EdgeOperands`): `min`, `max`, `abs` and negation over values at the
//! edges of their type, the shapes an NVIDIA driver (H100, 580.159.04) miscompiled while the
//! catalogue was green (FUZZING.md, "Driver shapes").
//!
//! The shapes are `min(v, -v)`, `min(-v, v)`, `min(v, 0 - v)`, `max(a, -b)` of two values (often
//! two loop counters), a value against a literal at 0, ±1 or the type's MIN and MAX, and
//! `abs(v) * -1` against such a literal, each sometimes inside a second `min`/`max` with an edge
//! literal (`min(min(v, -v), 0i)`), and ordering comparisons of an edge literal with a value,
//! often shifted (`lit < (v << 1u)`). Their operands favour variables (loop counters among them) and
//! `tid` converted to the type. 64-bit edge literals include values whose low 32 bits order
//! differently from the whole value (`i64::MIN + 17892187` is the smallest `i64` of the two against
//! `-3`, but its low word is positive). And loops sometimes run one trip from a large literal
//! bound (`for i1 in 72237995i..(72237995i + 1i)`), so their counters are large.
//!
//! Why features appended to `gen::Feature` and not weights inside the existing ones: a case whose
//! swarm mask lacks the new bits decodes exactly as before (every read of a choice word these
//! shapes add is behind the feature), so old masks, recipes and seeds keep their programs, swarm
//! testing can switch each family on and off on its own (a case with only these shapes is dense in
//! them), and a run can measure the unbiased generator by leaving them out
//! (`conformance/tests/fuzz_driver_shapes.rs`).
//!
//! Everything here is integer arithmetic, which every backend computes bit for bit, so the
//! comparable discipline holds without more care.

use vyre_foundation::ir::{BinOp, DataType, Expr, Node};

use crate::r#gen::decode::{Ctx, TID, bin};
use crate::r#gen::layout::types;
use crate::r#gen::recipe::Choices;

/// `i32` literals at the edges: 0, ±1, ±2, MIN, MAX and their neighbours.
const I32_EDGES: [i32; 9] = [
    0,
    1,
    -1,
    2,
    -2,
    i32::MIN,
    i32::MAX,
    i32::MIN + 1,
    i32::MAX - 1,
];
/// `u32` literals at the edges.
const U32_EDGES: [u32; 8] = [
    0,
    1,
    2,
    u32::MAX,
    u32::MAX - 1,
    0x8000_0000,
    0x7fff_ffff,
    0x8000_0001,
];

impl Ctx {
    /// `min` or `max` of a value and its negation, of two values one negated, or of a value and an
    /// edge literal; half the time inside a second `min`/`max` with an edge literal.
    pub(crate) fn edge_min_max(&self, ch: &mut Choices<'_>, ty: DataType, depth: u32) -> Expr {
        let op = min_or_max(ch.next_word());
        let v = self.edge_operand(ch, ty, depth);
        let (lhs, rhs) = match ch.below(8) {
            0 | 1 => (v.clone(), negate(ty, v)),
            2 => (negate(ty, v.clone()), v),
            3 => (v.clone(), Expr::sub(zero(ty), v)),
            4 | 5 => {
                let other = self.edge_operand(ch, ty, depth);
                (v, negate(ty, other))
            }
            6 => (v, self.edge_literal(ch, ty)),
            // `abs(min(5i64, 3i64)) * -1i64` against an edge: the i64 shape of the H100 case.
            _ => (
                Expr::mul(Expr::abs(v), minus_one(ty)),
                self.edge_literal(ch, ty),
            ),
        };
        let inner = bin(op, lhs, rhs);
        if ch.one_in(2) {
            let outer = min_or_max(ch.next_word());
            bin(outer, inner, self.edge_literal(ch, ty))
        } else {
            inner
        }
    }

    /// An ordering comparison (`<`, `<=`, `>`, `>=`) of an integer edge literal with a value, either
    /// way round, the value often shifted by a small amount; a 64-bit type half the time where
    /// 64-bit integers are on. The H100 ordered `bitcast<i64>(9223372038027439179u64) < (ld << 1u)`
    /// of a loaded 0 by the low words alone (seed 80012, `nvidia-i64-compare-low-word`), and the
    /// edge literals include values whose low word orders the other way from the whole.
    pub(crate) fn edge_compare(&self, ch: &mut Choices<'_>, depth: u32) -> Expr {
        let ints: Vec<DataType> = types(self.features)
            .into_iter()
            .filter(|t| t.is_integer())
            .collect();
        let wide: Vec<DataType> = ints
            .iter()
            .copied()
            .filter(|t| t.size_bytes() == 8)
            .collect();
        let pool = if !wide.is_empty() && ch.one_in(2) {
            wide
        } else {
            ints
        };
        let Some(&ty) = pool.get(ch.below(pool.len())) else {
            return Expr::bool(false);
        };
        let v = self.edge_operand(ch, ty, depth);
        let v = match ch.below(4) {
            0 | 1 => Expr::shl(v, Expr::u32(1 + ch.below(3) as u32)),
            2 => Expr::shr(v, Expr::u32(1 + ch.below(3) as u32)),
            _ => v,
        };
        let op = [BinOp::Lt, BinOp::Le, BinOp::Gt, BinOp::Ge][ch.below(4)];
        let literal = self.edge_literal(ch, ty);
        if ch.one_in(2) {
            bin(op, literal, v)
        } else {
            bin(op, v, literal)
        }
    }

    /// An operand for the edge shapes: a variable of the type (a loop counter half the time where
    /// there is one), `tid` converted to it, or any expression.
    pub(crate) fn edge_operand(&self, ch: &mut Choices<'_>, ty: DataType, depth: u32) -> Expr {
        match ch.below(4) {
            0 | 1 => {
                let of_type = self.vars.iter().filter(|v| v.ty == ty);
                let counters: Vec<&str> = of_type
                    .clone()
                    .filter(|v| v.counter)
                    .map(|v| v.name.as_str())
                    .collect();
                let vars: Vec<&str> = of_type.map(|v| v.name.as_str()).collect();
                let pool = if !counters.is_empty() && ch.one_in(2) {
                    counters
                } else {
                    vars
                };
                match pool.get(ch.below(pool.len())) {
                    Some(name) => Expr::var(*name),
                    None => self.expr(ch, ty, depth),
                }
            }
            2 if ty == DataType::U32 => Expr::var(TID),
            2 => Expr::cast(ty, Expr::var(TID)),
            _ => self.expr(ch, ty, depth),
        }
    }

    /// A literal of integer type `ty` at an edge of its range (see [`edge_value`]).
    pub(crate) fn edge_literal(&self, ch: &mut Choices<'_>, ty: DataType) -> Expr {
        let word = ch.next_word();
        let k = if ty.size_bytes() == 8 {
            ch.next_word()
        } else {
            0
        };
        edge_value(ty, word, k)
    }

    /// The first bound of a one-trip loop: a large literal (any word, or near MIN or MAX), so the
    /// counter holds a value far from the small ones other expressions produce.
    pub(crate) fn large_bound(&self, ch: &mut Choices<'_>, ty: DataType) -> Expr {
        let word = ch.next_word();
        match (ty, word % 4) {
            (DataType::I32, 0) => Expr::i32(i32::MAX - (word >> 2) as i32 % 4),
            (DataType::I32, 1) => Expr::i32(i32::MIN + (word >> 2) as i32 % 4),
            (DataType::I32, _) => Expr::i32((word >> 1) as i32),
            (_, 0) => Expr::u32(u32::MAX - (word >> 2) % 4),
            (_, _) => Expr::u32(word),
        }
    }
}

impl Ctx {
    /// The first statement of a one-trip loop from a large bound: a store of an edge shape of its
    /// counter `i` (`max(a, -i)` with `a` often another counter, `min(i, -i)`, `-i` against an edge
    /// literal), converted to the stored element's type, as in the H100 case
    /// (`out4[tid] = max(out4[tid], max(i2, -i1))`). Left to chance, a counter reached such a shape
    /// in an observed place in about one program in 5000.
    pub(crate) fn feed_counter(&mut self, ch: &mut Choices<'_>, counter: &str, ty: DataType) {
        let targets = self.store_targets();
        let Some(&target) = targets.get(ch.below(targets.len())) else {
            return;
        };
        let op = min_or_max(ch.next_word());
        let i = Expr::var(counter);
        let edge = match ch.below(4) {
            0 | 1 => {
                // Another value: `max(i, -i)` is in case 2.
                let mut other = self.edge_operand(ch, ty, SHALLOW);
                if other == i {
                    other = self.edge_literal(ch, ty);
                }
                bin(op, other, negate(ty, i))
            }
            2 => bin(op, i.clone(), negate(ty, i)),
            _ => bin(op, negate(ty, i), self.edge_literal(ch, ty)),
        };
        let info = &self.buffers[target];
        let (name, element) = (info.decl.name.clone(), info.decl.element);
        let index = self.index(ch, info, SHALLOW);
        let value = if element == ty {
            edge
        } else {
            Expr::cast(element, self.moderate_cast_arg(element, ty, edge))
        };
        self.emit(Node::store(name, index, value));
    }
}

/// Expression depth for the operands of a counter's feed.
const SHALLOW: u32 = 2;

/// An edge literal of integer type `ty` from a choice word and, for 64-bit types, a word `k` that
/// offsets it: 0, ±1, MIN, MAX, `MIN + k`, `MAX - k`, and values whose low 32 bits order differently
/// from the whole value (a negative `i64` with a positive low word and the reverse).
pub(crate) fn edge_value(ty: DataType, word: u32, k: u32) -> Expr {
    let pick = (word >> 3) as usize;
    let k = u64::from(k >> 1);
    match ty {
        DataType::I32 if word % 8 == 7 => Expr::i32(word as i32),
        DataType::I32 => Expr::i32(I32_EDGES[pick % I32_EDGES.len()]),
        DataType::I64 => Expr::i64(match word % 8 {
            0 => 0,
            1 => -1,
            2 => 1,
            3 => i64::MIN + k as i64,
            4 => i64::MAX - k as i64,
            5 => i64::MIN,
            // Negative, with a low word of either sign.
            6 => -(((k << 32) | u64::from(word)) as i64),
            // Positive, with a negative low word.
            _ => ((k << 32) | 0x8000_0000 | u64::from(word)) as i64,
        }),
        DataType::U64 => Expr::u64(match word % 8 {
            0 => 0,
            1 => 1,
            2 => u64::MAX,
            3 => (1 << 63) + k,
            4 => u64::MAX - k,
            5 => (1 << 32) + k,
            6 => (k << 32) | 0xffff_fff0 | u64::from(word & 0xf),
            _ => (k << 32) | u64::from(word >> 1),
        }),
        _ if word % 8 == 7 => Expr::u32(word),
        _ => Expr::u32(U32_EDGES[pick % U32_EDGES.len()]),
    }
}

/// `min` for even words (what a shrunk word picks), else `max`.
fn min_or_max(word: u32) -> BinOp {
    if word.is_multiple_of(2) {
        BinOp::Min
    } else {
        BinOp::Max
    }
}

/// `-v` for signed types, `0 - v` for unsigned ones (no `neg` there).
pub(crate) fn negate(ty: DataType, v: Expr) -> Expr {
    if ty.is_signed() {
        Expr::neg(v)
    } else {
        Expr::sub(zero(ty), v)
    }
}

/// The zero of integer type `ty`.
pub(crate) fn zero(ty: DataType) -> Expr {
    int_literal(ty, 0)
}

/// The all-ones value of integer type `ty` (`-1` when signed).
fn minus_one(ty: DataType) -> Expr {
    int_literal(ty, u64::MAX)
}

/// The literal of integer type `ty` with the low bits of `bits`.
pub(crate) fn int_literal(ty: DataType, bits: u64) -> Expr {
    match ty {
        DataType::I32 => Expr::i32(bits as u32 as i32),
        DataType::U64 => Expr::u64(bits),
        DataType::I64 => Expr::i64(bits as i64),
        _ => Expr::u32(bits as u32),
    }
}
