//! The SIMT executor: runs compiled code over one block of lanes (one workgroup, or several
//! independent ones) an instruction at a time.
//!
//! Every instruction runs across the active lanes before the next starts. `if` splits the active set,
//! loops keep per-lane counters and drop lanes whose range is done, `return` retires lanes for the rest
//! of the block. A barrier is therefore a rendezvous by construction: every instruction before it has
//! run on every lane. What the executor checks is that every lane of the workgroup is there; when some
//! are in another branch, still or no longer in a loop, or retired, that is an error instead of the
//! hang a GPU would give.

use vyre_driver::BackendError;

use crate::budget::{Budget, FLUSH_OPS, Stopped};
use crate::compile::Compiled;
use crate::inst::{Block, Inst, Prefill, Reg};
use crate::memory::Memory;

mod ops;
mod subgroup;
mod tile;

/// Runs blocks of one dispatch on one thread. `TRACE` turns on indeterminacy tracking; the untraced
/// instantiation has no tracking code at all.
pub(crate) struct Executor<'a, const TRACE: bool> {
    code: &'a Compiled,
    memory: &'a Memory,
    budget: &'a Budget,
    grid: [u32; 3],
    /// One vector of lane values per register: every value zero-extended to 64 bits (the bits of a
    /// 32-bit or 16-bit type in the low bits, the rest zero).
    regs: Vec<Vec<u64>>,
    workgroup: Vec<Vec<u64>>,
    retired: Vec<bool>,
    /// Per lane, how it left the current iteration of its innermost loop ([`STAYED`], [`CONTINUED`]
    /// or [`BROKE`]); reset when the loop takes stock after the iteration.
    left: Vec<u8>,
    /// Lanes in the current block.
    lanes: usize,
    /// Workgroups per block.
    per_block: u64,
    first_workgroup: u64,
    pending: u64,
    indeterminate: bool,
    /// Spare lane lists, so `if` and loops do not allocate on every execution.
    spare: Vec<Vec<u32>>,
    local_ids: [Vec<u32>; 3],
    /// Lanes per subgroup (a power of two from 1 to 128).
    subgroup_size: u32,
}

/// A lane that is still in its loop's iteration.
const STAYED: u8 = 0;
/// A lane that ran `continue`: out of this iteration, back for the next.
const CONTINUED: u8 = 1;
/// A lane that ran `break`: out of the loop.
const BROKE: u8 = 2;

/// The linear local index of every lane of a workgroup of `size` (`n` lanes, the product checked at
/// compile time), split into `x, y, z` ids.
fn local_id_table(size: [u32; 3], n: usize) -> [Vec<u32>; 3] {
    let mut ids = [
        Vec::with_capacity(n),
        Vec::with_capacity(n),
        Vec::with_capacity(n),
    ];
    for z in 0..size[2] {
        for y in 0..size[1] {
            for x in 0..size[0] {
                ids[0].push(x);
                ids[1].push(y);
                ids[2].push(z);
            }
        }
    }
    ids
}

/// `count` zeroed words of workgroup memory; a failed allocation is an error, not an abort.
fn zeroed_words(count: u32) -> Result<Vec<u64>, BackendError> {
    let oom = || {
        BackendError::out_of_memory(format!(
            "the reference backend could not allocate {count} words of workgroup memory. Fix: shrink the workgroup buffers."
        ))
    };
    let n = usize::try_from(count).map_err(|_| oom())?;
    let mut words = Vec::new();
    words.try_reserve_exact(n).map_err(|_| oom())?;
    words.resize(n, 0);
    Ok(words)
}

impl<'a, const TRACE: bool> Executor<'a, TRACE> {
    /// An executor for blocks of `per_block` workgroups, `cap` lanes in all (the caller checked the
    /// product); `buf_lens` are the element counts of the program's buffers in this dispatch, and
    /// `subgroup_size` the lanes per subgroup.
    ///
    /// # Errors
    ///
    /// [`BackendError::OutOfMemory`] when the host cannot allocate the block's workgroup memory.
    pub(crate) fn new(
        code: &'a Compiled,
        memory: &'a Memory,
        budget: &'a Budget,
        grid: [u32; 3],
        per_block: u64,
        cap: usize,
        (buf_lens, subgroup_size): (&[u32], u32),
    ) -> Result<Self, BackendError> {
        let mut regs = vec![vec![0u64; cap]; code.num_regs];
        let wl = code.workgroup_lanes().max(1);
        for &(reg, prefill) in &code.prefills {
            let value = match prefill {
                Prefill::Const(v) => v,
                Prefill::BufLen(i) => u64::from(buf_lens.get(i).copied().unwrap_or(0)),
                Prefill::NumWorkgroups(axis) => u64::from(grid[axis]),
                Prefill::SubgroupSize => u64::from(subgroup_size),
                Prefill::SubgroupLane => {
                    // Subgroups are consecutive runs of local invocation indices (SEMANTICS.md),
                    // and a block holds whole workgroups, so the lane depends on the lane's place
                    // in its workgroup only.
                    for (l, d) in regs[reg as usize].iter_mut().enumerate() {
                        *d = u64::from((l % wl) as u32 % subgroup_size.max(1));
                    }
                    continue;
                }
                Prefill::GlobalId(_) | Prefill::LocalId(_) | Prefill::WorkgroupId(_) => continue,
            };
            regs[reg as usize].fill(value);
        }
        let workgroup = code
            .workgroup_counts
            .iter()
            .map(|&n| zeroed_words(n))
            .collect::<Result<_, _>>()?;
        Ok(Self {
            code,
            memory,
            budget,
            grid,
            regs,
            workgroup,
            retired: vec![false; cap],
            left: vec![STAYED; cap],
            lanes: 0,
            per_block,
            first_workgroup: 0,
            pending: 0,
            indeterminate: false,
            spare: Vec::new(),
            local_ids: local_id_table(code.workgroup_size, code.workgroup_lanes()),
            subgroup_size: subgroup_size.max(1),
        })
    }

    /// Runs block `index` of the dispatch: workgroups `index * per_block ..` (at most `total`).
    pub(crate) fn run_block(&mut self, index: u64, total: u64) -> Result<(), Stopped> {
        // `index` is below `ceil(total / per_block)`, so `first < total`; `count <= per_block`, and
        // `per_block` lanes of workgroups were checked to fit a usize when the run was cut into blocks.
        let first = index * self.per_block;
        let count = self.per_block.min(total - first);
        self.first_workgroup = first;
        self.lanes = count as usize * self.code.workgroup_lanes();
        self.fill_ids(first, count);
        for memory in &mut self.workgroup {
            memory.fill(0);
        }
        self.retired[..self.lanes].fill(false);
        self.left[..self.lanes].fill(STAYED);
        let mut active = self.take_list();
        active.extend(0..self.lanes as u32);
        let code = self.code;
        let result = self.block(&code.body, &mut active);
        self.spare.push(active);
        result?;
        let pending = std::mem::take(&mut self.pending);
        self.budget.flush(pending)
    }

    /// Flushes what this executor counted and noticed into the shared budget.
    pub(crate) fn finish(mut self) {
        let pending = std::mem::take(&mut self.pending);
        // A failure here is already recorded in the budget.
        let _ = self.budget.flush(pending);
        if self.indeterminate {
            self.budget.mark_indeterminate();
        }
    }

    /// Sets the id registers for workgroups `first .. first + count`.
    fn fill_ids(&mut self, first: u64, count: u64) {
        let wl = self.code.workgroup_lanes();
        let [gx, gy, _] = self.grid.map(u64::from);
        for &(reg, prefill) in &self.code.prefills {
            let (axis, kind) = match prefill {
                Prefill::GlobalId(a) => (a, 0),
                Prefill::LocalId(a) => (a, 1),
                Prefill::WorkgroupId(a) => (a, 2),
                Prefill::Const(_)
                | Prefill::BufLen(_)
                | Prefill::NumWorkgroups(_)
                | Prefill::SubgroupSize
                | Prefill::SubgroupLane => continue,
            };
            let dst = &mut self.regs[reg as usize];
            let local = &self.local_ids[axis];
            for j in 0..count {
                let w = first + j;
                let wid = [w % gx, (w / gx) % gy, w / (gx * gy)][axis] as u32;
                let base = wid.wrapping_mul(self.code.workgroup_size[axis]);
                let lanes = &mut dst[j as usize * wl..(j as usize + 1) * wl];
                match kind {
                    0 => lanes
                        .iter_mut()
                        .zip(local)
                        .for_each(|(d, &l)| *d = u64::from(base.wrapping_add(l))),
                    1 => lanes
                        .iter_mut()
                        .zip(local)
                        .for_each(|(d, &l)| *d = u64::from(l)),
                    _ => lanes.fill(u64::from(wid)),
                }
            }
        }
    }

    fn take_list(&mut self) -> Vec<u32> {
        let mut list = self.spare.pop().unwrap_or_default();
        list.clear();
        list
    }

    #[inline(always)]
    fn charge(&mut self, lanes: usize) -> Result<(), Stopped> {
        self.pending += lanes as u64;
        if self.pending >= FLUSH_OPS {
            let pending = std::mem::take(&mut self.pending);
            self.budget.flush(pending)?;
        }
        Ok(())
    }

    /// Runs `block` on `active`; lanes that return are removed from `active`.
    fn block(&mut self, block: &Block, active: &mut Vec<u32>) -> Result<(), Stopped> {
        for inst in &block.insts {
            if active.is_empty() {
                break;
            }
            self.charge(active.len())?;
            match inst {
                Inst::If {
                    cond,
                    then,
                    otherwise,
                } => self.if_inst(*cond, then, otherwise, active)?,
                Inst::Loop {
                    var,
                    to,
                    signed,
                    body,
                } => self.loop_inst(*var, *to, *signed, body, active)?,
                Inst::While {
                    cond_code,
                    cond,
                    body,
                } => self.while_inst(cond_code, *cond, body, active)?,
                Inst::Barrier => self.barrier(active)?,
                Inst::Return => {
                    for &l in active.iter() {
                        self.retired[l as usize] = true;
                    }
                    active.clear();
                }
                Inst::Break | Inst::Continue => {
                    let how = if matches!(inst, Inst::Break) {
                        BROKE
                    } else {
                        CONTINUED
                    };
                    for &l in active.iter() {
                        self.left[l as usize] = how;
                    }
                    active.clear();
                }
                _ => self.simple(inst, active),
            }
        }
        Ok(())
    }

    fn if_inst(
        &mut self,
        cond: Reg,
        then: &Block,
        otherwise: &Block,
        active: &mut Vec<u32>,
    ) -> Result<(), Stopped> {
        let taken = {
            let c = &self.regs[cond as usize];
            active.iter().filter(|&&l| c[l as usize] != 0).count()
        };
        if taken == active.len() {
            return self.block(then, active);
        }
        if taken == 0 {
            return self.block(otherwise, active);
        }
        let mut yes = self.take_list();
        let mut no = self.take_list();
        let c = &self.regs[cond as usize];
        for &l in active.iter() {
            if c[l as usize] != 0 {
                yes.push(l);
            } else {
                no.push(l);
            }
        }
        let result = self
            .block(then, &mut yes)
            .and_then(|()| self.block(otherwise, &mut no));
        self.spare.push(yes);
        self.spare.push(no);
        if then.may_return || otherwise.may_return || then.may_exit || otherwise.may_exit {
            let (retired, left) = (&self.retired, &self.left);
            active.retain(|&l| !retired[l as usize] && left[l as usize] == STAYED);
        }
        result
    }

    fn loop_inst(
        &mut self,
        var: Reg,
        to: Reg,
        signed: bool,
        body: &Block,
        active: &mut Vec<u32>,
    ) -> Result<(), Stopped> {
        // Loop counters are `u32` or `i32` (validation), held zero-extended.
        let below = move |v: u64, t: u64| {
            if signed {
                (v as u32 as i32) < (t as u32 as i32)
            } else {
                v < t
            }
        };
        let mut live = self.take_list();
        {
            let (v, t) = (&self.regs[var as usize], &self.regs[to as usize]);
            live.extend(
                active
                    .iter()
                    .filter(|&&l| below(v[l as usize], t[l as usize])),
            );
        }
        let mut result = Ok(());
        let mut iteration = self.take_list();
        while !live.is_empty() {
            if body.may_exit {
                iteration.clear();
                iteration.extend_from_slice(&live);
            }
            result = self.block(body, &mut live);
            if result.is_err() {
                break;
            }
            if body.may_exit {
                self.rejoin(&iteration, &mut live);
            }
            // A lane that ran `continue` steps its counter like any other.
            let mut counters = std::mem::take(&mut self.regs[var as usize]);
            let t = &self.regs[to as usize];
            // `var < to` held, so `var + 1` cannot overflow its 32-bit type; it is stepped at 32
            // bits all the same, so that the register stays zero-extended (an `i32` counter at -1,
            // `0xffff_ffff`, steps to 0, not to 2^32: the H200 fuzz run at seed 20261214 found a
            // stored `i == 0i` false after the types merge).
            live.retain(|&l| {
                let l = l as usize;
                counters[l] = u64::from((counters[l] as u32).wrapping_add(1));
                below(counters[l], t[l])
            });
            self.regs[var as usize] = counters;
            if let Err(stop) = self.charge(live.len()) {
                result = Err(stop);
                break;
            }
        }
        self.spare.push(live);
        self.spare.push(iteration);
        if body.may_return {
            let retired = &self.retired;
            active.retain(|&l| !retired[l as usize]);
        }
        result
    }

    /// After an iteration that may have run `break` or `continue`: the lanes of `iteration` that
    /// go on to the next one (they neither broke nor returned) become `live` again, in order, and
    /// every lane's exit mark is cleared, so the lanes that broke are simply back in the block
    /// around the loop.
    fn rejoin(&mut self, iteration: &[u32], live: &mut Vec<u32>) {
        live.clear();
        for &l in iteration {
            let i = l as usize;
            if self.left[i] != BROKE && !self.retired[i] {
                live.push(l);
            }
            self.left[i] = STAYED;
        }
    }

    /// `while`: the condition runs before every iteration on the lanes still in the loop, and
    /// every iteration is charged, so a loop that never ends runs out of fuel (or time) instead
    /// of hanging the dispatch.
    fn while_inst(
        &mut self,
        cond_code: &Block,
        cond: Reg,
        body: &Block,
        active: &mut Vec<u32>,
    ) -> Result<(), Stopped> {
        let mut live = self.take_list();
        live.extend_from_slice(active);
        let mut iteration = self.take_list();
        let result = loop {
            if let Err(stop) = self.block(cond_code, &mut live) {
                break Err(stop);
            }
            {
                let c = &self.regs[cond as usize];
                live.retain(|&l| c[l as usize] != 0);
            }
            if live.is_empty() {
                break Ok(());
            }
            if let Err(stop) = self.charge(live.len()) {
                break Err(stop);
            }
            if body.may_exit {
                iteration.clear();
                iteration.extend_from_slice(&live);
            }
            if let Err(stop) = self.block(body, &mut live) {
                break Err(stop);
            }
            if body.may_exit {
                self.rejoin(&iteration, &mut live);
            }
        };
        self.spare.push(live);
        self.spare.push(iteration);
        if body.may_return {
            let retired = &self.retired;
            active.retain(|&l| !retired[l as usize]);
        }
        result
    }

    fn barrier(&mut self, active: &[u32]) -> Result<(), Stopped> {
        if active.len() == self.lanes {
            return Ok(());
        }
        let retired = self.retired[..self.lanes].iter().filter(|&&r| r).count();
        let waiting = self.lanes - active.len() - retired;
        let [gx, gy, _] = self.grid.map(u64::from);
        let w = self.first_workgroup;
        let wid = [w % gx, (w / gx) % gy, w / (gx * gy)];
        Err(self.budget.fail(BackendError::new(format!(
            "a barrier was reached by {} of the {} invocations of workgroup {wid:?}; {retired} had returned and {waiting} were elsewhere in the program, so on a GPU the workgroup would hang. Fix: keep barriers in workgroup-uniform control flow (conditions and loop bounds every invocation of a workgroup agrees on) and do not `return` before a barrier in only some invocations.",
            active.len(),
            self.lanes
        ))))
    }
}
