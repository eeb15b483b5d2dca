//! The rewrites, each with the law (SEMANTICS.md) that makes the rewritten program mean exactly
//! what the original means. Each returns `None` where it has nothing to rewrite.

use vyre_foundation::ir::{BinOp, DataType, Expr, Literal, Node, Program};

use crate::fuzz::metamorphic::opaque::{OpaqueZero, fresh_name};
use crate::fuzz::metamorphic::walk::{bodies, body_mut, rewrite_exprs};

/// Swaps the operands of every commutative operator.
///
/// **Law.** `a op b` is `b op a` for `op` in `add mul min max bit_and bit_or bit_xor eq ne` on
/// integers (wrapping arithmetic and bitwise operations, SEMANTICS.md section 4), `eq ne and or` on
/// bools (`and`/`or` evaluate both sides, section 5), and `add mul eq ne` on `f32` and `f16` (IEEE
/// addition and multiplication are commutative, NaN payloads aside, which the float comparison
/// ignores; the comparisons are ordered both ways, section 7). Float `min` and `max` are left
/// alone: with one NaN operand the law lets them return the NaN or the other operand (section 7),
/// so the two orders may legally differ. Operands are evaluated left to right, which matters only
/// for atomics (section 2), so an operator with an atomic in either operand keeps its order.
///
/// `types` are the original's expression types by number (`walk.rs`); the left operand of the
/// expression numbered `k` is numbered `k + 1`.
pub(super) fn swap_operands(program: &Program, types: &[Option<DataType>]) -> Option<Program> {
    let mut out = program.clone();
    let mut swapped = 0;
    rewrite_exprs(&mut out.body, &mut |k, e| {
        let Expr::Binary { op, lhs, rhs } = e else {
            return;
        };
        let operand = types.get(k + 1).copied().flatten();
        if operand.is_some_and(|t| commutes(*op, t)) && !lhs.has_atomic() && !rhs.has_atomic() {
            swapped += usize::from(lhs != rhs);
            std::mem::swap(lhs, rhs);
        }
    });
    // Only operators whose operands differ change the program.
    (swapped > 0).then_some(out)
}

/// True when `op` on operands of type `ty` is commutative bit for bit (see [`swap_operands`]).
fn commutes(op: BinOp, ty: DataType) -> bool {
    match op {
        BinOp::Add | BinOp::Mul | BinOp::Eq | BinOp::Ne => true,
        BinOp::Min | BinOp::Max => !ty.is_float(),
        BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor | BinOp::And | BinOp::Or => true,
        BinOp::Sub
        | BinOp::Div
        | BinOp::Rem
        | BinOp::Shl
        | BinOp::Shr
        | BinOp::Lt
        | BinOp::Le
        | BinOp::Gt
        | BinOp::Ge => false,
    }
}

/// Rewrites the integer expressions `x` numbered in `picked` as `x op zero` (`op` is `add` or
/// `bit_xor`), with the opaque zero converted to `x`'s type.
///
/// **Law.** `x + 0 = x` (wrapping addition, SEMANTICS.md section 4) and `x ^ 0 = x` (bitwise) at
/// every integer width and signedness, and the opaque zero is 0 (`opaque.rs`; an integer
/// conversion keeps the value 0, section 6). Nothing else changes: the zero is a load, which has no
/// effect, and it is uniform, so the rewritten `x` is uniform exactly where `x` was (barriers and
/// subgroup operations stay valid). Any integer expression may be rewritten, indices, loop bounds,
/// shift amounts and atomic operands included: each keeps its type and its value; the caller
/// leaves out the operands of `lid.x / subgroup_size()` (`walk::subgroup_index_operands`), whose
/// subgroup uniformity the validator sees by its shape.
pub(super) fn with_opaque_zero(
    program: &Program,
    types: &[Option<DataType>],
    zero: &OpaqueZero,
    op: BinOp,
    picked: &[usize],
) -> Option<Program> {
    if picked.is_empty() {
        return None;
    }
    let mut out = program.clone();
    rewrite_exprs(&mut out.body, &mut |k, e| {
        let Some(ty) = types.get(k).copied().flatten() else {
            return;
        };
        if ty.is_integer() && picked.binary_search(&k).is_ok() {
            let x = std::mem::replace(e, Expr::Lit(Literal::Bool(false)));
            *e = Expr::binary(op, x, zero.of(ty));
        }
    });
    Some(out)
}

/// The integer expressions of a program whose types are `types`, by number.
pub(super) fn integer_exprs(types: &[Option<DataType>]) -> Vec<usize> {
    let integer = |t: &Option<DataType>| t.is_some_and(DataType::is_integer);
    (0..types.len()).filter(|&k| integer(&types[k])).collect()
}

/// Wraps the statements of body number `at.0` from statement `at.1` on in
/// `if zero[0u] == 0u { ... }`.
///
/// **Law.** The condition is true (the opaque zero is 0), so the statements run exactly as before,
/// once. They are the whole rest of their body, so no statement after them could have seen a
/// variable they declare, whose scope now ends at the same place. The condition is uniform, so
/// barriers and subgroup operations among them stay in uniform control flow (SEMANTICS.md sections
/// 2 and 9), and a `break` or `continue` among them still leaves the loop it left before (an `if`
/// is no loop).
pub(super) fn wrap_in_if(
    program: &Program,
    zero: &OpaqueZero,
    at: (usize, usize),
) -> Option<Program> {
    let cond = Expr::eq(zero.word(), Expr::u32(0));
    wrap(program, at, |rest| Node::if_then(cond, rest))
}

/// Wraps the statements of body number `at.0` from statement `at.1` on in
/// `for i in 0u..(1u + zero[0u]) { ... }` with a fresh `i`.
///
/// **Law.** The loop runs exactly one iteration (its bounds are evaluated once, SEMANTICS.md section
/// 2, and the opaque zero is 0), and its counter has a name nothing else uses, so the statements
/// run exactly as before; scopes as for [`wrap_in_if`]. The bounds are uniform, so barriers and
/// subgroup operations stay in uniform control flow. A `break` or `continue` among the statements
/// that belongs to an enclosing loop would now leave the new loop instead: such statements are never
/// wrapped ([`escapes_loop`]). Nor is a `return`: the validator cannot know the loop runs once, and
/// takes a `return` in some invocations to make everything in the loop after the first iteration,
/// and every variable it assigns, non-uniform (SEMANTICS.md section 2), which would make a barrier
/// or subgroup operation before the `return` invalid.
pub(super) fn wrap_in_loop(
    program: &Program,
    zero: &OpaqueZero,
    at: (usize, usize),
) -> Option<Program> {
    if !loop_wrappable(program, at) {
        return None;
    }
    let var = fresh_name(program, "once");
    let to = Expr::add(Expr::u32(1), zero.word());
    wrap(program, at, |rest| {
        Node::loop_for(var, Expr::u32(0), to, rest)
    })
}

/// True when [`wrap_in_loop`] may wrap the statements of body `at.0` from `at.1` on: there are
/// some, and none holds a `break` or `continue` of an enclosing loop or a `return`.
pub(super) fn loop_wrappable(program: &Program, at: (usize, usize)) -> bool {
    let suffix = bodies(&program.body)
        .get(at.0)
        .and_then(|body| body.get(at.1..))
        .unwrap_or_default();
    !suffix.is_empty() && !suffix.iter().any(|n| escapes_loop(n) || returns(n))
}

/// True when `node` holds a `break` or `continue` that is not inside a loop of its own.
pub(super) fn escapes_loop(node: &Node) -> bool {
    match node {
        Node::Break | Node::Continue => true,
        Node::Loop { .. } | Node::While { .. } => false,
        Node::If { .. } | Node::Block(_) => node.bodies().flatten().any(escapes_loop),
        Node::Let { .. }
        | Node::Assign { .. }
        | Node::Store { .. }
        | Node::PrivateArray { .. }
        | Node::ArrayStore { .. }
        | Node::Tile { .. }
        | Node::TileLoad { .. }
        | Node::TileStore { .. }
        | Node::TileMultiplyAdd { .. }
        | Node::Barrier
        | Node::Return
        | Node::Atomic { .. } => false,
    }
}

/// True when `node` holds a `return`, at any depth.
fn returns(node: &Node) -> bool {
    matches!(node, Node::Return) || node.bodies().flatten().any(returns)
}

/// `program` with the statements of body `at.0` from `at.1` on replaced by `wrapper(them)`.
fn wrap(
    program: &Program,
    at: (usize, usize),
    wrapper: impl FnOnce(Vec<Node>) -> Node,
) -> Option<Program> {
    let mut out = program.clone();
    let body = body_mut(&mut out.body, at.0)?;
    if at.1 >= body.len() {
        return None;
    }
    let rest = body.split_off(at.1);
    body.push(wrapper(rest));
    Some(out)
}

/// Inserts `if zero[0u] != 0u { ... }` before statement `at.1` of body number `at.0` (or at its end),
/// holding a store of a literal into the program's first output and a copy of the last store,
/// assignment or atomic statement before it in the same body.
///
/// **Law.** The condition is false (the opaque zero is 0), so the inserted statements never run
/// and the program means what it meant. They are valid where they stand: the copied statement's
/// variables were in scope before it, and scopes only grow along a body. The condition is uniform,
/// so nothing after it changes uniformity. A statement with a subgroup operation is never copied:
/// the place may follow a `return` only some invocations take, where no subgroup operation may
/// stand (found by the first metamorphic campaign over the driver shapes).
pub(super) fn dead_code(
    program: &Program,
    zero: &OpaqueZero,
    at: (usize, usize),
) -> Option<Program> {
    let output = program.output_buffers().next()?;
    let store = Node::store(output.name.as_str(), Expr::u32(0), junk(output.element));
    let mut out = program.clone();
    let body = body_mut(&mut out.body, at.0)?;
    if at.1 > body.len() {
        return None;
    }
    let copyable = |n: &&Node| {
        matches!(
            n,
            Node::Store { .. } | Node::Assign { .. } | Node::Atomic { .. }
        ) && !n.exprs().any(Expr::has_subgroup_op)
    };
    let copied = body[..at.1].iter().rev().find(copyable).cloned();
    let mut dead = vec![store];
    dead.extend(copied);
    let cond = Expr::ne(zero.word(), Expr::u32(0));
    body.insert(at.1, Node::if_then(cond, dead));
    Some(out)
}

/// A literal of type `ty` no generated program stores by chance.
fn junk(ty: DataType) -> Expr {
    match ty {
        DataType::Bool => Expr::bool(true),
        DataType::U32 => Expr::u32(0xdead_beef),
        DataType::I32 => Expr::i32(-0x2152_4111),
        DataType::F32 => Expr::f32(1234.5),
        DataType::F16 => Expr::f16(-27.5),
        DataType::U64 => Expr::u64(0xdead_beef_0bad_f00d),
        DataType::I64 => Expr::i64(-0x2152_4110_f452_0ff3),
    }
}

#[cfg(test)]
mod tests {
    use vyre_foundation::ir::{BufferDecl, DataType, Expr, Node, Program};

    use super::{dead_code, wrap_in_loop};
    use crate::fuzz::metamorphic::opaque::OpaqueZero;
    use crate::r#gen::GeneratedCase;

    /// `for i in 0..4 { body }` storing into `out`, with the opaque zero added.
    fn looped(body: Vec<Node>) -> (Program, OpaqueZero) {
        let program = Program::new(
            vec![BufferDecl::output("out", 0, DataType::U32).with_count(1)],
            [1, 1, 1],
            vec![Node::loop_for("i", Expr::u32(0), Expr::u32(4), body)],
        );
        let mut case = GeneratedCase {
            program,
            inputs: Vec::new(),
            config: vyre_driver::DispatchConfig::new(),
        };
        let zero = OpaqueZero::add_to(&mut case).expect("a zero");
        (case.program, zero)
    }

    fn count() -> Node {
        let out = Expr::load("out", Expr::u32(0));
        Node::store("out", Expr::u32(0), Expr::add(out, Expr::u32(1)))
    }

    #[test]
    fn a_break_of_an_enclosing_loop_is_never_wrapped_in_a_loop() {
        // Wrapped, the `break` would leave the one-trip loop and the count would reach 4, not 1.
        let exit = Node::if_then(Expr::eq(Expr::var("i"), Expr::u32(1)), vec![Node::Break]);
        let (program, zero) = looped(vec![count(), exit.clone(), count()]);
        for start in 0..2 {
            let at = (1, start);
            assert_eq!(wrap_in_loop(&program, &zero, at), None, "from {start}");
        }
        // After the exit, the rest may go in a loop.
        assert!(wrap_in_loop(&program, &zero, (1, 2)).is_some());
        let (program, zero) = looped(vec![count(), Node::Continue]);
        assert_eq!(wrap_in_loop(&program, &zero, (1, 1)), None);
        // A `break` of a loop of its own goes along with that loop.
        let inner = Node::loop_for("j", Expr::u32(0), Expr::u32(2), vec![exit]);
        let (program, zero) = looped(vec![count(), inner]);
        assert!(wrap_in_loop(&program, &zero, (1, 0)).is_some());
    }

    #[test]
    fn a_return_is_never_wrapped_in_a_loop() {
        let (program, zero) = looped(vec![
            count(),
            Node::if_then(Expr::bool(true), vec![Node::Return]),
        ]);
        assert_eq!(wrap_in_loop(&program, &zero, (1, 0)), None);
        assert!(wrap_in_loop(&program, &zero, (0, 0)).is_none());
    }

    #[test]
    fn dead_code_never_copies_a_subgroup_operation() {
        // After a `return` only some invocations take, a copy of the first store would put a
        // subgroup operation in non-uniform control flow.
        let tid = || Expr::var("tid");
        let program = Program::new(
            vec![BufferDecl::output("out", 0, DataType::U32).with_count(4)],
            [4, 1, 1],
            vec![
                Node::let_bind("tid", Expr::gid_x()),
                Node::store("out", tid(), Expr::subgroup_add(Expr::u32(1))),
                Node::if_then(Expr::eq(tid(), Expr::u32(0)), vec![Node::Return]),
            ],
        );
        let mut case = GeneratedCase {
            program,
            inputs: Vec::new(),
            config: vyre_driver::DispatchConfig::new(),
        };
        let zero = OpaqueZero::add_to(&mut case).expect("a zero");
        let rewritten = dead_code(&case.program, &zero, (0, 3)).expect("dead code");
        if let Err(e) = vyre_foundation::validate(&rewritten) {
            panic!("{e}\n{rewritten}");
        }
    }
}
