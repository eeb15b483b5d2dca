//! placeholder

pub mod r#gen;
