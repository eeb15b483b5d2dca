//! `plan_dispatch` and `DispatchPlan` at the 2^32 and 2^64 boundaries: ids, invocations and input
//! lengths, where unchecked arithmetic wraps in release builds and panics in debug builds.
//!
//! The planner checks lengths, not bytes, so these tests pass lengths no test could allocate.

use vyre_driver::{BackendError, DispatchConfig, derive_grid, plan_dispatch};
use vyre_foundation::ir::{BufferDecl, DataType, Program};

/// One runtime-sized input, one input declared with `count` elements, one output; `workgroup` is not
/// validated by the planner, so sizes past the validator's limit are allowed here.
fn program(count: u32, workgroup: [u32; 3]) -> Program {
    Program::wrapped(
        vec![
            BufferDecl::read("dynamic", 0, DataType::U32),
            BufferDecl::read("fixed", 1, DataType::U32).with_count(count),
            BufferDecl::output("out", 2, DataType::U32).with_count(1),
        ],
        workgroup,
        vec![],
    )
}

fn with_grid(grid: [u32; 3]) -> DispatchConfig {
    DispatchConfig::default().with_grid(grid)
}

/// Largest `n * 4` bytes as a usize (every test host is 64-bit).
fn bytes_of(elements: u64) -> usize {
    usize::try_from(elements * 4).expect("a 64-bit host")
}

#[test]
fn global_ids_reaching_exactly_2_pow_32_are_accepted_on_every_axis() {
    for axis in 0..3 {
        for (group, size) in [(1 << 22, 1 << 10), (1 << 16, 1 << 16), (u32::MAX, 1)] {
            let mut grid = [1; 3];
            let mut workgroup = [1; 3];
            grid[axis] = group;
            workgroup[axis] = size;
            let plan = plan_dispatch(&program(1, workgroup), &[4, 4], &with_grid(grid));
            assert!(plan.is_ok(), "axis {axis}: {grid:?} x {workgroup:?}");
        }
    }
}

#[test]
fn global_ids_one_workgroup_past_2_pow_32_are_a_limit_exceeded() {
    for axis in 0..3 {
        for (group, size) in [
            ((1 << 22) + 1, 1 << 10),
            ((1 << 16) + 1, 1 << 16),
            (u32::MAX, 2),
            (u32::MAX, u32::MAX),
        ] {
            let mut grid = [1; 3];
            let mut workgroup = [1; 3];
            grid[axis] = group;
            workgroup[axis] = size;
            let e = plan_dispatch(&program(1, workgroup), &[4, 4], &with_grid(grid))
                .expect_err("ids past u32");
            assert!(matches!(e, BackendError::LimitExceeded(_)), "{e}");
            assert!(e.to_string().contains("Fix:"), "{e}");
        }
    }
}

#[test]
fn invocations_are_exact_up_to_2_pow_64() {
    for (grid, workgroup, invocations) in [
        ([1 << 16, 1 << 16, 1], [1, 1, 1], 1u64 << 32),
        ([1 << 21, 1 << 21, 1 << 21], [1, 1, 1], 1 << 63),
        (
            [u32::MAX, u32::MAX, 1],
            [1, 1, 1],
            u64::from(u32::MAX) * u64::from(u32::MAX),
        ),
        ([1 << 20, 1 << 21, 1 << 21], [2, 1, 1], 1 << 63),
    ] {
        let p = program(1, workgroup);
        let plan = plan_dispatch(&p, &[4, 4], &with_grid(grid)).expect("ids fit u32");
        assert_eq!(plan.invocations(&p), Some(invocations), "{grid:?}");
    }
}

#[test]
fn invocations_of_2_pow_64_or_more_are_none_not_wrapped() {
    // Each of these grids keeps every axis's ids within u32, so the planner accepts it; the total
    // (2^64, 2^65, 2^96 - ...) does not fit a u64 and wraps to a small number when unchecked.
    for (grid, workgroup) in [
        ([1 << 22, 1 << 21, 1 << 21], [1, 1, 1]),
        ([1 << 21, 1 << 21, 1 << 21], [2, 1, 1]),
        ([1 << 21, 1 << 21, 1 << 20], [2, 2, 2]),
        ([u32::MAX; 3], [1, 1, 1]),
    ] {
        let p = program(1, workgroup);
        let plan = plan_dispatch(&p, &[4, 4], &with_grid(grid)).expect("ids fit u32");
        assert_eq!(plan.invocations(&p), None, "{grid:?} x {workgroup:?}");
    }
}

#[test]
fn invocations_of_a_workgroup_past_2_pow_64_are_none() {
    // The planner does not validate; a workgroup whose own product passes u64 must not wrap.
    let p = program(1, [1 << 22, 1 << 21, 1 << 21]);
    let plan = plan_dispatch(&p, &[4, 4], &with_grid([1, 1, 1])).expect("ids fit u32");
    assert_eq!(plan.invocations(&p), None);
}

#[test]
fn a_runtime_sized_input_of_u32_max_elements_is_accepted() {
    let lens = [bytes_of(u64::from(u32::MAX)), 4];
    let plan =
        plan_dispatch(&program(1, [64, 1, 1]), &lens, &with_grid([1, 1, 1])).expect("fits u32");
    assert_eq!(plan.buffers[0].element_count, u64::from(u32::MAX));
}

#[test]
fn a_runtime_sized_input_past_u32_elements_is_a_limit_exceeded() {
    for len in [bytes_of(1 << 32), bytes_of(1 << 40), usize::MAX - 3] {
        let e = plan_dispatch(&program(1, [64, 1, 1]), &[len, 4], &with_grid([1, 1, 1]))
            .expect_err("more elements than buf_len counts");
        assert!(matches!(e, BackendError::LimitExceeded(_)), "{len}: {e}");
    }
}

#[test]
fn an_input_of_usize_max_bytes_is_an_input_mismatch() {
    let e = plan_dispatch(
        &program(1, [64, 1, 1]),
        &[usize::MAX, 4],
        &with_grid([1, 1, 1]),
    )
    .expect_err("not whole elements");
    assert!(matches!(e, BackendError::InputMismatch(_)), "{e}");
}

#[test]
fn a_declared_count_of_u32_max_takes_its_16_gib_and_no_more() {
    let p = program(u32::MAX, [64, 1, 1]);
    let full = bytes_of(u64::from(u32::MAX));
    let plan = plan_dispatch(&p, &[4, full], &with_grid([1, 1, 1])).expect("exactly the count");
    assert_eq!(plan.buffers[1].element_count, u64::from(u32::MAX));
    let e = plan_dispatch(&p, &[4, full + 4], &with_grid([1, 1, 1])).expect_err("one too many");
    assert!(matches!(e, BackendError::InputMismatch(_)), "{e}");
    // The message names the byte limit, which is past u32.
    assert!(e.to_string().contains(&full.to_string()), "{e}");
}

#[test]
fn a_derived_grid_covers_u32_max_elements() {
    let p = program(1, [1, 1, 1]);
    let lens = [bytes_of(u64::from(u32::MAX)), 4];
    let plan = plan_dispatch(&p, &lens, &DispatchConfig::default()).expect("fits");
    assert_eq!(plan.grid, [u32::MAX, 1, 1]);
    let p = program(1, [1024, 1, 1]);
    let plan = plan_dispatch(&p, &lens, &DispatchConfig::default()).expect("fits");
    assert_eq!(plan.grid, [1 << 22, 1, 1]);
}

#[test]
fn derive_grid_saturates_at_u32_max_workgroups() {
    let p = program(1, [1, 1, 1]);
    for counts in [[1 << 32, 1, 1], [u64::MAX, 1, 1]] {
        assert_eq!(derive_grid(&p, &counts), [u32::MAX, 1, 1], "{counts:?}");
    }
}
