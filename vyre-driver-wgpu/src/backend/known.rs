//! Programs this backend dispatched lately, with what a dispatch needs of them beyond their lengths:
//! so that dispatching a program again costs one comparison with the program kept here, not its
//! validation, fingerprint and form analyses (a few microseconds, more than the rest of a small
//! dispatch's host work).
//!
//! Validation is a function of the program alone, so a program equal to one that validated is
//! valid: its facts are reused, never trusted across different programs. Equality is exact: the IR
//! holds float literals as their bits (`Literal::F32` and `F16`), so `0.0` and `-0.0`, or two NaNs
//! of different payloads, are different programs here as in the fingerprint. The fingerprint kept
//! here keys the pipeline cache, whose entries are still compared with the program on every hit.

use std::sync::{Arc, Mutex};

use vyre_driver::BackendError;
use vyre_foundation::ir::{Features, Fingerprint, Program};
use vyre_foundation::validate::Validated;

use super::form::FormFacts;
use crate::groups::poisoned;

/// Programs kept at most. A workload alternating between more programs than this validates each
/// dispatch again, exactly as without the memo.
const KEPT: usize = 16;

/// A program that validated, with its facts.
#[derive(Debug)]
pub(crate) struct Known {
    pub(crate) program: Program,
    pub(crate) fingerprint: Fingerprint,
    pub(crate) features: Features,
    pub(crate) facts: FormFacts,
}

impl Known {
    fn of(evidence: &Validated<'_>) -> Self {
        let program = evidence.program();
        Self {
            program: program.clone(),
            fingerprint: program.fingerprint(),
            features: evidence.features(),
            facts: FormFacts::of(evidence),
        }
    }
}

/// The most recently dispatched programs, most recent first.
#[derive(Default)]
pub(crate) struct KnownPrograms {
    recent: Mutex<Vec<Arc<Known>>>,
}

impl KnownPrograms {
    /// The kept facts of a program equal to `program`, if any (and it becomes the most recent).
    pub(crate) fn find(&self, program: &Program) -> Result<Option<Arc<Known>>, BackendError> {
        let mut recent = self.recent.lock().map_err(|_| poisoned())?;
        // Cheap differences first; the full comparison only for a likely match.
        let Some(at) = recent.iter().position(|k| {
            let p = &k.program;
            p.workgroup_size == program.workgroup_size
                && p.buffers.len() == program.buffers.len()
                && p.body.len() == program.body.len()
                && *p == *program
        }) else {
            return Ok(None);
        };
        let known = Arc::clone(&recent[at]);
        if at > 0 {
            recent[..=at].rotate_right(1);
        }
        Ok(Some(known))
    }

    /// The facts of the validated program `evidence`: the kept ones, or new ones, then kept.
    pub(crate) fn of(&self, evidence: &Validated<'_>) -> Result<Arc<Known>, BackendError> {
        if let Some(known) = self.find(evidence.program())? {
            return Ok(known);
        }
        let known = Arc::new(Known::of(evidence));
        let mut recent = self.recent.lock().map_err(|_| poisoned())?;
        recent.insert(0, Arc::clone(&known));
        recent.truncate(KEPT);
        Ok(known)
    }
}

#[cfg(test)]
mod tests {
    use vyre_foundation::ir::{BufferDecl, DataType, Expr, Node, Program};

    use super::{KEPT, KnownPrograms};

    fn program(k: u32) -> Program {
        Program::new(
            vec![BufferDecl::output("y", 0, DataType::U32).with_count(4)],
            [64, 1, 1],
            vec![Node::store("y", Expr::gid_x(), Expr::u32(k))],
        )
    }

    #[test]
    fn an_equal_program_is_found_and_a_different_one_is_not() {
        let known = KnownPrograms::default();
        let a = program(1);
        assert!(known.find(&a).unwrap().is_none());
        let kept = known.of(&vyre_foundation::validate(&a).unwrap()).unwrap();
        let again = known.find(&a.clone()).unwrap().expect("kept");
        assert!(std::sync::Arc::ptr_eq(&kept, &again));
        // Same shape, another constant: a different program, never its facts.
        assert!(known.find(&program(2)).unwrap().is_none());
    }

    #[test]
    fn float_literals_are_compared_by_their_bits() {
        let store = |v: f32| {
            Program::new(
                vec![BufferDecl::output("y", 0, DataType::F32).with_count(4)],
                [64, 1, 1],
                vec![Node::store("y", Expr::gid_x(), Expr::f32(v))],
            )
        };
        let known = KnownPrograms::default();
        known
            .of(&vyre_foundation::validate(&store(0.0)).unwrap())
            .unwrap();
        // `0.0 == -0.0` as floats, but a program storing -0.0 is another program.
        assert!(known.find(&store(-0.0)).unwrap().is_none());
        assert!(known.find(&store(0.0)).unwrap().is_some());
    }

    #[test]
    fn at_most_kept_programs_stay_and_the_least_recent_goes_first() {
        let known = KnownPrograms::default();
        let programs: Vec<Program> = (0..=KEPT as u32).map(program).collect();
        for p in &programs {
            known.of(&vyre_foundation::validate(p).unwrap()).unwrap();
        }
        // The first went when the last came.
        assert!(known.find(&programs[0]).unwrap().is_none());
        assert!(known.find(&programs[1]).unwrap().is_some());
        // Finding program 1 made it the most recent, so one more program evicts program 2.
        known
            .of(&vyre_foundation::validate(&program(99)).unwrap())
            .unwrap();
        assert!(known.find(&programs[1]).unwrap().is_some());
        assert!(known.find(&programs[2]).unwrap().is_none());
    }
}
