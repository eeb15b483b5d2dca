//! Wrong backends planted on purpose: the suite must catch each one and name the case.

use vyre_conformance::catalogue::{Acceptance, Area, Batch, Case, catalogue};
use vyre_conformance::report::{CaseResult, Culprit};
use vyre_conformance::{
    CheckOptions, ConformanceReport, ReferenceBackend, check_backend, check_backend_with,
    check_with_reference,
};
use vyre_driver::{BackendError, Capabilities, DispatchConfig, VyreBackend};
use vyre_foundation::ir::{DataType, Program};

/// A backend that runs the reference, then lets `corrupt` change the outputs of one program.
struct Planted<F> {
    inner: ReferenceBackend,
    id: &'static str,
    corrupt: F,
}

impl<F: Fn(&Program, &mut Vec<Vec<u8>>) + Send + Sync> VyreBackend for Planted<F> {
    fn id(&self) -> &str {
        self.id
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities::unlimited("planted")
    }

    fn dispatch(
        &self,
        program: &Program,
        inputs: &[Vec<u8>],
        config: &DispatchConfig,
    ) -> Result<Vec<Vec<u8>>, BackendError> {
        let mut outputs = self.inner.dispatch(program, inputs, config)?;
        (self.corrupt)(program, &mut outputs);
        Ok(outputs)
    }
}

/// The batch program, output and word of the case called `name`.
fn locate(name: &str) -> (Program, usize, usize) {
    for batch in catalogue() {
        if let Some(case) = batch.cases.iter().find(|c| c.name == name) {
            return (batch.program.clone(), case.output, case.word);
        }
    }
    panic!("no case `{name}` in the catalogue");
}

fn edit_word(outputs: &mut [Vec<u8>], output: usize, word: usize, f: impl Fn(u32) -> u32) {
    let bytes = &mut outputs[output][word * 4..word * 4 + 4];
    let value = f(u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]));
    bytes.copy_from_slice(&value.to_le_bytes());
}

fn failed(report: &ConformanceReport) -> Vec<&CaseResult> {
    report.failures().collect()
}

#[test]
fn one_flipped_bit_in_one_op_result_is_caught_and_named() {
    let target = "mul.i32(-7, 3)";
    let (program, output, word) = locate(target);
    let backend = Planted {
        inner: ReferenceBackend::new(),
        id: "flipped-bit",
        corrupt: move |p: &Program, out: &mut Vec<Vec<u8>>| {
            if *p == program {
                edit_word(out, output, word, |w| w ^ 1);
            }
        },
    };
    let report = check_backend_with(
        &backend,
        &CheckOptions {
            areas: &[Area::Integer],
            progress: None,
        },
    );
    let failures = failed(&report);
    assert_eq!(
        failures.len(),
        1,
        "{:?}",
        failures.iter().map(|c| &c.name).collect::<Vec<_>>()
    );
    let case = failures[0];
    assert_eq!(case.name, target);
    let failure = case.failure.as_ref().unwrap();
    assert_eq!(failure.culprit, Culprit::Backend);
    assert_eq!(failure.inputs, "-7, 3");
    assert!(failure.expected.starts_with("-21 "), "{}", failure.expected);
    assert!(failure.got.starts_with("-22 "), "{}", failure.got);
    assert!(failure.program.contains("(a0 * a1)"), "{}", failure.program);
    assert!(report.cases.iter().all(|c| c.area == Area::Integer));
}

/// `dispatch` returns each output exactly as long as its byte range, and no more outputs than
/// declared. A backend whose every element is right but whose outputs run long (or that returns an
/// extra output) is wrong too, though no single case's element shows it: found from outside, when
/// such a backend passed the whole catalogue.
#[test]
fn outputs_longer_than_declared_or_one_too_many_fail_every_case_of_their_batch() {
    let options = CheckOptions {
        areas: &[Area::Integer],
        progress: None,
    };
    let longer = Planted {
        inner: ReferenceBackend::new(),
        id: "longer",
        corrupt: |_: &Program, out: &mut Vec<Vec<u8>>| {
            for output in out.iter_mut() {
                output.extend_from_slice(&[0, 0, 0, 0]);
            }
        },
    };
    let extra = Planted {
        inner: ReferenceBackend::new(),
        id: "extra",
        corrupt: |_: &Program, out: &mut Vec<Vec<u8>>| out.push(vec![0; 4]),
    };
    for backend in [&longer as &dyn VyreBackend, &extra] {
        let report = check_backend_with(backend, &options);
        let ran = report.cases.iter().filter(|c| c.unsupported.is_none());
        assert!(ran.clone().count() > 0);
        for case in ran {
            let failure = case
                .failure
                .as_ref()
                .unwrap_or_else(|| panic!("{}: `{}` passed", backend.id(), case.name));
            assert_eq!(failure.culprit, Culprit::Backend);
            assert!(
                failure.got.contains("where the reference returned"),
                "{}",
                failure.got
            );
        }
    }
}

#[test]
fn an_add_four_ulps_off_is_caught_and_named() {
    let backend = Planted {
        inner: ReferenceBackend::new(),
        id: "four-ulps",
        corrupt: |p: &Program, out: &mut Vec<Vec<u8>>| {
            // Every `add.f32` result of the float batch (operator 0 of its f32 output), moved up
            // four f32 values where it is a normal number.
            for batch in catalogue()
                .into_iter()
                .filter(|b| b.program == *p && b.name == "float.binary")
            {
                for case in batch
                    .cases
                    .iter()
                    .filter(|c| c.name.starts_with("add.f32("))
                {
                    edit_word(out, case.output, case.word, |w| {
                        let v = f32::from_bits(w);
                        if v.is_normal() {
                            (0..4).fold(v, |x, _| x.next_up()).to_bits()
                        } else {
                            w
                        }
                    });
                }
            }
        },
    };
    let report = check_backend_with(
        &backend,
        &CheckOptions {
            areas: &[Area::Float],
            progress: None,
        },
    );
    let failures = failed(&report);
    assert!(
        failures.iter().all(|c| c.name.starts_with("add.f32(")),
        "{:?}",
        failures.first()
    );
    assert!(
        failures
            .iter()
            .all(|c| c.failure.as_ref().unwrap().culprit == Culprit::Backend)
    );
    let named = report.case("add.f32(1.5, 3.0)").unwrap();
    assert!(!named.passed, "a 4 ULP error on 1.5 + 3.0 must fail");
    let failure = named.failure.as_ref().unwrap();
    assert!(failure.expected.contains("4.5e0"), "{}", failure.expected);
    // Every determinate add with a normal result was moved, and every one was caught.
    let determinate = catalogue()
        .into_iter()
        .filter(|b| b.name == "float.binary")
        .flat_map(|b| b.cases)
        .filter(|c| c.name.starts_with("add.f32("))
        .filter(|c| {
            c.expect
                .accept
                .as_ref()
                .and_then(Acceptance::single_value)
                .is_some_and(|v| v.abs() > 1e-37)
        })
        .count();
    assert!(
        failures.len() >= determinate && determinate > 100,
        "{} of {determinate}",
        failures.len()
    );
}

/// The outputs of the batch holding the case `name` on `backend`, with the case's output and word.
fn run_batch_of(backend: &dyn VyreBackend, name: &str) -> (Batch, Vec<Vec<u8>>, usize, usize) {
    let (program, output, word) = locate(name);
    let batch = catalogue()
        .into_iter()
        .find(|b| b.program == program)
        .unwrap();
    let outputs = backend
        .dispatch(&program, &batch.inputs, &batch.config)
        .unwrap();
    (batch, outputs, output, word)
}

/// The word `word` of output `output`.
fn read_word(outputs: &[Vec<u8>], output: usize, word: usize) -> u32 {
    let bytes = &outputs[output][word * 4..word * 4 + 4];
    u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]])
}

/// The areas whose cases carry float operations.
const FLOAT_AREAS: [Area; 3] = [Area::Float, Area::Compare, Area::Cast];

/// True for a case whose result is an operand's bits moved, not a float operation's result.
fn is_move(name: &str) -> bool {
    ["bitcast.", "select.", "cast.f32_to_f32("]
        .iter()
        .any(|prefix| name.starts_with(prefix))
}

/// `word` read as an `f32`, flushed to zero of its sign when it is subnormal.
fn flush_word(word: u32) -> u32 {
    let v = f32::from_bits(word);
    if v.is_subnormal() {
        0.0f32.copysign(v).to_bits()
    } else {
        word
    }
}

/// A backend that flushes as NVIDIA does: float operations read subnormal operands as zero and
/// flush subnormal results; moves (bitcasts, `select`, the identity cast) keep every bit. It runs
/// each catalogue batch on the reference twice, with and without its f32 inputs flushed, and takes
/// each case's word from the run its kind calls for. Any other program (a semantics-suite float
/// test) is taken as float operations throughout: flushed inputs, flushed f32 outputs.
struct FlushToZero {
    inner: ReferenceBackend,
    batches: Vec<Batch>,
}

impl VyreBackend for FlushToZero {
    fn id(&self) -> &str {
        "flush-to-zero"
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities::unlimited("planted")
    }

    fn dispatch(
        &self,
        program: &Program,
        inputs: &[Vec<u8>],
        config: &DispatchConfig,
    ) -> Result<Vec<Vec<u8>>, BackendError> {
        let mut outputs = self.inner.dispatch(program, inputs, config)?;
        let flushed_inputs: Vec<Vec<u8>> = program
            .input_buffers()
            .zip(inputs)
            .map(|(decl, bytes)| match decl.element {
                DataType::F32 => bytes
                    .chunks_exact(4)
                    .flat_map(|w| {
                        flush_word(u32::from_le_bytes([w[0], w[1], w[2], w[3]])).to_le_bytes()
                    })
                    .collect(),
                _ => bytes.clone(),
            })
            .collect();
        let mut operated = self.inner.dispatch(program, &flushed_inputs, config)?;
        let Some(batch) = self.batches.iter().find(|b| b.program == *program) else {
            for (decl, bytes) in program.output_buffers().zip(&mut operated) {
                if decl.element == DataType::F32 {
                    for w in bytes.chunks_exact_mut(4) {
                        let word = flush_word(u32::from_le_bytes([w[0], w[1], w[2], w[3]]));
                        w.copy_from_slice(&word.to_le_bytes());
                    }
                }
            }
            return Ok(operated);
        };
        for case in batch.cases.iter().filter(|c| !is_move(&c.name)) {
            let word = read_word(&operated, case.output, case.word);
            let word = match case.ty {
                DataType::F32 => flush_word(word),
                _ => word,
            };
            edit_word(&mut outputs, case.output, case.word, |_| word);
        }
        Ok(outputs)
    }
}

#[test]
fn a_backend_that_flushes_subnormals_like_nvidia_passes_the_float_areas() {
    let backend = FlushToZero {
        inner: ReferenceBackend::new(),
        batches: catalogue(),
    };
    let report = check_backend_with(
        &backend,
        &CheckOptions {
            areas: &FLOAT_AREAS,
            progress: None,
        },
    );
    let first = report
        .failures()
        .next()
        .map(|c| vyre_conformance::report::render_failure("flush-to-zero", c));
    assert!(report.all_passed(), "{}", first.unwrap_or_default());
    // The backend really flushes: the H200's answers, and many results that differ from the
    // reference's, all accepted.
    let (batch, flushed, output, word) = run_batch_of(&backend, "min.f32(1e-40, NaN)");
    let (_, exact, _, _) = run_batch_of(&ReferenceBackend::new(), "min.f32(1e-40, NaN)");
    assert_eq!(read_word(&flushed, output, word), 0);
    assert_eq!(read_word(&exact, output, word), 1.0e-40f32.to_bits());
    let differing = batch
        .cases
        .iter()
        .filter(|c| read_word(&flushed, c.output, c.word) != read_word(&exact, c.output, c.word))
        .count();
    assert!(differing > 50, "only {differing} results flushed");
}

#[test]
fn the_float_semantics_cases_pass_on_a_backend_that_flushes_subnormals() {
    let backend = FlushToZero {
        inner: ReferenceBackend::new(),
        batches: Vec::new(),
    };
    // Each panics with every mismatch when the backend's results fall outside the intervals.
    vyre_conformance::semantics::float_arithmetic(&backend);
    vyre_conformance::semantics::float_comparisons(&backend);
    vyre_conformance::semantics::float_math(&backend);
    vyre_conformance::semantics::float_fma(&backend);
}

/// Runs `corrupt` on the result word of every float-area case whose result is an `f32`.
fn corrupting(
    id: &'static str,
    corrupt: impl Fn(&Case, u32) -> u32 + Send + Sync,
) -> Planted<impl Fn(&Program, &mut Vec<Vec<u8>>) + Send + Sync> {
    let batches: Vec<Batch> = catalogue()
        .into_iter()
        .filter(|b| FLOAT_AREAS.contains(&b.area))
        .collect();
    Planted {
        inner: ReferenceBackend::new(),
        id,
        corrupt: move |p: &Program, out: &mut Vec<Vec<u8>>| {
            for batch in batches.iter().filter(|b| b.program == *p) {
                for case in batch.cases.iter().filter(|c| c.ty == DataType::F32) {
                    edit_word(out, case.output, case.word, |w| corrupt(case, w));
                }
            }
        },
    }
}

/// The names of the failing cases of `backend` over the float areas, all blamed on the backend.
fn failing_float_cases(backend: &dyn VyreBackend) -> Vec<String> {
    let report = check_backend_with(
        backend,
        &CheckOptions {
            areas: &FLOAT_AREAS,
            progress: None,
        },
    );
    let failures = failed(&report);
    assert!(
        failures
            .iter()
            .all(|c| c.failure.as_ref().unwrap().culprit == Culprit::Backend)
    );
    failures.iter().map(|c| c.name.clone()).collect()
}

#[test]
fn a_backend_that_flushes_small_normal_results_is_caught_and_named() {
    // Every float result below 2^-125 in magnitude becomes zero: legal for the subnormals, not for
    // the normals f32::MIN_POSITIVE and its neighbours.
    let backend = corrupting("flushes-normals", |case, w| {
        let v = f32::from_bits(w);
        if !is_move(&case.name) && v != 0.0 && v.abs() < 2f32.powi(-125) {
            0.0f32.copysign(v).to_bits()
        } else {
            w
        }
    });
    let failures = failing_float_cases(&backend);
    for named in [
        "mul.f32(1.1754944e-38, 1.0)",
        "max.f32(1.1754944e-38, 1e-40)",
        "min.f32(1.1754944e-38, NaN)",
        "abs.f32(1.1754944e-38)",
    ] {
        assert!(failures.iter().any(|f| f == named), "{named}: {failures:?}");
    }
    // Only flushed normals fail: no case whose reference result was subnormal.
    let reference = ReferenceBackend::new();
    for name in &failures {
        let (_, out, output, word) = run_batch_of(&reference, name);
        let v = f32::from_bits(read_word(&out, output, word));
        assert!(v.is_normal(), "{name} failed with a subnormal result {v:e}");
    }
}

#[test]
fn a_backend_that_loses_the_sign_of_zero_in_a_bitcast_is_caught_and_named() {
    let backend = corrupting("bitcast-sign-of-zero", |case, w| {
        if case.name.starts_with("bitcast.") && w == 0x8000_0000 {
            0
        } else {
            w
        }
    });
    let failures = failing_float_cases(&backend);
    assert!(
        failures.iter().all(|f| f.starts_with("bitcast.")),
        "{failures:?}"
    );
    for named in [
        "bitcast.u32_to_f32(0x80000000)",
        "bitcast.i32_to_f32(-2147483648)",
        "bitcast.f32_to_f32(-0.0)",
    ] {
        assert!(failures.iter().any(|f| f == named), "{named}: {failures:?}");
    }
}

#[test]
fn a_backend_that_flushes_moved_subnormals_is_caught_and_named() {
    // Moves keep every bit: flushing a subnormal that a bitcast, a select or the identity cast
    // passes through is wrong, though the same flush is allowed for a float operation.
    let backend = corrupting("flushes-moves", |case, w| {
        if is_move(&case.name) {
            flush_word(w)
        } else {
            w
        }
    });
    let failures = failing_float_cases(&backend);
    assert!(failures.iter().all(|f| is_move(f)), "{failures:?}");
    for named in [
        "bitcast.u32_to_f32(0x1)",
        "bitcast.f32_to_f32(1e-40)",
        "cast.f32_to_f32(1e-40)",
        "select.f32(true, 0x1, 305419896)",
        "select.f32(false, 0x80000001, 3)",
    ] {
        assert!(failures.iter().any(|f| f == named), "{named}: {failures:?}");
    }
}

#[test]
fn a_reference_that_disagrees_with_the_hand_written_expectation_is_blamed() {
    let target = "shr.i32(-2147483648, 0x1f)";
    let (program, output, word) = locate(target);
    let wrong_reference = Planted {
        inner: ReferenceBackend::new(),
        id: "reference",
        corrupt: move |p: &Program, out: &mut Vec<Vec<u8>>| {
            if *p == program {
                edit_word(out, output, word, |w| w >> 1);
            }
        },
    };
    let good = ReferenceBackend::new();
    let report = check_with_reference(
        &good,
        &wrong_reference,
        &CheckOptions {
            areas: &[Area::Bits],
            progress: None,
        },
    );
    let failures = failed(&report);
    assert_eq!(failures.len(), 1);
    assert_eq!(failures[0].name, target);
    assert_eq!(
        failures[0].failure.as_ref().unwrap().culprit,
        Culprit::Reference
    );
}

#[test]
fn the_reference_passes_everything_and_the_report_round_trips_through_json() {
    let report = check_backend(&ReferenceBackend::new());
    let first = report
        .failures()
        .next()
        .map(|c| vyre_conformance::report::render_failure("reference", c));
    assert!(report.all_passed(), "{}", first.unwrap_or_default());
    assert!(report.total() >= 1000);
    assert_eq!(report.by_area().len(), Area::ALL.len());
    let json = report.to_json().unwrap();
    assert_eq!(ConformanceReport::from_json(&json).unwrap(), report);
}
