//! The raw generator: structurally arbitrary programs, most of them invalid.
//!
//! Names come from a small pool that mixes declared, undeclared and malformed names; types, operators,
//! access modes, counts and workgroup sizes are drawn without regard to the rules, so the validator
//! sees every kind of error (and, now and then, a valid program a backend must run without panicking).

use proptest::collection::vec;
use proptest::prelude::{BoxedStrategy, Just, Strategy, any, prop_oneof};
use vyre_foundation::ir::{
    AtomicOp, Axis, BinOp, BufferAccess, BufferDecl, Builtin, DataType, Expr, Literal, Node,
    Program, UnOp,
};

/// Names: some are the buffer names [`raw_program`] declares, some are not identifiers at all.
const NAMES: [&str; 10] = ["a", "b", "in0", "out0", "rw0", "wg0", "x", "", "9z", "i"];

fn name() -> impl Strategy<Value = String> {
    (0..NAMES.len()).prop_map(|i| NAMES[i].to_owned())
}

fn data_type() -> impl Strategy<Value = DataType> {
    (0..DataType::ALL.len()).prop_map(|i| DataType::ALL[i])
}

fn literal() -> impl Strategy<Value = Literal> {
    prop_oneof![
        any::<bool>().prop_map(Literal::Bool),
        prop_oneof![0..8u32, any::<u32>()].prop_map(Literal::U32),
        prop_oneof![-4..4i32, any::<i32>()].prop_map(Literal::I32),
        any::<u32>().prop_map(Literal::F32),
    ]
}

fn builtin() -> impl Strategy<Value = Builtin> {
    (0..4u8, 0..3usize).prop_map(|(kind, axis)| {
        let axis = [Axis::X, Axis::Y, Axis::Z][axis];
        match kind {
            0 => Builtin::GlobalId(axis),
            1 => Builtin::LocalId(axis),
            2 => Builtin::WorkgroupId(axis),
            _ => Builtin::NumWorkgroups(axis),
        }
    })
}

fn raw_expr() -> BoxedStrategy<Expr> {
    let leaf = prop_oneof![
        3 => literal().prop_map(Expr::Lit),
        2 => name().prop_map(Expr::Var),
        1 => name().prop_map(Expr::BufLen),
        1 => builtin().prop_map(Expr::Builtin),
    ];
    leaf.prop_recursive(5, 48, 3, |inner| {
        let binop = (0..BinOp::ALL.len()).prop_map(|i| BinOp::ALL[i]);
        let unop = (0..UnOp::ALL.len()).prop_map(|i| UnOp::ALL[i]);
        let atomic_op = (0..AtomicOp::ALL.len()).prop_map(|i| AtomicOp::ALL[i]);
        prop_oneof![
            (name(), inner.clone()).prop_map(|(b, i)| Expr::load(b, i)),
            (binop, inner.clone(), inner.clone()).prop_map(|(op, l, r)| Expr::binary(op, l, r)),
            (unop, inner.clone()).prop_map(|(op, a)| Expr::unary(op, a)),
            (inner.clone(), inner.clone(), inner.clone())
                .prop_map(|(c, t, f)| Expr::select(c, t, f)),
            (data_type(), inner.clone()).prop_map(|(t, a)| Expr::cast(t, a)),
            (data_type(), inner.clone()).prop_map(|(t, a)| Expr::bitcast(t, a)),
            (inner.clone(), inner.clone(), inner.clone()).prop_map(|(a, b, c)| Expr::fma(a, b, c)),
            (
                atomic_op,
                name(),
                inner.clone(),
                proptest::option::of(inner.clone()),
                inner
            )
                .prop_map(|(op, buffer, index, expected, value)| Expr::Atomic {
                    op,
                    buffer,
                    index: Box::new(index),
                    expected: expected.map(Box::new),
                    value: Box::new(value),
                }),
        ]
    })
    .boxed()
}

fn raw_node() -> BoxedStrategy<Node> {
    let leaf = prop_oneof![
        (name(), raw_expr()).prop_map(|(n, v)| Node::let_bind(n, v)),
        (name(), raw_expr()).prop_map(|(n, v)| Node::assign(n, v)),
        (name(), raw_expr(), raw_expr()).prop_map(|(b, i, v)| Node::store(b, i, v)),
        Just(Node::Barrier),
        Just(Node::Return),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        let body = vec(inner, 0..4);
        prop_oneof![
            (raw_expr(), body.clone(), body.clone())
                .prop_map(|(c, t, o)| Node::if_then_else(c, t, o)),
            (name(), raw_expr(), raw_expr(), body.clone())
                .prop_map(|(v, f, t, b)| Node::loop_for(v, f, t, b)),
            body.prop_map(Node::Block),
        ]
    })
    .boxed()
}

fn raw_buffer() -> impl Strategy<Value = BufferDecl> {
    let access = (0..5usize).prop_map(|i| {
        [
            BufferAccess::Read,
            BufferAccess::ReadWrite,
            BufferAccess::Output,
            BufferAccess::Uniform,
            BufferAccess::Workgroup,
        ][i]
    });
    let count = prop_oneof![Just(0u32), 1..8u32, Just(1 << 20)];
    let range = proptest::option::of((0..40usize, 0..40usize));
    (name(), 0..4u32, access, data_type(), count, range).prop_map(
        |(name, binding, access, element, count, range)| BufferDecl {
            name,
            binding,
            access,
            element,
            count,
            output_byte_range: range.map(|(a, b)| a..b),
        },
    )
}

/// Structurally arbitrary programs over a small name pool; most are invalid.
pub fn raw_program() -> impl Strategy<Value = Program> {
    let dim = prop_oneof![Just(1u32), 1..5u32, Just(0), Just(64), Just(2000)];
    (
        vec(raw_buffer(), 0..5),
        [dim.clone(), dim.clone(), dim],
        vec(raw_node(), 0..6),
    )
        .prop_map(|(buffers, workgroup_size, body)| Program::new(buffers, workgroup_size, body))
}

/// Arbitrary inputs for `program`: usually one whole-element vector per input buffer, sometimes a
/// missing or extra vector or a byte length that is not a whole number of elements.
pub fn raw_inputs(program: &Program) -> impl Strategy<Value = Vec<Vec<u8>>> + use<> {
    let n = program.input_buffers().count();
    (0..8u8, vec(vec(any::<u32>(), 0..12), n + 1)).prop_map(move |(mode, words)| {
        let mut inputs: Vec<Vec<u8>> = words
            .iter()
            .map(|w| w.iter().flat_map(|x| x.to_le_bytes()).collect())
            .collect();
        match mode {
            0 => {}
            1 => {
                inputs.truncate(n);
                if let Some(first) = inputs.first_mut() {
                    first.push(7);
                }
            }
            2 => inputs.truncate(n.saturating_sub(1)),
            _ => inputs.truncate(n),
        }
        inputs
    })
}
