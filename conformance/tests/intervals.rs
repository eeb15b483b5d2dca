//! The float acceptance logic itself: what each rule of the accuracy table accepts and rejects.

use vyre_conformance::catalogue::accuracy;
use vyre_conformance::catalogue::catalogue;
use vyre_conformance::catalogue::interval::{
    Acceptance, f32_ulp, operand_readings, over_flushed_operands,
};
use vyre_foundation::ir::{BinOp, UnOp};

/// `x` moved `steps` f32 values up (negative: down).
fn ulps_away(x: f32, steps: i32) -> f32 {
    let mut v = x;
    for _ in 0..steps.unsigned_abs() {
        v = if steps > 0 {
            v.next_up()
        } else {
            v.next_down()
        };
    }
    v
}

fn accepts(acc: &Acceptance, v: f32) -> bool {
    acc.accepts(v.to_bits())
}

#[test]
fn add_with_exact_result_accepts_only_it() {
    let acc = accuracy::binary(BinOp::Add, 1.0, 2.0).unwrap();
    assert!(accepts(&acc, 3.0));
    assert!(!accepts(&acc, ulps_away(3.0, 1)));
    assert!(!accepts(&acc, ulps_away(3.0, -1)));
}

#[test]
fn add_with_inexact_result_accepts_both_neighbours_and_rejects_two_ulps_off() {
    // 1 + 2^-25 lies strictly between 1.0 and the next f32.
    let tiny = 2f32.powi(-25);
    let acc = accuracy::binary(BinOp::Add, 1.0, tiny).unwrap();
    assert!(accepts(&acc, 1.0));
    assert!(accepts(&acc, ulps_away(1.0, 1)));
    assert!(!accepts(&acc, ulps_away(1.0, 2)));
    assert!(!accepts(&acc, ulps_away(1.0, -1)));
    // 0.1 + 0.2 (as f32 values): the f32 on either side of the exact sum, nothing further out.
    let acc = accuracy::binary(BinOp::Add, 0.1, 0.2).unwrap();
    let exact = f64::from(0.1f32) + f64::from(0.2f32);
    let nearest = exact as f32;
    let (below, above) = if f64::from(nearest) > exact {
        (nearest.next_down(), nearest)
    } else {
        (nearest, nearest.next_up())
    };
    assert!(accepts(&acc, below) && accepts(&acc, above));
    assert!(!accepts(&acc, below.next_down()));
    assert!(!accepts(&acc, above.next_up()));
}

#[test]
fn add_whose_f64_sum_is_rounded_still_gets_the_right_side() {
    // 2^30 + 2^-100: the f64 sum rounds to 2^30 exactly, the true sum is just above it.
    let (a, b) = (2f32.powi(30), 2f32.powi(-100));
    let acc = accuracy::binary(BinOp::Add, a, b).unwrap();
    assert!(accepts(&acc, a));
    assert!(accepts(&acc, a.next_up()));
    assert!(!accepts(&acc, a.next_down()));
    let acc = accuracy::binary(BinOp::Sub, a, b).unwrap();
    assert!(accepts(&acc, a));
    assert!(accepts(&acc, a.next_down()));
    assert!(!accepts(&acc, a.next_up()));
}

#[test]
fn four_ulps_off_an_add_is_rejected() {
    let acc = accuracy::binary(BinOp::Add, 1.5, 2.25).unwrap();
    assert!(accepts(&acc, 3.75));
    assert!(!accepts(&acc, ulps_away(3.75, 4)));
    assert!(!accepts(&acc, ulps_away(3.75, -4)));
}

#[test]
fn sign_of_zero_is_ignored() {
    let acc = accuracy::binary(BinOp::Add, 1.0, -1.0).unwrap();
    assert!(accepts(&acc, 0.0));
    assert!(accepts(&acc, -0.0));
}

#[test]
fn subnormal_results_accept_zero_and_subnormal_inputs_may_be_flushed() {
    let tiny = f32::MIN_POSITIVE / 4.0;
    let acc = accuracy::binary(BinOp::Mul, tiny, 1.0).unwrap();
    assert!(accepts(&acc, tiny));
    assert!(accepts(&acc, 0.0));
    assert!(!accepts(&acc, f32::MIN_POSITIVE));
    // Flushing the input 1e-40 to zero makes 1e-40 + 1 exactly 1; both readings are accepted.
    let acc = accuracy::binary(BinOp::Add, 1.0e-40, 1.0).unwrap();
    assert!(accepts(&acc, 1.0));
    // A comparison whose answer depends on flushing accepts both answers.
    let acc = accuracy::binary(BinOp::Gt, 1.0e-40, 0.0).unwrap();
    assert!(acc.accepts(0) && acc.accepts(1));
}

#[test]
fn overflow_and_non_finite_inputs_are_indeterminate() {
    assert_eq!(
        accuracy::binary(BinOp::Mul, f32::MAX, 2.0),
        Some(Acceptance::Any)
    );
    assert_eq!(
        accuracy::binary(BinOp::Add, f32::INFINITY, 1.0),
        Some(Acceptance::Any)
    );
    assert_eq!(accuracy::unary(UnOp::Sqrt, -1.0), Some(Acceptance::Any));
    assert_eq!(accuracy::unary(UnOp::Log, 0.0), Some(Acceptance::Any));
    assert_eq!(accuracy::unary(UnOp::Sin, 10.0), Some(Acceptance::Any));
}

#[test]
fn comparisons_with_nan_are_false_even_ne() {
    for op in [BinOp::Eq, BinOp::Ne, BinOp::Lt, BinOp::Ge] {
        let acc = accuracy::binary(op, f32::NAN, 1.0).unwrap();
        assert_eq!(acc, Acceptance::word(0), "{op:?}");
    }
}

#[test]
fn min_max_with_nan_accept_the_other_operand_or_nan() {
    let acc = accuracy::binary(BinOp::Min, f32::NAN, 2.0).unwrap();
    assert!(accepts(&acc, 2.0));
    assert!(accepts(&acc, f32::NAN));
    assert!(!accepts(&acc, 0.0));
}

#[test]
fn division_accepts_two_and_a_half_ulps() {
    let acc = accuracy::binary(BinOp::Div, 1.0, 3.0).unwrap();
    let q = 1.0f32 / 3.0;
    assert!(accepts(&acc, ulps_away(q, 2)));
    assert!(accepts(&acc, ulps_away(q, -2)));
    assert!(!accepts(&acc, ulps_away(q, 4)));
    assert!(!accepts(&acc, ulps_away(q, -4)));
    // A divisor past 2^126 is outside the accurate range.
    assert_eq!(
        accuracy::binary(BinOp::Div, 1.0, 1.0e38),
        Some(Acceptance::Any)
    );
}

#[test]
fn exp_window_grows_with_the_argument() {
    let narrow = accuracy::unary(UnOp::Exp, 0.5).unwrap();
    let e = 0.5f32.exp();
    assert!(accepts(&narrow, ulps_away(e, 3)));
    assert!(!accepts(&narrow, ulps_away(e, 6)));
    // At x = 10 the window is 3 + 20 = 23 ULP.
    let wide = accuracy::unary(UnOp::Exp, 10.0).unwrap();
    let e = 10f32.exp();
    assert!(accepts(&wide, ulps_away(e, 20)));
    assert!(!accepts(&wide, ulps_away(e, 30)));
}

#[test]
fn log_near_one_is_absolute_and_sin_is_absolute_on_minus_pi_pi() {
    let acc = accuracy::unary(UnOp::Log, 1.0).unwrap();
    assert!(accepts(&acc, 2f32.powi(-22)));
    assert!(!accepts(&acc, 2f32.powi(-20)));
    let acc = accuracy::unary(UnOp::Sin, 0.0).unwrap();
    assert!(accepts(&acc, 4.0e-4));
    assert!(!accepts(&acc, 1.0e-3));
}

#[test]
fn inverse_sqrt_is_two_ulps_and_sqrt_three() {
    let acc = accuracy::unary(UnOp::InverseSqrt, 2.0).unwrap();
    let r = 1.0 / 2f32.sqrt();
    assert!(accepts(&acc, ulps_away(r, 2)));
    assert!(!accepts(&acc, ulps_away(r, 4)));
    let acc = accuracy::unary(UnOp::Sqrt, 2.0).unwrap();
    assert!(accepts(&acc, ulps_away(2f32.sqrt(), 3)));
    assert!(!accepts(&acc, ulps_away(2f32.sqrt(), 5)));
}

#[test]
fn fma_accepts_fused_and_unfused_results() {
    // a * b = 1 - 2^-46 exactly; fused with c = -1 gives -2^-46, unfused rounds the product to 1 first.
    let a = 1.0 + 2f32.powi(-23);
    let b = 1.0 - 2f32.powi(-23);
    let acc = accuracy::fma(a, b, -1.0);
    assert!(accepts(&acc, -(2f32.powi(-46))));
    assert!(accepts(&acc, 0.0));
    assert!(!accepts(&acc, 1.0));
}

#[test]
fn round_is_ties_to_even() {
    let acc = accuracy::unary(UnOp::Round, 2.5).unwrap();
    assert!(accepts(&acc, 2.0));
    assert!(!accepts(&acc, 3.0));
}

#[test]
fn ulp_is_the_f32_spacing() {
    assert_eq!(f32_ulp(1.0), f64::from(f32::EPSILON));
    assert_eq!(f32_ulp(1.5), f64::from(f32::EPSILON));
    assert_eq!(f32_ulp(1.0e-40), 2f64.powi(-149));
}

#[test]
fn each_subnormal_operand_is_read_as_itself_or_as_zero_of_its_sign() {
    let tiny = 1.0e-40f32;
    assert_eq!(operand_readings([1.0, 2.0]), vec![[1.0, 2.0]]);
    let readings = operand_readings([tiny, 1.0, -tiny]);
    assert_eq!(readings.len(), 4);
    assert_eq!(readings[0], [tiny, 1.0, -tiny]);
    assert!(readings.contains(&[0.0, 1.0, -tiny]));
    assert!(readings.contains(&[tiny, 1.0, -0.0]));
    assert!(
        readings
            .iter()
            .any(|r| r[2].to_bits() == (-0.0f32).to_bits())
    );
    // Infinities, NaN, zeros and the smallest normal are read as themselves.
    let edges = [f32::INFINITY, f32::NAN, -0.0, f32::MIN_POSITIVE];
    assert_eq!(operand_readings([edges[0]]).len(), 1);
    assert_eq!(operand_readings([edges[1], edges[2], edges[3]]).len(), 1);
    // The combinator joins one rule over every reading.
    let acc = over_flushed_operands([tiny, tiny], |[x, y]| Acceptance::word(u32::from(x == y)));
    assert!(acc.accepts(0) && acc.accepts(1));
}

#[test]
fn min_max_with_nan_accept_the_other_operand_flushed_but_no_flushed_normal() {
    // NVIDIA H200: min(1e-40, NaN) = 0.0, since the subnormal operand reads as zero.
    for (op, a, b) in [
        (BinOp::Min, 1.0e-40, f32::NAN),
        (BinOp::Min, f32::NAN, 1.0e-40),
        (BinOp::Max, 1.0e-40, f32::NAN),
        (BinOp::Max, f32::NAN, 1.0e-40),
    ] {
        let acc = accuracy::binary(op, a, b).unwrap();
        for ok in [1.0e-40, 0.0, -0.0, f32::NAN] {
            assert!(accepts(&acc, ok), "{op:?}({a}, {b}) must accept {ok}");
        }
        for bad in [1.0e-39, -1.0e-40, f32::MIN_POSITIVE, 1.0] {
            assert!(!accepts(&acc, bad), "{op:?}({a}, {b}) must reject {bad}");
        }
    }
    let acc = accuracy::binary(BinOp::Min, f32::MIN_POSITIVE, f32::NAN).unwrap();
    assert!(accepts(&acc, f32::MIN_POSITIVE) && accepts(&acc, f32::NAN));
    assert!(!accepts(&acc, 0.0), "a normal operand may not be flushed");
}

#[test]
fn flushing_an_operand_admits_both_readings_and_nothing_between() {
    // 1e-40 * 1e30 is about 1e-10 unflushed and 0 flushed; 5e-11 is neither.
    let acc = accuracy::binary(BinOp::Mul, 1.0e-40, 1.0e30).unwrap();
    let exact = (f64::from(1.0e-40f32) * 1.0e30) as f32;
    assert!(accepts(&acc, exact) && accepts(&acc, 0.0));
    assert!(!accepts(&acc, 5.0e-11));
    assert!(!accepts(&acc, f32::NAN), "no NaN where none is allowed");
    // fma reads its operands the same way.
    let acc = accuracy::fma(1.0e-40, 1.0e10, 0.0);
    assert!(accepts(&acc, 0.0));
    assert!(accepts(&acc, (f64::from(1.0e-40f32) * 1.0e10) as f32));
    assert!(!accepts(&acc, 5.0e-31));
    // A comparison reads its operands the same way.
    let acc = accuracy::binary(BinOp::Lt, 0.0, 1.0e-40).unwrap();
    assert!(acc.accepts(0) && acc.accepts(1));
}

#[test]
fn a_subnormal_result_admits_zero_but_no_other_subnormal_and_a_normal_one_admits_neither() {
    // An odd subnormal halved lies between two subnormals: those two, or zero, nothing smaller.
    let odd = f32::from_bits(0x0001_0001);
    let acc = accuracy::binary(BinOp::Mul, odd, 0.5).unwrap();
    let (lo, hi) = (f32::from_bits(0x8000), f32::from_bits(0x8001));
    assert!(accepts(&acc, lo) && accepts(&acc, hi) && accepts(&acc, 0.0));
    assert!(!accepts(&acc, f32::from_bits(1)));
    assert!(!accepts(&acc, f32::from_bits(0x7fff)));
    assert!(!accepts(&acc, f32::from_bits(0x8002)));
    // The smallest normal, exact, may not become zero.
    let acc = accuracy::binary(BinOp::Mul, f32::MIN_POSITIVE, 1.0).unwrap();
    assert!(accepts(&acc, f32::MIN_POSITIVE));
    assert!(!accepts(&acc, 0.0));
    let acc = accuracy::unary(UnOp::Abs, -f32::MIN_POSITIVE).unwrap();
    assert!(!accepts(&acc, 0.0));
    // A result just below the normal range, rounded up to it, may still be flushed.
    let acc = accuracy::binary(BinOp::Sub, f32::MIN_POSITIVE, 1.0e-45).unwrap();
    assert!(accepts(&acc, 0.0));
}

#[test]
fn moves_are_bit_exact_and_conversions_from_f32_are_operations() {
    let cases: Vec<_> = catalogue().into_iter().flat_map(|b| b.cases).collect();
    let case = |name: &str| {
        let found = cases.iter().find(|c| c.name == name);
        found
            .unwrap_or_else(|| panic!("no case {name}"))
            .expect
            .clone()
    };
    // Bitcasts, select and the identity cast keep every bit: no flush, no other zero.
    for name in [
        "bitcast.u32_to_f32(0x80000000)",
        "bitcast.u32_to_f32(0x1)",
        "bitcast.f32_to_f32(-0.0)",
        "cast.f32_to_f32(-0.0)",
        "cast.f32_to_f32(1e-40)",
        "cast.f32_to_f32(NaN)",
        "select.f32(false, 0x80000001, 3)",
    ] {
        let expect = case(name);
        assert_eq!(expect.accept, None, "{name} must be bit-exact");
        assert!(expect.oracle.is_some(), "{name}");
    }
    let moves = cases.iter().filter(|c| {
        ["bitcast.", "select.", "cast.f32_to_f32("]
            .iter()
            .any(|p| c.name.starts_with(p))
    });
    assert!(moves.clone().count() > 100);
    assert!(moves.clone().all(|c| c.expect.accept.is_none()));
    // A conversion reads a subnormal operand as itself or as zero.
    let to_bool = case("cast.f32_to_bool(1e-40)").accept.unwrap();
    assert!(to_bool.accepts(0) && to_bool.accepts(1));
    // An infinite or NaN value converted to an integer is indeterminate.
    for name in [
        "cast.f32_to_i32(inf)",
        "cast.f32_to_u32(-inf)",
        "cast.f32_to_i32(NaN)",
    ] {
        assert_eq!(case(name).accept, Some(Acceptance::Any), "{name}");
    }
    // A finite one saturates exactly.
    assert_eq!(
        case("cast.f32_to_i32(3000000000.0)").accept,
        Some(Acceptance::word(2_147_483_520))
    );
}
