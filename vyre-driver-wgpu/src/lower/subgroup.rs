//! Subgroup operations: naga's subgroup statements, with vyre's rules for the lanes a partial
//! subgroup lacks made explicit.
//!
//! vyre's validator keeps every subgroup operation in workgroup-uniform control flow, so every
//! invocation a subgroup has is active; the hardware's own collectives then compute exactly what
//! `SEMANTICS.md` says. What the hardware leaves indeterminate is written out here: a shuffle from
//! a lane the subgroup does not have reads 0, and a ballot gives the 32-bit word holding the
//! invocation's own lane. Both rely on subgroups being runs of consecutive
//! `local_invocation_index` values, which is how Vulkan drivers form compute subgroups (lavapipe,
//! NVIDIA) and what the conformance suite checks against the reference.

use naga::{
    BinaryOperator as B, Block, CollectiveOperation, Expression, GatherMode, Handle, Statement,
    SubgroupOperation,
};
use vyre_driver::BackendError;
use vyre_foundation::ir::{DataType, Expr, SubgroupOp};

use super::{Lowerer, SubgroupIds};

impl Lowerer<'_, '_> {
    /// The subgroup ids, emitted at the top of the entry body: the lane is
    /// `local_invocation_index & (size - 1)` (sizes are powers of two), vyre's definition of
    /// membership. naga takes the `subgroup_invocation_id` builtin only in one-dimensional
    /// workgroups; the computed lane is the same there and defined everywhere.
    pub(crate) fn subgroup_ids_from(
        &mut self,
        block: &mut Block,
        size: Handle<Expression>,
    ) -> SubgroupIds {
        let index = self.local_index(block);
        let one = self.fb.u32(block, 1);
        let mask = self.fb.binary(block, B::Subtract, size, one);
        let lane = self.fb.binary(block, B::And, index, mask);
        SubgroupIds { size, lane }
    }

    /// The subgroup builtins; an error when the entry point lacks them, which the lowering adds to
    /// every program whose evidence records subgroup use.
    pub(crate) fn subgroup_ids(&self) -> Result<SubgroupIds, BackendError> {
        self.subgroup.ok_or_else(|| {
            BackendError::compile(
                "the wgpu lowering met a subgroup operation in a program whose evidence records none. Fix: this is a vyre lowering bug; report it with the program text (Display).",
            )
        })
    }

    /// `op(arg)` over the subgroup.
    pub(crate) fn subgroup_op(
        &mut self,
        block: &mut Block,
        op: SubgroupOp,
        arg: &Expr,
    ) -> Result<Handle<Expression>, BackendError> {
        let (argument, ty) = self.expr(block, arg)?;
        let ids = self.subgroup_ids()?;
        let collective = |op| Ok::<_, BackendError>(Some(op));
        let reduce = match op {
            SubgroupOp::Add => collective(SubgroupOperation::Add)?,
            SubgroupOp::Min => collective(SubgroupOperation::Min)?,
            SubgroupOp::Max => collective(SubgroupOperation::Max)?,
            SubgroupOp::And => collective(SubgroupOperation::And)?,
            SubgroupOp::Or => collective(SubgroupOperation::Or)?,
            SubgroupOp::Xor => collective(SubgroupOperation::Xor)?,
            SubgroupOp::BroadcastFirst | SubgroupOp::Ballot => None,
        };
        if let Some(naga_op) = reduce {
            let result = self.fb.expr(
                block,
                Expression::SubgroupOperationResult {
                    ty: self.types.value(ty),
                },
            );
            self.fb.stmt(
                block,
                Statement::SubgroupCollectiveOperation {
                    op: naga_op,
                    collective_op: CollectiveOperation::Reduce,
                    argument,
                    result,
                },
            );
            return Ok(result);
        }
        if op == SubgroupOp::BroadcastFirst {
            // Lane 0's value, which is the first active lane's: subgroup operations stand in
            // uniform control flow, so every lane of the subgroup is active, and every subgroup has
            // a lane 0. A shuffle from lane 0 rather than `subgroupBroadcastFirst`, which lavapipe
            // (Mesa 22.3.6, LLVM 15) cannot compile when its f32 result is converted to f16:
            // `f16(subgroupBroadcastFirst(f32(gid.x)))` aborted the process in LLVM's instruction
            // selection ("Cannot select: f32 = and ..."), found by the fuzzer (seed 26002).
            let lane_0 = self.fb.u32(block, 0);
            return Ok(self.gather(block, GatherMode::Shuffle(lane_0), argument, ty));
        }
        // Ballot: the vec4<u32> mask's word `id / 32`, the one holding the invocation's own lane.
        let mask = self.fb.expr(block, Expression::SubgroupBallotResult);
        self.fb.stmt(
            block,
            Statement::SubgroupBallot {
                result: mask,
                predicate: Some(argument),
            },
        );
        let five = self.fb.u32(block, 5);
        let word = self.fb.binary(block, B::ShiftRight, ids.lane, five);
        Ok(self.fb.expr(
            block,
            Expression::Access {
                base: mask,
                index: word,
            },
        ))
    }

    /// `subgroup_shuffle(value, lane)`: the value of lane `lane`, or 0 when the subgroup has no
    /// such lane (`lane >= subgroup_size`, or a lane past the end of the workgroup in its last,
    /// partial subgroup).
    pub(crate) fn subgroup_shuffle(
        &mut self,
        block: &mut Block,
        value: &Expr,
        lane: &Expr,
    ) -> Result<Handle<Expression>, BackendError> {
        let (argument, ty) = self.expr(block, value)?;
        let (lane, _) = self.expr(block, lane)?;
        let ids = self.subgroup_ids()?;
        let index = self.local_index(block);
        // The subgroup starts at local index `index - id`; lane `lane` exists when it is inside
        // the subgroup and inside the workgroup.
        let first = self.fb.binary(block, B::Subtract, index, ids.lane);
        let at = self.fb.binary(block, B::Add, first, lane);
        let total = self.program.workgroup_size.iter().product::<u32>();
        let total = self.fb.u32(block, total);
        let in_subgroup = self.fb.binary(block, B::Less, lane, ids.size);
        let in_workgroup = self.fb.binary(block, B::Less, at, total);
        let exists = self
            .fb
            .binary(block, B::LogicalAnd, in_subgroup, in_workgroup);
        // A lane the subgroup lacks is never asked of the hardware, whose answer would be
        // indeterminate: lane 0 is asked instead, and its answer replaced by 0.
        let zero_lane = self.fb.u32(block, 0);
        let safe = self.fb.select(block, exists, lane, zero_lane);
        let gathered = self.gather(block, GatherMode::Shuffle(safe), argument, ty);
        let zero = self.zero(block, ty);
        Ok(self.fb.select(block, exists, gathered, zero))
    }

    fn gather(
        &mut self,
        block: &mut Block,
        mode: GatherMode,
        argument: Handle<Expression>,
        ty: DataType,
    ) -> Handle<Expression> {
        let result = self.fb.expr(
            block,
            Expression::SubgroupOperationResult {
                ty: self.types.value(ty),
            },
        );
        self.fb.stmt(
            block,
            Statement::SubgroupGather {
                mode,
                argument,
                result,
            },
        );
        result
    }

    /// `local_invocation_index`, from the local id and the workgroup size.
    pub(crate) fn local_index(&mut self, block: &mut Block) -> Handle<Expression> {
        let [x, y, z] = self.prologue.builtins[1];
        let [sx, sy, _] = self.program.workgroup_size;
        let sx = self.fb.u32(block, sx);
        let sy = self.fb.u32(block, sy);
        let zy = self.fb.binary(block, B::Multiply, z, sy);
        let row = self.fb.binary(block, B::Add, zy, y);
        let rows = self.fb.binary(block, B::Multiply, row, sx);
        self.fb.binary(block, B::Add, rows, x)
    }
}
