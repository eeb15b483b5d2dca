//! Integer operators (`SEMANTICS.md` section 4) on edge values: wrapping, division by zero and
//! `MIN / -1`, masked shifts, bit counts, signed and unsigned comparisons.

use vyre_driver::VyreBackend;
use vyre_foundation::ir::{DataType, Expr};

use crate::semantics::harness::{
    BinaryBuilder, Report, all_pairs, bytes_i32, bytes_u32, grid_for, pair_program, run,
    unary_program, words,
};

const U32_EDGES: [u32; 14] = [
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
    0xffff_fffe,
    u32::MAX,
    0xdead_beef,
    12345,
];

const I32_EDGES: [i32; 15] = [
    0,
    1,
    -1,
    2,
    -2,
    7,
    -7,
    31,
    32,
    33,
    i32::MAX,
    i32::MIN,
    i32::MIN + 1,
    0x1234_5678,
    -0x1234_5678,
];

fn shl_expr(a: Expr, b: Expr) -> Expr {
    Expr::shl(a, Expr::bitcast(DataType::U32, b))
}

fn shr_expr(a: Expr, b: Expr) -> Expr {
    Expr::shr(a, Expr::bitcast(DataType::U32, b))
}

const ARITH_NAMES: [&str; 12] = [
    "add", "sub", "mul", "div", "rem", "bit_and", "bit_or", "bit_xor", "shl", "shr", "min", "max",
];
const ARITH_OPS: [BinaryBuilder; 12] = [
    Expr::add,
    Expr::sub,
    Expr::mul,
    Expr::div,
    Expr::rem,
    Expr::bit_and,
    Expr::bit_or,
    Expr::bit_xor,
    shl_expr,
    shr_expr,
    Expr::min,
    Expr::max,
];
const CMP_NAMES: [&str; 6] = ["eq", "ne", "lt", "le", "gt", "ge"];
const CMP_OPS: [BinaryBuilder; 6] = [Expr::eq, Expr::ne, Expr::lt, Expr::le, Expr::gt, Expr::ge];

/// The expected `u32` results, in `ARITH_NAMES` order, written from the table in section 4.
fn expect_u32(a: u32, b: u32) -> [u32; 12] {
    let (wa, wb) = (u64::from(a), u64::from(b));
    [
        ((wa + wb) % (1 << 32)) as u32,
        ((wa + (1 << 32) - wb) % (1 << 32)) as u32,
        ((wa * wb) % (1 << 32)) as u32,
        a.checked_div(b).unwrap_or(a),
        if b == 0 { 0 } else { a % b },
        a & b,
        a | b,
        a ^ b,
        ((wa << (b % 32)) & 0xffff_ffff) as u32,
        a >> (b % 32),
        if a < b { a } else { b },
        if a > b { a } else { b },
    ]
}

/// The expected `i32` results, in `ARITH_NAMES` order.
fn expect_i32(a: i32, b: i32) -> [i32; 12] {
    let wrap = |x: i64| (x.rem_euclid(1 << 32) as u32) as i32;
    let (wa, wb) = (i64::from(a), i64::from(b));
    let amount = (b as u32) % 32;
    let special = b == 0 || (a == i32::MIN && b == -1);
    [
        wrap(wa + wb),
        wrap(wa - wb),
        wrap(wa * wb),
        if b == 0 { a } else { wrap(wa / wb) },
        if special { 0 } else { a % b },
        a & b,
        a | b,
        a ^ b,
        wrap(wa << amount),
        // Arithmetic shift: floor division by 2^amount.
        (wa >> amount) as i32,
        if a < b { a } else { b },
        if a > b { a } else { b },
    ]
}

/// Every binary arithmetic and bitwise operator on all pairs of `u32` edge values.
pub fn integer_binary_u32(backend: &dyn VyreBackend) {
    let case = "integer_binary_u32";
    let pairs = all_pairs(&U32_EDGES);
    let n = pairs.len() as u32;
    let program = pair_program(DataType::U32, DataType::U32, n, &ARITH_OPS);
    let input: Vec<u32> = pairs.iter().flat_map(|&(a, b)| [a, b]).collect();
    let out = words(&run(backend, case, &program, &[bytes_u32(&input)], &grid_for(n))[0]);
    let mut report = Report::new(case);
    for (i, &(a, b)) in pairs.iter().enumerate() {
        for (k, expected) in expect_u32(a, b).into_iter().enumerate() {
            let actual = out[i * ARITH_OPS.len() + k];
            report.eq(
                || format!("{}({a:#x}u, {b:#x}u)", ARITH_NAMES[k]),
                expected,
                actual,
            );
        }
    }
    report.finish();
}

/// Every binary arithmetic and bitwise operator on all pairs of `i32` edge values.
pub fn integer_binary_i32(backend: &dyn VyreBackend) {
    let case = "integer_binary_i32";
    let pairs = all_pairs(&I32_EDGES);
    let n = pairs.len() as u32;
    let program = pair_program(DataType::I32, DataType::I32, n, &ARITH_OPS);
    let input: Vec<i32> = pairs.iter().flat_map(|&(a, b)| [a, b]).collect();
    let out = words(&run(backend, case, &program, &[bytes_i32(&input)], &grid_for(n))[0]);
    let mut report = Report::new(case);
    for (i, &(a, b)) in pairs.iter().enumerate() {
        for (k, expected) in expect_i32(a, b).into_iter().enumerate() {
            let actual = out[i * ARITH_OPS.len() + k] as i32;
            let shift_note = if (8..=9).contains(&k) {
                " (amount is b as u32)"
            } else {
                ""
            };
            report.eq(
                || format!("{}({a}i, {b}i){shift_note}", ARITH_NAMES[k]),
                expected,
                actual,
            );
        }
    }
    report.finish();
}

/// Comparisons on `u32` and `i32` edge values (signed for `i32`), stored into a bool buffer.
pub fn integer_comparisons(backend: &dyn VyreBackend) {
    let case = "integer_comparisons";
    let mut report = Report::new(case);
    let expect = |lt: bool, eq: bool| [eq, !eq, lt, lt || eq, !lt && !eq, !lt];
    let u_pairs = all_pairs(&U32_EDGES);
    let n = u_pairs.len() as u32;
    let program = pair_program(DataType::U32, DataType::Bool, n, &CMP_OPS);
    let input: Vec<u32> = u_pairs.iter().flat_map(|&(a, b)| [a, b]).collect();
    let out = words(&run(backend, case, &program, &[bytes_u32(&input)], &grid_for(n))[0]);
    for (i, &(a, b)) in u_pairs.iter().enumerate() {
        for (k, e) in expect(a < b, a == b).into_iter().enumerate() {
            let actual = out[i * 6 + k];
            report.eq(
                || format!("{}({a:#x}u, {b:#x}u) as stored bool word", CMP_NAMES[k]),
                u32::from(e),
                actual,
            );
        }
    }
    let i_pairs = all_pairs(&I32_EDGES);
    let n = i_pairs.len() as u32;
    let program = pair_program(DataType::I32, DataType::Bool, n, &CMP_OPS);
    let input: Vec<i32> = i_pairs.iter().flat_map(|&(a, b)| [a, b]).collect();
    let out = words(&run(backend, case, &program, &[bytes_i32(&input)], &grid_for(n))[0]);
    for (i, &(a, b)) in i_pairs.iter().enumerate() {
        for (k, e) in expect(a < b, a == b).into_iter().enumerate() {
            let actual = out[i * 6 + k];
            report.eq(
                || format!("{}({a}i, {b}i) as stored bool word", CMP_NAMES[k]),
                u32::from(e),
                actual,
            );
        }
    }
    report.finish();
}

fn reference_popcount(x: u32) -> u32 {
    (0..32).filter(|bit| x >> bit & 1 == 1).count() as u32
}

fn reference_clz(x: u32) -> u32 {
    (0..32).rev().take_while(|bit| x >> bit & 1 == 0).count() as u32
}

fn reference_ctz(x: u32) -> u32 {
    (0..32).take_while(|bit| x >> bit & 1 == 0).count() as u32
}

fn reference_reverse(x: u32) -> u32 {
    (0..32).fold(0, |acc, bit| acc | ((x >> bit & 1) << (31 - bit)))
}

/// `bit_not popcount clz ctz reverse_bits abs` on `u32`, and the same plus `neg` on `i32`.
pub fn integer_unary(backend: &dyn VyreBackend) {
    let case = "integer_unary";
    let mut report = Report::new(case);
    let names = ["bit_not", "popcount", "clz", "ctz", "reverse_bits", "abs"];
    let u_ops: [fn(Expr) -> Expr; 6] = [
        Expr::bit_not,
        Expr::popcount,
        Expr::clz,
        Expr::ctz,
        Expr::reverse_bits,
        Expr::abs,
    ];
    let n = U32_EDGES.len() as u32;
    let program = unary_program(DataType::U32, DataType::U32, n, &u_ops);
    let out = words(
        &run(
            backend,
            case,
            &program,
            &[bytes_u32(&U32_EDGES)],
            &grid_for(n),
        )[0],
    );
    for (i, &a) in U32_EDGES.iter().enumerate() {
        let expected = [
            !a,
            reference_popcount(a),
            reference_clz(a),
            reference_ctz(a),
            reference_reverse(a),
            a,
        ];
        for (k, e) in expected.into_iter().enumerate() {
            report.eq(|| format!("{}({a:#x}u)", names[k]), e, out[i * 6 + k]);
        }
    }
    let i_names = [
        "neg",
        "abs",
        "bit_not",
        "popcount",
        "clz",
        "ctz",
        "reverse_bits",
    ];
    let i_ops: [fn(Expr) -> Expr; 7] = [
        Expr::neg,
        Expr::abs,
        Expr::bit_not,
        |a| Expr::bitcast(DataType::I32, Expr::popcount(a)),
        |a| Expr::bitcast(DataType::I32, Expr::clz(a)),
        |a| Expr::bitcast(DataType::I32, Expr::ctz(a)),
        Expr::reverse_bits,
    ];
    let n = I32_EDGES.len() as u32;
    let program = unary_program(DataType::I32, DataType::I32, n, &i_ops);
    let out = words(
        &run(
            backend,
            case,
            &program,
            &[bytes_i32(&I32_EDGES)],
            &grid_for(n),
        )[0],
    );
    for (i, &a) in I32_EDGES.iter().enumerate() {
        let bits = a as u32;
        let neg = if a == i32::MIN { a } else { -a };
        let expected = [
            neg as u32,
            if a < 0 { neg as u32 } else { bits },
            !bits,
            reference_popcount(bits),
            reference_clz(bits),
            reference_ctz(bits),
            reference_reverse(bits),
        ];
        for (k, e) in expected.into_iter().enumerate() {
            report.eq(
                || format!("{}({a}i) as bits", i_names[k]),
                e,
                out[i * 7 + k],
            );
        }
    }
    report.finish();
}
