//! `f32` operators (`SEMANTICS.md` section 7), checked against exact results computed in `f64`
//! within the accepted intervals: correctly rounded arithmetic, 2.5 ULP division, the math functions'
//! tolerances, ordered comparisons (false with NaN), subnormals that may be flushed.

use vyre_driver::VyreBackend;
use vyre_foundation::ir::{DataType, Expr};

use crate::catalogue::interval::{flushed, operand_readings};
use crate::semantics::harness::{
    BinaryBuilder, Report, all_pairs, bytes_f32, grid_for, pair_program, run, unary_program, words,
};
use crate::semantics::tolerance::{indeterminate, within_ulps};

const SUBNORMAL: f32 = 1e-40;

const F32_EDGES: [f32; 20] = [
    0.0,
    -0.0,
    1.0,
    -1.0,
    0.5,
    1.5,
    2.5,
    -2.5,
    3.0,
    7.0,
    0.1,
    1e-3,
    1e10,
    -1e10,
    3e38,
    f32::MIN_POSITIVE,
    SUBNORMAL,
    f32::INFINITY,
    f32::NEG_INFINITY,
    f32::NAN,
];

const ARITH_NAMES: [&str; 6] = ["add", "sub", "mul", "div", "min", "max"];
const ARITH_OPS: [BinaryBuilder; 6] = [
    Expr::add,
    Expr::sub,
    Expr::mul,
    Expr::div,
    Expr::min,
    Expr::max,
];

/// The exact result of arithmetic operator `k` in `f64`.
fn exact(k: usize, a: f32, b: f32) -> f64 {
    let (a, b) = (f64::from(a), f64::from(b));
    match k {
        0 => a + b,
        1 => a - b,
        2 => a * b,
        3 => a / b,
        4 => a.min(b),
        _ => a.max(b),
    }
}

/// True when `actual` is an accepted result of arithmetic operator `k` on `a` and `b`, read in any
/// of the ways a flushing backend may read them.
fn arith_ok(k: usize, a: f32, b: f32, actual: f32) -> bool {
    operand_readings([a, b])
        .into_iter()
        .any(|[x, y]| arith_reading_ok(k, x, y, actual))
}

/// True when `actual` is an accepted result of arithmetic operator `k` on `x` and `y` read as given.
fn arith_reading_ok(k: usize, x: f32, y: f32, actual: f32) -> bool {
    if k >= 4 && (x.is_nan() || y.is_nan()) {
        // min/max with a NaN operand may yield NaN or the other operand, which, as the result of
        // an operation, may lose the sign of a zero or be flushed when it is subnormal.
        let other = if x.is_nan() { y } else { x };
        return actual.is_nan()
            || actual == other
            || (other.is_finite() && within_ulps(actual, f64::from(other), 0.0));
    }
    let tolerance = if k == 3 { 2.5 } else { 1.0 };
    let e = exact(k, x, y);
    let divisor_out_of_range = k == 3 && !(2f32.powi(-126)..=2f32.powi(126)).contains(&y.abs());
    indeterminate(&[x, y], e) || divisor_out_of_range || within_ulps(actual, e, tolerance)
}

/// `add sub mul div min max` on all pairs of float edge values (zeros, subnormals, huge values,
/// infinities, NaN).
pub fn float_arithmetic(backend: &dyn VyreBackend) {
    let case = "float_arithmetic";
    let pairs = all_pairs(&F32_EDGES);
    let n = pairs.len() as u32;
    let program = pair_program(DataType::F32, DataType::F32, n, &ARITH_OPS);
    let input: Vec<f32> = pairs.iter().flat_map(|&(a, b)| [a, b]).collect();
    let out = words(&run(backend, case, &program, &[bytes_f32(&input)], &grid_for(n))[0]);
    let mut report = Report::new(case);
    for (i, &(a, b)) in pairs.iter().enumerate() {
        for k in 0..ARITH_OPS.len() {
            let actual = f32::from_bits(out[i * ARITH_OPS.len() + k]);
            report.check(arith_ok(k, a, b, actual), || {
                format!(
                    "{}({a:e}, {b:e}) = {actual:e}, outside the accepted interval around {:e}",
                    ARITH_NAMES[k],
                    exact(k, a, b)
                )
            });
        }
    }
    report.finish();
}

/// Comparisons of floats: ordered, so every comparison with NaN is false (`ne` too); `-0.0 == 0.0`.
pub fn float_comparisons(backend: &dyn VyreBackend) {
    let case = "float_comparisons";
    let ops: [BinaryBuilder; 6] = [Expr::eq, Expr::ne, Expr::lt, Expr::le, Expr::gt, Expr::ge];
    let names = ["eq", "ne", "lt", "le", "gt", "ge"];
    let pairs = all_pairs(&F32_EDGES);
    let n = pairs.len() as u32;
    let program = pair_program(DataType::F32, DataType::Bool, n, &ops);
    let input: Vec<f32> = pairs.iter().flat_map(|&(a, b)| [a, b]).collect();
    let out = words(&run(backend, case, &program, &[bytes_f32(&input)], &grid_for(n))[0]);
    let expect = |a: f32, b: f32| {
        let ordered = !a.is_nan() && !b.is_nan();
        [a == b, ordered && a != b, a < b, a <= b, a > b, a >= b]
    };
    let mut report = Report::new(case);
    for (i, &(a, b)) in pairs.iter().enumerate() {
        let exact = expect(a, b);
        let readings = operand_readings([a, b]);
        for k in 0..6 {
            let actual = out[i * 6 + k];
            let ok = readings
                .iter()
                .any(|&[x, y]| actual == u32::from(expect(x, y)[k]));
            report.check(ok, || {
                format!(
                    "{}({a:e}, {b:e}): expected {}, got word {actual}",
                    names[k], exact[k]
                )
            });
        }
    }
    report.finish();
}

struct MathCase {
    name: &'static str,
    build: fn(Expr) -> Expr,
    exact: fn(f64) -> f64,
    /// Accepts `actual` for input `x` with exact result `e`.
    accept: fn(f32, f64, f32) -> bool,
}

fn ulps(n: f64) -> impl Fn(f32, f64) -> bool {
    move |actual, e| within_ulps(actual, e, n)
}

fn log_accept(x: f32, e: f64, actual: f32) -> bool {
    if (0.5..=2.0).contains(&x) {
        (f64::from(actual) - e).abs() <= 2f64.powi(-21)
    } else {
        ulps(3.0)(actual, e)
    }
}

fn trig_accept(x: f32, e: f64, actual: f32) -> bool {
    let pi = std::f32::consts::PI;
    !(-pi..=pi).contains(&x) || (f64::from(actual) - e).abs() <= 2f64.powi(-11)
}

const MATH: [MathCase; 15] = [
    MathCase {
        name: "neg",
        build: Expr::neg,
        exact: |x| -x,
        accept: |_, e, a| ulps(1.0)(a, e),
    },
    MathCase {
        name: "abs",
        build: Expr::abs,
        exact: f64::abs,
        accept: |_, e, a| ulps(1.0)(a, e),
    },
    MathCase {
        name: "sqrt",
        build: Expr::sqrt,
        exact: f64::sqrt,
        accept: |_, e, a| ulps(3.0)(a, e),
    },
    MathCase {
        name: "inverse_sqrt",
        build: Expr::inverse_sqrt,
        exact: |x| 1.0 / x.sqrt(),
        accept: |_, e, a| ulps(2.0)(a, e),
    },
    MathCase {
        name: "exp",
        build: Expr::exp,
        exact: f64::exp,
        accept: |x, e, a| ulps(3.0 + 2.0 * f64::from(x.abs()))(a, e),
    },
    MathCase {
        name: "exp2",
        build: Expr::exp2,
        exact: f64::exp2,
        accept: |x, e, a| ulps(3.0 + 2.0 * f64::from(x.abs()))(a, e),
    },
    MathCase {
        name: "log",
        build: Expr::log,
        exact: f64::ln,
        accept: log_accept,
    },
    MathCase {
        name: "log2",
        build: Expr::log2,
        exact: f64::log2,
        accept: log_accept,
    },
    MathCase {
        name: "sin",
        build: Expr::sin,
        exact: f64::sin,
        accept: trig_accept,
    },
    MathCase {
        name: "cos",
        build: Expr::cos,
        exact: f64::cos,
        accept: trig_accept,
    },
    MathCase {
        name: "floor",
        build: Expr::floor,
        exact: f64::floor,
        accept: |_, e, a| ulps(1.0)(a, e),
    },
    MathCase {
        name: "ceil",
        build: Expr::ceil,
        exact: f64::ceil,
        accept: |_, e, a| ulps(1.0)(a, e),
    },
    MathCase {
        name: "round",
        build: Expr::round,
        exact: f64::round_ties_even,
        accept: |_, e, a| ulps(1.0)(a, e),
    },
    MathCase {
        name: "trunc",
        build: Expr::trunc,
        exact: f64::trunc,
        accept: |_, e, a| ulps(1.0)(a, e),
    },
    MathCase {
        name: "fract",
        build: Expr::fract,
        exact: |x| x - x.floor(),
        accept: |_, e, a| ulps(1.0)(a, e),
    },
];

const MATH_INPUTS: [f32; 22] = [
    0.0,
    -0.0,
    1.0,
    -1.0,
    0.5,
    1.5,
    2.5,
    -2.5,
    3.5,
    -0.75,
    2.0,
    0.1,
    10.0,
    -10.0,
    100.0,
    1e-3,
    3.0,
    -3.0,
    1e6,
    SUBNORMAL,
    f32::INFINITY,
    f32::NAN,
];

/// `neg abs sqrt inverse_sqrt exp exp2 log log2 sin cos floor ceil round trunc fract`, each within
/// its tolerance (`round` is ties-to-even: `round(2.5) = 2`).
pub fn float_math(backend: &dyn VyreBackend) {
    let case = "float_math";
    let builders: Vec<fn(Expr) -> Expr> = MATH.iter().map(|m| m.build).collect();
    let n = MATH_INPUTS.len() as u32;
    let program = unary_program(DataType::F32, DataType::F32, n, &builders);
    let out = words(
        &run(
            backend,
            case,
            &program,
            &[bytes_f32(&MATH_INPUTS)],
            &grid_for(n),
        )[0],
    );
    let mut report = Report::new(case);
    for (i, &x) in MATH_INPUTS.iter().enumerate() {
        for (k, m) in MATH.iter().enumerate() {
            let actual = f32::from_bits(out[i * MATH.len() + k]);
            let ok = operand_readings([x]).into_iter().any(|[x]| {
                let e = (m.exact)(f64::from(x));
                indeterminate(&[x], e) || (m.accept)(x, e, actual)
            });
            report.check(ok, || {
                format!(
                    "{}({x:e}) = {actual:e}; exact {:e}",
                    m.name,
                    (m.exact)(f64::from(x))
                )
            });
        }
    }
    report.finish();
}

/// True when `actual` is an accepted `fma(a, b, c)` for operands read as given: the fused result, or
/// `a * b + c` with the product rounded (and flushed, when it is subnormal) before the sum.
fn fma_reading_ok(a: f32, b: f32, c: f32, actual: f32) -> bool {
    let fused = f64::from(a) * f64::from(b) + f64::from(c);
    let product = a * b;
    indeterminate(&[a, b, c], fused)
        || f64::from(product).abs() > f64::from(f32::MAX)
        || within_ulps(actual, fused, 1.0)
        || [product, flushed(product)]
            .into_iter()
            .any(|p| within_ulps(actual, f64::from(p) + f64::from(c), 1.0))
}

/// `fma(a, b, c)`: the fused result, or `a * b + c` rounded twice; a subnormal operand or product may
/// be read as zero.
pub fn float_fma(backend: &dyn VyreBackend) {
    use vyre_foundation::ir::{BufferDecl, Node, Program};
    let case = "float_fma";
    let triples: [(f32, f32, f32); 10] = [
        (1.0, 2.0, 3.0),
        (0.1, 10.0, -1.0),
        (1.0 + f32::EPSILON, 1.0 - f32::EPSILON, -1.0),
        (-2.5, 4.0, 0.5),
        (1e20, 1e-20, 0.0),
        (3.0, 7.0, -21.0),
        (1e30, 1e10, 1.0),
        (0.0, f32::INFINITY, 1.0),
        // A subnormal operand: 1e-30 unflushed, 0 flushed.
        (SUBNORMAL, 1e10, 0.0),
        // A subnormal product and result, which may be flushed.
        (1e-20, 1e-20, 0.0),
    ];
    let n = triples.len() as u32;
    let at = |k: u32| {
        Expr::load(
            "abc",
            Expr::add(Expr::mul(Expr::gid_x(), Expr::u32(3)), Expr::u32(k)),
        )
    };
    let program = Program::wrapped(
        vec![
            BufferDecl::read("abc", 0, DataType::F32).with_count(n * 3),
            BufferDecl::output("out", 1, DataType::F32).with_count(n),
        ],
        [64, 1, 1],
        vec![Node::if_then(
            Expr::lt(Expr::gid_x(), Expr::u32(n)),
            vec![Node::store(
                "out",
                Expr::gid_x(),
                Expr::fma(at(0), at(1), at(2)),
            )],
        )],
    );
    let input: Vec<f32> = triples.iter().flat_map(|&(a, b, c)| [a, b, c]).collect();
    let out = words(&run(backend, case, &program, &[bytes_f32(&input)], &grid_for(n))[0]);
    let mut report = Report::new(case);
    for (i, &(a, b, c)) in triples.iter().enumerate() {
        let actual = f32::from_bits(out[i]);
        let fused = f64::from(a) * f64::from(b) + f64::from(c);
        let unfused = f64::from(a * b) + f64::from(c);
        let ok = operand_readings([a, b, c])
            .into_iter()
            .any(|[x, y, z]| fma_reading_ok(x, y, z, actual));
        report.check(ok, || {
            format!("fma({a:e}, {b:e}, {c:e}) = {actual:e}; fused {fused:e}, unfused {unfused:e}")
        });
    }
    report.finish();
}

/// `rem` on `f32`: `x - y * trunc(x / y)`, with the sign of the dividend, on operands where that
/// result is exact.
pub fn float_remainder(backend: &dyn VyreBackend) {
    let case = "float_remainder";
    let pairs: [(f32, f32); 8] = [
        (7.5, 2.0),
        (-7.5, 2.0),
        (7.5, -2.0),
        (-7.5, -2.0),
        (1.0, 0.5),
        (5.25, 1.25),
        (0.75, 4.0),
        (-3.0, 3.0),
    ];
    let n = pairs.len() as u32;
    let program = pair_program(DataType::F32, DataType::F32, n, &[Expr::rem]);
    let input: Vec<f32> = pairs.iter().flat_map(|&(a, b)| [a, b]).collect();
    let out = words(&run(backend, case, &program, &[bytes_f32(&input)], &grid_for(n))[0]);
    let mut report = Report::new(case);
    for (i, &(a, b)) in pairs.iter().enumerate() {
        let (x, y) = (f64::from(a), f64::from(b));
        let exact = x - y * (x / y).trunc();
        let actual = f32::from_bits(out[i]);
        report.check(within_ulps(actual, exact, 1.0), || {
            format!("rem({a:e}, {b:e}) = {actual:e}; exact {exact:e}")
        });
    }
    report.finish();
}
