//! Program generators for property-based testing.
//!
//! Two generators:
//!
//! - **Recipes** ([`recipe`], [`decode`]): proptest draws a compact [`Recipe`] of small integers and
//!   [`decode`] turns it into a [`GeneratedCase`]: a program that always passes `validate`, matching
//!   input bytes and a dispatch configuration. Decoding picks every operand by index modulo the pool of
//!   valid options (variables in scope, buffers of the right type), so any recipe, including every
//!   recipe proptest shrinks to, decodes to a valid program. Expressions are type-directed
//!   (`expr(ty, depth)`). A [`GenConfig`] says which [`Feature`]s to draw from and how large programs
//!   get; with `swarm` on, each case keeps a random subset of the features. With `comparable` on, the
//!   programs are race-free and keep floats away from integers and control flow, so their outputs can
//!   be compared between backends. Three features bias the programs toward shapes a GPU driver
//!   miscompiled while the catalogue was green (`edges.rs`, `widths.rs`, `round_trips.rs`, which say
//!   why they are features and not weights): negations and edge literals around `min`/`max`/`abs`,
//!   integer width casts next to shifts and remainders, and f16 round trips at rounding boundaries.
//!   With `udf_shape` on ([`GenConfig::udf`]), every program is an elementwise function of its
//!   `read` buffers with one `output`, the shape a DataFusion scalar function takes (`udf.rs`).
//! - **Raw programs** ([`raw_program`]): structurally arbitrary trees, most of them invalid, for
//!   checking that `validate` never panics and that no backend panics on what it accepts.

mod access;
mod arrays;
mod config;
mod decode;
mod edges;
mod expr;
mod inputs;
mod layout;
mod moderated;
mod pass_exprs;
mod pass_stmts;
mod raw;
mod recipe;
mod round_trips;
mod stmt;
pub(crate) mod tiles;
mod udf;
mod widths;

pub use config::{Feature, Features, GenConfig};

/// The prefix of the variables that count a generated `while`'s iterations; the reducer never
/// removes or changes them, so a reduced loop stays bounded.
pub const TRIP_PREFIX: &str = "trip";
pub use decode::{GeneratedCase, decode};
pub use moderated::keeps_float_rules;
pub use raw::{raw_inputs, raw_program};
pub use recipe::{Recipe, StmtKind, StmtRecipe, recipe};

/// The strategy for whole generated cases of `config`: recipes, decoded.
pub fn case(
    config: &GenConfig,
) -> impl proptest::strategy::Strategy<Value = GeneratedCase> + use<> {
    use proptest::strategy::Strategy;
    let config = config.clone();
    recipe(&config).prop_map(move |r| decode(&r, &config))
}
