//! The lowering's analyses: pure functions of a validated program, each saying what one launch
//! form or proof may rely on. They read the program and its evidence only, never the module being
//! built, so they can be computed once and kept.

pub(crate) mod barrier;
pub(crate) mod bounds;
pub(crate) mod coverage;
pub(crate) mod elementwise;
pub(crate) mod packed;
pub(crate) mod rows;
pub(crate) mod vector;
pub(crate) mod workaround;
