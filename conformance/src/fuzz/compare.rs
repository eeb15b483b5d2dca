//! Comparing the outputs of two backends: bit for bit for integers and bools, within a tolerance for
//! floats.
//!
//! Comparable programs keep floats out of integers and control flow, so a float difference stays in
//! the float elements it started in. Their float values are short-mantissa numbers of moderate size,
//! which the correctly rounded operations compute exactly; the tolerance covers what is left (the
//! accuracy intervals of `div`, `sqrt`, `exp`, `log`, `sin`, `cos`, fusion of `a * b + c`, flushed
//! subnormals, the sign of zero).

use vyre_foundation::ir::{DataType, Program};

/// Absolute tolerance for float elements: covers flushed subnormals and the absolute error bounds of
/// `log` and `sin`/`cos`.
pub const FLOAT_ABS_TOLERANCE: f32 = 1.0 / 1024.0;
/// Relative tolerance for float elements: about 4096 ULP, far above the accuracy table's bounds for the
/// guarded functions and far below any real miscomputation.
pub const FLOAT_REL_TOLERANCE: f32 = 1.0 / 4096.0;

/// True when two f32 results are accepted as the same value.
#[must_use]
pub fn floats_agree(expected: f32, actual: f32) -> bool {
    if expected.to_bits() == actual.to_bits() || (expected.is_nan() && actual.is_nan()) {
        return true;
    }
    if !expected.is_finite() {
        // Overflow, infinities and NaN are indeterminate (SEMANTICS.md section 7).
        return true;
    }
    let diff = (expected - actual).abs();
    diff <= FLOAT_ABS_TOLERANCE || diff <= FLOAT_REL_TOLERANCE * expected.abs().max(actual.abs())
}

/// The first difference between `expected` and `actual` outputs of `program`, described, or `None`
/// when they agree.
#[must_use]
pub fn first_difference(
    program: &Program,
    expected: &[Vec<u8>],
    actual: &[Vec<u8>],
) -> Option<String> {
    if expected.len() != actual.len() {
        return Some(format!(
            "{} output buffers from the reference but {} from the other backend",
            expected.len(),
            actual.len()
        ));
    }
    let outputs = program.output_buffers();
    for ((decl, want), got) in outputs.zip(expected).zip(actual) {
        if want.len() != got.len() {
            return Some(format!(
                "output `{}` has {} bytes from the reference but {} from the other backend",
                decl.name,
                want.len(),
                got.len()
            ));
        }
        let words = want.chunks_exact(4).zip(got.chunks_exact(4));
        for (i, (w, g)) in words.enumerate() {
            let (w, g) = (word(w), word(g));
            if !element_agrees(decl.element, w, g) {
                return Some(format!(
                    "output `{}` word {i}: reference {} but the other backend {}",
                    decl.name,
                    show(decl.element, w),
                    show(decl.element, g)
                ));
            }
        }
    }
    None
}

fn word(bytes: &[u8]) -> u32 {
    let mut b = [0; 4];
    b.copy_from_slice(bytes);
    u32::from_le_bytes(b)
}

fn element_agrees(element: DataType, expected: u32, actual: u32) -> bool {
    match element {
        DataType::F32 => floats_agree(f32::from_bits(expected), f32::from_bits(actual)),
        _ => expected == actual,
    }
}

fn show(element: DataType, bits: u32) -> String {
    match element {
        DataType::F32 => format!("{:?} (0x{bits:08x})", f32::from_bits(bits)),
        DataType::I32 => format!("{}i", bits as i32),
        DataType::Bool => format!("{bits} (bool word)"),
        _ => format!("{bits}u"),
    }
}
