//! Pure expressions.
//!
//! An [`Expr`] computes a value and has no side effects, with one explicit exception: the
//! [`Expr::Atomic`] family reads and writes memory and returns the old value. Every subexpression is
//! evaluated exactly once, left to right (operands in the order they are written, no short-circuit for
//! `and`/`or`, both arms of `select`), so the order of atomics inside one expression is defined.

use crate::ir::DataType;

/// A literal value. Floats are kept as their bits so literals hash and compare exactly.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Literal {
    /// A boolean.
    Bool(bool),
    /// An unsigned 32-bit integer.
    U32(u32),
    /// A signed 32-bit integer.
    I32(i32),
    /// The bits of an `f32`.
    F32(u32),
}

impl Literal {
    /// The literal's type.
    #[must_use]
    pub const fn ty(self) -> DataType {
        match self {
            Literal::Bool(_) => DataType::Bool,
            Literal::U32(_) => DataType::U32,
            Literal::I32(_) => DataType::I32,
            Literal::F32(_) => DataType::F32,
        }
    }

    /// The literal as the 32-bit word a buffer would hold.
    #[must_use]
    pub const fn to_bits(self) -> u32 {
        match self {
            Literal::Bool(b) => b as u32,
            Literal::U32(v) => v,
            Literal::I32(v) => v as u32,
            Literal::F32(bits) => bits,
        }
    }
}

/// One of the three axes of an invocation id.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Axis {
    /// The first axis.
    X,
    /// The second axis.
    Y,
    /// The third axis.
    Z,
}

impl Axis {
    /// The index of the axis: 0, 1 or 2.
    #[must_use]
    pub const fn index(self) -> usize {
        match self {
            Axis::X => 0,
            Axis::Y => 1,
            Axis::Z => 2,
        }
    }

    /// The lower-case letter of the axis.
    #[must_use]
    pub const fn letter(self) -> char {
        match self {
            Axis::X => 'x',
            Axis::Y => 'y',
            Axis::Z => 'z',
        }
    }
}

/// An invocation id component; every builtin is a `u32`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Builtin {
    /// `global_invocation_id`: `workgroup_id * workgroup_size + local_invocation_id`.
    GlobalId(Axis),
    /// `local_invocation_id`: the position inside the workgroup.
    LocalId(Axis),
    /// `workgroup_id`: the position of the workgroup in the grid.
    WorkgroupId(Axis),
    /// `num_workgroups`: the grid size.
    NumWorkgroups(Axis),
}

impl Builtin {
    /// True for builtins that are the same for every invocation of a workgroup.
    #[must_use]
    pub const fn is_workgroup_uniform(self) -> bool {
        matches!(self, Builtin::WorkgroupId(_) | Builtin::NumWorkgroups(_))
    }

    /// The name used by the text form, e.g. `gid.x`.
    #[must_use]
    pub fn name(self) -> String {
        let (base, axis) = match self {
            Builtin::GlobalId(a) => ("gid", a),
            Builtin::LocalId(a) => ("lid", a),
            Builtin::WorkgroupId(a) => ("wid", a),
            Builtin::NumWorkgroups(a) => ("nwg", a),
        };
        format!("{base}.{}", axis.letter())
    }
}

/// Binary operators. See `SEMANTICS.md` for their exact meaning.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum BinOp {
    /// Wrapping addition (integers), IEEE addition (f32).
    Add,
    /// Wrapping subtraction (integers), IEEE subtraction (f32).
    Sub,
    /// Wrapping multiplication (integers), IEEE multiplication (f32).
    Mul,
    /// Truncating division; `x / 0 = x`, `MIN / -1 = MIN`.
    Div,
    /// Truncating remainder; `x % 0 = 0`, `MIN % -1 = 0`.
    Rem,
    /// Bitwise and (integers).
    BitAnd,
    /// Bitwise or (integers).
    BitOr,
    /// Bitwise exclusive or (integers).
    BitXor,
    /// Left shift by `rhs mod 32` (integer lhs, `u32` rhs).
    Shl,
    /// Right shift by `rhs mod 32`, arithmetic for `i32` (integer lhs, `u32` rhs).
    Shr,
    /// Equality.
    Eq,
    /// Inequality.
    Ne,
    /// Less than (numeric).
    Lt,
    /// Less than or equal (numeric).
    Le,
    /// Greater than (numeric).
    Gt,
    /// Greater than or equal (numeric).
    Ge,
    /// Logical and of two bools (both sides always evaluated).
    And,
    /// Logical or of two bools (both sides always evaluated).
    Or,
    /// Minimum (numeric).
    Min,
    /// Maximum (numeric).
    Max,
}

impl BinOp {
    /// Every binary operator.
    pub const ALL: [BinOp; 20] = [
        BinOp::Add,
        BinOp::Sub,
        BinOp::Mul,
        BinOp::Div,
        BinOp::Rem,
        BinOp::BitAnd,
        BinOp::BitOr,
        BinOp::BitXor,
        BinOp::Shl,
        BinOp::Shr,
        BinOp::Eq,
        BinOp::Ne,
        BinOp::Lt,
        BinOp::Le,
        BinOp::Gt,
        BinOp::Ge,
        BinOp::And,
        BinOp::Or,
        BinOp::Min,
        BinOp::Max,
    ];

    /// The operator's name in the text form.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            BinOp::Add => "add",
            BinOp::Sub => "sub",
            BinOp::Mul => "mul",
            BinOp::Div => "div",
            BinOp::Rem => "rem",
            BinOp::BitAnd => "bit_and",
            BinOp::BitOr => "bit_or",
            BinOp::BitXor => "bit_xor",
            BinOp::Shl => "shl",
            BinOp::Shr => "shr",
            BinOp::Eq => "eq",
            BinOp::Ne => "ne",
            BinOp::Lt => "lt",
            BinOp::Le => "le",
            BinOp::Gt => "gt",
            BinOp::Ge => "ge",
            BinOp::And => "and",
            BinOp::Or => "or",
            BinOp::Min => "min",
            BinOp::Max => "max",
        }
    }

    /// True for the comparisons, whose result is `Bool`.
    #[must_use]
    pub const fn is_comparison(self) -> bool {
        matches!(
            self,
            BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge
        )
    }

    /// The result type for operands of type `lhs` and `rhs`, or `None` when the operator does not
    /// accept them.
    #[must_use]
    pub fn result_type(self, lhs: DataType, rhs: DataType) -> Option<DataType> {
        use DataType as T;
        match self {
            BinOp::Add
            | BinOp::Sub
            | BinOp::Mul
            | BinOp::Div
            | BinOp::Rem
            | BinOp::Min
            | BinOp::Max => (lhs == rhs && lhs.is_numeric()).then_some(lhs),
            BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor => {
                (lhs == rhs && lhs.is_integer()).then_some(lhs)
            }
            BinOp::Shl | BinOp::Shr => (lhs.is_integer() && rhs == T::U32).then_some(lhs),
            BinOp::Eq | BinOp::Ne => (lhs == rhs).then_some(T::Bool),
            BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => {
                (lhs == rhs && lhs.is_numeric()).then_some(T::Bool)
            }
            BinOp::And | BinOp::Or => (lhs == T::Bool && rhs == T::Bool).then_some(T::Bool),
        }
    }
}

/// Unary operators. See `SEMANTICS.md` for their exact meaning.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum UnOp {
    /// Negation (`i32` wrapping, `f32`).
    Neg,
    /// Bitwise complement (integers).
    BitNot,
    /// Logical not (bool).
    Not,
    /// Absolute value (`abs(i32::MIN) = i32::MIN`; identity on `u32`).
    Abs,
    /// Number of set bits (integers).
    Popcount,
    /// Leading zero bits, 32 for 0 (integers).
    Clz,
    /// Trailing zero bits, 32 for 0 (integers).
    Ctz,
    /// Bit reversal (integers).
    ReverseBits,
    /// Square root (f32).
    Sqrt,
    /// `1 / sqrt(x)` (f32).
    InverseSqrt,
    /// `e^x` (f32).
    Exp,
    /// `2^x` (f32).
    Exp2,
    /// Natural logarithm (f32).
    Log,
    /// Base-2 logarithm (f32).
    Log2,
    /// Sine (f32).
    Sin,
    /// Cosine (f32).
    Cos,
    /// Round towards negative infinity (f32).
    Floor,
    /// Round towards positive infinity (f32).
    Ceil,
    /// Round to nearest, ties to even (f32).
    Round,
    /// Round towards zero (f32).
    Trunc,
    /// `x - floor(x)` (f32).
    Fract,
}

impl UnOp {
    /// Every unary operator.
    pub const ALL: [UnOp; 21] = [
        UnOp::Neg,
        UnOp::BitNot,
        UnOp::Not,
        UnOp::Abs,
        UnOp::Popcount,
        UnOp::Clz,
        UnOp::Ctz,
        UnOp::ReverseBits,
        UnOp::Sqrt,
        UnOp::InverseSqrt,
        UnOp::Exp,
        UnOp::Exp2,
        UnOp::Log,
        UnOp::Log2,
        UnOp::Sin,
        UnOp::Cos,
        UnOp::Floor,
        UnOp::Ceil,
        UnOp::Round,
        UnOp::Trunc,
        UnOp::Fract,
    ];

    /// The operator's name in the text form.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            UnOp::Neg => "neg",
            UnOp::BitNot => "bit_not",
            UnOp::Not => "not",
            UnOp::Abs => "abs",
            UnOp::Popcount => "popcount",
            UnOp::Clz => "clz",
            UnOp::Ctz => "ctz",
            UnOp::ReverseBits => "reverse_bits",
            UnOp::Sqrt => "sqrt",
            UnOp::InverseSqrt => "inverse_sqrt",
            UnOp::Exp => "exp",
            UnOp::Exp2 => "exp2",
            UnOp::Log => "log",
            UnOp::Log2 => "log2",
            UnOp::Sin => "sin",
            UnOp::Cos => "cos",
            UnOp::Floor => "floor",
            UnOp::Ceil => "ceil",
            UnOp::Round => "round",
            UnOp::Trunc => "trunc",
            UnOp::Fract => "fract",
        }
    }

    /// True for the f32-only math functions (`sqrt` through `fract`).
    #[must_use]
    pub const fn is_float_math(self) -> bool {
        !matches!(
            self,
            UnOp::Neg
                | UnOp::BitNot
                | UnOp::Not
                | UnOp::Abs
                | UnOp::Popcount
                | UnOp::Clz
                | UnOp::Ctz
                | UnOp::ReverseBits
        )
    }

    /// The result type for an operand of type `arg`, or `None` when the operator does not accept it.
    #[must_use]
    pub fn result_type(self, arg: DataType) -> Option<DataType> {
        use DataType as T;
        let ok = match self {
            UnOp::Neg => matches!(arg, T::I32 | T::F32),
            UnOp::BitNot | UnOp::Popcount | UnOp::Clz | UnOp::Ctz | UnOp::ReverseBits => {
                arg.is_integer()
            }
            UnOp::Not => arg == T::Bool,
            UnOp::Abs => arg.is_numeric(),
            _ => arg == T::F32,
        };
        ok.then_some(arg)
    }
}

/// Atomic read-modify-write operations on `u32`/`i32` storage or workgroup buffers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum AtomicOp {
    /// Wrapping add.
    Add,
    /// Wrapping subtract.
    Sub,
    /// Minimum.
    Min,
    /// Maximum.
    Max,
    /// Bitwise and.
    And,
    /// Bitwise or.
    Or,
    /// Bitwise exclusive or.
    Xor,
    /// Unconditional exchange.
    Exchange,
    /// Store `value` only if the current value equals `expected`.
    CompareExchange,
}

impl AtomicOp {
    /// Every atomic operation.
    pub const ALL: [AtomicOp; 9] = [
        AtomicOp::Add,
        AtomicOp::Sub,
        AtomicOp::Min,
        AtomicOp::Max,
        AtomicOp::And,
        AtomicOp::Or,
        AtomicOp::Xor,
        AtomicOp::Exchange,
        AtomicOp::CompareExchange,
    ];

    /// The operation's name in the text form.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            AtomicOp::Add => "atomic_add",
            AtomicOp::Sub => "atomic_sub",
            AtomicOp::Min => "atomic_min",
            AtomicOp::Max => "atomic_max",
            AtomicOp::And => "atomic_and",
            AtomicOp::Or => "atomic_or",
            AtomicOp::Xor => "atomic_xor",
            AtomicOp::Exchange => "atomic_exchange",
            AtomicOp::CompareExchange => "atomic_compare_exchange",
        }
    }
}

/// A pure expression (atomics excepted, see the module docs).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
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
}

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

    /// Iterates over the direct children in evaluation order.
    pub fn children(&self) -> impl Iterator<Item = &Expr> {
        let mut out: [Option<&Expr>; 3] = [None, None, None];
        match self {
            Expr::Lit(_) | Expr::Var(_) | Expr::BufLen(_) | Expr::Builtin(_) => {}
            Expr::Load { index, .. } => out[0] = Some(index),
            Expr::Binary { lhs, rhs, .. } => {
                out[0] = Some(lhs);
                out[1] = Some(rhs);
            }
            Expr::Unary { arg, .. } | Expr::Cast { arg, .. } | Expr::Bitcast { arg, .. } => {
                out[0] = Some(arg)
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

    /// True when the expression contains an atomic operation.
    #[must_use]
    pub fn has_atomic(&self) -> bool {
        matches!(self, Expr::Atomic { .. }) || self.children().any(Expr::has_atomic)
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

impl Drop for Expr {
    /// Dropping is iterative so that a pathologically deep expression (which the validator rejects)
    /// cannot overflow the stack when it is freed.
    fn drop(&mut self) {
        let mut stack: Vec<Box<Expr>> = Vec::new();
        take_children(self, &mut stack);
        while let Some(mut child) = stack.pop() {
            take_children(&mut child, &mut stack);
        }
    }
}

#[allow(clippy::vec_box)] // The boxes are moved out of the tree as they are; unboxing would copy.
fn take_children(expr: &mut Expr, stack: &mut Vec<Box<Expr>>) {
    let leaf = || Box::new(Expr::Lit(Literal::Bool(false)));
    let mut take = |slot: &mut Box<Expr>| {
        if !matches!(
            **slot,
            Expr::Lit(_) | Expr::Var(_) | Expr::BufLen(_) | Expr::Builtin(_)
        ) {
            stack.push(std::mem::replace(slot, leaf()));
        }
    };
    match expr {
        Expr::Lit(_) | Expr::Var(_) | Expr::BufLen(_) | Expr::Builtin(_) => {}
        Expr::Load { index, .. } => take(index),
        Expr::Binary { lhs, rhs, .. } => {
            take(lhs);
            take(rhs);
        }
        Expr::Unary { arg, .. } | Expr::Cast { arg, .. } | Expr::Bitcast { arg, .. } => take(arg),
        Expr::Select {
            cond,
            on_true,
            on_false,
        } => {
            take(cond);
            take(on_true);
            take(on_false);
        }
        Expr::Fma { a, b, c } => {
            take(a);
            take(b);
            take(c);
        }
        Expr::Atomic {
            index,
            expected,
            value,
            ..
        } => {
            take(index);
            if let Some(e) = expected {
                take(e);
            }
            take(value);
        }
    }
}
