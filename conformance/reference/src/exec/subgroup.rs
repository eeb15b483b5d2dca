//! Subgroup collectives: the lanes of a block grouped into subgroups, each operation computed over
//! a subgroup's active lanes.
//!
//! A subgroup is a run of `subgroup_size` consecutive local invocation indices of one workgroup
//! (SEMANTICS.md, "Subgroups"); the last run of a workgroup whose size is not a multiple is a
//! partial subgroup. Validation keeps subgroup operations in workgroup-uniform control flow, so the
//! active lanes of a subgroup are all the lanes it has; the executor still computes over the active
//! ones only, as WGSL defines it.

use super::Executor;
use crate::inst::{Reg, SubgroupKind};

/// 2^24: an f32 holds every integer multiple of a unit up to this many units exactly.
const EXACT_UNITS: f64 = 16_777_216.0;

impl<const TRACE: bool> Executor<'_, TRACE> {
    /// Runs subgroup operation `op` over the active lanes: `a` is the operand register and, for a
    /// shuffle, `lane` the register of the lane to read.
    pub(super) fn subgroup(
        &mut self,
        op: SubgroupKind,
        dst: Reg,
        [a, lane]: [Reg; 2],
        active: &[u32],
    ) {
        let wl = self.code.workgroup_lanes().max(1);
        let size = self.subgroup_size as usize;
        let key = |l: u32| {
            let l = l as usize;
            (l / wl, (l % wl) / size)
        };
        // Results are computed for a whole subgroup before any is written, since `dst` may be the
        // operand's own register (`x = subgroup_add(x)`).
        let mut results: Vec<(u32, u32)> = Vec::with_capacity(active.len());
        let mut start = 0;
        while start < active.len() {
            let k = key(active[start]);
            let end = start + active[start..].iter().take_while(|&&l| key(l) == k).count();
            let run = &active[start..end];
            self.subgroup_run(op, [a, lane], run, wl, &mut results);
            start = end;
        }
        let d = &mut self.regs[dst as usize];
        for (l, v) in results {
            d[l as usize] = u64::from(v);
        }
    }

    /// One subgroup's active lanes, `run` (non-empty, ascending).
    fn subgroup_run(
        &mut self,
        op: SubgroupKind,
        [a, lane]: [Reg; 2],
        run: &[u32],
        wl: usize,
        results: &mut Vec<(u32, u32)>,
    ) {
        let size = self.subgroup_size as usize;
        let sub_lane = |l: u32| (l as usize % wl) % size;
        // Operands are 32-bit (validation), held zero-extended in the 64-bit registers.
        let values = &self.regs[a as usize];
        let word = |l: u32| values[l as usize] as u32;
        let words = run.iter().map(|&l| word(l));
        let fold = |f: fn(u32, u32) -> u32| words.clone().reduce(f).unwrap_or(0);
        let f32_fold = |f: fn(f32, f32) -> f32| {
            words
                .clone()
                .map(f32::from_bits)
                .reduce(f)
                .map_or(0, f32::to_bits)
        };
        let uniform = match op {
            SubgroupKind::Add => Some(fold(u32::wrapping_add)),
            SubgroupKind::MinU => Some(fold(u32::min)),
            SubgroupKind::MaxU => Some(fold(u32::max)),
            SubgroupKind::MinS => Some(fold(|x, y| (x as i32).min(y as i32) as u32)),
            SubgroupKind::MaxS => Some(fold(|x, y| (x as i32).max(y as i32) as u32)),
            SubgroupKind::And => Some(fold(|x, y| x & y)),
            SubgroupKind::Or => Some(fold(|x, y| x | y)),
            SubgroupKind::Xor => Some(fold(|x, y| x ^ y)),
            SubgroupKind::AddF => Some(f32_fold(|x, y| x + y)),
            SubgroupKind::MinF => Some(f32_fold(f32::min)),
            SubgroupKind::MaxF => Some(f32_fold(f32::max)),
            SubgroupKind::BroadcastFirst => Some(word(run[0])),
            SubgroupKind::Ballot | SubgroupKind::Shuffle => None,
        };
        if TRACE
            && matches!(
                op,
                SubgroupKind::AddF | SubgroupKind::MinF | SubgroupKind::MaxF
            )
        {
            let any_order = op != SubgroupKind::AddF || order_free_sum(words.clone());
            if !any_order || words.clone().any(|w| !plain_float(w)) {
                self.indeterminate = true;
            }
        }
        if let Some(v) = uniform {
            results.extend(run.iter().map(|&l| (l, v)));
            return;
        }
        // Ballot and shuffle see the subgroup by lane number; 128 is the largest subgroup size.
        let mut by_lane = [None::<u32>; 128];
        for &l in run {
            by_lane[sub_lane(l)] = Some(word(l));
        }
        if op == SubgroupKind::Ballot {
            let mut mask = [0u32; 4];
            for (i, v) in by_lane.iter().enumerate() {
                if v.is_some_and(|c| c != 0) {
                    mask[i / 32] |= 1 << (i % 32);
                }
            }
            results.extend(run.iter().map(|&l| (l, mask[sub_lane(l) / 32])));
        } else {
            let lanes = &self.regs[lane as usize];
            results.extend(run.iter().map(|&l| {
                let target = lanes[l as usize] as usize;
                (l, by_lane.get(target).copied().flatten().unwrap_or(0))
            }));
        }
    }
}

/// True for a finite f32 that is zero or normal: what every device reads as itself.
fn plain_float(bits: u32) -> bool {
    let x = f32::from_bits(bits);
    x.is_finite() && (x == 0.0 || x.is_normal())
}

/// True when every order of summing `words` (f32 bits) gives the same f32: every value is a
/// multiple of the finest power of two among the values' lowest set bits, so every partial sum is
/// too, and none exceeds 2^24 such units, so every partial sum is exact.
fn order_free_sum(words: impl Iterator<Item = u32> + Clone) -> bool {
    // The value of the lowest set bit of a finite nonzero f32: its significand (with the implicit
    // bit of a normal number) times 2^(exponent - 150), down to the significand's lowest set bit.
    let unit = |bits: u32| {
        let exponent = ((bits >> 23) & 0xff) as i32;
        let significand = if exponent == 0 {
            bits & 0x7f_ffff
        } else {
            (bits & 0x7f_ffff) | 0x80_0000
        };
        2f64.powi(exponent.max(1) - 150 + significand.trailing_zeros() as i32)
    };
    let smallest = words
        .clone()
        .filter(|&w| f32::from_bits(w) != 0.0)
        .map(unit)
        .fold(f64::INFINITY, f64::min);
    if smallest == f64::INFINITY {
        return true;
    }
    let total: f64 = words.map(|w| f64::from(f32::from_bits(w).abs())).sum();
    total / smallest <= EXACT_UNITS
}
