//! The form a program is lowered in: how its invocations map onto the launch (plain, folded,
//! vectorised, coalesced, packed, split) and which buffers are declared as rows.

/// How to lower a program.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub(crate) struct LowerOptions {
    /// Many work items in one launch, each with its own slices (see the module docs).
    pub(crate) coalesced: bool,
    /// The physical grid is the virtual one: builtins come straight from the hardware.
    pub(crate) direct: bool,
    /// Coalesced items of equal lengths, laid end to end invocation by invocation: only each item's
    /// first `params[4]` invocations run (see `packed`). Needs `coalesced`; no `items` table.
    pub(crate) packed: bool,
    /// One piece of an elementwise dispatch split over several launches (see `elementwise`): the
    /// launch runs workgroups `params[5]..` along x of a grid `params[6]` wide, and every storage
    /// buffer is bound from element `params[5] * workgroup_size.x` on. Needs neither `direct` nor
    /// `coalesced`.
    pub(crate) split: bool,
    /// Four virtual invocations along x per invocation, with `vec4` rows (see `vector`): a plain
    /// launch of a one-dimensional grid of a program that qualifies. With `direct`, the physical
    /// grid is `[ceil(grid.x / 4), 1, 1]`; otherwise those workgroups folded into y and z.
    pub(crate) vectorised: bool,
    /// A plain launch (scalar or vectorised, direct or folded) that declares the program's row
    /// buffers as `vec4` rows and reads four elements with one load (see `rows`): for a program
    /// with such a buffer, when every row binding can span whole 16-byte rows.
    pub(crate) rows: bool,
}

