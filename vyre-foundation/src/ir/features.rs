//! Optional device features a program may need: subgroup operations, `f16`, 64-bit integers,
//! matrix tiles.
//!
//! Validation records which of these a program uses ([`crate::validate::Validated::features`]); a
//! backend whose device lacks one refuses the program before anything runs.

use crate::ir::DataType;

/// A set of optional device features.
///
/// ```
/// use vyre_foundation::ir::Features;
///
/// let needed = Features::SUBGROUPS | Features::F16;
/// let device = Features::SUBGROUPS;
/// assert!(needed.contains(Features::F16));
/// assert_eq!(needed.missing_from(device), Features::F16);
/// assert_eq!(needed.names().collect::<Vec<_>>(), ["subgroups", "f16"]);
/// assert!(Features::NONE.is_empty());
/// ```
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Features(u32);

impl Features {
    /// No optional feature.
    pub const NONE: Features = Features(0);
    /// Subgroup operations (`subgroup_add`, `subgroup_ballot`, ...): wgpu's `Features::SUBGROUP`.
    pub const SUBGROUPS: Features = Features(1);
    /// 16-bit floats (`DataType::F16`): wgpu's `Features::SHADER_F16`.
    pub const F16: Features = Features(1 << 1);
    /// 64-bit integers (`DataType::U64`, `DataType::I64`): wgpu's `Features::SHADER_INT64`.
    pub const INT64: Features = Features(1 << 2);
    /// Atomics on 64-bit integers: wgpu's `Features::SHADER_INT64_ATOMIC_ALL_OPS`.
    pub const INT64_ATOMICS: Features = Features(1 << 3);
    /// Matrix tiles (`Node::Tile` and the tile statements): wgpu's
    /// `Features::EXPERIMENTAL_COOPERATIVE_MATRIX`, with the tile's shape among the backend's
    /// `Capabilities::matrix_tiles`.
    pub const TILES: Features = Features(1 << 4);
    /// Every feature this version knows.
    pub const ALL: Features = Features(0b1_1111);

    const NAMES: [(Features, &'static str); 5] = [
        (Features::SUBGROUPS, "subgroups"),
        (Features::F16, "f16"),
        (Features::INT64, "int64"),
        (Features::INT64_ATOMICS, "int64 atomics"),
        (Features::TILES, "matrix tiles"),
    ];

    /// True when no feature is in the set.
    #[must_use]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// True when every feature of `other` is in the set.
    #[must_use]
    pub const fn contains(self, other: Features) -> bool {
        self.0 & other.0 == other.0
    }

    /// The features of `self` that `available` lacks.
    #[must_use]
    pub const fn missing_from(self, available: Features) -> Features {
        Features(self.0 & !available.0)
    }

    /// The features of both sets.
    #[must_use]
    pub const fn union(self, other: Features) -> Features {
        Features(self.0 | other.0)
    }

    /// Adds the features of `other`.
    pub fn insert(&mut self, other: Features) {
        self.0 |= other.0;
    }

    /// The features a value of type `ty` needs.
    ///
    /// ```
    /// use vyre_foundation::ir::{DataType, Features};
    ///
    /// assert!(Features::of_type(DataType::U32).is_empty());
    /// assert_eq!(Features::of_type(DataType::F16), Features::F16);
    /// assert_eq!(Features::of_type(DataType::I64), Features::INT64);
    /// ```
    #[must_use]
    pub const fn of_type(ty: DataType) -> Features {
        match ty {
            DataType::Bool | DataType::U32 | DataType::I32 | DataType::F32 => Features::NONE,
            DataType::F16 => Features::F16,
            DataType::U64 | DataType::I64 => Features::INT64,
        }
    }

    /// The names of the features in the set, e.g. `"subgroups"`, in a fixed order.
    pub fn names(self) -> impl Iterator<Item = &'static str> {
        Self::NAMES
            .into_iter()
            .filter(move |(f, _)| self.contains(*f))
            .map(|(_, name)| name)
    }
}

impl std::ops::BitOr for Features {
    type Output = Features;
    fn bitor(self, rhs: Features) -> Features {
        Features(self.0 | rhs.0)
    }
}

impl std::ops::BitOrAssign for Features {
    fn bitor_assign(&mut self, rhs: Features) {
        self.0 |= rhs.0;
    }
}

impl std::fmt::Debug for Features {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_set().entries(self.names()).finish()
    }
}

impl std::fmt::Display for Features {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.is_empty() {
            return f.write_str("none");
        }
        for (i, name) in self.names().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            f.write_str(name)?;
        }
        Ok(())
    }
}
