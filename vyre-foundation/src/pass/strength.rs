//! Strength reduction: integer multiplications, divisions and remainders by literal constants
//! become shifts, masks and negations.
//!
//! **The law of this pass.** Each rewrite gives the same bits as the operator it replaces for
//! every value of the other operand, `0`, `1`, `-1`, `MIN` and `MAX` included, under SEMANTICS.md
//! section 4 (N is the width, 32 or 64; every operation wraps modulo 2^N):
//!
//! - `x * c` and `c * x` where the bits of `c` are `2^k`, `k >= 1`, become `x << k`: both are
//!   `x * 2^k` modulo 2^N. That includes the signed `MIN` (`2^(N-1)` as bits): `x * MIN` is
//!   `x << (N-1)`.
//! - `x * -1`, `-1 * x` and `x / -1` on a signed type become `-x`: wrapping negation is
//!   multiplication by -1 modulo 2^N, and the law makes `MIN / -1 = MIN = -MIN`.
//! - Unsigned `x / 2^k` becomes `x >> k` (logical) and `x % 2^k` becomes `x & (2^k - 1)`, for
//!   `k >= 1`: truncating division of a non-negative value by 2^k drops its low k bits, which are
//!   the remainder.
//! - Signed `x / 2^k` and `x % 2^k` for `k >= 1` (a positive divisor, so `k <= N-2`): an
//!   arithmetic shift rounds towards negative infinity, but division truncates towards zero, so
//!   a negative `x` is first biased by `2^k - 1`. With `b = (x >> (N-1)) & (2^k - 1)` (that bias
//!   for negative `x`, 0 otherwise), `x / 2^k` is `(x + b) >> k` and `x % 2^k` is
//!   `((x + b) & (2^k - 1)) - b`. `x + b` cannot wrap (b is positive only for negative `x`), and
//!   `MIN` gives `-2^(N-1-k)` and `0`, as truncating division does. These read `x` three times,
//!   so they apply only where `x` is a variable or another leaf: each read is then the same
//!   value, and nothing is computed twice.
//!
//! A literal divisor that is not zero makes the law's `x / 0 = x` moot; the divisors 0 and 1 are
//! constant folding's (`const_fold` rewrites them by the law), not this pass's. Nothing else is
//! rewritten: a multiplication by another constant (`x * 3` as `(x << 1) + x`) would read `x`
//! twice and gains nothing on a GPU, and float operations are never exact under these rewrites.

use crate::ir::{BinOp, DataType, Expr, Literal, UnOp};
use crate::pass::rewrite::{self, Rewrite};
use crate::pass::{Outcome, Pass};
use crate::validate::Validated;

/// The strength reduction pass, `strength_reduce`; see the [module docs](self).
#[derive(Clone, Copy, Debug, Default)]
pub struct StrengthReduce;

impl Pass for StrengthReduce {
    fn name(&self) -> &'static str {
        "strength_reduce"
    }

    fn run(&self, program: &Validated<'_>) -> Outcome {
        match rewrite::program(program.program(), &mut Reducer) {
            Some(reduced) => Outcome::Changed(reduced),
            None => Outcome::Unchanged,
        }
    }
}

struct Reducer;

impl Rewrite for Reducer {
    fn expr(&mut self, original: &Expr, rebuilt: Option<Expr>) -> Option<Expr> {
        reduce(rebuilt.as_ref().unwrap_or(original)).or(rebuilt)
    }
}

/// An integer literal: its type and its bits, zero-extended.
#[derive(Clone, Copy)]
struct Constant {
    ty: DataType,
    bits: u64,
}

impl Constant {
    fn of(e: &Expr) -> Option<Constant> {
        let Expr::Lit(lit) = e else {
            return None;
        };
        let (ty, bits) = match *lit {
            Literal::U32(v) => (DataType::U32, u64::from(v)),
            Literal::I32(v) => (DataType::I32, u64::from(v as u32)),
            Literal::U64(v) => (DataType::U64, v),
            Literal::I64(v) => (DataType::I64, v as u64),
            Literal::Bool(_) | Literal::F32(_) | Literal::F16(_) => return None,
        };
        Some(Constant { ty, bits })
    }

    /// All N bits set: `-1` of a signed type.
    fn is_minus_one(self) -> bool {
        self.ty.is_signed() && self.bits == u64::MAX >> (64 - self.ty.bits())
    }

    /// `k` where the bits are `2^k`, `k >= 1`.
    fn log2(self) -> Option<u32> {
        (self.bits.is_power_of_two() && self.bits > 1).then(|| self.bits.trailing_zeros())
    }

    /// `k` where the value is a positive `2^k`, `k >= 1`: for a signed type the top bit is the
    /// sign, so `2^(N-1)` is `MIN`, not a power of two.
    fn positive_log2(self) -> Option<u32> {
        self.log2()
            .filter(|&k| !self.ty.is_signed() || k < self.ty.bits() - 1)
    }

    /// A literal of this constant's type with the bits `bits`.
    fn literal(self, bits: u64) -> Expr {
        Expr::Lit(match self.ty {
            DataType::I32 => Literal::I32(bits as u32 as i32),
            DataType::U64 => Literal::U64(bits),
            DataType::I64 => Literal::I64(bits as i64),
            DataType::U32 | DataType::Bool | DataType::F32 | DataType::F16 => {
                Literal::U32(bits as u32)
            }
        })
    }

    /// `2^k - 1` of this constant's type.
    fn mask(self, k: u32) -> Expr {
        self.literal((1u64 << k) - 1)
    }
}

/// `e` made cheaper, or `None` when no rule applies (`e` itself is never changed).
fn reduce(e: &Expr) -> Option<Expr> {
    let Expr::Binary { op, lhs, rhs } = e else {
        return None;
    };
    match op {
        BinOp::Mul => match Constant::of(rhs) {
            Some(c) => multiply(lhs, c),
            None => multiply(rhs, Constant::of(lhs)?),
        },
        BinOp::Div => divide(lhs, Constant::of(rhs)?),
        BinOp::Rem => remainder(lhs, Constant::of(rhs)?),
        BinOp::Add
        | BinOp::Sub
        | BinOp::BitAnd
        | BinOp::BitOr
        | BinOp::BitXor
        | BinOp::Shl
        | BinOp::Shr
        | BinOp::Eq
        | BinOp::Ne
        | BinOp::Lt
        | BinOp::Le
        | BinOp::Gt
        | BinOp::Ge
        | BinOp::And
        | BinOp::Or
        | BinOp::Min
        | BinOp::Max => None,
    }
}

fn binary(op: BinOp, lhs: Expr, rhs: Expr) -> Expr {
    Expr::Binary {
        op,
        lhs: Box::new(lhs),
        rhs: Box::new(rhs),
    }
}

fn negate(x: Expr) -> Expr {
    Expr::Unary {
        op: UnOp::Neg,
        arg: Box::new(x),
    }
}

fn amount(k: u32) -> Expr {
    Expr::Lit(Literal::U32(k))
}

/// `x * c`.
fn multiply(x: &Expr, c: Constant) -> Option<Expr> {
    if c.is_minus_one() {
        return Some(negate(Expr::clone(x)));
    }
    let k = c.log2()?;
    Some(binary(BinOp::Shl, Expr::clone(x), amount(k)))
}

/// `x / c`.
fn divide(x: &Expr, c: Constant) -> Option<Expr> {
    if c.is_minus_one() {
        return Some(negate(Expr::clone(x)));
    }
    let k = c.positive_log2()?;
    if !c.ty.is_signed() {
        return Some(binary(BinOp::Shr, Expr::clone(x), amount(k)));
    }
    if !leaf(x) {
        return None;
    }
    let x = Expr::clone(x);
    let biased = binary(BinOp::Add, x.clone(), bias(&x, c, k));
    Some(binary(BinOp::Shr, biased, amount(k)))
}

/// `x % c`.
fn remainder(x: &Expr, c: Constant) -> Option<Expr> {
    let k = c.positive_log2()?;
    if !c.ty.is_signed() {
        return Some(binary(BinOp::BitAnd, Expr::clone(x), c.mask(k)));
    }
    if !leaf(x) {
        return None;
    }
    let x = Expr::clone(x);
    let biased = binary(BinOp::Add, x.clone(), bias(&x, c, k));
    let low = binary(BinOp::BitAnd, biased, c.mask(k));
    Some(binary(BinOp::Sub, low, bias(&x, c, k)))
}

/// `(x >> (N-1)) & (2^k - 1)`: `2^k - 1` for a negative `x`, 0 otherwise.
fn bias(x: &Expr, c: Constant, k: u32) -> Expr {
    let sign = binary(BinOp::Shr, x.clone(), amount(c.ty.bits() - 1));
    binary(BinOp::BitAnd, sign, c.mask(k))
}

/// A variable, literal, builtin or `buf_len`: reading it again gives the same value and costs
/// nothing.
fn leaf(e: &Expr) -> bool {
    matches!(
        e,
        Expr::Var(_) | Expr::Lit(_) | Expr::Builtin(_) | Expr::BufLen(_)
    )
}

#[cfg(test)]
mod tests {
    //! One rule per test; `conformance/tests/pass_strength.rs` runs every rewrite on the reference
    //! interpreter over edge values.

    use super::StrengthReduce;
    use crate::ir::{BufferDecl, DataType, Expr, Node, Program};
    use crate::pass::Pipeline;

    /// What `value` (of type `ty`, over an input `x` of that type) becomes.
    fn reduced(ty: DataType, value: impl Fn(Expr) -> Expr) -> (Expr, Expr) {
        let x = Expr::load("x", Expr::gid_x());
        let program = Program::new(
            vec![
                BufferDecl::output("o", 0, ty).with_count(4),
                BufferDecl::read("x", 1, ty).with_count(4),
            ],
            [4, 1, 1],
            vec![
                Node::let_bind("v", x.clone()),
                Node::store("o", Expr::gid_x(), value(Expr::var("v"))),
                Node::store("o", Expr::u32(0), value(x)),
            ],
        );
        let out = match Pipeline::empty().with(StrengthReduce).run(&program) {
            Ok(out) => out.into_owned(),
            Err(e) => panic!("{e}"),
        };
        match &out.body[..] {
            [
                _,
                Node::Store { value: v, .. },
                Node::Store { value: l, .. },
            ] => (v.clone(), l.clone()),
            other => panic!("unexpected body {other:?}"),
        }
    }

    fn v() -> Expr {
        Expr::var("v")
    }

    #[test]
    fn multiplication_by_a_power_of_two_is_a_shift() {
        let (e, _) = reduced(DataType::U32, |x| Expr::mul(x, Expr::u32(8)));
        assert_eq!(e, Expr::shl(v(), Expr::u32(3)));
        let (e, _) = reduced(DataType::I64, |x| Expr::mul(Expr::i64(1 << 40), x));
        assert_eq!(e, Expr::shl(v(), Expr::u32(40)));
        // `MIN` is 2^31 as bits, and `x * 2^31` wraps as `x << 31` does.
        let (e, _) = reduced(DataType::I32, |x| Expr::mul(x, Expr::i32(i32::MIN)));
        assert_eq!(e, Expr::shl(v(), Expr::u32(31)));
    }

    #[test]
    fn multiplication_and_division_by_minus_one_are_negation() {
        let (e, _) = reduced(DataType::I32, |x| Expr::mul(x, Expr::i32(-1)));
        assert_eq!(e, Expr::neg(v()));
        let (e, _) = reduced(DataType::I64, |x| Expr::div(x, Expr::i64(-1)));
        assert_eq!(e, Expr::neg(v()));
        // For an unsigned type all ones is not -1.
        let (e, _) = reduced(DataType::U32, |x| Expr::mul(x, Expr::u32(u32::MAX)));
        assert_eq!(e, Expr::mul(v(), Expr::u32(u32::MAX)));
    }

    #[test]
    fn unsigned_division_and_remainder_by_a_power_of_two_are_shift_and_mask() {
        let (e, _) = reduced(DataType::U32, |x| Expr::div(x, Expr::u32(1 << 31)));
        assert_eq!(e, Expr::shr(v(), Expr::u32(31)));
        let (e, _) = reduced(DataType::U64, |x| Expr::rem(x, Expr::u64(16)));
        assert_eq!(e, Expr::bit_and(v(), Expr::u64(15)));
    }

    #[test]
    fn signed_division_by_a_power_of_two_biases_negative_values() {
        let (e, load) = reduced(DataType::I32, |x| Expr::div(x, Expr::i32(4)));
        let bias = Expr::bit_and(Expr::shr(v(), Expr::u32(31)), Expr::i32(3));
        assert_eq!(e, Expr::shr(Expr::add(v(), bias), Expr::u32(2)));
        // A load is not read three times.
        assert_eq!(
            load,
            Expr::div(Expr::load("x", Expr::gid_x()), Expr::i32(4))
        );
    }

    #[test]
    fn signed_remainder_by_a_power_of_two_biases_negative_values() {
        let (e, _) = reduced(DataType::I64, |x| Expr::rem(x, Expr::i64(2)));
        let bias = || Expr::bit_and(Expr::shr(v(), Expr::u32(63)), Expr::i64(1));
        let low = Expr::bit_and(Expr::add(v(), bias()), Expr::i64(1));
        assert_eq!(e, Expr::sub(low, bias()));
    }

    #[test]
    fn other_divisors_and_floats_are_left_alone() {
        for (ty, e) in [
            (DataType::U32, Expr::div(v(), Expr::u32(3))),
            (DataType::U32, Expr::div(v(), Expr::u32(0))),
            (DataType::I32, Expr::div(v(), Expr::i32(i32::MIN))),
            (DataType::I32, Expr::rem(v(), Expr::i32(-4))),
        ] {
            let (out, _) = reduced(ty, |x| match &e {
                Expr::Binary { op, rhs, .. } => Expr::binary(*op, x, (**rhs).clone()),
                other => other.clone(),
            });
            assert_eq!(out, e);
        }
        let (out, _) = reduced(DataType::F32, |x| Expr::mul(x, Expr::f32(2.0)));
        assert_eq!(out, Expr::mul(v(), Expr::f32(2.0)));
    }
}
