//! Mapping a per-lane function over the active lanes of a block.
//!
//! `active` is the sorted list of lanes that run the current instruction. When it holds every lane of
//! the block the maps run over dense slices (which the compiler can vectorise); otherwise they visit
//! the listed lanes only, so inactive lanes keep their register values.

/// `d[l] = f(a[l])` for every active lane.
#[inline(always)]
pub(crate) fn map1(
    active: &[u32],
    full: bool,
    d: &mut [u64],
    a: &[u64],
    mut f: impl FnMut(u64) -> u64,
) {
    if full {
        let n = active.len();
        for (d, &a) in d[..n].iter_mut().zip(&a[..n]) {
            *d = f(a);
        }
    } else {
        for &l in active {
            let l = l as usize;
            d[l] = f(a[l]);
        }
    }
}

/// `d[l] = f(a[l], b[l])` for every active lane.
#[inline(always)]
pub(crate) fn map2(
    active: &[u32],
    full: bool,
    d: &mut [u64],
    a: &[u64],
    b: &[u64],
    mut f: impl FnMut(u64, u64) -> u64,
) {
    if full {
        let n = active.len();
        for ((d, &a), &b) in d[..n].iter_mut().zip(&a[..n]).zip(&b[..n]) {
            *d = f(a, b);
        }
    } else {
        for &l in active {
            let l = l as usize;
            d[l] = f(a[l], b[l]);
        }
    }
}

/// `d[l] = f(a[l], b[l], c[l])` for every active lane.
#[inline(always)]
pub(crate) fn map3(
    active: &[u32],
    full: bool,
    d: &mut [u64],
    (a, b, c): (&[u64], &[u64], &[u64]),
    mut f: impl FnMut(u64, u64, u64) -> u64,
) {
    if full {
        let n = active.len();
        let operands = a[..n].iter().zip(&b[..n]).zip(&c[..n]);
        for (d, ((&a, &b), &c)) in d[..n].iter_mut().zip(operands) {
            *d = f(a, b, c);
        }
    } else {
        for &l in active {
            let l = l as usize;
            d[l] = f(a[l], b[l], c[l]);
        }
    }
}
