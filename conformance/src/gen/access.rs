//! Buffer accesses: which buffers may be loaded, stored or used atomically at this point, and the
//! indices that keep the access race-free (own slots) or deliberately wild (any value, often out of
//! bounds).

use vyre_foundation::ir::{AtomicOp, DataType, Expr};

use crate::r#gen::Feature;
use crate::r#gen::decode::{Ctx, LTID, Phase, TID};
use crate::r#gen::layout::{BufInfo, Role};
use crate::r#gen::recipe::Choices;

/// How an access must index a buffer to stay race-free.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Indexing {
    /// Any index.
    Wild,
    /// One of the invocation's own slots (or out of bounds), counted from the named id variable.
    Own(&'static str),
}

/// Where an atomic may go, and what may be done with its old value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum AtomicTarget {
    /// Contended: an order-independent operation, old value dropped.
    Contended,
    /// Uncontended (the invocation's own slot), or anything in valid-only programs: any operation,
    /// old value kept in a variable.
    Owned,
}

impl Ctx {
    fn indexing(&self, info: &BufInfo) -> Indexing {
        if !self.config.comparable {
            return Indexing::Wild;
        }
        match info.role {
            Role::OwnStorage => Indexing::Own(TID),
            Role::OwnWorkgroup if self.phase == Phase::Write => Indexing::Own(LTID),
            _ => Indexing::Wild,
        }
    }

    pub(crate) fn can_load(&self, info: &BufInfo) -> bool {
        if !self.config.comparable {
            return true;
        }
        if self.exact_only() && info.decl.element.is_float() && info.decl.access.is_writable() {
            return false;
        }
        match info.role {
            Role::ReadOnly | Role::OwnStorage | Role::OwnWorkgroup => true,
            Role::SharedWorkgroup(_) => self.phase == Phase::Read,
            Role::Contended(_) | Role::TileOutput => false,
        }
    }

    fn can_store(&self, info: &BufInfo) -> bool {
        if !info.decl.access.is_writable() {
            return false;
        }
        if !self.config.comparable {
            return true;
        }
        match info.role {
            Role::OwnStorage => true,
            Role::OwnWorkgroup => self.phase == Phase::Write,
            _ => false,
        }
    }

    fn atomic_target(&self, info: &BufInfo) -> Option<AtomicTarget> {
        let element = info.decl.element;
        if !info.decl.access.is_writable() || !element.is_integer() {
            return None;
        }
        // Atomics on 64-bit elements need a device feature of their own.
        if element.size_bytes() == 8 && !crate::r#gen::layout::wide_atomics(self.features) {
            return None;
        }
        if !self.config.comparable {
            return Some(AtomicTarget::Owned);
        }
        let write = self.phase == Phase::Write;
        match info.role {
            Role::Contended(_) => Some(AtomicTarget::Contended),
            Role::SharedWorkgroup(_) if write => Some(AtomicTarget::Contended),
            Role::OwnStorage => Some(AtomicTarget::Owned),
            Role::OwnWorkgroup if write => Some(AtomicTarget::Owned),
            _ => None,
        }
    }

    /// The buffers of element type `ty` that may be loaded here.
    pub(crate) fn loadable(&self, ty: DataType) -> impl Iterator<Item = &BufInfo> {
        let buffers = self.buffers.iter();
        buffers.filter(move |b| b.decl.element == ty && self.can_load(b))
    }

    /// A load of type `ty` (the caller checked that some buffer qualifies).
    pub(crate) fn load(&self, ch: &mut Choices<'_>, ty: DataType, depth: u32) -> Expr {
        let candidates: Vec<&BufInfo> = self.loadable(ty).collect();
        let Some(info) = candidates.get(ch.below(candidates.len())) else {
            return self.literal(ch, ty);
        };
        if info.rows {
            return self.row_load(ch, info, depth);
        }
        let index = self.index(ch, info, depth);
        Expr::load(info.decl.name.as_str(), index)
    }

    /// A load of type `ty` from a buffer the program never writes (`read` or `uniform`), whose
    /// elements are its inputs as given; `None` when there is none.
    pub(crate) fn read_only_load(
        &self,
        ch: &mut Choices<'_>,
        ty: DataType,
        depth: u32,
    ) -> Option<Expr> {
        let candidates: Vec<&BufInfo> = self
            .loadable(ty)
            .filter(|b| !b.decl.access.is_writable())
            .collect();
        let info = candidates.get(ch.below(candidates.len()))?;
        if info.rows {
            return Some(self.row_load(ch, info, depth));
        }
        let index = self.index(ch, info, depth);
        Some(Expr::load(info.decl.name.as_str(), index))
    }

    /// A load of a row-loaded buffer (`Feature::RowLoads`): one element, or two lanes of one row
    /// with `select` choosing (both are read), so that programs read rows at several lanes.
    fn row_load(&self, ch: &mut Choices<'_>, info: &BufInfo, depth: u32) -> Expr {
        let wild = self.features.has(Feature::WildIndices);
        let name = info.decl.name.as_str();
        let (base, lane) = self.row_base(ch, info, depth, wild);
        if ch.one_in(4) {
            return Expr::load(name, row_at(ch, base, lane));
        }
        let other = (lane + 1 + ch.below(3) as u32) % 4;
        let first = Expr::load(name, row_at(ch, base.clone(), lane));
        let second = Expr::load(name, row_at(ch, base, other));
        let cond = Expr::lt(Expr::var(TID), Expr::u32(ch.below(8) as u32));
        Expr::select(cond, first, second)
    }

    /// The indices of buffers a store may target here (`out0` comes first: shrinking picks it).
    pub(crate) fn store_targets(&self) -> Vec<usize> {
        let all = self.features.has(Feature::Stores);
        let ok = |(i, b): &(usize, &BufInfo)| (*i == 0 || all) && self.can_store(b);
        self.buffers
            .iter()
            .enumerate()
            .filter(ok)
            .map(|(i, _)| i)
            .collect()
    }

    /// The buffers an atomic may target here, with what the atomic may do.
    pub(crate) fn atomic_targets(&self) -> Vec<(usize, AtomicTarget)> {
        let targets = self.buffers.iter().enumerate();
        targets
            .filter_map(|(i, b)| self.atomic_target(b).map(|t| (i, t)))
            .collect()
    }

    /// An index into `info` for an access here.
    pub(crate) fn index(&self, ch: &mut Choices<'_>, info: &BufInfo, depth: u32) -> Expr {
        if self.at_tid_only(info) {
            return Expr::var(TID);
        }
        let wild = self.features.has(Feature::WildIndices);
        if info.rows {
            let (base, lane) = self.row_base(ch, info, depth, wild);
            return row_at(ch, base, lane);
        }
        if wild && ch.next_word() % 8 == 7 {
            return out_of_bounds(ch, info);
        }
        match self.indexing(info) {
            Indexing::Own(id) => own_slot(ch, self, id, info.slots, depth),
            // Elementwise programs load read-only buffers at the invocation's own element too.
            Indexing::Wild if self.features.has(Feature::Elementwise) && ch.one_in(2) => {
                Expr::var(TID)
            }
            Indexing::Wild => {
                let len = Expr::buf_len(info.decl.name.as_str());
                match ch.below(if wild { 4 } else { 1 }) {
                    0 => Expr::rem(self.expr(ch, DataType::U32, depth), len),
                    1 => self.expr(ch, DataType::U32, depth),
                    2 => self.expr(ch, DataType::I32, depth),
                    _ => Expr::rem(
                        self.expr(ch, DataType::U32, depth),
                        Expr::add(len, Expr::u32(2)),
                    ),
                }
            }
        }
    }

    /// The parts `b` and `c` of an aligned index `b + c` into a row-loaded read-only buffer
    /// (`Feature::RowLoads`): `b` a multiple of 4 (the invocation's own row, a row within or just
    /// past the length, any row, or with `WildIndices` past the end), `c` in `0..4`.
    fn row_base(
        &self,
        ch: &mut Choices<'_>,
        info: &BufInfo,
        depth: u32,
        wild: bool,
    ) -> (Expr, u32) {
        let len = Expr::buf_len(info.decl.name.as_str());
        let base = match ch.below(if wild { 5 } else { 4 }) {
            0 => Expr::mul(Expr::var(TID), Expr::u32(4)),
            // A row of the buffer or the first past it: ends inside the last row are reached.
            1 => {
                let rows = Expr::add(Expr::div(len, Expr::u32(4)), Expr::u32(1));
                Expr::shl(
                    Expr::rem(self.expr(ch, DataType::U32, depth), rows),
                    Expr::u32(2),
                )
            }
            2 => Expr::mul(Expr::u32(4), self.expr(ch, DataType::U32, depth)),
            3 => Expr::u32(4 * (ch.next_word() % 8)),
            _ => Expr::mul(Expr::add(len, Expr::u32(ch.next_word() % 4)), Expr::u32(4)),
        };
        (base, ch.below(4) as u32)
    }

    /// An atomic operation for `target` on buffer `info`.
    pub(crate) fn atomic_op(
        &self,
        ch: &mut Choices<'_>,
        info: &BufInfo,
        target: AtomicTarget,
    ) -> AtomicOp {
        let word = ch.next_word();
        match (info.role, target) {
            (Role::Contended(g) | Role::SharedWorkgroup(g), AtomicTarget::Contended) => g.op(word),
            _ => AtomicOp::ALL[word as usize % AtomicOp::ALL.len()],
        }
    }
}

/// `base + lane` in one of the forms the lowering recognises as aligned.
fn row_at(ch: &mut Choices<'_>, base: Expr, lane: u32) -> Expr {
    match ch.below(4) {
        0 if lane == 0 => base,
        0 | 1 => Expr::add(base, Expr::u32(lane)),
        2 => Expr::bit_or(base, Expr::u32(lane)),
        _ => Expr::add(Expr::u32(lane), base),
    }
}

/// `id * slots + (e % slots)`, or just `id` for one slot: an element no other invocation touches.
fn own_slot(ch: &mut Choices<'_>, ctx: &Ctx, id: &str, slots: u32, depth: u32) -> Expr {
    if slots <= 1 {
        return Expr::var(id);
    }
    let offset = Expr::rem(ctx.expr(ch, DataType::U32, depth), Expr::u32(slots));
    Expr::add(Expr::mul(Expr::var(id), Expr::u32(slots)), offset)
}

/// An index that is out of bounds for every invocation: past the length, negative, or near `u32::MAX`.
fn out_of_bounds(ch: &mut Choices<'_>, info: &BufInfo) -> Expr {
    let word = ch.next_word();
    let k = (word >> 2) % 16;
    match word % 3 {
        0 => Expr::add(Expr::buf_len(info.decl.name.as_str()), Expr::u32(k)),
        1 => Expr::i32(-1 - k as i32),
        _ => Expr::u32(u32::MAX - k),
    }
}
