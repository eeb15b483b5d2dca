//! The batch mode: any backend's `dispatch`, done as one item of a `dispatch_batch`, so the
//! fuzzer and the catalogue check the coalesced and packed launches (many items' slices in one
//! launch) against plain `dispatch` and the reference.
//!
//! [`Batched`] wraps a backend. Its `dispatch` first makes `dispatch`'s own checks (so bad input
//! gets exactly `dispatch`'s errors), then runs `dispatch_batch` over [`NEIGHBOURS`] items and
//! returns the middle one's outputs. Its neighbours have inputs of the same lengths (so a backend
//! that packs equal items does) holding the same elements in another order: each input rotated by
//! the item's distance from the middle, in whole elements. An item that writes past its own slice
//! into the next one's then changes what the next one returns, so the middle item's outputs show a
//! write from the item before it, whatever order the invocations ran in. The values stay the
//! case's own: bytes changed at random would give the catalogue's data-dependent loops billions of
//! iterations in the neighbours, and on lavapipe a neighbour past the loop cap cuts the loops of
//! the middle item's invocations that share its SIMD vector (SEMANTICS.md section 2).
//! `dispatch_batch` must accept whatever `dispatch` accepts: an `Unsupported` from it is the
//! case's result, not a reason to fall back to `dispatch` (the wgpu backend once refused every
//! program with an f16, u64 or i64 buffer here, and a fallback hid it).

use vyre_driver::{BackendError, Capabilities, DispatchConfig, VyreBackend};
use vyre_foundation::ir::Program;

/// Items per batch: the case in the middle, a neighbour on each side.
pub const NEIGHBOURS: usize = 3;

/// The item of the batch whose outputs [`Batched`] returns.
const MIDDLE: usize = NEIGHBOURS / 2;

/// A backend whose `dispatch` goes through its `dispatch_batch` (see the module docs).
#[derive(Debug)]
pub struct Batched<B> {
    inner: B,
    id: String,
}

impl<B: VyreBackend> Batched<B> {
    /// `inner`, dispatching each program as the middle item of a batch. Its id is the inner id
    /// with `+batch` appended.
    pub fn new(inner: B) -> Self {
        let id = format!("{}+batch", inner.id());
        Self { inner, id }
    }

    /// The wrapped backend.
    pub fn inner(&self) -> &B {
        &self.inner
    }
}

/// Item `k`'s inputs: each of `inputs` rotated left by `k - MIDDLE` elements (right for a negative
/// distance), an input's elements being `sizes[i]` bytes (the middle item's are `inputs`
/// themselves).
fn item_inputs(inputs: &[Vec<u8>], sizes: &[usize], k: usize) -> Vec<Vec<u8>> {
    inputs
        .iter()
        .zip(sizes.iter().copied().chain(std::iter::repeat(1)))
        .map(|(input, size)| {
            let mut item = input.clone();
            let elements = item.len() / size.max(1);
            if elements > 1 && item.len().is_multiple_of(size.max(1)) {
                let shift = (k + elements - MIDDLE % elements) % elements * size.max(1);
                item.rotate_left(shift);
            }
            item
        })
        .collect()
}

impl<B: VyreBackend> VyreBackend for Batched<B> {
    fn id(&self) -> &str {
        &self.id
    }

    fn capabilities(&self) -> Capabilities {
        self.inner.capabilities()
    }

    fn dispatch(
        &self,
        program: &Program,
        inputs: &[Vec<u8>],
        config: &DispatchConfig,
    ) -> Result<Vec<Vec<u8>>, BackendError> {
        // The plain checks first, so bad input gets exactly `dispatch`'s errors.
        vyre_driver::prepare(program, inputs, config)?;
        // Element sizes of the inputs, in order (one input per buffer that takes one).
        let sizes: Vec<usize> = program
            .buffers
            .iter()
            .filter(|b| b.access.takes_input())
            .map(|b| b.element.size_bytes())
            .collect();
        let items: Vec<Vec<Vec<u8>>> = (0..NEIGHBOURS)
            .map(|k| item_inputs(inputs, &sizes, k))
            .collect();
        match self.inner.dispatch_batch(program, &items, config) {
            Ok(mut outputs) if outputs.len() == NEIGHBOURS => Ok(outputs.swap_remove(MIDDLE)),
            Ok(outputs) => Err(BackendError::new(format!(
                "dispatch_batch returned {} results for {NEIGHBOURS} items. Fix: return one result per item, in order.",
                outputs.len()
            ))),
            Err(e) => Err(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{MIDDLE, NEIGHBOURS, item_inputs};

    #[test]
    fn the_middle_item_is_the_case_and_its_neighbours_hold_its_elements_rotated() {
        let words: Vec<u8> = [1u32, 2, 3, 4]
            .iter()
            .flat_map(|w| w.to_le_bytes())
            .collect();
        let halves = vec![7u8, 0, 8, 0, 9, 0];
        let inputs = vec![words.clone(), halves.clone(), vec![5u8; 4]];
        let sizes = [4, 2, 4];
        assert_eq!(item_inputs(&inputs, &sizes, MIDDLE), inputs);
        let before = item_inputs(&inputs, &sizes, MIDDLE - 1);
        let after = item_inputs(&inputs, &sizes, MIDDLE + 1);
        let word = |v: &[u8], i: usize| {
            u32::from_le_bytes([v[4 * i], v[4 * i + 1], v[4 * i + 2], v[4 * i + 3]])
        };
        assert_eq!(
            (0..4).map(|i| word(&before[0], i)).collect::<Vec<_>>(),
            [4, 1, 2, 3]
        );
        assert_eq!(
            (0..4).map(|i| word(&after[0], i)).collect::<Vec<_>>(),
            [2, 3, 4, 1]
        );
        // Rotated in whole 2-byte elements.
        assert_eq!(after[1], [8, 0, 9, 0, 7, 0]);
        // One element: nothing to rotate.
        assert_eq!(after[2], [5u8; 4]);
        assert_eq!(NEIGHBOURS, 3);
    }
}
