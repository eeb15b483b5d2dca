//! Straight-line batches: each case is a few statements that leave one result in an output element
//! of its own, with its operand values written into the program rather than loaded.
//!
//! The load-based builder ([`Elementwise`](crate::catalogue::build::Elementwise)) hides every
//! operand from the compiler behind a buffer. The
//! shapes drivers got wrong were miscompiled when the compiler could see the values: literals it
//! folds, one-trip loops with literal bounds it unrolls, the invocation id. A [`Snippets`] batch
//! holds such statements, one block per case, run by every invocation of its [`Spread`]; each
//! result has one element per invocation, so a case may vary with the invocation id.
//!
//! Outputs are laid out as in [`Elementwise`](crate::catalogue::build::Elementwise): one output
//! buffer per result type, in order of first use, named `out0`, `out1`, ... A case that needs a
//! value the compiler cannot see reads it from an input buffer per type (`in0`, `in1`, ...,
//! declared first) at a literal index, through [`Snippets::input`].

use vyre_driver::DispatchConfig;
use vyre_foundation::ir::{BufferDecl, DataType, Expr, Node, Program};

use crate::catalogue::{Area, Batch, Case, Expectation};

/// Which invocations run a batch, and how each finds its own elements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Spread {
    /// One invocation.
    One,
    /// This many invocations of one workgroup, told apart by `lid.x`.
    Lanes(u32),
    /// This many workgroups of one invocation, told apart by `gid.x`, which is then the same
    /// across each workgroup (the layout of the fuzzed programs, `@workgroup_size(1, 1, 1)`).
    Workgroups(u32),
}

impl Spread {
    /// The number of invocations.
    pub(crate) fn count(self) -> u32 {
        match self {
            Spread::One => 1,
            Spread::Lanes(n) | Spread::Workgroups(n) => n.clamp(1, 256),
        }
    }

    /// The invocation's number, `0..count()`.
    pub(crate) fn id(self) -> Expr {
        match self {
            Spread::One => Expr::u32(0),
            Spread::Lanes(_) => Expr::local_x(),
            Spread::Workgroups(_) => Expr::gid_x(),
        }
    }

    /// What case names call a value made from [`Spread::id`].
    pub(crate) fn name(self) -> &'static str {
        match self {
            Spread::One => "id",
            Spread::Lanes(_) => "lid",
            Spread::Workgroups(_) => "gid",
        }
    }

    fn workgroup_size(self) -> [u32; 3] {
        match self {
            Spread::One | Spread::Workgroups(_) => [1, 1, 1],
            Spread::Lanes(_) => [self.count(), 1, 1],
        }
    }

    fn grid(self) -> [u32; 3] {
        match self {
            Spread::One | Spread::Lanes(_) => [1, 1, 1],
            Spread::Workgroups(_) => [self.count(), 1, 1],
        }
    }
}

/// Where one result goes: element `element` of the output of its type, one word per invocation.
#[derive(Clone, Debug)]
pub(crate) struct Slot {
    output: usize,
    element: u32,
    spread: Spread,
}

impl Slot {
    /// The buffer's name.
    fn buffer(&self) -> String {
        format!("out{}", self.output)
    }

    /// The index of this invocation's element: a literal in a one-invocation batch.
    fn index(&self) -> Expr {
        match self.spread {
            Spread::One => Expr::u32(self.element),
            Spread::Lanes(_) | Spread::Workgroups(_) => {
                let first = Expr::u32(self.element * self.spread.count());
                Expr::add(first, self.spread.id())
            }
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
        (self.element * self.spread.count() + lane) as usize
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

/// Straight-line cases, run by the invocations of a [`Spread`]: one program, or a series of
/// programs of at most `limit` cases' blocks each.
pub(crate) struct Snippets {
    area: Area,
    name: String,
    spread: Spread,
    limit: usize,
    parts: Vec<Part>,
}

impl Snippets {
    /// An empty batch run by `spread` (at most 256 invocations).
    pub(crate) fn new(area: Area, name: impl Into<String>, spread: Spread) -> Self {
        Self {
            area,
            name: name.into(),
            spread,
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

    /// The invocations that run the batch.
    pub(crate) fn spread(&self) -> Spread {
        self.spread
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
        let spread = self.spread;
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
            spread,
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

    /// The programs, their inputs and their cases.
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
                part.into_batch(self.area, name, self.spread)
            })
            .collect()
    }
}

impl Part {
    fn into_batch(self, area: Area, name: String, spread: Spread) -> Batch {
        let declared_inputs = self.inputs.iter().enumerate().map(|(k, (ty, values))| {
            BufferDecl::read(format!("in{k}"), k as u32, *ty).with_count(values.len() as u32)
        });
        let first_output = self.inputs.len();
        let declared_outputs = self.outputs.iter().enumerate().map(|(k, &(ty, count))| {
            BufferDecl::output(format!("out{k}"), (first_output + k) as u32, ty)
                .with_count((count * spread.count()).max(1))
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
        let program = Program::wrapped(buffers, spread.workgroup_size(), self.body);
        let mut batch = Batch::manual(
            area,
            name,
            program,
            inputs,
            DispatchConfig::new().with_grid(spread.grid()),
        );
        batch.cases = self.cases;
        batch
    }
}
