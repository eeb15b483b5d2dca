//! The layout of vyre's internal `params` buffer, defined once: the prologue reads these words and
//! every launch (plain, coalesced, packed) writes them through [`params_words`].
//!
//! `params` is a read-only `array<u32>`: the virtual grid at `[0..3]`, the item count at `[3]`, the
//! invocations each packed item runs at `[4]`, and each program buffer's element count at `[8 + j]`.
//! A piece of a split launch has its first workgroup along x at `[5]` and the whole grid's x at `[6]`
//! (its own grid at `[0..3]` is the piece's). Word 7 is always zero: the *opaque zero* that driver
//! workarounds read where a compiler must not know a value (see `workaround`). Words 5 and 6 are
//! zero outside split launches.

use vyre_driver::{BackendError, DispatchPlan};

/// The virtual grid's x, y and z workgroup counts.
pub(crate) const PARAM_GRID: u32 = 0;
/// How many items the launch runs (1 for a plain dispatch).
pub(crate) const PARAM_ITEMS: u32 = 3;
/// Packed modules: how many invocations each item runs (0 otherwise).
pub(crate) const PARAM_ACTIVE: u32 = 4;
/// Split launches: the piece's first workgroup along x, within the whole grid.
pub(crate) const PARAM_SPLIT_BASE: u32 = 5;
/// Split launches: the whole grid's x (what `num_workgroups.x` is in every piece).
pub(crate) const PARAM_WHOLE_GRID_X: u32 = 6;
/// Always zero, and unknown to any compiler: the opaque zero of the driver workarounds.
pub(crate) const PARAM_ZERO: u32 = 7;
/// Program buffer `j`'s element count is at `PARAM_LENGTHS + j`.
pub(crate) const PARAM_LENGTHS: u32 = 8;

/// Words per item and program buffer in the coalesced form's `items` table: the element offset of
/// the item's slice, then its element count, at `(item * buffers + j) * ITEM_ROW_WORDS`.
pub(crate) const ITEM_ROW_WORDS: u32 = 2;

/// What one launch tells its shader through `params`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Params<'a> {
    /// The virtual grid every item runs.
    pub(crate) grid: [u32; 3],
    /// How many items the launch runs.
    pub(crate) items: usize,
    /// The invocations each item runs when packed, else 0.
    pub(crate) active: u32,
    /// Each program buffer's element count per item, in declaration order.
    pub(crate) lengths: &'a [u64],
}

/// The `params` words of `params`.
///
/// # Errors
///
/// [`BackendError::LimitExceeded`] when the item count or an element count does not fit a u32: a
/// truncated count would be a shorter bounds guard.
pub(crate) fn params_words(params: &Params<'_>) -> Result<Vec<u32>, BackendError> {
    let mut words = vec![0u32; PARAM_LENGTHS as usize];
    let grid = PARAM_GRID as usize;
    words[grid..grid + 3].copy_from_slice(&params.grid);
    words[PARAM_ITEMS as usize] =
        u32::try_from(params.items).map_err(|_| too_large("the number of items in a launch"))?;
    words[PARAM_ACTIVE as usize] = params.active;
    for &count in params.lengths {
        // The planner keeps every element count within u32 (what `buf_len` yields); a count past it
        // must not be truncated into a shorter bounds guard.
        words.push(u32::try_from(count).map_err(|_| too_large("a buffer's element count"))?);
    }
    Ok(words)
}

/// The `params` words of a launch of `items` items shaped like `plan` (its grid and element counts),
/// with `active` invocations for packed launches (0 otherwise): what every launch form writes.
///
/// # Errors
///
/// As [`params_words`].
pub(crate) fn plan_params(
    plan: &DispatchPlan,
    items: usize,
    active: u32,
) -> Result<Vec<u32>, BackendError> {
    let lengths: Vec<u64> = plan.buffers.iter().map(|b| b.element_count).collect();
    params_words(&Params {
        grid: plan.grid,
        items,
        active,
        lengths: &lengths,
    })
}

/// The `params` words of one piece of a split launch shaped like `plan`: the piece runs workgroups
/// `first..first + width` along x of the plan's grid (all of y and z), with the plan's element counts
/// (the whole buffers' lengths, which `buf_len` and every bounds guard see).
///
/// # Errors
///
/// As [`params_words`].
pub(crate) fn split_params(
    plan: &DispatchPlan,
    first: u32,
    width: u32,
) -> Result<Vec<u32>, BackendError> {
    let lengths: Vec<u64> = plan.buffers.iter().map(|b| b.element_count).collect();
    let mut words = params_words(&Params {
        grid: [width, plan.grid[1], plan.grid[2]],
        items: 1,
        active: 0,
        lengths: &lengths,
    })?;
    words[PARAM_SPLIT_BASE as usize] = first;
    words[PARAM_WHOLE_GRID_X as usize] = plan.grid[0];
    Ok(words)
}

fn too_large(what: &str) -> BackendError {
    BackendError::limit_exceeded(format!(
        "{what} does not fit the integer type vyre holds it in. Fix: split the work over several dispatches or use smaller buffers."
    ))
}

#[cfg(test)]
mod tests {
    use vyre_driver::BackendError;

    use super::{PARAM_ACTIVE, PARAM_ITEMS, PARAM_LENGTHS, PARAM_ZERO, Params, params_words};

    fn params(lengths: &[u64], items: usize) -> Params<'_> {
        Params {
            grid: [2, 3, 4],
            items,
            active: 5,
            lengths,
        }
    }

    #[test]
    fn params_words_follow_the_layout_the_prologue_reads() {
        let words = params_words(&params(&[7, 9], 6)).expect("fits");
        assert_eq!(&words[..3], &[2, 3, 4]);
        assert_eq!(words[PARAM_ITEMS as usize], 6);
        assert_eq!(words[PARAM_ACTIVE as usize], 5);
        assert_eq!(words[PARAM_ZERO as usize], 0, "the opaque zero");
        assert_eq!(&words[PARAM_LENGTHS as usize..], &[7, 9]);
    }

    #[test]
    fn params_hold_element_counts_up_to_u32_max_and_reject_more() {
        let words = params_words(&params(&[u64::from(u32::MAX)], 1)).expect("fits");
        assert_eq!(words.last(), Some(&u32::MAX));
        // Truncated, 2^32 elements would be a bounds guard of 0.
        let e = params_words(&params(&[1 << 32], 1)).expect_err("past u32");
        assert!(matches!(e, BackendError::LimitExceeded(_)), "{e}");
        let items = usize::try_from(1u64 << 32).unwrap_or(usize::MAX);
        assert!(params_words(&params(&[1], items)).is_err());
    }
}
