//! Execution engines beyond a single dispatch: many work items of one program in the fewest real
//! launches (coalesced, packed), and the persistent queue built on them.

mod batch;
mod coalesced;
mod items;
mod layout;
mod packed;
pub mod persistent;
mod pipeline;
mod plan;
#[cfg(test)]
mod tests;

pub use pipeline::WgpuPipeline;
