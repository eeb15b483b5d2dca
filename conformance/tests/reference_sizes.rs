//! Sizes at and past the 2^32 and 2^64 boundaries on the reference backend: workgroup products,
//! grids, global ids and workgroup memory totals. Each must be a `BackendError` with a `Fix:`, never
//! a panic (debug builds) or a wrapped size that is accepted (release builds). A size just inside a
//! boundary is shown accepted by a dispatch that starts and then runs out of fuel.
//!
//! Nothing here allocates the sizes it names.

use vyre_conformance::ReferenceBackend;
use vyre_driver::{BackendError, DispatchConfig, VyreBackend};
use vyre_foundation::ir::{BufferDecl, DataType, Expr, Node, Program};

/// One output word stored by every invocation, plus `extra` buffers.
fn program(workgroup: [u32; 3], extra: Vec<BufferDecl>) -> Program {
    let mut buffers = vec![BufferDecl::output("out", 0, DataType::U32).with_count(1)];
    buffers.extend(extra);
    Program::wrapped(
        buffers,
        workgroup,
        vec![Node::store("out", Expr::u32(0), Expr::gid_x())],
    )
}

fn run(program: &Program, config: &DispatchConfig) -> Result<Vec<Vec<u8>>, BackendError> {
    ReferenceBackend::new().dispatch(program, &[], config)
}

/// Asserts `result` is the error variant `kind` and its message has a `Fix:`.
fn assert_error(result: Result<Vec<Vec<u8>>, BackendError>, kind: &str, case: &str) {
    match result {
        Err(e) => {
            assert_eq!(e.kind_name(), kind, "{case}: {e}");
            assert!(e.to_string().contains("Fix:"), "{case}: {e}");
        }
        Ok(out) => panic!("{case}: accepted ({out:?})"),
    }
}

/// A grid just inside a boundary is accepted: the dispatch starts and stops on its fuel.
fn assert_starts(program: &Program, grid: [u32; 3], case: &str) {
    let config = DispatchConfig::default().with_grid(grid).with_fuel(10_000);
    assert_error(run(program, &config), "Timeout", case);
}

#[test]
fn workgroups_of_2_pow_32_and_2_pow_64_invocations_are_invalid_programs() {
    for size in [
        [1 << 16, 1 << 16, 1],
        [1 << 22, 1 << 21, 1 << 21],
        [u32::MAX, u32::MAX, 2],
    ] {
        let e = run(&program(size, vec![]), &DispatchConfig::default()).expect_err("invalid");
        assert!(
            matches!(e, BackendError::InvalidProgram(_)),
            "{size:?}: {e}"
        );
    }
}

#[test]
fn grids_of_2_pow_64_workgroups_or_more_are_a_limit_exceeded() {
    let p = program([1, 1, 1], vec![]);
    for grid in [[1 << 22, 1 << 21, 1 << 21], [u32::MAX; 3]] {
        let config = DispatchConfig::default().with_grid(grid).with_fuel(10_000);
        assert_error(run(&p, &config), "LimitExceeded", &format!("{grid:?}"));
    }
}

#[test]
fn grids_just_below_2_pow_64_workgroups_are_accepted() {
    let p = program([1, 1, 1], vec![]);
    assert_starts(&p, [1 << 21, 1 << 21, 1 << 21], "2^63 workgroups");
    assert_starts(&p, [u32::MAX, u32::MAX, 1], "(2^32 - 1)^2 workgroups");
}

#[test]
fn global_ids_past_u32_are_a_limit_exceeded() {
    for (grid, size) in [
        ([(1 << 22) + 1, 1, 1], [1024, 1, 1]),
        ([1, (1 << 22) + 1, 1], [1, 1024, 1]),
        ([1, 1, (1 << 26) + 1], [1, 1, 64]),
    ] {
        let config = DispatchConfig::default().with_grid(grid).with_fuel(10_000);
        assert_error(
            run(&program(size, vec![]), &config),
            "LimitExceeded",
            &format!("{grid:?} x {size:?}"),
        );
    }
}

#[test]
fn global_ids_reaching_exactly_2_pow_32_are_accepted() {
    assert_starts(
        &program([1024, 1, 1], vec![]),
        [1 << 22, 1, 1],
        "2^32 ids on x",
    );
    assert_starts(
        &program([1, 1, 64], vec![]),
        [1, 1, 1 << 26],
        "2^32 ids on z",
    );
}

fn workgroup_buffers(counts: &[u32]) -> Vec<BufferDecl> {
    counts
        .iter()
        .enumerate()
        .map(|(i, &n)| BufferDecl::workgroup(format!("wg{i}"), n, DataType::U32))
        .collect()
}

#[test]
fn workgroup_memory_of_exactly_2_pow_32_bytes_is_a_limit_exceeded() {
    // Past the u32::MAX bytes the reference advertises; unchecked it would allocate 4 GiB per
    // executor and clear it for every workgroup.
    let p = program(
        [1, 1, 1],
        workgroup_buffers(&[(1 << 29) - 1, (1 << 29) - 1, 2]),
    );
    assert_error(
        run(&p, &DispatchConfig::default()),
        "LimitExceeded",
        "2^32 bytes in three buffers",
    );
}

#[test]
fn workgroup_memory_totals_far_past_u32_are_a_limit_exceeded() {
    for counts in [vec![1 << 30], vec![u32::MAX; 3]] {
        let p = program([1, 1, 1], workgroup_buffers(&counts));
        assert_error(
            run(&p, &DispatchConfig::default()),
            "LimitExceeded",
            &format!("{counts:?}"),
        );
    }
}

#[test]
fn workgroup_memory_of_a_few_mib_is_accepted() {
    // The limit is a total, not a per-buffer count: several buffers well inside it run.
    let p = program([4, 1, 1], workgroup_buffers(&[1 << 18, 1 << 18, 7]));
    let out = run(&p, &DispatchConfig::default().with_grid([2, 1, 1])).expect("runs");
    assert_eq!(out.len(), 1);
}

#[test]
fn a_timeout_of_duration_max_is_no_deadline_not_an_overflow() {
    // `Instant::now() + Duration::MAX` panics; the longest timeout must simply never fire.
    let config = DispatchConfig::default().with_timeout(std::time::Duration::MAX);
    let out = run(&program([1, 1, 1], vec![]), &config).expect("runs");
    assert_eq!(out, vec![vec![0; 4]]);
}
