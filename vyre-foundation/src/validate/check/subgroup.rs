//! Subgroup operations: their operand types, the feature they need, and the uniform control flow
//! they must run in.

use crate::ir::{DataType, Expr, Features, SubgroupOp};
use crate::validate::errors::ValidationErrorKind as K;

use super::{Checker, Typed};

impl Checker<'_> {
    /// Notes a subgroup operation or builtin: the program needs [`Features::SUBGROUPS`], and the
    /// control flow around it must be workgroup-uniform.
    ///
    /// Uniform control flow is WGSL's rule for subgroup operations (its `subgroup_uniformity`
    /// diagnostic, which vyre does not turn off): then every invocation of a subgroup that exists
    /// takes part, so the result does not depend on how a device regroups diverged invocations.
    /// vyre's rule is the workgroup-uniform one its barriers follow, which implies the subgroup
    /// one. Subgroup builtins are refused in the same places, so that `subgroup_invocation_id` means
    /// the same lane numbering everywhere it may be read.
    pub(super) fn subgroup_use(&mut self) {
        self.needs(Features::SUBGROUPS);
        // Devices form subgroups from consecutive invocations of a one-dimensional workgroup only
        // (lavapipe splits a multi-dimensional one along x; WGSL allows `subgroup_invocation_id`
        // in one-dimensional workgroups only).
        let size = self.program.workgroup_size;
        if (size[1] != 1 || size[2] != 1) && !self.subgroup_shape_reported {
            self.subgroup_shape_reported = true;
            self.error(K::SubgroupWorkgroupShape { size });
        }
        if let Some(reason) = self.control {
            self.error(K::NonUniformSubgroupOp { reason });
        }
    }

    /// Types `op(arg)`, whose operand is at depth `d`.
    pub(super) fn check_subgroup(&mut self, op: SubgroupOp, arg: &Expr, d: usize) -> Option<Typed> {
        self.subgroup_use();
        let a = self.with_field("arg", |c| c.check_expr(arg, d))?;
        let Some(ty) = op.result_type(a.ty) else {
            self.error(K::SubgroupOperandType { op, arg: a.ty });
            return None;
        };
        // A reduction or broadcast is the same in every lane of a subgroup, not across a
        // workgroup; a ballot's word differs between the 32-lane quarters of a larger subgroup.
        Some(Typed::value_in(ty, false, op != SubgroupOp::Ballot))
    }

    /// Types `subgroup_shuffle(value, lane)`, whose operands are at depth `d`.
    pub(super) fn check_shuffle(&mut self, value: &Expr, lane: &Expr, d: usize) -> Option<Typed> {
        self.subgroup_use();
        let v = self.with_field("value", |c| c.check_expr(value, d));
        let l = self.with_field("lane", |c| c.check_expr(lane, d));
        let (v, l) = (v?, l?);
        if !v.ty.is_numeric() || !v.ty.is_word() || l.ty != DataType::U32 {
            self.error(K::ShuffleOperandTypes {
                value: v.ty,
                lane: l.ty,
            });
            return None;
        }
        Some(Typed::value(v.ty, false))
    }
}
