//! The conformance catalogue: named cases grouped by area, batched into few dispatches.
//!
//! A [`Batch`] is one program with its inputs and the [`Case`]s it checks; a case names one input
//! combination and points at the output word that holds its result. What a backend must return is an
//! [`Expectation`]: bit-exact (the hand-written [`oracle`] value when there is one, else the reference
//! backend's word) or an [`Acceptance`] set (floats, indeterminate results).

pub mod accuracy;
mod area;
mod atomic_slots;
mod atomic_statements;
mod build;
mod case;
mod casts;
mod control;
mod driver;
mod exits;
mod float;
pub mod half;
mod integer;
pub mod interval;
mod memory;
mod oob;
pub mod oracle;
mod private;
mod shapes;
mod subgroups;
mod tiles;
mod values;
mod wide;
mod wide_casts;

pub use area::Area;
pub use case::{Batch, Case, Expectation, format_word};
pub use interval::Acceptance;

/// Every batch of the catalogue, area by area.
#[must_use]
pub fn catalogue() -> Vec<Batch> {
    let mut batches = Vec::new();
    batches.extend(integer::batches());
    batches.extend(casts::batches());
    batches.extend(float::batches());
    batches.extend(control::batches());
    batches.extend(exits::batches());
    batches.extend(atomic_statements::batches());
    batches.extend(memory::batches());
    batches.extend(oob::batches());
    batches.extend(shapes::batches());
    batches.extend(subgroups::batches());
    batches.extend(wide::batches());
    batches.extend(driver::batches());
    batches.extend(private::batches());
    batches.extend(tiles::batches());
    batches.sort_by_key(|b| b.area);
    batches
}
