//! The shared input and grid rules every backend applies.

use vyre_driver::{BackendError, DispatchConfig, derive_grid, plan_dispatch};
use vyre_foundation::ir::{BufferDecl, DataType, Program};

fn program() -> Program {
    Program::wrapped(
        vec![
            BufferDecl::read("fixed", 0, DataType::U32).with_count(8),
            BufferDecl::output("out", 1, DataType::U32).with_count(300),
            BufferDecl::read_write("dynamic", 2, DataType::F32),
            BufferDecl::workgroup("scratch", 64, DataType::U32),
            BufferDecl::uniform("params", 3, DataType::U32).with_count(4),
        ],
        [64, 1, 1],
        vec![],
    )
}

#[test]
fn element_counts_and_input_indices_are_resolved() {
    let plan =
        plan_dispatch(&program(), &[32, 4000, 16], &DispatchConfig::default()).expect("valid");
    let counts: Vec<u64> = plan.buffers.iter().map(|b| b.element_count).collect();
    assert_eq!(counts, vec![8, 300, 1000, 64, 4]);
    let inputs: Vec<Option<usize>> = plan.buffers.iter().map(|b| b.input).collect();
    assert_eq!(inputs, vec![Some(0), None, Some(1), None, Some(2)]);
    // The largest bound buffer (1000 elements) over 64-wide workgroups; workgroup memory does not count.
    assert_eq!(plan.grid, [16, 1, 1]);
}

#[test]
fn shorter_inputs_are_accepted_and_keep_the_declared_count() {
    let plan = plan_dispatch(&program(), &[0, 4, 0], &DispatchConfig::default()).expect("valid");
    assert_eq!(plan.buffers[0].element_count, 8);
    assert_eq!(plan.buffers[4].element_count, 4);
}

#[test]
fn explicit_grid_wins() {
    let config = DispatchConfig::default().with_grid([2, 3, 4]);
    let plan = plan_dispatch(&program(), &[32, 4, 16], &config).expect("valid");
    assert_eq!(plan.grid, [2, 3, 4]);
    assert_eq!(plan.invocations(&program()), Some(2 * 3 * 4 * 64));
}

fn error(lens: &[usize], config: &DispatchConfig) -> BackendError {
    plan_dispatch(&program(), lens, config).expect_err("must be rejected")
}

#[test]
fn wrong_input_count_is_an_input_mismatch() {
    let e = error(&[32, 4], &DispatchConfig::default());
    assert!(matches!(e, BackendError::InputMismatch(_)), "{e}");
    assert!(
        e.to_string().contains("fixed, dynamic, params") && e.to_string().contains("Fix:"),
        "{e}"
    );
}

#[test]
fn partial_element_is_an_input_mismatch() {
    let e = error(&[30, 4, 16], &DispatchConfig::default());
    assert!(matches!(e, BackendError::InputMismatch(_)), "{e}");
}

#[test]
fn input_longer_than_declared_is_an_input_mismatch() {
    let e = error(&[36, 4, 16], &DispatchConfig::default());
    assert!(matches!(e, BackendError::InputMismatch(_)), "{e}");
}

#[test]
fn empty_runtime_sized_input_is_an_input_mismatch() {
    let e = error(&[32, 0, 16], &DispatchConfig::default());
    assert!(matches!(e, BackendError::InputMismatch(_)), "{e}");
}

#[test]
fn zero_grid_is_an_invalid_config() {
    let e = error(
        &[32, 4, 16],
        &DispatchConfig::default().with_grid([1, 0, 1]),
    );
    assert!(matches!(e, BackendError::InvalidConfig(_)), "{e}");
}

#[test]
fn grid_past_u32_ids_is_a_limit() {
    let e = error(
        &[32, 4, 16],
        &DispatchConfig::default().with_grid([u32::MAX, 1, 1]),
    );
    assert!(matches!(e, BackendError::LimitExceeded(_)), "{e}");
}

#[test]
fn derived_grid_is_at_least_one() {
    let p = Program::wrapped(vec![], [64, 1, 1], vec![]);
    assert_eq!(derive_grid(&p, &[]), [1, 1, 1]);
}

#[test]
fn every_error_message_ends_with_a_fix() {
    for e in [
        BackendError::new("plain"),
        BackendError::timeout("slow. Fix: raise the timeout."),
        BackendError::device_lost("gone"),
        BackendError::no_device("no adapter"),
    ] {
        assert!(e.to_string().contains("Fix:"), "{e}");
    }
    assert_eq!(BackendError::timeout("x").kind_name(), "Timeout");
    assert!(BackendError::device_lost("x").is_device_lost());
}

#[test]
fn a_device_that_never_existed_is_not_a_lost_one() {
    let e = BackendError::no_device("no adapter");
    assert!(
        !e.is_device_lost(),
        "recovery loops must not retry NoDevice"
    );
    assert_eq!(e.kind_name(), "NoDevice");
}
