//! The constructors users build expressions with, named as they read in the text form
//! (`Expr::add`, `Expr::load`, `Expr::gid_x`...). They build IR; they compute nothing.

use crate::ir::{AtomicOp, Axis, BinOp, Builtin, DataType, Expr, Literal, UnOp};

/// Constructors, named as they read in the text form.
impl Expr {
    /// A `u32` literal.
    #[must_use]
    pub fn u32(value: u32) -> Self {
        Expr::Lit(Literal::U32(value))
    }

    /// An `i32` literal.
    #[must_use]
    pub fn i32(value: i32) -> Self {
        Expr::Lit(Literal::I32(value))
    }

    /// An `f32` literal (kept as its bits, so `-0.0` and every NaN payload are distinct).
    #[must_use]
    pub fn f32(value: f32) -> Self {
        Expr::Lit(Literal::F32(value.to_bits()))
    }

    /// An `f16` literal: `value` rounded to the nearest `f16`, ties to even (so `Expr::f16(0.1)` holds
    /// the `f16` nearest to the `f32` nearest to 0.1). Use [`Expr::f16_bits`] for an exact bit pattern.
    #[must_use]
    pub fn f16(value: f32) -> Self {
        Expr::Lit(Literal::F16(crate::ir::f32_to_f16_bits(value)))
    }

    /// An `f16` literal from its 16 bits (IEEE binary16): every NaN payload and `-0.0` included.
    #[must_use]
    pub fn f16_bits(bits: u16) -> Self {
        Expr::Lit(Literal::F16(bits))
    }

    /// A `u64` literal.
    #[must_use]
    pub fn u64(value: u64) -> Self {
        Expr::Lit(Literal::U64(value))
    }

    /// An `i64` literal.
    #[must_use]
    pub fn i64(value: i64) -> Self {
        Expr::Lit(Literal::I64(value))
    }

    /// A `bool` literal.
    #[must_use]
    pub fn bool(value: bool) -> Self {
        Expr::Lit(Literal::Bool(value))
    }

    /// A variable reference.
    #[must_use]
    pub fn var(name: impl Into<String>) -> Self {
        Expr::Var(name.into())
    }

    /// `buffer[index]`.
    #[must_use]
    pub fn load(buffer: impl Into<String>, index: Expr) -> Self {
        Expr::Load {
            buffer: buffer.into(),
            index: Box::new(index),
        }
    }

    /// `array.[index]`: element `index` of the private array `array`.
    #[must_use]
    pub fn array_load(array: impl Into<String>, index: Expr) -> Self {
        Expr::ArrayLoad {
            array: array.into(),
            index: Box::new(index),
        }
    }

    /// The element count of `buffer`.
    #[must_use]
    pub fn buf_len(buffer: impl Into<String>) -> Self {
        Expr::BufLen(buffer.into())
    }

    /// `global_invocation_id.x`.
    #[must_use]
    pub fn gid_x() -> Self {
        Expr::Builtin(Builtin::GlobalId(Axis::X))
    }
    /// `global_invocation_id.y`.
    #[must_use]
    pub fn gid_y() -> Self {
        Expr::Builtin(Builtin::GlobalId(Axis::Y))
    }
    /// `global_invocation_id.z`.
    #[must_use]
    pub fn gid_z() -> Self {
        Expr::Builtin(Builtin::GlobalId(Axis::Z))
    }
    /// `local_invocation_id.x`.
    #[must_use]
    pub fn local_x() -> Self {
        Expr::Builtin(Builtin::LocalId(Axis::X))
    }
    /// `local_invocation_id.y`.
    #[must_use]
    pub fn local_y() -> Self {
        Expr::Builtin(Builtin::LocalId(Axis::Y))
    }
    /// `local_invocation_id.z`.
    #[must_use]
    pub fn local_z() -> Self {
        Expr::Builtin(Builtin::LocalId(Axis::Z))
    }
    /// `workgroup_id.x`.
    #[must_use]
    pub fn workgroup_x() -> Self {
        Expr::Builtin(Builtin::WorkgroupId(Axis::X))
    }
    /// `workgroup_id.y`.
    #[must_use]
    pub fn workgroup_y() -> Self {
        Expr::Builtin(Builtin::WorkgroupId(Axis::Y))
    }
    /// `workgroup_id.z`.
    #[must_use]
    pub fn workgroup_z() -> Self {
        Expr::Builtin(Builtin::WorkgroupId(Axis::Z))
    }
    /// `num_workgroups.x`.
    #[must_use]
    pub fn num_workgroups_x() -> Self {
        Expr::Builtin(Builtin::NumWorkgroups(Axis::X))
    }
    /// `num_workgroups.y`.
    #[must_use]
    pub fn num_workgroups_y() -> Self {
        Expr::Builtin(Builtin::NumWorkgroups(Axis::Y))
    }
    /// `num_workgroups.z`.
    #[must_use]
    pub fn num_workgroups_z() -> Self {
        Expr::Builtin(Builtin::NumWorkgroups(Axis::Z))
    }

    /// A binary operation.
    #[must_use]
    pub fn binary(op: BinOp, lhs: Expr, rhs: Expr) -> Self {
        Expr::Binary {
            op,
            lhs: Box::new(lhs),
            rhs: Box::new(rhs),
        }
    }

    /// A unary operation.
    #[must_use]
    pub fn unary(op: UnOp, arg: Expr) -> Self {
        Expr::Unary {
            op,
            arg: Box::new(arg),
        }
    }

    /// `cond ? on_true : on_false`.
    #[must_use]
    pub fn select(cond: Expr, on_true: Expr, on_false: Expr) -> Self {
        Expr::Select {
            cond: Box::new(cond),
            on_true: Box::new(on_true),
            on_false: Box::new(on_false),
        }
    }

    /// A value conversion.
    #[must_use]
    pub fn cast(to: DataType, arg: Expr) -> Self {
        Expr::Cast {
            to,
            arg: Box::new(arg),
        }
    }

    /// A bit reinterpretation.
    #[must_use]
    pub fn bitcast(to: DataType, arg: Expr) -> Self {
        Expr::Bitcast {
            to,
            arg: Box::new(arg),
        }
    }

    /// `a * b + c` on f32.
    #[must_use]
    pub fn fma(a: Expr, b: Expr, c: Expr) -> Self {
        Expr::Fma {
            a: Box::new(a),
            b: Box::new(b),
            c: Box::new(c),
        }
    }

    /// An atomic read-modify-write (any op but `CompareExchange`); yields the old value.
    #[must_use]
    pub fn atomic(op: AtomicOp, buffer: impl Into<String>, index: Expr, value: Expr) -> Self {
        Expr::Atomic {
            op,
            buffer: buffer.into(),
            index: Box::new(index),
            expected: None,
            value: Box::new(value),
        }
    }

    /// `atomicCompareExchangeWeak`-like but strong: stores `value` if the element equals `expected`;
    /// yields the old value.
    #[must_use]
    pub fn atomic_compare_exchange(
        buffer: impl Into<String>,
        index: Expr,
        expected: Expr,
        value: Expr,
    ) -> Self {
        Expr::Atomic {
            op: AtomicOp::CompareExchange,
            buffer: buffer.into(),
            index: Box::new(index),
            expected: Some(Box::new(expected)),
            value: Box::new(value),
        }
    }
}

macro_rules! binary_constructors {
    ($($(#[$doc:meta])* $name:ident => $op:ident),* $(,)?) => {
        // The names (`add`, `sub`, ...) are the upstream API; they build IR, they do not compute.
        #[allow(clippy::should_implement_trait)]
        impl Expr {
            $(
                $(#[$doc])*
                #[must_use]
                pub fn $name(lhs: Expr, rhs: Expr) -> Self {
                    Expr::binary(BinOp::$op, lhs, rhs)
                }
            )*
        }
    };
}

binary_constructors! {
    /// `lhs + rhs`.
    add => Add,
    /// `lhs - rhs`.
    sub => Sub,
    /// `lhs * rhs`.
    mul => Mul,
    /// `lhs / rhs`.
    div => Div,
    /// `lhs % rhs`.
    rem => Rem,
    /// `lhs & rhs`.
    bit_and => BitAnd,
    /// `lhs | rhs`.
    bit_or => BitOr,
    /// `lhs ^ rhs`.
    bit_xor => BitXor,
    /// `lhs << (rhs mod 32)`.
    shl => Shl,
    /// `lhs >> (rhs mod 32)`.
    shr => Shr,
    /// `lhs == rhs`.
    eq => Eq,
    /// `lhs != rhs`.
    ne => Ne,
    /// `lhs < rhs`.
    lt => Lt,
    /// `lhs <= rhs`.
    le => Le,
    /// `lhs > rhs`.
    gt => Gt,
    /// `lhs >= rhs`.
    ge => Ge,
    /// `lhs && rhs` (both evaluated).
    and => And,
    /// `lhs || rhs` (both evaluated).
    or => Or,
    /// `min(lhs, rhs)`.
    min => Min,
    /// `max(lhs, rhs)`.
    max => Max,
}

macro_rules! unary_constructors {
    ($($(#[$doc:meta])* $name:ident => $op:ident),* $(,)?) => {
        #[allow(clippy::should_implement_trait)]
        impl Expr {
            $(
                $(#[$doc])*
                #[must_use]
                pub fn $name(arg: Expr) -> Self {
                    Expr::unary(UnOp::$op, arg)
                }
            )*
        }
    };
}

unary_constructors! {
    /// `-arg`.
    neg => Neg,
    /// `~arg`.
    bit_not => BitNot,
    /// `!arg`.
    not => Not,
    /// `abs(arg)`.
    abs => Abs,
    /// `countOneBits(arg)`.
    popcount => Popcount,
    /// `countLeadingZeros(arg)`.
    clz => Clz,
    /// `countTrailingZeros(arg)`.
    ctz => Ctz,
    /// `reverseBits(arg)`.
    reverse_bits => ReverseBits,
    /// `sqrt(arg)`.
    sqrt => Sqrt,
    /// `inverseSqrt(arg)`.
    inverse_sqrt => InverseSqrt,
    /// `exp(arg)`.
    exp => Exp,
    /// `exp2(arg)`.
    exp2 => Exp2,
    /// `log(arg)`.
    log => Log,
    /// `log2(arg)`.
    log2 => Log2,
    /// `sin(arg)`.
    sin => Sin,
    /// `cos(arg)`.
    cos => Cos,
    /// `floor(arg)`.
    floor => Floor,
    /// `ceil(arg)`.
    ceil => Ceil,
    /// `round(arg)` (ties to even).
    round => Round,
    /// `trunc(arg)`.
    trunc => Trunc,
    /// `fract(arg)`.
    fract => Fract,
}

macro_rules! atomic_constructors {
    ($($(#[$doc:meta])* $name:ident => $op:ident),* $(,)?) => {
        impl Expr {
            $(
                $(#[$doc])*
                #[must_use]
                pub fn $name(buffer: impl Into<String>, index: Expr, value: Expr) -> Self {
                    Expr::atomic(AtomicOp::$op, buffer, index, value)
                }
            )*
        }
    };
}

atomic_constructors! {
    /// Atomic wrapping add; yields the old value.
    atomic_add => Add,
    /// Atomic wrapping subtract; yields the old value.
    atomic_sub => Sub,
    /// Atomic minimum; yields the old value.
    atomic_min => Min,
    /// Atomic maximum; yields the old value.
    atomic_max => Max,
    /// Atomic and; yields the old value.
    atomic_and => And,
    /// Atomic or; yields the old value.
    atomic_or => Or,
    /// Atomic xor; yields the old value.
    atomic_xor => Xor,
    /// Atomic exchange; yields the old value.
    atomic_exchange => Exchange,
}

// Rust's operators, as the named constructors (documented on `Expr`).
macro_rules! operator_impls {
    ($($trait:ident :: $method:ident => $op:ident),* $(,)?) => {
        $(
            impl<R: Into<Expr>> std::ops::$trait<R> for Expr {
                type Output = Expr;

                fn $method(self, rhs: R) -> Expr {
                    Expr::binary(BinOp::$op, self, rhs.into())
                }
            }
        )*
    };
}

operator_impls! {
    Add::add => Add,
    Sub::sub => Sub,
    Mul::mul => Mul,
    Div::div => Div,
    Rem::rem => Rem,
    BitAnd::bitand => BitAnd,
    BitOr::bitor => BitOr,
    BitXor::bitxor => BitXor,
    Shl::shl => Shl,
    Shr::shr => Shr,
}

impl std::ops::Neg for Expr {
    type Output = Expr;

    fn neg(self) -> Expr {
        Expr::unary(UnOp::Neg, self)
    }
}

macro_rules! literal_from {
    ($($ty:ty => $constructor:ident),* $(,)?) => {
        $(
            impl From<$ty> for Expr {
                /// The literal of this value and type.
                fn from(value: $ty) -> Expr {
                    Expr::$constructor(value)
                }
            }
        )*
    };
}

literal_from! {
    bool => bool,
    u32 => u32,
    i32 => i32,
    f32 => f32,
    u64 => u64,
    i64 => i64,
}
