//! `Sequence`: vyre functions over one batch as one `dispatch_sequence` on resident buffers.
//!
//! A sequence has *slots*, one resident buffer each, typed by their vyre element type, and
//! *calls*, in order, each reading some slots and writing one. The caller uploads its columns
//! into the slots no call writes, the calls run as one `dispatch_sequence` (one submit on wgpu,
//! each step seeing the writes of the steps before it), and the caller reads back the slots it
//! wants. An intermediate result never leaves the device. A single function ([`crate::VyreUdf`])
//! is the sequence of one call; the plan node ([`crate::VyreExec`]) runs longer ones.
//!
//! Every dispatch is sized for a power-of-two capacity of rows (`kernel.rs` says why rows past
//! the batch cannot change it), and the buffers of a capacity are kept in a [`Pool`].

use std::sync::Arc;

use vyre::ir::{DataType, Program};
use vyre::{BackendError, DispatchConfig, Step, VyreBackend};

use crate::kernel::Kernel;
use crate::pool::Pool;

/// The smallest capacity a dispatch is sized for: batches shorter than this share one program.
const MIN_CAPACITY: u64 = 256;

/// One call of a sequence: a kernel, the slot of each argument, the slot it writes.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Call {
    pub(crate) kernel: Arc<Kernel>,
    pub(crate) args: Vec<usize>,
    pub(crate) out: usize,
}

/// Slots and calls (see the module docs).
#[derive(Debug, Default)]
pub(crate) struct Sequence {
    slots: Vec<DataType>,
    calls: Vec<Call>,
    pool: Pool,
}

impl Sequence {
    /// A new slot of `ty` elements; its index.
    pub(crate) fn slot(&mut self, ty: DataType) -> usize {
        self.slots.push(ty);
        self.slots.len() - 1
    }

    /// Appends a call of `kernel` over `args`, writing a new slot; that slot's index.
    pub(crate) fn call(&mut self, kernel: Arc<Kernel>, args: Vec<usize>) -> usize {
        let out = self.slot(kernel.output());
        self.calls.push(Call { kernel, args, out });
        out
    }

    /// The element type of `slot`.
    pub(crate) fn slot_type(&self, slot: usize) -> DataType {
        self.slots[slot]
    }

    /// The most rows one run holds on a device whose storage buffers hold `max_bytes`: every slot's
    /// buffer must fit, and every row index a `u32`.
    pub(crate) fn max_rows(&self, max_bytes: u64) -> u64 {
        let widest = self
            .slots
            .iter()
            .map(|t| t.size_bytes() as u64)
            .max()
            .unwrap_or(4);
        (max_bytes / widest).min(u64::from(u32::MAX))
    }

    /// Runs the calls over `rows` rows (`0 < rows <= max_rows`): writes each `(slot, bytes)` of
    /// `uploads`, dispatches every call in one sequence, and returns the first `rows` elements of
    /// each slot of `reads`, in order.
    pub(crate) fn run(
        &self,
        backend: &dyn VyreBackend,
        max_rows: u64,
        uploads: &[(usize, &[u8])],
        reads: &[usize],
        rows: usize,
    ) -> Result<Vec<Vec<u8>>, BackendError> {
        let wanted = (rows as u64).next_power_of_two().max(MIN_CAPACITY);
        // The caller checked `rows <= max_rows`, and `max_rows` fits a u32.
        let capacity = u32::try_from(wanted.min(max_rows)).unwrap_or(u32::MAX);
        let bytes: Vec<u64> = self
            .slots
            .iter()
            .map(|t| u64::from(capacity) * t.size_bytes() as u64)
            .collect();
        let set = self.pool.take(backend, capacity, &bytes)?;
        for &(slot, data) in uploads {
            backend.write_buffer(&set.buffers[slot], 0, data)?;
        }
        let programs: Vec<Program> = self
            .calls
            .iter()
            .map(|c| c.kernel.sized(capacity))
            .collect();
        let buffers: Vec<Vec<_>> = self
            .calls
            .iter()
            .map(|call| bound_buffers(call, &set.buffers))
            .collect();
        let config = DispatchConfig::default();
        let steps: Vec<Step<'_>> = programs
            .iter()
            .zip(&buffers)
            .map(|(program, refs)| Step::new(program, refs, &config))
            .collect();
        backend.dispatch_sequence(&steps)?;
        let results = reads
            .iter()
            .map(|&slot| {
                let size = self.slots[slot].size_bytes() as u64;
                backend.read_buffer(&set.buffers[slot], 0..rows as u64 * size)
            })
            .collect::<Result<Vec<_>, _>>()?;
        self.pool.give(set);
        Ok(results)
    }
}

/// The buffers of one call, in its program's declaration order of bound buffers.
fn bound_buffers<'b>(
    call: &Call,
    buffers: &'b [vyre::DeviceBuffer],
) -> Vec<&'b vyre::DeviceBuffer> {
    let kernel = &call.kernel;
    let mut refs = vec![&buffers[call.out]; kernel.arg_positions().len() + 1];
    for (&position, &slot) in kernel.arg_positions().iter().zip(&call.args) {
        refs[position] = &buffers[slot];
    }
    refs[kernel.output_position()] = &buffers[call.out];
    refs
}

#[cfg(test)]
mod tests {
    use vyre::ir::{BufferDecl, Expr, Node};

    use super::*;

    fn kernel(op: fn(Expr, Expr) -> Expr) -> Arc<Kernel> {
        let program = Program::new(
            vec![
                BufferDecl::read("a", 0, DataType::U32),
                BufferDecl::read("b", 1, DataType::U32),
                BufferDecl::output("y", 2, DataType::U32).with_count(1),
            ],
            [64, 1, 1],
            vec![Node::store(
                "y",
                Expr::gid_x(),
                op(
                    Expr::load("a", Expr::gid_x()),
                    Expr::load("b", Expr::gid_x()),
                ),
            )],
        );
        Arc::new(Kernel::new("k", program).expect("elementwise"))
    }

    #[test]
    fn a_later_call_reads_an_earlier_calls_result_on_the_device() {
        let backend = vyre::ReferenceBackend::new();
        let mut sequence = Sequence::default();
        let (a, b) = (sequence.slot(DataType::U32), sequence.slot(DataType::U32));
        let sum = sequence.call(kernel(|x, y| x + y), vec![a, b]);
        // `(a + b) * a`: the product reads the sum's slot.
        let product = sequence.call(kernel(|x, y| x * y), vec![sum, a]);
        let words = |v: &[u32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
        let (xs, ys) = (words(&[1, 2, 3]), words(&[10, 20, 30]));
        let max = sequence.max_rows(u64::MAX);
        let out = sequence
            .run(&backend, max, &[(a, &xs), (b, &ys)], &[sum, product], 3)
            .expect("runs");
        assert_eq!(out, [words(&[11, 22, 33]), words(&[11, 44, 99])]);
    }
}
