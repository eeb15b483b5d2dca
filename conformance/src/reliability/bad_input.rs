//! Bad input: one table of invalid programs, wrong inputs, bad grids and programs past device limits,
//! each with the error variant every backend must return. Each row has two columns: what a backend
//! with a device (`Capabilities::is_gpu`, so with device limits) must do, and what a backend without
//! one (the reference) must do, where it legitimately has no limit.
//!
//! A row is a [`Case`]; [`check_cases`] runs rows on a backend and judges them (both re-exported
//! here from `case.rs`, which the table of invalid programs uses too). Every case must return its
//! variant with a `Fix:` in the message, and never panic.

use std::time::Duration;

use vyre_driver::{DispatchConfig, VyreBackend};
use vyre_foundation::ir::{BufferDecl, DataType, Expr, Node, Program};

use crate::fixtures::add_one_program as add_one;
use crate::reliability::invalid_programs::invalid_program_cases;

pub use crate::reliability::case::{Case, Expect, check_cases, fitting_inputs};

/// The device limits the table's limit cases are sized against: the backend's own when it has a
/// device, otherwise lavapipe's (the reference has no device, so it runs the lavapipe-sized cases and
/// its column says what it does with them).
struct Limits {
    binding_bytes: u64,
    workgroup_bytes: u64,
    bound_buffers: u32,
    workgroup_size: [u32; 3],
}

impl Limits {
    fn of(backend: &dyn VyreBackend) -> Self {
        let caps = backend.capabilities();
        if caps.is_gpu {
            Self {
                binding_bytes: caps.max_storage_buffer_bytes,
                workgroup_bytes: u64::from(caps.max_workgroup_storage_bytes),
                bound_buffers: caps.max_bound_buffers,
                workgroup_size: caps.max_workgroup_size,
            }
        } else {
            Self {
                binding_bytes: 128 << 20,
                workgroup_bytes: 32 << 10,
                bound_buffers: 64,
                workgroup_size: [1024, 1024, 1024],
            }
        }
    }
}

/// `out[0] = 1` over `buffers`, plus `out`: a program that touches almost nothing of what it declares.
fn touching_one_word(mut buffers: Vec<BufferDecl>) -> Program {
    let binding = buffers.iter().map(|b| b.binding + 1).max().unwrap_or(0);
    buffers.push(BufferDecl::output("out", binding, DataType::U32).with_count(1));
    Program::wrapped(
        buffers,
        [1, 1, 1],
        vec![Node::store("out", Expr::u32(0), Expr::u32(1))],
    )
}

/// Wrong inputs (`InputMismatch`) and a shorter input that is accepted: the input rules of
/// `plan_dispatch`, the same on every backend.
#[must_use]
pub fn input_cases() -> Vec<Case> {
    let runtime = touching_one_word(vec![BufferDecl::read("r", 0, DataType::U32)]);
    let mismatch = Expect::Err("InputMismatch");
    vec![
        Case::both("no input for a program with one", add_one(4), mismatch).inputs(vec![]),
        Case::both("two inputs for a program with one", add_one(4), mismatch)
            .inputs(vec![vec![0; 16], vec![0; 16]]),
        Case::both("input of 6 bytes for u32 elements", add_one(4), mismatch)
            .inputs(vec![vec![0; 6]]),
        Case::both("input of 1 byte for u32 elements", add_one(4), mismatch)
            .inputs(vec![vec![0; 1]]),
        Case::both(
            "input one element past the declared count",
            add_one(4),
            mismatch,
        )
        .inputs(vec![vec![0; 20]]),
        Case::both(
            "uniform input past its declared count",
            uniform_program(),
            mismatch,
        )
        .inputs(vec![vec![0; 32]]),
        Case::both(
            "runtime-sized buffer of length 0",
            runtime.clone(),
            mismatch,
        )
        .inputs(vec![vec![]]),
        Case::both("runtime-sized buffer of 3 bytes", runtime, mismatch).inputs(vec![vec![0; 3]]),
        Case::both("shorter input is zero-extended", add_one(4), Expect::Ok)
            .inputs(vec![vec![0; 8]]),
    ]
}

/// Bad and large grids: the grid rules of `plan_dispatch`, and one launch past wgpu's.
#[must_use]
pub fn grid_cases() -> Vec<Case> {
    vec![
        Case::both("grid [0, 1, 1]", add_one(4), Expect::Err("InvalidConfig"))
            .config(DispatchConfig::default().with_grid([0, 1, 1])),
        Case::both("grid [1, 0, 1]", add_one(4), Expect::Err("InvalidConfig"))
            .config(DispatchConfig::default().with_grid([1, 0, 1])),
        Case::both("grid [1, 1, 0]", add_one(4), Expect::Err("InvalidConfig"))
            .config(DispatchConfig::default().with_grid([1, 1, 0])),
        Case::both("grid x ids past u32 (u32::MAX x 64)", add_one(4), limit())
            .config(DispatchConfig::default().with_grid([u32::MAX, 1, 1])),
        Case::both("grid z ids past u32", wide_z_program(), limit())
            .config(DispatchConfig::default().with_grid([1, 1, (1 << 26) + 1])),
        Case::both(
            "grid of 70 000 workgroups folds",
            single_invocation(),
            Expect::Ok,
        )
        .config(DispatchConfig::default().with_grid([70_000, 1, 1])),
        // 2^32 workgroups fit the id rule but not one launch on wgpu; the reference has no launch
        // limit and starts running them, so its timeout ends the dispatch.
        Case::both("2^32 workgroups in one grid", single_invocation(), limit())
            .config(
                DispatchConfig::default()
                    .with_grid([65_536, 65_536, 1])
                    .with_timeout(Duration::from_millis(100)),
            )
            .host(Expect::Err("Timeout")),
    ]
}

fn limit() -> Expect {
    Expect::Err("LimitExceeded")
}

fn uniform_program() -> Program {
    touching_one_word(vec![
        BufferDecl::uniform("u", 0, DataType::U32).with_count(4),
    ])
}

fn single_invocation() -> Program {
    touching_one_word(vec![])
}

fn wide_z_program() -> Program {
    let mut p = touching_one_word(vec![]);
    p.workgroup_size = [1, 1, 64];
    p
}

/// The most memory one limit row may allocate (device or host): the rows are sized from what the
/// device reports, and some devices report limits far beyond what a test should touch.
pub const ROW_BYTES_AT_MOST: u64 = 4 << 30;

/// The most buffers a limit row may declare: a program past a device's bound-buffer limit is built
/// only where that limit is small enough to exceed cheaply.
pub const ROW_BUFFERS_AT_MOST: u32 = 1024;

/// Programs past a device limit: a backend with a device (wgpu) must refuse them up front; the reference has no device, runs
/// what fits its host memory, and refuses nothing. A row that would exceed the bounds above on this
/// device is not run, and the table says why.
#[must_use]
pub fn device_limit_cases(backend: &dyn VyreBackend) -> Vec<Case> {
    let limits = &Limits::of(backend);
    let one_wg = DispatchConfig::default().with_grid([1, 1, 1]);
    let output = |count: u32| {
        Program::wrapped(
            vec![
                BufferDecl::output("big", 0, DataType::U32)
                    .with_count(count)
                    .with_output_byte_range(0..4),
            ],
            [1, 1, 1],
            vec![Node::store("big", Expr::u32(0), Expr::u32(7))],
        )
    };
    let mut cases = binding_limit_cases(limits, &output);
    cases.push(
        Case::both(
            "output of u32::MAX words (16 GiB)",
            output(u32::MAX),
            if limits.binding_bytes < u64::from(u32::MAX) * 4 {
                limit()
            } else {
                Expect::NotRun("the device binds 16 GiB, so this output is within its limits")
            },
        )
        .config(one_wg.clone())
        .host(Expect::NotRun(
            "no device limit; it would really allocate 16 GiB of host memory",
        )),
    );
    cases.push(bound_buffers_case(limits).config(one_wg.clone()));
    cases.push(workgroup_memory_case(limits).config(one_wg.clone()));
    let z = limits.workgroup_size[2];
    if z < 1024 {
        let mut p = single_invocation();
        p.workgroup_size = [1, 1, z + 1];
        cases.push(
            Case::both("workgroup size z one past the device limit", p, limit())
                .config(one_wg)
                .host(Expect::Ok),
        );
    }
    cases
}

/// An output at and one word past the storage-binding limit, and a runtime-sized input one word
/// past it; not run where the limit is beyond [`ROW_BYTES_AT_MOST`].
fn binding_limit_cases(limits: &Limits, output: &dyn Fn(u32) -> Program) -> Vec<Case> {
    let one_wg = DispatchConfig::default().with_grid([1, 1, 1]);
    let runtime = touching_one_word(vec![BufferDecl::read("r", 0, DataType::U32)]);
    let fits = limits.binding_bytes <= ROW_BYTES_AT_MOST;
    let too_big = Expect::NotRun("the device's binding limit is beyond what a test allocates");
    let (at_limit, past_limit) = match u32::try_from(limits.binding_bytes / 4) {
        Ok(words) if fits => (words, words.saturating_add(1)),
        _ => (1, 2),
    };
    let runtime_input = if fits {
        let bytes = usize::try_from(limits.binding_bytes + 4).unwrap_or(usize::MAX);
        vec![vec![0; bytes]]
    } else {
        vec![vec![0; 4]]
    };
    let pick = |expect: Expect| if fits { expect } else { too_big };
    vec![
        Case::both(
            "output exactly at the binding limit",
            output(at_limit),
            pick(Expect::Ok),
        )
        .config(one_wg.clone())
        .host(pick(Expect::Ok)),
        Case::both(
            "output one word past the binding limit",
            output(past_limit),
            pick(limit()),
        )
        .config(one_wg.clone())
        .host(pick(Expect::Ok)),
        Case::both(
            "runtime-sized input one word past the binding limit",
            runtime,
            pick(limit()),
        )
        .inputs(runtime_input)
        .config(one_wg)
        .host(pick(Expect::Ok)),
    ]
}

/// One bound buffer more than the device allows (`bound_buffers` reads and the output); not run
/// where the limit is beyond [`ROW_BUFFERS_AT_MOST`].
fn bound_buffers_case(limits: &Limits) -> Case {
    let name = format!(
        "{} bound buffers, one past the limit",
        u64::from(limits.bound_buffers) + 1
    );
    if limits.bound_buffers > ROW_BUFFERS_AT_MOST {
        return Case::both(
            name,
            single_invocation(),
            Expect::NotRun("the device's bound-buffer limit is beyond what a test declares"),
        );
    }
    let reads: Vec<BufferDecl> = (0..limits.bound_buffers)
        .map(|i| BufferDecl::read(format!("r{i}"), i, DataType::U32).with_count(1))
        .collect();
    Case::both(name, touching_one_word(reads), limit()).host(Expect::Ok)
}

/// Workgroup memory one word past the device's limit; not run where the limit is beyond
/// [`ROW_BYTES_AT_MOST`] (the reference would allocate it for real).
fn workgroup_memory_case(limits: &Limits) -> Case {
    let name = "workgroup memory one word past the limit";
    let words = u32::try_from(limits.workgroup_bytes / 4)
        .ok()
        .filter(|_| limits.workgroup_bytes <= ROW_BYTES_AT_MOST)
        .and_then(|w| w.checked_add(1));
    let Some(words) = words else {
        return Case::both(
            name,
            single_invocation(),
            Expect::NotRun("the device's workgroup-memory limit is beyond what a test allocates"),
        );
    };
    let workgroup = Program::wrapped(
        vec![
            BufferDecl::workgroup("w", words, DataType::U32),
            BufferDecl::output("out", 0, DataType::U32).with_count(1),
        ],
        [1, 1, 1],
        vec![
            Node::store("w", Expr::u32(words - 1), Expr::u32(3)),
            Node::store("out", Expr::u32(0), Expr::load("w", Expr::u32(words - 1))),
        ],
    );
    Case::both(name, workgroup, limit()).host(Expect::Ok)
}

/// Every case of the table, sized for `backend`'s device: invalid programs, inputs, grids, device
/// limits.
#[must_use]
pub fn table(backend: &dyn VyreBackend) -> Vec<Case> {
    let mut cases = invalid_program_cases();
    cases.extend(input_cases());
    cases.extend(grid_cases());
    cases.extend(device_limit_cases(backend));
    cases
}

/// Runs the whole [`table`] on `backend`, prints it, and fails listing every row that went wrong.
///
/// # Panics
///
/// When a row got another outcome, a message without `Fix:`, or panicked; that is its purpose (a
/// test assertion).
pub fn check_table(backend: &dyn VyreBackend) {
    check_cases(backend, "bad input", &table(backend));
}
