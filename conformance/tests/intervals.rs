//! The float acceptance logic itself: what each rule of the accuracy table accepts and rejects.

use vyre_conformance::catalogue::accuracy;
use vyre_conformance::catalogue::interval::{Acceptance, f32_ulp};
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
