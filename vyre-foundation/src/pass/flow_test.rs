//! Test support for the flow passes: programs written in the text form over a fixed set of
//! buffers, and the two checks every rule's test makes (rewritten exactly as expected, or left
//! alone).

use crate::ir::Program;

use super::{Outcome, Pass};

/// The buffers every test program declares: `inp` (read), `rw` (read_write), `out` (output),
/// `cnt` (read_write, for atomics) and `wg` (workgroup).
const BUFFERS: &str = "
  buffer inp: read u32[8] @binding(0);
  buffer rw: read_write u32[8] @binding(1);
  buffer out: output u32[8] @binding(2);
  buffer cnt: read_write u32[4] @binding(3);
  buffer wg: workgroup u32[8];
";

/// The program with the test buffers, a workgroup of 4 and `body` (text form statements).
pub(super) fn program(body: &str) -> Program {
    let text = format!("program @workgroup_size(4, 1, 1) {{{BUFFERS}{body}\n}}");
    text.parse()
        .unwrap_or_else(|e| panic!("the test program does not parse: {e}\n{text}"))
}

/// Runs `pass` on `body`, which must validate, and returns what it made (validated too).
fn outcome(pass: &dyn Pass, body: &str) -> Outcome {
    let before = program(body);
    let validated =
        crate::validate(&before).unwrap_or_else(|e| panic!("the test program is invalid: {e}"));
    let outcome = pass.run(&validated);
    if let Outcome::Changed(after) = &outcome
        && let Err(e) = crate::validate(after)
    {
        panic!("`{}` made an invalid program: {e}\n{after}", pass.name());
    }
    outcome
}

/// `pass` turns `before` into exactly `after`.
pub(super) fn rewrites(pass: &dyn Pass, before: &str, after: &str) {
    let expected = program(after);
    match outcome(pass, before) {
        Outcome::Changed(made) => assert!(
            made == expected,
            "`{}` made\n{made}\nexpected\n{expected}",
            pass.name()
        ),
        Outcome::Unchanged => panic!("`{}` left the program unchanged:\n{before}", pass.name()),
    }
}

/// `pass` leaves `body` alone.
pub(super) fn keeps(pass: &dyn Pass, body: &str) {
    if let Outcome::Changed(made) = outcome(pass, body) {
        panic!(
            "`{}` should leave\n{}\nalone, but made\n{made}",
            pass.name(),
            program(body)
        );
    }
}
