//! Which programs the vectorised form takes, and how: the buffers it declares as `vec4` rows and
//! what the full-row path must know of each (see `lower/vector.rs` for the form and why it is
//! exact).

use vyre_foundation::ir::{Axis, BufferAccess, Builtin, Expr, Node};
use vyre_foundation::validate::Validated;

use vyre_foundation::elementwise::GidAliases;

/// Virtual invocations (elements) per invocation of a vectorised module.
pub(crate) const WIDTH: u32 = 4;

/// How a program is vectorised.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct VectorPlan {
    /// Per program buffer: declared as `vec4` rows.
    pub(crate) vectorised: Vec<bool>,
    /// Per program buffer: some load reads it.
    pub(crate) loaded: Vec<bool>,
    /// Per program buffer: some store writes it.
    pub(crate) stored: Vec<bool>,
    /// Per program buffer: a statement at the top level of the body stores it, so every lane does.
    pub(crate) always_stored: Vec<bool>,
    /// Variables that only ever hold `gid.x`.
    pub(crate) aliases: GidAliases,
    /// The body reads `lid.x` or `wid.x`, which each lane then derives from its `gid.x`.
    pub(crate) uses_ids: bool,
}

/// True when the program uses subgroup operations: such a program keeps the hardware's invocation
/// layout, so no launch form that remaps invocations (vectorised, packed, split) applies to it.
pub(crate) fn uses_subgroups(evidence: &Validated<'_>) -> bool {
    evidence
        .features()
        .contains(vyre_foundation::ir::Features::SUBGROUPS)
}

/// The program's vectorisation, or `None` when it does not qualify (see the module docs).
pub(crate) fn plan(evidence: &Validated<'_>) -> Option<VectorPlan> {
    let program = evidence.program();
    let [_, y, z] = program.workgroup_size;
    // Four virtual invocations per hardware one would change which invocations share a subgroup.
    if y != 1
        || z != 1
        || evidence.buffer_uses().iter().any(|u| u.atomic)
        || uses_subgroups(evidence)
    {
        return None;
    }
    // Rows are `vec4`s of 32-bit elements (16 bytes); f16 and 64-bit buffers keep the scalar form.
    if program.buffers.iter().any(|b| !b.element.is_word()) {
        return None;
    }
    if program
        .buffers
        .iter()
        .any(|b| b.access == BufferAccess::Workgroup)
    {
        return None;
    }
    let n = program.buffers.len();
    let mut aliases = GidAliases::default();
    // Per buffer: some access is elsewhere than at `gid.x`.
    let mut elsewhere = vec![false; n];
    let mut stored = vec![false; n];
    let mut ok = true;
    let mut uses_ids = false;
    // Declarations come before their uses in the walk, so every alias is known at its uses.
    vyre_foundation::for_each_node(&program.body, |node| {
        match node {
            // Atomics are refused above through the buffer uses; the arm keeps that explicit.
            // Loops too: the four lanes run one after another in one invocation, so their loops'
            // iterations add up, and llvmpipe's loop limiter (65 535 iterations per SIMD vector
            // for the whole shader, SEMANTICS.md section 2) cut the fourth lane of elements that
            // each loop 20 000 times, well within the limit alone.
            Node::Barrier
            | Node::Return
            | Node::Atomic { .. }
            | Node::Loop { .. }
            | Node::While { .. } => ok = false,
            // A private array would be one per lane in the four-lane loop; programs with one are
            // left to the scalar form rather than argued about here.
            Node::PrivateArray { .. } | Node::ArrayStore { .. } => ok = false,
            // Tiles are the workgroup's, never a lane's.
            Node::Tile { .. }
            | Node::TileLoad { .. }
            | Node::TileStore { .. }
            | Node::TileMultiplyAdd { .. } => ok = false,
            Node::Let { .. } => aliases.note(evidence, node),
            Node::Store { index, .. } => match evidence.node_buffer(node) {
                Ok(b) => {
                    stored[b.index()] = true;
                    if !aliases.at_gid(evidence, index) {
                        elsewhere[b.index()] = true;
                    }
                }
                Err(_) => ok = false,
            },
            // `break` and `continue` stand inside loops, which are refused above.
            Node::Assign { .. }
            | Node::If { .. }
            | Node::Block(_)
            | Node::Break
            | Node::Continue => {}
        }
        for expr in node.exprs() {
            vyre_foundation::for_each_subexpr(expr, |e| {
                if matches!(
                    e,
                    Expr::Builtin(Builtin::LocalId(Axis::X) | Builtin::WorkgroupId(Axis::X))
                ) {
                    uses_ids = true;
                }
            });
        }
    });
    let mut loaded = vec![false; n];
    vyre_foundation::for_each_node(&program.body, |node| {
        for expr in node.exprs() {
            vyre_foundation::for_each_subexpr(expr, |e| {
                if let Expr::Load { index, .. } = e {
                    match evidence.buffer_of(e) {
                        Ok(b) => {
                            loaded[b.index()] = true;
                            if !aliases.at_gid(evidence, index) {
                                elsewhere[b.index()] = true;
                            }
                        }
                        Err(_) => ok = false,
                    }
                }
            });
        }
    });
    let mut vectorised = vec![false; n];
    for (j, decl) in program.buffers.iter().enumerate() {
        if decl.access.is_writable() && elsewhere[j] {
            return None;
        }
        let storage = matches!(
            decl.access,
            BufferAccess::Read | BufferAccess::ReadWrite | BufferAccess::Output
        );
        vectorised[j] = storage && !elsewhere[j] && (loaded[j] || stored[j]);
    }
    if !ok || !vectorised.contains(&true) {
        return None;
    }
    let mut always_stored = vec![false; n];
    top_level_stores(evidence, &aliases, &program.body, &mut always_stored);
    Some(VectorPlan {
        vectorised,
        loaded,
        stored,
        always_stored,
        aliases,
        uses_ids,
    })
}

/// Marks the buffers stored at `gid.x` by a statement every invocation reaches: one at the top level
/// of the body, or in a plain block there (the program has no `return`).
fn top_level_stores(
    evidence: &Validated<'_>,
    aliases: &GidAliases,
    body: &[Node],
    out: &mut [bool],
) {
    for node in body {
        match node {
            Node::Store { index, .. } if aliases.at_gid(evidence, index) => {
                if let Ok(b) = evidence.node_buffer(node) {
                    out[b.index()] = true;
                }
            }
            Node::Block(inner) => top_level_stores(evidence, aliases, inner, out),
            Node::Store { .. }
            | Node::Let { .. }
            | Node::PrivateArray { .. }
            | Node::ArrayStore { .. }
            | Node::Tile { .. }
            | Node::TileLoad { .. }
            | Node::TileStore { .. }
            | Node::TileMultiplyAdd { .. }
            | Node::Assign { .. }
            | Node::If { .. }
            | Node::Loop { .. }
            | Node::While { .. }
            | Node::Barrier
            | Node::Return
            | Node::Break
            | Node::Continue
            | Node::Atomic { .. } => {}
        }
    }
}
