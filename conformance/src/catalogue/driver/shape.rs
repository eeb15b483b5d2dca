//! A [`Shape`]: an expression over operands with its hand-written expectation, and how the batch
//! builders put it in a program in each [`Form`]: its operands written in as literals or loop
//! counters, made from the invocation id ([`by_invocation`]), or loaded ([`loaded`]). The small
//! expressions and expectations the shape files share are here too, written once.

use std::rc::Rc;

use vyre_foundation::ir::{DataType, Expr, Node};

use super::snippets::{Slot, Snippets, Spread};
use crate::catalogue::build::{ElementOp, Elementwise};
use crate::catalogue::{Area, Batch, Expectation, format_word};

/// The most one-trip loops (or nests of them) a program holds: see [`Snippets::at_most`].
pub(crate) const LOOPS_PER_PROGRAM: usize = 32;

/// How a case's operand values reach its expression.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Form {
    /// Literals: a driver may fold the whole expression.
    Literal,
    /// The counters of one-trip loops `for c in v..(v + 1)` with literal bounds, nested in operand
    /// order (the `u32` and `i32` operands below their type's maximum; the others literals): a
    /// driver unrolls and folds.
    LoopCounter,
    /// The first operand is `T(id) + base` (`T(id)` for a zero base), `id` the number of the
    /// invocation in the batch's [`Spread`] (`lid.x` or `gid.x`, which name the form); the others
    /// literals.
    Tid,
    /// Every operand loaded from an input buffer: nothing to fold.
    Load,
}

impl Form {
    /// The name cases use, in a batch run by `spread`.
    pub(crate) fn name(self, spread: Spread) -> &'static str {
        match self {
            Form::Literal => "literal",
            Form::LoopCounter => "loop_counter",
            Form::Tid => spread.name(),
            Form::Load => "load",
        }
    }
}

/// Builds a shape's expression from its operand expressions.
type ShapeBuild = Rc<dyn Fn(&[Expr]) -> Expr>;

/// What a backend must yield for the operand values (bits, zero-extended).
type ShapeExpect = Rc<dyn Fn(&[u64]) -> Expectation>;

/// An expression over operands, with its hand-written expectation.
#[derive(Clone)]
pub(crate) struct Shape {
    /// The name, e.g. `min_neg.i32`.
    id: String,
    result: DataType,
    build: ShapeBuild,
    expect: ShapeExpect,
}

impl Shape {
    /// The shape `id` yielding `result`.
    pub(crate) fn new(
        id: impl Into<String>,
        result: DataType,
        build: impl Fn(&[Expr]) -> Expr + 'static,
        expect: impl Fn(&[u64]) -> Expectation + 'static,
    ) -> Self {
        Self {
            id: id.into(),
            result,
            build: Rc::new(build),
            expect: Rc::new(expect),
        }
    }

    fn name(&self, form: &str, operands: &[DataType], row: &[u64]) -> (String, String) {
        let args = describe(operands, row);
        (format!("driver.{}.{form}({args})", self.id), args)
    }
}

/// The operand values, readable: `-1, 0x1f`.
pub(crate) fn describe(operands: &[DataType], row: &[u64]) -> String {
    let args: Vec<String> = operands
        .iter()
        .zip(row)
        .map(|(&ty, &bits)| format_word(ty, bits))
        .collect();
    args.join(", ")
}

/// The literal of type `ty` with the element bits `bits`.
pub(crate) fn literal(ty: DataType, bits: u64) -> Expr {
    match ty {
        DataType::Bool => Expr::bool(bits != 0),
        DataType::U32 => Expr::u32(bits as u32),
        DataType::I32 => Expr::i32(bits as u32 as i32),
        DataType::F32 => Expr::f32(f32::from_bits(bits as u32)),
        DataType::F16 => Expr::f16_bits(bits as u16),
        DataType::U64 => Expr::u64(bits),
        DataType::I64 => Expr::i64(bits as i64),
    }
}

/// A shape's expectation: bit-exact at the hand-written bits.
pub(crate) fn exact(bits: u64) -> Expectation {
    Expectation::exact_bits(bits)
}

/// `-e`.
pub(crate) fn neg(e: &Expr) -> Expr {
    Expr::neg(e.clone())
}

/// `0 - e` in `ty`: the negation written as a subtraction.
pub(crate) fn zero_minus(ty: DataType, e: &Expr) -> Expr {
    Expr::sub(literal(ty, 0), e.clone())
}

/// `bits + lane` in `ty`'s width.
fn plus_lane(ty: DataType, bits: u64, lane: u32) -> u64 {
    if ty.size_bytes() == 8 {
        bits.wrapping_add(u64::from(lane))
    } else {
        u64::from((bits as u32).wrapping_add(lane))
    }
}

/// True for an operand a one-trip loop can count: a `u32` or `i32` below its type's maximum.
fn countable(ty: DataType, bits: u64) -> bool {
    match ty {
        DataType::I32 => bits as u32 as i32 != i32::MAX,
        DataType::U32 => bits as u32 != u32::MAX,
        _ => false,
    }
}

/// True when `form` can hold operands of these types and values: [`Form::LoopCounter`] needs one
/// [`countable`] operand, and [`Form::Load`] belongs to [`loaded`].
fn holds(form: Form, operands: &[DataType], row: &[u64]) -> bool {
    match form {
        Form::Literal | Form::Tid => true,
        Form::LoopCounter => operands.iter().zip(row).any(|(&ty, &b)| countable(ty, b)),
        Form::Load => false,
    }
}

/// The statements leaving `shape(row)` in `slot` with the operands in `form` (one that
/// [`holds`] them). Under [`Form::LoopCounter`] every countable operand is the counter of a loop
/// of its own, nested in operand order; the others stay literals.
fn statements(
    (form, spread): (Form, Spread),
    operands: &[DataType],
    row: &[u64],
    shape: &Shape,
    slot: &Slot,
) -> Vec<Node> {
    let mut exprs: Vec<Expr> = operands
        .iter()
        .zip(row)
        .map(|(&ty, &bits)| literal(ty, bits))
        .collect();
    match form {
        Form::Literal | Form::Load => vec![slot.store((shape.build)(&exprs))],
        Form::LoopCounter => {
            let counted: Vec<usize> = (0..row.len())
                .filter(|&k| countable(operands[k], row[k]))
                .collect();
            let bounds: Vec<Expr> = counted.iter().map(|&k| exprs[k].clone()).collect();
            for &k in &counted {
                exprs[k] = Expr::var(format!("c{k}"));
            }
            let mut inner = vec![slot.store((shape.build)(&exprs))];
            for (&k, from) in counted.iter().zip(bounds).rev() {
                let to = Expr::add(from.clone(), literal(operands[k], 1));
                inner = vec![Node::loop_for(format!("c{k}"), from, to, inner)];
            }
            inner
        }
        Form::Tid => {
            let id = Expr::cast(operands[0], spread.id());
            exprs[0] = if row[0] == 0 {
                id
            } else {
                Expr::add(id, exprs[0].clone())
            };
            vec![slot.store((shape.build)(&exprs))]
        }
    }
}

/// Adds every shape over every row to `batch` in each of `forms` (those that [`holds`] the row).
/// Under [`Form::Tid`] a row's first operand is the base of one value per invocation of `batch`.
pub(crate) fn write(
    batch: &mut Snippets,
    forms: &[Form],
    operands: &[DataType],
    rows: &[Vec<u64>],
    shapes: &[Shape],
) {
    for &form in forms {
        for shape in shapes {
            for row in rows.iter().filter(|row| holds(form, operands, row)) {
                add(batch, form, operands, row, shape);
            }
        }
    }
}

fn add(batch: &mut Snippets, form: Form, operands: &[DataType], row: &[u64], shape: &Shape) {
    batch.begin();
    let slot = batch.slot(shape.result);
    let spread = batch.spread();
    batch.push(statements((form, spread), operands, row, shape, &slot));
    let lanes = if form == Form::Tid { spread.count() } else { 1 };
    for lane in 0..lanes {
        let mut values = row.to_vec();
        if form == Form::Tid {
            values[0] = plus_lane(operands[0], row[0], lane);
        }
        let (name, inputs) = shape.name(form.name(spread), operands, &values);
        batch.expect(&slot, lane, name, inputs, (shape.expect)(&values));
    }
}

/// The batches `fill` writes, once run by `count` invocations of one workgroup (`<name>.lid`) and
/// once by `count` workgroups of one invocation (`<name>.gid`): a driver may compile a value that
/// is the same across the workgroup (the fuzzed programs' `gid.x`) otherwise than one that is not.
pub(crate) fn by_invocation(
    area: Area,
    name: &str,
    count: u32,
    fill: impl Fn(&mut Snippets),
) -> Vec<Batch> {
    [Spread::Lanes(count), Spread::Workgroups(count)]
        .into_iter()
        .flat_map(|spread| {
            let mut batch = Snippets::new(area, format!("{name}.{}", spread.name()), spread);
            fill(&mut batch);
            batch.into_batches()
        })
        .collect()
}

/// One batch holding every shape over every row with the operands loaded ([`Form::Load`]).
pub(crate) fn loaded(
    area: Area,
    name: impl Into<String>,
    operands: &[DataType],
    rows: Vec<Vec<u64>>,
    shapes: &[Shape],
) -> Batch {
    let batch = Elementwise::new(area, name, operands.to_vec()).rows(rows);
    shapes
        .iter()
        .fold(batch, |b, shape| {
            let (build, expect) = (shape.build.clone(), shape.expect.clone());
            b.op(ElementOp::new(
                format!("driver.{}.{}", shape.id, Form::Load.name(Spread::One)),
                shape.result,
                move |e| build(e),
                move |w| expect(w),
            ))
        })
        .into_batch()
}
