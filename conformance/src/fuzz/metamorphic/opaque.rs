//! The opaque zero: a value every invocation reads as 0 that no compiler can fold.
//!
//! It is element 0 of an extra `read` buffer of one `u32`, appended to the program with a fresh
//! name and the next free binding, whose input (appended to the case's inputs, in declaration
//! order the last one) is zero. A compiler sees a load from memory it cannot know, so `x + zero[0u]`
//! keeps `x` from being constant-folded or pattern-matched as it was written, while meaning exactly
//! `x`. The load is uniform (a read-only buffer at a literal index, SEMANTICS.md section 2), so
//! conditions and loop bounds built from it keep barriers and subgroup operations valid.
//!
//! Outputs are compared by output index, and the buffer is an input, not an output, so the
//! rewritten program's outputs line up with the original's. Its one element does not change the
//! grid a dispatch without one derives (SEMANTICS.md section 1: the largest element count of a
//! bound buffer, and every grid is at least one workgroup).

use vyre_foundation::ir::{BufferDecl, DataType, Expr, Node, Program};

use crate::r#gen::GeneratedCase;

/// The opaque zero of a rewritten case.
#[derive(Clone, Debug)]
pub(super) struct OpaqueZero {
    name: String,
}

impl OpaqueZero {
    /// Appends the zero's buffer and input to `case`; `None` when the case's inputs do not match
    /// its input buffers one for one (the zero's input would land on another buffer).
    pub(super) fn add_to(case: &mut GeneratedCase) -> Option<OpaqueZero> {
        let program = &mut case.program;
        if case.inputs.len() != program.input_buffers().count() {
            return None;
        }
        let name = fresh_name(program, "zero");
        let binding = program
            .buffers
            .iter()
            .filter(|b| b.access.is_bound())
            .map(|b| b.binding + 1)
            .max()
            .unwrap_or(0);
        program
            .buffers
            .push(BufferDecl::read(name.as_str(), binding, DataType::U32).with_count(1));
        case.inputs.push(vec![0; 4]);
        Some(OpaqueZero { name })
    }

    /// `zero[0u]`, a `u32` 0.
    pub(super) fn word(&self) -> Expr {
        Expr::load(self.name.as_str(), Expr::u32(0))
    }

    /// The opaque zero as a value of integer type `ty` (converted: `i32(zero[0u])` is 0 too).
    pub(super) fn of(&self, ty: DataType) -> Expr {
        if ty == DataType::U32 {
            self.word()
        } else {
            Expr::cast(ty, self.word())
        }
    }
}

/// `base`, or `base` followed by the first number that makes it a name no buffer or variable of
/// `program` has.
pub(super) fn fresh_name(program: &Program, base: &str) -> String {
    let taken = |name: &str| program.buffer(name).is_some() || declares(&program.body, name);
    if !taken(base) {
        return base.to_owned();
    }
    (1u64..)
        .map(|n| format!("{base}{n}"))
        .find(|n| !taken(n))
        .unwrap_or_else(|| base.to_owned())
}

/// True when some `let` or loop of `body`, at any depth, declares `name`.
fn declares(body: &[Node], name: &str) -> bool {
    body.iter().any(|node| {
        let own = match node {
            Node::Let { name: n, .. }
            | Node::Loop { var: n, .. }
            | Node::PrivateArray { name: n, .. }
            | Node::Tile { name: n, .. } => n == name,
            Node::Assign { .. }
            | Node::Store { .. }
            | Node::ArrayStore { .. }
            | Node::TileLoad { .. }
            | Node::TileStore { .. }
            | Node::TileMultiplyAdd { .. }
            | Node::If { .. }
            | Node::While { .. }
            | Node::Block(_)
            | Node::Barrier
            | Node::Return
            | Node::Break
            | Node::Continue
            | Node::Atomic { .. } => false,
        };
        own || node.bodies().any(|b| declares(b, name))
    })
}
