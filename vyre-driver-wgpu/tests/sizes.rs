//! Sizes at and past the 2^32 and 2^64 boundaries on the wgpu backend: workgroup products, grids,
//! global ids, workgroup memory totals, fixed-size arrays, buffer bytes and coalesced launches. Each
//! must be a `BackendError` with a `Fix:`, never a panic (debug builds) or a wrapped size that is
//! accepted (release builds).
//!
//! Nothing here allocates the sizes it names: every case is rejected before a buffer is made.

use vyre_driver::{BackendError, DispatchConfig, VyreBackend};
use vyre_driver_wgpu::engine::persistent::{
    PersistentPayloadWorkItem, PersistentQueue, run_persistent_kernel,
};
use vyre_driver_wgpu::testing::backend_or_skip;
use vyre_driver_wgpu::{WgpuBackend, emit_wgsl};
use vyre_foundation::ir::{BufferDecl, DataType, Expr, Node, Program};

/// One input, one output of `out_count` words, a store at `gid.x`, and `extra` buffers.
fn program(workgroup: [u32; 3], out_count: u32, extra: Vec<BufferDecl>) -> Program {
    let mut buffers = vec![
        BufferDecl::read("input", 0, DataType::U32).with_count(1),
        BufferDecl::output("out", 1, DataType::U32).with_count(out_count),
    ];
    buffers.extend(extra);
    Program::wrapped(
        buffers,
        workgroup,
        vec![Node::store(
            "out",
            Expr::gid_x(),
            Expr::load("input", Expr::u32(0)),
        )],
    )
}

fn input() -> Vec<Vec<u8>> {
    vec![vec![0; 4]]
}

fn dispatch(
    backend: &WgpuBackend,
    program: &Program,
    grid: Option<[u32; 3]>,
) -> Result<Vec<Vec<u8>>, BackendError> {
    let config = match grid {
        Some(grid) => DispatchConfig::default().with_grid(grid),
        None => DispatchConfig::default(),
    };
    backend.dispatch(program, &input(), &config)
}

/// Asserts `result` is the error variant `kind` and its message has a `Fix:`.
fn assert_error<T: std::fmt::Debug>(result: Result<T, BackendError>, kind: &str, case: &str) {
    match result {
        Err(e) => {
            assert_eq!(e.kind_name(), kind, "{case}: {e}");
            assert!(e.to_string().contains("Fix:"), "{case}: {e}");
        }
        Ok(out) => panic!("{case}: accepted ({out:?})"),
    }
}

fn workgroup_buffers(counts: &[u32]) -> Vec<BufferDecl> {
    counts
        .iter()
        .enumerate()
        .map(|(i, &n)| BufferDecl::workgroup(format!("wg{i}"), n, DataType::U32))
        .collect()
}

#[test]
fn emit_wgsl_takes_workgroup_arrays_below_2_pow_31_bytes_and_rejects_larger() {
    // naga lays out no type past 2^31 - 1 bytes: an array of 2^29 words (2^31 bytes) failed its
    // validator as a "lowering bug" (`Compile`) instead of the limit it is, and so did 2^32 bytes
    // and more, which a u32 byte count would wrap.
    let fits = program([1, 1, 1], 1, workgroup_buffers(&[(1 << 29) - 1]));
    assert!(emit_wgsl(&fits).is_ok(), "2^31 - 4 bytes");
    for count in [1 << 29, 1 << 30, u32::MAX] {
        let p = program([1, 1, 1], 1, workgroup_buffers(&[count]));
        assert_error(emit_wgsl(&p), "LimitExceeded", &format!("{count} words"));
    }
}

#[test]
fn emit_wgsl_takes_uniform_arrays_below_2_pow_31_bytes_and_rejects_larger() {
    // A uniform buffer is laid out as vec4 rows: ceil(count / 4) * 16 bytes.
    let uniform = |count: u32| {
        program(
            [1, 1, 1],
            1,
            vec![BufferDecl::uniform("u", 2, DataType::U32).with_count(count)],
        )
    };
    assert!(
        emit_wgsl(&uniform((1 << 29) - 4)).is_ok(),
        "2^31 - 16 bytes"
    );
    for count in [(1 << 29) - 3, 1 << 30, u32::MAX] {
        assert_error(
            emit_wgsl(&uniform(count)),
            "LimitExceeded",
            &format!("uniform of {count} words"),
        );
    }
}

#[test]
fn workgroup_sizes_of_2_pow_32_and_2_pow_64_invocations_are_invalid_programs() {
    let Some(backend) = backend_or_skip("workgroup_sizes_of_2_pow_32_and_2_pow_64_invocations")
    else {
        return;
    };
    for size in [
        [1 << 16, 1 << 16, 1],
        [1 << 16, 1 << 16, 2],
        [1 << 22, 1 << 21, 1 << 21],
        [u32::MAX, u32::MAX, 2],
    ] {
        let p = program(size, 1, vec![]);
        let e = dispatch(&backend, &p, Some([1, 1, 1])).expect_err("invalid");
        assert!(
            matches!(e, BackendError::InvalidProgram(_)),
            "{size:?}: {e}"
        );
    }
}

#[test]
fn grids_of_2_pow_32_or_more_workgroups_are_a_limit_exceeded_not_a_panic() {
    let Some(backend) = backend_or_skip("grids_of_2_pow_32_or_more_workgroups") else {
        return;
    };
    // Each axis's ids fit a u32, so the planner accepts these; the folded total of 2^64 wrapped to
    // 0 workgroups and then divided by zero.
    let p = program([1, 1, 1], 1, vec![]);
    for grid in [
        [1 << 16, 1 << 16, 1],
        [1 << 21, 1 << 21, 1 << 21],
        [1 << 22, 1 << 21, 1 << 21],
        [u32::MAX; 3],
    ] {
        assert_error(
            dispatch(&backend, &p, Some(grid)),
            "LimitExceeded",
            &format!("{grid:?}"),
        );
    }
}

#[test]
fn global_ids_past_u32_are_a_limit_exceeded() {
    let Some(backend) = backend_or_skip("global_ids_past_u32_are_a_limit_exceeded") else {
        return;
    };
    for (grid, size) in [
        ([(1 << 22) + 1, 1, 1], [1024, 1, 1]),
        ([1, (1 << 22) + 1, 1], [1, 1024, 1]),
        ([1, 1, (1 << 26) + 1], [1, 1, 64]),
    ] {
        let p = program(size, 1, vec![]);
        assert_error(
            dispatch(&backend, &p, Some(grid)),
            "LimitExceeded",
            &format!("{grid:?} x {size:?}"),
        );
    }
}

#[test]
fn workgroup_memory_totals_past_u32_are_a_limit_exceeded() {
    let Some(backend) = backend_or_skip("workgroup_memory_totals_past_u32") else {
        return;
    };
    for counts in [
        // Arrays naga can each lay out, exactly 2^32 bytes together.
        vec![(1 << 29) - 1, (1 << 29) - 1, 2],
        // One array of 2^32 bytes, which naga cannot lay out.
        vec![1 << 30],
        // Three of the largest count: about 2^35.6 bytes.
        vec![u32::MAX; 3],
    ] {
        let p = program([1, 1, 1], 1, workgroup_buffers(&counts));
        assert_error(
            dispatch(&backend, &p, None),
            "LimitExceeded",
            &format!("{counts:?}"),
        );
    }
}

#[test]
fn a_uniform_past_u32_bytes_is_a_limit_exceeded_not_a_compile_error() {
    let Some(backend) = backend_or_skip("a_uniform_past_u32_bytes_is_a_limit_exceeded") else {
        return;
    };
    let p = program(
        [1, 1, 1],
        1,
        vec![BufferDecl::uniform("u", 2, DataType::U32).with_count(u32::MAX)],
    );
    // An explicit grid: the derived one would cover the uniform's u32::MAX elements.
    let config = DispatchConfig::default().with_grid([1, 1, 1]);
    let result = backend.dispatch(&p, &[vec![0; 4], vec![0; 4]], &config);
    assert_error(result, "LimitExceeded", "uniform of u32::MAX words");
}

#[test]
fn an_output_of_u32_max_words_is_a_limit_exceeded() {
    let Some(backend) = backend_or_skip("an_output_of_u32_max_words_is_a_limit_exceeded") else {
        return;
    };
    // 2^34 - 4 bytes, past every device's binding limit; also with a readback of its last word.
    let last = usize::try_from(u64::from(u32::MAX) * 4).expect("64-bit host");
    let whole = program([64, 1, 1], u32::MAX, vec![]);
    let mut tail = whole.clone();
    tail.buffers[1] = tail.buffers[1]
        .clone()
        .with_output_byte_range(last - 4..last);
    for (case, p) in [("whole", whole), ("last word", tail)] {
        assert_error(
            dispatch(&backend, &p, Some([1, 1, 1])),
            "LimitExceeded",
            case,
        );
    }
}

#[test]
fn coalesced_items_whose_grid_folds_past_2_pow_64_are_a_limit_exceeded() {
    let Some(backend) = backend_or_skip("coalesced_items_whose_grid_folds_past_2_pow_64") else {
        return;
    };
    let p = program([1, 1, 1], 1, vec![]);
    let pipeline = backend
        .compile_persistent(&p, &DispatchConfig::default())
        .expect("compile");
    for grid in [[1 << 16, 1 << 16, 1], [1 << 22, 1 << 21, 1 << 21]] {
        let config = DispatchConfig::default().with_grid(grid);
        let items = vec![input(), input()];
        assert_error(
            pipeline.dispatch_coalesced(&items, &config),
            "LimitExceeded",
            &format!("{grid:?}"),
        );
    }
}

#[test]
fn coalesced_items_past_the_binding_limit_are_a_limit_exceeded() {
    let Some(backend) = backend_or_skip("coalesced_items_past_the_binding_limit") else {
        return;
    };
    // Two items of u32::MAX output words are 2^35 - 8 bytes together (and 2^33 - 2 elements, past
    // what u32 offsets address); the packed form (1-D grid) and the per-item form (2-D grid).
    let p = program([64, 1, 1], u32::MAX, vec![]);
    let pipeline = backend
        .compile_persistent(&p, &DispatchConfig::default())
        .expect("compile");
    for grid in [[1, 1, 1], [1, 2, 1]] {
        let config = DispatchConfig::default().with_grid(grid);
        let items = vec![input(), input()];
        assert_error(
            pipeline.dispatch_coalesced(&items, &config),
            "LimitExceeded",
            &format!("{grid:?}"),
        );
    }
}

#[test]
fn a_persistent_queue_past_the_binding_limit_is_a_limit_exceeded() {
    let Some(backend) = backend_or_skip("a_persistent_queue_past_the_binding_limit") else {
        return;
    };
    let p = program([64, 1, 1], u32::MAX, vec![]);
    let mut queue = PersistentQueue::new();
    for id in 0..3 {
        queue.push(PersistentPayloadWorkItem {
            id,
            payload: vec![0; 4],
        });
    }
    assert_error(
        run_persistent_kernel(&backend, &p, &DispatchConfig::default(), queue),
        "LimitExceeded",
        "three items of u32::MAX words",
    );
}

#[test]
fn a_timeout_of_duration_max_is_no_deadline_not_an_overflow() {
    let Some(backend) = backend_or_skip("a_timeout_of_duration_max_is_no_deadline") else {
        return;
    };
    let config = DispatchConfig::default().with_timeout(std::time::Duration::MAX);
    let out = backend
        .dispatch(&program([64, 1, 1], 4, vec![]), &input(), &config)
        .expect("runs");
    assert_eq!(out, vec![vec![0; 16]]);
}
