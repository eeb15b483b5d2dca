//! Comparing the outputs of two backends: bit for bit for integers and bools, within a tolerance for
//! floats.
//!
//! Comparable programs keep floats out of integers and control flow, so a float difference stays in
//! the float elements it started in. Their float values are short-mantissa numbers of moderate size,
//! which the correctly rounded operations compute exactly; the tolerance covers what is left (the
//! accuracy intervals of `div`, `sqrt`, `exp`, `log`, `sin`, `cos`, fusion of `a * b + c`, flushed
//! subnormals, the sign of zero).

use vyre_foundation::ir::{BufferDecl, DataType, Program, f16_bits_to_f32};

/// Absolute tolerance for float elements: covers flushed subnormals and the absolute error bounds of
/// `log` and `sin`/`cos`.
pub const FLOAT_ABS_TOLERANCE: f32 = 1.0 / 1024.0;
/// Relative tolerance for float elements: about 4096 ULP, far above the accuracy table's bounds for the
/// guarded functions and far below any real miscomputation.
pub const FLOAT_REL_TOLERANCE: f32 = 1.0 / 4096.0;

/// Absolute tolerance for `f16` elements: covers flushed `f16` subnormals (below 2^-14) and a few
/// ULPs of results near 1.
pub const F16_ABS_TOLERANCE: f32 = 1.0 / 256.0;
/// Relative tolerance for `f16` elements: 8 ULP of `f16` (2^-10 apart at 1), above the `div`
/// accuracy bound (2.5 ULP) with room for the rounding of a result built from a few inexact steps.
pub const F16_REL_TOLERANCE: f32 = 1.0 / 128.0;

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
    within(expected, actual, FLOAT_ABS_TOLERANCE, FLOAT_REL_TOLERANCE)
}

/// True when two f16 results (as their bits) are accepted as the same value: the rules of
/// [`floats_agree`] with `f16`'s tolerances.
#[must_use]
pub fn f16_agree(expected: u16, actual: u16) -> bool {
    let (e, a) = (f16_bits_to_f32(expected), f16_bits_to_f32(actual));
    if expected == actual || (e.is_nan() && a.is_nan()) || !e.is_finite() {
        return true;
    }
    within(e, a, F16_ABS_TOLERANCE, F16_REL_TOLERANCE)
}

fn within(expected: f32, actual: f32, abs: f32, rel: f32) -> bool {
    let diff = (expected - actual).abs();
    diff <= abs || diff <= rel * expected.abs().max(actual.abs())
}

/// The first difference between `expected` and `actual` outputs of `program`, described, or `None`
/// when they agree.
#[must_use]
pub fn first_difference(
    program: &Program,
    expected: &[Vec<u8>],
    actual: &[Vec<u8>],
) -> Option<String> {
    first_difference_between(
        program,
        expected,
        actual,
        ["the reference", "the other backend"],
    )
}

/// [`first_difference`], naming the two sides `names` (`["the original", "the variant"]`).
pub(crate) fn first_difference_between(
    program: &Program,
    expected: &[Vec<u8>],
    actual: &[Vec<u8>],
    names: [&str; 2],
) -> Option<String> {
    differences_up_to(program, expected, actual, names, 1).pop()
}

/// Every difference between `expected` and `actual` outputs of `program`, one line each, naming
/// the two sides `names` (`["the reference", "wgpu"]`): every element that differs (floats under
/// [`floats_agree`] and [`f16_agree`]), every part of an element a byte range cuts that differs,
/// or the one line saying the buffers or their lengths do not match. Empty when they agree.
#[must_use]
pub fn differences(
    program: &Program,
    expected: &[Vec<u8>],
    actual: &[Vec<u8>],
    names: [&str; 2],
) -> Vec<String> {
    differences_up_to(program, expected, actual, names, usize::MAX)
}

/// How an output's readback splits into elements: the bytes of a cut element before the first
/// whole one (`lead`), the whole elements' bytes (`whole`), and the first whole element's index.
struct Readback {
    lead: usize,
    whole: usize,
    first: usize,
}

impl Readback {
    /// The split of `len` bytes read back from `decl`, which start where its byte range starts.
    fn of(decl: &BufferDecl, len: usize) -> Self {
        let size = decl.element.size_bytes();
        let start = decl.output_byte_range.as_ref().map_or(0, |r| r.start);
        let lead = ((size - start % size) % size).min(len);
        let whole = (len - lead) / size * size;
        Readback {
            lead,
            whole,
            first: (start + lead) / size,
        }
    }
}

fn differences_up_to(
    program: &Program,
    expected: &[Vec<u8>],
    actual: &[Vec<u8>],
    names: [&str; 2],
    limit: usize,
) -> Vec<String> {
    let [want_side, got_side] = names;
    if expected.len() != actual.len() {
        return vec![format!(
            "{} output buffers from {want_side} but {} from {got_side}",
            expected.len(),
            actual.len()
        )];
    }
    let mut out = Vec::new();
    let outputs = program.output_buffers();
    for ((decl, want), got) in outputs.zip(expected).zip(actual) {
        if out.len() >= limit {
            break;
        }
        if want.len() != got.len() {
            out.push(format!(
                "output `{}` has {} bytes from {want_side} but {} from {got_side}",
                decl.name,
                want.len(),
                got.len()
            ));
            continue;
        }
        // The bytes are the buffer's from its byte range's start, which may cut an element: the
        // whole elements are compared as values, the parts of cut ones at either end bit for bit.
        let size = decl.element.size_bytes();
        let Readback { lead, whole, first } = Readback::of(decl, want.len());
        let cut = |at: std::ops::Range<usize>| {
            (want[at.clone()] != got[at.clone()]).then(|| {
                format!(
                    "output `{}` bytes {at:?} of its readback (part of an element): {want_side} {:02x?} but {got_side} {:02x?}",
                    decl.name,
                    &want[at.clone()],
                    &got[at.clone()]
                )
            })
        };
        out.extend(cut(0..lead));
        let elements = want[lead..lead + whole]
            .chunks_exact(size)
            .zip(got[lead..lead + whole].chunks_exact(size));
        for (i, (w, g)) in elements.enumerate() {
            let (w, g) = (bits(w), bits(g));
            if out.len() >= limit {
                break;
            }
            if !element_agrees(decl.element, w, g) {
                out.push(format!(
                    "output `{}` element {}: {want_side} {} but {got_side} {}",
                    decl.name,
                    first + i,
                    show(decl.element, w),
                    show(decl.element, g)
                ));
            }
        }
        out.extend(cut(lead + whole..want.len()));
        if out.len() >= limit {
            out.truncate(limit);
            break;
        }
    }
    out
}

/// Each output of `program` in `outputs` as one line: its name, type and element values
/// (`out0 (u32) from element 0: 1u 2u 3u`; bools as their words), the parts of elements its byte
/// range cuts in hex.
#[must_use]
pub fn output_values(program: &Program, outputs: &[Vec<u8>]) -> Vec<String> {
    program
        .output_buffers()
        .zip(outputs)
        .map(|(decl, bytes)| {
            let size = decl.element.size_bytes();
            let Readback { lead, whole, first } = Readback::of(decl, bytes.len());
            let mut values: Vec<String> = bytes[lead..lead + whole]
                .chunks_exact(size)
                .map(|e| match decl.element {
                    // A list of words, so `1 (bool word)` each would drown them.
                    DataType::Bool => bits(e).to_string(),
                    element => show(element, bits(e)),
                })
                .collect();
            if lead > 0 {
                values.insert(0, format!("{:02x?}", &bytes[..lead]));
            }
            if lead + whole < bytes.len() {
                values.push(format!("{:02x?}", &bytes[lead + whole..]));
            }
            format!(
                "`{}` ({}, {} bytes from element {first}): {}",
                decl.name,
                decl.element,
                bytes.len(),
                values.join(" ")
            )
        })
        .collect()
}

/// The little-endian element of 2, 4 or 8 bytes as 64 bits.
fn bits(bytes: &[u8]) -> u64 {
    let mut b = [0; 8];
    b[..bytes.len()].copy_from_slice(bytes);
    u64::from_le_bytes(b)
}

fn element_agrees(element: DataType, expected: u64, actual: u64) -> bool {
    match element {
        DataType::F32 => floats_agree(
            f32::from_bits(expected as u32),
            f32::from_bits(actual as u32),
        ),
        DataType::F16 => f16_agree(expected as u16, actual as u16),
        _ => expected == actual,
    }
}

fn show(element: DataType, bits: u64) -> String {
    match element {
        DataType::F32 => format!("{:?} (0x{bits:08x})", f32::from_bits(bits as u32)),
        DataType::F16 => format!("{:?}h (0x{bits:04x})", f16_bits_to_f32(bits as u16)),
        DataType::I32 => format!("{}i", bits as u32 as i32),
        DataType::I64 => format!("{}i64", bits as i64),
        DataType::U64 => format!("{bits}u64"),
        DataType::Bool => format!("{bits} (bool word)"),
        _ => format!("{bits}u"),
    }
}

#[cfg(test)]
mod tests {
    use vyre_foundation::ir::{BufferDecl, DataType, Program};

    use super::first_difference;

    fn one_output(element: DataType, count: u32, range: std::ops::Range<usize>) -> Program {
        Program::new(
            vec![
                BufferDecl::output("o", 0, element)
                    .with_count(count)
                    .with_output_byte_range(range),
            ],
            [1, 1, 1],
            vec![],
        )
    }

    #[test]
    fn every_byte_of_a_range_that_cuts_elements_is_compared() {
        // Found in review: bytes past the last whole element of the returned bytes were dropped.
        let p = one_output(DataType::U32, 2, 0..3);
        assert!(first_difference(&p, &[vec![1, 2, 3]], &[vec![9, 9, 9]]).is_some());
        let p = one_output(DataType::U32, 2, 0..7);
        let want = vec![1, 0, 0, 0, 5, 6, 7];
        let mut got = want.clone();
        got[6] = 8;
        assert!(first_difference(&p, std::slice::from_ref(&want), &[got]).is_some());
        assert!(
            first_difference(&p, std::slice::from_ref(&want), std::slice::from_ref(&want))
                .is_none()
        );
        let p = one_output(DataType::U64, 2, 3..13);
        let want: Vec<u8> = (0..10).collect();
        let mut got = want.clone();
        got[0] ^= 1;
        let diff = first_difference(&p, &[want], &[got]).unwrap_or_default();
        assert!(diff.contains("bytes 0..5"), "{diff}");
    }

    #[test]
    fn differences_lists_every_element_that_differs_and_output_values_every_element() {
        use super::{differences, output_values};
        let p = one_output(DataType::I32, 4, 0..16);
        let words = |v: [i32; 4]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
        let want = words([1, 2, 3, 4]);
        let got = words([1, -2, 3, 5]);
        let names = ["expected", "actual"];
        let lines = differences(&p, std::slice::from_ref(&want), &[got], names);
        assert_eq!(
            lines,
            [
                "output `o` element 1: expected 2i but actual -2i",
                "output `o` element 3: expected 4i but actual 5i"
            ]
        );
        assert!(
            differences(
                &p,
                std::slice::from_ref(&want),
                std::slice::from_ref(&want),
                names
            )
            .is_empty()
        );
        // A range that cuts elements: the cut parts in hex, the whole elements as values.
        let p = one_output(DataType::I32, 4, 2..10);
        let values = output_values(&p, &[vec![1, 0, 7, 0, 0, 0, 9, 9]]);
        assert_eq!(
            values,
            ["`o` (i32, 8 bytes from element 1): [01, 00] 7i [09, 09]"]
        );
    }

    #[test]
    fn floats_of_a_range_are_compared_as_the_elements_they_are() {
        let ulp_apart = |a: u32, b: u32| (a.to_le_bytes(), b.to_le_bytes());
        let (a, b) = ulp_apart(0x3fc0_003f, 0x3fc0_0040);
        // An element-aligned range: element 1 one ULP apart agrees, far apart does not.
        let p = one_output(DataType::F32, 3, 4..8);
        assert!(first_difference(&p, &[a.to_vec()], &[b.to_vec()]).is_none());
        let far = 2.5f32.to_bits().to_le_bytes();
        let diff = first_difference(&p, &[a.to_vec()], &[far.to_vec()]).unwrap_or_default();
        assert!(diff.contains("element 1:"), "{diff}");
        // A range cutting elements: the whole element inside is a value, not bytes of two.
        let p = one_output(DataType::F32, 3, 1..9);
        let mut want = vec![7, 7, 7];
        want.extend(a);
        want.push(7);
        let mut got = vec![7, 7, 7];
        got.extend(b);
        got.push(7);
        assert!(first_difference(&p, &[want], &[got]).is_none());
    }
}
