//! Lowering a validated [`Program`] into the reference backend's register bytecode.
//!
//! One pass over the tree: every expression gets a register (temporaries are allocated like a stack
//! and released after each statement), every typed operator becomes a resolved [`BinKind`]/[`UnKind`],
//! and literals, buffer lengths and builtins become *prefilled* registers set before a block runs, so
//! they cost nothing per instruction.

use std::collections::HashMap;

use vyre_driver::BackendError;
use vyre_foundation::ir::{BufferAccess, Builtin, DataType, Expr, Node, Program};
use vyre_foundation::validate::{BufferId, Validated, VarId};

use crate::inst::{ArrayRef, Block, BufRef, Inst, Prefill, Reg, Slot, TileRef};

mod expr;

/// A program ready to execute.
#[derive(Debug)]
pub(crate) struct Compiled {
    /// The entry body.
    pub(crate) body: Block,
    /// Registers the executor allocates per lane.
    pub(crate) num_regs: usize,
    /// Registers set before execution, by kind.
    pub(crate) prefills: Vec<(Reg, Prefill)>,
    /// Element counts of the workgroup buffers, by [`Slot::Workgroup`] index.
    pub(crate) workgroup_counts: Vec<u32>,
    /// True when the body contains a barrier.
    pub(crate) has_barrier: bool,
    /// True when some atomic targets a bound buffer, so workgroups may observe each other's order.
    pub(crate) storage_atomics: bool,
    /// The workgroup size, copied from the program.
    pub(crate) workgroup_size: [u32; 3],
    /// Invocations per workgroup, checked when compiling.
    lanes: usize,
}

/// The most workgroup memory, in bytes, the reference gives one workgroup: what
/// [`vyre_driver::Capabilities::unlimited`] advertises as `max_workgroup_storage_bytes`.
const MAX_WORKGROUP_BYTES: u64 = u32::MAX as u64;

impl Compiled {
    /// Invocations per workgroup.
    pub(crate) fn workgroup_lanes(&self) -> usize {
        self.lanes
    }

    /// True when workgroups are independent of where they run: no barrier and no workgroup memory,
    /// so several may share one block of lanes.
    pub(crate) fn batchable(&self) -> bool {
        !self.has_barrier && self.workgroup_counts.is_empty()
    }
}

/// Compiles a validated program: every name comes resolved from its evidence. Anything the compiler
/// still cannot type is reported as [`BackendError::Compile`] rather than a panic.
pub(crate) fn compile(evidence: &Validated<'_>) -> Result<Compiled, BackendError> {
    let program = evidence.program();
    let lanes = workgroup_lanes(program)?;
    check_workgroup_memory(program)?;
    let mut c = Compiler::new(evidence);
    c.collect_prefills()?;
    let mut body = Block::default();
    c.body(&program.body, &mut body)?;
    Ok(Compiled {
        body,
        num_regs: c.max_reg as usize,
        prefills: c.prefill_list,
        workgroup_counts: c.workgroup_counts,
        has_barrier: c.has_barrier,
        storage_atomics: c.storage_atomics,
        workgroup_size: program.workgroup_size,
        lanes,
    })
}

/// Invocations per workgroup as a `usize` (the lane count every block allocates for).
fn workgroup_lanes(program: &Program) -> Result<usize, BackendError> {
    // Validation already bounds this by 1024; a product past u64 or usize must still be an error,
    // never a wrapped lane count.
    program
        .invocations_per_workgroup()
        .and_then(|n| usize::try_from(n).ok())
        .ok_or_else(|| {
            BackendError::limit_exceeded(format!(
                "workgroup size {:?} has more invocations than the reference backend can count. Fix: use a workgroup of at most 1024 invocations.",
                program.workgroup_size
            ))
        })
}

/// Rejects workgroup buffers that together pass [`MAX_WORKGROUP_BYTES`], before any is allocated.
fn check_workgroup_memory(program: &Program) -> Result<(), BackendError> {
    let total = program
        .buffers
        .iter()
        .filter(|b| b.access == BufferAccess::Workgroup)
        .try_fold(0u64, |sum, b| {
            sum.checked_add(b.declared_bytes().unwrap_or(0))
        });
    match total {
        Some(bytes) if bytes <= MAX_WORKGROUP_BYTES => Ok(()),
        _ => Err(BackendError::limit_exceeded(format!(
            "the program's workgroup buffers need {} bytes per workgroup; the reference backend allows {MAX_WORKGROUP_BYTES}. Fix: shrink the workgroup buffers.",
            total.map_or_else(|| "more than 2^64".to_owned(), |b| b.to_string())
        ))),
    }
}

struct Compiler<'v, 'p> {
    evidence: &'v Validated<'p>,
    slots: Vec<Slot>,
    workgroup_counts: Vec<u32>,
    /// The register and type of each variable, by [`VarId`], once its declaration is compiled. A
    /// register is reused after its variable's body ends; validation guarantees no later name
    /// reaches the variable then.
    vars: Vec<Option<(Reg, DataType)>>,
    prefills: HashMap<Prefill, Reg>,
    prefill_list: Vec<(Reg, Prefill)>,
    next_reg: Reg,
    max_reg: Reg,
    has_barrier: bool,
    storage_atomics: bool,
}

impl std::hash::Hash for Prefill {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        std::mem::discriminant(self).hash(state);
        match *self {
            Prefill::Const(v) => v.hash(state),
            Prefill::BufLen(i)
            | Prefill::NumWorkgroups(i)
            | Prefill::GlobalId(i)
            | Prefill::LocalId(i)
            | Prefill::WorkgroupId(i) => i.hash(state),
            Prefill::SubgroupSize | Prefill::SubgroupLane => {}
        }
    }
}

fn compile_error(what: String) -> BackendError {
    BackendError::compile(format!(
        "the reference backend could not lower the program: {what}. Fix: validate the program with `vyre::validate` and correct what it reports."
    ))
}

fn builtin_prefill(b: Builtin) -> Prefill {
    match b {
        Builtin::GlobalId(a) => Prefill::GlobalId(a.index()),
        Builtin::LocalId(a) => Prefill::LocalId(a.index()),
        Builtin::WorkgroupId(a) => Prefill::WorkgroupId(a.index()),
        Builtin::NumWorkgroups(a) => Prefill::NumWorkgroups(a.index()),
        Builtin::SubgroupSize => Prefill::SubgroupSize,
        Builtin::SubgroupInvocationId => Prefill::SubgroupLane,
    }
}

impl<'v, 'p> Compiler<'v, 'p> {
    fn new(evidence: &'v Validated<'p>) -> Self {
        let program = evidence.program();
        let mut slots = Vec::with_capacity(program.buffers.len());
        let mut workgroup_counts = Vec::new();
        let mut bound = 0;
        for decl in &program.buffers {
            if decl.access == BufferAccess::Workgroup {
                slots.push(Slot::Workgroup(workgroup_counts.len()));
                workgroup_counts.push(decl.count);
            } else {
                slots.push(Slot::Storage(bound));
                bound += 1;
            }
        }
        Self {
            evidence,
            slots,
            workgroup_counts,
            vars: vec![None; evidence.vars().len()],
            prefills: HashMap::new(),
            prefill_list: Vec::new(),
            next_reg: 0,
            max_reg: 0,
            has_barrier: false,
            storage_atomics: false,
        }
    }

    /// Gives every literal, `buf_len` and builtin of the program its own register, below all
    /// temporaries, so no instruction ever overwrites one.
    fn collect_prefills(&mut self) -> Result<(), BackendError> {
        let mut found = Vec::new();
        let mut missing = None;
        let evidence = self.evidence;
        vyre_foundation::for_each_expr(evidence.program(), |e| match e {
            Expr::Lit(lit) => found.push(Prefill::Const(lit.to_bits())),
            Expr::Builtin(b) => found.push(builtin_prefill(*b)),
            Expr::BufLen(_) => match evidence.buffer_of(e) {
                Ok(id) => found.push(Prefill::BufLen(id.index())),
                Err(m) => missing = Some(m),
            },
            // Only leaves are prefilled; every other expression computes into a temporary.
            Expr::Var(_)
            | Expr::Load { .. }
            | Expr::ArrayLoad { .. }
            | Expr::Binary { .. }
            | Expr::Unary { .. }
            | Expr::Select { .. }
            | Expr::Cast { .. }
            | Expr::Bitcast { .. }
            | Expr::Fma { .. }
            | Expr::Atomic { .. }
            | Expr::Subgroup { .. }
            | Expr::SubgroupShuffle { .. } => {}
        });
        if let Some(m) = missing {
            return Err(m.into());
        }
        for p in found {
            if !self.prefills.contains_key(&p) {
                let reg = self.temp();
                self.prefills.insert(p, reg);
                self.prefill_list.push((reg, p));
            }
        }
        Ok(())
    }

    fn temp(&mut self) -> Reg {
        let r = self.next_reg;
        self.next_reg += 1;
        self.max_reg = self.max_reg.max(self.next_reg);
        r
    }

    /// The register and type of variable `id`, compiled earlier.
    fn var(&self, id: VarId) -> Result<(Reg, DataType), BackendError> {
        self.vars
            .get(id.index())
            .copied()
            .flatten()
            .ok_or_else(|| compile_error("a variable was reached before its declaration".into()))
    }

    fn bind(&mut self, id: VarId, reg: Reg, ty: DataType) {
        if let Some(slot) = self.vars.get_mut(id.index()) {
            *slot = Some((reg, ty));
        }
    }

    fn buf_ref(
        &self,
        id: BufferId,
        index_ty: DataType,
    ) -> Result<(BufRef, DataType), BackendError> {
        let element = self.evidence.buffer(id)?.element;
        let buf = BufRef {
            slot: self.slots[id.index()],
            bool_elem: element == DataType::Bool,
            signed_index: index_ty == DataType::I32,
        };
        Ok((buf, element))
    }

    /// The registers of tile `id` (bound at its declaration).
    fn tile_ref(&self, id: Option<VarId>) -> Result<TileRef, BackendError> {
        let id = id.ok_or_else(|| compile_error("a tile statement names no tile".into()))?;
        let (base, _) = self.var(id)?;
        let tile = self
            .evidence
            .var(id)?
            .tile
            .ok_or_else(|| compile_error("a tile statement names a variable".into()))?;
        Ok(TileRef {
            base,
            rows: tile.rows,
            columns: tile.columns,
            half: tile.element == DataType::F16,
        })
    }

    /// The registers of private array `id` (bound at its declaration), indexed by a `index_ty`
    /// value, and its element type.
    fn array_ref(
        &self,
        id: VarId,
        index_ty: DataType,
    ) -> Result<(ArrayRef, DataType), BackendError> {
        let (base, element) = self.var(id)?;
        let len = self
            .evidence
            .var(id)?
            .array
            .ok_or_else(|| compile_error("an array access names a variable".into()))?;
        let array = ArrayRef {
            base,
            len,
            signed_index: index_ty == DataType::I32,
        };
        Ok((array, element))
    }

    /// Compiles a body into `out`, in a new scope; temporaries and variables are released after it.
    fn body(&mut self, nodes: &'p [Node], out: &mut Block) -> Result<(), BackendError> {
        let mark = self.next_reg;
        for node in nodes {
            self.node(node, out)?;
        }
        self.next_reg = mark;
        Ok(())
    }

    fn scoped(&mut self, nodes: &'p [Node]) -> Result<Block, BackendError> {
        let mut block = Block::default();
        self.body(nodes, &mut block)?;
        Ok(block)
    }

    fn node(&mut self, node: &'p Node, out: &mut Block) -> Result<(), BackendError> {
        let mark = self.next_reg;
        match node {
            Node::Let { value, .. } => {
                let id = self.evidence.node_var(node)?;
                let var = self.temp();
                let ty = self.expr_into(value, var, out)?;
                self.bind(id, var, ty);
                // The variable's register stays allocated for the rest of the scope.
                self.next_reg = var + 1;
                return Ok(());
            }
            Node::Assign { value, .. } => {
                let id = self.evidence.node_var(node)?;
                self.assign(id, value, out)?;
            }
            Node::Store { index, value, .. } => {
                let id = self.evidence.node_buffer(node)?;
                let (index, index_ty) = self.expr(index, out)?;
                let (value, _) = self.expr(value, out)?;
                let (buf, _) = self.buf_ref(id, index_ty)?;
                out.insts.push(Inst::Store { buf, index, value });
            }
            Node::PrivateArray { element, len, .. } => {
                let id = self.evidence.node_var(node)?;
                let base = self.next_reg;
                self.next_reg += len;
                self.max_reg = self.max_reg.max(self.next_reg);
                out.insts.push(Inst::ArrayZero { base, len: *len });
                self.bind(id, base, *element);
                // The array's registers stay allocated for the rest of the scope.
                return Ok(());
            }
            Node::ArrayStore { index, value, .. } => {
                let id = self.evidence.node_var(node)?;
                let (index, index_ty) = self.expr(index, out)?;
                let (value, _) = self.expr(value, out)?;
                let (array, _) = self.array_ref(id, index_ty)?;
                out.insts.push(Inst::ArrayStore {
                    array,
                    index,
                    value,
                });
            }
            Node::Tile { tile, .. } => {
                let id = self.evidence.node_var(node)?;
                let base = self.next_reg;
                self.next_reg += tile.len();
                self.max_reg = self.max_reg.max(self.next_reg);
                out.insts.push(Inst::ArrayZero {
                    base,
                    len: tile.len(),
                });
                self.bind(id, base, tile.element);
                // The tile's registers stay allocated for the rest of the scope.
                return Ok(());
            }
            Node::TileLoad {
                offset,
                stride,
                layout,
                ..
            }
            | Node::TileStore {
                offset,
                stride,
                layout,
                ..
            } => {
                let [tile, ..] = self.evidence.node_tiles(node)?;
                let tile = self.tile_ref(tile)?;
                let (buf, _) = self.buf_ref(self.evidence.node_buffer(node)?, DataType::U32)?;
                let (offset, _) = self.expr(offset, out)?;
                let (stride, _) = self.expr(stride, out)?;
                let layout = *layout;
                out.insts.push(if matches!(node, Node::TileLoad { .. }) {
                    Inst::TileLoad {
                        tile,
                        buf,
                        offset,
                        stride,
                        layout,
                    }
                } else {
                    Inst::TileStore {
                        tile,
                        buf,
                        offset,
                        stride,
                        layout,
                    }
                });
            }
            Node::TileMultiplyAdd { .. } => {
                let [d, a, b, c] = self.evidence.node_tiles(node)?;
                out.insts.push(Inst::TileMultiplyAdd {
                    d: self.tile_ref(d)?,
                    a: self.tile_ref(a)?,
                    b: self.tile_ref(b)?,
                    c: self.tile_ref(c)?,
                });
            }
            Node::If {
                cond,
                then,
                otherwise,
            } => self.if_node(cond, then, otherwise, out)?,
            Node::Loop { from, to, body, .. } => {
                let id = self.evidence.node_var(node)?;
                self.loop_node(id, from, to, body, out)?;
            }
            Node::Block(nodes) => {
                let block = self.scoped(nodes)?;
                out.may_return |= block.may_return;
                out.may_exit |= block.may_exit;
                out.insts.extend(block.insts);
            }
            Node::While { cond, body } => self.while_node(cond, body, out)?,
            Node::Break => {
                out.may_exit = true;
                out.insts.push(Inst::Break);
            }
            Node::Continue => {
                out.may_exit = true;
                out.insts.push(Inst::Continue);
            }
            Node::Atomic {
                op,
                index,
                expected,
                value,
                ..
            } => {
                let id = self.evidence.node_buffer(node)?;
                // The old value lands in a temporary nobody reads.
                let dst = self.temp();
                self.atomic(*op, id, index, expected.as_ref(), value, dst, out)?;
            }
            Node::Barrier => {
                self.has_barrier = true;
                out.insts.push(Inst::Barrier);
            }
            Node::Return => {
                out.may_return = true;
                out.insts.push(Inst::Return);
            }
        }
        self.next_reg = mark;
        Ok(())
    }

    fn assign(&mut self, id: VarId, value: &'p Expr, out: &mut Block) -> Result<(), BackendError> {
        let (var, _) = self.var(id)?;
        // Compute into a temporary first: the value may read the variable it replaces.
        let (src, _) = self.expr(value, out)?;
        if src != var {
            out.insts.push(Inst::Copy { dst: var, src });
        }
        Ok(())
    }

    fn if_node(
        &mut self,
        cond: &'p Expr,
        then: &'p [Node],
        otherwise: &'p [Node],
        out: &mut Block,
    ) -> Result<(), BackendError> {
        let (cond, _) = self.expr(cond, out)?;
        let then = self.scoped(then)?;
        let otherwise = self.scoped(otherwise)?;
        out.may_return |= then.may_return || otherwise.may_return;
        out.may_exit |= then.may_exit || otherwise.may_exit;
        out.insts.push(Inst::If {
            cond,
            then,
            otherwise,
        });
        Ok(())
    }

    fn loop_node(
        &mut self,
        id: VarId,
        from: &'p Expr,
        to: &'p Expr,
        nodes: &'p [Node],
        out: &mut Block,
    ) -> Result<(), BackendError> {
        let var = self.temp();
        let ty = self.expr_into(from, var, out)?;
        // `to` is evaluated once; copying it keeps the bound fixed even if the body assigns a
        // variable it was read from.
        let to_reg = self.temp();
        self.expr_into(to, to_reg, out)?;
        self.bind(id, var, ty);
        // The loop consumes its body's `break`s and `continue`s; only `return` reaches further.
        let body = self.scoped(nodes)?;
        out.may_return |= body.may_return;
        out.insts.push(Inst::Loop {
            var,
            to: to_reg,
            signed: ty == DataType::I32,
            body,
        });
        Ok(())
    }

    /// `while cond { body }`: the condition's instructions get their own block, run before every
    /// iteration.
    fn while_node(
        &mut self,
        cond: &'p Expr,
        nodes: &'p [Node],
        out: &mut Block,
    ) -> Result<(), BackendError> {
        let mut cond_code = Block::default();
        let (cond, _) = self.expr(cond, &mut cond_code)?;
        let body = self.scoped(nodes)?;
        out.may_return |= body.may_return;
        out.insts.push(Inst::While {
            cond_code,
            cond,
            body,
        });
        Ok(())
    }
}
