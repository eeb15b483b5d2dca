//! Grid folding: a virtual grid (times the items of a launch) mapped onto a physical grid within the
//! device's per-dimension limit, never wrapping the shader's u32 linear workgroup index.

use vyre_driver::BackendError;

/// The physical grid for `items` copies of a virtual grid, and whether it can be dispatched directly.
pub(crate) fn fold_grid(
    grid: [u32; 3],
    items: u64,
    max: u32,
) -> Result<([u32; 3], bool), BackendError> {
    if items == 1 && grid.iter().all(|&g| g <= max) {
        return Ok((grid, true));
    }
    // Three u32 dimensions and an item count reach far past 2^64, so the product is checked: a
    // wrapped total would pass the limit below (2^64 workgroups wrap to 0).
    let total = grid
        .iter()
        .try_fold(items, |product, &g| product.checked_mul(u64::from(g)));
    let total = match total {
        Some(0) => {
            return Err(BackendError::invalid_config(format!(
                "{items} item(s) of grid {grid:?} are no workgroups at all. Fix: give every grid dimension at least 1 and pass at least one item."
            )));
        }
        Some(total) if total < 1 << 32 => total,
        _ => {
            return Err(BackendError::limit_exceeded(format!(
                "{items} item(s) of grid {grid:?} are 2^32 or more workgroups in one launch, past vyre's limit. Fix: use fewer workgroups or items per dispatch."
            )));
        }
    };
    let max = u64::from(max.max(1));
    // The fewest rows of at most `max` workgroups, in the fewest planes, each row as even as the
    // total allows: surplus workgroups (which only return) stay below one per row. Full rows of
    // `max` would leave up to a whole row idle: 327 675 workgroups launched for 262 144, a fifth of
    // the launch, which cost the H200's 256 MiB vectorised add 17% of its bandwidth.
    let rows = total.div_ceil(max);
    let z = rows.div_ceil(max);
    let y = rows.div_ceil(z);
    // y * z >= rows >= total / max, so x <= max; and y <= max since z = ceil(rows / max).
    let x = total.div_ceil(y * z);
    // The shader's linear workgroup index is a u32: with more than 2^32 physical workgroups it would
    // wrap, and a surplus workgroup would alias (and re-run) a real one. With a device limit near
    // u32::MAX the physical product itself could pass u64, hence the checked product.
    let physical = x.checked_mul(y).and_then(|xy| xy.checked_mul(z));
    if z > max || physical.is_none_or(|p| p > 1 << 32) {
        return Err(BackendError::limit_exceeded(format!(
            "{total} workgroups cannot be folded into this device's grid limits within 2^32 workgroups (vyre numbers them with a u32; 65535^2 always fold, SEMANTICS.md section 1). Fix: use fewer workgroups."
        )));
    }
    // Each of x, y and z is at most `max`, which came from a u32.
    let dim = |d: u64| u32::try_from(d).unwrap_or(u32::MAX);
    Ok(([dim(x), dim(y), dim(z)], false))
}

#[cfg(test)]
mod tests {
    use vyre_driver::BackendError;

    use super::fold_grid;

    #[test]
    fn launches_of_2_pow_64_workgroups_or_more_are_a_limit_exceeded_not_wrapped() {
        // [1 << 22, 1 << 21, 1 << 21] is exactly 2^64 workgroups: unchecked, the total wrapped to 0
        // and the fold divided by zero.
        for (grid, items) in [
            ([1 << 22, 1 << 21, 1 << 21], 1),
            ([1 << 16, 1 << 16, 1], 1),
            ([1, 1, 1], 1 << 32),
            ([2, 1, 1], u64::MAX),
            ([u32::MAX; 3], u64::MAX),
        ] {
            match fold_grid(grid, items, 65535) {
                Err(BackendError::LimitExceeded(m)) => assert!(m.contains("Fix:"), "{m}"),
                other => panic!("{grid:?} x {items}: {other:?}"),
            }
        }
    }

    /// SEMANTICS.md section 1: every grid of at most 65535^2 workgroups in all runs, on a device
    /// with the smallest per-axis limit WebGPU allows.
    #[test]
    fn every_launch_of_at_most_65535_squared_workgroups_folds() {
        let most = 65_535u64 * 65_535;
        let mut total = 1u64;
        while total <= most {
            for t in [total, most + 1 - total] {
                let ([x, y, z], _) = fold_grid([1, 1, 1], t, 65535)
                    .unwrap_or_else(|e| panic!("{t} workgroups: {e}"));
                let n = u64::from(x) * u64::from(y) * u64::from(z);
                assert!(n >= t && n <= 1 << 32, "{t}: {x}x{y}x{z}");
            }
            total = total * 3 + 1;
        }
        assert!(fold_grid([65_535, 65_535, 1], 1, 65535).is_ok());
        assert!(fold_grid([1, 65_535, 65_535], 1, 65535).is_ok());
    }

    #[test]
    fn a_launch_of_no_items_is_an_invalid_config_not_a_division_by_zero() {
        let e = fold_grid([1, 1, 1], 0, 65535).expect_err("no workgroups");
        assert!(matches!(e, BackendError::InvalidConfig(_)), "{e}");
    }

    #[test]
    fn a_device_allowing_u32_max_workgroups_per_axis_folds_without_wrapping() {
        assert_eq!(
            fold_grid([u32::MAX, 1, 1], 1, u32::MAX).ok(),
            Some(([u32::MAX, 1, 1], true))
        );
        assert_eq!(
            fold_grid([u32::MAX, 1, 1], 1, 1 << 16).ok(),
            Some(([1 << 16, 1 << 16, 1], false))
        );
        // Two balanced rows of 2^31: exactly 2^32 linear ids, the most a u32 index can name.
        assert_eq!(
            fold_grid([u32::MAX, 1, 1], 1, u32::MAX - 1).ok(),
            Some(([1 << 31, 2, 1], false))
        );
    }

    #[test]
    fn folded_grids_cover_the_work_without_wrapping_the_linear_index() {
        assert_eq!(fold_grid([7, 3, 2], 1, 65535).ok(), Some(([7, 3, 2], true)));
        assert_eq!(
            fold_grid([70_000, 1, 1], 1, 65535).ok(),
            Some(([35_000, 2, 1], false))
        );
        // Balanced rows: one surplus workgroup, where rows of 65535 would launch 65 531 of them.
        assert_eq!(
            fold_grid([262_144, 1, 1], 1, 65535).ok(),
            Some(([52_429, 5, 1], false))
        );
        for total in [65_536u64, 4_294_836_225, 4_294_836_226, u64::from(u32::MAX)] {
            match fold_grid([1, 1, 1], total, 65535) {
                Ok(([x, y, z], _)) => {
                    let n = u64::from(x) * u64::from(y) * u64::from(z);
                    assert!(n >= total && n <= 1 << 32, "{total}: {x}x{y}x{z}");
                }
                // Past 65535^2 workgroups the fold needs z = 2 and more than 2^32 physical ids.
                Err(e) => assert!(total > 4_294_836_225, "{total}: {e}"),
            }
        }
    }
}
