//! The entry point's prologue: vyre's own bookkeeping before the program body runs.
//!
//! It maps the *physical* dispatch (possibly folded into y and z, possibly many coalesced items) onto the
//! *virtual* grid the program sees, exits surplus workgroups (a workgroup-uniform early return), and
//! loads each buffer's element count (and, for coalesced items, its slice offset) once.

use naga::{BinaryOperator as B, Block, Expression, Handle, Statement};

use super::form::Form;
use super::func::FunctionBuilder;
use super::params::{
    ITEM_ROW_WORDS, PARAM_ACTIVE, PARAM_GRID, PARAM_ITEMS, PARAM_LENGTHS, PARAM_SPLIT_BASE,
    PARAM_WHOLE_GRID_X, PARAM_ZERO,
};
use vyre_foundation::ir::{BufferAccess, Program};

/// What the prologue computed, for use by the body.
pub(crate) struct Prologue {
    /// `[gid, lid, wid, nwg]`, each as three u32 expressions.
    pub(crate) builtins: [[Handle<Expression>; 3]; 4],
    /// Per program buffer: its element count for this dispatch (or item).
    pub(crate) lengths: Vec<Handle<Expression>>,
    /// Per program buffer: the element offset of this item's slice (coalesced storage buffers only).
    pub(crate) offsets: Vec<Option<Handle<Expression>>>,
    /// Per program buffer: its length when the module fixes it (the prologue's length is then this
    /// literal in every dispatch).
    pub(crate) fixed: Vec<Option<u32>>,
    /// Split launches: the element the piece's storage bindings start at (`params[5]` times the
    /// workgroup width), subtracted from every storage index after its guard.
    pub(crate) rebase: Option<Handle<Expression>>,
    /// Vectorised modules: the invocation's row `c` (it runs virtual invocations `4c .. 4c + 3`
    /// along x, whose builtins `vector` derives lane by lane).
    pub(crate) row: Option<Handle<Expression>>,
    /// `params[7]`, a zero no compiler can know, loaded once here when a driver workaround needs
    /// it (see `workaround`).
    pub(crate) opaque_zero: Option<Handle<Expression>>,
    /// Per program buffer: in a packed module that fixes the active invocations, the element that
    /// index `gid.x` of this item's slice is (the launch's invocation `p`, see `analysis::packed`).
    pub(crate) at_gid: Vec<Option<Handle<Expression>>>,
}

pub(crate) struct PrologueInputs<'a> {
    pub(crate) program: &'a Program,
    pub(crate) form: &'a Form,
    pub(crate) params: Handle<naga::GlobalVariable>,
    pub(crate) items: Option<Handle<naga::GlobalVariable>>,
    /// Load the opaque zero (a workaround in force needs it).
    pub(crate) opaque_zero: bool,
    /// Packed modules: the invocations each item runs, when the module fixes them
    /// (`analysis::packed::fixed_active`).
    pub(crate) packed_active: Option<u32>,
}

fn lanes(
    fb: &mut FunctionBuilder,
    block: &mut Block,
    vector: Handle<Expression>,
) -> [Handle<Expression>; 3] {
    [0, 1, 2].map(|i| fb.access_index(block, vector, i))
}

fn load_word(
    fb: &mut FunctionBuilder,
    block: &mut Block,
    global: Handle<Expression>,
    index: Handle<Expression>,
) -> Handle<Expression> {
    let pointer = fb.access(block, global, index);
    fb.load(block, pointer)
}

fn param(
    fb: &mut FunctionBuilder,
    block: &mut Block,
    params: Handle<Expression>,
    at: u32,
) -> Handle<Expression> {
    let index = fb.u32(block, at);
    load_word(fb, block, params, index)
}

/// Emits the prologue into `block`. Function arguments 0, 1, 2 are the physical `workgroup_id`,
/// `local_invocation_id` and `num_workgroups`.
pub(crate) fn emit(
    fb: &mut FunctionBuilder,
    block: &mut Block,
    inputs: &PrologueInputs<'_>,
) -> Prologue {
    let wid_arg = fb.expr(block, Expression::FunctionArgument(0));
    let lid_arg = fb.expr(block, Expression::FunctionArgument(1));
    let nwg_arg = fb.expr(block, Expression::FunctionArgument(2));
    let wid_p = lanes(fb, block, wid_arg);
    let lid = lanes(fb, block, lid_arg);
    let nwg_p = lanes(fb, block, nwg_arg);
    let params = fb.expr(block, Expression::GlobalVariable(inputs.params));

    let size = inputs.program.workgroup_size;
    let mut rebase = None;
    let mut row = None;
    let mut launch_index = None;
    let (gid, lid, wid, nwg, item) = if inputs.form.vectorised() {
        let (c, grid) = vector_grid(fb, block, inputs, params, wid_p, lid[0], nwg_p);
        row = Some(c);
        let zero = fb.u32(block, 0);
        let one = fb.u32(block, 1);
        // The x builtins are set lane by lane (see `vector`); y and z are those of a 1-D grid.
        (
            [c, zero, zero],
            [lid[0], zero, zero],
            [wid_p[0], zero, zero],
            [grid, one, one],
            None,
        )
    } else if inputs.form.packed() {
        let (p, lanes) = packed_grid(fb, block, inputs, params, wid_p, lid[0], nwg_p);
        launch_index = Some(p);
        lanes
    } else {
        let (mut wid, mut nwg, item) = if inputs.form.direct() {
            (wid_p, nwg_p, None)
        } else {
            virtual_grid(fb, block, inputs, params, wid_p, nwg_p)
        };
        if inputs.form.split() {
            // The piece's workgroups are the whole grid's from `params[5]` on: the program sees the
            // whole grid's ids, so every value it computes is the one a single launch computes.
            let first = param(fb, block, params, PARAM_SPLIT_BASE);
            wid[0] = fb.binary(block, B::Add, wid[0], first);
            nwg[0] = param(fb, block, params, PARAM_WHOLE_GRID_X);
            let width = fb.u32(block, size[0]);
            rebase = Some(fb.binary(block, B::Multiply, first, width));
        }
        let gid = [0, 1, 2].map(|a| {
            let w = fb.u32(block, size[a]);
            let base = fb.binary(block, B::Multiply, wid[a], w);
            fb.binary(block, B::Add, base, lid[a])
        });
        if !inputs.form.direct() {
            // Computed once, here (with a division and a remainder when folded); named so that
            // the WGSL text computes it here too rather than inline at a use inside a loop. Names
            // of unused ones are dropped after validation (`lower::drop_unused_names`).
            for (g, axis) in gid.iter().zip(["x", "y", "z"]) {
                fb.name(*g, &format!("vyre_gid_{axis}"));
            }
        }
        (gid, lid, wid, nwg, item)
    };

    let items = inputs
        .items
        .map(|items| fb.expr(block, Expression::GlobalVariable(items)));
    let mut lengths = Vec::new();
    let mut offsets = Vec::new();
    let mut at_gid = Vec::new();
    let mut fixed_lengths = Vec::new();
    let nb = inputs.program.buffers.len() as u32;
    for (j, decl) in inputs.program.buffers.iter().enumerate() {
        let j = j as u32;
        // A declared count is every item's length too: each item's plan gives a buffer with a
        // count exactly that count (`plan_dispatch`), so coalesced modules use it as a literal and
        // read only the slice's offset.
        let count =
            (decl.access == BufferAccess::Workgroup || decl.count != 0).then_some(decl.count);
        fixed_lengths.push(count);
        let whole = decl.access == BufferAccess::Workgroup || !inputs.form.coalesced();
        at_gid.push(None);
        match (items, item, count) {
            (_, _, Some(count)) if whole => {
                lengths.push(fb.u32(block, count));
                offsets.push(None);
            }
            (None, Some(item), count) => {
                // Packed: equal items, so item k's slice starts at k * length; where the length is
                // the fixed active invocations, that is `p - gid.x`, and `gid.x` is at `p`.
                let length = match count {
                    Some(count) => fb.u32(block, count),
                    None => param(fb, block, params, PARAM_LENGTHS + j),
                };
                let offset = match (launch_index, count) {
                    (Some(p), Some(count)) if inputs.packed_active == Some(count) => {
                        at_gid[j as usize] = Some(p);
                        fb.binary(block, B::Subtract, p, gid[0])
                    }
                    _ => fb.binary(block, B::Multiply, item, length),
                };
                offsets.push(Some(offset));
                lengths.push(length);
            }
            (Some(items), Some(item), count) => {
                // items[(item * nb + j) * 2] is the offset, the next word the length.
                let nbv = fb.u32(block, nb);
                let row = fb.binary(block, B::Multiply, item, nbv);
                let jv = fb.u32(block, j);
                let slot = fb.binary(block, B::Add, row, jv);
                let two = fb.u32(block, ITEM_ROW_WORDS);
                let at = fb.binary(block, B::Multiply, slot, two);
                let offset = load_word(fb, block, items, at);
                let length = match count {
                    Some(count) => fb.u32(block, count),
                    None => {
                        let one = fb.u32(block, 1);
                        let at_len = fb.binary(block, B::Add, at, one);
                        load_word(fb, block, items, at_len)
                    }
                };
                lengths.push(length);
                offsets.push(Some(offset));
            }
            (_, _, Some(count)) => {
                lengths.push(fb.u32(block, count));
                offsets.push(None);
            }
            _ => {
                lengths.push(param(fb, block, params, PARAM_LENGTHS + j));
                offsets.push(None);
            }
        }
    }
    fb.flush(block);
    let opaque_zero = inputs
        .opaque_zero
        .then(|| param(fb, block, params, PARAM_ZERO));
    Prologue {
        builtins: [gid, lid, wid, nwg],
        lengths,
        offsets,
        fixed: fixed_lengths,
        rebase,
        row,
        opaque_zero,
        at_gid,
    }
}

type Lanes = [Handle<Expression>; 3];

/// What the program sees of the launch: `gid`, `lid`, `wid` and `nwg`, and the coalesced item.
type Seen = (Lanes, Lanes, Lanes, Lanes, Option<Handle<Expression>>);

/// The packed form (see `analysis::packed`): the physical invocation `p` (linear over the folded
/// grid) is invocation `p % active` of item `p / active`; surplus invocations exit. `active` is the
/// module's constant when it fixes it (a shift and a mask for a power of two), else `params[4]`.
/// The program is one dimensional and barrier-free, so the early return needs no uniformity.
/// Returns `p` and the builtins and item the program sees.
fn packed_grid(
    fb: &mut FunctionBuilder,
    block: &mut Block,
    inputs: &PrologueInputs<'_>,
    params: Handle<Expression>,
    wid_p: Lanes,
    lid_x: Handle<Expression>,
    nwg_p: Lanes,
) -> (Handle<Expression>, Seen) {
    let nwg = [0, 1, 2].map(|a| param(fb, block, params, PARAM_GRID + a));
    let item_count = param(fb, block, params, PARAM_ITEMS);
    let active = match inputs.packed_active {
        Some(n) => fb.u32(block, n),
        None => param(fb, block, params, PARAM_ACTIVE),
    };
    let yz = fb.binary(block, B::Multiply, nwg_p[1], wid_p[2]);
    let y = fb.binary(block, B::Add, wid_p[1], yz);
    let xy = fb.binary(block, B::Multiply, nwg_p[0], y);
    let linear = fb.binary(block, B::Add, wid_p[0], xy);
    let width = fb.u32(block, inputs.program.workgroup_size[0]);
    let base = fb.binary(block, B::Multiply, linear, width);
    let p = fb.binary(block, B::Add, base, lid_x);
    let total = fb.binary(block, B::Multiply, active, item_count);
    let surplus = fb.binary(block, B::GreaterEqual, p, total);
    fb.if_then(block, surplus, |fb, inner| {
        fb.stmt(inner, Statement::Return { value: None })
    });
    let (item, v) = match inputs.packed_active {
        Some(n) if n.is_power_of_two() => {
            let shift = fb.u32(block, n.trailing_zeros());
            let mask = fb.u32(block, n - 1);
            (
                fb.binary(block, B::ShiftRight, p, shift),
                fb.binary(block, B::And, p, mask),
            )
        }
        _ => (
            fb.binary(block, B::Divide, p, active),
            fb.binary(block, B::Modulo, p, active),
        ),
    };
    let zero = fb.u32(block, 0);
    let lid = fb.binary(block, B::Modulo, v, width);
    let wid = fb.binary(block, B::Divide, v, width);
    (
        p,
        (
            [v, zero, zero],
            [lid, zero, zero],
            [wid, zero, zero],
            nwg,
            Some(item),
        ),
    )
}

/// The vectorised form (see `vector`): the physical workgroup `L` (linear over the folded grid, or
/// `wid.x` when direct) holds rows `L * W .. L * W + W - 1`, and row `c` is the virtual invocations
/// `4c .. 4c + 3` along x. Returns `c` and the virtual grid's x. Folded launches exit workgroups
/// past the last row's, before `L * W` could wrap; rows past the grid's end within a workgroup are
/// left to the body, whose every path checks the row against the grid. Vectorised programs have no
/// barriers, so the early return needs no uniformity.
fn vector_grid(
    fb: &mut FunctionBuilder,
    block: &mut Block,
    inputs: &PrologueInputs<'_>,
    params: Handle<Expression>,
    wid_p: Lanes,
    lid_x: Handle<Expression>,
    nwg_p: Lanes,
) -> (Handle<Expression>, Handle<Expression>) {
    let grid_x = param(fb, block, params, PARAM_GRID);
    let linear = if inputs.form.direct() {
        wid_p[0]
    } else {
        let yz = fb.binary(block, B::Multiply, nwg_p[1], wid_p[2]);
        let y = fb.binary(block, B::Add, wid_p[1], yz);
        let xy = fb.binary(block, B::Multiply, nwg_p[0], y);
        let linear = fb.binary(block, B::Add, wid_p[0], xy);
        // ceil(grid.x / 4) workgroups hold rows: the last is (grid.x - 1) / 4 (grid.x >= 1).
        let one = fb.u32(block, 1);
        let two = fb.u32(block, 2);
        let before = fb.binary(block, B::Subtract, grid_x, one);
        let last_group = fb.binary(block, B::ShiftRight, before, two);
        let surplus = fb.binary(block, B::Greater, linear, last_group);
        fb.if_then(block, surplus, |fb, inner| {
            fb.stmt(inner, Statement::Return { value: None })
        });
        linear
    };
    let width = fb.u32(block, inputs.program.workgroup_size[0]);
    let base = fb.binary(block, B::Multiply, linear, width);
    let c = fb.binary(block, B::Add, base, lid_x);
    (c, grid_x)
}

/// Linearises the physical workgroup id, exits surplus workgroups, and unlinearises the virtual one.
fn virtual_grid(
    fb: &mut FunctionBuilder,
    block: &mut Block,
    inputs: &PrologueInputs<'_>,
    params: Handle<Expression>,
    wid_p: Lanes,
    nwg_p: Lanes,
) -> (Lanes, Lanes, Option<Handle<Expression>>) {
    let nwg = [0, 1, 2].map(|a| param(fb, block, params, PARAM_GRID + a));
    let item_count = param(fb, block, params, PARAM_ITEMS);
    // L = wid.x + nwg.x * (wid.y + nwg.y * wid.z), over the physical grid.
    let yz = fb.binary(block, B::Multiply, nwg_p[1], wid_p[2]);
    let y = fb.binary(block, B::Add, wid_p[1], yz);
    let xy = fb.binary(block, B::Multiply, nwg_p[0], y);
    let linear = fb.binary(block, B::Add, wid_p[0], xy);
    let plane = fb.binary(block, B::Multiply, nwg[0], nwg[1]);
    let groups = fb.binary(block, B::Multiply, plane, nwg[2]);
    let total = fb.binary(block, B::Multiply, groups, item_count);
    let surplus = fb.binary(block, B::GreaterEqual, linear, total);
    fb.if_then(block, surplus, |fb, inner| {
        fb.stmt(inner, Statement::Return { value: None })
    });
    let (item, local) = if inputs.form.coalesced() {
        let item = fb.binary(block, B::Divide, linear, groups);
        let local = fb.binary(block, B::Modulo, linear, groups);
        (Some(item), local)
    } else {
        (None, linear)
    };
    let x = fb.binary(block, B::Modulo, local, nwg[0]);
    let over_x = fb.binary(block, B::Divide, local, nwg[0]);
    let y = fb.binary(block, B::Modulo, over_x, nwg[1]);
    let z = fb.binary(block, B::Divide, local, plane);
    ([x, y, z], nwg, item)
}
