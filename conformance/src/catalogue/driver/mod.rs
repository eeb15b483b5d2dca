//! The shapes GPU drivers miscompile (issue 32), each in the forms that let a driver see its values.
//!
//! On an NVIDIA H100 (Vulkan, driver 580.159.04) `vyre-conform` passed every case, yet fuzzing
//! found valid programs the vendor compiler got wrong, every one a small shape the catalogue did not
//! hold; vyre emitted each of them correctly. One file per shape family, each case commented with
//! the bug it comes from:
//!
//! - [`negation`]: `min`/`max`/`abs` of a value and its own negation (`min(min(v, -v), 0i)` gave 0
//!   for `v = 1`), and [`negated_pairs`]: `max(y, -x)` (of two one-trip loop counters it gave `x`);
//! - [`low_words`]: 64-bit `min`/`max` and comparisons whose low 32 bits order otherwise than the
//!   whole values (`min(-3i64, i64::MIN + 17892187)` gave -3);
//! - [`widening`]: widening casts next to shifts and remainders (`u64(i32(tid)) << 31` gave
//!   `0xffffffff80000000`, as if the shift were done at 32 bits and then sign-extended);
//! - [`narrowing`]: remainder chains through a narrowed 64-bit value (`(u32(u64(tid) / 3u64) %
//!   2147483649u) % 2u` gave 1 for `tid = 0`);
//! - [`quotient_bit`]: the lowest bit of a 64-bit quotient or remainder times a constant
//!   (`((u64(tid) % d) & 1u64) * 39238535u64` gave 39238535 for `tid = 0`);
//! - [`half_round`]: `f16` round trips at rounding boundaries (`f32(f16(1/3))` gave 0.33333334,
//!   the rounding dropped);
//! - [`seeds`]: the five programs whole, each alone in its own batch.
//!
//! A [`Shape`](shape::Shape) is an expression over operands; the batch builders of [`shape`] put
//! it in a program in one of these [`Form`](shape::Form)s, and every case is named
//! `driver.<shape>.<form>(<operands>)`, the form one of `literal`, `loop_counter`, `lid` and `gid`
//! (made from the invocation id, see [`Spread`](snippets::Spread)) and `load`, so a failing report
//! says which shape failed and how its values reached it. Expectations are written by hand from
//! SEMANTICS.md (through [`oracle`](crate::catalogue::oracle) and
//! [`binary64`](crate::catalogue::wide::binary64) for the integers, the `half` crate for `f16`
//! rounding), never taken from the reference.
//!
//! [`snippets`] builds the programs that write values in ([`Snippets`](snippets::Snippets)); the
//! loaded form uses the catalogue's [`Elementwise`](crate::catalogue::build::Elementwise) batches;
//! [`int`] does the integer arithmetic of the expectations. This root only lists the files and
//! collects their batches; what they share lives in [`shape`], [`snippets`] and [`int`].

mod half_round;
mod int;
mod low_words;
mod narrowing;
mod negated_pairs;
mod negation;
mod quotient_bit;
mod seeds;
mod shape;
mod snippets;
mod widening;

use crate::catalogue::Batch;

/// Every driver-shape batch.
pub(super) fn batches() -> Vec<Batch> {
    let mut out = negation::batches();
    out.extend(low_words::batches());
    out.extend(widening::batches());
    out.extend(narrowing::batches());
    out.extend(quotient_bit::batches());
    out.extend(half_round::batches());
    out.extend(seeds::batches());
    out
}
