//! Row loads: a read-only buffer read four consecutive elements at a time is declared as `vec4`
//! rows, and the loads of one statement that share a row read it once; a workgroup buffer read
//! four elements at a time is declared as rows too ("Workgroup rows" below).
//!
//! **Which buffers.** A `read` storage buffer of 32-bit or `f16` elements (16- or 8-byte rows; 64-bit
//! elements stay scalar) whose every load is at an *aligned*
//! index `b + c`: `b` provably a multiple of 4 and `c` a literal in `0..=3` (or `b | c`, or a
//! literal index), with at least two different `c` among its loads. `b` is a multiple of 4 when it
//! is a literal multiple of 4; `x * k` with either side a multiple of 4; `x << s` with `s mod 32 >=
//! 2`, or `x` one; `x & k` with either side one; `+`, `-`, `|`, `^` and `select` of two; or a
//! variable declared by a `let` of one and never assigned. These facts hold in wrapping 32-bit
//! arithmetic (4 divides 2^32), for `u32` and `i32` alike. Such a buffer is what a kernel that
//! sums or transforms four elements per invocation reads (`data[4 * i + 0] + ... + data[4 * i + 3]`),
//! the scalar form of a `vec4` load.
//!
//! **The form.** Any plain launch (direct or folded, scalar or vectorised, any workgroup shape,
//! subgroups included, since the rows change no invocation's identity) of a program with such a
//! buffer declares it as `array<vec4<T>>`, when its binding can span whole 16-byte multiples
//! (`backend::form` checks; the scalar layout is kept otherwise). Element `i` is lane `i % 4` of
//! row `i / 4`. A row buffer is never one of the vectorised form's buffers, which are accessed at
//! `gid.x` alone (not a multiple of 4).
//!
//! **A load** at `b + c` lowers to: `r = b >> 2`, the row `v = data[min(r, (len - 1) >> 2)]`
//! (`len >= 1` in every plain launch, and the binding spans `ceil(len / 4)` rows, so that row
//! exists), and the element `select(0, v[c], b + c < len)`. `b + c` does not wrap (`b <= 2^32 - 4`),
//! so the guard is exactly the scalar guard `index < len`, and an out-of-bounds load yields zero as
//! `SEMANTICS.md` section 3 requires. Where `bounds` proves the index in bounds, the guard and the
//! clamp go. Within one statement, loads of the same buffer with structurally equal `b` (without
//! atomics, whose results differ between evaluations) share one row: one statement's expressions are
//! evaluated in one block, with no assignment between them, and the buffer is never written, so
//! equal `b` read equal rows. The cache is cleared at every statement.
//!
//! **Aligned indices**, for both kinds of rows: `b + k` (or `k + b`) with `b` a multiple of 4 and `k`
//! any literal splits into the base `b + (k & !3)`, still a multiple of 4 in wrapping arithmetic, and
//! the lane `k & 3`; `b | c` only for a lane `c`. A variable declared by a `let` of such a sum and
//! never assigned splits the same way at its uses (common-subexpression elimination names `b + 1`,
//! `b + 2`, `b + 3` when several statements read them); its aligned variable is never assigned
//! either, so reading it at the use reads the value the `let` bound.
//!
//! **Workgroup rows.** A workgroup buffer of 32-bit or `f16` elements whose count is a multiple of 4, never
//! updated atomically, whose every load is at an aligned index with at least two different lanes
//! among them, or which a tile moves through at offsets and strides proven multiples of 16 bytes
//! with at least two lanes among its aligned loads and stores (`analysis::rows::workgroup_rows`), is declared as
//! `array<vec4<T>, count / 4>` in every launch form: llvmpipe reads a tile declared as `f32` at half
//! the speed of one declared as `vec4<f32>` whose lanes are literal (BENCHMARKS.md, SGEMM), and
//! element `i` is lane `i % 4` of row `i / 4` in both layouts, so the memory a program sees is the
//! same. A load at `b + c` reads row `min(b >> 2, count / 4 - 1)` and takes lane `c` under the guard
//! `b + c < count`, exactly as a storage row load does (each load reads its own row: the buffer is
//! written, by this invocation between statements and by others at any time). A store at an aligned
//! index writes lane `c` of row `b >> 2` under the same guard (row 0 when out of bounds, where the
//! store does not run); any other store writes lane `i & 3` of row `i >> 2` through the guarded
//! element address (`access`). Every row index is below `count / 4`, so every access stays inside
//! the array (`trusted`). A tile transfer points at row `offset >> 2` with a stride of `stride >> 2`
//! rows (`lower/tile.rs`): both are multiples of 16 bytes, so the row's first lane is element
//! `offset` and the cooperative operation reads the row's component type at the same bytes.
//!
//! **Quad stores.** Four statements `buffer[b + 0] = v0; ...; buffer[b + 3] = v3;` into one
//! workgroup row buffer, lanes 0 to 3 in order, with structurally equal aligned `b`, with nothing
//! but `let`s between them (what common-subexpression elimination leaves), none of whose indices,
//! values and `let` values loads from `buffer` or updates any buffer atomically, are the `let`s and
//! then one store of the row `vec4(v0, v1, v2, v3)` at `b >> 2` (`Lowerer::quad_store`). The four
//! stores write exactly these four elements: the indices and values are pure expressions of state
//! the stores do not touch (no load of `buffer`, no atomic, no assignment between them), so
//! evaluating them after the last `let` gives the values each had at its own statement, the `let`s
//! compute what they did before the stores moved past them, and equal `b` are equal values.
//! Lane `c` is in bounds exactly when `b + c < count`; `b` and `count` are multiples of 4, so
//! either every lane is (`b + 3 < count`, the one guard) or none is, and out of bounds no store
//! runs, as none of the four would have. Other invocations cannot tell one 8- or 16-byte store from
//! four: without a barrier between them their order is unobservable under the law.

use naga::{BinaryOperator as B, Block, Expression, Handle, MathFunction as M};
use vyre_driver::BackendError;
use vyre_foundation::ir::{Expr, Literal, Node};

use super::analysis::rows::{Base, RowFacts, WorkgroupRows};
use super::planted::{Miscompile, planted};
use super::{CachedRow, Local, Lowerer, RowKey, RowLoads};

impl RowLoads {
    /// Row loads of the row buffers `rows` describes and of the workgroup rows `workgroup`
    /// describes (`None`: the module declares none of that kind).
    pub(crate) fn new(rows: Option<&RowFacts>, workgroup: Option<&WorkgroupRows>) -> Self {
        // Both analyses collect the same aligned variables (one walk each of the same program).
        let aligned = rows
            .map(|f| &f.aligned)
            .or(workgroup.map(|w| &w.aligned))
            .cloned()
            .unwrap_or_default();
        RowLoads {
            rows: rows.map(|f| f.buffers.clone()).unwrap_or_default(),
            workgroup: workgroup.map(|w| w.buffers.clone()).unwrap_or_default(),
            aligned,
            cache: Vec::new(),
        }
    }

    fn is_workgroup_row(&self, buffer: usize) -> bool {
        self.workgroup.get(buffer).copied().unwrap_or(false)
    }

    /// Called at every statement, before its expressions are lowered: forgets the previous
    /// statement's rows.
    pub(crate) fn statement(&mut self) {
        if !planted(Miscompile::RowKeptAcrossStatements) {
            self.cache.clear();
        }
    }
}

impl Lowerer<'_, '_> {
    /// `buffer[index]` when `buffer` is a row buffer and `index` aligned: the lane of a row read
    /// once per statement (see the module docs); `None` otherwise.
    pub(crate) fn row_load(
        &mut self,
        block: &mut Block,
        buffer: usize,
        index: &Expr,
        proven: bool,
    ) -> Result<Option<Handle<Expression>>, BackendError> {
        let workgroup = self.row_loads.is_workgroup_row(buffer);
        if !workgroup && !self.row_loads.rows.get(buffer).copied().unwrap_or(false) {
            return Ok(None);
        }
        let Some((base, lane)) = self.row_loads.aligned.split(self.evidence, index) else {
            return Ok(None);
        };
        let lane = if workgroup && planted(Miscompile::WorkgroupRowLaneShifted) {
            (lane + 1) % 4
        } else {
            lane
        };
        let key = match base {
            Base::Literal(v) => RowKey::Expr(Expr::Lit(Literal::U32(v)), 0),
            Base::Expr(e, plus) => RowKey::Expr(e.clone(), plus),
            Base::Var(id, plus) => RowKey::Var(id, plus),
        };
        // A workgroup row is written between statements, and by other invocations: each load reads
        // its own row.
        let shareable = !workgroup && !matches!(&key, RowKey::Expr(e, _) if e.has_atomic());
        let cached = shareable
            .then(|| {
                self.row_loads
                    .cache
                    .iter()
                    .find(|r| r.buffer == buffer && r.base == key)
                    .map(|r| (r.base_u32, r.row))
            })
            .flatten();
        let len = self.prologue.lengths[buffer];
        let (base_u32, row) = match cached {
            Some(found) => found,
            None => {
                let base_u32 = self.row_base(block, &base)?;
                let two = self.fb.u32(block, 2);
                let mut at = self.fb.binary(block, B::ShiftRight, base_u32, two);
                if !proven {
                    let one = self.fb.u32(block, 1);
                    let last = self.fb.binary(block, B::Subtract, len, one);
                    let last_row = self.fb.binary(block, B::ShiftRight, last, two);
                    at = self.fb.math(block, M::Min, &[at, last_row]);
                }
                let global = self.fb.expr(
                    block,
                    Expression::GlobalVariable(self.globals[buffer].global),
                );
                let pointer = self.fb.access(block, global, at);
                let row = self.fb.load(block, pointer);
                if shareable {
                    self.row_loads.cache.push(CachedRow {
                        buffer,
                        base: key,
                        base_u32,
                        row,
                    });
                }
                (base_u32, row)
            }
        };
        let word = self.fb.access_index(block, row, lane);
        let value = self.word_to_value(block, buffer, word);
        if proven {
            return Ok(Some(value));
        }
        let c = self.fb.u32(block, lane);
        let element = self.fb.binary(block, B::Add, base_u32, c);
        let in_bounds = self.fb.binary(block, B::Less, element, len);
        let zero = self.zero(block, self.program.buffers[buffer].element);
        Ok(Some(self.fb.select(block, in_bounds, value, zero)))
    }

    /// The aligned base `b` of an index `b + c`, as a `u32`.
    fn row_base(
        &mut self,
        block: &mut Block,
        base: &Base<'_>,
    ) -> Result<Handle<Expression>, BackendError> {
        let (root, plus) = match base {
            Base::Literal(v) => return Ok(self.fb.u32(block, *v)),
            Base::Var(id, plus) => {
                // Never assigned (`Aligned`): its value here is the value its `let` bound.
                let value = match self.local(*id)? {
                    Local::Pointer(pointer) => self.fb.load(block, pointer),
                    Local::Value(value) => value,
                };
                (
                    self.index_u32(block, value, self.evidence.var(*id)?.ty),
                    *plus,
                )
            }
            Base::Expr(e, plus) => {
                let (value, ty) = self.expr(block, e)?;
                (self.index_u32(block, value, ty), *plus)
            }
        };
        if plus == 0 {
            return Ok(root);
        }
        // `x + k` wraps as the program's index does: `x + (k & !3)` is still a multiple of 4.
        let k = self.fb.u32(block, plus);
        Ok(self.fb.binary(block, B::Add, root, k))
    }

    /// `buffer[index] = value` when `buffer` is a workgroup row buffer and `index` aligned: a store
    /// to lane `c` of row `b >> 2`, dropped out of bounds (see the module docs); `false` otherwise,
    /// and nothing is emitted.
    pub(crate) fn row_store(
        &mut self,
        block: &mut Block,
        buffer: usize,
        index: &Expr,
        value: &Expr,
        proven: bool,
    ) -> Result<bool, BackendError> {
        if !self.row_loads.is_workgroup_row(buffer) {
            return Ok(false);
        }
        let Some((base, lane)) = self.row_loads.aligned.split(self.evidence, index) else {
            return Ok(false);
        };
        // The index before the value, as every store evaluates them.
        let base_u32 = self.row_base(block, &base)?;
        let (value, _) = self.expr(block, value)?;
        let (row, in_bounds) = self.guarded_row(block, buffer, base_u32, lane, proven);
        let global = self.fb.expr(
            block,
            Expression::GlobalVariable(self.globals[buffer].global),
        );
        let vector = self.fb.access(block, global, row);
        let pointer = self.fb.access_index(block, vector, lane);
        let word = self.value_to_word(block, buffer, value);
        let store = naga::Statement::Store {
            pointer,
            value: word,
        };
        self.store_guarded(block, in_bounds, store);
        Ok(true)
    }

    /// Row `b >> 2` (`b` is `base`) of the workgroup row buffer `buffer` for a store whose last
    /// element is `b + lane`, with the guard `b + lane < len` unless `proven`: row 0 where the
    /// guard fails, so that even the address of a store that does not run stays in bounds.
    fn guarded_row(
        &mut self,
        block: &mut Block,
        buffer: usize,
        base: Handle<Expression>,
        lane: u32,
        proven: bool,
    ) -> (Handle<Expression>, Option<Handle<Expression>>) {
        let two = self.fb.u32(block, 2);
        let row = self.fb.binary(block, B::ShiftRight, base, two);
        if proven {
            return (row, None);
        }
        let len = self.prologue.lengths[buffer];
        let c = self.fb.u32(block, lane);
        let element = self.fb.binary(block, B::Add, base, c);
        let in_bounds = self.fb.binary(block, B::Less, element, len);
        let zero = self.fb.u32(block, 0);
        (self.fb.select(block, in_bounds, row, zero), Some(in_bounds))
    }

    /// `store`, under `in_bounds` when there is a guard.
    fn store_guarded(
        &mut self,
        block: &mut Block,
        in_bounds: Option<Handle<Expression>>,
        store: naga::Statement,
    ) {
        match in_bounds {
            Some(in_bounds) => self
                .fb
                .if_then(block, in_bounds, |fb, inner| fb.stmt(inner, store)),
            None => self.fb.stmt(block, store),
        }
    }
}

impl Lowerer<'_, '_> {
    /// `nodes` starting with four stores into one workgroup row (`buffer[b + 0]` to `buffer[b +
    /// 3]`, in that order, structurally equal `b`), with only `let`s between them, as the `let`s
    /// and then one store of the whole row (see the module docs, "Quad stores"): the number of
    /// statements lowered, or `None`, with nothing emitted, when they are not such.
    pub(crate) fn quad_store(
        &mut self,
        block: &mut Block,
        nodes: &[Node],
    ) -> Result<Option<usize>, BackendError> {
        let Some(first @ Node::Store { .. }) = nodes.first() else {
            return Ok(None);
        };
        let buffer = self.evidence.node_buffer(first)?.index();
        if !self.row_loads.is_workgroup_row(buffer) {
            return Ok(None);
        }
        let mut base = None;
        let mut stores: Vec<(&Expr, &Expr)> = Vec::with_capacity(4);
        let mut lets = Vec::new();
        let mut used = 0;
        for node in nodes {
            if stores.len() == 4 {
                break;
            }
            used += 1;
            if let Node::Store { index, value, .. } = node {
                if self.evidence.node_buffer(node)?.index() != buffer
                    || self.reads_or_updates(buffer, index)
                    || self.reads_or_updates(buffer, value)
                {
                    return Ok(None);
                }
                let Some((b, lane)) = self.row_loads.aligned.split(self.evidence, index) else {
                    return Ok(None);
                };
                if lane as usize != stores.len() || base.as_ref().is_some_and(|f| *f != b) {
                    return Ok(None);
                }
                base = Some(b);
                stores.push((index, value));
                continue;
            }
            // What common-subexpression elimination leaves between the stores.
            if let Node::Let { value, .. } = node
                && !self.reads_or_updates(buffer, value)
            {
                lets.push(node);
                continue;
            }
            return Ok(None);
        }
        let (Some(base), [.., (last, _)]) = (base, stores.as_slice()) else {
            return Ok(None);
        };
        if stores.len() != 4 {
            return Ok(None);
        }
        let last = *last;
        for node in lets {
            self.node(block, node)?;
        }
        self.row_loads.statement();
        let proven = self.bounds.proven(self.evidence, buffer, last);
        let base_u32 = self.row_base(block, &base)?;
        let mut words = Vec::with_capacity(4);
        for (_, value) in stores {
            let (value, _) = self.expr(block, value)?;
            words.push(self.value_to_word(block, buffer, value));
        }
        if planted(Miscompile::WorkgroupQuadStoreLanesSwapped) {
            words.swap(1, 2);
        }
        let global = self.globals[buffer].global;
        let naga::TypeInner::Array { base: row_ty, .. } =
            self.module.types[self.module.global_variables[global].ty].inner
        else {
            return Err(BackendError::compile(
                "the wgpu lowering declared workgroup rows that are no array. Fix: this is a vyre lowering bug; report it with the program text (Display).",
            ));
        };
        let row_value = self.fb.expr(
            block,
            Expression::Compose {
                ty: row_ty,
                components: words,
            },
        );
        // Lane 3 in bounds is every lane in bounds: `b` and the count are multiples of 4.
        let (row, in_bounds) = self.guarded_row(block, buffer, base_u32, 3, proven);
        let array = self.fb.expr(block, Expression::GlobalVariable(global));
        let pointer = self.fb.access(block, array, row);
        let store = naga::Statement::Store {
            pointer,
            value: row_value,
        };
        self.store_guarded(block, in_bounds, store);
        Ok(Some(used))
    }

    /// Whether `expr` loads from `buffer` or updates any buffer atomically: what keeps a quad
    /// store's evaluations from moving past its stores.
    fn reads_or_updates(&self, buffer: usize, expr: &Expr) -> bool {
        let mut found = false;
        vyre_foundation::for_each_subexpr(expr, |e| {
            found |= matches!(e, Expr::Atomic { .. })
                || (matches!(e, Expr::Load { .. })
                    && self
                        .evidence
                        .buffer_of(e)
                        .map_or(true, |b| b.index() == buffer));
        });
        found
    }
}
