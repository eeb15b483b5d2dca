//! The subgroup constructors: `Expr::subgroup_add` and the rest.
//!
//! A subgroup is a set of invocations of one workgroup that the device runs in lock step; its
//! collective operations let them exchange values without workgroup memory or barriers.
//! `SEMANTICS.md` ("Subgroups") says how invocations form subgroups, what happens in a partial
//! subgroup, and which results depend on the device's subgroup size. Every program that uses one
//! of these needs [`crate::ir::Features::SUBGROUPS`] and a one-dimensional workgroup, and every
//! use must be in workgroup-uniform control flow (the validator checks all three).

use crate::ir::{Builtin, Expr, SubgroupOp};

/// Subgroup constructors.
impl Expr {
    /// The number of lanes of a subgroup (`u32`), the same for every subgroup of a dispatch.
    #[must_use]
    pub fn subgroup_size() -> Self {
        Expr::Builtin(Builtin::SubgroupSize)
    }

    /// The invocation's lane in its subgroup (`u32`): `lid.x % subgroup_size`.
    #[must_use]
    pub fn subgroup_invocation_id() -> Self {
        Expr::Builtin(Builtin::SubgroupInvocationId)
    }

    /// A subgroup collective operation `op` on `arg`.
    #[must_use]
    pub fn subgroup(op: SubgroupOp, arg: Expr) -> Self {
        Expr::Subgroup {
            op,
            arg: Box::new(arg),
        }
    }

    /// The sum of `e` over the subgroup's lanes (`u32`, `i32` wrapping; `f32` in an unspecified
    /// order).
    #[must_use]
    pub fn subgroup_add(e: Expr) -> Self {
        Self::subgroup(SubgroupOp::Add, e)
    }

    /// The minimum of `e` over the subgroup's lanes (`u32`, `i32`, `f32`).
    #[must_use]
    pub fn subgroup_min(e: Expr) -> Self {
        Self::subgroup(SubgroupOp::Min, e)
    }

    /// The maximum of `e` over the subgroup's lanes (`u32`, `i32`, `f32`).
    #[must_use]
    pub fn subgroup_max(e: Expr) -> Self {
        Self::subgroup(SubgroupOp::Max, e)
    }

    /// The bitwise and of `e` over the subgroup's lanes (`u32`, `i32`).
    #[must_use]
    pub fn subgroup_and(e: Expr) -> Self {
        Self::subgroup(SubgroupOp::And, e)
    }

    /// The bitwise or of `e` over the subgroup's lanes (`u32`, `i32`).
    #[must_use]
    pub fn subgroup_or(e: Expr) -> Self {
        Self::subgroup(SubgroupOp::Or, e)
    }

    /// The bitwise exclusive or of `e` over the subgroup's lanes (`u32`, `i32`).
    #[must_use]
    pub fn subgroup_xor(e: Expr) -> Self {
        Self::subgroup(SubgroupOp::Xor, e)
    }

    /// `e` as lane 0 of the subgroup computed it (`u32`, `i32`, `f32`).
    #[must_use]
    pub fn subgroup_broadcast_first(e: Expr) -> Self {
        Self::subgroup(SubgroupOp::BroadcastFirst, e)
    }

    /// `e` as lane `lane` (`u32`) of the subgroup computed it; `0` of `e`'s type when the
    /// subgroup has no such lane (`lane >= subgroup_size`, or past the end of a partial subgroup).
    #[must_use]
    pub fn subgroup_shuffle(e: Expr, lane: Expr) -> Self {
        Expr::SubgroupShuffle {
            value: Box::new(e),
            lane: Box::new(lane),
        }
    }

    /// The `u32` word of the ballot of `cond` (a `bool`) that holds the invocation's own lane: bit
    /// `i` is set when lane `32 * (subgroup_invocation_id / 32) + i` exists and its `cond` is
    /// true. On subgroups of at most 32 lanes this is the whole ballot; on larger ones each group
    /// of 32 lanes sees its own word (WGSL's `subgroupBallot(cond)[id / 32]`).
    #[must_use]
    pub fn subgroup_ballot(cond: Expr) -> Self {
        Self::subgroup(SubgroupOp::Ballot, cond)
    }
}
