//! The tag tables: the one byte the wire format writes for each variant of each IR enum.
//!
//! Every table below is the only place its tags are defined, and two rules keep them honest:
//!
//! - The variant-to-tag direction is an exhaustive `match` over the IR enum, so a new variant does not
//!   compile until it is given a tag here.
//! - The tag-to-variant direction is a `match` over the byte under `#[deny(unreachable_patterns)]`, so
//!   two variants given the same tag do not compile either.
//!
//! The operators (`BinOp`, `UnOp`, `AtomicOp`) keep their tags in their own table in `ir/ops.rs`, as
//! explicit discriminants. A tag, once published in `WIRE.md`, is never reused or renumbered.

use crate::ir::{Axis, BufferAccess, Builtin, DataType, Expr, Literal, Node, TileLayout, TileRole};

/// Tag tables for IR enums without fields: the enum is its own tag.
macro_rules! plain_tags {
    ($( $Enum:ident { $( $Variant:ident = $tag:literal, )* } )*) => {$(
        impl $Enum {
            /// The byte the wire format writes for this variant.
            pub(super) const fn wire_tag(self) -> u8 {
                match self {
                    $( $Enum::$Variant => $tag, )*
                }
            }

            /// The variant whose tag is `tag`, if there is one.
            #[deny(unreachable_patterns)]
            pub(super) const fn from_wire_tag(tag: u8) -> Option<Self> {
                match tag {
                    $( $tag => Some($Enum::$Variant), )*
                    _ => None,
                }
            }
        }
    )*};
}

plain_tags! {
    DataType {
        Bool = 0,
        U32 = 1,
        I32 = 2,
        F32 = 3,
        F16 = 4,
        U64 = 5,
        I64 = 6,
    }
    BufferAccess {
        Read = 0,
        ReadWrite = 1,
        Output = 2,
        Uniform = 3,
        Workgroup = 4,
    }
    Axis {
        X = 0,
        Y = 1,
        Z = 2,
    }
    TileRole {
        A = 0,
        B = 1,
        Accumulator = 2,
    }
    TileLayout {
        RowMajor = 0,
        ColumnMajor = 1,
    }
}

/// Tag tables for IR enums with fields: a field-less twin enum names the variant, and `of` maps a
/// value to it.
macro_rules! kind_tags {
    ($( $(#[$meta:meta])* $Kind:ident for $Enum:ident { $( $Variant:ident = $tag:literal, )* } )*) => {$(
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub(super) enum $Kind {
            $( $Variant, )*
        }

        impl $Kind {
            /// The variant `value` is.
            pub(super) const fn of(value: &$Enum) -> Self {
                match value {
                    $( $Enum::$Variant { .. } => $Kind::$Variant, )*
                }
            }

            /// The byte the wire format writes for this variant.
            pub(super) const fn wire_tag(self) -> u8 {
                match self {
                    $( $Kind::$Variant => $tag, )*
                }
            }

            /// The variant whose tag is `tag`, if there is one.
            #[deny(unreachable_patterns)]
            pub(super) const fn from_wire_tag(tag: u8) -> Option<Self> {
                match tag {
                    $( $tag => Some($Kind::$Variant), )*
                    _ => None,
                }
            }
        }
    )*};
}

kind_tags! {
    /// The variants of [`Literal`].
    LiteralTag for Literal {
        Bool = 0,
        U32 = 1,
        I32 = 2,
        F32 = 3,
        F16 = 4,
        U64 = 5,
        I64 = 6,
    }
    /// The variants of [`Builtin`]; the axis follows as its own tag.
    BuiltinTag for Builtin {
        GlobalId = 0,
        LocalId = 1,
        WorkgroupId = 2,
        NumWorkgroups = 3,
        SubgroupSize = 4,
        SubgroupInvocationId = 5,
    }
    /// The variants of [`Expr`].
    ExprTag for Expr {
        Lit = 0,
        Var = 1,
        Load = 2,
        BufLen = 3,
        Builtin = 4,
        Binary = 5,
        Unary = 6,
        Select = 7,
        Cast = 8,
        Bitcast = 9,
        Fma = 10,
        Atomic = 11,
        Subgroup = 12,
        SubgroupShuffle = 13,
        ArrayLoad = 14,
    }
    /// The variants of [`Node`].
    NodeTag for Node {
        Let = 0,
        Assign = 1,
        Store = 2,
        If = 3,
        Loop = 4,
        Block = 5,
        Barrier = 6,
        Return = 7,
        Break = 8,
        Continue = 9,
        While = 10,
        Atomic = 11,
        PrivateArray = 12,
        ArrayStore = 13,
        Tile = 14,
        TileLoad = 15,
        TileStore = 16,
        TileMultiplyAdd = 17,
    }
}

impl NodeTag {
    /// The first format version with this statement: `While`, `Break`, `Continue` and `Atomic`
    /// came in version 2, the private arrays in version 4, the matrix tiles in version 5.
    pub(super) const fn since(self) -> u16 {
        match self {
            NodeTag::Let
            | NodeTag::Assign
            | NodeTag::Store
            | NodeTag::If
            | NodeTag::Loop
            | NodeTag::Block
            | NodeTag::Barrier
            | NodeTag::Return => 1,
            NodeTag::Break | NodeTag::Continue | NodeTag::While | NodeTag::Atomic => 2,
            NodeTag::PrivateArray | NodeTag::ArrayStore => 4,
            NodeTag::Tile | NodeTag::TileLoad | NodeTag::TileStore | NodeTag::TileMultiplyAdd => 5,
        }
    }
}

impl DataType {
    /// The first format version with this type: `f16`, `u64` and `i64` came in version 3.
    pub(super) const fn since(self) -> u16 {
        match self {
            DataType::Bool | DataType::U32 | DataType::I32 | DataType::F32 => 1,
            DataType::F16 | DataType::U64 | DataType::I64 => 3,
        }
    }
}

impl ExprTag {
    /// The first format version with this expression: the subgroup operations came in version 3,
    /// the private array load in version 4.
    pub(super) const fn since(self) -> u16 {
        match self {
            ExprTag::Lit
            | ExprTag::Var
            | ExprTag::Load
            | ExprTag::BufLen
            | ExprTag::Builtin
            | ExprTag::Binary
            | ExprTag::Unary
            | ExprTag::Select
            | ExprTag::Cast
            | ExprTag::Bitcast
            | ExprTag::Fma
            | ExprTag::Atomic => 1,
            ExprTag::Subgroup | ExprTag::SubgroupShuffle => 3,
            ExprTag::ArrayLoad => 4,
        }
    }
}

impl BuiltinTag {
    /// The first format version with this builtin: the subgroup builtins came in version 3, and
    /// have no axis.
    pub(super) const fn since(self) -> u16 {
        match self {
            BuiltinTag::GlobalId
            | BuiltinTag::LocalId
            | BuiltinTag::WorkgroupId
            | BuiltinTag::NumWorkgroups => 1,
            BuiltinTag::SubgroupSize | BuiltinTag::SubgroupInvocationId => 3,
        }
    }
}

/// The tag of an absent optional value.
pub(super) const NONE: u8 = 0;
/// The tag of a present optional value, which follows.
pub(super) const SOME: u8 = 1;

#[cfg(test)]
mod tests {
    use super::{BuiltinTag, ExprTag, LiteralTag, NodeTag};
    use crate::ir::{
        AtomicOp, Axis, BinOp, BufferAccess, DataType, SubgroupOp, TileLayout, TileRole, UnOp,
    };

    /// Every tag in `0..=255` that decodes must encode back to itself, and the decodable tags must
    /// be exactly `0..count` (the tables are dense, so a gap is a typo).
    fn dense<T: Copy>(decode: impl Fn(u8) -> Option<T>, encode: impl Fn(T) -> u8) -> usize {
        let mut count = 0;
        for tag in 0..=u8::MAX {
            if let Some(v) = decode(tag) {
                assert_eq!(encode(v), tag);
                assert_eq!(usize::from(tag), count, "tag {tag} leaves a gap");
                count += 1;
            }
        }
        count
    }

    #[test]
    fn every_tag_table_is_dense_and_round_trips() {
        assert_eq!(
            dense(DataType::from_wire_tag, DataType::wire_tag),
            DataType::ALL.len()
        );
        assert_eq!(
            dense(BufferAccess::from_wire_tag, BufferAccess::wire_tag),
            5
        );
        assert_eq!(dense(Axis::from_wire_tag, Axis::wire_tag), 3);
        assert_eq!(dense(LiteralTag::from_wire_tag, LiteralTag::wire_tag), 7);
        assert_eq!(dense(BuiltinTag::from_wire_tag, BuiltinTag::wire_tag), 6);
        assert_eq!(dense(ExprTag::from_wire_tag, ExprTag::wire_tag), 15);
        assert_eq!(dense(NodeTag::from_wire_tag, NodeTag::wire_tag), 18);
        assert_eq!(
            dense(TileRole::from_wire_tag, TileRole::wire_tag),
            TileRole::ALL.len()
        );
        assert_eq!(dense(TileLayout::from_wire_tag, TileLayout::wire_tag), 2);
        assert_eq!(
            dense(BinOp::from_wire_tag, BinOp::wire_tag),
            BinOp::ALL.len()
        );
        assert_eq!(dense(UnOp::from_wire_tag, UnOp::wire_tag), UnOp::ALL.len());
        assert_eq!(
            dense(AtomicOp::from_wire_tag, AtomicOp::wire_tag),
            AtomicOp::ALL.len()
        );
        assert_eq!(
            dense(SubgroupOp::from_wire_tag, SubgroupOp::wire_tag),
            SubgroupOp::ALL.len()
        );
        // WIRE.md lists the operators in `ALL` order as their tags.
        let in_order = |tags: Vec<u8>| tags.iter().enumerate().all(|(i, t)| usize::from(*t) == i);
        assert!(in_order(BinOp::ALL.iter().map(|o| o.wire_tag()).collect()));
        assert!(in_order(UnOp::ALL.iter().map(|o| o.wire_tag()).collect()));
        assert!(in_order(
            AtomicOp::ALL.iter().map(|o| o.wire_tag()).collect()
        ));
        assert!(in_order(
            SubgroupOp::ALL.iter().map(|o| o.wire_tag()).collect()
        ));
        assert!(in_order(
            DataType::ALL.iter().map(|t| t.wire_tag()).collect()
        ));
    }
}
