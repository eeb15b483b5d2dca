//! The operator enums and their one table.
//!
//! Each operator is defined exactly once, in the `operators!` invocations below: its variant, its
//! wire tag (its discriminant, the byte `WIRE.md` writes for it), its doc, its name in the text form,
//! its symbol (where the text form writes it as one) and its [`BinClass`]/[`UnClass`]. `ALL`, `name`,
//! `symbol`, `class` and the wire tags are generated from that one list, and
//! the operand and result types follow from the class, so the validator, `Display`, the generators
//! and the conformance catalogue all read the same table instead of retyping it.

use crate::ir::DataType;

/// Defines an operator enum with its table. Every variant is listed once, so a new operator cannot
/// be added without its wire tag, name, symbol and class.
///
/// The wire tag is the variant's explicit discriminant, so two operators given the same tag do not
/// compile (E0081). Tags are never reused or renumbered: a saved program names its operators by them.
macro_rules! operators {
    (
        $(#[$enum_meta:meta])*
        $vis:vis enum $Enum:ident : $Class:ident {
            $(
                $(#[$meta:meta])*
                $Variant:ident = $tag:literal => $name:literal, $symbol:expr, $class:ident;
            )*
        }
    ) => {
        $(#[$enum_meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
        #[repr(u8)]
        $vis enum $Enum {
            $( $(#[$meta])* $Variant = $tag, )*
        }

        impl $Enum {
            /// Every operator, in declaration order.
            pub const ALL: &'static [$Enum] = &[ $( $Enum::$Variant, )* ];

            /// The operator's name in the text form.
            #[must_use]
            pub const fn name(self) -> &'static str {
                match self { $( $Enum::$Variant => $name, )* }
            }

            /// The symbol the text form writes the operator as, if it has one (`+`, `~`...);
            /// operators without one print as calls (`min(a, b)`).
            #[must_use]
            pub const fn symbol(self) -> Option<&'static str> {
                match self { $( $Enum::$Variant => $symbol, )* }
            }

            /// The operator's class, which fixes the operand and result types it accepts.
            #[must_use]
            pub const fn class(self) -> $Class {
                match self { $( $Enum::$Variant => $Class::$class, )* }
            }

            /// The byte the wire format writes for this operator.
            #[must_use]
            pub(crate) const fn wire_tag(self) -> u8 {
                self as u8
            }

            /// The operator whose wire tag is `tag`, if there is one.
            #[must_use]
            pub(crate) const fn from_wire_tag(tag: u8) -> Option<Self> {
                match tag {
                    $( $tag => Some($Enum::$Variant), )*
                    _ => None,
                }
            }

            /// The operators of one class, in declaration order.
            pub fn of_class(class: $Class) -> impl Iterator<Item = $Enum> {
                Self::ALL.iter().copied().filter(move |op| op.class() == class)
            }
        }
    };
}

/// The classes of binary operators: the operand and result types of each operator follow from it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum BinClass {
    /// Two numeric operands of one type; the result has that type.
    Arithmetic,
    /// Two integer operands of one type; the result has that type.
    Bitwise,
    /// An integer left operand and a `u32` amount (taken mod the left operand's width); the result
    /// has the left operand's type.
    Shift,
    /// Two operands of any one type; the result is `Bool`.
    Equality,
    /// Two numeric operands of one type; the result is `Bool`.
    Ordering,
    /// Two `Bool` operands; the result is `Bool`.
    Logical,
}

operators! {
    /// Binary operators. See `SEMANTICS.md` for their exact meaning.
    pub enum BinOp: BinClass {
        /// Wrapping addition (integers), IEEE addition (f32).
        Add = 0 => "add", Some("+"), Arithmetic;
        /// Wrapping subtraction (integers), IEEE subtraction (f32).
        Sub = 1 => "sub", Some("-"), Arithmetic;
        /// Wrapping multiplication (integers), IEEE multiplication (f32).
        Mul = 2 => "mul", Some("*"), Arithmetic;
        /// Truncating division; `x / 0 = x`, `MIN / -1 = MIN`.
        Div = 3 => "div", Some("/"), Arithmetic;
        /// Truncating remainder; `x % 0 = 0`, `MIN % -1 = 0`.
        Rem = 4 => "rem", Some("%"), Arithmetic;
        /// Bitwise and (integers).
        BitAnd = 5 => "bit_and", Some("&"), Bitwise;
        /// Bitwise or (integers).
        BitOr = 6 => "bit_or", Some("|"), Bitwise;
        /// Bitwise exclusive or (integers).
        BitXor = 7 => "bit_xor", Some("^"), Bitwise;
        /// Left shift by `rhs mod 32` (`rhs mod 64` for 64-bit lhs; integer lhs, `u32` rhs).
        Shl = 8 => "shl", Some("<<"), Shift;
        /// Right shift by `rhs mod 32` (`mod 64` for 64-bit lhs), arithmetic for signed lhs.
        Shr = 9 => "shr", Some(">>"), Shift;
        /// Equality.
        Eq = 10 => "eq", Some("=="), Equality;
        /// Inequality.
        Ne = 11 => "ne", Some("!="), Equality;
        /// Less than (numeric).
        Lt = 12 => "lt", Some("<"), Ordering;
        /// Less than or equal (numeric).
        Le = 13 => "le", Some("<="), Ordering;
        /// Greater than (numeric).
        Gt = 14 => "gt", Some(">"), Ordering;
        /// Greater than or equal (numeric).
        Ge = 15 => "ge", Some(">="), Ordering;
        /// Logical and of two bools (both sides always evaluated).
        And = 16 => "and", Some("&&"), Logical;
        /// Logical or of two bools (both sides always evaluated).
        Or = 17 => "or", Some("||"), Logical;
        /// Minimum (numeric).
        Min = 18 => "min", None, Arithmetic;
        /// Maximum (numeric).
        Max = 19 => "max", None, Arithmetic;
    }
}

impl BinOp {
    /// True for the comparisons, whose result is `Bool`.
    #[must_use]
    pub const fn is_comparison(self) -> bool {
        matches!(self.class(), BinClass::Equality | BinClass::Ordering)
    }

    /// The result type for operands of type `lhs` and `rhs`, or `None` when the operator does not
    /// accept them.
    #[must_use]
    pub fn result_type(self, lhs: DataType, rhs: DataType) -> Option<DataType> {
        use DataType as T;
        match self.class() {
            BinClass::Arithmetic => (lhs == rhs && lhs.is_numeric()).then_some(lhs),
            BinClass::Bitwise => (lhs == rhs && lhs.is_integer()).then_some(lhs),
            BinClass::Shift => (lhs.is_integer() && rhs == T::U32).then_some(lhs),
            BinClass::Equality => (lhs == rhs).then_some(T::Bool),
            BinClass::Ordering => (lhs == rhs && lhs.is_numeric()).then_some(T::Bool),
            BinClass::Logical => (lhs == T::Bool && rhs == T::Bool).then_some(T::Bool),
        }
    }
}

/// The classes of unary operators: the operand type each operator accepts follows from it, and the
/// result always has the operand's type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum UnClass {
    /// Negation: the signed types `i32`, `i64`, `f32` and `f16`.
    Negation,
    /// Absolute value: any numeric type.
    Magnitude,
    /// Bit operations: `bit_not` on every integer; the bit counts and `reverse_bits` on `u32` and
    /// `i32` only (Vulkan defines them only on 32-bit operands).
    Bits,
    /// Logical not: `Bool`.
    Logical,
    /// Exact rounding functions: `f32` and `f16`.
    Rounding,
    /// Transcendental and root functions, with stated accuracy: `f32`.
    Transcendental,
}

operators! {
    /// Unary operators. See `SEMANTICS.md` for their exact meaning.
    pub enum UnOp: UnClass {
        /// Negation (`i32`/`i64` wrapping, `f32`, `f16`).
        Neg = 0 => "neg", Some("-"), Negation;
        /// Bitwise complement (integers).
        BitNot = 1 => "bit_not", Some("~"), Bits;
        /// Logical not (bool).
        Not = 2 => "not", Some("!"), Logical;
        /// Absolute value (`abs(i32::MIN) = i32::MIN`, likewise i64; identity on `u32`/`u64`).
        Abs = 3 => "abs", None, Magnitude;
        /// Number of set bits (integers).
        Popcount = 4 => "popcount", None, Bits;
        /// Leading zero bits, 32 for 0 (integers).
        Clz = 5 => "clz", None, Bits;
        /// Trailing zero bits, 32 for 0 (integers).
        Ctz = 6 => "ctz", None, Bits;
        /// Bit reversal (integers).
        ReverseBits = 7 => "reverse_bits", None, Bits;
        /// Square root (f32).
        Sqrt = 8 => "sqrt", None, Transcendental;
        /// `1 / sqrt(x)` (f32).
        InverseSqrt = 9 => "inverse_sqrt", None, Transcendental;
        /// `e^x` (f32).
        Exp = 10 => "exp", None, Transcendental;
        /// `2^x` (f32).
        Exp2 = 11 => "exp2", None, Transcendental;
        /// Natural logarithm (f32).
        Log = 12 => "log", None, Transcendental;
        /// Base-2 logarithm (f32).
        Log2 = 13 => "log2", None, Transcendental;
        /// Sine (f32).
        Sin = 14 => "sin", None, Transcendental;
        /// Cosine (f32).
        Cos = 15 => "cos", None, Transcendental;
        /// Round towards negative infinity (f32).
        Floor = 16 => "floor", None, Rounding;
        /// Round towards positive infinity (f32).
        Ceil = 17 => "ceil", None, Rounding;
        /// Round to nearest, ties to even (f32).
        Round = 18 => "round", None, Rounding;
        /// Round towards zero (f32).
        Trunc = 19 => "trunc", None, Rounding;
        /// `x - floor(x)` (f32).
        Fract = 20 => "fract", None, Rounding;
    }
}

impl UnOp {
    /// True for the float math functions (`sqrt` through `fract`; the rounding ones take `f16` too).
    #[must_use]
    pub const fn is_float_math(self) -> bool {
        matches!(self.class(), UnClass::Rounding | UnClass::Transcendental)
    }

    /// The result type for an operand of type `arg`, or `None` when the operator does not accept it.
    #[must_use]
    pub fn result_type(self, arg: DataType) -> Option<DataType> {
        use DataType as T;
        let ok = match self.class() {
            UnClass::Negation => arg.is_signed() || arg.is_float(),
            UnClass::Magnitude => arg.is_numeric(),
            UnClass::Bits => arg.is_index() || (self == UnOp::BitNot && arg.is_integer()),
            UnClass::Logical => arg == T::Bool,
            UnClass::Rounding => arg.is_float(),
            UnClass::Transcendental => arg == T::F32,
        };
        ok.then_some(arg)
    }
}

/// The classes of atomic operations on integer elements of a writable buffer (64-bit elements need
/// [`crate::ir::Features::INT64_ATOMICS`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum AtomicClass {
    /// A read-modify-write with one operand.
    ReadModifyWrite,
    /// A compare-exchange: an `expected` operand as well as the new value.
    CompareExchange,
}

operators! {
    /// Atomic read-modify-write operations on integer storage or workgroup buffers.
    pub enum AtomicOp: AtomicClass {
        /// Wrapping add.
        Add = 0 => "atomic_add", None, ReadModifyWrite;
        /// Wrapping subtract.
        Sub = 1 => "atomic_sub", None, ReadModifyWrite;
        /// Minimum.
        Min = 2 => "atomic_min", None, ReadModifyWrite;
        /// Maximum.
        Max = 3 => "atomic_max", None, ReadModifyWrite;
        /// Bitwise and.
        And = 4 => "atomic_and", None, ReadModifyWrite;
        /// Bitwise or.
        Or = 5 => "atomic_or", None, ReadModifyWrite;
        /// Bitwise exclusive or.
        Xor = 6 => "atomic_xor", None, ReadModifyWrite;
        /// Unconditional exchange.
        Exchange = 7 => "atomic_exchange", None, ReadModifyWrite;
        /// Store `value` only if the current value equals `expected`.
        CompareExchange = 8 => "atomic_compare_exchange", None, CompareExchange;
    }
}

/// The classes of subgroup operations: the operand and result types of each follow from it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SubgroupClass {
    /// A reduction over the subgroup of a numeric operand (`u32`, `i32`, `f32`); the result has
    /// the operand's type.
    Arithmetic,
    /// A bitwise reduction over the subgroup of an integer operand; the result has its type.
    Bitwise,
    /// One lane's value of a numeric operand, given to every lane; the result has its type.
    Broadcast,
    /// A `Bool` operand; the result is a `u32` mask of lanes.
    Ballot,
}

operators! {
    /// Subgroup collective operations (`Expr::Subgroup`). See `SEMANTICS.md` for how invocations
    /// form subgroups and which results depend on the subgroup size.
    pub enum SubgroupOp: SubgroupClass {
        /// Wrapping sum (integers), sum in an unspecified order (f32).
        Add = 0 => "subgroup_add", None, Arithmetic;
        /// Minimum, as `BinOp::Min`.
        Min = 1 => "subgroup_min", None, Arithmetic;
        /// Maximum, as `BinOp::Max`.
        Max = 2 => "subgroup_max", None, Arithmetic;
        /// Bitwise and (integers).
        And = 3 => "subgroup_and", None, Bitwise;
        /// Bitwise or (integers).
        Or = 4 => "subgroup_or", None, Bitwise;
        /// Bitwise exclusive or (integers).
        Xor = 5 => "subgroup_xor", None, Bitwise;
        /// The value of the lowest-numbered lane (lane 0: subgroup operations run in uniform
        /// control flow).
        BroadcastFirst = 6 => "subgroup_broadcast_first", None, Broadcast;
        /// The 32-bit word of the ballot mask that holds the invocation's own lane: bit `i` is
        /// set when lane `32 * (id / 32) + i` exists and its operand is true.
        Ballot = 7 => "subgroup_ballot", None, Ballot;
    }
}

impl SubgroupOp {
    /// The result type for an operand of type `arg`, or `None` when the operation does not accept
    /// it.
    #[must_use]
    ///
    /// Subgroup operations take the 32-bit types only (`u32`, `i32`, `f32`; a `bool` for the
    /// ballot): WGSL has no 64-bit subgroup operations, and vyre keeps f16 out of them too.
    pub fn result_type(self, arg: DataType) -> Option<DataType> {
        match self.class() {
            SubgroupClass::Arithmetic | SubgroupClass::Broadcast => {
                (arg.is_numeric() && arg.is_word()).then_some(arg)
            }
            SubgroupClass::Bitwise => (arg.is_integer() && arg.is_word()).then_some(arg),
            SubgroupClass::Ballot => (arg == DataType::Bool).then_some(DataType::U32),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{AtomicOp, BinOp, SubgroupOp, UnOp};

    #[test]
    fn names_are_unique_and_classes_cover_every_operator() {
        fn unique(names: Vec<&str>) -> bool {
            let mut sorted = names.clone();
            sorted.sort_unstable();
            sorted.dedup();
            sorted.len() == names.len()
        }
        assert!(unique(BinOp::ALL.iter().map(|o| o.name()).collect()));
        assert!(unique(UnOp::ALL.iter().map(|o| o.name()).collect()));
        assert!(unique(AtomicOp::ALL.iter().map(|o| o.name()).collect()));
        assert!(unique(SubgroupOp::ALL.iter().map(|o| o.name()).collect()));
        for op in BinOp::ALL {
            assert!(BinOp::of_class(op.class()).any(|o| o == *op));
        }
        assert_eq!(BinOp::ALL.len(), 20);
        assert_eq!(UnOp::ALL.len(), 21);
        assert_eq!(AtomicOp::ALL.len(), 9);
        assert_eq!(SubgroupOp::ALL.len(), 8);
    }
}
