//! Straight-line batches: each case is a few statements that leave one result in an output element
//! of its own, with its operand values written into the program rather than loaded.
//!
//! The load-based builders ([`Elementwise`](crate::catalogue::build::Elementwise),
//! [`Wide`](crate::catalogue::wide::Wide)) hide every operand from the compiler behind a buffer. The
//! shapes drivers got wrong were miscompiled when the compiler could see the values: literals it
//! folds, one-trip loops with literal bounds it unrolls, the invocation id. A [`Snippets`] batch
//! holds such statements, one block per case, run by every invocation of one workgroup; each result
//! element has one element per invocation (`lanes`), so a case may vary with the invocation id.
//!
//! Outputs are laid out as in [`Elementwise`](crate::catalogue::build::Elementwise): one output
//! buffer per result type, in order of first use, named `out0`, `out1`, ... A case that needs a
//! value the compiler cannot see reads it from an input buffer per type (`in0`, `in1`, ...,
//! declared first) at a literal index, through [`Snippets::input`].

use vyre_driver::DispatchConfig;
use vyre_foundation::ir::{BufferDecl, DataType, Expr, Node, Program};

use crate::catalogue::{Area, Batch, Case, Expectation};

/// Where one result goes: element `element` of the output of its type, one word per invocation.
#[derive(Clone, Debug)]
pub(crate) struct Slot {
    output: usize,
    element: u32,
    lanes: u32,
}

impl Slot {
    /// The buffer's name.
    fn buffer(&self) -> String {
        format!("out{}", self.output)
    }

    /// The index of this invocation's element: a literal in a one-invocation batch.
    fn index(&self) -> Expr {
        if self.lanes == 1 {
            Expr::u32(self.element)
        } else {
            Expr::add(Expr::u32(self.element * self.lanes), Expr::local_x())
        }
    }

    /// `out[slot] = value`.
    pub(crate) fn store(&self, value: Expr) -> Node {
        Node::store(self.buffer(), self.index(), value)
    }

    /// `out[slot]`, as this invocation stored it.
    pub(crate) fn load(&self) -> Expr {
        Expr::load(self.buffer(), self.index())
    }

    /// The element index of invocation `lane`'s word in the output.
    fn word(&self, lane: u32) -> usize {
        (self.element * self.lanes + lane) as usize
    }
}

/// One program of a [`Snippets`] series, being built.
#[derive(Default)]
struct Part {
    /// The input types in order of first use, and each input's element bits.
    inputs: Vec<(DataType, Vec<u64>)>,
    /// The result types in order of first use, and how many elements each output holds per lane.
    outputs: Vec<(DataType, u32)>,
    body: Vec<Node>,
    cases: Vec<Case>,
}

/// Straight-line cases, run by `lanes` invocations of one workgroup: one program, or a series of
/// programs of at most `limit` cases' blocks each.
pub(crate) struct Snippets {
    area: Area,
    name: String,
    lanes: u32,
    limit: usize,
    parts: Vec<Part>,
}

impl Snippets {
    /// An empty batch of `lanes` invocations (1 to 256).
    pub(crate) fn new(area: Area, name: impl Into<String>, lanes: u32) -> Self {
        Self {
            area,
            name: name.into(),
            lanes: lanes.clamp(1, 256),
            limit: usize::MAX,
            parts: vec![Part::default()],
        }
    }

    /// Splits the cases into programs of at most `limit` blocks each (one per case started with
    /// [`Snippets::begin`]), named `<name>.0`, `<name>.1`, ...: compile time grows faster than linearly with the size of a program that holds many
    /// loops (on lavapipe 35 one-trip loops compile in 44 ms, 210 in 1.2 s).
    pub(crate) fn at_most(mut self, limit: usize) -> Self {
        self.limit = limit.max(1);
        self
    }

    /// The number of invocations.
    pub(crate) fn lanes(&self) -> u32 {
        self.lanes
    }

    /// Starts a case: the next program of the series when this one is full.
    pub(crate) fn begin(&mut self) {
        if self.part().body.len() >= self.limit {
            self.parts.push(Part::default());
        }
    }

    /// The program being built.
    fn part(&mut self) -> &mut Part {
        if self.parts.is_empty() {
            self.parts.push(Part::default());
        }
        let last = self.parts.len() - 1;
        &mut self.parts[last]
    }

    /// A fresh result element of type `ty`.
    pub(crate) fn slot(&mut self, ty: DataType) -> Slot {
        let lanes = self.lanes;
        let outputs = &mut self.part().outputs;
        let output = match outputs.iter().position(|&(t, _)| t == ty) {
            Some(k) => k,
            None => {
                outputs.push((ty, 0));
                outputs.len() - 1
            }
        };
        let element = outputs[output].1;
        outputs[output].1 += 1;
        Slot {
            output,
            element,
            lanes,
        }
    }

    /// A load of the value `bits` of type `ty`, from an input element of its own.
    pub(crate) fn input(&mut self, ty: DataType, bits: u64) -> Expr {
        let inputs = &mut self.part().inputs;
        let k = match inputs.iter().position(|(t, _)| *t == ty) {
            Some(k) => k,
            None => {
                inputs.push((ty, Vec::new()));
                inputs.len() - 1
            }
        };
        let values = &mut inputs[k].1;
        values.push(bits);
        Expr::load(format!("in{k}"), Expr::u32(values.len() as u32 - 1))
    }

    /// Appends one case's statements, in a block of their own so their names end with it.
    pub(crate) fn push(&mut self, nodes: Vec<Node>) {
        self.part().body.push(Node::block(nodes));
    }

    /// The case `name`: what invocation `lane` left in `slot`.
    pub(crate) fn expect(
        &mut self,
        slot: &Slot,
        lane: u32,
        name: String,
        inputs: String,
        expect: Expectation,
    ) {
        let part = self.part();
        let ty = part.outputs[slot.output].0;
        part.cases.push(Case {
            name,
            inputs,
            output: slot.output,
            word: slot.word(lane),
            ty,
            expect,
        });
    }

    /// The programs (one workgroup of `lanes` invocations each), their inputs and their cases.
    pub(crate) fn into_batches(self) -> Vec<Batch> {
        let several = self.parts.len() > 1;
        let parts = self.parts.into_iter().enumerate();
        parts
            .map(|(k, part)| {
                let name = if several {
                    format!("{}.{k}", self.name)
                } else {
                    self.name.clone()
                };
                part.into_batch(self.area, name, self.lanes)
            })
            .collect()
    }
}

impl Part {
    fn into_batch(self, area: Area, name: String, lanes: u32) -> Batch {
        let declared_inputs = self.inputs.iter().enumerate().map(|(k, (ty, values))| {
            BufferDecl::read(format!("in{k}"), k as u32, *ty).with_count(values.len() as u32)
        });
        let first_output = self.inputs.len();
        let declared_outputs = self.outputs.iter().enumerate().map(|(k, &(ty, count))| {
            BufferDecl::output(format!("out{k}"), (first_output + k) as u32, ty)
                .with_count((count * lanes).max(1))
        });
        let buffers = declared_inputs.chain(declared_outputs).collect();
        let inputs = self
            .inputs
            .iter()
            .map(|(ty, values)| {
                let size = ty.size_bytes();
                values
                    .iter()
                    .flat_map(|v| v.to_le_bytes()[..size].to_vec())
                    .collect()
            })
            .collect();
        let program = Program::wrapped(buffers, [lanes, 1, 1], self.body);
        let mut batch = Batch::manual(
            area,
            name,
            program,
            inputs,
            DispatchConfig::new().with_grid([1, 1, 1]),
        );
        batch.cases = self.cases;
        batch
    }
}
