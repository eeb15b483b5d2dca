//! Which read-only buffers a plain launch declares as `vec4` rows, which workgroup buffers every
//! launch declares as rows, and how an index splits into an aligned base and a lane (see
//! `lower/rows.rs` for the forms and why they are exact).

use vyre_foundation::ir::{BinOp, BufferAccess, BufferDecl, DataType, Expr, Node};
use vyre_foundation::validate::{BufferUse, Validated, VarId};

use super::tiles::transfer_aligned;
use super::zeros::{KnownZeros, literal_word};

/// The multiple of 4 an aligned index starts from.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Base<'a> {
    /// A literal: `v & !3`.
    Literal(u32),
    /// An expression of the program, a multiple of 4 in every evaluation, plus a literal
    /// multiple of 4.
    Expr(&'a Expr, u32),
    /// A variable of [`Aligned`] (declared by a `let` of a multiple of 4, never assigned), plus a
    /// literal multiple of 4.
    Var(VarId, u32),
}

/// Variables declared by a `let` of a multiple of 4 and never assigned, and variables declared
/// by a `let` of one of those plus a literal (`v + k`, `k + v`, or `v | c` with `c` below 4) and
/// never assigned: the form common-subexpression elimination leaves `b + 1`, `b + 2`, `b + 3` in
/// when several statements read them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Aligned {
    /// The variables' known trailing zeros: two or more make a multiple of 4.
    zeros: KnownZeros,
    /// `(variable, its aligned base variable, the literal added)`.
    offsets: Vec<(VarId, VarId, u32)>,
}

impl Aligned {
    pub(crate) fn note(&mut self, evidence: &Validated<'_>, node: &Node) {
        self.zeros.note(evidence, node);
        if let Node::Let { value, .. } = node
            && let Ok(id) = evidence.node_var(node)
            && evidence.var(id).is_ok_and(|v| !v.assigned)
            && self.zeros.var(id) < 2
            && let Some((base, c)) = self.var_plus_lane(evidence, value)
        {
            self.offsets.push((id, base, c));
        }
    }

    /// `v + k` or `k + v` (any literal `k`), or `v | c` or `c | v` (a literal lane `c`), with `v`
    /// an aligned variable.
    fn var_plus_lane(&self, evidence: &Validated<'_>, value: &Expr) -> Option<(VarId, u32)> {
        let Expr::Binary { op, lhs, rhs } = value else {
            return None;
        };
        if !matches!(op, BinOp::Add | BinOp::BitOr) {
            return None;
        }
        let var = |e: &Expr| {
            matches!(e, Expr::Var(_))
                .then(|| evidence.var_of(e).ok())
                .flatten()
                .filter(|id| self.zeros.var(*id) >= 2)
        };
        let literal = |e: &Expr| {
            if let Expr::Lit(literal) = e {
                literal_word(*literal).filter(|k| *op == BinOp::Add || *k < 4)
            } else {
                None
            }
        };
        var(lhs)
            .zip(literal(rhs))
            .or_else(|| var(rhs).zip(literal(lhs)))
    }

    /// True when `expr` is a multiple of 4 in every evaluation (see the module docs).
    fn multiple_of_4(&self, evidence: &Validated<'_>, expr: &Expr) -> bool {
        self.zeros.of(evidence, expr) >= 2
    }

    /// `index` as `b + c` (see the module docs), or `None` when it is not aligned.
    pub(crate) fn split<'a>(
        &self,
        evidence: &Validated<'_>,
        index: &'a Expr,
    ) -> Option<(Base<'a>, u32)> {
        let word = |e: &Expr| {
            if let Expr::Lit(literal) = e {
                literal_word(*literal)
            } else {
                None
            }
        };
        if let Some(v) = word(index) {
            return Some((Base::Literal(v & !3), v & 3));
        }
        if let Expr::Var(_) = index
            && let Ok(id) = evidence.var_of(index)
            && let Some(&(_, base, k)) = self.offsets.iter().find(|(v, _, _)| *v == id)
        {
            return Some((Base::Var(base, k & !3), k & 3));
        }
        if let Expr::Binary { op, lhs, rhs } = index
            && matches!(op, BinOp::Add | BinOp::BitOr)
        {
            // `x + k` is `(x + (k & !3)) + (k & 3)` for any literal `k`; `x | k` only for a lane.
            let usable = |k: u32| *op == BinOp::Add || k < 4;
            if let Some(k) = word(rhs).filter(|k| usable(*k))
                && self.multiple_of_4(evidence, lhs)
            {
                return Some((self.base(evidence, lhs, k & !3), k & 3));
            }
            if let Some(k) = word(lhs).filter(|k| usable(*k))
                && self.multiple_of_4(evidence, rhs)
            {
                return Some((self.base(evidence, rhs, k & !3), k & 3));
            }
        }
        self.multiple_of_4(evidence, index)
            .then(|| (self.base(evidence, index, 0), 0))
    }

    /// The base `expr + plus` of a multiple of 4 `expr`: an aligned variable as [`Base::Var`], so
    /// that `b`, `b + 1` and a variable bound to `b + 2` all name the same base.
    fn base<'a>(&self, evidence: &Validated<'_>, expr: &'a Expr, plus: u32) -> Base<'a> {
        if let Expr::Var(_) = expr
            && let Ok(id) = evidence.var_of(expr)
            && self.zeros.var(id) >= 2
        {
            return Base::Var(id, plus);
        }
        Base::Expr(expr, plus)
    }
}

/// What the row form knows of a program with row buffers: which buffers, and every variable
/// declared by a `let` of a multiple of 4 and never assigned (the emission splits each load index
/// with these, see [`Aligned::split`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct RowFacts {
    /// Per program buffer: declared as `vec4` rows.
    pub(crate) buffers: Vec<bool>,
    pub(crate) aligned: Aligned,
}

/// Per program buffer, from one walk: whether every load of it is at an aligned index, the lanes
/// those loads read (a bit each), the lanes its aligned stores write, whether a tile moves through
/// it and whether every such tile transfer's offset and stride are proven multiples of 16 bytes
/// (`analysis::tiles`); with the aligned variables.
struct Loads {
    aligned: Aligned,
    all_aligned: Vec<bool>,
    lanes: Vec<u8>,
    store_lanes: Vec<u8>,
    tiled: Vec<bool>,
    tiles_aligned: Vec<bool>,
}

fn loads(evidence: &Validated<'_>) -> Loads {
    let program = evidence.program();
    let n = program.buffers.len();
    let mut aligned = Aligned::default();
    let mut all_aligned = vec![true; n];
    let mut lanes = vec![0u8; n];
    let mut store_lanes = vec![0u8; n];
    let mut tiled = vec![false; n];
    let mut tiles_aligned = vec![true; n];
    // Declarations come before their uses in the walk, so every aligned variable is known at its
    // uses.
    vyre_foundation::for_each_node(&program.body, |node| {
        aligned.note(evidence, node);
        if let Node::TileLoad { offset, stride, .. } | Node::TileStore { offset, stride, .. } = node
        {
            match evidence.node_buffer(node) {
                Ok(b) => {
                    tiled[b.index()] = true;
                    let proven = program.buffers.get(b.index()).is_some_and(|d| {
                        transfer_aligned(&aligned.zeros, evidence, (offset, stride), d.element)
                    });
                    if !proven {
                        tiles_aligned[b.index()] = false;
                    }
                }
                // Without the evidence, no buffer can be known untouched by tiles.
                Err(_) => {
                    tiled.iter_mut().for_each(|t| *t = true);
                    tiles_aligned.iter_mut().for_each(|t| *t = false);
                }
            }
        }
        if let Node::Store { index, .. } = node
            && let Ok(b) = evidence.node_buffer(node)
            && let Some((_, c)) = aligned.split(evidence, index)
        {
            store_lanes[b.index()] |= 1 << c;
        }
        for expr in node.exprs() {
            vyre_foundation::for_each_subexpr(expr, |e| {
                if let Expr::Load { index, .. } = e
                    && let Ok(b) = evidence.buffer_of(e)
                {
                    match aligned.split(evidence, index) {
                        Some((_, c)) => lanes[b.index()] |= 1 << c,
                        None => all_aligned[b.index()] = false,
                    }
                }
            });
        }
    });
    Loads {
        aligned,
        all_aligned,
        lanes,
        store_lanes,
        tiled,
        tiles_aligned,
    }
}

/// Per program buffer: `kind` holds of its declaration, uses and accesses, and every load of it is
/// at an aligned index; with the aligned variables, when some buffer qualifies.
fn aligned_buffers(
    evidence: &Validated<'_>,
    kind: impl Fn(&BufferDecl, Option<&BufferUse>, &Loads, usize) -> bool,
) -> Option<(Vec<bool>, Aligned)> {
    let found = loads(evidence);
    let uses = evidence.buffer_uses();
    let rows: Vec<bool> = evidence
        .program()
        .buffers
        .iter()
        .enumerate()
        .map(|(j, decl)| kind(decl, uses.get(j), &found, j) && found.all_aligned[j])
        .collect();
    rows.contains(&true).then_some((rows, found.aligned))
}

/// Whether buffers of `element` can be declared as `vec4` rows: 32-bit elements (16-byte rows) and
/// `f16` (8-byte rows: a tensor-core kernel's operands, read four at a time). 64-bit elements stay
/// scalar.
fn row_element(element: DataType) -> bool {
    matches!(element.size_bytes(), 2 | 4)
}

/// The program's [`RowFacts`], or `None` when no buffer qualifies.
pub(crate) fn row_facts(evidence: &Validated<'_>) -> Option<RowFacts> {
    // A tile moves a buffer through a pointer to one element (`lower/tile.rs`): never rows.
    let (buffers, aligned) = aligned_buffers(evidence, |decl, uses, found, j| {
        decl.access == BufferAccess::Read
            && row_element(decl.element)
            && !uses.is_some_and(|u| u.atomic || u.stored)
            && !found.tiled[j]
            && found.lanes[j].count_ones() >= 2
    })?;
    Some(RowFacts { buffers, aligned })
}

/// The workgroup buffers a module declares as `vec4` rows (`lower/rows.rs`, "Workgroup rows"),
/// with the aligned variables that split their indices.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct WorkgroupRows {
    /// Per program buffer: a workgroup buffer declared as rows.
    pub(crate) buffers: Vec<bool>,
    pub(crate) aligned: Aligned,
}

/// The program's [`WorkgroupRows`], or `None` when no workgroup buffer qualifies: one of 32-bit
/// or `f16` elements whose count is a multiple of 4, never updated atomically, whose every load is
/// at an aligned index, with at least two different lanes among them; or, for one a tile moves
/// through, every tile transfer's offset and stride proven multiples of 16 bytes and at least two
/// different lanes among its aligned loads and stores together (a tensor-core kernel's stage,
/// written four elements at a time and read by tiles only).
pub(crate) fn workgroup_rows(evidence: &Validated<'_>) -> Option<WorkgroupRows> {
    let program = evidence.program();
    if !program
        .buffers
        .iter()
        .any(|b| b.access == BufferAccess::Workgroup)
    {
        return None;
    }
    let (buffers, aligned) = aligned_buffers(evidence, |decl, uses, found, j| {
        let lanes = if found.tiled[j] {
            if !found.tiles_aligned[j] {
                return false;
            }
            found.lanes[j] | found.store_lanes[j]
        } else {
            found.lanes[j]
        };
        decl.access == BufferAccess::Workgroup
            && row_element(decl.element)
            && decl.count > 0
            && decl.count % 4 == 0
            && !uses.is_some_and(|u| u.atomic)
            && lanes.count_ones() >= 2
    })?;
    Some(WorkgroupRows { buffers, aligned })
}

#[cfg(test)]
mod tests {
    use super::*;
    use vyre_foundation::ir::DataType;
    use vyre_foundation::ir::{BufferDecl, Program, TileLayout, TileRole, TileType};

    fn rows_of(body: Vec<Node>) -> Option<Vec<bool>> {
        let program = Program::new(
            vec![
                BufferDecl::read("data", 0, DataType::U32),
                BufferDecl::output("out", 1, DataType::U32).with_count(64),
            ],
            [64, 1, 1],
            body,
        );
        let evidence = vyre_foundation::validate(&program).expect("valid");
        row_facts(&evidence).map(|facts| facts.buffers)
    }

    fn sum_of(indices: Vec<Expr>) -> Node {
        let mut sum = Expr::u32(0);
        for i in indices {
            sum = Expr::add(sum, Expr::load("data", i));
        }
        Node::store("out", Expr::gid_x(), sum)
    }

    #[test]
    fn a_buffer_a_tile_loads_is_never_rows() {
        // Found by the GPU fuzzer (seed 98002): `f16` rows of a buffer a tile also loads left the
        // tile lowering a `vec4` buffer it cannot point into.
        let program = Program::new(
            vec![
                BufferDecl::read("src", 0, DataType::F16).with_count(576),
                BufferDecl::output("out", 1, DataType::F16).with_count(64),
            ],
            [32, 1, 1],
            vec![
                Node::tile("t", TileType::new(TileRole::B, 16, 16, DataType::F16)),
                Node::tile_load(
                    "t",
                    "src",
                    Expr::u32(320),
                    Expr::u32(16),
                    TileLayout::RowMajor,
                ),
                Node::store(
                    "out",
                    Expr::gid_x(),
                    Expr::add(
                        Expr::load("src", Expr::u32(0)),
                        Expr::load("src", Expr::u32(1)),
                    ),
                ),
            ],
        );
        let evidence = vyre_foundation::validate(&program).expect("valid");
        assert_eq!(row_facts(&evidence).map(|f| f.buffers), None);
        // The same loads without the tile are rows.
        let mut untiled = program.clone();
        untiled.body.drain(..2);
        let evidence = vyre_foundation::validate(&untiled).expect("valid");
        assert_eq!(
            row_facts(&evidence).map(|f| f.buffers),
            Some(vec![true, false])
        );
    }

    /// A tensor-core stage: a workgroup buffer written four elements at a time and read only by
    /// tiles is rows when every tile offset and stride is a proven multiple of 16 bytes (8 `f16`
    /// elements), and stays scalar otherwise.
    #[test]
    fn a_stage_tiles_read_at_aligned_offsets_is_workgroup_rows() {
        let stage = |offset: u32, stride: u32| {
            let dst = || Expr::mul(Expr::local_x(), Expr::u32(8));
            let mut body = vec![Node::tile(
                "t",
                TileType::new(TileRole::A, 16, 16, DataType::F16),
            )];
            for c in 0..4 {
                body.push(Node::store(
                    "st",
                    Expr::add(dst(), Expr::u32(c)),
                    Expr::f16(1.0),
                ));
            }
            body.push(Node::Barrier);
            body.push(Node::tile_load(
                "t",
                "st",
                Expr::u32(offset),
                Expr::u32(stride),
                TileLayout::RowMajor,
            ));
            Program::new(
                vec![
                    BufferDecl::output("out", 0, DataType::F16).with_count(32),
                    BufferDecl::workgroup("st", 512, DataType::F16),
                ],
                [32, 1, 1],
                body,
            )
        };
        let rows = |program: &Program| {
            let evidence = vyre_foundation::validate(program).expect("valid");
            workgroup_rows(&evidence).map(|w| w.buffers)
        };
        assert_eq!(rows(&stage(16, 24)), Some(vec![false, true]));
        // An offset of 4 elements (8 bytes) or a stride of 20 is not 16-byte aligned.
        assert_eq!(rows(&stage(4, 24)), None);
        assert_eq!(rows(&stage(16, 20)), None);
    }

    #[test]
    fn four_loads_at_4i_plus_c_are_rows() {
        let base = || Expr::mul(Expr::gid_x(), Expr::u32(4));
        let body = vec![sum_of(
            (0..4).map(|c| Expr::add(base(), Expr::u32(c))).collect(),
        )];
        assert_eq!(rows_of(body), Some(vec![true, false]));
    }

    #[test]
    fn shifts_lets_and_or_are_aligned() {
        let body = vec![
            Node::let_bind("b", Expr::shl(Expr::gid_x(), Expr::u32(2))),
            sum_of(vec![
                Expr::var("b"),
                Expr::bit_or(Expr::var("b"), Expr::u32(3)),
                Expr::add(Expr::u32(1), Expr::var("b")),
            ]),
        ];
        assert_eq!(rows_of(body), Some(vec![true, false]));
    }

    #[test]
    fn an_unaligned_load_or_an_assigned_base_keeps_the_scalar_form() {
        let base = || Expr::mul(Expr::gid_x(), Expr::u32(4));
        let mixed = vec![sum_of(vec![
            Expr::add(base(), Expr::u32(1)),
            Expr::add(base(), Expr::u32(2)),
            Expr::gid_x(),
        ])];
        assert_eq!(rows_of(mixed), None);
        // A stride of 2 is not a multiple of 4, nor a shift by 1.
        let two = vec![sum_of(vec![
            Expr::mul(Expr::gid_x(), Expr::u32(2)),
            Expr::add(Expr::shl(Expr::gid_x(), Expr::u32(1)), Expr::u32(1)),
        ])];
        assert_eq!(rows_of(two), None);
        // A shift by 33 is a shift by 1.
        let wide = vec![sum_of(vec![
            Expr::shl(Expr::gid_x(), Expr::u32(33)),
            Expr::add(Expr::shl(Expr::gid_x(), Expr::u32(33)), Expr::u32(1)),
        ])];
        assert_eq!(rows_of(wide), None);
        let assigned = vec![
            Node::let_bind("b", Expr::mul(Expr::gid_x(), Expr::u32(4))),
            Node::assign("b", Expr::add(Expr::var("b"), Expr::u32(1))),
            sum_of(vec![
                Expr::var("b"),
                Expr::add(Expr::var("b"), Expr::u32(1)),
            ]),
        ];
        assert_eq!(rows_of(assigned), None);
    }

    #[test]
    fn one_lane_alone_keeps_the_scalar_form() {
        let body = vec![sum_of(vec![
            Expr::mul(Expr::gid_x(), Expr::u32(4)),
            Expr::mul(Expr::u32(8), Expr::gid_x()),
        ])];
        assert_eq!(rows_of(body), None);
    }
}
