//! The backend-neutral semantics suite.
//!
//! Each case is a function `fn(&dyn VyreBackend)` that builds a program (usually one per operator
//! family, with many edge cases batched into one input buffer), dispatches it, and checks the outputs
//! against expectations written by hand from `SEMANTICS.md`, never against another backend. A failing
//! case panics with its name, the operation and inputs, and the expected and actual values, listing
//! every mismatch at once.
//!
//! Integers and bools are checked to the bit. Floats are checked within the intervals of
//! `SEMANTICS.md` section 7 ([`ulp_error`] and friends): correctly rounded where the table says so,
//! the listed ULP or absolute bounds for division and the math functions, any value where an input is
//! infinite or NaN or the result overflows, flushing of subnormals allowed.
//!
//! [`backend_tests!`](crate::backend_tests) turns every case into a `#[test]`
//! `<backend>::semantics::<case>`, next to the catalogue and the reliability checks;
//! [`semantics_suite!`](crate::semantics_suite) instantiates these cases alone.
//!
//! Bad inputs, bad grids and invalid programs are rows of the one bad-input table of
//! [`reliability::bad_input`](crate::reliability::bad_input), run as `reliability::bad_input_table`.

mod atomics;
mod control;
mod convert;
mod exits;
mod float;
mod harness;
mod integer;
mod memory;
mod subgroup;
mod tolerance;
mod wide;
mod workgroup;

use vyre_driver::VyreBackend;

use crate::reliability::bad_input::{check_cases, grid_cases, input_cases};
use crate::reliability::invalid_program_cases;

pub use atomics::{atomic_contended_counters, atomic_each_op, atomic_signed_min_max};
pub use control::{early_return, loops, nested_ifs};
pub use convert::{bool_operators, cast_from_f32, cast_from_integers, select_values};
pub use exits::{atomic_statements, barrier_after_uniform_break, loop_exits};
pub use float::{float_arithmetic, float_comparisons, float_fma, float_math, float_remainder};
pub use integer::{integer_binary_i32, integer_binary_u32, integer_comparisons, integer_unary};
pub use memory::{
    multiple_inputs_and_outputs, out_of_bounds_loads, out_of_bounds_stores, output_byte_ranges,
    runtime_sized_buffers,
};
pub use subgroup::{subgroup_operations, subgroups_refused_without_the_feature};
pub use tolerance::{flushed, indeterminate, ulp_at, ulp_distance, ulp_error, within_ulps};
pub use wide::{
    atomic_64, cast_64, f16_exact_operations, integer_binary_64, integer_compare_and_unary_64,
};
pub use workgroup::{
    grid_in_y_and_z, workgroup_shape_4x4x4, workgroup_shape_8x8, workgroup_tree_reduction,
};

/// A semantics case: builds, dispatches and checks one program family; panics on a mismatch.
pub type Case = fn(&dyn VyreBackend);

/// Every case with its name, in the order the suite runs them.
pub const CASES: &[(&str, Case)] = crate::semantics_suite!(@with_cases @list);

/// The input rows of the bad-input table: wrong input counts and lengths are `InputMismatch`, and a
/// shorter input is zero-extended. `backend_tests!` runs them within `reliability::bad_input_table`;
/// this function keeps the name they had as a semantics case.
///
/// # Panics
///
/// When a row went wrong (a test assertion).
pub fn bad_inputs_are_input_mismatch(backend: &dyn VyreBackend) {
    check_cases(backend, "bad inputs", &input_cases());
}

/// The grid and invalid-program rows of the bad-input table: a grid with a zero dimension is
/// `InvalidConfig`, ids past `u32` are `LimitExceeded`, an invalid program is `InvalidProgram` naming
/// its rule. `backend_tests!` runs them within `reliability::bad_input_table`; this function keeps the
/// name they had as a semantics case.
///
/// # Panics
///
/// When a row went wrong (a test assertion).
pub fn bad_grid_and_program_are_rejected(backend: &dyn VyreBackend) {
    let mut cases = grid_cases();
    cases.extend(invalid_program_cases());
    check_cases(backend, "bad grids and programs", &cases);
}

/// Runs `case` on the backend `ctor` makes; `None` means the backend is unavailable and the ctor has
/// already said so (and failed if a GPU was required).
pub fn run_case<B: VyreBackend>(ctor: impl Fn() -> Option<B>, case: Case) {
    if let Some(backend) = ctor() {
        case(&backend);
    }
}

/// Instantiates every semantics case as a `#[test]` inside `mod $module`, for the backend that
/// `$ctor` (a `Fn() -> Option<B>` with `B: VyreBackend`) returns; `None` skips the test.
///
/// This is the semantics part of [`backend_tests!`](crate::backend_tests), which a backend's tests
/// should use instead: it adds the catalogue and the reliability checks (the bad-input table among
/// them) in the same one line.
///
/// ```
/// vyre_conformance::semantics_suite!(reference, || Some(vyre_conformance::ReferenceBackend::new()));
/// ```
#[macro_export]
macro_rules! semantics_suite {
    ($module:ident, $ctor:expr $(,)?) => {
        $crate::semantics_suite!(@with_cases @tests [$module, $ctor]);
    };
    (@with_cases $($then:tt)*) => {
        $crate::semantics_suite! {
            $($then)*
            integer_binary_u32
            integer_binary_i32
            integer_comparisons
            integer_unary
            float_arithmetic
            float_comparisons
            float_math
            float_fma
            float_remainder
            cast_from_f32
            cast_from_integers
            bool_operators
            select_values
            out_of_bounds_loads
            out_of_bounds_stores
            runtime_sized_buffers
            multiple_inputs_and_outputs
            output_byte_ranges
            loops
            nested_ifs
            early_return
            loop_exits
            barrier_after_uniform_break
            grid_in_y_and_z
            workgroup_shape_8x8
            workgroup_shape_4x4x4
            workgroup_tree_reduction
            atomic_each_op
            atomic_signed_min_max
            atomic_contended_counters
            atomic_statements
            integer_binary_64
            integer_compare_and_unary_64
            cast_64
            f16_exact_operations
            atomic_64
            subgroup_operations
            subgroups_refused_without_the_feature
        }
    };
    (@tests [$module:ident, $ctor:expr] $($case:ident)*) => {
        mod $module {
            #[allow(unused_imports)]
            use super::*;
            $(
                #[test]
                fn $case() {
                    $crate::semantics::run_case($ctor, $crate::semantics::$case);
                }
            )*
        }
    };
    (@list $($case:ident)*) => {
        &[$((stringify!($case), $crate::semantics::$case as $crate::semantics::Case)),*]
    };
}
