//! The form a program is lowered in: how its invocations map onto the launch. One enum, so that a
//! combination no launch uses (a split coalesced module, row loads in a packed one) cannot be
//! written; the form is part of the pipeline cache's key.

/// How the virtual grid of a plain launch meets the physical one.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub(crate) enum Grid {
    /// The physical grid is the virtual one: builtins come straight from the hardware.
    Direct,
    /// The virtual grid comes from `params`, its workgroups folded into y and z where one
    /// dimension cannot hold them.
    #[default]
    Folded,
}

/// How many virtual invocations one invocation of a plain launch runs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub(crate) enum Lanes {
    /// One.
    #[default]
    Scalar,
    /// Four along x, with `vec4` rows (see `vector`): a one-dimensional grid of a program that
    /// qualifies. Direct, the physical grid is `[ceil(grid.x / 4), 1, 1]`; folded, those
    /// workgroups folded into y and z.
    Vectorised,
}

/// The form of a lowered module.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Form {
    /// One virtual grid: a plain or resident dispatch. `rows`: the program's row buffers are
    /// declared as `vec4` rows and read four elements a load (see `rows`), for a program with such
    /// buffers when every row binding can span whole 16-byte rows.
    Plain {
        grid: Grid,
        lanes: Lanes,
        rows: bool,
    },
    /// One piece of an elementwise dispatch split over several launches (see `elementwise`): the
    /// launch runs workgroups `params[5]..` along x of a grid `params[6]` wide, and every storage
    /// buffer is bound from element `params[5] * workgroup_size.x` on. Scalar and folded.
    Split,
    /// Many work items in one launch, each with its own slices from the `items` table.
    Coalesced,
    /// Coalesced items of equal lengths, laid end to end invocation by invocation: only each item's
    /// first `params[4]` invocations run (see `packed`); no `items` table.
    Packed,
}

impl Default for Form {
    /// What `emit_wgsl` writes: a plain, folded, scalar module without row loads.
    fn default() -> Self {
        Form::Plain {
            grid: Grid::Folded,
            lanes: Lanes::Scalar,
            rows: false,
        }
    }
}

impl Form {
    /// The builtins come straight from the hardware.
    pub(crate) fn direct(self) -> bool {
        matches!(
            self,
            Form::Plain {
                grid: Grid::Direct,
                ..
            }
        )
    }

    /// Many items in one launch (coalesced or packed).
    pub(crate) fn coalesced(self) -> bool {
        matches!(self, Form::Coalesced | Form::Packed)
    }

    /// Equal items laid end to end.
    pub(crate) fn packed(self) -> bool {
        self == Form::Packed
    }

    /// One piece of a split dispatch.
    pub(crate) fn split(self) -> bool {
        self == Form::Split
    }

    /// Four virtual invocations per invocation.
    pub(crate) fn vectorised(self) -> bool {
        matches!(
            self,
            Form::Plain {
                lanes: Lanes::Vectorised,
                ..
            }
        )
    }

    /// Row buffers declared as `vec4` rows.
    pub(crate) fn rows(self) -> bool {
        matches!(self, Form::Plain { rows: true, .. })
    }

    /// The module reads the `items` table (`@group(1) @binding(1)`).
    pub(crate) fn items_table(self) -> bool {
        self == Form::Coalesced
    }
}
