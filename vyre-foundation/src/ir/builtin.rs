//! Invocation ids: the builtins every invocation sees.

/// One of the three axes of an invocation id.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
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

/// The text form's function word for [`Builtin::SubgroupSize`].
pub(crate) const SUBGROUP_SIZE: &str = "subgroup_size";
/// The text form's function word for [`Builtin::SubgroupInvocationId`].
pub(crate) const SUBGROUP_INVOCATION_ID: &str = "subgroup_invocation_id";
/// The text form's function word for [`crate::ir::Expr::SubgroupShuffle`].
pub(crate) const SUBGROUP_SHUFFLE: &str = "subgroup_shuffle";

/// An invocation id component; every builtin is a `u32`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Builtin {
    /// `global_invocation_id`: `workgroup_id * workgroup_size + local_invocation_id`.
    GlobalId(Axis),
    /// `local_invocation_id`: the position inside the workgroup.
    LocalId(Axis),
    /// `workgroup_id`: the position of the workgroup in the grid.
    WorkgroupId(Axis),
    /// `num_workgroups`: the grid size.
    NumWorkgroups(Axis),
    /// `subgroup_size`: the number of lanes of a subgroup on this device (see `SEMANTICS.md`);
    /// needs [`crate::ir::Features::SUBGROUPS`].
    SubgroupSize,
    /// `subgroup_invocation_id`: the invocation's lane in its subgroup,
    /// `lid.x % subgroup_size` (subgroup programs have one-dimensional workgroups); needs
    /// [`crate::ir::Features::SUBGROUPS`].
    SubgroupInvocationId,
}

impl Builtin {
    /// True for builtins that are the same for every invocation of a workgroup.
    #[must_use]
    pub const fn is_workgroup_uniform(self) -> bool {
        matches!(self, Builtin::WorkgroupId(_) | Builtin::NumWorkgroups(_))
    }

    /// The id's axis; `None` for the subgroup builtins, which have none.
    #[must_use]
    pub const fn axis(self) -> Option<Axis> {
        match self {
            Builtin::GlobalId(a)
            | Builtin::LocalId(a)
            | Builtin::WorkgroupId(a)
            | Builtin::NumWorkgroups(a) => Some(a),
            Builtin::SubgroupSize | Builtin::SubgroupInvocationId => None,
        }
    }

    /// True for the builtins that need [`crate::ir::Features::SUBGROUPS`].
    #[must_use]
    pub const fn is_subgroup(self) -> bool {
        matches!(self, Builtin::SubgroupSize | Builtin::SubgroupInvocationId)
    }

    /// The name used by the text form, e.g. `gid.x`, or `subgroup_size()` for the subgroup
    /// builtins (written as calls, so that they take no word from variable names).
    #[must_use]
    pub fn name(self) -> String {
        let (base, axis) = match self {
            Builtin::GlobalId(a) => ("gid", a),
            Builtin::LocalId(a) => ("lid", a),
            Builtin::WorkgroupId(a) => ("wid", a),
            Builtin::NumWorkgroups(a) => ("nwg", a),
            Builtin::SubgroupSize => return format!("{SUBGROUP_SIZE}()"),
            Builtin::SubgroupInvocationId => return format!("{SUBGROUP_INVOCATION_ID}()"),
        };
        format!("{base}.{}", axis.letter())
    }
}
