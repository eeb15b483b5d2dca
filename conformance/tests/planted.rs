//! Wrong backends planted on purpose: the suite must catch each one and name the case.

use vyre_conformance::catalogue::{Acceptance, Area, catalogue};
use vyre_conformance::report::{CaseResult, Culprit};
use vyre_conformance::{
    CheckOptions, ConformanceReport, ReferenceBackend, check_backend, check_backend_with,
    check_with_reference,
};
use vyre_driver::{BackendError, Capabilities, DispatchConfig, VyreBackend};
use vyre_foundation::ir::Program;

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

vyre_conformance::conformance_test!(
    reference_conforms_through_the_macro,
    ReferenceBackend::new()
);
