//! The straight-line instructions: arithmetic, conversions, copies, loads, stores and atomics.

use std::sync::atomic::Ordering;

use super::Executor;
use crate::inst::{ArrayRef, BinKind, BufRef, Inst, Reg, Slot, UnKind};
use crate::lanes::{map1, map2, map3};
use crate::memory::{atomic_rmw, atomic_update, element};
use crate::scalar::{
    f, float_bin, float_un, int_bin, is_float_bin, is_float_to_int, is_float_un, overflowed, un,
};

/// Expands `$go!(K)` for every binary operator, so each gets its own loop with the operator fixed.
macro_rules! each_bin {
    ($op:expr, $go:ident) => {
        match $op {
            BinKind::Add => $go!(BinKind::Add),
            BinKind::Sub => $go!(BinKind::Sub),
            BinKind::Mul => $go!(BinKind::Mul),
            BinKind::DivU => $go!(BinKind::DivU),
            BinKind::DivS => $go!(BinKind::DivS),
            BinKind::RemU => $go!(BinKind::RemU),
            BinKind::RemS => $go!(BinKind::RemS),
            BinKind::And => $go!(BinKind::And),
            BinKind::Or => $go!(BinKind::Or),
            BinKind::Xor => $go!(BinKind::Xor),
            BinKind::Shl => $go!(BinKind::Shl),
            BinKind::ShrU => $go!(BinKind::ShrU),
            BinKind::ShrS => $go!(BinKind::ShrS),
            BinKind::Eq => $go!(BinKind::Eq),
            BinKind::Ne => $go!(BinKind::Ne),
            BinKind::LtU => $go!(BinKind::LtU),
            BinKind::LeU => $go!(BinKind::LeU),
            BinKind::LtS => $go!(BinKind::LtS),
            BinKind::LeS => $go!(BinKind::LeS),
            BinKind::MinU => $go!(BinKind::MinU),
            BinKind::MaxU => $go!(BinKind::MaxU),
            BinKind::MinS => $go!(BinKind::MinS),
            BinKind::MaxS => $go!(BinKind::MaxS),
            BinKind::AddF => $go!(BinKind::AddF),
            BinKind::SubF => $go!(BinKind::SubF),
            BinKind::MulF => $go!(BinKind::MulF),
            BinKind::DivF => $go!(BinKind::DivF),
            BinKind::RemF => $go!(BinKind::RemF),
            BinKind::MinF => $go!(BinKind::MinF),
            BinKind::MaxF => $go!(BinKind::MaxF),
            BinKind::EqF => $go!(BinKind::EqF),
            BinKind::NeF => $go!(BinKind::NeF),
            BinKind::LtF => $go!(BinKind::LtF),
            BinKind::LeF => $go!(BinKind::LeF),
            BinKind::Add64 => $go!(BinKind::Add64),
            BinKind::Sub64 => $go!(BinKind::Sub64),
            BinKind::Mul64 => $go!(BinKind::Mul64),
            BinKind::DivU64 => $go!(BinKind::DivU64),
            BinKind::DivS64 => $go!(BinKind::DivS64),
            BinKind::RemU64 => $go!(BinKind::RemU64),
            BinKind::RemS64 => $go!(BinKind::RemS64),
            BinKind::Shl64 => $go!(BinKind::Shl64),
            BinKind::ShrU64 => $go!(BinKind::ShrU64),
            BinKind::ShrS64 => $go!(BinKind::ShrS64),
            BinKind::LtS64 => $go!(BinKind::LtS64),
            BinKind::LeS64 => $go!(BinKind::LeS64),
            BinKind::MinS64 => $go!(BinKind::MinS64),
            BinKind::MaxS64 => $go!(BinKind::MaxS64),
        }
    };
}

/// The register holding element `index` (an index register's bits) of `array`, or `None` out of
/// bounds (SEMANTICS.md section 3: a negative `i32` or any index `>= len`).
fn array_element(array: ArrayRef, index: u64) -> Option<usize> {
    let index = if array.signed_index {
        i64::from(index as u32 as i32)
    } else {
        i64::from(index as u32)
    };
    (0..i64::from(array.len))
        .contains(&index)
        .then(|| array.base as usize + index as usize)
}

fn finite(bits: u64) -> bool {
    f(bits).is_finite()
}

impl<const TRACE: bool> Executor<'_, TRACE> {
    /// Runs one instruction without control flow over `active`.
    pub(super) fn simple(&mut self, inst: &Inst, active: &[u32]) {
        match *inst {
            Inst::Bin { op, dst, a, b } => self.bin(op, dst, a, b, active),
            Inst::Un { op, dst, a } => self.un(op, dst, a, active),
            Inst::Select {
                dst,
                cond,
                on_true,
                on_false,
            } => self.with_dst(dst, active, |regs, full, d| {
                let operands = (
                    &regs[cond as usize][..],
                    &regs[on_true as usize][..],
                    &regs[on_false as usize][..],
                );
                map3(
                    active,
                    full,
                    d,
                    operands,
                    |c, t, f| if c != 0 { t } else { f },
                );
                false
            }),
            Inst::Fma { dst, a, b, c } => self.fma(dst, [a, b, c], active),
            Inst::Copy { dst, src } => self.with_dst(dst, active, |regs, full, d| {
                map1(active, full, d, &regs[src as usize], |x| x);
                false
            }),
            Inst::Load { dst, buf, index } => self.load(dst, buf, index, active),
            Inst::Store { buf, index, value } => self.store(buf, index, value, active),
            Inst::ArrayZero { base, len } => {
                for reg in &mut self.regs[base as usize..(base + len) as usize] {
                    for &lane in active {
                        reg[lane as usize] = 0;
                    }
                }
            }
            Inst::ArrayLoad { dst, array, index } => {
                for &lane in active {
                    let lane = lane as usize;
                    let value = array_element(array, self.regs[index as usize][lane])
                        .map_or(0, |reg| self.regs[reg][lane]);
                    self.regs[dst as usize][lane] = value;
                }
            }
            Inst::ArrayStore {
                array,
                index,
                value,
            } => {
                for &lane in active {
                    let lane = lane as usize;
                    if let Some(reg) = array_element(array, self.regs[index as usize][lane]) {
                        self.regs[reg][lane] = self.regs[value as usize][lane];
                    }
                }
            }
            Inst::Atomic {
                op,
                dst,
                buf,
                index,
                expected,
                value,
            } => self.atomic(op, dst, buf, [index, expected, value], active),
            Inst::Subgroup { op, dst, a, lane } => self.subgroup(op, dst, [a, lane], active),
            Inst::TileLoad {
                tile,
                buf,
                offset,
                stride,
                layout,
            } => self.tile_transfer(false, (tile, buf), [offset, stride], layout, active),
            Inst::TileStore {
                tile,
                buf,
                offset,
                stride,
                layout,
            } => self.tile_transfer(true, (tile, buf), [offset, stride], layout, active),
            Inst::TileMultiplyAdd { d, a, b, c } => self.tile_multiply_add([d, a, b, c], active),
            Inst::If { .. }
            | Inst::Loop { .. }
            | Inst::While { .. }
            | Inst::Barrier
            | Inst::Return
            | Inst::Break
            | Inst::Continue => {}
        }
    }

    /// Runs `f` with the destination register taken out of the register file, so it can be written
    /// while the operands are read. `f` returns true when it saw an indeterminate result.
    #[inline(always)]
    fn with_dst(
        &mut self,
        dst: Reg,
        active: &[u32],
        f: impl FnOnce(&[Vec<u64>], bool, &mut [u64]) -> bool,
    ) {
        let mut d = std::mem::take(&mut self.regs[dst as usize]);
        let full = active.len() == self.lanes;
        let flagged = f(&self.regs, full, &mut d);
        self.regs[dst as usize] = d;
        if TRACE && flagged {
            self.indeterminate = true;
        }
    }

    fn bin(&mut self, op: BinKind, dst: Reg, a: Reg, b: Reg, active: &[u32]) {
        self.with_dst(dst, active, |regs, full, d| {
            let (a, b) = (&regs[a as usize][..], &regs[b as usize][..]);
            let mut flag = false;
            macro_rules! go {
                ($k:expr) => {
                    if TRACE && is_float_bin($k) {
                        map2(active, full, d, a, b, |x, y| {
                            let r = float_bin($k, f(x), f(y));
                            flag |= overflowed(r, finite(x) && finite(y));
                            u64::from(r.to_bits())
                        })
                    } else {
                        map2(active, full, d, a, b, |x, y| int_bin($k, x, y))
                    }
                };
            }
            each_bin!(op, go);
            flag
        });
    }

    fn un(&mut self, op: UnKind, dst: Reg, a: Reg, active: &[u32]) {
        self.with_dst(dst, active, |regs, full, d| {
            let a = &regs[a as usize][..];
            let mut flag = false;
            if TRACE && is_float_un(op) {
                map1(active, full, d, a, |x| {
                    let r = float_un(op, f(x));
                    flag |= overflowed(r, finite(x));
                    u64::from(r.to_bits())
                });
            } else if TRACE && op == UnKind::F32ToF16 {
                // An f32 past the f16 range overflows to an infinity: indeterminate.
                map1(active, full, d, a, |x| {
                    let r = un(op, x);
                    flag |= finite(x) && !half::f16::from_bits(r as u16).is_finite();
                    r
                });
            } else if TRACE && is_float_to_int(op) {
                map1(active, full, d, a, |x| {
                    flag |= !finite(x);
                    un(op, x)
                });
            } else {
                map1(active, full, d, a, |x| un(op, x));
            }
            flag
        });
    }

    fn fma(&mut self, dst: Reg, [a, b, c]: [Reg; 3], active: &[u32]) {
        self.with_dst(dst, active, |regs, full, d| {
            let operands = (
                &regs[a as usize][..],
                &regs[b as usize][..],
                &regs[c as usize][..],
            );
            let mut flag = false;
            map3(active, full, d, operands, |x, y, z| {
                let r = f(x).mul_add(f(y), f(z));
                if TRACE {
                    flag |= overflowed(r, finite(x) && finite(y) && finite(z));
                }
                u64::from(r.to_bits())
            });
            flag
        });
    }

    fn load(&mut self, dst: Reg, buf: BufRef, index: Reg, active: &[u32]) {
        let memory = self.memory;
        let mut d = std::mem::take(&mut self.regs[dst as usize]);
        let full = active.len() == self.lanes;
        let idx = &self.regs[index as usize];
        let signed = buf.signed_index;
        // A bool element is a whole word; any nonzero word loads as true.
        let as_bool = buf.bool_elem;
        let word = move |w: u64| if as_bool { u64::from(w != 0) } else { w };
        match buf.slot {
            Slot::Storage(i) => {
                let words = &memory.storage[i][..];
                map1(active, full, &mut d, idx, |x| {
                    element(x, signed, words.len())
                        .map_or(0, |e| word(words[e].load(Ordering::Relaxed)))
                });
            }
            Slot::Workgroup(i) => {
                let words = &self.workgroup[i][..];
                map1(active, full, &mut d, idx, |x| {
                    element(x, signed, words.len()).map_or(0, |e| word(words[e]))
                });
            }
        }
        self.regs[dst as usize] = d;
    }

    fn store(&mut self, buf: BufRef, index: Reg, value: Reg, active: &[u32]) {
        let (idx, val) = (&self.regs[index as usize], &self.regs[value as usize]);
        let signed = buf.signed_index;
        match buf.slot {
            Slot::Storage(i) => {
                let words = &self.memory.storage[i][..];
                for &l in active {
                    let l = l as usize;
                    if let Some(e) = element(idx[l], signed, words.len()) {
                        words[e].store(val[l], Ordering::Relaxed);
                    }
                }
            }
            Slot::Workgroup(i) => {
                let words = &mut self.workgroup[i][..];
                for &l in active {
                    let l = l as usize;
                    if let Some(e) = element(idx[l], signed, words.len()) {
                        words[e] = val[l];
                    }
                }
            }
        }
    }

    fn atomic(
        &mut self,
        op: crate::inst::AtomicKind,
        dst: Reg,
        buf: BufRef,
        [index, expected, value]: [Reg; 3],
        active: &[u32],
    ) {
        let mut d = std::mem::take(&mut self.regs[dst as usize]);
        let regs = &self.regs;
        let (idx, exp, val) = (
            &regs[index as usize],
            &regs[expected as usize],
            &regs[value as usize],
        );
        let signed = buf.signed_index;
        // Lanes run their atomics in lane order, each one indivisible.
        match buf.slot {
            Slot::Storage(i) => {
                let words = &self.memory.storage[i][..];
                for &l in active {
                    let l = l as usize;
                    d[l] = element(idx[l], signed, words.len())
                        .map_or(0, |e| atomic_rmw(&words[e], op, exp[l], val[l]));
                }
            }
            Slot::Workgroup(i) => {
                let words = &mut self.workgroup[i][..];
                for &l in active {
                    let l = l as usize;
                    d[l] = element(idx[l], signed, words.len()).map_or(0, |e| {
                        let old = words[e];
                        if let Some(new) = atomic_update(op, old, exp[l], val[l]) {
                            words[e] = new;
                        }
                        old
                    });
                }
            }
        }
        self.regs[dst as usize] = d;
    }
}
