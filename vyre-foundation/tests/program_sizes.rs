//! Size arithmetic on programs and buffers at the 2^32 and 2^64 boundaries, where unchecked
//! arithmetic wraps in release builds and panics in debug builds.

use vyre_foundation::ir::{BufferDecl, DataType, Program};

fn with_workgroup(size: [u32; 3]) -> Program {
    Program::new(vec![], size, vec![])
}

#[test]
fn invocations_per_workgroup_is_exact_past_2_pow_32() {
    let u32_max = u64::from(u32::MAX);
    for (size, invocations) in [
        ([1, 1, 1], 1),
        ([16, 16, 4], 1024),
        ([1 << 16, 1 << 16, 1], 1 << 32),
        ([1 << 16, 1 << 16, 2], 1 << 33),
        ([u32::MAX, 1, 1], u32_max),
        ([u32::MAX, u32::MAX, 1], u32_max * u32_max),
        ([1 << 22, 1 << 21, (1 << 21) - 1], u64::MAX - (1 << 43) + 1),
    ] {
        assert_eq!(
            with_workgroup(size).invocations_per_workgroup(),
            Some(invocations),
            "{size:?}"
        );
    }
}

#[test]
fn invocations_per_workgroup_is_none_from_2_pow_64() {
    for size in [
        [1 << 22, 1 << 21, 1 << 21],
        [1 << 31, 1 << 31, 4],
        [u32::MAX, u32::MAX, 2],
        [u32::MAX; 3],
    ] {
        assert_eq!(
            with_workgroup(size).invocations_per_workgroup(),
            None,
            "{size:?}"
        );
    }
}

#[test]
fn invocations_per_workgroup_of_a_zero_dimension_is_zero() {
    // A zero factor makes the product 0 even after a large partial product.
    assert_eq!(
        with_workgroup([u32::MAX, u32::MAX, 0]).invocations_per_workgroup(),
        Some(0)
    );
}

#[test]
fn declared_bytes_of_the_largest_count_pass_2_pow_32() {
    let decl = BufferDecl::output("o", 0, DataType::U32).with_count(u32::MAX);
    assert_eq!(decl.declared_bytes(), Some(u64::from(u32::MAX) * 4));
    let decl = BufferDecl::output("o", 0, DataType::F32).with_count(1 << 30);
    assert_eq!(decl.declared_bytes(), Some(1 << 32));
}
