//! Batching: many cases in one program, as the WebGPU CTS does.
//!
//! An [`Elementwise`] batch reads one row of operands per invocation from input buffers and writes one
//! result per operator and row. Results go to one output buffer per result type, operator after
//! operator: the result of operator `j` (among those of its type) on row `r` is word `j * rows + r`.

use vyre_driver::DispatchConfig;
use vyre_foundation::ir::{BufferDecl, DataType, Expr, Node, Program};

use crate::catalogue::{Area, Batch, Case, Expectation, format_word};

/// Invocations per workgroup of elementwise batches.
const WORKGROUP: u32 = 64;

/// Builds the result of an operator from the operand expressions of one row.
pub(crate) type BuildFn = Box<dyn Fn(&[Expr]) -> Expr>;

/// What a backend must yield for the operand words of one row.
pub(crate) type ExpectFn = Box<dyn Fn(&[u32]) -> Expectation>;

/// One operator of an elementwise batch.
pub(crate) struct ElementOp {
    /// The case-name prefix, e.g. `add.u32`.
    pub(crate) label: String,
    /// The result type.
    pub(crate) result: DataType,
    /// The expression, from the row's operands.
    pub(crate) build: BuildFn,
    /// The expectation, from the row's operand words.
    pub(crate) expect: ExpectFn,
}

impl ElementOp {
    /// An operator called `label` yielding `result`.
    pub(crate) fn new(
        label: impl Into<String>,
        result: DataType,
        build: impl Fn(&[Expr]) -> Expr + 'static,
        expect: impl Fn(&[u32]) -> Expectation + 'static,
    ) -> Self {
        Self {
            label: label.into(),
            result,
            build: Box::new(build),
            expect: Box::new(expect),
        }
    }
}

/// A batch applying several operators to every row of operands.
pub(crate) struct Elementwise {
    /// The area its cases belong to.
    pub(crate) area: Area,
    /// The batch name, e.g. `integer.u32`.
    pub(crate) name: String,
    /// The operand types, one input buffer each.
    pub(crate) operands: Vec<DataType>,
    /// The operand words, one row per invocation.
    pub(crate) rows: Vec<Vec<u32>>,
    /// The operators.
    pub(crate) ops: Vec<ElementOp>,
}

impl Elementwise {
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

    /// Sets the rows of operand words.
    pub(crate) fn rows(mut self, rows: Vec<Vec<u32>>) -> Self {
        self.rows = rows;
        self
    }

    /// Adds an operator.
    pub(crate) fn op(mut self, op: ElementOp) -> Self {
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

    /// The program, its inputs and its cases.
    pub(crate) fn into_batch(self) -> Batch {
        let n = self.rows.len() as u32;
        let types = self.result_types();
        let program = self.program(n, &types);
        let inputs = (0..self.operands.len())
            .map(|k| words_to_bytes(self.rows.iter().map(|row| row[k])))
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

    /// The program for `n` rows (what [`Elementwise::into_batch`] builds), for batches that make
    /// their own inputs and cases.
    pub(crate) fn program_for(&self, n: u32) -> Program {
        self.program(n, &self.result_types())
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

    fn describe_row(&self, row: &[u32]) -> Vec<String> {
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
