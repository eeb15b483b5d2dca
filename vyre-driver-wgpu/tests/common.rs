//! Helpers shared by the wgpu tests: the seed's program, word conversions, and the loop of the
//! driver-miscompile probes.

#![allow(dead_code, unreachable_pub, unused_imports)]

pub use vyre_conformance::fixtures::add_one_program;

/// Little-endian words of `bytes`.
pub fn words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// Little-endian bytes of `words`.
pub fn bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// Runs each `(name, program)` of a driver-miscompile probe on `wgpu` and on the reference with
/// `inputs`, printing both first words (`i32`) of every probe before anything is judged, so that one
/// run on a device tells which variant goes wrong; returns the names of those that differ.
pub fn probe(
    wgpu: &vyre_driver_wgpu::WgpuBackend,
    probes: &[(&'static str, vyre_foundation::ir::Program)],
    inputs: &[Vec<u8>],
) -> Vec<&'static str> {
    use vyre_driver::VyreBackend;
    let reference = vyre_conformance::ReferenceBackend::new();
    let config = vyre_driver::DispatchConfig::default();
    let word = |out: &[Vec<u8>]| i32::from_le_bytes([out[0][0], out[0][1], out[0][2], out[0][3]]);
    let mut wrong = Vec::new();
    for (name, program) in probes {
        let want = reference
            .dispatch(program, inputs, &config)
            .expect("the reference runs the probe");
        let got = wgpu
            .dispatch(program, inputs, &config)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        eprintln!(
            "{name}: {} gives {}, the reference {}",
            wgpu.adapter_name(),
            word(&got),
            word(&want)
        );
        if got != want {
            wrong.push(*name);
        }
    }
    wrong
}
