//! Batching: many cases in one program, as the WebGPU CTS does.
//!
//! An [`Elementwise`] batch reads one row of operands per invocation from input buffers and writes one
//! result per operator and row. Results go to one output buffer per result type, operator after
//! operator: the result of operator `j` (among those of its type) on row `r` is element `j * rows + r`.
//!
//! One builder serves every element width. A row holds each operand's bits zero-extended to the
//! batch's word type `W`: `u32` for the 32-bit batches, whose operators compute on words, and `u64`
//! for batches whose elements may be 2, 4 or 8 bytes wide. Each input buffer holds its operands at
//! their own type's size, and a case's `word` is an element index.

use vyre_driver::DispatchConfig;
use vyre_foundation::ir::{BufferDecl, DataType, Expr, Node, Program};

use crate::catalogue::{Area, Batch, Case, Expectation, format_word};

/// Invocations per workgroup of elementwise batches.
const WORKGROUP: u32 = 64;

/// Builds the result of an operator from the operand expressions of one row.
pub(crate) type BuildFn = Box<dyn Fn(&[Expr]) -> Expr>;

/// What a backend must yield for the operand bits (zero-extended to `W`) of one row.
pub(crate) type ExpectFn<W> = Box<dyn Fn(&[W]) -> Expectation>;

/// One operator of an elementwise batch whose rows hold words of type `W`.
pub(crate) struct ElementOp<W> {
    /// The case-name prefix, e.g. `add.u32`.
    label: String,
    /// The result type.
    result: DataType,
    /// The expression, from the row's operands.
    build: BuildFn,
    /// The expectation, from the row's operand bits.
    expect: ExpectFn<W>,
}

impl<W> ElementOp<W> {
    /// An operator called `label` yielding `result`.
    pub(crate) fn new(
        label: impl Into<String>,
        result: DataType,
        build: impl Fn(&[Expr]) -> Expr + 'static,
        expect: impl Fn(&[W]) -> Expectation + 'static,
    ) -> Self {
        Self {
            label: label.into(),
            result,
            build: Box::new(build),
            expect: Box::new(expect),
        }
    }
}

/// A batch applying several operators to every row of operands, each operand's bits held as a `W`
/// (`u32` or `u64`).
pub(crate) struct Elementwise<W> {
    /// The area its cases belong to.
    area: Area,
    /// The batch name, e.g. `integer.u32`.
    name: String,
    /// The operand types, one input buffer each.
    operands: Vec<DataType>,
    /// The operand bits, one row per invocation.
    rows: Vec<Vec<W>>,
    /// The operators.
    ops: Vec<ElementOp<W>>,
}

impl<W: Copy + Into<u64>> Elementwise<W> {
    /// An empty batch over `operands`.
    pub(crate) fn new(area: Area, name: impl Into<String>, operands: Vec<DataType>) -> Self {
        Self {
            area,
            name: name.into(),
            operands,
            rows: Vec::new(),
            ops: Vec::new(),
        }
    }

    /// Sets the rows of operand bits.
    pub(crate) fn rows(mut self, rows: Vec<Vec<W>>) -> Self {
        self.rows = rows;
        self
    }

    /// Adds an operator.
    pub(crate) fn op(mut self, op: ElementOp<W>) -> Self {
        self.ops.push(op);
        self
    }

    /// The result types in order of first use; each gets one output buffer.
    fn result_types(&self) -> Vec<DataType> {
        let mut types = Vec::new();
        for op in &self.ops {
            if !types.contains(&op.result) {
                types.push(op.result);
            }
        }
        types
    }

    /// The program, its inputs (each operand at its type's size) and its cases.
    pub(crate) fn into_batch(self) -> Batch {
        let n = self.rows.len() as u32;
        let types = self.result_types();
        let program = self.program(n, &types);
        let inputs = self
            .operands
            .iter()
            .enumerate()
            .map(|(k, &ty)| element_bytes(ty, self.rows.iter().map(|row| row[k].into())))
            .collect();
        let cases = self.cases(&types);
        Batch {
            area: self.area,
            name: self.name,
            program,
            inputs,
            config: DispatchConfig::new().with_grid([n.div_ceil(WORKGROUP).max(1), 1, 1]),
            cases,
        }
    }

    fn program(&self, n: u32, types: &[DataType]) -> Program {
        let mut buffers: Vec<BufferDecl> = self
            .operands
            .iter()
            .enumerate()
            .map(|(k, &ty)| BufferDecl::read(format!("in{k}"), k as u32, ty).with_count(n))
            .collect();
        for (t, &ty) in types.iter().enumerate() {
            let per_type = self.ops.iter().filter(|op| op.result == ty).count() as u32;
            let binding = (self.operands.len() + t) as u32;
            buffers
                .push(BufferDecl::output(format!("out{t}"), binding, ty).with_count(n * per_type));
        }
        let operands: Vec<Expr> = (0..self.operands.len())
            .map(|k| Expr::var(format!("a{k}")))
            .collect();
        let mut body: Vec<Node> = (0..self.operands.len())
            .map(|k| {
                Node::let_bind(
                    format!("a{k}"),
                    Expr::load(format!("in{k}"), Expr::var("i")),
                )
            })
            .collect();
        let mut slot = vec![0u32; types.len()];
        for op in &self.ops {
            let t = type_slot(types, op.result);
            let index = Expr::add(Expr::u32(slot[t] * n), Expr::var("i"));
            body.push(Node::store(format!("out{t}"), index, (op.build)(&operands)));
            slot[t] += 1;
        }
        Program::wrapped(
            buffers,
            [WORKGROUP, 1, 1],
            vec![
                Node::let_bind("i", Expr::gid_x()),
                Node::if_then(Expr::lt(Expr::var("i"), Expr::u32(n)), body),
            ],
        )
    }

    fn cases(&self, types: &[DataType]) -> Vec<Case> {
        let n = self.rows.len();
        let mut slot = vec![0usize; types.len()];
        let mut cases = Vec::with_capacity(n * self.ops.len());
        for op in &self.ops {
            let t = type_slot(types, op.result);
            for (r, row) in self.rows.iter().enumerate() {
                let args = self.describe_row(row);
                cases.push(Case {
                    name: format!("{}({})", op.label, args.join(", ")),
                    inputs: args.join(", "),
                    output: t,
                    word: slot[t] * n + r,
                    ty: op.result,
                    expect: (op.expect)(row),
                });
            }
            slot[t] += 1;
        }
        cases
    }

    fn describe_row(&self, row: &[W]) -> Vec<String> {
        self.operands
            .iter()
            .zip(row)
            .map(|(&ty, &w)| format_word(ty, w))
            .collect()
    }
}

fn type_slot(types: &[DataType], ty: DataType) -> usize {
    types.iter().position(|&t| t == ty).unwrap_or(0)
}

/// Little-endian bytes of 32-bit words.
pub(crate) fn words_to_bytes(words: impl IntoIterator<Item = u32>) -> Vec<u8> {
    words.into_iter().flat_map(u32::to_le_bytes).collect()
}

/// Little-endian bytes of elements of type `ty`, each given by its bits zero-extended to `u64`:
/// 2, 4 or 8 bytes each, the low ones.
pub(crate) fn element_bytes(ty: DataType, bits: impl IntoIterator<Item = u64>) -> Vec<u8> {
    let size = ty.size_bytes();
    bits.into_iter()
        .flat_map(|b| b.to_le_bytes().into_iter().take(size))
        .collect()
}
