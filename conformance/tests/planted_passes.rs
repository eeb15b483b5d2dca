//! `fuzz::check_pass` must catch and shrink each deliberately wrong pass of
//! `fuzz::planted_passes` within 5000 programs, on two seeds, to a program of a few statements
//! that still shows the bug's shape.
//!
//! `VYRE_PASS_SHAPES_MEASURE=N` (with `--nocapture`) prints, for each planted pass and seeds
//! 1..=N, the index of the first program that shows it with the pass shapes
//! (`gen::Feature::PassShapes`) and without them (each search stops at 20 000 programs).

use vyre_conformance::fuzz::{self, FuzzOptions, PassMismatch, planted_passes};
use vyre_conformance::r#gen::{Feature, Features, GenConfig};
use vyre_foundation::ir::{Node, Program};

/// The most programs a planted pass may take to be caught.
const WITHIN: u64 = 5000;

/// The first mismatch `pass` shows in seed `seed`, shrunk.
fn caught(pass: fn(&Program) -> Program, seed: u64) -> PassMismatch {
    let options = FuzzOptions {
        cases: WITHIN,
        seed,
        max_mismatches: 1,
        // Small batches: the run stops at the end of the batch that found the first mismatch.
        batch: 64,
        ..FuzzOptions::default()
    };
    let summary = fuzz::check_pass(pass, &options);
    assert!(
        summary.mismatched > 0,
        "not caught in {WITHIN} programs of seed {seed}:\n{}",
        summary.report()
    );
    summary.mismatches[0].clone()
}

/// Statements in `body` and every body inside it.
fn statements(body: &[Node]) -> usize {
    let mut n = 0;
    vyre_foundation::for_each_node(body, |_| n += 1);
    n
}

/// Checks the shrunk program of `pass` in seeds 1 and 2: at most `most` statements (the prelude's
/// two lets included), and `shows(program)` holds.
fn caught_and_shrunk(pass: fn(&Program) -> Program, most: usize, shows: fn(&Program) -> bool) {
    for seed in [1, 2] {
        let found = caught(pass, seed);
        let report = found.report();
        let program = found.program();
        assert!(found.found.case_index < WITHIN, "{report}");
        assert!(statements(&program.body) <= most, "not shrunk:\n{report}");
        assert!(
            shows(program),
            "the shrunk program lost the shape:\n{report}"
        );
        assert_eq!(found.transformed.as_ref(), Some(&pass(program)), "{report}");
    }
}

fn text_has(program: &Program, needle: &str) -> bool {
    program.to_string().contains(needle)
}

#[test]
fn a_fold_that_saturates_or_drops_a_division_by_zero_is_caught() {
    caught_and_shrunk(planted_passes::wrong_fold, 4, |p| {
        ["/ 0", " + ", " - "].iter().any(|n| text_has(p, n))
    });
}

#[test]
fn a_cse_across_a_store_is_caught() {
    caught_and_shrunk(planted_passes::cse_across_store, 7, |p| {
        // Two lets of one load with a store between.
        let lets = p
            .body
            .iter()
            .filter(|n| matches!(n, Node::Let { value, .. } if value.to_string().contains('[')))
            .count();
        lets >= 2 && p.body.iter().any(|n| matches!(n, Node::Store { .. }))
    });
}

#[test]
fn a_licm_across_a_barrier_is_caught() {
    caught_and_shrunk(planted_passes::licm_across_barrier, 12, |p| {
        let mut loop_with_barrier = false;
        vyre_foundation::for_each_node(&p.body, |n| {
            if let Node::Loop { body, .. } = n {
                loop_with_barrier |= body.iter().any(|b| matches!(b, Node::Barrier));
            }
        });
        loop_with_barrier
    });
}

#[test]
fn an_unroll_that_drops_the_last_trip_is_caught() {
    caught_and_shrunk(planted_passes::unroll_drops_last_trip, 12, |p| {
        text_has(p, "for ")
    });
}

/// The index of the first program of `seed` (of at most `cases`) on which `pass` goes wrong, with
/// programs drawn under `config`.
fn first_found(
    pass: fn(&Program) -> Program,
    config: &GenConfig,
    seed: u64,
    cases: u64,
) -> Option<u64> {
    let options = FuzzOptions {
        cases,
        seed,
        max_mismatches: 1,
        batch: 64,
        config: config.clone(),
        ..FuzzOptions::default()
    };
    let summary = fuzz::check_pass(pass, &options);
    summary.mismatches.first().map(|m| m.found.case_index)
}

/// The pass shapes are what finds the CSE, LICM and unrolling bugs: in seed 1 each is found
/// within 500 programs with them and in none of 2000 without them and without tiles (the folding
/// bug, whose `x / 0` the generator drew before, is found either way). With `VYRE_PASS_SHAPES_MEASURE=N` (and
/// `--nocapture`) it prints the first program of seeds 1..=N instead, with and without the shapes,
/// each search stopping at 20 000 programs (FUZZING.md has the table).
#[test]
fn the_pass_shapes_find_what_the_generator_did_not() {
    let measure = std::env::var("VYRE_PASS_SHAPES_MEASURE")
        .ok()
        .and_then(|v| v.parse::<u64>().ok());
    let with = GenConfig::differential();
    // Tile blocks run counted loops of literal bounds (`gen/tiles.rs`), the shape unrolling acts
    // on: since the fuzzer draws tiles (`fuzz::drawable`), they find the unrolling bug too, so
    // the generator "without the pass shapes" is without them as well.
    let without = with.clone().with_features(
        Features::all()
            .without(Feature::PassShapes)
            .without(Feature::Tiles),
    );
    let Some(seeds) = measure else {
        for (name, pass) in planted_passes::ALL {
            let found = first_found(pass, &with, 1, 500);
            assert!(found.is_some(), "{name} not found within 500 programs");
            if name != "wrong-fold" {
                let before = first_found(pass, &without, 1, 2000);
                assert_eq!(before, None, "{name} found without the pass shapes");
            }
        }
        return;
    };
    for (name, pass) in planted_passes::ALL {
        for (label, config) in [("with", &with), ("without", &without)] {
            let found: Vec<Option<u64>> = (1..=seeds)
                .map(|seed| first_found(pass, config, seed, 20_000))
                .collect();
            eprintln!("{name} ({label} pass shapes): {found:?}");
        }
    }
}
