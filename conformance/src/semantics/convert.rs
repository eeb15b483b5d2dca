//! Conversions (`SEMANTICS.md` section 6), bitcasts, bools (section 5) and `select`.

use vyre_driver::VyreBackend;
use vyre_foundation::ir::{BufferDecl, DataType, Expr, Node, Program};

use crate::semantics::harness::{
    BinaryBuilder, Report, all_pairs, bytes_f32, bytes_u32, grid_for, pair_program, run,
    unary_program, words,
};

const FLOAT_SOURCES: [f32; 22] = [
    0.0,
    -0.0,
    0.5,
    -0.5,
    2.9,
    -2.9,
    1.0,
    -1.0,
    3e9,
    -3e9,
    1e10,
    -1e10,
    2_147_483_520.0,
    2_147_483_648.0,
    4_294_967_040.0,
    4_294_967_296.0,
    16_777_217.0,
    1e-40,
    f32::INFINITY,
    f32::NEG_INFINITY,
    f32::NAN,
    -f32::NAN,
];

/// `i32(x)` as `SEMANTICS.md` fixes it: truncation saturating at `[-2^31, 2147483520]`. `None` for
/// NaN and infinities, whose results are indeterminate (section 7: an infinite input accepts any value).
fn expect_f32_to_i32(x: f32) -> Option<i32> {
    if !x.is_finite() {
        return None;
    }
    let t = f64::from(x).trunc();
    Some(t.clamp(-2_147_483_648.0, 2_147_483_520.0) as i32)
}

/// `u32(x)`: truncation saturating at `[0, 4294967040]`; `None` for NaN and infinities.
fn expect_f32_to_u32(x: f32) -> Option<u32> {
    if !x.is_finite() {
        return None;
    }
    let t = f64::from(x).trunc();
    Some(t.clamp(0.0, 4_294_967_040.0) as u32)
}

/// Float to `i32`, `u32`, `bool` and bit reinterpretation, on saturation edges, NaN and infinities.
pub fn cast_from_f32(backend: &dyn VyreBackend) {
    let case = "cast_from_f32";
    let ops: [fn(Expr) -> Expr; 4] = [
        |x| Expr::bitcast(DataType::U32, Expr::cast(DataType::I32, x)),
        |x| Expr::cast(DataType::U32, x),
        |x| Expr::cast(DataType::U32, Expr::cast(DataType::Bool, x)),
        |x| Expr::bitcast(DataType::U32, x),
    ];
    let n = FLOAT_SOURCES.len() as u32;
    let program = unary_program(DataType::F32, DataType::U32, n, &ops);
    let out = words(
        &run(
            backend,
            case,
            &program,
            &[bytes_f32(&FLOAT_SOURCES)],
            &grid_for(n),
        )[0],
    );
    let mut report = Report::new(case);
    for (i, &x) in FLOAT_SOURCES.iter().enumerate() {
        let got = &out[i * 4..i * 4 + 4];
        if let Some(e) = expect_f32_to_i32(x) {
            report.eq(|| format!("i32({x:e})"), e, got[0] as i32);
        }
        if let Some(e) = expect_f32_to_u32(x) {
            report.eq(|| format!("u32({x:e})"), e, got[1]);
        }
        // A subnormal may be flushed to zero first, so it may convert to either bool.
        if !x.is_subnormal() {
            report.eq(
                || format!("bool({x:e}) as u32"),
                u32::from(x != 0.0 || x.is_nan()),
                got[2],
            );
        }
        report.eq(|| format!("bitcast<u32>({x:e})"), x.to_bits(), got[3]);
    }
    report.finish();
}

/// `u32` and `i32` to `f32` (round to nearest even), to bool, to each other (same bits).
pub fn cast_from_integers(backend: &dyn VyreBackend) {
    let case = "cast_from_integers";
    let sources: [u32; 12] = [
        0,
        1,
        2,
        16_777_217,
        16_777_219,
        0x7fff_ffff,
        0x8000_0000,
        0xffff_ff80,
        u32::MAX,
        0xffff_fffe,
        12345,
        0x8000_0001,
    ];
    let ops: [fn(Expr) -> Expr; 6] = [
        |x| Expr::bitcast(DataType::U32, Expr::cast(DataType::F32, x)),
        |x| {
            Expr::bitcast(
                DataType::U32,
                Expr::cast(DataType::F32, Expr::bitcast(DataType::I32, x)),
            )
        },
        |x| Expr::cast(DataType::U32, Expr::cast(DataType::Bool, x)),
        |x| {
            Expr::cast(
                DataType::U32,
                Expr::cast(DataType::Bool, Expr::bitcast(DataType::I32, x)),
            )
        },
        |x| Expr::bitcast(DataType::U32, Expr::cast(DataType::I32, x)),
        |x| Expr::cast(DataType::U32, Expr::cast(DataType::I32, x)),
    ];
    let n = sources.len() as u32;
    let program = unary_program(DataType::U32, DataType::U32, n, &ops);
    let out = words(
        &run(
            backend,
            case,
            &program,
            &[bytes_u32(&sources)],
            &grid_for(n),
        )[0],
    );
    let mut report = Report::new(case);
    for (i, &x) in sources.iter().enumerate() {
        let got = &out[i * 6..i * 6 + 6];
        report.eq(
            || format!("f32({x}u) bits"),
            round_to_f32(f64::from(x)).to_bits(),
            got[0],
        );
        let s = x as i32;
        report.eq(
            || format!("f32({s}i) bits"),
            round_to_f32(f64::from(s)).to_bits(),
            got[1],
        );
        report.eq(|| format!("bool({x}u) as u32"), u32::from(x != 0), got[2]);
        report.eq(|| format!("bool({s}i) as u32"), u32::from(s != 0), got[3]);
        report.eq(|| format!("i32({x}u) bits"), x, got[4]);
        report.eq(|| format!("u32(i32({x}u))"), x, got[5]);
    }
    report.finish();
}

/// Rounds an integer-valued `f64` (exactly representable) to the nearest `f32`, ties to even, by
/// hand: keep 24 significant bits.
fn round_to_f32(x: f64) -> f32 {
    if x == 0.0 {
        return 0.0;
    }
    let magnitude = x.abs();
    let exponent = magnitude.log2().floor() as i32;
    let step = 2f64.powi((exponent - 23).max(0));
    let q = magnitude / step;
    let (floor, frac) = (q.floor(), q - q.floor());
    let rounded = if frac > 0.5 || (frac == 0.5 && floor % 2.0 == 1.0) {
        floor + 1.0
    } else {
        floor
    };
    (rounded * step * x.signum()) as f32
}

/// `bool -> u32, i32, f32`, and the bool operators `and or not eq ne select` on all combinations.
pub fn bool_operators(backend: &dyn VyreBackend) {
    let case = "bool_operators";
    let ops: [BinaryBuilder; 5] = [Expr::and, Expr::or, Expr::eq, Expr::ne, |a, b| {
        Expr::select(a.clone(), Expr::not(b), a)
    }];
    let pairs = all_pairs(&[false, true]);
    let n = pairs.len() as u32;
    let program = pair_program(DataType::Bool, DataType::Bool, n, &ops);
    // Bool inputs are words: any nonzero word is true.
    let input: Vec<u32> = pairs
        .iter()
        .enumerate()
        .flat_map(|(i, &(a, b))| {
            [
                if a { 1 + i as u32 } else { 0 },
                if b { u32::MAX } else { 0 },
            ]
        })
        .collect();
    let out = words(&run(backend, case, &program, &[bytes_u32(&input)], &grid_for(n))[0]);
    let mut report = Report::new(case);
    for (i, &(a, b)) in pairs.iter().enumerate() {
        let expected = [a && b, a || b, a == b, a != b, if a { !b } else { a }];
        let names = ["and", "or", "eq", "ne", "select(a, !b, a)"];
        for k in 0..5 {
            report.eq(
                || format!("{}({a}, {b}) stored word", names[k]),
                u32::from(expected[k]),
                out[i * 5 + k],
            );
        }
    }
    let to_ops: [fn(Expr) -> Expr; 4] = [
        |x| Expr::cast(DataType::U32, x),
        |x| Expr::bitcast(DataType::U32, Expr::cast(DataType::I32, x)),
        |x| Expr::bitcast(DataType::U32, Expr::cast(DataType::F32, x)),
        |x| Expr::cast(DataType::U32, Expr::not(x)),
    ];
    let program = unary_program(DataType::Bool, DataType::U32, 3, &to_ops);
    let out = words(
        &run(
            backend,
            case,
            &program,
            &[bytes_u32(&[0, 1, 0x8000_0000])],
            &grid_for(3),
        )[0],
    );
    for (i, b) in [false, true, true].into_iter().enumerate() {
        let one = if b { 1.0f32 } else { 0.0 };
        let expected = [u32::from(b), u32::from(b), one.to_bits(), u32::from(!b)];
        let names = ["u32(b)", "i32(b)", "f32(b) bits", "u32(!b)"];
        for k in 0..4 {
            report.eq(
                || format!("{} for b = {b} (word {i})", names[k]),
                expected[k],
                out[i * 4 + k],
            );
        }
    }
    report.finish();
}

/// `select` on `u32`, `i32` and `f32` values, with both arms evaluated.
pub fn select_values(backend: &dyn VyreBackend) {
    let case = "select_values";
    let program = Program::wrapped(
        vec![
            BufferDecl::read("conds", 0, DataType::U32).with_count(4),
            BufferDecl::output("u", 1, DataType::U32).with_count(4),
            BufferDecl::output("i", 2, DataType::I32).with_count(4),
            BufferDecl::output("f", 3, DataType::F32).with_count(4),
        ],
        [4, 1, 1],
        vec![
            Node::let_bind(
                "c",
                Expr::ne(Expr::load("conds", Expr::gid_x()), Expr::u32(0)),
            ),
            Node::store(
                "u",
                Expr::gid_x(),
                Expr::select(Expr::var("c"), Expr::u32(u32::MAX), Expr::gid_x()),
            ),
            Node::store(
                "i",
                Expr::gid_x(),
                Expr::select(Expr::var("c"), Expr::i32(i32::MIN), Expr::i32(-5)),
            ),
            Node::store(
                "f",
                Expr::gid_x(),
                Expr::select(Expr::var("c"), Expr::f32(-0.5), Expr::f32(f32::INFINITY)),
            ),
        ],
    );
    let conds = [0u32, 7, 0, 1];
    let out = run(
        backend,
        case,
        &program,
        &[bytes_u32(&conds)],
        &Default::default(),
    );
    let mut report = Report::new(case);
    for (l, &c) in conds.iter().enumerate() {
        let on = c != 0;
        report.eq(
            || format!("u32 select lane {l} cond {on}"),
            if on { u32::MAX } else { l as u32 },
            words(&out[0])[l],
        );
        report.eq(
            || format!("i32 select lane {l} cond {on}"),
            if on { i32::MIN } else { -5 },
            words(&out[1])[l] as i32,
        );
        let f = if on { -0.5f32 } else { f32::INFINITY };
        report.eq(
            || format!("f32 select lane {l} cond {on}"),
            f.to_bits(),
            words(&out[2])[l],
        );
    }
    report.finish();
}
