//! `const_fold` against the reference interpreter: every operator, cast and bitcast on every
//! type, over a table of edge literals, folded or not, gives bit for bit what the reference
//! computes for the unfolded expression; the identities give what the reference computes for
//! every edge value of their other operand; and a program with constant subtrees shrinks.

use vyre_conformance::ReferenceBackend;
use vyre_conformance::fuzz::{self, FuzzOptions};
use vyre_driver::{DispatchConfig, VyreBackend};
use vyre_foundation::ir::{
    BinClass, BinOp, BufferDecl, DataType, Expr, Literal, Node, Program, UnOp,
};
use vyre_foundation::pass::{ConstantFold, Pipeline};

/// Edge values of every type: zeros, ones, the extremes, shift amounts past the width, values at
/// the float-to-integer saturation bounds and f16 rounding ties, subnormals, infinities and NaNs.
fn edges(ty: DataType) -> Vec<Literal> {
    match ty {
        DataType::Bool => vec![Literal::Bool(false), Literal::Bool(true)],
        DataType::U32 => [
            0,
            1,
            2,
            3,
            7,
            16,
            31,
            32,
            33,
            63,
            64,
            2049,
            65504,
            65520,
            16_777_217,
            0x7fff_ffff,
            0x8000_0000,
            4_294_967_040,
            u32::MAX - 1,
            u32::MAX,
        ]
        .map(Literal::U32)
        .to_vec(),
        DataType::I32 => [
            0,
            1,
            -1,
            2,
            -2,
            3,
            -7,
            16,
            31,
            33,
            -65504,
            2049,
            16_777_217,
            2_147_483_520,
            i32::MIN,
            i32::MIN + 1,
            i32::MAX,
        ]
        .map(Literal::I32)
        .to_vec(),
        DataType::U64 => [
            0,
            1,
            2,
            7,
            63,
            64,
            65,
            u64::from(u32::MAX),
            1 << 32,
            (1 << 53) + 1,
            1 << 63,
            0xffff_ff00_0000_0000,
            u64::MAX,
        ]
        .map(Literal::U64)
        .to_vec(),
        DataType::I64 => [
            0,
            1,
            -1,
            2,
            -2,
            -7,
            63,
            65,
            i64::from(i32::MIN),
            1 << 40,
            0x7fff_ff80_0000_0000,
            i64::MIN,
            i64::MIN + 1,
            i64::MAX,
        ]
        .map(Literal::I64)
        .to_vec(),
        DataType::F32 => [
            0.0,
            -0.0,
            1.0,
            -1.0,
            0.5,
            1.5,
            -2.5,
            0.1,
            0.75,
            3.0,
            -1e-10,
            16_777_216.0,
            2_147_483_520.0,
            2_147_483_648.0,
            3e9,
            -3e9,
            1e10,
            65504.0,
            65520.0,
            1e38,
            -1e38,
            f32::MAX,
            f32::MIN_POSITIVE,
            1e-40,
            -1e-40,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
        ]
        .map(|v: f32| Literal::F32(v.to_bits()))
        .into_iter()
        // A NaN with a payload and a negative NaN: moves must keep them.
        .chain([Literal::F32(0x7fa0_0001), Literal::F32(0xffc0_0000)])
        .collect(),
        DataType::F16 => [
            0x0000, 0x8000, 0x3c00, 0xbc00, 0x3800, 0x3e00, 0x3c01, 0x2e66, 0x5640, 0x6800, 0x6801,
            0x7bff, 0xfbff, 0x0400, 0x0001, 0x8001, 0x7c00, 0xfc00, 0x7e00, 0x7d00,
        ]
        .map(Literal::F16)
        .to_vec(),
    }
}

/// One program storing `cases[i]` into element `i` of an output of type `ty`, run by a single
/// invocation.
fn program(ty: DataType, cases: Vec<Expr>) -> Program {
    let count = u32::try_from(cases.len()).unwrap_or(u32::MAX);
    let body = cases
        .into_iter()
        .enumerate()
        .map(|(i, e)| Node::store("o", Expr::u32(u32::try_from(i).unwrap_or(0)), e))
        .collect();
    Program::new(
        vec![BufferDecl::output("o", 0, ty).with_count(count)],
        [1, 1, 1],
        body,
    )
}

fn run(program: &Program, inputs: &[Vec<u8>]) -> Vec<u8> {
    let config = DispatchConfig::new().with_grid([1, 1, 1]);
    match ReferenceBackend::new().dispatch(program, inputs, &config) {
        Ok(mut out) => out.remove(0),
        Err(e) => panic!("{e}\n{program}"),
    }
}

fn fold(program: &Program) -> Program {
    match Pipeline::empty().with(ConstantFold).run(program) {
        Ok(folded) => folded.into_owned(),
        Err(e) => panic!("{e}"),
    }
}

/// How many stores of `program` folded to a literal.
struct Folded {
    literals: usize,
    cases: usize,
}

/// Folds a program of literal cases and checks it against the reference: each literal a store
/// folded to holds the bytes the reference computed for the original expression, and the folded
/// program's output is the original's, bit for bit.
fn check(ty: DataType, cases: Vec<Expr>, what: &str) -> Folded {
    let original = program(ty, cases);
    let folded = fold(&original);
    let expected = run(&original, &[]);
    let size = ty.size_bytes();
    let mut literals = 0;
    for (i, (before, after)) in original.body.iter().zip(&folded.body).enumerate() {
        let (Node::Store { value: before, .. }, Node::Store { value: after, .. }) = (before, after)
        else {
            panic!("{what}: store {i} is no longer a store");
        };
        let Expr::Lit(lit) = after else {
            continue;
        };
        literals += 1;
        let bytes = &lit.to_bits().to_le_bytes()[..size];
        let reference = &expected[i * size..(i + 1) * size];
        assert_eq!(bytes, reference, "{what}: `{before}` folded to {lit:?}");
    }
    assert_eq!(
        folded.body.len(),
        original.body.len(),
        "{what}: stores went missing"
    );
    let output = run(&folded, &[]);
    if let Some(i) = (0..output.len() / size)
        .find(|&i| output[i * size..(i + 1) * size] != expected[i * size..(i + 1) * size])
    {
        panic!(
            "{what}: element {i} of the folded program differs: {} became {}",
            original.body[i], folded.body[i]
        );
    }
    Folded {
        literals,
        cases: folded.body.len(),
    }
}

/// The operand types a binary operator takes (the left one; shifts take a `u32` amount).
fn operand_types(op: BinOp) -> Vec<DataType> {
    DataType::ALL
        .into_iter()
        .filter(|&t| {
            let rhs = if op.class() == BinClass::Shift {
                DataType::U32
            } else {
                t
            };
            op.result_type(t, rhs).is_some()
        })
        .collect()
}

#[test]
fn every_binary_operator_on_edge_literals_folds_to_the_reference_result() {
    let mut total = 0;
    for &op in BinOp::ALL {
        for ty in operand_types(op) {
            let rhs_ty = if op.class() == BinClass::Shift {
                DataType::U32
            } else {
                ty
            };
            let Some(result) = op.result_type(ty, rhs_ty) else {
                continue;
            };
            let mut cases = Vec::new();
            for a in edges(ty) {
                for b in edges(rhs_ty) {
                    cases.push(Expr::binary(op, Expr::Lit(a), Expr::Lit(b)));
                }
            }
            let what = format!("{} on {ty}", op.name());
            let f = check(result, cases, &what);
            total += f.literals;
            // Integers and bools have one answer for every pair; floats fold only where the law
            // pins one, and never for `div` and `rem`.
            if ty.is_float() {
                let expect_some = !matches!(op, BinOp::Div | BinOp::Rem);
                assert_eq!(f.literals > 0, expect_some, "{what}: {} folded", f.literals);
            } else {
                assert_eq!(f.literals, f.cases, "{what}: not every case folded");
            }
        }
    }
    assert!(total > 20_000, "only {total} binary cases folded");
}

#[test]
fn every_unary_operator_on_edge_literals_folds_to_the_reference_result() {
    for &op in UnOp::ALL {
        for ty in DataType::ALL {
            if op.result_type(ty).is_none() {
                continue;
            }
            let cases = edges(ty)
                .into_iter()
                .map(|a| Expr::unary(op, Expr::Lit(a)))
                .collect();
            let what = format!("{} on {ty}", op.name());
            let f = check(ty, cases, &what);
            let transcendental = op.is_float_math()
                && !matches!(
                    op,
                    UnOp::Floor | UnOp::Ceil | UnOp::Round | UnOp::Trunc | UnOp::Fract
                );
            if transcendental {
                assert_eq!(f.literals, 0, "{what}: an interval was folded");
            } else if ty.is_float() {
                assert!(f.literals > 0, "{what}: nothing folded");
            } else {
                assert_eq!(f.literals, f.cases, "{what}: not every case folded");
            }
        }
    }
}

#[test]
fn every_cast_and_bitcast_of_edge_literals_folds_to_the_reference_result() {
    let mut total = 0;
    for from in DataType::ALL {
        for to in DataType::ALL {
            let cases = edges(from)
                .into_iter()
                .map(|a| Expr::cast(to, Expr::Lit(a)))
                .collect();
            let f = check(to, cases, &format!("cast {from} to {to}"));
            total += f.literals;
            if !from.is_float() && to != DataType::F16 {
                assert_eq!(
                    f.literals, f.cases,
                    "cast {from} to {to}: not every case folded"
                );
            }
            let bitcastable = |t: DataType| t.is_numeric() && t != DataType::F16;
            if bitcastable(from) && bitcastable(to) && from.size_bytes() == to.size_bytes() {
                let cases = edges(from)
                    .into_iter()
                    .map(|a| Expr::bitcast(to, Expr::Lit(a)))
                    .collect();
                let f = check(to, cases, &format!("bitcast {from} to {to}"));
                assert_eq!(
                    f.literals, f.cases,
                    "bitcast {from} to {to}: not every case folded"
                );
            }
        }
    }
    assert!(total > 600, "only {total} casts folded");
}

#[test]
fn select_and_fma_on_edge_literals_fold_to_the_reference_result() {
    for ty in DataType::ALL {
        let values = edges(ty);
        let mut cases = Vec::new();
        for (a, b) in values.iter().zip(values.iter().rev()) {
            for c in [false, true] {
                cases.push(Expr::select(Expr::bool(c), Expr::Lit(*a), Expr::Lit(*b)));
            }
        }
        let f = check(ty, cases, &format!("select on {ty}"));
        assert_eq!(f.literals, f.cases, "select on {ty}: not every case folded");
    }
    let values = edges(DataType::F32);
    let mut cases = Vec::new();
    for a in &values {
        for b in &values {
            for c in values.iter().step_by(3) {
                cases.push(Expr::fma(Expr::Lit(*a), Expr::Lit(*b), Expr::Lit(*c)));
            }
        }
    }
    let f = check(DataType::F32, cases, "fma");
    assert!(f.literals > 0, "no fma folded");
}

/// An expression built from the operand `x`.
type Pattern = Box<dyn Fn(Expr) -> Expr>;

/// The literals `0`, `1`, all ones, `MIN` and `MAX` of an integer type.
fn int_constants(ty: DataType) -> [Expr; 5] {
    match ty {
        DataType::U32 => [0, 1, u32::MAX, 0, u32::MAX].map(Expr::u32),
        DataType::I32 => [0, 1, -1, i32::MIN, i32::MAX].map(Expr::i32),
        DataType::U64 => [0, 1, u64::MAX, 0, u64::MAX].map(Expr::u64),
        DataType::I64 => [0, 1, -1, i64::MIN, i64::MAX].map(Expr::i64),
        DataType::Bool | DataType::F32 | DataType::F16 => panic!("{ty} is not an integer"),
    }
}

/// Identities of an integer type, each of which `const_fold` must simplify: those with a
/// result of the type, and comparisons.
fn integer_identities(ty: DataType) -> (Vec<Pattern>, Vec<Pattern>) {
    let [zero, one, ones, min, max] = int_constants(ty);
    let width = ty.bits();
    let c = move |e: &Expr| {
        let e = e.clone();
        move || e.clone()
    };
    let (z, o, a, lo, hi) = (c(&zero), c(&one), c(&ones), c(&min), c(&max));
    let mut values: Vec<Pattern> = Vec::new();
    let mut push = |p: Pattern| values.push(p);
    for (op, k) in [
        (BinOp::Add, z()),
        (BinOp::Sub, z()),
        (BinOp::Mul, o()),
        (BinOp::Mul, z()),
        (BinOp::Div, o()),
        (BinOp::Div, z()),
        (BinOp::Rem, o()),
        (BinOp::Rem, z()),
        (BinOp::BitAnd, z()),
        (BinOp::BitAnd, a()),
        (BinOp::BitOr, z()),
        (BinOp::BitOr, a()),
        (BinOp::BitXor, z()),
        (BinOp::Min, hi()),
        (BinOp::Min, lo()),
        (BinOp::Max, lo()),
        (BinOp::Max, hi()),
    ] {
        let right = k.clone();
        push(Box::new(move |x| Expr::binary(op, x, right.clone())));
        if !matches!(op, BinOp::Sub | BinOp::Div | BinOp::Rem) {
            push(Box::new(move |x| Expr::binary(op, k.clone(), x)));
        }
    }
    for op in [BinOp::Div, BinOp::Rem] {
        let zero = z();
        push(Box::new(move |x| Expr::binary(op, zero.clone(), x)));
    }
    for op in [
        BinOp::Sub,
        BinOp::BitXor,
        BinOp::BitAnd,
        BinOp::BitOr,
        BinOp::Min,
        BinOp::Max,
    ] {
        push(Box::new(move |x| Expr::binary(op, x.clone(), x)));
    }
    for amount in [0, width, width + 3, 2 * width + 1] {
        push(Box::new(move |x| Expr::shl(x, Expr::u32(amount))));
        push(Box::new(move |x| Expr::shr(x, Expr::u32(amount))));
    }
    let zero = z();
    push(Box::new(move |x| {
        Expr::shl(zero.clone(), Expr::cast(DataType::U32, x))
    }));
    push(Box::new(|x| Expr::bit_not(Expr::bit_not(x))));
    push(Box::new(move |x| Expr::cast(ty, x)));
    push(Box::new(move |x| Expr::bitcast(ty, x)));
    let other = match ty {
        DataType::U32 => DataType::I32,
        DataType::I32 => DataType::U32,
        DataType::U64 => DataType::I64,
        _ => DataType::U64,
    };
    push(Box::new(move |x| {
        Expr::bitcast(ty, Expr::bitcast(other, x))
    }));
    if ty.is_signed() {
        let minus = a();
        push(Box::new(move |x| Expr::rem(x, minus.clone())));
        push(Box::new(|x| Expr::neg(Expr::neg(x))));
        let minus = a();
        push(Box::new(move |x| {
            Expr::shr(minus.clone(), Expr::cast(DataType::U32, x))
        }));
    }
    if width == 32 {
        push(Box::new(move |x| {
            Expr::bitcast(ty, Expr::bitcast(DataType::F32, x))
        }));
    }
    let mut truths: Vec<Pattern> = Vec::new();
    for op in [
        BinOp::Eq,
        BinOp::Ne,
        BinOp::Lt,
        BinOp::Le,
        BinOp::Gt,
        BinOp::Ge,
    ] {
        truths.push(Box::new(move |x| Expr::binary(op, x.clone(), x)));
    }
    for (op, k) in [
        (BinOp::Lt, lo()),
        (BinOp::Ge, lo()),
        (BinOp::Gt, hi()),
        (BinOp::Le, hi()),
    ] {
        let right = k.clone();
        truths.push(Box::new(move |x| Expr::binary(op, x, right.clone())));
        let mirrored = match op {
            BinOp::Lt => BinOp::Gt,
            BinOp::Ge => BinOp::Le,
            BinOp::Gt => BinOp::Lt,
            _ => BinOp::Ge,
        };
        truths.push(Box::new(move |x| Expr::binary(mirrored, k.clone(), x)));
    }
    (values, truths)
}

/// Identities of `bool`, each of which `const_fold` must simplify.
fn bool_identities() -> Vec<Pattern> {
    let mut out: Vec<Pattern> = Vec::new();
    for op in [BinOp::And, BinOp::Or, BinOp::Eq, BinOp::Ne] {
        for k in [false, true] {
            out.push(Box::new(move |x| Expr::binary(op, x, Expr::bool(k))));
            out.push(Box::new(move |x| Expr::binary(op, Expr::bool(k), x)));
        }
    }
    for op in [BinOp::And, BinOp::Or, BinOp::Eq, BinOp::Ne] {
        out.push(Box::new(move |x| Expr::binary(op, x.clone(), x)));
    }
    out.push(Box::new(|x| Expr::not(Expr::not(x))));
    out.push(Box::new(|x| {
        Expr::select(x, Expr::bool(true), Expr::bool(false))
    }));
    out.push(Box::new(|x| {
        Expr::select(x, Expr::bool(false), Expr::bool(true))
    }));
    out.push(Box::new(|x| {
        Expr::select(Expr::bool(true), x, Expr::bool(false))
    }));
    out.push(Box::new(|x| Expr::select(x.clone(), x.clone(), x)));
    out
}

/// Moves of a float type, each of which `const_fold` must simplify, and float expressions that
/// look like identities but are not exact, which it must leave alone.
fn float_patterns(ty: DataType) -> (Vec<Pattern>, Vec<Pattern>) {
    let one = if ty == DataType::F16 {
        Expr::f16(1.0)
    } else {
        Expr::f32(1.0)
    };
    let zero = if ty == DataType::F16 {
        Expr::f16(0.0)
    } else {
        Expr::f32(0.0)
    };
    let mut moves: Vec<Pattern> = vec![
        Box::new(move |x| Expr::cast(ty, x)),
        Box::new(|x| Expr::select(Expr::bool(true), x.clone(), x)),
        Box::new(|x| Expr::select(Expr::lt(x.clone(), x.clone()), x.clone(), x)),
    ];
    if ty == DataType::F32 {
        moves.push(Box::new(|x| {
            Expr::bitcast(DataType::F32, Expr::bitcast(DataType::U32, x))
        }));
        moves.push(Box::new(|x| {
            Expr::bitcast(DataType::F32, Expr::bitcast(DataType::I32, x))
        }));
    }
    let (o, z) = (one.clone(), zero.clone());
    let kept: Vec<Pattern> = vec![
        Box::new(move |x| Expr::add(x, z.clone())),
        Box::new(move |x| Expr::mul(x, o.clone())),
        Box::new(|x| Expr::sub(x.clone(), x)),
        Box::new(|x| Expr::div(x.clone(), x)),
        Box::new(|x| Expr::neg(Expr::neg(x))),
        Box::new(move |x| Expr::max(x.clone(), x)),
    ];
    (moves, kept)
}

/// Runs `patterns` (results of type `out_ty`) over every edge value of `ty` before and after
/// folding, asserting the same bytes, and returns how many patterns folding changed. Each
/// pattern also stores `atomic * 0` into a counter, which folding must keep.
fn run_patterns(ty: DataType, out_ty: DataType, patterns: &[Pattern], what: &str) -> usize {
    let values = edges(ty);
    let n = u32::try_from(values.len()).unwrap_or(1);
    let count = n * u32::try_from(patterns.len()).unwrap_or(1);
    let x = || Expr::load("x", Expr::gid_x());
    let mut body = Vec::new();
    for (k, pattern) in patterns.iter().enumerate() {
        let at = Expr::add(Expr::u32(u32::try_from(k).unwrap_or(0) * n), Expr::gid_x());
        body.push(Node::store("o", at, pattern(x())));
    }
    let atomic = Expr::atomic(
        vyre_foundation::ir::AtomicOp::Add,
        "counter",
        Expr::u32(0),
        Expr::u32(1),
    );
    body.push(Node::store(
        "zero",
        Expr::gid_x(),
        Expr::mul(atomic, Expr::u32(0)),
    ));
    let original = Program::new(
        vec![
            BufferDecl::read("x", 0, ty).with_count(n),
            BufferDecl::output("o", 1, out_ty).with_count(count),
            BufferDecl::output("counter", 2, DataType::U32).with_count(1),
            BufferDecl::output("zero", 3, DataType::U32).with_count(n),
        ],
        [n, 1, 1],
        body,
    );
    let folded = fold(&original);
    let size = ty.size_bytes();
    let input: Vec<u8> = values
        .iter()
        .flat_map(|v| v.to_bits().to_le_bytes()[..size].to_vec())
        .collect();
    let config = DispatchConfig::new().with_grid([1, 1, 1]);
    let backend = ReferenceBackend::new();
    let outputs = |p: &Program| match backend.dispatch(p, std::slice::from_ref(&input), &config) {
        Ok(out) => out,
        Err(e) => panic!("{what}: {e}"),
    };
    let (before, after) = (outputs(&original), outputs(&folded));
    let width = out_ty.size_bytes();
    for (k, pattern) in patterns.iter().enumerate() {
        let span = k * values.len() * width..(k + 1) * values.len() * width;
        assert_eq!(
            after[0][span.clone()],
            before[0][span],
            "{what}: `{}` became `{}`",
            pattern(x()),
            folded.body[k]
        );
    }
    assert_eq!(
        after[1..],
        before[1..],
        "{what}: the atomic counter or its zero differs"
    );
    let value = |node: &Node| match node {
        Node::Store { value, .. } => value.clone(),
        other => panic!("{what}: {other} is not a store"),
    };
    original
        .body
        .iter()
        .zip(&folded.body)
        .take(patterns.len())
        .filter(|(a, b)| value(a) != value(b))
        .count()
}

#[test]
fn integer_identities_give_the_reference_result_for_every_edge_value() {
    for ty in [DataType::U32, DataType::I32, DataType::U64, DataType::I64] {
        let (values, truths) = integer_identities(ty);
        let changed = run_patterns(ty, ty, &values, &format!("{ty} identities"));
        assert_eq!(changed, values.len(), "{ty}: some identity did not fold");
        let changed = run_patterns(ty, DataType::Bool, &truths, &format!("{ty} comparisons"));
        assert_eq!(changed, truths.len(), "{ty}: some comparison did not fold");
    }
}

#[test]
fn bool_identities_give_the_reference_result_for_every_edge_value() {
    let patterns = bool_identities();
    let changed = run_patterns(DataType::Bool, DataType::Bool, &patterns, "bool identities");
    assert_eq!(changed, patterns.len(), "some bool identity did not fold");
}

#[test]
fn float_moves_fold_and_float_look_alike_identities_do_not() {
    for ty in [DataType::F32, DataType::F16] {
        let (moves, kept) = float_patterns(ty);
        let changed = run_patterns(ty, ty, &moves, &format!("{ty} moves"));
        assert_eq!(changed, moves.len(), "{ty}: some move did not fold");
        let changed = run_patterns(ty, ty, &kept, &format!("{ty} non-identities"));
        assert_eq!(changed, 0, "{ty}: an inexact float identity was applied");
    }
}

/// How many programs the pass fuzz tests draw: `VYRE_PASS_FUZZ_CASES`, or 10 000 (a CI-sized run),
/// from the seed `VYRE_PASS_FUZZ_SEED` (default 36).
fn fuzz_options() -> FuzzOptions {
    let var = |name: &str, default: u64| {
        std::env::var(name)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    FuzzOptions {
        cases: var("VYRE_PASS_FUZZ_CASES", 10_000),
        seed: var("VYRE_PASS_FUZZ_SEED", 36),
        max_mismatches: 1,
        ..FuzzOptions::default()
    }
}

#[test]
fn const_fold_survives_the_pass_fuzzer() {
    let options = fuzz_options();
    let summary = fuzz::check_pass(|p| fuzz::apply_pass(&ConstantFold, p), &options);
    eprintln!(
        "const_fold, seed {}: {} ({} ops executed)",
        options.seed,
        summary.report(),
        summary.ops_executed
    );
    assert_eq!(summary.mismatched, 0, "{}", summary.report());
    assert!(
        summary.compared() > options.cases / 4,
        "const_fold changed too few programs to prove much: {}",
        summary.report()
    );
}
