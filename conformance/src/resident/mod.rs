//! The resident mode: any backend's `dispatch`, done through its resident buffers instead, so the
//! catalogue, the semantics cases and the fuzzer check `dispatch_resident` and `dispatch_sequence`
//! against plain `dispatch` and the reference.
//!
//! [`Resident`] wraps a backend. Its `dispatch` creates one [`DeviceBuffer`] per declared buffer,
//! then, as [`ResidentMode`] says:
//! - [`ResidentMode::Direct`]: writes the inputs, runs `dispatch_resident`, reads the outputs back;
//! - [`ResidentMode::Sequence`]: writes each input into a staging buffer, and runs one
//!   `dispatch_sequence` of a copy step per input (staging to the program's buffer), the program, and
//!   a copy step per output (to a fresh buffer), then reads those: every step must see the writes of
//!   the steps before it.

mod checks;

pub use checks::{
    check_buffers, check_dispatch_resident, check_errors, check_output_tails, check_sequence,
    check_threads,
};

use vyre_driver::{BackendError, Capabilities, DeviceBuffer, DispatchConfig, Step, VyreBackend};
use vyre_foundation::ir::{BufferAccess, BufferDecl, DataType, Expr, Node, Program};

/// How [`Resident`] runs a dispatch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ResidentMode {
    /// `write_buffer`, one `dispatch_resident`, `read_buffer`.
    Direct,
    /// Copies in, the program and copies out as one `dispatch_sequence`.
    Sequence,
}

impl ResidentMode {
    /// Both modes.
    pub const ALL: [ResidentMode; 2] = [ResidentMode::Direct, ResidentMode::Sequence];

    /// `"resident"` or `"sequence"`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            ResidentMode::Direct => "resident",
            ResidentMode::Sequence => "sequence",
        }
    }

    /// The mode called `name` (see [`ResidentMode::name`]).
    #[must_use]
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|m| m.name() == name)
    }
}

/// A backend whose `dispatch` goes through its own resident buffers (see the module docs).
#[derive(Debug)]
pub struct Resident<B> {
    inner: B,
    mode: ResidentMode,
    id: String,
}

impl<B: VyreBackend> Resident<B> {
    /// `inner`, dispatching through its resident buffers in `mode`. Its id is the inner id with
    /// `+resident` or `+sequence` appended.
    pub fn new(inner: B, mode: ResidentMode) -> Self {
        let id = format!("{}+{}", inner.id(), mode.name());
        Self { inner, mode, id }
    }

    /// The wrapped backend.
    pub fn inner(&self) -> &B {
        &self.inner
    }
}

/// The copy step's program: `dst[i] = src[i]` for `n` words.
/// A program copying a buffer of `bytes` bytes: in 32-bit words, or in `f16` elements when the
/// length is not a whole number of words (an `f16` buffer of odd length; copying `bytes / 4` words
/// lost its last element, fuzz seed 20261204 case 6 on lavapipe).
fn copy_program(bytes: u64) -> Program {
    let (element, n) = if bytes.is_multiple_of(4) {
        (DataType::U32, bytes / 4)
    } else {
        (DataType::F16, bytes / 2)
    };
    let n = u32::try_from(n).unwrap_or(u32::MAX);
    let i = Expr::gid_x();
    Program::new(
        vec![
            BufferDecl::read("src", 0, element).with_count(n),
            BufferDecl::read_write("dst", 1, element).with_count(n),
        ],
        [64, 1, 1],
        vec![Node::store("dst", i.clone(), Expr::load("src", i))],
    )
}

impl<B: VyreBackend> VyreBackend for Resident<B> {
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
        let (_, plan) = vyre_driver::prepare(program, inputs, config)?;
        let mut buffers = Vec::new();
        for (decl, resolved) in program.buffers.iter().zip(&plan.buffers) {
            if decl.access == BufferAccess::Workgroup {
                continue;
            }
            let bytes = resolved.element_count * decl.element.size_bytes() as u64;
            buffers.push((decl, resolved, self.inner.create_buffer(bytes)?));
        }
        let bound: Vec<&DeviceBuffer> = buffers.iter().map(|(_, _, b)| b).collect();
        let outputs = match self.mode {
            ResidentMode::Direct => {
                for (_, resolved, buffer) in &buffers {
                    if let Some(input) = resolved.input.and_then(|i| inputs.get(i)) {
                        self.inner.write_buffer(buffer, 0, input)?;
                    }
                }
                self.inner.dispatch_resident(program, &bound, config)?;
                buffers
                    .iter()
                    .filter(|(decl, _, _)| decl.access == BufferAccess::Output)
                    .map(|(decl, _, buffer)| (*decl, buffer.clone()))
                    .collect::<Vec<_>>()
            }
            ResidentMode::Sequence => self.sequence(program, &buffers, inputs, config)?,
        };
        outputs
            .iter()
            .map(|(decl, buffer)| {
                let len = usize::try_from(buffer.len()).unwrap_or(usize::MAX);
                let range = decl.readback_range(len);
                self.inner
                    .read_buffer(buffer, range.start as u64..range.end as u64)
            })
            .collect()
    }
}

type Declared<'p> = (
    &'p BufferDecl,
    &'p vyre_driver::ResolvedBuffer,
    DeviceBuffer,
);

impl<B: VyreBackend> Resident<B> {
    /// The sequence mode: returns each output's declaration and the buffer its copy landed in.
    fn sequence<'p>(
        &self,
        program: &'p Program,
        buffers: &'p [Declared<'p>],
        inputs: &[Vec<u8>],
        config: &DispatchConfig,
    ) -> Result<Vec<(&'p BufferDecl, DeviceBuffer)>, BackendError> {
        // (copy program, [source, destination]) per copy step.
        let mut copies_in = Vec::new();
        for (_, resolved, buffer) in buffers {
            if let Some(input) = resolved.input.and_then(|i| inputs.get(i)) {
                let staging = self.inner.create_buffer(buffer.len())?;
                self.inner.write_buffer(&staging, 0, input)?;
                copies_in.push((copy_program(buffer.len()), [staging, buffer.clone()]));
            }
        }
        let mut copies_out = Vec::new();
        let mut outputs = Vec::new();
        for (decl, _, buffer) in buffers {
            if decl.access == BufferAccess::Output {
                let landed = self.inner.create_buffer(buffer.len())?;
                copies_out.push((copy_program(buffer.len()), [buffer.clone(), landed.clone()]));
                outputs.push((*decl, landed));
            }
        }
        let copy_config = DispatchConfig::default();
        let bound: Vec<&DeviceBuffer> = buffers.iter().map(|(_, _, b)| b).collect();
        let in_refs: Vec<[&DeviceBuffer; 2]> = copies_in.iter().map(|(_, [s, d])| [s, d]).collect();
        let out_refs: Vec<[&DeviceBuffer; 2]> =
            copies_out.iter().map(|(_, [s, d])| [s, d]).collect();
        let mut steps = Vec::new();
        for ((copy, _), refs) in copies_in.iter().zip(&in_refs) {
            steps.push(Step::new(copy, refs, &copy_config));
        }
        steps.push(Step::new(program, &bound, config));
        for ((copy, _), refs) in copies_out.iter().zip(&out_refs) {
            steps.push(Step::new(copy, refs, &copy_config));
        }
        // The copies are this adapter's own: an error in one of them names a step the caller never
        // wrote, so the program's step alone is reported by position.
        self.inner.dispatch_sequence(&steps)?;
        Ok(outputs)
    }
}
