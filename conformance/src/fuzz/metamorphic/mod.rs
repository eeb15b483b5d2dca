//! Metamorphic fuzzing: a backend against itself, with no reference to compare with.
//!
//! GraphicsFuzz's method: a program and semantics-preserving rewrites of it ([`variants`]) run on
//! the same backend must give the same outputs. A compiler that miscompiles a pattern in one
//! syntactic form only (operands in one order, a literal feeding a shift directly, a statement at
//! the top level) then disagrees with itself, which needs no oracle: it finds bugs of a backend
//! the reference cannot run, or where the reference itself is wrong, and bugs that only show
//! between two forms of a program the reference computes alike.
//!
//! Each [`Rewrite`] is a function in `rewrite.rs` whose documentation states the law of
//! SEMANTICS.md that makes it exact. Integer and bool outputs must agree bit for bit, `f32` and `f16`
//! outputs under the differential run's rules ([`crate::fuzz::floats_agree`],
//! [`crate::fuzz::f16_agree`]): the law lets a backend reassociate, so two forms may round
//! differently, within the tolerance that comparable programs keep their floats in. Every variant
//! of a generated program passes `vyre_foundation::validate` (`tests/fuzz_metamorphic.rs` checks
//! thousands). The reference runs the original once before a disagreement is reported, to rule
//! out a program whose result SEMANTICS.md leaves open ([`crate::fuzz::SkipReason::Indeterminate`]); it is never
//! compared with.
//!
//! [`run`] draws programs as [`crate::fuzz::run`] does and returns the same [`FuzzSummary`]; a
//! disagreement is shrunk like a differential mismatch (proptest on the recipe, then
//! [`crate::fuzz::reduce`]), asking the metamorphic check again of every smaller case, and reported
//! with the variant that disagreed ([`crate::fuzz::FuzzMismatch::variant`]); with a regressions
//! directory both are saved, so `vyre-conform replay` shows which of the two the backend gets
//! wrong.
//!
//! ```
//! use vyre_conformance::ReferenceBackend;
//! use vyre_conformance::fuzz::{FuzzOptions, metamorphic};
//!
//! let options = FuzzOptions { cases: 20, seed: 7, ..FuzzOptions::default() };
//! let reference = ReferenceBackend::new();
//! let summary = metamorphic::run(&options, &reference, &ReferenceBackend::new(), &|_| {});
//! assert_eq!(summary.programs, 20);
//! assert!(summary.mismatches.is_empty());
//! ```

mod opaque;
mod rewrite;
mod verdict;
mod walk;

pub use verdict::check;

use std::path::Path;

use vyre_driver::VyreBackend;
use vyre_foundation::ir::{BinOp, Program};

use crate::fuzz::campaign::{Campaign, Check, save_case};
use crate::fuzz::{
    FuzzMismatch, FuzzOptions, FuzzProgress, FuzzSummary, MismatchVariant, Oracle, Verdict,
    config_for, dispatch_config, drawable,
};
use crate::r#gen::{GenConfig, GeneratedCase};

use opaque::OpaqueZero;

/// A semantics-preserving rewrite of a program (the laws are in `rewrite.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Rewrite {
    /// The operands of every commutative operator swapped (float `min`/`max` excepted: with a NaN
    /// operand their result depends on the order).
    SwapOperands,
    /// Integer subexpressions `x`, about one in three (chosen by what they are), as `x + zero`
    /// with an opaque zero.
    AddOpaqueZero,
    /// Integer subexpressions `x`, about one in three, as `x ^ zero`.
    XorOpaqueZero,
    /// The rest of a body, from one statement on, inside `if zero == 0u { ... }`.
    WrapInIf,
    /// The rest of a body inside a one-trip loop `for i in 0u..(1u + zero) { ... }` (never one
    /// holding a `break` or `continue` of an enclosing loop).
    WrapInLoop,
    /// Dead statements inserted under `if zero != 0u { ... }`: a store of a literal into the first
    /// output and a copy of an earlier statement.
    DeadCode,
}

impl Rewrite {
    /// Every rewrite, in the order [`variants`] makes them.
    pub const ALL: [Rewrite; 6] = [
        Rewrite::SwapOperands,
        Rewrite::AddOpaqueZero,
        Rewrite::XorOpaqueZero,
        Rewrite::WrapInIf,
        Rewrite::WrapInLoop,
        Rewrite::DeadCode,
    ];

    /// A short name, for reports.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Rewrite::SwapOperands => "swap-operands",
            Rewrite::AddOpaqueZero => "add-opaque-zero",
            Rewrite::XorOpaqueZero => "xor-opaque-zero",
            Rewrite::WrapInIf => "wrap-in-if",
            Rewrite::WrapInLoop => "wrap-in-loop",
            Rewrite::DeadCode => "dead-code",
        }
    }
}

/// One rewritten case.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Variant {
    /// The rewrite that made it.
    pub rewrite: Rewrite,
    /// The rewritten program with its inputs (the opaque zero's appended) and the same grid.
    pub case: GeneratedCase,
}

/// The variants of `case`: one per [`Rewrite`] that has something to rewrite in it, the places it
/// rewrites chosen by `seed` (the same seed gives the same variants). None when `case`'s program
/// is not valid.
#[must_use]
pub fn variants(case: &GeneratedCase, seed: u64) -> Vec<Variant> {
    Rewrite::ALL
        .into_iter()
        .filter_map(|rewrite| {
            let case = variant(case, rewrite, seed)?;
            Some(Variant { rewrite, case })
        })
        .collect()
}

/// `case` rewritten by `rewrite` at the places `seed` chooses, or `None` when there is nothing to
/// rewrite (no commutative operator, say) or `case`'s program is not valid.
#[must_use]
pub fn variant(case: &GeneratedCase, rewrite: Rewrite, seed: u64) -> Option<GeneratedCase> {
    let validated = vyre_foundation::validate(&case.program).ok()?;
    let types = walk::expr_types(&validated);
    let mut out = case.clone();
    if rewrite == Rewrite::SwapOperands {
        out.program = rewrite::swap_operands(&case.program, &types)?;
        return Some(out);
    }
    let zero = OpaqueZero::add_to(&mut out)?;
    let program = &out.program;
    out.program = match rewrite {
        // Made above: it needs no zero.
        Rewrite::SwapOperands => return None,
        Rewrite::AddOpaqueZero | Rewrite::XorOpaqueZero => {
            let op = if rewrite == Rewrite::AddOpaqueZero {
                BinOp::Add
            } else {
                BinOp::BitXor
            };
            let kept = walk::subgroup_index_operands(&case.program.body);
            let candidates: Vec<usize> = rewrite::integer_exprs(&types)
                .into_iter()
                .filter(|k| !kept.contains(k))
                .collect();
            let picked = pick_some(&case.program, &candidates, seed);
            rewrite::with_opaque_zero(program, &types, &zero, op, &picked)?
        }
        Rewrite::WrapInIf => rewrite::wrap_in_if(program, &zero, place(program, seed, false)?)?,
        Rewrite::WrapInLoop => {
            let fits = |p: &(usize, usize)| rewrite::loop_wrappable(program, *p);
            let at: Vec<_> = places(program, false).into_iter().filter(fits).collect();
            rewrite::wrap_in_loop(program, &zero, *at.get(index(seed, 1, at.len()))?)?
        }
        Rewrite::DeadCode => rewrite::dead_code(program, &zero, place(program, seed, true)?)?,
    };
    Some(out)
}

/// About one in three of the expressions numbered `candidates`, chosen by `seed` and by what each
/// expression is (its text form), not where it is: a reduced program, missing other statements,
/// still has the same ones picked, so a disagreement survives reduction. At least one where there
/// are any.
fn pick_some(program: &Program, candidates: &[usize], seed: u64) -> Vec<usize> {
    let all = walk::exprs(&program.body);
    let chosen = |k: usize| {
        all.get(k)
            .is_some_and(|e| mix(seed, text_hash(&e.to_string())).is_multiple_of(3))
    };
    let mut picked: Vec<usize> = candidates.iter().copied().filter(|&k| chosen(k)).collect();
    if picked.is_empty()
        && let Some(&k) = candidates.get(index(seed, 2, candidates.len()))
    {
        picked.push(k);
    }
    picked
}

/// FNV-1a of `text`: a hash that is the same in every build.
fn text_hash(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Every place `(body, statement)` of `program`: a statement of a body, or with `ends` also the
/// end of each body.
fn places(program: &Program, ends: bool) -> Vec<(usize, usize)> {
    walk::bodies(&program.body)
        .iter()
        .enumerate()
        .flat_map(|(b, body)| (0..body.len() + usize::from(ends)).map(move |s| (b, s)))
        .collect()
}

/// One of [`places`], chosen by `seed`.
fn place(program: &Program, seed: u64, ends: bool) -> Option<(usize, usize)> {
    let all = places(program, ends);
    all.get(index(seed, 3, all.len())).copied()
}

/// A number below `n` from `seed` and a salt (0 when `n` is 0).
fn index(seed: u64, salt: u64, n: usize) -> usize {
    if n == 0 {
        0
    } else {
        (mix(seed, salt) % n as u64) as usize
    }
}

/// splitmix64 of `seed` and `k`: unrelated values for neighbouring inputs.
fn mix(seed: u64, k: u64) -> u64 {
    let mut z = seed ^ k.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The seed of case `index`'s variants in a run of seed `seed`.
fn variant_seed(seed: u64, index: u64) -> u64 {
    mix(seed ^ 0x6d65_7461, index)
}

/// Runs `options.cases` random comparable programs and their variants on `backend`, shrinking and
/// saving every disagreement, and calls `progress` after every batch. `reference` only rules out
/// indeterminate programs (and, as in [`crate::fuzz::run`], programs use only the generator features
/// both it and `backend` have: [`drawable`]); pass [`crate::report::reference_for`] of the backend.
pub fn run(
    options: &FuzzOptions,
    reference: &dyn Oracle,
    backend: &dyn VyreBackend,
    progress: &(dyn Fn(&FuzzProgress) + Sync),
) -> FuzzSummary {
    let options = &FuzzOptions {
        config: config_for(&options.config, backend),
        ..options.clone()
    };
    let check = Metamorphic {
        options,
        reference,
        backend,
    };
    let campaign = Campaign {
        options,
        config: GenConfig {
            features: drawable(options.config.features, reference, backend),
            ..options.config.clone()
        },
        check: &check,
    };
    campaign.run(progress)
}

/// The metamorphic check of a campaign.
struct Metamorphic<'a> {
    options: &'a FuzzOptions,
    reference: &'a dyn Oracle,
    backend: &'a dyn VyreBackend,
}

impl Check for Metamorphic<'_> {
    fn verdict(&self, index: u64, case: &GeneratedCase) -> Verdict {
        let config = dispatch_config(self.options, case);
        let seed = variant_seed(self.options.seed, index);
        check(self.reference, self.backend, case, &config, seed).0
    }

    fn finish(&self, index: u64, mismatch: &mut FuzzMismatch, dir: Option<&Path>) {
        let config = dispatch_config(self.options, &mismatch.minimal);
        let seed = variant_seed(self.options.seed, index);
        let (_, found) = check(
            self.reference,
            self.backend,
            &mismatch.minimal,
            &config,
            seed,
        );
        let mut variant = found.map(|v| MismatchVariant {
            rewrite: v.rewrite.name().to_owned(),
            case: v.case,
            saved: None,
        });
        let Some(dir) = dir else {
            mismatch.variant = variant;
            return;
        };
        let what = format!(
            "metamorphic on {}: {} (seed {}, case {index})",
            self.backend.id(),
            mismatch.detail,
            self.options.seed
        );
        let note = format!("{what}; this is the original");
        match save_case(dir, note, &mismatch.minimal, Some(mismatch.recipe.clone())) {
            Ok(path) => {
                if let Some(v) = variant.as_mut() {
                    let note = format!(
                        "{what}; this is its `{}` variant, the original is {}",
                        v.rewrite,
                        path.display()
                    );
                    match save_case(dir, note, &v.case, None) {
                        Ok(saved) => v.saved = Some(saved),
                        Err(e) => mismatch.save_error = Some(e),
                    }
                }
                mismatch.saved = Some(path);
            }
            Err(e) => mismatch.save_error = Some(e),
        }
        mismatch.variant = variant;
    }
}
