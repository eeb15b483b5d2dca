//! Known programs: a program that validated, kept with its evidence (owned, by position: it
//! attaches to the kept program again whenever a form of it is compiled), its fingerprint and
//! every analysis the lowering and the choice of a launch form need (`lower::analysis`), computed
//! once. A dispatch of a program equal to one dispatched lately costs one comparison with the kept
//! program: no validation, no fingerprint, no analysis.
//!
//! Validation is a function of the program alone, so a program equal to one that validated is
//! valid: its facts are reused, never trusted across different programs. Equality is exact: the IR
//! holds float literals as their bits (`Literal::F32` and `F16`), so `0.0` and `-0.0`, or two NaNs
//! of different payloads, are different programs here as in the fingerprint. The fingerprint kept
//! here keys the pipeline cache: a known program is the program its pipelines were compiled from,
//! so a cache hit needs no second comparison.

use std::sync::{Arc, Mutex};
use std::time::Instant;

use vyre_driver::BackendError;
use vyre_foundation::ir::{Features, Fingerprint, Program};
use vyre_foundation::pass::Pipeline;
use vyre_foundation::validate::{Evidence, Validated};

use crate::groups::poisoned;
use crate::lower::ProgramFacts;
use crate::stats::{Counters, Step, bump};

/// Programs kept at most. A workload alternating between more programs than this validates each
/// dispatch again, exactly as without the memo.
const KEPT: usize = 16;

/// A program that validated, with its evidence, fingerprint and facts.
#[derive(Debug)]
pub(crate) struct Known {
    /// The caller's program, when the IR passes changed it (`None`: the kept program is it).
    source: Option<Program>,
    /// What validation proved of the program after the IR passes, with the kept copy of it: the
    /// program every form is lowered from.
    pub(crate) evidence: Evidence,
    pub(crate) fingerprint: Fingerprint,
    pub(crate) facts: ProgramFacts,
}

impl Known {
    /// The kept facts of the validated program `evidence` after `passes`, analysed once (counted
    /// in `counters`). The fingerprint is the caller's program's.
    ///
    /// # Errors
    ///
    /// [`BackendError::Compile`] naming a pass that broke its contract.
    pub(crate) fn of(
        evidence: &Validated<'_>,
        passes: &Pipeline,
        counters: &Counters,
    ) -> Result<Self, BackendError> {
        let start = Instant::now();
        let known = Self::analyse(evidence, passes);
        counters.step(Step::Know, start);
        bump(&counters.analyses, 1);
        known
    }

    /// [`Known::of`], uncounted.
    fn analyse(evidence: &Validated<'_>, passes: &Pipeline) -> Result<Self, BackendError> {
        let fingerprint = evidence.program().fingerprint();
        Ok(match passes.run_to_evidence(evidence)? {
            None => Self {
                source: None,
                evidence: evidence.to_evidence(),
                fingerprint,
                facts: ProgramFacts::of(evidence),
            },
            Some(optimized) => {
                // The pipeline validated its result; its facts attach to its own copy in one walk.
                let facts = {
                    let validated = optimized.attach(optimized.program()).map_err(|e| {
                        BackendError::compile(format!(
                            "{e} (the IR passes' result). Fix: this is a vyre bug; report it with the program text (Display)."
                        ))
                    })?;
                    ProgramFacts::of(&validated)
                };
                Self {
                    source: Some(evidence.program().clone()),
                    evidence: optimized,
                    fingerprint,
                    facts,
                }
            }
        })
    }

    /// The kept program: the caller's after the IR passes, what every form is lowered from.
    pub(crate) fn program(&self) -> &Program {
        self.evidence.program()
    }

    /// The caller's program, as dispatched (before the IR passes).
    pub(crate) fn source(&self) -> &Program {
        self.source.as_ref().unwrap_or_else(|| self.program())
    }

    /// The optional device features the program uses.
    pub(crate) fn features(&self) -> Features {
        self.evidence.features()
    }

    /// The evidence as a `Validated` of the kept program, for the lowering.
    pub(crate) fn validated(&self) -> Result<Validated<'_>, BackendError> {
        self.evidence.attach(self.program()).map_err(|e| {
            BackendError::compile(format!(
                "{e} (the kept program itself). Fix: this is a vyre bug; report it with the program text (Display)."
            ))
        })
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
            let p = k.source();
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

    /// The facts of the validated program `evidence`: the kept ones, or new ones (analysed and
    /// counted in `counters`), then kept.
    pub(crate) fn of(
        &self,
        evidence: &Validated<'_>,
        passes: &Pipeline,
        counters: &Counters,
    ) -> Result<Arc<Known>, BackendError> {
        if let Some(known) = self.find(evidence.program())? {
            return Ok(known);
        }
        let known = Arc::new(Known::of(evidence, passes, counters)?);
        let mut recent = self.recent.lock().map_err(|_| poisoned())?;
        recent.insert(0, Arc::clone(&known));
        recent.truncate(KEPT);
        Ok(known)
    }
}

#[cfg(test)]
mod tests {
    use vyre_foundation::ir::{BufferDecl, DataType, Expr, Node, Program};

    use vyre_foundation::pass::Pipeline;

    use super::{KEPT, KnownPrograms};
    use crate::stats::Counters;

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
        let counters = Counters::default();
        let a = program(1);
        assert!(known.find(&a).unwrap().is_none());
        let kept = known
            .of(
                &vyre_foundation::validate(&a).unwrap(),
                &Pipeline::empty(),
                &counters,
            )
            .unwrap();
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
        let counters = Counters::default();
        known
            .of(
                &vyre_foundation::validate(&store(0.0)).unwrap(),
                &Pipeline::empty(),
                &counters,
            )
            .unwrap();
        // `0.0 == -0.0` as floats, but a program storing -0.0 is another program.
        assert!(known.find(&store(-0.0)).unwrap().is_none());
        assert!(known.find(&store(0.0)).unwrap().is_some());
    }

    #[test]
    fn at_most_kept_programs_stay_and_the_least_recent_goes_first() {
        let known = KnownPrograms::default();
        let counters = Counters::default();
        let programs: Vec<Program> = (0..=KEPT as u32).map(program).collect();
        for p in &programs {
            known
                .of(
                    &vyre_foundation::validate(p).unwrap(),
                    &Pipeline::empty(),
                    &counters,
                )
                .unwrap();
        }
        // The first went when the last came.
        assert!(known.find(&programs[0]).unwrap().is_none());
        assert!(known.find(&programs[1]).unwrap().is_some());
        // Finding program 1 made it the most recent, so one more program evicts program 2.
        known
            .of(
                &vyre_foundation::validate(&program(99)).unwrap(),
                &Pipeline::empty(),
                &counters,
            )
            .unwrap();
        assert!(known.find(&programs[1]).unwrap().is_some());
        assert!(known.find(&programs[2]).unwrap().is_none());
    }
}
