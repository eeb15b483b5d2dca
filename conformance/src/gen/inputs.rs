//! Input bytes for generated programs, made from the recipe's input words.

use vyre_foundation::ir::DataType;

use crate::r#gen::expr::{f16_from_word, float_from_word};
use crate::r#gen::layout::BufInfo;
use crate::r#gen::round_trips::{SMALL, f16_boundary};
use crate::r#gen::{Feature, Features};

/// Integer inputs favour boundary values, which find more bugs than uniform random words.
const BOUNDARY: [u32; 8] = [
    0,
    1,
    0xffff_ffff,
    0x8000_0000,
    0x7fff_ffff,
    31,
    32,
    0xffff_fffe,
];

/// One byte vector per input buffer, in declaration order. Words past the end of `words` read as 0.
/// Floats are small exact values in comparable programs (so every backend rounds alike), and may be
/// anything in valid-only ones.
///
/// With `F16RoundTrips` (and `f16`) on, one `f32` input element in eight is an f16 rounding
/// boundary below 16 of at most 12 significant bits (`round_trips.rs`), which the round trips
/// convert and the generator's other floats keep exact.
pub(crate) fn decode_inputs(
    buffers: &[BufInfo],
    words: &[u32],
    comparable: bool,
    features: Features,
) -> Vec<Vec<u8>> {
    let boundaries = features.has(Feature::F16RoundTrips) && features.has(Feature::F16);
    let mut next = words.iter().copied().chain(std::iter::repeat(0));
    let mut inputs = Vec::new();
    for info in buffers.iter().filter(|b| b.decl.access.takes_input()) {
        let elements = info.input_elements.max(1);
        let element = info.decl.element;
        let mut bytes = Vec::with_capacity(elements as usize * element.size_bytes());
        for _ in 0..elements {
            let word = next.next().unwrap_or(0);
            match element {
                DataType::F16 => {
                    bytes.extend_from_slice(&f16_from_word(word, comparable).to_le_bytes());
                }
                DataType::U64 | DataType::I64 => {
                    bytes.extend_from_slice(&wide_bits(word).to_le_bytes());
                }
                DataType::F32 if boundaries && word % 8 == 7 => {
                    let value = f16_boundary(word >> 3, SMALL, true);
                    bytes.extend_from_slice(&value.to_bits().to_le_bytes());
                }
                _ => {
                    let value = element_bits(element, word, comparable);
                    bytes.extend_from_slice(&value.to_le_bytes());
                }
            }
        }
        inputs.push(bytes);
    }
    inputs
}

/// 64-bit boundary values, as `u64` bits (`i64` elements read them as two's complement).
const BOUNDARY_64: [u64; 8] = [
    0,
    1,
    u64::MAX,
    1 << 63,
    (1 << 63) - 1,
    0xffff_ffff,
    1 << 32,
    63,
];

/// A 64-bit element from one word: small, a boundary, the word sign-extended, or the word in both
/// halves (rotated, so that the halves differ).
fn wide_bits(word: u32) -> u64 {
    match word % 4 {
        0 => u64::from((word >> 2) % 16),
        1 => BOUNDARY_64[(word >> 2) as usize % BOUNDARY_64.len()],
        2 => i64::from(word as i32) as u64,
        _ => (u64::from(word.rotate_left(13)) << 32) | u64::from(word),
    }
}

fn element_bits(element: DataType, word: u32, comparable: bool) -> u32 {
    match element {
        DataType::F32 => float_from_word(word, comparable).to_bits(),
        // Any word is a valid bool element (`word != 0`); keep some that are neither 0 nor 1.
        DataType::Bool => word % 3,
        _ => match word % 4 {
            0 => (word >> 2) % 16,
            1 => BOUNDARY[(word >> 2) as usize % BOUNDARY.len()],
            _ => word,
        },
    }
}
