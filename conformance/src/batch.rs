//! The batch mode: any backend's `dispatch`, done as one item of a `dispatch_batch`, so the
//! fuzzer and the catalogue check the coalesced and packed launches (many items' slices in one
//! launch) against plain `dispatch` and the reference.
//!
//! [`Batched`] wraps a backend. Its `dispatch` first makes `dispatch`'s own checks (so bad input
//! gets exactly `dispatch`'s errors), then runs `dispatch_batch` over [`NEIGHBOURS`] items and
//! returns the middle one's outputs. Its neighbours have inputs of the same lengths (so a backend
//! that packs equal items does) with different bytes: each byte of the case's inputs xored with
//! the item's number times `0x5b`. An item that writes past its own slice into the next one's then
//! changes what the next one returns, so the middle item's outputs show a write from the item
//! before it, whatever order the invocations ran in. A backend that cannot batch the program
//! (`Unsupported`: the wgpu backend's coalesced launches hold 32-bit words only) runs it with
//! plain `dispatch`.

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

/// Item `k`'s inputs: `inputs` with every byte xored with `k * 0x5b` (the middle item's are
/// `inputs` themselves).
fn item_inputs(inputs: &[Vec<u8>], k: usize) -> Vec<Vec<u8>> {
    if k == MIDDLE {
        return inputs.to_vec();
    }
    let mask = (k as u8).wrapping_add(1).wrapping_mul(0x5b);
    inputs
        .iter()
        .map(|input| input.iter().map(|byte| byte ^ mask).collect())
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
        let items: Vec<Vec<Vec<u8>>> = (0..NEIGHBOURS).map(|k| item_inputs(inputs, k)).collect();
        match self.inner.dispatch_batch(program, &items, config) {
            Ok(mut outputs) if outputs.len() == NEIGHBOURS => Ok(outputs.swap_remove(MIDDLE)),
            Ok(outputs) => Err(BackendError::new(format!(
                "dispatch_batch returned {} results for {NEIGHBOURS} items. Fix: return one result per item, in order.",
                outputs.len()
            ))),
            Err(BackendError::Unsupported(_)) => self.inner.dispatch(program, inputs, config),
            Err(e) => Err(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{MIDDLE, NEIGHBOURS, item_inputs};

    #[test]
    fn the_middle_item_is_the_case_and_its_neighbours_differ_in_every_byte() {
        let inputs = vec![vec![0u8, 1, 2, 0xff], vec![7u8; 8]];
        for k in 0..NEIGHBOURS {
            let item = item_inputs(&inputs, k);
            assert_eq!(
                item.iter().map(Vec::len).collect::<Vec<_>>(),
                [4, 8],
                "same lengths"
            );
            if k == MIDDLE {
                assert_eq!(item, inputs);
            } else {
                for (a, b) in item.iter().zip(&inputs) {
                    assert!(a.iter().zip(b).all(|(x, y)| x != y), "item {k}: {a:?}");
                }
            }
        }
    }
}
