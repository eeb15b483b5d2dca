//! Matrix tiles (SEMANTICS.md section 9a): loads, stores and multiply-adds over tiles held in
//! registers, each lane its own copy.
//!
//! The law makes every operand subgroup-uniform, so the lanes of a subgroup compute the same tile
//! (different subgroups may compute different ones: each lane loads and stores at its own
//! operands); a multiply-add is computed once per run of lanes with the same operand registers and
//! copied to them. Sums are taken in index order (`c`, then `l = 0..k`), each addition rounded to
//! the accumulator type; the result is reported indeterminate when some other order could round
//! differently, or a term is not a plain number, as for `f32` subgroup sums.

use std::sync::atomic::Ordering;

use vyre_foundation::ir::{TileLayout, f16_bits_to_f32, f32_to_f16_bits};

use super::Executor;
use crate::inst::{BufRef, Reg, Slot, TileRef};

/// The element of `tile` at `(row, column)` in lane `lane`'s registers, as an `f64` (exact).
fn element(regs: &[Vec<u64>], tile: TileRef, row: u32, column: u32, lane: usize) -> f64 {
    let bits = regs[(tile.base + row * tile.columns + column) as usize][lane];
    if tile.half {
        f64::from(f16_bits_to_f32(bits as u16))
    } else {
        f64::from(f32::from_bits(bits as u32))
    }
}

/// The buffer positions of `tile`'s elements, row by row, or `None` when one is out of bounds
/// (`len` elements).
fn positions(
    tile: TileRef,
    offset: u64,
    stride: u64,
    layout: TileLayout,
    len: usize,
) -> Option<Vec<usize>> {
    let stride = stride as u32;
    let last = offset + layout.position(tile.rows - 1, tile.columns - 1, stride);
    if last >= len as u64 {
        return None;
    }
    let mut out = Vec::with_capacity((tile.rows * tile.columns) as usize);
    for r in 0..tile.rows {
        for c in 0..tile.columns {
            out.push((offset + layout.position(r, c, stride)) as usize);
        }
    }
    Some(out)
}

/// True when `x` is zero or a normal number of the accumulator type (`half`: f16, else f32) and
/// finite: what every device reads as itself.
fn plain(x: f64, half: bool) -> bool {
    let smallest = if half {
        2f64.powi(-14)
    } else {
        2f64.powi(-126)
    };
    let largest = if half { 65504.0 } else { f64::from(f32::MAX) };
    x == 0.0 || (x.is_finite() && x.abs() >= smallest && x.abs() <= largest)
}

/// The value of the lowest set bit of `x` (finite, nonzero).
fn unit(x: f64) -> f64 {
    let bits = x.to_bits();
    let exponent = ((bits >> 52) & 0x7ff) as i32;
    let significand = if exponent == 0 {
        bits & ((1 << 52) - 1)
    } else {
        (bits & ((1 << 52) - 1)) | (1 << 52)
    };
    2f64.powi(exponent.max(1) - 1075 + significand.trailing_zeros() as i32)
}

/// True when every order and grouping of adding `terms` in a `precision`-bit significand gives
/// the exact sum: every term a multiple of the smallest term's lowest bit `q`, and the sum of
/// magnitudes below `2^precision * q`, so every partial sum is exact.
fn order_free(terms: &[f64], precision: i32) -> bool {
    let q = terms
        .iter()
        .filter(|t| **t != 0.0)
        .map(|t| unit(*t))
        .fold(f64::INFINITY, f64::min);
    if q == f64::INFINITY {
        return true;
    }
    let total: f64 = terms.iter().map(|t| t.abs()).sum();
    total / q <= 2f64.powi(precision)
}

impl<const TRACE: bool> Executor<'_, TRACE> {
    /// The element count of buffer `buf`.
    fn buffer_len(&self, buf: BufRef) -> usize {
        match buf.slot {
            Slot::Storage(i) => self.memory.storage[i].len(),
            Slot::Workgroup(i) => self.workgroup[i].len(),
        }
    }

    /// `tile_load` (`store` false) or `tile_store` over `active`.
    pub(super) fn tile_transfer(
        &mut self,
        store: bool,
        (tile, buf): (TileRef, BufRef),
        [offset, stride]: [Reg; 2],
        layout: TileLayout,
        active: &[u32],
    ) {
        let len = self.buffer_len(buf);
        for &lane in active {
            let lane = lane as usize;
            let (o, s) = (
                self.regs[offset as usize][lane],
                self.regs[stride as usize][lane],
            );
            let at = positions(tile, o & 0xffff_ffff, s & 0xffff_ffff, layout, len);
            let registers = tile.base as usize..(tile.base + tile.rows * tile.columns) as usize;
            if !store {
                for (k, reg) in registers.enumerate() {
                    let value = at.as_ref().map_or(0, |at| match buf.slot {
                        Slot::Storage(i) => self.memory.storage[i][at[k]].load(Ordering::Relaxed),
                        Slot::Workgroup(i) => self.workgroup[i][at[k]],
                    });
                    self.regs[reg][lane] = value;
                }
                continue;
            }
            let overlapping = (s as u32) < layout.line(tile.rows, tile.columns);
            let Some(at) = at.filter(|_| !overlapping) else {
                continue;
            };
            for (k, reg) in registers.enumerate() {
                let value = self.regs[reg][lane];
                match buf.slot {
                    Slot::Storage(i) => {
                        self.memory.storage[i][at[k]].store(value, Ordering::Relaxed)
                    }
                    Slot::Workgroup(i) => self.workgroup[i][at[k]] = value,
                }
            }
        }
    }

    /// `d = a x b + c` over `active`.
    pub(super) fn tile_multiply_add(&mut self, [d, a, b, c]: [TileRef; 4], active: &[u32]) {
        let (m, n, k) = (a.rows, b.columns, a.columns);
        let half = c.half;
        // The previous lane's operands (a, b and c, read before its result was written, which
        // may be over c) and its result.
        let mut previous: Option<(Vec<u64>, Vec<u64>)> = None;
        let operands = |regs: &[Vec<u64>], lane: usize| -> Vec<u64> {
            [a, b, c]
                .iter()
                .flat_map(|t| (t.base..t.base + t.rows * t.columns).map(|r| regs[r as usize][lane]))
                .collect()
        };
        for &lane in active {
            let lane = lane as usize;
            // Lanes whose operands are the previous lane's get its result (the law makes them
            // all equal; this only saves the work).
            let inputs = operands(&self.regs, lane);
            if let Some((seen, result)) = &previous
                && *seen == inputs
            {
                for (i, bits) in result.iter().enumerate() {
                    self.regs[d.base as usize + i][lane] = *bits;
                }
                continue;
            }
            let mut result = Vec::with_capacity((m * n) as usize);
            let mut terms = Vec::with_capacity(k as usize + 1);
            for i in 0..m {
                for j in 0..n {
                    terms.clear();
                    terms.push(element(&self.regs, c, i, j, lane));
                    for l in 0..k {
                        terms.push(
                            element(&self.regs, a, i, l, lane) * element(&self.regs, b, l, j, lane),
                        );
                    }
                    // Index order, each addition rounded to the accumulator type.
                    let mut sum = terms[0];
                    for t in &terms[1..] {
                        sum = if half {
                            f64::from(f16_bits_to_f32(f32_to_f16_bits((sum + t) as f32)))
                        } else {
                            f64::from((sum + t) as f32)
                        };
                    }
                    if TRACE
                        && (!terms.iter().all(|t| plain(*t, half))
                            || !order_free(&terms, if half { 11 } else { 24 })
                            || !plain(sum, half))
                    {
                        self.indeterminate = true;
                    }
                    result.push(if half {
                        u64::from(f32_to_f16_bits(sum as f32))
                    } else {
                        u64::from((sum as f32).to_bits())
                    });
                }
            }
            for (i, bits) in result.iter().enumerate() {
                self.regs[d.base as usize + i][lane] = *bits;
            }
            previous = Some((inputs, result));
            self.pending += u64::from(m * n * k);
        }
    }
}
