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

/// One program of a driver-bug probe: a name saying which variant it is, the program, its inputs.
pub struct Probe {
    /// Which variant it is.
    pub name: String,
    /// The program.
    pub program: vyre_foundation::ir::Program,
    /// Its inputs, one per input buffer.
    pub inputs: Vec<Vec<u8>>,
}

impl Probe {
    /// A probe of the program `text` (vyre's text form) with no inputs.
    pub fn text(name: &str, text: &str) -> Self {
        Self::with_inputs(name, text, Vec::new())
    }

    /// A probe of the program `text` with `inputs`.
    pub fn with_inputs(name: &str, text: &str, inputs: Vec<Vec<u8>>) -> Self {
        let program = text
            .parse()
            .unwrap_or_else(|e| panic!("probe `{name}` does not parse: {e}\n{text}"));
        Self {
            name: name.to_string(),
            program,
            inputs,
        }
    }
}

/// The first elements of the first output, typed by its buffer, for a probe's line.
fn shown(program: &vyre_foundation::ir::Program, outputs: &[Vec<u8>]) -> String {
    let Some(ty) = program.output_buffers().next().map(|b| b.element) else {
        return "no output".to_string();
    };
    let size = ty.size_bytes();
    let Some(first) = outputs.first() else {
        return "no output".to_string();
    };
    first
        .chunks_exact(size)
        .take(4)
        .map(|c| {
            let mut bits = [0u8; 8];
            bits[..size].copy_from_slice(c);
            vyre_conformance::catalogue::format_word(ty, u64::from_le_bytes(bits))
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// `; {what} differs from the law at byte N` when `got` is not `want`.
fn differs(what: &str, got: &[Vec<u8>], want: &[Vec<u8>]) -> String {
    if got == want {
        return String::new();
    }
    let at = got
        .iter()
        .flatten()
        .zip(want.iter().flatten())
        .position(|(a, b)| a != b);
    match at {
        Some(byte) => format!("; {what} differs from the law at output byte {byte}"),
        None => format!("; {what} has another output length"),
    }
}

/// Runs a driver-bug probe: every program with `workaround` in force (on top of what the adapter
/// has anyway) and without it, and on the reference, printing all three for every program before
/// anything is judged, so that one run on a device says which variants its driver gets wrong and
/// whether the workaround mends them. Returns the names of the programs that differ from the
/// reference *with* the workaround (the assertion every device must pass); `None` when the test
/// skipped (no adapter, and `VYRE_REQUIRE_GPU` unset).
pub fn probe_workaround(
    test: &str,
    workaround: vyre_driver_wgpu::Workaround,
    probes: &[Probe],
) -> Option<Vec<String>> {
    use vyre_driver::VyreBackend;
    use vyre_driver_wgpu::{AdapterOptions, PipelineCacheDir, WgpuBackend};
    let default = vyre_driver_wgpu::testing::backend_or_skip(test)?;
    let set = default.workarounds();
    let open = |set| {
        let options = AdapterOptions::new()
            .with_pipeline_cache(PipelineCacheDir::Off)
            .with_workarounds(set);
        WgpuBackend::acquire_with(&options).expect("a second device on the same adapter")
    };
    let on = open(set.with(workaround));
    let off = open(set.without(workaround));
    let reference = vyre_conformance::ReferenceBackend::new();
    let config = vyre_driver::DispatchConfig::default();
    // One block of lines per test, printed at once: tests run on several threads.
    let mut report = format!(
        "{test} on {} (workarounds otherwise in force: {set})\n",
        on.adapter_name()
    );
    let mut wrong = Vec::new();
    for probe in probes {
        let run = |backend: &dyn VyreBackend| {
            backend
                .dispatch(&probe.program, &probe.inputs, &config)
                .unwrap_or_else(|e| panic!("{}: {e}", probe.name))
        };
        let want = run(&reference);
        let with = run(&on);
        let without = run(&off);
        report.push_str(&format!(
            "  {}: with {workaround}: {}; without: {}; the law: {}{}{}\n",
            probe.name,
            shown(&probe.program, &with),
            shown(&probe.program, &without),
            shown(&probe.program, &want),
            differs("with", &with, &want),
            differs("without", &without, &want),
        ));
        if with != want {
            wrong.push(probe.name.clone());
        }
    }
    eprint!("{report}");
    Some(wrong)
}
