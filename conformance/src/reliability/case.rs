//! One row of the bad-input table ([`bad_input`](super::bad_input)): what it dispatches, what a
//! backend with a device and one without must each return ([`Expect`]), and the check that runs
//! rows on a backend and judges every outcome ([`check_cases`]).
//!
//! Every row must return its variant with a `Fix:` in the message, and never panic: a panic is
//! caught and reported as a failure of that row, and every failing row is listed before the check
//! fails. Every row prints its expectation, its outcome and its time.

use std::panic::{AssertUnwindSafe, catch_unwind};

use vyre_driver::{BackendError, DispatchConfig, VyreBackend};
use vyre_foundation::ir::Program;

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

/// What `expect` reads as in the printed table.
fn describe(expect: Expect) -> String {
    match expect {
        Expect::Ok => "Ok".into(),
        Expect::Err(kind) => kind.into(),
        Expect::Invalid(kind) => format!("InvalidProgram({kind})"),
        Expect::NotRun(_) => "not run".into(),
    }
}

/// What a dispatch returned, as the printed table shows it.
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

/// Runs `cases` (rows of the table, called `what` in the summary) on `backend`, prints every row
/// with its time, and fails listing every row that went wrong.
///
/// # Panics
///
/// When a row got another outcome, a message without `Fix:`, or panicked; that is its purpose (a
/// test assertion).
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
