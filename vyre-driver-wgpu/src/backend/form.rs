//! The launch form of a plain or resident dispatch, chosen per dispatch: the vectorised module
//! (`lower::vector`) when the program qualifies, the grid is one-dimensional and every vectorised
//! binding can span whole 16-byte rows; otherwise the scalar module. Either has row loads
//! (`lower::rows`) when the program has row buffers that can all span whole rows, and runs direct when its
//! physical grid fits the device's per-dimension limit, folded otherwise. The form is part of the
//! lowering options, so each has its own cached pipeline. A vectorised launch is at most two
//! dispatches of its module, `main` over the full rows and `vyre_tail` over the others, each left
//! out when it has no rows (`row_split`). A dispatch with a buffer over the binding limit runs split
//! (`split`) instead, scalar.

use vyre_driver::{BackendError, DispatchPlan};
use vyre_foundation::ir::Program;

use super::fold_grid;
use crate::launch::{Piece, device_bytes};
use crate::lower::{self, BindingKind, Form, Grid, Lanes, Miscompile, ProgramFacts, planted};
use crate::pipeline::Entry;

/// How one dispatch launches: the module's form and its dispatches, each an entry point and a
/// physical grid (one `main`, or for a vectorised launch `main` over the full rows and `vyre_tail`
/// over the partial ones, each left out when it has no rows).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Launch {
    pub(crate) form: Form,
    pub(crate) dispatches: Vec<(Entry, [u32; 3])>,
}

impl Launch {
    /// The dispatches of an unsplit launch of `plan` in this form, with the same `params`.
    ///
    /// # Errors
    ///
    /// As [`lower::plan_params`].
    pub(crate) fn pieces(&self, plan: &DispatchPlan) -> Result<Vec<Piece>, BackendError> {
        let params = lower::plan_params(plan, 1, 0)?;
        Ok(self
            .dispatches
            .iter()
            .map(|&(entry, grid)| Piece {
                entry,
                ..Piece::whole(params.clone(), grid)
            })
            .collect())
    }
}

/// The bytes a binding of `elements` elements of `element_bytes` bytes spans when declared as
/// `vec4` rows: whole 16-byte multiples (a row of 32-bit elements, two rows of `f16`; `binding_bytes`
/// binds the same). `None` past `u64`.
pub(crate) fn row_bytes(element_bytes: u64, elements: u64) -> Option<u64> {
    device_bytes(BindingKind::StorageReadWrite, element_bytes, elements)?
        .checked_next_multiple_of(16)
}

/// The form of a dispatch of the program `facts` describe as `plan` says, on a device allowing
/// `max_groups` workgroups per dimension. `bindable(j, bytes)` says whether program buffer `j` can
/// be bound with `bytes` bytes (whole rows) on this dispatch.
///
/// # Errors
///
/// As [`fold_grid`].
pub(crate) fn choose(
    facts: &ProgramFacts,
    program: &Program,
    plan: &DispatchPlan,
    max_groups: u32,
    bindable: impl Fn(usize, u64) -> bool,
) -> Result<Launch, BackendError> {
    if let Some(form) = vectorised(facts, program, plan, max_groups, &bindable)? {
        return Ok(form);
    }
    let (physical, direct) = fold_grid(plan.grid, 1, max_groups)?;
    Ok(Launch {
        form: Form::Plain {
            grid: grid(direct),
            lanes: Lanes::Scalar,
            rows: rows(facts, program, plan, &bindable),
        },
        dispatches: vec![(Entry::Main, physical)],
    })
}

/// True when the program has row buffers (`lower::rows`) and each can span whole rows.
fn rows(
    facts: &ProgramFacts,
    program: &Program,
    plan: &DispatchPlan,
    bindable: &impl Fn(usize, u64) -> bool,
) -> bool {
    facts
        .rows
        .as_ref()
        .is_some_and(|rows| whole_rows(&rows.buffers, program, plan, bindable))
}

/// True when every buffer `on` marks can be bound in whole 16-byte multiples on this dispatch.
fn whole_rows(
    on: &[bool],
    program: &Program,
    plan: &DispatchPlan,
    bindable: &impl Fn(usize, u64) -> bool,
) -> bool {
    on.iter().enumerate().all(|(j, &on)| {
        !on || plan
            .buffers
            .get(j)
            .zip(program.buffers.get(j))
            .and_then(|(b, decl)| row_bytes(decl.element.size_bytes() as u64, b.element_count))
            .is_some_and(|bytes| bindable(j, bytes))
    })
}

/// The form of each piece of a dispatch split over several launches (see `split`): the scalar split
/// module over the virtual grid's own x (each piece launches its share of it).
pub(crate) fn split(plan: &DispatchPlan) -> Launch {
    Launch {
        form: Form::Split,
        dispatches: vec![(Entry::Main, plan.grid)],
    }
}

/// The grid of a plain form that runs direct, or folded.
fn grid(direct: bool) -> Grid {
    if direct { Grid::Direct } else { Grid::Folded }
}

fn vectorised(
    facts: &ProgramFacts,
    program: &Program,
    plan: &DispatchPlan,
    max_groups: u32,
    bindable: &impl Fn(usize, u64) -> bool,
) -> Result<Option<Launch>, BackendError> {
    let width = program.workgroup_size[0];
    let [x, y, z] = plan.grid;
    if y != 1 || z != 1 || x == 0 {
        return Ok(None);
    }
    let Some(vector) = &facts.vector else {
        return Ok(None);
    };
    let buffers = &vector.vectorised;
    if !whole_rows(buffers, program, plan, bindable) {
        return Ok(None);
    }
    // Whether the module is direct follows from the whole grid's rows; each launch runs only its
    // own rows (fewer workgroups, so direct whenever the whole grid is, and a folded module
    // linearises any grid).
    let (_, direct) = fold_grid([x.div_ceil(lower::VECTOR_WIDTH), 1, 1], 1, max_groups)?;
    let (full, tail) = row_split(plan, vector, width);
    let mut dispatches = Vec::with_capacity(2);
    for (entry, rows) in [(Entry::Main, full), (Entry::Tail, tail)] {
        if rows > 0 {
            let groups = u32::try_from(rows.div_ceil(u64::from(width))).unwrap_or(u32::MAX);
            dispatches.push((entry, fold_grid([groups, 1, 1], 1, max_groups)?.0));
        }
    }
    Ok(Some(Launch {
        form: Form::Plain {
            grid: grid(direct),
            lanes: Lanes::Vectorised,
            rows: rows(facts, program, plan, bindable),
        },
        dispatches,
    }))
}

/// The rows of a vectorised launch of `plan` that `main` runs and those its tail must run, as
/// `lower::vector` computes them from the same lengths (the vectorised buffers' element counts and
/// the grid). `main` runs the full rows, `0..full_rows`: the rows past them do nothing there. The
/// tail runs from `full_rows` to the last row holding a virtual invocation that can have an
/// effect: every effect of a vectorised program is a store at `gid.x` into a vectorised buffer,
/// so a virtual invocation at or past every stored buffer's end has none, and rows made only of
/// such invocations need not run (the tail's own test still bounds its rows by the grid).
fn row_split(plan: &DispatchPlan, vector: &lower::VectorPlan, width: u32) -> (u64, u64) {
    let lengths = || {
        vector
            .vectorised
            .iter()
            .zip(&plan.buffers)
            .enumerate()
            .filter(|(_, (on, _))| **on)
            .map(|(j, (_, b))| (j, b.element_count))
    };
    let last = u64::from(plan.grid[0]) * u64::from(width) - 1;
    let m = lengths()
        .map(|(_, n)| n.saturating_sub(1))
        .fold(last, u64::min);
    let full_rows = (m + 1) / u64::from(lower::VECTOR_WIDTH);
    let Some(reach) = lengths()
        .filter(|&(j, _)| vector.stored[j])
        .map(|(_, n)| n)
        .max()
    else {
        return (full_rows, 0);
    };
    // The last virtual invocation that can store: below `reach`, within the grid.
    let last_effect = last.min(reach.saturating_sub(1));
    let rows = (last_effect / u64::from(lower::VECTOR_WIDTH) + 1).saturating_sub(full_rows);
    let tail = if planted(Miscompile::TailLaunchShort) {
        rows.saturating_sub(1)
    } else {
        rows
    };
    (full_rows, tail)
}

#[cfg(test)]
mod tests {
    use vyre_driver::{DispatchPlan, ResolvedBuffer};
    use vyre_foundation::ir::{BufferDecl, DataType, Expr, Node, Program};

    use super::{row_bytes, row_split};
    use crate::lower;

    /// `out[gid.x] = a[gid.x]` with `a` of `a_len` and `out` of `out_len` elements, workgroups of
    /// 64, over `groups` workgroups: the full rows and the tail rows.
    fn split(a_len: u64, out_len: u64, groups: u32) -> (u64, u64) {
        let program = Program::new(
            vec![
                BufferDecl::read("a", 0, DataType::U32),
                BufferDecl::read_write("out", 1, DataType::U32),
            ],
            [64, 1, 1],
            vec![Node::store(
                "out",
                Expr::gid_x(),
                Expr::load("a", Expr::gid_x()),
            )],
        );
        let evidence = vyre_foundation::validate(&program).expect("valid");
        let vector = lower::ProgramFacts::of(&evidence)
            .vector
            .expect("vectorised");
        let plan = DispatchPlan {
            buffers: [a_len, out_len]
                .map(|element_count| ResolvedBuffer {
                    element_count,
                    input: None,
                })
                .to_vec(),
            grid: [groups, 1, 1],
        };
        row_split(&plan, &vector, 64)
    }

    #[test]
    fn the_tail_runs_the_partial_rows_that_can_store() {
        // Whole rows up to the grid's end: no tail.
        assert_eq!(split(128, 128, 2), (32, 0));
        // `out` ends inside row 31 (elements 124..126): that row alone.
        assert_eq!(split(128, 127, 2), (31, 1));
        // `a` ends first: the rows from `a`'s partial one to `out`'s end.
        assert_eq!(split(5, 128, 2), (1, 31));
        // Rows past the only stored buffer's end store nothing: none of them runs.
        assert_eq!(split(1000, 8, 4), (2, 0));
        assert_eq!(split(1000, 9, 4), (2, 1));
        // The grid ends first: rows up to the grid's end.
        assert_eq!(split(1001, 1001, 1), (16, 0));
        // One word: no full row, so `main` has nothing to run and the tail runs row 0.
        assert_eq!(split(1, 1, 1), (0, 1));
    }

    #[test]
    fn vectorised_bindings_span_whole_rows() {
        assert_eq!(row_bytes(4, 1), Some(16));
        assert_eq!(row_bytes(4, 4), Some(16));
        assert_eq!(row_bytes(4, 5), Some(32));
        assert_eq!(row_bytes(4, u64::from(u32::MAX)), Some(1 << 34));
        assert_eq!(row_bytes(4, u64::MAX / 4), None);
        // `f16` rows are 8 bytes; bindings span whole 16-byte multiples all the same.
        assert_eq!(row_bytes(2, 1), Some(16));
        assert_eq!(row_bytes(2, 8), Some(16));
        assert_eq!(row_bytes(2, 9), Some(32));
    }
}
