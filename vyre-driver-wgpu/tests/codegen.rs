//! The code-generation transformations keep SEMANTICS.md: every case of `codegen_cases` gives the
//! reference's bytes on the wgpu backend, through `dispatch` and through resident buffers.

mod codegen_cases;

use vyre_conformance::ReferenceBackend;
use vyre_driver_wgpu::testing::backend_or_skip;

#[test]
fn every_codegen_case_matches_the_reference() {
    let Some(wgpu) = backend_or_skip("every_codegen_case_matches_the_reference") else {
        return;
    };
    let reference = ReferenceBackend::new();
    let failures: Vec<String> = codegen_cases::cases()
        .iter()
        .flat_map(|case| {
            [
                codegen_cases::disagreement(case, &reference, &wgpu),
                codegen_cases::resident_disagreement(case, &reference, &wgpu),
            ]
        })
        .flatten()
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
