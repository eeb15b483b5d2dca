//! The wire format against the generators: every generated program round-trips, and malformed
//! bytes (arbitrary, or valid encodings flipped, cut, grown and shrunk) are errors, never panics.
//!
//! CI runs a few thousand cases of each. `VYRE_WIRE_FUZZ_CASES=N` runs `N` malformed inputs and
//! `N / 10` round trips of each generator instead, and prints the counts; `FUZZING.md` records such
//! runs.

use std::cell::Cell;

use proptest::collection::vec;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use vyre_conformance::r#gen::{GenConfig, case, raw_program};
use vyre_foundation::ir::{Program, WIRE_MAGIC, WIRE_VERSION};

/// The number of malformed inputs to try: `VYRE_WIRE_FUZZ_CASES`, else `default`.
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

/// Programs from every generator: comparable, valid-only and raw (mostly invalid) ones.
fn any_program() -> impl Strategy<Value = Program> {
    prop_oneof![
        case(&GenConfig::differential()).prop_map(|c| c.program),
        case(&GenConfig::valid_only()).prop_map(|c| c.program),
        raw_program(),
    ]
}

/// One edit of a byte string; positions are taken modulo its length.
#[derive(Clone, Debug)]
enum Mutation {
    FlipBit(usize, u8),
    Overwrite(usize, u8),
    Insert(usize, u8),
    Delete(usize),
    Truncate(usize),
    /// Copies a few bytes from one place over another, so whole tags and varints move.
    Splice(usize, usize, usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let at = any::<usize>();
    prop_oneof![
        (at, 0..8u8).prop_map(|(i, bit)| Mutation::FlipBit(i, bit)),
        (at, any::<u8>()).prop_map(|(i, b)| Mutation::Overwrite(i, b)),
        (at, any::<u8>()).prop_map(|(i, b)| Mutation::Insert(i, b)),
        at.prop_map(Mutation::Delete),
        at.prop_map(Mutation::Truncate),
        (at, at, 1..6usize).prop_map(|(a, b, n)| Mutation::Splice(a, b, n)),
    ]
}

fn apply(bytes: &mut Vec<u8>, m: &Mutation) {
    let len = bytes.len();
    if len == 0 {
        if let Mutation::Insert(_, b) = m {
            bytes.push(*b);
        }
        return;
    }
    match *m {
        Mutation::FlipBit(i, bit) => bytes[i % len] ^= 1 << bit,
        Mutation::Overwrite(i, b) => bytes[i % len] = b,
        Mutation::Insert(i, b) => bytes.insert(i % (len + 1), b),
        Mutation::Delete(i) => {
            bytes.remove(i % len);
        }
        Mutation::Truncate(i) => bytes.truncate(i % len),
        Mutation::Splice(from, to, n) => {
            let (from, to) = (from % len, to % len);
            let n = n.min(len - from).min(len - to);
            let chunk = bytes[from..from + n].to_vec();
            bytes[to..to + n].copy_from_slice(&chunk);
        }
    }
}

/// Inputs that are mostly not programs: noise, noise after a valid header, and mutated encodings
/// of generated programs.
fn malformed() -> impl Strategy<Value = Vec<u8>> {
    let mut header = WIRE_MAGIC.to_vec();
    header.extend_from_slice(&WIRE_VERSION.to_le_bytes());
    prop_oneof![
        1 => vec(any::<u8>(), 0..64),
        2 => vec(any::<u8>(), 0..256).prop_map(move |tail| {
            let mut bytes = header.clone();
            bytes.extend(tail);
            bytes
        }),
        7 => (any_program(), vec(mutation(), 1..5)).prop_map(|(program, edits)| {
            let mut bytes = program.to_bytes();
            for m in &edits {
                apply(&mut bytes, m);
            }
            bytes
        }),
    ]
}

#[test]
fn malformed_bytes_are_errors_and_never_panic() {
    let cases = fuzz_cases(4000);
    let (decoded, errors) = (Cell::new(0u64), Cell::new(0u64));
    let result = runner(cases).run(&malformed(), |bytes| {
        match Program::from_bytes(&bytes) {
            // A mutation can land on another valid program; then its encoding is these bytes
            // exactly, since every program has one encoding.
            Ok(program) => {
                decoded.set(decoded.get() + 1);
                prop_assert_eq!(program.to_bytes(), bytes);
            }
            Err(e) => {
                errors.set(errors.get() + 1);
                prop_assert!(e.offset() <= bytes.len(), "{e} past {} bytes", bytes.len());
                let message = e.to_string();
                prop_assert!(
                    message.contains(&format!("at byte {}", e.offset())),
                    "{message}"
                );
                prop_assert!(message.contains(" Fix: "), "{message}");
            }
        }
        Ok(())
    });
    if let Err(failure) = result {
        panic!("{failure}");
    }
    eprintln!(
        "wire fuzz: {} malformed inputs, {} errors, {} decoded (all re-encoded identically), 0 panics",
        decoded.get() + errors.get(),
        errors.get(),
        decoded.get()
    );
}

#[test]
fn generated_programs_round_trip_through_the_wire() {
    let cases = fuzz_cases(20_000) / 10;
    let tried = Cell::new(0u64);
    let result = runner(cases).run(&any_program(), |program| {
        tried.set(tried.get() + 1);
        let bytes = program.to_bytes();
        let back = Program::from_bytes(&bytes);
        prop_assert_eq!(back.as_ref(), Ok(&program));
        Ok(())
    });
    if let Err(failure) = result {
        panic!("{failure}");
    }
    eprintln!(
        "wire round trip: {} generated programs, 0 failures",
        tried.get()
    );
}
