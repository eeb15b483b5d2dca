//! `strength_reduce` against the reference interpreter: every rewrite of a multiplication,
//! division or remainder by a literal gives, for edge values and pseudo-random values of the other
//! operand, bit for bit what the reference computes for the original; and the passes together
//! shrink a program with constant subtrees.

use vyre_conformance::ReferenceBackend;
use vyre_conformance::fuzz::{self, FuzzOptions};
use vyre_driver::{DispatchConfig, VyreBackend};
use vyre_foundation::ir::{BinOp, BufferDecl, DataType, Expr, Literal, Node, Program};
use vyre_foundation::pass::{ConstantFold, Pipeline, StrengthReduce};

/// A literal of the integer type `ty` with the (low) bits `bits`.
fn literal(ty: DataType, bits: u64) -> Literal {
    match ty {
        DataType::U32 => Literal::U32(bits as u32),
        DataType::I32 => Literal::I32(bits as u32 as i32),
        DataType::U64 => Literal::U64(bits),
        _ => Literal::I64(bits as i64),
    }
}

/// The divisors and factors to try: every power of two (as bits, so `MIN` too), `-1`, negative
/// powers of two, and a few others.
fn constants(ty: DataType) -> Vec<Literal> {
    let width = ty.bits();
    let mut bits: Vec<u64> = (0..width).map(|k| 1u64 << k).collect();
    let all = u64::MAX >> (64 - width);
    bits.extend([0, 3, 5, 7, 12, all, all - 1, all - 3, all >> 1]);
    bits.into_iter().map(|b| literal(ty, b)).collect()
}

/// Values of the other operand: the edges of the type, then pseudo-random ones.
fn inputs(ty: DataType) -> Vec<u64> {
    let width = ty.bits();
    let all = u64::MAX >> (64 - width);
    let min = 1u64 << (width - 1);
    let mut values = vec![
        0,
        1,
        2,
        3,
        7,
        8,
        9,
        all,
        all - 1,
        all - 7,
        all - 8,
        min,
        min + 1,
        min - 1,
    ];
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    for _ in 0..50 {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        values.push((state >> 7) & all);
    }
    values
}

/// Whether `strength_reduce` must rewrite `op` by the constant `c` (on either side for `mul`).
fn reducible(op: BinOp, c: Literal) -> bool {
    let ty = c.ty();
    let bits = c.to_bits();
    let width = ty.bits();
    let minus_one = ty.is_signed() && bits == u64::MAX >> (64 - width);
    let power = bits.is_power_of_two() && bits > 1;
    let positive_power = power && (!ty.is_signed() || bits < 1 << (width - 1));
    match op {
        BinOp::Mul => power || minus_one,
        BinOp::Div => positive_power || minus_one,
        BinOp::Rem => positive_power,
        _ => false,
    }
}

#[test]
fn every_strength_reduction_gives_the_reference_result() {
    for ty in [DataType::U32, DataType::I32, DataType::U64, DataType::I64] {
        let values = inputs(ty);
        let n = u32::try_from(values.len()).unwrap_or(1);
        let mut cases: Vec<(BinOp, Literal, bool)> = Vec::new();
        for c in constants(ty) {
            for (op, left) in [
                (BinOp::Mul, false),
                (BinOp::Mul, true),
                (BinOp::Div, false),
                (BinOp::Rem, false),
            ] {
                cases.push((op, c, left));
            }
        }
        let v = || Expr::var("v");
        let mut body = vec![Node::let_bind("v", Expr::load("x", Expr::gid_x()))];
        for (k, &(op, c, left)) in cases.iter().enumerate() {
            let value = if left {
                Expr::binary(op, Expr::Lit(c), v())
            } else {
                Expr::binary(op, v(), Expr::Lit(c))
            };
            let k = u32::try_from(k).unwrap_or(0);
            body.push(Node::store(
                "o",
                Expr::add(Expr::u32(k * n), Expr::gid_x()),
                value,
            ));
        }
        let count = n * u32::try_from(cases.len()).unwrap_or(1);
        let original = Program::new(
            vec![
                BufferDecl::read("x", 0, ty).with_count(n),
                BufferDecl::output("o", 1, ty).with_count(count),
            ],
            [n, 1, 1],
            body,
        );
        let reduced = match Pipeline::empty().with(StrengthReduce).run(&original) {
            Ok(p) => p.into_owned(),
            Err(e) => panic!("{e}"),
        };
        let size = ty.size_bytes();
        let input: Vec<u8> = values
            .iter()
            .flat_map(|v| v.to_le_bytes()[..size].to_vec())
            .collect();
        let config = DispatchConfig::new().with_grid([1, 1, 1]);
        let run = |p: &Program| match ReferenceBackend::new().dispatch(
            p,
            std::slice::from_ref(&input),
            &config,
        ) {
            Ok(mut out) => out.remove(0),
            Err(e) => panic!("{e}"),
        };
        let (before, after) = (run(&original), run(&reduced));
        let span = values.len() * size;
        for (k, &(op, c, left)) in cases.iter().enumerate() {
            let (a, b) = (&original.body[k + 1], &reduced.body[k + 1]);
            let what = format!("{ty}: `{a}` became `{b}`");
            assert_eq!(
                after[k * span..(k + 1) * span],
                before[k * span..(k + 1) * span],
                "{what}"
            );
            let expected = reducible(op, c);
            assert_eq!(
                a != b,
                expected,
                "{what}: rewritten {}, expected {expected} ({left})",
                a != b
            );
        }
    }
}

/// `out[i] = in[i] * (4 * 2) + (10 / 0 - 10)` inside `if 1 < 2`, an unreachable `else`, an empty
/// loop and a select on a literal: what a generator or a macro expansion leaves behind.
fn constant_heavy_program() -> Program {
    let i = || Expr::gid_x();
    let x = || Expr::load("in", i());
    let scaled = Expr::mul(x(), Expr::mul(Expr::u32(4), Expr::u32(2)));
    let nothing = Expr::sub(Expr::div(Expr::u32(10), Expr::u32(0)), Expr::u32(10));
    Program::new(
        vec![
            BufferDecl::read("in", 0, DataType::U32).with_count(64),
            BufferDecl::output("out", 1, DataType::U32).with_count(64),
            BufferDecl::output("half", 2, DataType::U32).with_count(64),
        ],
        [64, 1, 1],
        vec![
            Node::if_then_else(
                Expr::lt(Expr::u32(1), Expr::u32(2)),
                vec![Node::store("out", i(), Expr::add(scaled, nothing))],
                vec![Node::store("out", i(), Expr::u32(0))],
            ),
            Node::loop_for(
                "j",
                Expr::u32(0),
                Expr::u32(0),
                vec![Node::store("out", i(), Expr::u32(1))],
            ),
            Node::store(
                "half",
                i(),
                Expr::select(
                    Expr::ne(Expr::cast(DataType::F32, Expr::u32(3)), Expr::f32(3.0)),
                    Expr::u32(7),
                    Expr::div(x(), Expr::u32(16)),
                ),
            ),
        ],
    )
}

fn size(program: &Program) -> (usize, usize) {
    let mut nodes = 0;
    vyre_foundation::for_each_node(&program.body, |_| nodes += 1);
    let mut exprs = 0;
    vyre_foundation::for_each_expr(program, |_| exprs += 1);
    (nodes, exprs)
}

#[test]
fn folding_then_reducing_shrinks_a_program_with_constant_subtrees() {
    let original = constant_heavy_program();
    let pipeline = Pipeline::empty().with(ConstantFold).with(StrengthReduce);
    let optimized = match pipeline.run(&original) {
        Ok(p) => p.into_owned(),
        Err(e) => panic!("{e}"),
    };
    let i = || Expr::gid_x();
    let x = || Expr::load("in", i());
    assert_eq!(
        optimized.body,
        [
            Node::store("out", i(), Expr::shl(x(), Expr::u32(3))),
            Node::store("half", i(), Expr::shr(x(), Expr::u32(4))),
        ]
    );
    assert_eq!(size(&original), (6, 33));
    assert_eq!(size(&optimized), (2, 10));
    let input: Vec<u8> = (0..64u32)
        .flat_map(|k| k.wrapping_mul(0x9e37_79b9).to_le_bytes())
        .collect();
    let backend = ReferenceBackend::new();
    let config = DispatchConfig::new();
    let run = |p: &Program| match backend.dispatch(p, std::slice::from_ref(&input), &config) {
        Ok(out) => out,
        Err(e) => panic!("{e}"),
    };
    assert_eq!(run(&optimized), run(&original));
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
fn strength_reduce_survives_the_pass_fuzzer() {
    let options = fuzz_options();
    let summary = fuzz::check_pass(|p| fuzz::apply_pass(&StrengthReduce, p), &options);
    eprintln!(
        "strength_reduce, seed {}: {} ({} ops executed)",
        options.seed,
        summary.report(),
        summary.ops_executed
    );
    assert_eq!(summary.mismatched, 0, "{}", summary.report());
    assert!(
        summary.compared() > options.cases / 20,
        "strength_reduce changed too few programs to prove much: {}",
        summary.report()
    );
}

#[test]
fn folding_then_reducing_survives_the_pass_fuzzer() {
    let options = fuzz_options();
    let pipeline = Pipeline::empty().with(ConstantFold).with(StrengthReduce);
    let summary = fuzz::check_pass(|p| fuzz::apply_pipeline(&pipeline, p), &options);
    eprintln!(
        "const_fold + strength_reduce, seed {}: {} ({} ops executed)",
        options.seed,
        summary.report(),
        summary.ops_executed
    );
    assert_eq!(summary.mismatched, 0, "{}", summary.report());
    assert!(
        summary.compared() > options.cases / 4,
        "{}",
        summary.report()
    );
}
