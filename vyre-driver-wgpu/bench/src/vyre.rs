//! The vyre side: the programs of `workloads.rs` run through a [`VyreBackend`], exactly as a user
//! would run them: a `Program`, one byte vector per input, `dispatch`, and the output vectors back.
//!
//! Everything here goes through the backend-neutral trait, so the same code measures the wgpu backend
//! and, in the tests, runs on the reference interpreter to prove the programs compute what the raw
//! kernels compute.

use vyre_driver::{DispatchConfig, VyreBackend};
use vyre_foundation::ir::Program;

use crate::gpu::BenchResult;

/// A backend error as a benchmark failure (backend messages already end with a `Fix:`).
pub(crate) fn backend_error(what: &str, error: &vyre_driver::BackendError) -> String {
    format!("vyre {what} failed: {error}")
}

/// One program with its inputs and configuration, dispatched one repetition at a time.
pub(crate) struct VyreCase<'a> {
    backend: &'a dyn VyreBackend,
    label: String,
    program: Program,
    config: DispatchConfig,
    outputs: Vec<Vec<u8>>,
}

impl<'a> VyreCase<'a> {
    /// A case of `program` on `backend`; the program is validated here so a mistake in the
    /// benchmark shows up as a validation error, not as a slow or wrong figure.
    pub(crate) fn new(
        backend: &'a dyn VyreBackend,
        label: impl Into<String>,
        program: Program,
        config: DispatchConfig,
    ) -> BenchResult<Self> {
        let label = label.into();
        vyre_foundation::validate(&program).map_err(|e| {
            format!("the vyre program of `{label}` is invalid: {e}. Fix: this is a harness bug.")
        })?;
        Ok(Self {
            backend,
            label,
            program,
            config,
            outputs: Vec::new(),
        })
    }

    /// One repetition: `dispatch` with `inputs`, keeping the outputs for checking afterwards.
    pub(crate) fn run(&mut self, inputs: &[Vec<u8>]) -> BenchResult<()> {
        self.outputs = self
            .backend
            .dispatch(&self.program, inputs, &self.config)
            .map_err(|e| backend_error(&self.label, &e))?;
        Ok(())
    }

    /// Output `index` of the last repetition (empty before the first).
    pub(crate) fn output(&self, index: usize) -> &[u8] {
        self.outputs.get(index).map_or(&[], Vec::as_slice)
    }
}

/// Runs every item through its own `dispatch` call, the way a caller without coalescing would.
pub(crate) fn separate_dispatches(
    backend: &dyn VyreBackend,
    program: &Program,
    items: &[Vec<u8>],
    results: &mut Vec<Vec<u8>>,
) -> BenchResult<()> {
    results.clear();
    let config = DispatchConfig::default();
    for item in items {
        let mut out = backend
            .dispatch(program, std::slice::from_ref(item), &config)
            .map_err(|e| backend_error("separate item dispatch", &e))?;
        results.push(out.pop().unwrap_or_default());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    //! The vyre programs on the reference interpreter, checked against the same CPU references the
    //! raw kernels are checked against: a vyre figure is only worth comparing if it computes the same.

    use vyre_conformance::ReferenceBackend;

    use super::*;
    use crate::workloads::{self, Elem};

    fn check(what: &str, out: &[u8], n: usize, f: impl Fn(usize) -> u32) {
        workloads::verify_sample(what, out, n, n, f).unwrap();
    }

    #[test]
    fn add_and_chain_programs_match_the_cpu_reference() {
        let backend = ReferenceBackend::new();
        let n = 1000u32;
        for elem in [Elem::U32, Elem::F32] {
            let inputs = vec![
                workloads::input_bytes(elem, u64::from(n), 1),
                workloads::input_bytes(elem, u64::from(n), 2),
            ];
            let program = workloads::add_program(elem, n);
            let mut case =
                VyreCase::new(&backend, "add", program, DispatchConfig::default()).unwrap();
            case.run(&inputs).unwrap();
            check("add", case.output(0), n as usize, |i| {
                let (a, b) = (
                    workloads::word_at(&inputs[0], i),
                    workloads::word_at(&inputs[1], i),
                );
                workloads::add_reference(elem, a, b)
            });
        }
        let inputs = vec![
            workloads::input_bytes(Elem::U32, u64::from(n), 1),
            workloads::input_bytes(Elem::U32, u64::from(n), 2),
        ];
        let salt = workloads::CHAIN_SALT;
        let program = workloads::chain_program(n, salt);
        let mut case =
            VyreCase::new(&backend, "chain", program, DispatchConfig::default()).unwrap();
        case.run(&inputs).unwrap();
        check("chain", case.output(0), n as usize, |i| {
            let (a, b) = (
                workloads::word_at(&inputs[0], i),
                workloads::word_at(&inputs[1], i),
            );
            workloads::chain_reference(a, b, salt)
        });
    }

    #[test]
    fn reduction_program_sums_with_any_grid() {
        let backend = ReferenceBackend::new();
        let data = vec![workloads::input_bytes(Elem::U32, 70_001, 5)];
        let want = workloads::sum_reference(&data[0]);
        for trip in [workloads::Trip::Four, workloads::Trip::One] {
            for groups in [1, 3, workloads::reduction_groups(70_001)] {
                let config = DispatchConfig::default().with_grid([groups, 1, 1]);
                let program = workloads::reduction_program(trip);
                let mut case = VyreCase::new(&backend, "sum", program, config).unwrap();
                case.run(&data).unwrap();
                check("sum", case.output(0), 1, |_| want);
            }
        }
    }

    #[test]
    fn subgroup_reduction_program_sums_with_any_grid_and_subgroup_size() {
        let data = vec![workloads::input_bytes(Elem::U32, 70_001, 5)];
        let want = workloads::sum_reference(&data[0]);
        for size in [1, 8, 32, 128] {
            let backend = ReferenceBackend::new().with_subgroup_size(size);
            for groups in [1, 3, workloads::reduction_groups(70_001)] {
                let config = DispatchConfig::default().with_grid([groups, 1, 1]);
                let program = workloads::subgroup_reduction_program();
                let mut case = VyreCase::new(&backend, "sum", program, config).unwrap();
                case.run(&data).unwrap();
                check("subgroup sum", case.output(0), 1, |_| want);
            }
        }
    }

    #[test]
    fn separate_dispatches_return_one_result_per_item() {
        let backend = ReferenceBackend::new();
        let items: Vec<Vec<u8>> = (0..5).map(workloads::item_payload).collect();
        let mut results = Vec::new();
        separate_dispatches(&backend, &workloads::item_program(), &items, &mut results).unwrap();
        assert_eq!(results.len(), 5);
        for (item, result) in items.iter().zip(&results) {
            check("item", result, 1, |_| {
                workloads::word_at(item, 0).wrapping_add(1)
            });
        }
    }

    #[test]
    fn round_trip_program_adds_one_and_bad_inputs_are_errors() {
        let backend = ReferenceBackend::new();
        let program = workloads::round_trip_program();
        let mut case = VyreCase::new(&backend, "rt", program, DispatchConfig::default()).unwrap();
        case.run(&[41u32.to_le_bytes().to_vec()]).unwrap();
        check("rt", case.output(0), 1, |_| 42);
        let err = case.run(&[vec![1, 2, 3]]).unwrap_err();
        assert!(err.contains("Fix:"), "{err}");
    }
}
