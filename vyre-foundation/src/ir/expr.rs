//! Pure expressions.
//!
//! An [`Expr`] computes a value and has no side effects, with one explicit exception: the
//! [`Expr::Atomic`] family reads and writes memory and returns the old value. Every subexpression is
//! evaluated exactly once, left to right (operands in the order they are written, no short-circuit for
//! `and`/`or`, both arms of `select`), so the order of atomics inside one expression is defined.

use crate::ir::{AtomicOp, BinOp, Builtin, DataType, Literal, SubgroupOp, UnOp};

/// A pure expression (atomics excepted, see the module docs).
///
/// Rust's arithmetic and bit operators build the same IR as the named constructors (`a + b` is
/// `Expr::add(a, b)`), and a Rust number on the right is a literal of its own type. They build IR;
/// they compute nothing, and the validator checks the types as for the constructors.
///
/// ```
/// use vyre_foundation::ir::Expr;
///
/// let i = Expr::gid_x();
/// assert_eq!(
///     i.clone() * 4u32 + 1u32,
///     Expr::add(Expr::mul(i.clone(), Expr::u32(4)), Expr::u32(1))
/// );
/// assert_eq!((i.clone() << 2u32) ^ i.clone(), Expr::bit_xor(Expr::shl(i.clone(), Expr::u32(2)), i));
/// assert_eq!(-Expr::f32(1.5), Expr::neg(Expr::f32(1.5)));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Expr {
    /// A literal.
    Lit(Literal),
    /// A variable bound by `let` or by a loop.
    Var(String),
    /// Element `index` of `buffer`; out of bounds reads `0`.
    Load {
        /// The buffer's name.
        buffer: String,
        /// A `u32` or `i32` element index.
        index: Box<Expr>,
    },
    /// The element count of a buffer, as `u32`.
    BufLen(String),
    /// Element `index` of the invocation's private array `array` (declared by
    /// [`crate::ir::Node::PrivateArray`]); out of bounds reads `0`.
    ArrayLoad {
        /// The array's name.
        array: String,
        /// A `u32` or `i32` element index.
        index: Box<Expr>,
    },
    /// An invocation id component.
    Builtin(Builtin),
    /// A binary operation.
    Binary {
        /// The operator.
        op: BinOp,
        /// The left operand.
        lhs: Box<Expr>,
        /// The right operand.
        rhs: Box<Expr>,
    },
    /// A unary operation.
    Unary {
        /// The operator.
        op: UnOp,
        /// The operand.
        arg: Box<Expr>,
    },
    /// `cond ? on_true : on_false`; both arms are evaluated.
    Select {
        /// A bool.
        cond: Box<Expr>,
        /// The value when `cond` is true.
        on_true: Box<Expr>,
        /// The value when `cond` is false.
        on_false: Box<Expr>,
    },
    /// A value conversion to `to`.
    Cast {
        /// The target type.
        to: DataType,
        /// The value.
        arg: Box<Expr>,
    },
    /// A reinterpretation of the 32 bits of a numeric value as another numeric type.
    Bitcast {
        /// The target type.
        to: DataType,
        /// The value.
        arg: Box<Expr>,
    },
    /// `a * b + c` on f32, fused or not (see `SEMANTICS.md`).
    Fma {
        /// The first factor.
        a: Box<Expr>,
        /// The second factor.
        b: Box<Expr>,
        /// The addend.
        c: Box<Expr>,
    },
    /// An atomic read-modify-write of `buffer[index]`; yields the old value.
    Atomic {
        /// The operation.
        op: AtomicOp,
        /// The buffer's name.
        buffer: String,
        /// A `u32` or `i32` element index.
        index: Box<Expr>,
        /// For `CompareExchange`: the value compared against. `None` otherwise.
        expected: Option<Box<Expr>>,
        /// The operand (the new value for exchanges).
        value: Box<Expr>,
    },
    /// A collective operation over the invocation's subgroup (see `SEMANTICS.md`); needs
    /// [`crate::ir::Features::SUBGROUPS`] and workgroup-uniform control flow.
    Subgroup {
        /// The operation.
        op: SubgroupOp,
        /// The operand each lane contributes.
        arg: Box<Expr>,
    },
    /// `value` as lane `lane` of the subgroup computed it; `0` (of `value`'s type) when that lane
    /// does not exist. Needs [`crate::ir::Features::SUBGROUPS`] and workgroup-uniform control flow.
    SubgroupShuffle {
        /// The value each lane contributes.
        value: Box<Expr>,
        /// The `u32` lane to read.
        lane: Box<Expr>,
    },
}

impl Expr {
    /// Iterates over the direct children in evaluation order.
    pub fn children(&self) -> impl Iterator<Item = &Expr> {
        let mut out: [Option<&Expr>; 3] = [None, None, None];
        match self {
            Expr::Lit(_) | Expr::Var(_) | Expr::BufLen(_) | Expr::Builtin(_) => {}
            Expr::Load { index, .. } | Expr::ArrayLoad { index, .. } => out[0] = Some(index),
            Expr::Binary { lhs, rhs, .. } => {
                out[0] = Some(lhs);
                out[1] = Some(rhs);
            }
            Expr::Unary { arg, .. }
            | Expr::Cast { arg, .. }
            | Expr::Bitcast { arg, .. }
            | Expr::Subgroup { arg, .. } => out[0] = Some(arg),
            Expr::SubgroupShuffle { value, lane } => {
                out[0] = Some(value);
                out[1] = Some(lane);
            }
            Expr::Select {
                cond,
                on_true,
                on_false,
            } => out = [Some(cond), Some(on_true), Some(on_false)],
            Expr::Fma { a, b, c } => out = [Some(a), Some(b), Some(c)],
            Expr::Atomic {
                index,
                expected,
                value,
                ..
            } => out = [Some(index), expected.as_deref(), Some(value)],
        }
        out.into_iter().flatten()
    }

    /// True when the expression contains a subgroup operation or a subgroup builtin.
    #[must_use]
    pub fn has_subgroup_op(&self) -> bool {
        matches!(
            self,
            Expr::Subgroup { .. }
                | Expr::SubgroupShuffle { .. }
                | Expr::Builtin(Builtin::SubgroupSize | Builtin::SubgroupInvocationId)
        ) || self.children().any(Expr::has_subgroup_op)
    }

    /// True when the expression contains an atomic operation.
    #[must_use]
    pub fn has_atomic(&self) -> bool {
        matches!(self, Expr::Atomic { .. }) || self.children().any(Expr::has_atomic)
    }

    /// True for `local_id(x) / subgroup_size()`, the invocation's subgroup (SEMANTICS.md,
    /// "Membership"): the one shape the validator knows to be the same in every lane of a
    /// subgroup without being the same across the workgroup.
    ///
    /// ```
    /// use vyre_foundation::ir::Expr;
    ///
    /// assert!(Expr::div(Expr::local_x(), Expr::subgroup_size()).is_subgroup_index());
    /// assert!(!Expr::div(Expr::local_x(), Expr::u32(32)).is_subgroup_index());
    /// ```
    #[must_use]
    pub fn is_subgroup_index(&self) -> bool {
        matches!(
            self,
            Expr::Binary { op: BinOp::Div, lhs, rhs }
                if matches!(**lhs, Expr::Builtin(Builtin::LocalId(crate::ir::Axis::X)))
                    && matches!(**rhs, Expr::Builtin(Builtin::SubgroupSize))
        )
    }
}
