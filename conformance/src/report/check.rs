//! Running the catalogue on a backend and judging every case.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use rayon::prelude::{IntoParallelRefIterator, ParallelIterator};
use vyre_driver::{Capabilities, VyreBackend};
use vyre_foundation::ir::Features;

use crate::catalogue::{Area, Batch, Case, catalogue, format_word};
use crate::report::{CaseFailure, CaseResult, ConformanceReport, Culprit};

/// Progress of a check, passed to [`CheckOptions::progress`] after every batch.
#[derive(Clone, Copy, Debug)]
pub struct Progress<'a> {
    /// The batch that just finished.
    pub batch: &'a str,
    /// Its area.
    pub area: Area,
    /// Batches finished so far.
    pub done: usize,
    /// Batches in all.
    pub total: usize,
}

/// The callback type of [`CheckOptions::progress`].
pub type ProgressFn<'a> = &'a (dyn Fn(&Progress<'_>) + Sync);

/// What to check and how to report progress.
#[derive(Clone, Copy, Default)]
pub struct CheckOptions<'a> {
    /// Only these areas; empty means every area.
    pub areas: &'a [Area],
    /// Called after every batch (from worker threads, in completion order).
    pub progress: Option<ProgressFn<'a>>,
}

impl std::fmt::Debug for CheckOptions<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CheckOptions")
            .field("areas", &self.areas)
            .field("progress", &self.progress.is_some())
            .finish()
    }
}

/// Runs the whole catalogue on `backend`, with the reference backend as the oracle.
#[must_use]
pub fn check_backend(backend: &dyn VyreBackend) -> ConformanceReport {
    check_backend_with(backend, &CheckOptions::default())
}

/// Runs the catalogue on `backend` as `options` say, with the reference backend as the oracle.
#[must_use]
pub fn check_backend_with(
    backend: &dyn VyreBackend,
    options: &CheckOptions<'_>,
) -> ConformanceReport {
    let reference = reference_for(backend);
    check_with_reference(backend, &reference, options)
}

/// The reference backend as the oracle for `backend`: at the subgroup size `backend` reports
/// (the smallest of its range, where it reports a range), so that subgroup results that depend on
/// the size are those of the backend's device (SEMANTICS.md, "Subgroups").
#[must_use]
pub fn reference_for(backend: &dyn VyreBackend) -> crate::ReferenceBackend {
    let caps = backend.capabilities();
    let reference = crate::ReferenceBackend::new();
    if caps.subgroups {
        reference.with_subgroup_size(caps.subgroup_sizes[0])
    } else {
        reference
    }
}

/// Runs the catalogue on `backend` with `reference` as the oracle for cases without a hand-written
/// expectation.
#[must_use]
pub fn check_with_reference(
    backend: &dyn VyreBackend,
    reference: &dyn VyreBackend,
    options: &CheckOptions<'_>,
) -> ConformanceReport {
    let start = Instant::now();
    let batches: Vec<Batch> = catalogue()
        .into_iter()
        .filter(|b| options.areas.is_empty() || options.areas.contains(&b.area))
        .collect();
    let done = AtomicUsize::new(0);
    // Batches the backend ran: those it lacks a feature for are not dispatched.
    let dispatched = AtomicUsize::new(0);
    let total = batches.len();
    let caps = backend.capabilities();
    let per_batch: Vec<Vec<CaseResult>> = batches
        .par_iter()
        .map(|batch| {
            let results = match missing_features(batch, &caps) {
                Some(missing) => unsupported(batch, &missing),
                None => {
                    dispatched.fetch_add(1, Ordering::Relaxed);
                    run_batch(batch, backend, reference)
                }
            };
            let finished = done.fetch_add(1, Ordering::Relaxed) + 1;
            if let Some(progress) = options.progress {
                progress(&Progress {
                    batch: &batch.name,
                    area: batch.area,
                    done: finished,
                    total,
                });
            }
            results
        })
        .collect();
    ConformanceReport {
        backend: backend.id().to_string(),
        device: caps.device_name,
        workarounds: caps.workarounds,
        dispatches: dispatched.into_inner(),
        elapsed_ms: start.elapsed().as_millis(),
        cases: per_batch.into_iter().flatten().collect(),
    }
}

/// The names of the optional features `batch`'s program needs and `caps` lacks, if any, or the
/// matrix-tile shape or workgroup size the device does not run (`vyre_driver::check_tiles`). An
/// invalid program needs nothing: running it reports why it is invalid.
fn missing_features(batch: &Batch, caps: &Capabilities) -> Option<String> {
    let validated = vyre_foundation::validate(&batch.program).ok()?;
    let missing = validated.features().missing_from(caps.features());
    if !missing.is_empty() {
        return Some(missing.to_string());
    }
    vyre_driver::check_tiles(caps, &validated)
        .err()
        .map(|_| format!("{} of this shape", Features::TILES))
}

/// The batch's cases, each marked not supported on this device for lack of `missing`.
fn unsupported(batch: &Batch, missing: &str) -> Vec<CaseResult> {
    batch
        .cases
        .iter()
        .map(|case| CaseResult {
            name: case.name.clone(),
            area: batch.area,
            batch: batch.name.clone(),
            passed: false,
            unsupported: Some(missing.to_owned()),
            failure: None,
        })
        .collect()
}

/// The outputs of one dispatch, or the error (a panic becomes an error too: the check goes on).
type Outputs = Result<Vec<Vec<u8>>, String>;

fn dispatch(backend: &dyn VyreBackend, batch: &Batch) -> Outputs {
    let run = catch_unwind(AssertUnwindSafe(|| {
        backend.dispatch(&batch.program, &batch.inputs, &batch.config)
    }));
    match run {
        Ok(Ok(outputs)) => Ok(outputs),
        Ok(Err(error)) => Err(format!("{} error: {error}", error.kind_name())),
        Err(panic) => {
            let message = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| (*s).to_string()))
                .unwrap_or_default();
            Err(format!("the backend panicked: {message}"))
        }
    }
}

fn run_batch(
    batch: &Batch,
    backend: &dyn VyreBackend,
    reference: &dyn VyreBackend,
) -> Vec<CaseResult> {
    let from_reference = dispatch(reference, batch);
    let from_backend = dispatch(backend, batch);
    // `dispatch` returns one vector per output, each exactly its output's byte range: extra or
    // longer outputs are as wrong as a wrong element, though no case's element shows them.
    let shape = shape_mismatch(&from_reference, &from_backend);
    let mut program_text: Option<String> = None;
    batch
        .cases
        .iter()
        .map(|case| {
            let ref_word = word(&from_reference, case);
            let got_word = match &shape {
                Some(why) => Err(why.clone()),
                None => word(&from_backend, case),
            };
            let failure =
                judge(case, &ref_word, &got_word).map(|(culprit, expected, got)| CaseFailure {
                    culprit,
                    inputs: case.inputs.clone(),
                    expected,
                    got,
                    location: format!("output {} element {}", case.output, case.word),
                    program: program_text
                        .get_or_insert_with(|| batch.program.to_string())
                        .clone(),
                });
            CaseResult {
                name: case.name.clone(),
                area: batch.area,
                batch: batch.name.clone(),
                passed: failure.is_none(),
                unsupported: None,
                failure,
            }
        })
        .collect()
}

/// Why the backend's outputs are not shaped as the reference's (their number and byte lengths), if
/// they are not.
fn shape_mismatch(reference: &Outputs, got: &Outputs) -> Option<String> {
    let (Ok(reference), Ok(got)) = (reference, got) else {
        return None;
    };
    let lengths = |outputs: &[Vec<u8>]| outputs.iter().map(Vec::len).collect::<Vec<_>>();
    let (want, have) = (lengths(reference), lengths(got));
    (want != have).then(|| {
        format!(
            "outputs of {have:?} bytes where the reference returned {want:?} (each output is exactly its declared byte range)"
        )
    })
}

/// The case's result element in `outputs` (its bits, zero-extended), or why there is none.
fn word(outputs: &Outputs, case: &Case) -> Result<u64, String> {
    let outputs = outputs.as_ref().map_err(Clone::clone)?;
    let bytes = outputs.get(case.output).ok_or_else(|| {
        format!(
            "no output {} (the backend returned {} outputs)",
            case.output,
            outputs.len()
        )
    })?;
    let size = case.ty.size_bytes();
    let at = case.word * size;
    bytes
        .get(at..at + size)
        .map(|b| {
            let mut le = [0u8; 8];
            le[..size].copy_from_slice(b);
            u64::from_le_bytes(le)
        })
        .ok_or_else(|| {
            format!(
                "output {} has {} bytes, element {} is missing",
                case.output,
                bytes.len(),
                case.word
            )
        })
}

/// A word of the case's type, readable, with its bits.
fn show(case: &Case, word: u64) -> String {
    let digits = case.ty.size_bytes() * 2;
    format!("{} (0x{word:0digits$x})", format_word(case.ty, word))
}

fn shown(case: &Case, word: &Result<u64, String>) -> String {
    match word {
        Ok(w) => show(case, *w),
        Err(e) => e.clone(),
    }
}

/// `None` when the case passes, else who failed, what was expected and what came back.
fn judge(
    case: &Case,
    reference: &Result<u64, String>,
    got: &Result<u64, String>,
) -> Option<(Culprit, String, String)> {
    let expect = &case.expect;
    // First the oracle: a reference that is wrong makes any comparison with it meaningless.
    let reference_ok = match (expect.oracle, &expect.accept, reference) {
        (Some(o), _, Ok(w)) => *w == o,
        (None, Some(accept), Ok(w)) => accept.accepts_bits(*w),
        (None, None, Ok(_)) => true,
        (_, _, Err(_)) => false,
    };
    if !reference_ok {
        let expected = match (expect.oracle, &expect.accept) {
            (Some(o), _) => format!("{} (hand-written expectation)", show(case, o)),
            (None, Some(accept)) => accept.to_string(),
            (None, None) => "a result".to_string(),
        };
        return Some((Culprit::Reference, expected, shown(case, reference)));
    }
    let (passed, expected) = match (&expect.accept, expect.oracle, reference) {
        (Some(accept), _, _) => (
            got.as_ref().is_ok_and(|w| accept.accepts_bits(*w)),
            accept.to_string(),
        ),
        (None, Some(o), _) => (got.as_ref() == Ok(&o), show(case, o)),
        (None, None, Ok(r)) => (
            got.as_ref() == Ok(r),
            format!("{} (from the reference)", show(case, *r)),
        ),
        // Unreachable: a reference error was reported above.
        (None, None, Err(e)) => (false, e.clone()),
    };
    (!passed).then(|| (Culprit::Backend, expected, shown(case, got)))
}
