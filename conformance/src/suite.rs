//! [`backend_tests!`](crate::backend_tests): the whole backend-neutral suite for one backend, as
//! `#[test]`s, and the functions its tests call.

// Public so that the macro can name the trait through `$crate` wherever it is expanded.
#[doc(hidden)]
pub use vyre_driver::VyreBackend;

use crate::catalogue::Area;
use crate::report::{CheckOptions, assert_report_passes, check_backend_with};

/// Runs `check` on `backend`; `None` means the backend is unavailable and its constructor has already
/// said so (or failed, where a GPU was required), so the test passes having printed why it skipped.
pub fn run_on<B: VyreBackend>(backend: Option<B>, check: impl FnOnce(&dyn VyreBackend)) {
    if let Some(backend) = backend {
        check(&backend);
    }
}

/// Runs the catalogue's cases of the area called `area` (see [`Area::name`]) on `backend`, with the
/// reference as the oracle, and panics naming every failure unless the area had cases and all passed.
///
/// # Panics
///
/// When `area` names no area, the area has no cases, or a case failed; that is its purpose (a test
/// assertion).
pub fn assert_area_conforms(backend: &dyn VyreBackend, area: &str) {
    let Some(area) = Area::from_name(area) else {
        panic!("`{area}` is no catalogue area (a bug in `backend_tests!`)");
    };
    let options = CheckOptions {
        areas: &[area],
        progress: None,
    };
    let report = check_backend_with(backend, &options);
    assert!(
        report.total() > 0,
        "the catalogue has no cases in area {area}, so `{}` was not checked there",
        backend.id()
    );
    eprintln!(
        "catalogue area {area} on {}: {} of {} cases passed ({} not supported on this device), {} dispatches, {} ms",
        backend.id(),
        report.passed(),
        report.total(),
        report.unsupported(),
        report.dispatches,
        report.elapsed_ms
    );
    assert_report_passes(&report);
}

/// The catalogue areas `backend_tests!` makes a test of, in its order.
/// The whole catalogue on `backend`; panics with the report's failures.
pub fn assert_conforms(backend: &dyn VyreBackend) {
    let options = CheckOptions {
        areas: &[],
        progress: None,
    };
    let report = check_backend_with(backend, &options);
    eprintln!(
        "catalogue on {}: {} of {} cases passed, {} dispatches, {} ms",
        backend.id(),
        report.passed(),
        report.total(),
        report.dispatches,
        report.elapsed_ms
    );
    assert!(
        report.total() > 0,
        "no catalogue case ran on `{}`",
        backend.id()
    );
    assert_report_passes(&report);
}

#[doc(hidden)]
pub const AREA_TESTS: &[&str] = crate::backend_tests!(@areas @names);

/// Instantiates the whole backend-neutral suite for one backend, as `#[test]`s in `mod $module`.
///
/// `$ctor` is a `Fn() -> Option<B>` with `B: VyreBackend`, called once per test: `None` means the
/// backend is unavailable, and the constructor prints why and the tests pass having run nothing.
/// A GPU backend's constructor should panic instead when `VYRE_REQUIRE_GPU=1` (the wgpu backend's
/// `testing::backend_or_skip` does), so that a GPU test can never pass without running. The tests are:
///
/// - `$module::semantics::<case>`: every case of [`semantics`](crate::semantics), checked against
///   expectations written by hand from `SEMANTICS.md`;
/// - `$module::catalogue::<area>`: one per catalogue [`Area`] (`integer`, `bits`, ... `multi_io`),
///   each asserting that the area had cases and that every one passed, naming the failures;
/// - `$module::reliability::{bad_input_table, isolation, load, timeout}`: the checks of
///   [`reliability`](crate::reliability), the bad-input table among them.
///
/// A backend of your own gets the same suite with one line in one of its test files:
///
/// ```
/// vyre_conformance::backend_tests!(reference, || Some(vyre_conformance::ReferenceBackend::new()));
/// # fn main() {}
/// ```
#[macro_export]
macro_rules! backend_tests {
    ($module:ident, $ctor:expr $(,)?) => {
        mod $module {
            #[allow(unused_imports)]
            use super::*;

            /// The backend under test, from the constructor the suite was instantiated with. Only
            /// `#[test]`s call it, so outside test builds (a doctest) it is unused.
            #[allow(dead_code)]
            fn backend() -> ::std::option::Option<impl $crate::suite::VyreBackend> {
                ($ctor)()
            }

            $crate::semantics_suite!(@with_cases @tests [semantics, super::backend]);

            $crate::backend_tests!(@areas @tests);

            mod reliability {
                #[test]
                fn bad_input_table() {
                    $crate::suite::run_on(super::backend(), $crate::reliability::check_table);
                }

                #[test]
                fn isolation() {
                    $crate::suite::run_on(super::backend(), |b| {
                        $crate::reliability::check_isolation(b);
                    });
                }

                #[test]
                fn load() {
                    $crate::suite::run_on(super::backend(), |b| {
                        $crate::reliability::check_threads(b);
                    });
                }

                #[test]
                fn timeout() {
                    $crate::suite::run_on(super::backend(), $crate::reliability::check_timeout);
                }
            }

            mod resident {
                #[test]
                fn buffers() {
                    $crate::suite::run_on(super::backend(), $crate::resident::check_buffers);
                }

                #[test]
                fn dispatch_resident() {
                    $crate::suite::run_on(super::backend(), $crate::resident::check_dispatch_resident);
                }

                #[test]
                fn output_tails() {
                    $crate::suite::run_on(super::backend(), $crate::resident::check_output_tails);
                }

                #[test]
                fn sequence() {
                    $crate::suite::run_on(super::backend(), $crate::resident::check_sequence);
                }

                #[test]
                fn errors() {
                    $crate::suite::run_on(super::backend(), |b| {
                        if let ::std::option::Option::Some(other) = super::backend() {
                            $crate::resident::check_errors(b, &other);
                        }
                    });
                }

                #[test]
                fn threads() {
                    $crate::suite::run_on(super::backend(), $crate::resident::check_threads);
                }

                /// The catalogue through resident buffers, both modes.
                #[test]
                fn catalogue() {
                    for mode in $crate::resident::ResidentMode::ALL {
                        if let ::std::option::Option::Some(b) = super::backend() {
                            let wrapped = $crate::resident::Resident::new(b, mode);
                            $crate::suite::assert_conforms(&wrapped);
                        }
                    }
                }

                /// The catalogue with each dispatch the middle item of a `dispatch_batch`
                /// (`batch::Batched`): the backend's coalesced launches against the reference.
                #[test]
                fn catalogue_batched() {
                    if let ::std::option::Option::Some(b) = super::backend() {
                        $crate::suite::assert_conforms(&$crate::batch::Batched::new(b));
                    }
                }
            }
        }
    };
    (@areas $($then:tt)*) => {
        $crate::backend_tests! {
            $($then)*
            integer
            bits
            compare
            cast
            float
            control
            loops
            workgroup
            atomics
            out_of_bounds
            grids
            runtime_sized
            multi_io
            subgroups
            private_arrays
            tiles
        }
    };
    (@tests $($area:ident)*) => {
        mod catalogue {
            $(
                #[test]
                fn $area() {
                    $crate::suite::run_on(super::backend(), |b| {
                        $crate::suite::assert_area_conforms(b, stringify!($area));
                    });
                }
            )*
        }
    };
    (@names $($area:ident)*) => {
        &[$(stringify!($area)),*]
    };
}

#[cfg(test)]
mod tests {
    use super::AREA_TESTS;
    use crate::catalogue::Area;

    #[test]
    fn the_macro_makes_a_test_of_every_area() {
        let names: Vec<&str> = Area::ALL.iter().map(|a| a.name()).collect();
        assert_eq!(AREA_TESTS, names.as_slice());
    }
}
