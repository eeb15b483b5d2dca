//! The launch-size rules on sizes no device here can bind: a device with no byte limit, where
//! only the u32 indices of the shader bound a launch.

use vyre_driver::{BackendError, DispatchPlan, ResolvedBuffer};
use vyre_foundation::ir::{BufferDecl, DataType, Program};

use super::batch::Strided;
use super::layout::ItemLayout;
use super::packed::packed_chunk;
use super::plan::{Limits, Plans, chunk_end};
use crate::lower::{BindingKind, LoweredBinding};

fn program() -> Program {
    Program::new(
        vec![
            BufferDecl::read("input", 0, DataType::U32),
            BufferDecl::output("out", 1, DataType::U32).with_count(1),
            BufferDecl::workgroup("scratch", 4, DataType::U32),
        ],
        [1, 1, 1],
        vec![],
    )
}

fn bindings() -> Vec<LoweredBinding> {
    vec![
        LoweredBinding {
            buffer_index: 0,
            binding: 0,
            kind: BindingKind::StorageReadOnly,
            element_bytes: 4,
            rows: false,
        },
        LoweredBinding {
            buffer_index: 1,
            binding: 1,
            kind: BindingKind::StorageReadWrite,
            element_bytes: 4,
            rows: false,
        },
    ]
}

/// An item whose input has `elements` elements.
fn item(elements: u64) -> DispatchPlan {
    DispatchPlan {
        buffers: vec![
            ResolvedBuffer {
                element_count: elements,
                input: Some(0),
            },
            ResolvedBuffer {
                element_count: 1,
                input: None,
            },
            ResolvedBuffer {
                element_count: 4,
                input: None,
            },
        ],
        grid: [1, 1, 1],
    }
}

fn each(elements: &[u64]) -> Plans {
    Plans::Each(elements.iter().map(|&n| item(n)).collect())
}

const NO_BYTE_LIMIT: Limits = Limits {
    binding: u64::MAX,
    max_dim: 65535,
};

fn ends(plans: &Plans) -> Vec<usize> {
    let (program, bindings) = (program(), bindings());
    let mut ends = Vec::new();
    let mut start = 0;
    while start < plans.len() {
        start = chunk_end(&program, &bindings, plans, start, NO_BYTE_LIMIT).expect("fits");
        ends.push(start);
    }
    ends
}

#[test]
fn a_launch_holds_exactly_2_pow_32_elements_of_a_binding_and_no_more() {
    let half = 1 << 31;
    assert_eq!(ends(&each(&[half, half, 1])), vec![2, 3]);
    assert_eq!(ends(&each(&[half, half - 1, 1])), vec![3]);
    let max = u64::from(u32::MAX);
    assert_eq!(ends(&each(&[max, max])), vec![1, 2]);
    assert_eq!(ends(&each(&[max, 1, 1])), vec![2, 3]);
}

#[test]
fn an_item_whose_size_does_not_fit_a_u64_is_a_limit_exceeded() {
    for elements in [u64::MAX, 1 << 62, (1 << 32) + 1] {
        let e = chunk_end(
            &program(),
            &bindings(),
            &each(&[elements]),
            0,
            NO_BYTE_LIMIT,
        )
        .expect_err("too large");
        assert!(matches!(e, BackendError::LimitExceeded(_)), "{e}");
    }
}

#[test]
fn item_offsets_and_lengths_are_u32_words_up_to_2_pow_32_elements() {
    let max = u64::from(u32::MAX);
    let layout = ItemLayout::new(&program(), &each(&[max, 1]), 0..2).expect("2^32 elements");
    assert_eq!(layout.totals, vec![1 << 32, 2, 0]);
    // (offset, count) per item and buffer; workgroup memory has no slice.
    assert_eq!(
        layout.table,
        vec![0, u32::MAX, 0, 1, 0, 4, u32::MAX, 1, 1, 1, 0, 4]
    );
    assert_eq!(
        layout.slice(1, 0),
        (usize::try_from(max * 4).unwrap_or(0), 1)
    );
}

#[test]
fn an_item_offset_or_end_past_2_pow_32_elements_is_a_limit_exceeded_not_truncated() {
    // Truncated to u32, item 2's offset (2^32) would be 0: it would read and write item 0's data.
    let half = 1 << 31;
    for elements in [
        vec![half, half, 1],
        vec![u64::from(u32::MAX), 2],
        vec![1 << 32],
    ] {
        let n = elements.len();
        let e = ItemLayout::new(&program(), &each(&elements), 0..n).expect_err("past u32");
        assert!(
            matches!(e, BackendError::LimitExceeded(_)),
            "{elements:?}: {e}"
        );
    }
}

#[test]
fn packed_launches_keep_item_offsets_within_2_pow_32_elements() {
    // `item * length` is computed in u32 by the shader.
    for (elements, per_launch) in [(1u64 << 31, 2), (u64::from(u32::MAX), 1), (1, 1 << 31)] {
        let plan = item(elements);
        assert_eq!(
            packed_chunk(&bindings(), &plan, 1, u64::MAX),
            per_launch,
            "{elements}"
        );
    }
}

#[test]
fn a_packed_readback_slice_that_would_wrap_is_empty() {
    let bytes = [7u8; 16];
    let strided = Strided {
        bytes: &bytes,
        stride: usize::MAX / 2 + 1,
        readback: 0..4,
    };
    assert_eq!(strided.item(0), &bytes[..4]);
    assert!(strided.item(2).is_empty());
}
