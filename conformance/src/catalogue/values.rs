//! The edge values every operator is checked over, helpers to combine them into rows, and the
//! operator lists several batches share.

use vyre_foundation::ir::BinOp;

/// `u32` edge values: zero, small values, the sign boundary, the top, and irregular bit patterns.
pub(crate) const U32_EDGES: [u32; 16] = [
    0,
    1,
    2,
    3,
    7,
    31,
    32,
    33,
    0x7fff_ffff,
    0x8000_0000,
    0x8000_0001,
    0xffff_fffe,
    0xffff_ffff,
    0x1234_5678,
    0xdead_beef,
    0x0001_0000,
];

/// `i32` edge values: zero, signs, `MIN`/`MAX` and their neighbours, shift-like amounts.
pub(crate) const I32_EDGES: [i32; 16] = [
    0,
    1,
    -1,
    2,
    -2,
    3,
    -7,
    7,
    31,
    32,
    i32::MAX,
    i32::MIN,
    i32::MIN + 1,
    i32::MAX - 1,
    0x1234_5678,
    -0x1234_5678,
];

/// Shift amounts: in range, at and past 32 (taken mod 32), and the largest `u32`.
pub(crate) const SHIFT_AMOUNTS: [u32; 9] = [0, 1, 7, 16, 31, 32, 33, 63, 0xffff_ffff];

/// `u64` edge values: zero, small values, shift-like amounts, the 32-bit boundaries, the sign
/// boundary, the top, irregular patterns.
pub(crate) const U64_EDGES: [u64; 22] = [
    0,
    1,
    2,
    3,
    7,
    31,
    32,
    33,
    63,
    64,
    65,
    0x7fff_ffff,
    0x8000_0000,
    0xffff_ffff,
    0x1_0000_0000,
    0x7fff_ffff_ffff_ffff,
    0x8000_0000_0000_0000,
    0x8000_0000_0000_0001,
    0xffff_ffff_ffff_fffe,
    0xffff_ffff_ffff_ffff,
    0x1234_5678_9abc_def0,
    0xdead_beef_cafe_f00d,
];

/// `i64` edge values: zero, signs, `MIN`/`MAX` and their neighbours, the 32-bit boundaries.
pub(crate) const I64_EDGES: [i64; 20] = [
    0,
    1,
    -1,
    2,
    -2,
    3,
    -7,
    7,
    63,
    64,
    i64::MAX,
    i64::MIN,
    i64::MIN + 1,
    i64::MAX - 1,
    i32::MAX as i64,
    i32::MIN as i64,
    1 << 32,
    -(1 << 32),
    0x1234_5678_9abc_def0,
    -0x1234_5678_9abc_def0,
];

/// Shift amounts: in range, at and past 64 (taken mod 64), and the largest `u32`.
pub(crate) const SHIFT_AMOUNTS_64: [u64; 12] =
    [0, 1, 7, 31, 32, 33, 63, 64, 65, 127, 128, 0xffff_ffff];

/// `f32` operands for binary operators: signed zeros, ones, ties, large and tiny magnitudes, the
/// extremes, a subnormal, the infinities and NaN.
pub(crate) const F32_BINARY: [f32; 24] = [
    0.0,
    -0.0,
    1.0,
    -1.0,
    0.5,
    1.5,
    -2.5,
    3.0,
    0.1,
    -7.25,
    1.0e-3,
    16_777_216.0,
    1.0e10,
    -1.0e10,
    1.0e30,
    f32::MAX,
    -f32::MAX,
    f32::MIN_POSITIVE,
    1.0e-40,
    std::f32::consts::PI,
    1.0 / 3.0,
    f32::INFINITY,
    f32::NEG_INFINITY,
    f32::NAN,
];

/// `f32` operands for unary math: values inside and outside each function's accurate domain.
pub(crate) const F32_UNARY: [f32; 40] = [
    0.0,
    -0.0,
    1.0,
    -1.0,
    0.5,
    -0.5,
    1.5,
    2.5,
    -2.5,
    3.5,
    0.1,
    2.0,
    0.75,
    1.999,
    10.0,
    -10.0,
    100.0,
    -100.0,
    1.0e-3,
    1.0e-7,
    88.0,
    -88.0,
    1.0e10,
    -1.0e10,
    1.0e30,
    8_388_608.5,
    -8_388_609.0,
    16_777_216.0,
    f32::MAX,
    f32::MIN_POSITIVE,
    1.0e-40,
    -1.0e-40,
    std::f32::consts::PI,
    -std::f32::consts::PI,
    std::f32::consts::PI.next_down(),
    -std::f32::consts::PI.next_down(),
    4.0,
    f32::INFINITY,
    f32::NEG_INFINITY,
    f32::NAN,
];

/// `f32` operands for `fma` triples (kept small: the rows are its cube).
pub(crate) const F32_FMA: [f32; 10] = [
    0.0,
    1.0,
    -1.0,
    0.1,
    3.0,
    1.0e-3,
    16_777_217.0,
    1.0e20,
    1.0e-40,
    f32::NAN,
];

/// Every ordered pair of `values`, as rows of words (`u32`) or element bits (`u64`).
pub(crate) fn pairs<W: Copy>(values: &[W]) -> Vec<Vec<W>> {
    values
        .iter()
        .flat_map(|&a| values.iter().map(move |&b| vec![a, b]))
        .collect()
}

/// Every pair `(a, b)` with `a` from `left` and `b` from `right`.
pub(crate) fn product<W: Copy>(left: &[W], right: &[W]) -> Vec<Vec<W>> {
    left.iter()
        .flat_map(|&a| right.iter().map(move |&b| vec![a, b]))
        .collect()
}

/// Each value as a one-element row.
pub(crate) fn singles<W: Copy>(values: &[W]) -> Vec<Vec<W>> {
    values.iter().map(|&v| vec![v]).collect()
}

/// The words of `u32` edge values.
pub(crate) fn u32_words() -> Vec<u32> {
    U32_EDGES.to_vec()
}

/// The words of `i32` edge values.
pub(crate) fn i32_words() -> Vec<u32> {
    I32_EDGES.iter().map(|&v| v as u32).collect()
}

/// The bits of `u64` edge values.
pub(crate) fn u64_words() -> Vec<u64> {
    U64_EDGES.to_vec()
}

/// The bits of `i64` edge values.
pub(crate) fn i64_words() -> Vec<u64> {
    I64_EDGES.iter().map(|&v| v as u64).collect()
}

/// The words of `f32` values.
pub(crate) fn f32_words(values: &[f32]) -> Vec<u32> {
    values.iter().map(|v| v.to_bits()).collect()
}

/// Bit-counting operands: the edges plus every single-bit value.
pub(crate) fn bit_words() -> Vec<u32> {
    let mut words = u32_words();
    words.extend(
        (0..32)
            .map(|k| 1u32 << k)
            .filter(|w| !U32_EDGES.contains(w)),
    );
    words.push(0x0f0f_0f0f);
    words.push(0xffff_0000);
    words
}

/// The comparison operators (equality and ordering), in the order of [`BinOp::ALL`].
pub(crate) fn comparison_ops() -> impl Iterator<Item = BinOp> {
    BinOp::ALL.iter().copied().filter(|op| op.is_comparison())
}
