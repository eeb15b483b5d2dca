//! The optional types (`SEMANTICS.md` sections 4, 6 and 7): `u64`/`i64` with the 32-bit rules at
//! 64 bits, and `f16` arithmetic, comparisons and conversions. A backend without the device feature
//! must refuse each program with `Unsupported` naming the feature, and each case checks that instead.

use vyre_driver::{BackendError, DispatchConfig, VyreBackend};
use vyre_foundation::ir::{DataType, Expr, Features, Program};

use crate::semantics::harness::{BinaryBuilder, Report, all_pairs, grid_for, pair_program, run};

const U64_EDGES: [u64; 12] = [
    0,
    1,
    2,
    7,
    63,
    64,
    65,
    0xffff_ffff,
    0x1_0000_0000,
    0x7fff_ffff_ffff_ffff,
    0x8000_0000_0000_0000,
    u64::MAX,
];

const I64_EDGES: [i64; 12] = [
    0,
    1,
    -1,
    -7,
    63,
    64,
    0x1_0000_0000,
    -0x1_0000_0000,
    i64::MAX,
    i64::MIN,
    i64::MIN + 1,
    i32::MIN as i64,
];

/// Runs `program` when the backend has `feature`; otherwise checks that it refuses the program with
/// `Unsupported` naming the feature and a `Fix:`, and returns `None`.
fn run_or_refused(
    backend: &dyn VyreBackend,
    case: &str,
    feature: Features,
    program: &Program,
    inputs: &[Vec<u8>],
    config: &DispatchConfig,
) -> Option<Vec<Vec<u8>>> {
    let missing = feature.missing_from(backend.capabilities().features());
    if missing.is_empty() {
        return Some(run(backend, case, program, inputs, config));
    }
    match backend.dispatch(program, inputs, config) {
        Err(BackendError::Unsupported(m)) => {
            let named = missing.names().all(|n| m.contains(n));
            assert!(
                named && m.contains("Fix:"),
                "[{case}] backend `{}` refused without naming {missing}: {m}",
                backend.id()
            );
        }
        other => panic!(
            "[{case}] backend `{}` lacks {missing} but answered {other:?}",
            backend.id()
        ),
    }
    None
}

fn bytes_u64(values: &[u64]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

fn u64s(bytes: &[u8]) -> Vec<u64> {
    bytes
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]))
        .collect()
}

fn shl64(a: Expr, b: Expr) -> Expr {
    Expr::shl(a, Expr::cast(DataType::U32, b))
}

fn shr64(a: Expr, b: Expr) -> Expr {
    Expr::shr(a, Expr::cast(DataType::U32, b))
}

const NAMES: [&str; 12] = [
    "add", "sub", "mul", "div", "rem", "bit_and", "bit_or", "bit_xor", "shl", "shr", "min", "max",
];
const OPS: [BinaryBuilder; 12] = [
    Expr::add,
    Expr::sub,
    Expr::mul,
    Expr::div,
    Expr::rem,
    Expr::bit_and,
    Expr::bit_or,
    Expr::bit_xor,
    shl64,
    shr64,
    Expr::min,
    Expr::max,
];

/// The expected `u64` results, in `NAMES` order: section 4 at 64 bits, shift amounts mod 64.
fn expect_u64(a: u64, b: u64) -> [u64; 12] {
    let wide = |x: u128| (x % (1 << 64)) as u64;
    let amount = (b as u32) % 64;
    [
        wide(u128::from(a) + u128::from(b)),
        wide(u128::from(a) + (1 << 64) - u128::from(b)),
        wide(u128::from(a) * u128::from(b)),
        a.checked_div(b).unwrap_or(a),
        if b == 0 { 0 } else { a % b },
        a & b,
        a | b,
        a ^ b,
        wide(u128::from(a) << amount),
        a >> amount,
        a.min(b),
        a.max(b),
    ]
}

/// The expected `i64` results, in `NAMES` order.
fn expect_i64(a: i64, b: i64) -> [i64; 12] {
    let wrap = |x: i128| x.rem_euclid(1 << 64) as u64 as i64;
    let (wa, wb) = (i128::from(a), i128::from(b));
    let amount = (b as u32) % 64;
    let special = b == 0 || (a == i64::MIN && b == -1);
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
        (wa >> amount) as i64,
        a.min(b),
        a.max(b),
    ]
}

/// Every binary operator on all pairs of `u64` and of `i64` edge values: wrapping, `x / 0 = x`,
/// `MIN / -1 = MIN`, `x % 0 = 0`, shift amounts mod 64.
pub fn integer_binary_64(backend: &dyn VyreBackend) {
    let case = "integer_binary_64";
    let mut report = Report::new(case);
    let pairs = all_pairs(&U64_EDGES);
    let n = pairs.len() as u32;
    let program = pair_program(DataType::U64, DataType::U64, n, &OPS);
    let input: Vec<u64> = pairs.iter().flat_map(|&(a, b)| [a, b]).collect();
    let inputs = [bytes_u64(&input)];
    let Some(out) = run_or_refused(
        backend,
        case,
        Features::INT64,
        &program,
        &inputs,
        &grid_for(n),
    ) else {
        return;
    };
    let out = u64s(&out[0]);
    for (i, &(a, b)) in pairs.iter().enumerate() {
        for (k, expected) in expect_u64(a, b).into_iter().enumerate() {
            report.eq(
                || format!("{}({a:#x}u64, {b:#x}u64)", NAMES[k]),
                expected,
                out[i * OPS.len() + k],
            );
        }
    }
    let pairs = all_pairs(&I64_EDGES);
    let n = pairs.len() as u32;
    let program = pair_program(DataType::I64, DataType::I64, n, &OPS);
    let input: Vec<u64> = pairs
        .iter()
        .flat_map(|&(a, b)| [a as u64, b as u64])
        .collect();
    let out = u64s(&run(backend, case, &program, &[bytes_u64(&input)], &grid_for(n))[0]);
    for (i, &(a, b)) in pairs.iter().enumerate() {
        for (k, expected) in expect_i64(a, b).into_iter().enumerate() {
            report.eq(
                || format!("{}({a}i64, {b}i64)", NAMES[k]),
                expected,
                out[i * OPS.len() + k] as i64,
            );
        }
    }
    report.finish();
}

/// Comparisons, `neg`, `abs` and `bit_not` on 64-bit edge values (signed for `i64`).
pub fn integer_compare_and_unary_64(backend: &dyn VyreBackend) {
    let case = "integer_compare_and_unary_64";
    let mut report = Report::new(case);
    let cmp: [BinaryBuilder; 4] = [Expr::eq, Expr::lt, Expr::le, Expr::gt];
    let pairs = all_pairs(&I64_EDGES);
    let n = pairs.len() as u32;
    let program = pair_program(DataType::I64, DataType::U32, n, &cmp);
    let input: Vec<u64> = pairs
        .iter()
        .flat_map(|&(a, b)| [a as u64, b as u64])
        .collect();
    let Some(out) = run_or_refused(
        backend,
        case,
        Features::INT64,
        &wrap_bool_program(program),
        &[bytes_u64(&input)],
        &grid_for(n),
    ) else {
        return;
    };
    let out = crate::semantics::harness::words(&out[0]);
    for (i, &(a, b)) in pairs.iter().enumerate() {
        let expected = [a == b, a < b, a <= b, a > b].map(u32::from);
        for (k, e) in expected.into_iter().enumerate() {
            report.eq(|| format!("cmp#{k}({a}i64, {b}i64)"), e, out[i * 4 + k]);
        }
    }
    let un: [fn(Expr) -> Expr; 3] = [Expr::neg, Expr::abs, Expr::bit_not];
    let program = crate::semantics::harness::unary_program(
        DataType::I64,
        DataType::I64,
        I64_EDGES.len() as u32,
        &un,
    );
    let input: Vec<u64> = I64_EDGES.iter().map(|&v| v as u64).collect();
    let out = u64s(&run(backend, case, &program, &[bytes_u64(&input)], &grid_for(12))[0]);
    for (i, &a) in I64_EDGES.iter().enumerate() {
        let expected = [a.wrapping_neg(), a.wrapping_abs(), !a];
        for (k, e) in expected.into_iter().enumerate() {
            report.eq(|| format!("unary#{k}({a}i64)"), e, out[i * 3 + k] as i64);
        }
    }
    report.finish();
}

/// A comparison program stores bools; the pair program's `u32` output holds them as `select`s.
fn wrap_bool_program(mut program: Program) -> Program {
    use vyre_foundation::ir::Node;
    fn to_word(node: &mut Node) {
        match node {
            Node::Store { value, .. } => {
                let v = std::mem::replace(value, Expr::u32(0));
                *value = Expr::select(v, Expr::u32(1), Expr::u32(0));
            }
            Node::If { then, .. } => then.iter_mut().for_each(to_word),
            Node::Block(body) => body.iter_mut().for_each(to_word),
            _ => {}
        }
    }
    program.body.iter_mut().for_each(to_word);
    program
}

/// Conversions to and from `u64`/`i64` (section 6): extension by the source's signedness,
/// truncation, float saturation at the f32-representable bounds, and `bool`.
pub fn cast_64(backend: &dyn VyreBackend) {
    let case = "cast_64";
    use vyre_foundation::ir::{BufferDecl, Node};
    let f = Expr::f32;
    // (expression, expected u64 bits)
    let rows: Vec<(Expr, u64)> = vec![
        (Expr::cast(DataType::I64, Expr::i32(-2)), -2i64 as u64),
        (Expr::cast(DataType::U64, Expr::i32(-1)), u64::MAX),
        (Expr::cast(DataType::I64, Expr::u32(u32::MAX)), 0xffff_ffff),
        (Expr::cast(DataType::U64, Expr::u32(u32::MAX)), 0xffff_ffff),
        (
            Expr::cast(
                DataType::U64,
                Expr::cast(DataType::U32, Expr::u64(0x1234_5678_9abc_def0)),
            ),
            0x9abc_def0,
        ),
        (
            Expr::cast(
                DataType::I64,
                Expr::cast(DataType::I32, Expr::i64(-0x1_0000_0001)),
            ),
            -1i64 as u64,
        ),
        (Expr::cast(DataType::I64, f(-2.75)), -2i64 as u64),
        (Expr::cast(DataType::I64, f(1e30)), 0x7fff_ff80_0000_0000),
        (Expr::cast(DataType::I64, f(-1e30)), i64::MIN as u64),
        (Expr::cast(DataType::U64, f(1e30)), 0xffff_ff00_0000_0000),
        (Expr::cast(DataType::U64, f(-5.0)), 0),
        (Expr::cast(DataType::U64, f(4294967296.0)), 1 << 32),
        (
            Expr::cast(DataType::U64, Expr::cast(DataType::F32, Expr::u64(1 << 40))),
            1 << 40,
        ),
        (
            Expr::cast(
                DataType::I64,
                Expr::cast(DataType::F32, Expr::i64(-(1 << 40))),
            ),
            -(1i64 << 40) as u64,
        ),
        (Expr::cast(DataType::U64, Expr::bool(true)), 1),
        (
            Expr::cast(
                DataType::U64,
                Expr::cast(DataType::Bool, Expr::u64(1 << 40)),
            ),
            1,
        ),
        (Expr::bitcast(DataType::U64, Expr::i64(-1)), u64::MAX),
    ];
    // The values go through a buffer so no backend can fold them as constants.
    let body: Vec<Node> = rows
        .iter()
        .enumerate()
        .map(|(i, (e, _))| {
            let bits = Expr::bitcast(DataType::U64, e.clone());
            Node::store("out", Expr::u32(i as u32), bits)
        })
        .collect();
    let program = Program::new(
        vec![BufferDecl::output("out", 0, DataType::U64).with_count(rows.len() as u32)],
        [1, 1, 1],
        vec![Node::if_then(Expr::eq(Expr::gid_x(), Expr::u32(0)), body)],
    );
    let Some(out) = run_or_refused(
        backend,
        case,
        Features::INT64,
        &program,
        &[],
        &DispatchConfig::default(),
    ) else {
        return;
    };
    let out = u64s(&out[0]);
    let mut report = Report::new(case);
    for (i, (e, expected)) in rows.iter().enumerate() {
        report.eq(|| format!("{e}"), *expected, out[i]);
    }
    report.finish();
}

/// `f16` arithmetic, comparisons and conversions on values whose results are exact in `f16`, so
/// every backend must give them to the bit; plus conversions that saturate or round.
pub fn f16_exact_operations(backend: &dyn VyreBackend) {
    let case = "f16_exact_operations";
    use vyre_foundation::ir::{BufferDecl, Node};
    let h = |v: f32| Expr::cast(DataType::F16, Expr::load("x", Expr::u32(float_slot(v))));
    // (expression as f16 bits via f32, expected f32 value)
    let rows: Vec<(Expr, f32)> = vec![
        (Expr::add(h(1.5), h(2.25)), 3.75),
        (Expr::sub(h(1.0), h(3.0)), -2.0),
        (Expr::mul(h(-1.5), h(4.0)), -6.0),
        (Expr::div(h(3.0), h(4.0)), 0.75),
        (Expr::rem(h(7.0), h(4.0)), 3.0),
        (Expr::min(h(-1.5), h(2.25)), -1.5),
        (Expr::max(h(-1.5), h(2.25)), 2.25),
        (Expr::neg(h(2.25)), -2.25),
        (Expr::abs(h(-3.0)), 3.0),
        (Expr::unary(vyre_foundation::ir::UnOp::Floor, h(-1.5)), -2.0),
        (Expr::add(h(65504.0), h(-65504.0)), 0.0),
        (Expr::cast(DataType::F16, Expr::i32(-2048)), -2048.0),
        (Expr::cast(DataType::F16, Expr::u64(1024)), 1024.0),
        (Expr::select(Expr::lt(h(1.0), h(2.0)), h(4.0), h(8.0)), 4.0),
        (Expr::select(Expr::eq(h(1.0), h(2.0)), h(4.0), h(8.0)), 8.0),
        (Expr::cast(DataType::F16, Expr::bool(true)), 1.0),
    ];
    let ints: Vec<(Expr, u32)> = vec![
        (Expr::cast(DataType::I32, h(-2.75)), (-2i32) as u32),
        (Expr::cast(DataType::U32, h(65504.0)), 65504),
        (Expr::cast(DataType::U32, h(-3.0)), 0),
        (
            Expr::cast(DataType::U32, Expr::cast(DataType::Bool, h(0.5))),
            1,
        ),
        (
            Expr::cast(DataType::U32, Expr::cast(DataType::Bool, h(0.0))),
            0,
        ),
    ];
    let mut body: Vec<Node> = rows
        .iter()
        .enumerate()
        .map(|(i, (e, _))| Node::store("out", Expr::u32(i as u32), e.clone()))
        .collect();
    body.extend(ints.iter().enumerate().map(|(i, (e, _))| {
        let bits = Expr::bitcast(DataType::U32, e.clone());
        Node::store("words", Expr::u32(i as u32), bits)
    }));
    let program = Program::new(
        vec![
            BufferDecl::read("x", 0, DataType::F32),
            BufferDecl::output("out", 1, DataType::F16).with_count(rows.len() as u32),
            BufferDecl::output("words", 2, DataType::U32).with_count(ints.len() as u32),
        ],
        [1, 1, 1],
        vec![Node::if_then(Expr::eq(Expr::gid_x(), Expr::u32(0)), body)],
    );
    let input: Vec<u8> = FLOATS
        .iter()
        .flat_map(|v| v.to_bits().to_le_bytes())
        .collect();
    let Some(out) = run_or_refused(
        backend,
        case,
        Features::F16 | Features::INT64,
        &program,
        &[input],
        &DispatchConfig::default(),
    ) else {
        return;
    };
    let mut report = Report::new(case);
    let halves: Vec<u16> = out[0]
        .chunks_exact(2)
        .map(|c| u16::from_le_bytes([c[0], c[1]]))
        .collect();
    for (i, (e, expected)) in rows.iter().enumerate() {
        let actual = vyre_foundation::ir::f16_bits_to_f32(halves[i]);
        // Zero may come back with either sign (section 7).
        report.check(actual == *expected, || {
            format!("{e}: expected {expected:?}, got {actual:?}")
        });
    }
    let words = crate::semantics::harness::words(&out[1]);
    for (i, (e, expected)) in ints.iter().enumerate() {
        report.eq(|| format!("{e}"), *expected, words[i]);
    }
    report.finish();
}

/// The f32 inputs `f16_exact_operations` reads, all exact in f16.
const FLOATS: [f32; 15] = [
    1.5, 2.25, 1.0, 3.0, -1.5, 4.0, 7.0, -3.0, 65504.0, -65504.0, -2.75, 0.5, 2.0, 8.0, 0.0,
];

/// The slot of `v` in [`FLOATS`]; a value missing there reads out of bounds (0), which the case
/// then reports as a mismatch.
fn float_slot(v: f32) -> u32 {
    FLOATS
        .iter()
        .position(|&f| f == v)
        .map_or(u32::MAX, |i| i as u32)
}

/// Atomics on `i64` elements (section 8 at 64 bits): every operation once from invocation 0, on a
/// value whose upper word changes, yielding the old values; needs `int64 atomics` as well.
pub fn atomic_64(backend: &dyn VyreBackend) {
    use vyre_foundation::ir::{AtomicOp, BufferDecl, Node};
    let case = "atomic_64";
    let start: i64 = 0xffff_ffff;
    let ops: [(AtomicOp, i64); 7] = [
        (AtomicOp::Add, 1),
        (AtomicOp::Sub, 0x2_0000_0000),
        (AtomicOp::Max, i64::MIN),
        (AtomicOp::Min, -5),
        (AtomicOp::Xor, -1),
        (AtomicOp::Or, 0x100),
        (AtomicOp::Exchange, i64::MAX),
    ];
    let mut body = Vec::new();
    for (k, (op, v)) in ops.iter().enumerate() {
        let old = Expr::atomic(*op, "cell", Expr::u32(0), Expr::i64(*v));
        body.push(Node::store("olds", Expr::u32(k as u32), old));
    }
    let cas =
        Expr::atomic_compare_exchange("cell", Expr::u32(0), Expr::i64(i64::MAX), Expr::i64(-9));
    body.push(Node::store("olds", Expr::u32(ops.len() as u32), cas));
    let program = Program::new(
        vec![
            BufferDecl::output("cell", 0, DataType::I64).with_count(1),
            BufferDecl::output("olds", 1, DataType::I64).with_count(ops.len() as u32 + 1),
        ],
        [1, 1, 1],
        vec![Node::if_then(
            Expr::eq(Expr::gid_x(), Expr::u32(0)),
            vec![
                Node::store("cell", Expr::u32(0), Expr::i64(start)),
                Node::block(body),
            ],
        )],
    );
    let Some(out) = run_or_refused(
        backend,
        case,
        Features::INT64 | Features::INT64_ATOMICS,
        &program,
        &[],
        &DispatchConfig::default(),
    ) else {
        return;
    };
    let mut value = start;
    let mut expected_olds = Vec::new();
    for (op, v) in ops {
        expected_olds.push(value);
        value = match op {
            AtomicOp::Add => value.wrapping_add(v),
            AtomicOp::Sub => value.wrapping_sub(v),
            AtomicOp::Max => value.max(v),
            AtomicOp::Min => value.min(v),
            AtomicOp::Xor => value ^ v,
            AtomicOp::Or => value | v,
            _ => v,
        };
    }
    expected_olds.push(value);
    let final_value = if value == i64::MAX { -9 } else { value };
    let mut report = Report::new(case);
    let olds = u64s(&out[1]);
    for (k, e) in expected_olds.iter().enumerate() {
        report.eq(|| format!("old value of atomic #{k}"), *e, olds[k] as i64);
    }
    report.eq(
        || "final value".into(),
        final_value,
        u64s(&out[0])[0] as i64,
    );
    report.finish();
}
