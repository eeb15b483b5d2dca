//! Input bytes for generated programs, made from the recipe's input words.

use vyre_foundation::ir::DataType;

use crate::r#gen::expr::float_from_word;
use crate::r#gen::layout::BufInfo;

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
pub(crate) fn decode_inputs(buffers: &[BufInfo], words: &[u32], comparable: bool) -> Vec<Vec<u8>> {
    let mut next = words.iter().copied().chain(std::iter::repeat(0));
    let mut inputs = Vec::new();
    for info in buffers.iter().filter(|b| b.decl.access.takes_input()) {
        let elements = info.input_elements.max(1);
        let mut bytes = Vec::with_capacity(elements as usize * 4);
        for _ in 0..elements {
            let word = next.next().unwrap_or(0);
            let value = element_bits(info.decl.element, word, comparable);
            bytes.extend_from_slice(&value.to_le_bytes());
        }
        inputs.push(bytes);
    }
    inputs
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
