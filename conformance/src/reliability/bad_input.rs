//! Bad input: one table of invalid programs, wrong inputs, bad grids and programs past device limits,
//! each with the error variant every backend must return. Each row has two columns: what a backend
//! with a device (`Capabilities::is_gpu`, so with device limits) must do, and what a backend without
//! one (the reference) must do, where it legitimately has no limit.
//!
//! Every case must return its variant with a `Fix:` in the message, and never panic: a panic is caught
//! and reported as a failure of that case, and every failing case is listed before the test fails.
//! Every row prints its expectation, its outcome and its time.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::Duration;

use vyre_driver::{BackendError, DispatchConfig, VyreBackend};
use vyre_foundation::ir::{BufferDecl, DataType, Expr, Node, Program};

use crate::fixtures::add_one_program as add_one;
use crate::reliability::invalid_programs::invalid_program_cases;

/// What one backend must do with one case.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expect {
    /// The dispatch succeeds.
    Ok,
    /// `BackendError` of this variant (its `kind_name`).
    Err(&'static str),
    /// `BackendError::InvalidProgram` reporting a validation error of this kind.
    Invalid(&'static str),
    /// Deliberately not run on this backend, for the reason given (printed in the table).
    NotRun(&'static str),
}

/// One row of the table.
#[derive(Clone, Debug)]
pub struct Case {
    /// What the row tries, printed in the table.
    pub name: String,
    /// The program dispatched.
    pub program: Program,
    /// Its inputs.
    pub inputs: Vec<Vec<u8>>,
    /// Its grid and timeout.
    pub config: DispatchConfig,
    /// What a backend without a device (the reference) must do.
    pub host: Expect,
    /// What a backend with a device, and so with device limits, must do.
    pub device: Expect,
}

impl Case {
    /// A case every backend must answer the same way, with inputs that fit `program`.
    #[must_use]
    pub fn both(name: impl Into<String>, program: Program, expect: Expect) -> Self {
        let inputs = fitting_inputs(&program);
        Self {
            name: name.into(),
            program,
            inputs,
            config: DispatchConfig::default(),
            host: expect,
            device: expect,
        }
    }

    /// The row with these inputs instead of fitting ones.
    #[must_use]
    pub fn inputs(mut self, inputs: Vec<Vec<u8>>) -> Self {
        self.inputs = inputs;
        self
    }

    /// The row with this grid and timeout.
    #[must_use]
    pub fn config(mut self, config: DispatchConfig) -> Self {
        self.config = config;
        self
    }

    /// The row with another expectation for backends without a device.
    #[must_use]
    pub fn host(mut self, expect: Expect) -> Self {
        self.host = expect;
        self
    }
}

/// One zeroed input per input buffer: its declared count, or one element when runtime-sized.
#[must_use]
pub fn fitting_inputs(program: &Program) -> Vec<Vec<u8>> {
    program
        .input_buffers()
        .map(|b| vec![0; b.count.max(1) as usize * b.element.size_bytes()])
        .collect()
}

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

fn describe(expect: Expect) -> String {
    match expect {
        Expect::Ok => "Ok".into(),
        Expect::Err(kind) => kind.into(),
        Expect::Invalid(kind) => format!("InvalidProgram({kind})"),
        Expect::NotRun(_) => "not run".into(),
    }
}

fn outcome(result: &Result<Vec<Vec<u8>>, BackendError>) -> String {
    match result {
        Ok(_) => "Ok".into(),
        Err(BackendError::InvalidProgram(errors)) => {
            let kinds: Vec<String> = errors
                .errors
                .iter()
                .map(|e| {
                    format!("{:?}", e.kind)
                        .split([' ', '{'])
                        .next()
                        .unwrap_or("")
                        .to_string()
                })
                .collect();
            format!("InvalidProgram({})", kinds.join(", "))
        }
        Err(e) => e.kind_name().into(),
    }
}

/// Checks one result against its expectation; `Err` holds why it does not match.
fn judge(expect: Expect, result: &Result<Vec<Vec<u8>>, BackendError>) -> Result<(), String> {
    let fix = |e: &BackendError| {
        if e.to_string().contains("Fix:") {
            Ok(())
        } else {
            Err(format!("the message has no `Fix:`: {e}"))
        }
    };
    match (expect, result) {
        (Expect::Ok, Ok(_)) => Ok(()),
        (Expect::Err(kind), Err(e)) if e.kind_name() == kind => fix(e),
        (Expect::Invalid(kind), Err(e @ BackendError::InvalidProgram(errors)))
            if errors
                .errors
                .iter()
                .any(|v| format!("{:?}", v.kind).starts_with(kind)) =>
        {
            fix(e)
        }
        (_, Err(e)) => Err(format!("got {}: {e}", outcome(result))),
        (_, Ok(_)) => Err("the dispatch succeeded".into()),
    }
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

/// Runs `cases` (rows of the table, called `what` in the summary) on `backend`, prints every row
/// with its time, and fails listing every row that went wrong.
///
/// # Panics
///
/// As [`check_table`].
pub fn check_cases(backend: &dyn VyreBackend, what: &str, cases: &[Case]) {
    let has_device = backend.capabilities().is_gpu;
    let (mut tried, mut not_run, mut panics) = (0, 0, 0);
    let mut failures = Vec::new();
    for case in cases {
        let expect = if has_device { case.device } else { case.host };
        if let Expect::NotRun(why) = expect {
            not_run += 1;
            eprintln!("{:<58} not run on {}: {why}", case.name, backend.id());
            continue;
        }
        tried += 1;
        let started = std::time::Instant::now();
        let result = catch_unwind(AssertUnwindSafe(|| {
            backend.dispatch(&case.program, &case.inputs, &case.config)
        }));
        let took = started.elapsed();
        let verdict = match &result {
            Err(_) => {
                panics += 1;
                Err("panicked".to_string())
            }
            Ok(result) => judge(expect, result),
        };
        let got = match &result {
            Ok(r) => outcome(r),
            Err(_) => "panic".into(),
        };
        eprintln!(
            "{:<58} expected {:<32} got {got:<32} {:>8.1} ms",
            case.name,
            describe(expect),
            took.as_secs_f64() * 1e3
        );
        if let Err(why) = verdict {
            failures.push(format!(
                "{}: expected {}, {why}",
                case.name,
                describe(expect)
            ));
        }
    }
    eprintln!(
        "{what} on {}: {} cases, {tried} tried, {not_run} not run (explicit), {} wrong, panics: {panics}",
        backend.id(),
        cases.len(),
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "{} of {tried} {what} cases failed on {}:\n{}",
        failures.len(),
        backend.id(),
        failures.join("\n")
    );
}
