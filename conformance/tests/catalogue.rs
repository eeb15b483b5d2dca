//! The catalogue itself: valid programs, unique names, enough cases, cases inside their outputs.

use std::collections::HashSet;

use vyre_conformance::catalogue::{Area, catalogue};

#[test]
fn every_program_validates() {
    for batch in catalogue() {
        if let Err(errors) = vyre_foundation::validate(&batch.program) {
            panic!(
                "batch `{}` is invalid:\n{errors}\n{}",
                batch.name, batch.program
            );
        }
    }
}

#[test]
fn names_are_unique_and_every_area_has_cases() {
    let batches = catalogue();
    let mut batch_names = HashSet::new();
    let mut case_names = HashSet::new();
    for batch in &batches {
        assert!(
            batch_names.insert(batch.name.clone()),
            "batch `{}` twice",
            batch.name
        );
        for case in &batch.cases {
            assert!(
                case_names.insert(case.name.clone()),
                "case `{}` twice",
                case.name
            );
        }
    }
    for area in Area::ALL {
        let cases: usize = batches
            .iter()
            .filter(|b| b.area == area)
            .map(|b| b.cases.len())
            .sum();
        assert!(cases > 0, "area {area} has no cases");
    }
    assert!(case_names.len() >= 1000, "only {} cases", case_names.len());
}

#[test]
fn every_case_points_inside_an_output_and_inputs_fit() {
    for batch in catalogue() {
        let outputs: Vec<_> = batch.program.output_buffers().collect();
        for case in &batch.cases {
            let out = outputs
                .get(case.output)
                .unwrap_or_else(|| panic!("{}: no output {}", case.name, case.output));
            let words = out
                .output_byte_range
                .clone()
                .map_or(out.count as usize, |r| r.len() / 4);
            assert!(
                case.word < words,
                "{}: word {} past {words}",
                case.name,
                case.word
            );
        }
        let lens: Vec<usize> = batch.inputs.iter().map(Vec::len).collect();
        if let Err(e) = vyre_driver::plan_dispatch(&batch.program, &lens, &batch.config) {
            panic!("batch `{}`: {e}", batch.name);
        }
    }
}

#[test]
fn the_core_subset_has_hand_written_expectations() {
    for batch in catalogue() {
        if matches!(batch.area, Area::Integer | Area::Bits | Area::Cast) {
            for case in &batch.cases {
                assert!(
                    case.expect.oracle.is_some(),
                    "{} has no hand-written expectation",
                    case.name
                );
            }
        }
    }
}

#[test]
fn every_program_uses_at_most_eight_storage_buffers() {
    for batch in catalogue() {
        let bound = batch
            .program
            .buffers
            .iter()
            .filter(|b| b.access.is_bound())
            .count();
        assert!(bound <= 8, "batch `{}` binds {bound} buffers", batch.name);
    }
}
