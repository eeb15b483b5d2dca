//! The metamorphic verdict on one case: the backend's outputs for the original and for each
//! variant, compared, and the reference asked only whether the original's result is open.

use std::panic::{AssertUnwindSafe, catch_unwind};

use vyre_driver::{BackendError, DispatchConfig, VyreBackend};

use crate::fuzz::compare::first_difference_between;
use crate::fuzz::judge::{panic_text, refused};
use crate::fuzz::metamorphic::{Variant, variants};
use crate::fuzz::{Oracle, SkipReason, Verdict};
use crate::r#gen::GeneratedCase;

/// Runs `case` and its [`variants`] (chosen by `seed`) on `backend` and compares each variant's
/// outputs with the original's. On the first disagreement the reference runs the original once:
/// a program it marks indeterminate (or runs out of fuel on) is skipped, anything else is a
/// mismatch, returned with the variant. A variant the backend refuses (a device limit, an
/// unsupported construct) is left out; a panic, or an error where the original ran, is a mismatch.
pub fn check(
    reference: &dyn Oracle,
    backend: &dyn VyreBackend,
    case: &GeneratedCase,
    config: &DispatchConfig,
    seed: u64,
) -> (Verdict, Option<Variant>) {
    let id = backend.id();
    let original = match dispatch(backend, case, config) {
        Err(panic) => format!("backend `{id}` panicked on the original: {panic}"),
        Ok(Err(e)) if refused(backend, &e) => {
            return (Verdict::Skip(SkipReason::OtherRefused), None);
        }
        Ok(Err(e)) => format!("`{id}` failed on the original, a valid program: {e}"),
        Ok(Ok(outputs)) => {
            return compare_variants(reference, backend, case, config, seed, &outputs);
        }
    };
    (reported(reference, case, config, original), None)
}

fn compare_variants(
    reference: &dyn Oracle,
    backend: &dyn VyreBackend,
    case: &GeneratedCase,
    config: &DispatchConfig,
    seed: u64,
    original: &[Vec<u8>],
) -> (Verdict, Option<Variant>) {
    let id = backend.id();
    for variant in variants(case, seed) {
        let name = variant.rewrite.name();
        let difference = match dispatch(backend, &variant.case, config) {
            Err(panic) => format!("backend `{id}` panicked on the `{name}` variant: {panic}"),
            Ok(Err(e)) if refused(backend, &e) => continue,
            Ok(Err(e)) => {
                format!("`{id}` failed on the `{name}` variant where it ran the original: {e}")
            }
            Ok(Ok(outputs)) => {
                let sides = ["the original", "the variant"];
                match first_difference_between(&case.program, original, &outputs, sides) {
                    None => continue,
                    Some(d) => format!("`{id}` disagrees with itself under `{name}`: {d}"),
                }
            }
        };
        return (reported(reference, case, config, difference), Some(variant));
    }
    (Verdict::Agree { ops: 0 }, None)
}

/// The verdict on a disagreement described by `detail`, once the reference has run the original:
/// a skip when its result is indeterminate or the reference ran out of fuel, else a mismatch.
fn reported(
    reference: &dyn Oracle,
    case: &GeneratedCase,
    config: &DispatchConfig,
    detail: String,
) -> Verdict {
    let run = catch_unwind(AssertUnwindSafe(|| {
        reference.run(&case.program, &case.inputs, config)
    }));
    match run {
        Ok(Err(BackendError::Timeout(_))) => Verdict::Skip(SkipReason::ReferenceBudget),
        Ok(Ok(traced)) if traced.indeterminate => Verdict::Skip(SkipReason::Indeterminate),
        _ => Verdict::Mismatch(detail),
    }
}

/// `case` on `backend`, a panic caught as its message.
fn dispatch(
    backend: &dyn VyreBackend,
    case: &GeneratedCase,
    config: &DispatchConfig,
) -> Result<Result<Vec<Vec<u8>>, BackendError>, String> {
    catch_unwind(AssertUnwindSafe(|| {
        backend.dispatch(&case.program, &case.inputs, config)
    }))
    .map_err(|panic| panic_text(&*panic))
}
