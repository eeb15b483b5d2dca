//! Vectorised elementwise modules: each invocation runs four consecutive virtual invocations along
//! x with `vec4` loads and stores, where the scalar module moves one element per invocation.
//!
//! **Which programs.** Every effect must be on the invocation's own element: a workgroup of
//! `[W, 1, 1]`; no atomics, barriers, workgroup memory, loops or `return`; and every access to a writable
//! buffer at index `gid.x` itself (or a `let` of exactly `gid.x` that is never assigned). The buffers
//! *vectorised* are the storage buffers (uniform ones keep their layout) that are accessed, and only
//! at `gid.x`: they are declared `array<vec4<T>>` (every element type is a 4-byte word), element `i`
//! being lane `i % 4` of row `i / 4`. Other buffers (read-only ones loaded elsewhere) stay scalar
//! arrays with their guards. The launch must be plain (not coalesced) over a grid with
//! `y = z = 1`, and every vectorised binding must span whole 16-byte rows; the backend chooses the
//! form at dispatch time and falls back to the scalar module otherwise.
//!
//! **The grid.** The launch runs `ceil(grid.x / 4)` workgroups of `W` (folded like any grid when too
//! wide): invocation `c` (its row) runs virtual invocations `4c .. 4c + 3`, each with the builtins
//! it would have had alone (`gid.x = 4c + k`, `lid.x = gid.x % W`, `wid.x = gid.x / W`,
//! `num_workgroups = (grid.x, 1, 1)`; y and z are 0). The grid comes from `params`. Virtual
//! invocation `v` exists when `v <= last = grid.x * W - 1`.
//!
//! **Full rows.** With `m = min(last, len_j - 1 for every vectorised j)` (at most `u32::MAX - 1`,
//! since a length fits a u32), row `c` is full when `c < (m + 1) / 4`: one comparison, on values
//! that are the same for every invocation. Then all four lanes exist and lie inside every vectorised
//! buffer, so their accesses need no guard. Each buffer that is loaded is read once as a `vec4`;
//! the body runs four times, lane by lane, reading and writing lanes of those rows (a buffer both
//! loaded and stored keeps its row in a local, so a lane reads what it stored); each stored
//! buffer's row is written once at the end. A buffer only stored is never read: a store at the top
//! level of the body (every lane reaches it) makes the row one `vec4` store; a buffer stored only
//! under an `if` or in a loop keeps a flag per lane, and its row is stored whole when all four lanes
//! stored, else lane by lane, only the lanes that stored.
//!
//! **Other rows** (the grid or some buffer ends inside them): when the row holds some virtual
//! invocation, the body runs once per existing lane (`4c + k <= last`), in order, with every access
//! guarded as in the scalar module. They are the module's second entry point, `vyre_tail`, which
//! the backend dispatches after `main` (same pass, same bind groups) only when such rows exist:
//! its invocation `p` runs row `full_rows + p`. `main` runs the full rows alone, so it carries no
//! code for the others (which llvmpipe pays for even where no lane takes it).
//!
//! **Why this is exact.** Every virtual invocation runs exactly once with its own builtins. A
//! vectorised buffer's element is touched by its own virtual invocation only (every access is at
//! `gid.x`), so hoisting its load to the row's start and sinking its store to the row's end changes
//! nothing another invocation can see, and within the invocation a lane reads its row's local, which
//! holds what it stored. Lanes run in order in one invocation, one legal schedule of invocations
//! that share no barrier. Out-of-bounds rules hold: full rows are in bounds by the test above, and
//! every other access is guarded against this dispatch's lengths.

use naga::{BinaryOperator as B, Block, Expression, Handle, MathFunction as M, Statement};
use vyre_driver::BackendError;
use vyre_foundation::ir::{Expr, Literal, Node};

use super::analysis::vector::{VectorPlan, WIDTH};
use super::planted::{Miscompile, planted};
use super::{FullRow, Lowerer, Row};

impl Lowerer<'_, '_> {
    /// The row the prologue gave this invocation.
    fn prologue_row(&self) -> Result<Handle<Expression>, BackendError> {
        self.prologue.row.ok_or_else(|| {
            BackendError::compile(
                "a vectorised body was lowered without its prologue. Fix: this is a vyre lowering bug; report it with the program text (Display).",
            )
        })
    }

    /// The grid's last `gid.x`, the number of full rows and the last row that holds a virtual
    /// invocation: values every invocation of the launch shares.
    fn row_bounds(
        &mut self,
        block: &mut Block,
        plan: &VectorPlan,
    ) -> (Handle<Expression>, Handle<Expression>, Handle<Expression>) {
        let width = self.program.workgroup_size[0];
        let grid_x = self.prologue.builtins[3][0];
        // The grid's last gid.x, (grid.x - 1) * W + W - 1, which fits a u32 where grid.x * W might
        // not (`plan_dispatch` keeps every gid.x within u32).
        let one = self.fb.u32(block, 1);
        let before = self.fb.binary(block, B::Subtract, grid_x, one);
        let w = self.fb.u32(block, width);
        let start = self.fb.binary(block, B::Multiply, before, w);
        let w_less = self.fb.u32(block, width - 1);
        let last = self.fb.binary(block, B::Add, start, w_less);
        let m = self.row_limit(block, plan, last);
        // Full rows: c < (m + 1) / 4; m + 1 does not wrap (see the module docs).
        let end = self.fb.binary(block, B::Add, m, one);
        let two = self.fb.u32(block, 2);
        let full_rows = self.fb.binary(block, B::ShiftRight, end, two);
        let last_row = self.fb.binary(block, B::ShiftRight, last, two);
        (last, full_rows, last_row)
    }

    /// The body of a vectorised module's `main` entry point: `if c < full_rows { full row }`.
    pub(crate) fn vector_full(
        &mut self,
        block: &mut Block,
        body: &[Node],
        plan: &VectorPlan,
    ) -> Result<(), BackendError> {
        let row = self.prologue_row()?;
        let (_, full_rows, _) = self.row_bounds(block, plan);
        let full = self.fb.binary(block, B::Less, row, full_rows);
        self.fb.flush(block);
        let mut fast = Block::new();
        self.full_row(&mut fast, body, plan, row)?;
        self.fb.flush(&mut fast);
        self.fb.stmt(
            block,
            Statement::If {
                condition: full,
                accept: fast,
                reject: Block::new(),
            },
        );
        Ok(())
    }

    /// The body of a vectorised module's `vyre_tail` entry point, launched over the rows from
    /// `full_rows` on: invocation `p` (the prologue's row) runs row `full_rows + p` when that row
    /// holds a virtual invocation, lane by lane, every access guarded.
    pub(crate) fn vector_tail(
        &mut self,
        block: &mut Block,
        body: &[Node],
        plan: &VectorPlan,
    ) -> Result<(), BackendError> {
        let p = self.prologue_row()?;
        let (last, full_rows, last_row) = self.row_bounds(block, plan);
        // No wrap: p < (grid.x / 4 + 1) * W and full_rows <= grid.x * W / 4 + 1, so the sum stays
        // below grid.x * W / 2 + 2W, within u32 (see `prologue::vector_grid`).
        let row = self.fb.binary(block, B::Add, full_rows, p);
        let live = self.fb.binary(block, B::LessEqual, row, last_row);
        self.fb.flush(block);
        let mut tail = Block::new();
        self.partial_row(&mut tail, body, plan, row, last)?;
        self.fb.flush(&mut tail);
        self.fb.stmt(
            block,
            Statement::If {
                condition: live,
                accept: tail,
                reject: Block::new(),
            },
        );
        Ok(())
    }

    /// `min(last, len_j - 1 for every vectorised j)`: the last element index that every lane of a
    /// full row may reach. Fixed lengths fold into one literal.
    fn row_limit(
        &mut self,
        block: &mut Block,
        plan: &VectorPlan,
        last: Handle<Expression>,
    ) -> Handle<Expression> {
        let mut fixed: Option<u32> = None;
        let mut runtime = Vec::new();
        for (j, &on) in plan.vectorised.iter().enumerate() {
            if !on {
                continue;
            }
            match self.prologue.fixed[j] {
                // Fixed lengths are at least 1 outside coalesced modules.
                Some(count) => fixed = Some(fixed.map_or(count, |f| f.min(count))),
                None => runtime.push(self.prologue.lengths[j]),
            }
        }
        let mut m = if planted(Miscompile::VectorIgnoresGridEnd) {
            None
        } else {
            Some(last)
        };
        let mut take = |lowerer: &mut Self, block: &mut Block, v: Handle<Expression>| {
            m = Some(match m {
                Some(m) => lowerer.fb.math(block, M::Min, &[m, v]),
                None => v,
            });
        };
        if let Some(count) = fixed {
            let v = self.fb.u32(block, count.saturating_sub(1));
            take(self, block, v);
        }
        for len in runtime {
            // Runtime lengths are at least 1 (`plan_dispatch` rejects empty inputs).
            let one = self.fb.u32(block, 1);
            let v = self.fb.binary(block, B::Subtract, len, one);
            take(self, block, v);
        }
        m.unwrap_or(last)
    }

    /// Sets the x builtins to those of virtual invocation `gid_x` (y and z stay 0).
    fn lane_builtins(&mut self, block: &mut Block, gid_x: Handle<Expression>, plan: &VectorPlan) {
        self.prologue.builtins[0][0] = gid_x;
        if plan.uses_ids {
            let w = self.fb.u32(block, self.program.workgroup_size[0]);
            self.prologue.builtins[1][0] = self.fb.binary(block, B::Modulo, gid_x, w);
            self.prologue.builtins[2][0] = self.fb.binary(block, B::Divide, gid_x, w);
        }
    }

    /// The full-row path: rows in, four lanes, rows out.
    fn full_row(
        &mut self,
        block: &mut Block,
        body: &[Node],
        plan: &VectorPlan,
        row: Handle<Expression>,
    ) -> Result<(), BackendError> {
        let saved = self.prologue.builtins;
        let mut rows: Vec<Option<Row>> = Vec::with_capacity(self.program.buffers.len());
        for j in 0..self.program.buffers.len() {
            rows.push(None);
            if !plan.vectorised[j] {
                continue;
            }
            let element = self.program.buffers[j].element;
            if !plan.stored[j] {
                let pointer = self.row_pointer(block, j, row);
                rows[j] = Some(Row::Value(self.fb.load(block, pointer)));
                continue;
            }
            let ty =
                super::globals::vec4_type(self.module, super::globals::storage_scalar(element));
            let local = self.fb.local(block, None, ty);
            if plan.loaded[j] {
                let pointer = self.row_pointer(block, j, row);
                let value = self.fb.load(block, pointer);
                self.fb.stmt(
                    block,
                    Statement::Store {
                        pointer: local,
                        value,
                    },
                );
            }
            let flags = (!plan.loaded[j] && !plan.always_stored[j]).then(|| {
                [0, 1, 2, 3].map(|_| {
                    let flag = self.fb.local(block, None, self.types.bool);
                    let no = self.literal(block, Literal::Bool(false));
                    self.fb.stmt(
                        block,
                        Statement::Store {
                            pointer: flag,
                            value: no,
                        },
                    );
                    flag
                })
            });
            rows[j] = Some(Row::Local { local, flags });
        }
        let two = self.fb.u32(block, 2);
        let first = self.fb.binary(block, B::ShiftLeft, row, two);
        for lane in 0..WIDTH {
            let gid_x = if lane == 0 {
                first
            } else {
                let k = self.fb.u32(block, lane);
                self.fb.binary(block, B::Add, first, k)
            };
            self.lane_builtins(block, gid_x, plan);
            self.lanes = Some(FullRow {
                lane,
                rows: rows.clone(),
                aliases: plan.aliases.clone(),
            });
            let lowered = self.body(block, body);
            self.lanes = None;
            lowered?;
        }
        self.prologue.builtins = saved;
        for (j, r) in rows.iter().enumerate() {
            if let Some(Row::Local { local, flags }) = *r {
                self.store_row(block, j, row, local, flags);
            }
        }
        Ok(())
    }

    /// Writes a stored buffer's row: whole, or (with flags) whole when every lane stored and else
    /// only the lanes that did.
    fn store_row(
        &mut self,
        block: &mut Block,
        buffer: usize,
        row: Handle<Expression>,
        local: Handle<Expression>,
        flags: Option<[Handle<Expression>; 4]>,
    ) {
        let Some(flags) = flags else {
            let value = self.fb.load(block, local);
            let pointer = self.row_pointer(block, buffer, row);
            self.fb.stmt(block, Statement::Store { pointer, value });
            return;
        };
        let stored = flags.map(|f| self.fb.load(block, f));
        let both_low = self.fb.binary(block, B::LogicalAnd, stored[0], stored[1]);
        let both_high = self.fb.binary(block, B::LogicalAnd, stored[2], stored[3]);
        let all = self.fb.binary(block, B::LogicalAnd, both_low, both_high);
        self.fb.flush(block);
        let mut whole = Block::new();
        let value = self.fb.load(&mut whole, local);
        let pointer = self.row_pointer(&mut whole, buffer, row);
        self.fb
            .stmt(&mut whole, Statement::Store { pointer, value });
        let mut lanes = Block::new();
        let global = self.globals[buffer].global;
        for (lane, &flag) in stored.iter().enumerate() {
            let lane = lane as u32;
            self.fb.if_then(&mut lanes, flag, |fb, inner| {
                let source = fb.access_index(inner, local, lane);
                let value = fb.load(inner, source);
                let base = fb.expr(inner, Expression::GlobalVariable(global));
                let vector = fb.access(inner, base, row);
                let pointer = fb.access_index(inner, vector, lane);
                fb.stmt(inner, Statement::Store { pointer, value });
            });
        }
        self.fb.stmt(
            block,
            Statement::If {
                condition: all,
                accept: whole,
                reject: lanes,
            },
        );
    }

    /// The partial-row path: `for k in 0..4 { if 4c + k > last { break } body(gid.x = 4c + k) }`,
    /// every access guarded.
    fn partial_row(
        &mut self,
        block: &mut Block,
        body: &[Node],
        plan: &VectorPlan,
        row: Handle<Expression>,
        last: Handle<Expression>,
    ) -> Result<(), BackendError> {
        let saved = self.prologue.builtins;
        let two = self.fb.u32(block, 2);
        let first = self.fb.binary(block, B::ShiftLeft, row, two);
        // Lanes k <= rest exist; the row is live, so first <= last.
        let rest = self.fb.binary(block, B::Subtract, last, first);
        let counter = self
            .fb
            .local(block, Some("vyre_lane".to_owned()), self.types.u32);
        let zero = self.fb.u32(block, 0);
        self.fb.stmt(
            block,
            Statement::Store {
                pointer: counter,
                value: zero,
            },
        );
        self.fb.flush(block);
        let mut loop_body = Block::new();
        let k = self.fb.load(&mut loop_body, counter);
        let four = self.fb.u32(&mut loop_body, WIDTH);
        let done = self.fb.binary(&mut loop_body, B::GreaterEqual, k, four);
        let missing = if planted(Miscompile::VectorTailOffByOne) {
            self.fb.binary(&mut loop_body, B::GreaterEqual, k, rest)
        } else {
            self.fb.binary(&mut loop_body, B::Greater, k, rest)
        };
        let stop = self.fb.binary(&mut loop_body, B::LogicalOr, done, missing);
        self.fb.if_then(&mut loop_body, stop, |fb, inner| {
            fb.stmt(inner, Statement::Break)
        });
        let gid_x = self.fb.binary(&mut loop_body, B::Add, first, k);
        self.lane_builtins(&mut loop_body, gid_x, plan);
        let lowered = self.body(&mut loop_body, body);
        self.prologue.builtins = saved;
        lowered?;
        self.fb.flush(&mut loop_body);
        self.fb
            .counted_loop(block, loop_body, counter, naga::Literal::U32(1));
        Ok(())
    }

    /// A pointer to row `row` (a `vec4`) of vectorised buffer `buffer`.
    fn row_pointer(
        &mut self,
        block: &mut Block,
        buffer: usize,
        row: Handle<Expression>,
    ) -> Handle<Expression> {
        let base = self.fb.expr(
            block,
            Expression::GlobalVariable(self.globals[buffer].global),
        );
        self.fb.access(block, base, row)
    }

    /// In the full-row path: true when `buffer[index]` is this lane's element of a vectorised
    /// buffer.
    pub(crate) fn is_lane_access(&self, buffer: usize, index: &Expr) -> bool {
        let Some(lanes) = &self.lanes else {
            return false;
        };
        lanes.rows.get(buffer).copied().flatten().is_some()
            && lanes.aliases.at_gid(self.evidence, index)
    }

    /// In the full-row path: the word of this lane's element of a vectorised buffer, when
    /// `buffer[index]` is one.
    pub(crate) fn lane_load(
        &mut self,
        block: &mut Block,
        buffer: usize,
        index: &Expr,
    ) -> Option<Handle<Expression>> {
        if !self.is_lane_access(buffer, index) {
            return None;
        }
        let lanes = self.lanes.as_ref()?;
        let lane = lanes.lane;
        match lanes.rows.get(buffer).copied().flatten()? {
            Row::Value(value) => Some(self.fb.access_index(block, value, lane)),
            Row::Local { local, .. } => {
                let pointer = self.fb.access_index(block, local, lane);
                Some(self.fb.load(block, pointer))
            }
        }
    }

    /// In the full-row path: stores `word` into this lane of `buffer`'s row (the caller checked
    /// [`Lowerer::is_lane_access`]) and sets the lane's flag.
    pub(crate) fn lane_store(
        &mut self,
        block: &mut Block,
        buffer: usize,
        word: Handle<Expression>,
    ) -> Result<(), BackendError> {
        let found =
            self.lanes
                .as_ref()
                .and_then(|lanes| match lanes.rows.get(buffer).copied().flatten() {
                    Some(Row::Local { local, flags }) => Some((lanes.lane, local, flags)),
                    Some(Row::Value(_)) | None => None,
                });
        let Some((lane, local, flags)) = found else {
            return Err(BackendError::compile(
                "a vectorised store found no row to store into. Fix: this is a vyre lowering bug; report it with the program text (Display).",
            ));
        };
        let pointer = self.fb.access_index(block, local, lane);
        self.fb.stmt(
            block,
            Statement::Store {
                pointer,
                value: word,
            },
        );
        if let Some(flags) = flags {
            let yes = self.literal(block, Literal::Bool(true));
            self.fb.stmt(
                block,
                Statement::Store {
                    pointer: flags[lane as usize],
                    value: yes,
                },
            );
        }
        Ok(())
    }
}
