//! One invalid program per validator rule (`ValidationErrorKind`), as rows of the bad-input table.
//! `vyre-foundation/tests/validate_rules.rs` checks each rule on `validate` itself, with the fine
//! distinctions of its boundaries; here the programs go through `dispatch`, so what is checked is
//! that each backend turns them into `BackendError::InvalidProgram` naming the rule, with a `Fix:`,
//! and never runs or panics on them. This is the one table of invalid programs every backend runs.

use vyre_foundation::ir::{AtomicOp, BufferDecl, DataType, Expr, Node, Program};
use vyre_foundation::validate::{MAX_EXPR_DEPTH, MAX_NODE_DEPTH};

use crate::reliability::case::{Case, Expect};

/// The buffers `a: read u32[16]`, `f: read f32[16]`, `o: output u32[16]`, `rw: read_write i32[16]`,
/// `u: uniform u32[4]`, `wg: workgroup u32[64]` around `body`.
fn with_body(body: Vec<Node>) -> Program {
    Program::wrapped(
        vec![
            BufferDecl::read("a", 0, DataType::U32).with_count(16),
            BufferDecl::read("f", 1, DataType::F32).with_count(16),
            BufferDecl::output("o", 2, DataType::U32).with_count(16),
            BufferDecl::read_write("rw", 3, DataType::I32).with_count(16),
            BufferDecl::uniform("u", 4, DataType::U32).with_count(4),
            BufferDecl::workgroup("wg", 64, DataType::U32),
        ],
        [64, 1, 1],
        body,
    )
}

fn with_buffer(buffer: BufferDecl) -> Program {
    let mut p = with_body(vec![]);
    p.buffers.push(buffer);
    p
}

fn store_o(value: Expr) -> Node {
    Node::store("o", Expr::gid_x(), value)
}

fn let_(value: Expr) -> Node {
    Node::let_bind("x", value)
}

fn atomic(op: AtomicOp, expected: Option<Expr>) -> Expr {
    Expr::Atomic {
        op,
        buffer: "rw".into(),
        index: Box::new(Expr::u32(0)),
        expected: expected.map(Box::new),
        value: Box::new(Expr::i32(1)),
    }
}

fn deep_nodes(depth: usize) -> Vec<Node> {
    let mut body = vec![Node::barrier()];
    for _ in 0..depth {
        body = vec![Node::block(body)];
    }
    body
}

fn deep_expr(depth: usize) -> Expr {
    (0..depth).fold(Expr::gid_x(), |e, i| Expr::add(e, Expr::u32(i as u32)))
}

fn invalid(name: &str, program: Program, kind: &'static str) -> Case {
    Case::both(format!("invalid: {name}"), program, Expect::Invalid(kind))
}

fn body(name: &str, nodes: Vec<Node>, kind: &'static str) -> Case {
    invalid(name, with_body(nodes), kind)
}

/// Programs that break the declaration rules.
fn declaration_cases() -> Vec<Case> {
    let mut zero = with_body(vec![]);
    zero.workgroup_size = [64, 0, 1];
    let mut large = with_body(vec![]);
    large.workgroup_size = [32, 32, 2];
    let float_atomic = Program::wrapped(
        vec![BufferDecl::read_write("acc", 0, DataType::F32).with_count(1)],
        [1, 1, 1],
        vec![let_(Expr::atomic_add("acc", Expr::u32(0), Expr::f32(1.0)))],
    );
    vec![
        invalid("workgroup size with a zero", zero, "WorkgroupSizeZero"),
        invalid("workgroup of 2048 invocations", large, "WorkgroupTooLarge"),
        invalid(
            "buffer name 9lives",
            with_buffer(BufferDecl::read("9lives", 9, DataType::U32).with_count(1)),
            "InvalidName",
        ),
        invalid(
            "two buffers named a",
            with_buffer(BufferDecl::read("a", 9, DataType::U32).with_count(1)),
            "DuplicateBufferName",
        ),
        invalid(
            "two buffers on binding 0",
            with_buffer(BufferDecl::read("b", 0, DataType::U32).with_count(1)),
            "DuplicateBinding",
        ),
        invalid(
            "output without a count",
            with_buffer(BufferDecl::output("p", 9, DataType::U32)),
            "MissingCount",
        ),
        invalid(
            "output byte range on a read buffer",
            with_buffer(
                BufferDecl::read("b", 9, DataType::U32)
                    .with_count(4)
                    .with_output_byte_range(0..4),
            ),
            "ReadbackRangeOnNonOutput",
        ),
        invalid(
            "output byte range past the buffer",
            with_buffer(
                BufferDecl::output("p", 9, DataType::U32)
                    .with_count(4)
                    .with_output_byte_range(4..20),
            ),
            "ReadbackRangeOutOfBounds",
        ),
        invalid(
            "output byte range starting past the buffer",
            with_buffer(
                BufferDecl::output("p", 9, DataType::U32)
                    .with_count(4)
                    .with_output_byte_range(usize::MAX - 3..usize::MAX),
            ),
            "ReadbackRangeOutOfBounds",
        ),
        invalid("atomic on an f32 buffer", float_atomic, "AtomicElementType"),
    ]
}

/// Programs whose bodies break a typing, scoping, uniformity or depth rule.
fn body_cases() -> Vec<Case> {
    let u = Expr::u32;
    vec![
        body(
            "load from an unknown buffer",
            vec![store_o(Expr::load("nope", u(0)))],
            "UnknownBuffer",
        ),
        body(
            "unknown variable",
            vec![store_o(Expr::var("ghost"))],
            "UnknownVariable",
        ),
        body(
            "variable redeclared in scope",
            vec![
                let_(u(1)),
                Node::if_then(Expr::bool(true), vec![let_(u(2))]),
            ],
            "VariableRedeclared",
        ),
        body(
            "assignment to a loop variable",
            vec![Node::loop_for(
                "i",
                u(0),
                u(2),
                vec![Node::assign("i", u(5))],
            )],
            "AssignToLoopVariable",
        ),
        body(
            "assignment of another type",
            vec![let_(u(1)), Node::assign("x", Expr::i32(1))],
            "AssignTypeMismatch",
        ),
        body(
            "u32 + i32",
            vec![store_o(Expr::add(u(1), Expr::i32(1)))],
            "BinaryOperandTypes",
        ),
        body(
            "negated u32",
            vec![store_o(Expr::neg(u(1)))],
            "UnaryOperandType",
        ),
        body(
            "if on a u32",
            vec![Node::if_then(u(1), vec![])],
            "ConditionNotBool",
        ),
        body(
            "select arms of two types",
            vec![store_o(Expr::select(Expr::bool(true), u(2), Expr::i32(3)))],
            "SelectArmsDiffer",
        ),
        body(
            "bitcast to bool",
            vec![let_(Expr::bitcast(DataType::Bool, u(1)))],
            "BitcastType",
        ),
        body(
            "fma of a u32",
            vec![let_(Expr::fma(Expr::f32(1.0), u(2), Expr::f32(3.0)))],
            "FmaOperandType",
        ),
        body(
            "f32 index",
            vec![store_o(Expr::load("a", Expr::f32(0.0)))],
            "IndexType",
        ),
        body(
            "f32 stored into u32",
            vec![store_o(Expr::f32(1.0))],
            "StoreTypeMismatch",
        ),
        body(
            "store to a read buffer",
            vec![Node::store("a", u(0), u(1))],
            "StoreToReadOnly",
        ),
        body(
            "loop bounds u32 to i32",
            vec![Node::loop_for("i", u(0), Expr::i32(4), vec![])],
            "LoopBoundTypes",
        ),
        body(
            "atomic on a read buffer",
            vec![let_(Expr::atomic_add("a", u(0), u(1)))],
            "AtomicOnReadOnly",
        ),
        body(
            "atomic_max of a u32 on i32",
            vec![let_(Expr::atomic_max("rw", u(0), u(1)))],
            "AtomicOperandType",
        ),
        body(
            "compare-exchange without expected",
            vec![let_(atomic(AtomicOp::CompareExchange, None))],
            "AtomicExpectedOperand",
        ),
        body(
            "barrier under lid < 32",
            vec![Node::if_then(
                Expr::lt(Expr::local_x(), u(32)),
                vec![Node::barrier()],
            )],
            "NonUniformBarrier",
        ),
        body(
            "statements nested 130 deep",
            deep_nodes(MAX_NODE_DEPTH + 2),
            "NodeNestingTooDeep",
        ),
        body(
            "statements nested 100 000 deep",
            deep_nodes(100_000),
            "NodeNestingTooDeep",
        ),
        body(
            "expression nested 512 deep",
            vec![store_o(deep_expr(MAX_EXPR_DEPTH))],
            "ExprTooDeep",
        ),
        body(
            "expression nested 100 000 deep",
            vec![store_o(deep_expr(100_000))],
            "ExprTooDeep",
        ),
    ]
}

/// Every invalid-program row of the table: one per validator rule, and one invalid program given no
/// inputs (validation comes before the input rules).
#[must_use]
pub fn invalid_program_cases() -> Vec<Case> {
    let mut cases = declaration_cases();
    cases.extend(body_cases());
    // Validation comes first on every backend: wrong inputs do not hide an invalid program.
    let mut zero = with_body(vec![]);
    zero.workgroup_size = [0, 1, 1];
    cases.push(
        Case::both(
            "invalid: workgroup size zero, and no inputs",
            zero,
            Expect::Invalid("WorkgroupSizeZero"),
        )
        .inputs(vec![]),
    );
    cases
}
