//! The text form against the generators: every generated program prints and parses back to itself,
//! and malformed text (noise, or printed programs with characters flipped, inserted, deleted or
//! cut) is an error with a position, never a panic.
//!
//! CI runs a few thousand cases. `VYRE_WIRE_FUZZ_CASES=N` runs `N` malformed texts and `N / 10`
//! round trips instead, and prints the counts; `FUZZING.md` records such runs.

use std::cell::Cell;

use proptest::collection::vec;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use vyre_conformance::r#gen::{GenConfig, case, raw_program};
use vyre_foundation::ir::Program;

fn fuzz_cases(default: u32) -> u32 {
    std::env::var("VYRE_WIRE_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn runner(cases: u32) -> TestRunner {
    TestRunner::new(Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    })
}

fn any_program() -> impl Strategy<Value = Program> {
    prop_oneof![
        case(&GenConfig::differential()).prop_map(|c| c.program),
        case(&GenConfig::valid_only()).prop_map(|c| c.program),
        raw_program(),
    ]
}

/// Pieces of the text form, so that noise often gets past the first token.
const PIECES: [&str; 24] = [
    "program",
    " @workgroup_size(1, 1, 1) {",
    "buffer a: read u32[4] @binding(0);",
    "let",
    " x",
    " = ",
    "1u",
    "-1i",
    "1.5f",
    "f32_bits(0x7f800000)",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    ";",
    "..",
    " + ",
    "-(",
    "\"",
    "\\u{",
    "gid.x",
    "if ",
];

fn noise() -> impl Strategy<Value = String> {
    prop_oneof![
        ".{0,80}",
        vec(0..PIECES.len(), 0..40).prop_map(|ix| ix.iter().map(|&i| PIECES[i]).collect()),
    ]
}

#[derive(Clone, Debug)]
enum Edit {
    Replace(usize, char),
    Insert(usize, char),
    Delete(usize),
    Truncate(usize),
}

fn edit() -> impl Strategy<Value = Edit> {
    let c = prop_oneof![
        proptest::char::range(' ', '~'),
        Just('\n'),
        Just('é'),
        Just('"'),
        Just('-')
    ];
    prop_oneof![
        (any::<usize>(), c.clone()).prop_map(|(i, c)| Edit::Replace(i, c)),
        (any::<usize>(), c).prop_map(|(i, c)| Edit::Insert(i, c)),
        any::<usize>().prop_map(Edit::Delete),
        any::<usize>().prop_map(Edit::Truncate),
    ]
}

fn apply(text: &str, edits: &[Edit]) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    for e in edits {
        let len = chars.len().max(1);
        match *e {
            Edit::Replace(i, c) if !chars.is_empty() => chars[i % len] = c,
            Edit::Insert(i, c) => chars.insert(i % (chars.len() + 1), c),
            Edit::Delete(i) if !chars.is_empty() => {
                chars.remove(i % len);
            }
            Edit::Truncate(i) => chars.truncate(i % len),
            Edit::Replace(..) | Edit::Delete(_) => {}
        }
    }
    chars.into_iter().collect()
}

fn malformed() -> impl Strategy<Value = String> {
    prop_oneof![
        1 => noise(),
        4 => (any_program(), vec(edit(), 1..4)).prop_map(|(p, edits)| apply(&p.to_string(), &edits)),
    ]
}

#[test]
fn malformed_text_is_an_error_with_a_position_and_never_panics() {
    let cases = fuzz_cases(3000);
    let (parsed, errors) = (Cell::new(0u64), Cell::new(0u64));
    let result = runner(cases).run(&malformed(), |text| {
        match text.parse::<Program>() {
            // An edit can land on another program (a changed digit); it must print and read back.
            Ok(program) => {
                parsed.set(parsed.get() + 1);
                prop_assert_eq!(program.to_string().parse::<Program>(), Ok(program));
            }
            Err(e) => {
                errors.set(errors.get() + 1);
                let lines = text.split('\n').count();
                prop_assert!(e.line() >= 1 && e.line() <= lines, "{e} in {lines} lines");
                prop_assert!(e.column() >= 1);
                let message = e.to_string();
                let at = format!("line {}, column {}: ", e.line(), e.column());
                prop_assert!(message.starts_with(&at), "{message}");
                prop_assert!(message.contains(" Fix: "), "{message}");
            }
        }
        Ok(())
    });
    if let Err(failure) = result {
        panic!("{failure}");
    }
    eprintln!(
        "text fuzz: {} malformed texts, {} errors, {} parsed (all read back), 0 panics",
        parsed.get() + errors.get(),
        errors.get(),
        parsed.get()
    );
}

#[test]
fn generated_programs_read_back_from_their_text() {
    let cases = fuzz_cases(20_000) / 10;
    let tried = Cell::new(0u64);
    let result = runner(cases).run(&any_program(), |program| {
        tried.set(tried.get() + 1);
        let text = program.to_string();
        let back = text.parse::<Program>();
        prop_assert_eq!(back.as_ref(), Ok(&program), "{}", text);
        Ok(())
    });
    if let Err(failure) = result {
        panic!("{failure}");
    }
    eprintln!(
        "text round trip: {} generated programs, 0 failures",
        tried.get()
    );
}
