//! Matrix tiles (`SEMANTICS.md` section 9a) as naga cooperative matrices: one function-local
//! `coop_matNxM<T, Role>` per tile, `coopLoad`, `coopMultiplyAdd` and `coopStore` for the
//! statements, each load and store under a guard in the generated code.
//!
//! Why it is exact:
//!
//! - **One tile per subgroup.** The validator admits tile statements only in workgroup-uniform
//!   control flow with subgroup-uniform offsets and strides, and `vyre_driver::check_tiles` only
//!   workgroups of whole subgroups, so every subgroup of the workgroup runs each statement with
//!   every lane and operands the same in all its lanes: what the cooperative-matrix operations
//!   require of their scope (the subgroup), and what makes each subgroup hold the law's tile.
//!   naga's own uniformity check cannot see this (it holds every function-local variable, so
//!   every loop counter, non-uniform, and `local_invocation_id` non-uniform), so the entry point
//!   turns its `derivative_uniformity` diagnostic off, as the module's uniformity analysis is off
//!   in vyre's own validation (`lower/mod.rs`).
//! - **Zeroed at the declaration.** The declaration stores the type's zero value where it stands,
//!   so one in a loop body starts every iteration from zeros.
//! - **Bounds.** A load or store touches `offset + position(r, c, stride)` for every element; the
//!   largest is `offset + (major - 1) * stride + (line - 1)` (`major` lines of `line` elements).
//!   The guard computes, without wrapping, `room = len - offset` (0 when `offset >= len`) and
//!   `room >= line && stride <= (room - line) / (major - 1)`, exactly "the largest position is
//!   below `len`" (`major - 1` is 7 or 15, never zero). The load runs only under the guard and
//!   the tile is zero otherwise; the store runs only under the guard and `stride >= line` (lines
//!   that overlap would leave it to the device which write lands), else writes nothing. The
//!   pointer is made inside the guarded block, so no out-of-bounds address is ever formed; in a
//!   coalesced launch the item's offset into the shared binding is added, as `lower::access`
//!   does, and `len` is the item's length.
//! - **Alignment.** Vulkan requires a cooperative matrix's pointer and stride to be multiples of
//!   16 bytes (`analysis::tiles`); the H100 moves an unaligned tile one element off. A transfer
//!   whose offset and stride `analysis::tiles` proves aligned, with no item offset, points
//!   straight into its buffer. Any other checks `(slot | stride) % (16 / size) == 0` where it runs:
//!   aligned, it goes direct; else it goes through `vyre_tile_stage_<element>`, 256 elements of
//!   workgroup memory whose lines are `line` elements apart. The subgroups take the stage in turn
//!   in a loop every invocation runs (`staged_transfer`), with a workgroup barrier after each
//!   half of a turn: a load's lanes copy the tile's elements in and the subgroup loads the tile
//!   from the stage; a store's subgroup stores the tile there and its lanes copy the elements
//!   out. The copy touches exactly the elements the guard admitted, so the result is the direct
//!   transfer's, element for element.
//! - **Multiply-add.** `coopMultiplyAdd(a, b, c)`: each product exact, the sum in the device's
//!   order, the law's unspecified order (the reference reports results that depend on it as
//!   indeterminate).

use naga::{
    BinaryOperator as B, Block, CooperativeData, CooperativeRole, CooperativeSize, Expression,
    GlobalVariable, Handle, Scalar, Span, Statement, Type, TypeInner,
};
use vyre_driver::BackendError;
use vyre_foundation::ir::{DataType, Expr, Node, TileLayout, TileRole, TileType};
use vyre_foundation::validate::VarId;

use super::Lowerer;
use super::analysis::tiles::zeros_needed;
use super::func::FunctionBuilder;
use super::planted::{Miscompile, planted};
use crate::lower::globals::Layout;

fn lowering_bug(what: &str) -> BackendError {
    BackendError::compile(format!(
        "the wgpu lowering met {what}. Fix: this is a vyre lowering bug (validation refuses such programs); report it with the program text (Display)."
    ))
}

fn size(n: u32) -> Result<CooperativeSize, BackendError> {
    match n {
        8 => Ok(CooperativeSize::Eight),
        16 => Ok(CooperativeSize::Sixteen),
        _ => Err(lowering_bug("a tile side other than 8 or 16")),
    }
}

impl Lowerer<'_, '_> {
    /// The naga type of a tile.
    fn tile_type(&mut self, tile: TileType) -> Result<Handle<Type>, BackendError> {
        let scalar = match tile.element {
            DataType::F16 => Scalar::F16,
            DataType::F32 => Scalar::F32,
            DataType::Bool | DataType::U32 | DataType::I32 | DataType::U64 | DataType::I64 => {
                return Err(lowering_bug("a tile of integers"));
            }
        };
        let role = coop_role(tile.role);
        let inner = TypeInner::CooperativeMatrix {
            columns: size(tile.columns)?,
            rows: size(tile.rows)?,
            scalar,
            role,
        };
        Ok(self
            .module
            .types
            .insert(Type { name: None, inner }, Span::UNDEFINED))
    }

    /// The tile with id `id`: its local's pointer and its type.
    fn tile(&self, id: Option<VarId>) -> Result<(Handle<Expression>, TileType), BackendError> {
        let id = id.ok_or_else(|| lowering_bug("a tile statement naming no tile"))?;
        let tile = self
            .evidence
            .var(id)?
            .tile
            .ok_or_else(|| lowering_bug("a tile statement naming a variable"))?;
        Ok((self.local_pointer(id)?, tile))
    }

    /// `tile name: ...;`: a zeroed function-local cooperative matrix, bound to `id`.
    pub(crate) fn declare_tile(
        &mut self,
        block: &mut Block,
        id: VarId,
        name: &str,
        tile: TileType,
    ) -> Result<(), BackendError> {
        let ty = self.tile_type(tile)?;
        self.zeroed_local(block, id, name, ty);
        Ok(())
    }

    /// A tile load or store (see the module docs).
    pub(crate) fn tile_transfer(
        &mut self,
        block: &mut Block,
        node: &Node,
    ) -> Result<(), BackendError> {
        let (Node::TileLoad {
            offset,
            stride,
            layout,
            ..
        }
        | Node::TileStore {
            offset,
            stride,
            layout,
            ..
        }) = node
        else {
            return Err(lowering_bug("a statement that is no tile load or store"));
        };
        let store = matches!(node, Node::TileStore { .. });
        let [tile, ..] = self.evidence.node_tiles(node)?;
        let (tile_pointer, tile) = self.tile(tile)?;
        let b = self.evidence.node_buffer(node)?.index();
        let global = self.globals[b];
        // A workgroup buffer declared as rows (`analysis::rows::workgroup_rows`): every transfer
        // of it is proven aligned, and points at the row its offset starts (below).
        let rows = global.layout == Layout::WorkgroupVec4;
        if !matches!(global.layout, Layout::Storage | Layout::Workgroup) && !rows {
            return Err(lowering_bug(
                "a tile moving through a uniform or vectorised buffer",
            ));
        }
        let (offset_ir, stride_ir) = (offset, stride);
        let (offset, _) = self.tile_operand(block, offset)?;
        let (stride, _) = self.tile_operand(block, stride)?;
        let line = tile_line(*layout, tile);
        let major = if *layout == TileLayout::RowMajor {
            tile.rows
        } else {
            tile.columns
        };
        // room = offset < len ? len - offset : 0
        let len = self.prologue.lengths[b];
        let inside = self.fb.binary(block, B::Less, offset, len);
        let left = self.fb.binary(block, B::Subtract, len, offset);
        let nothing = self.fb.u32(block, 0);
        let mut room = self.fb.select(block, inside, left, nothing);
        if planted(Miscompile::TileGuardOffByOne) {
            let one = self.fb.u32(block, 1);
            room = self.fb.binary(block, B::Add, room, one);
        }
        let line_c = self.fb.u32(block, line);
        let fits_line = self.fb.binary(block, B::GreaterEqual, room, line_c);
        let spare = self.fb.binary(block, B::Subtract, room, line_c);
        let gaps = self.fb.u32(block, major - 1);
        let widest = self.fb.binary(block, B::Divide, spare, gaps);
        let fits_stride = self.fb.binary(block, B::LessEqual, stride, widest);
        let mut ok = self.fb.binary(block, B::LogicalAnd, fits_line, fits_stride);
        if store {
            let apart = self.fb.binary(block, B::GreaterEqual, stride, line_c);
            ok = self.fb.binary(block, B::LogicalAnd, ok, apart);
        }
        let ty = self.tile_type(tile)?;
        let transfer = Transfer {
            store,
            tile: tile_pointer,
            ty,
            columns: size(tile.columns)?,
            rows: size(tile.rows)?,
            role: coop_role(tile.role),
            row_major: *layout == TileLayout::RowMajor,
            buffer: global.global,
            line,
            major,
        };
        let item_offset = self.prologue.offsets[b];
        let proven = item_offset.is_none()
            && self
                .tile_facts
                .as_ref()
                .is_some_and(|f| f.proven(self.evidence, offset_ir, stride_ir, tile.element));
        if rows && !proven {
            return Err(lowering_bug(
                "a tile moving through workgroup rows at an offset or stride not proven aligned",
            ));
        }
        if proven {
            // Only inside the guard: no out-of-bounds address is ever formed. Through rows, the
            // pointer is to the row holding element `offset` (a multiple of 8 `f16` or 4 32-bit
            // elements, so its first lane) and the stride counts rows: the cooperative operation
            // reads the row's component type at the same bytes (SPV_KHR_cooperative_matrix takes
            // a pointer to a vector, its stride in those vectors).
            // A literal stays a literal (`coopLoad` with a constant stride is what NVIDIA's
            // compiler makes fast; `24u >> 2u` computed at run time ran at a third of the speed).
            let (offset, stride) = if rows {
                (
                    self.quarter(block, offset_ir, offset),
                    self.quarter(block, stride_ir, stride),
                )
            } else {
                (offset, stride)
            };
            let accept = self.fb.nested(block, |fb, inner| {
                let slot = item_slot(fb, inner, item_offset, offset);
                let array = fb.expr(inner, Expression::GlobalVariable(transfer.buffer));
                let pointer = fb.access(inner, array, slot);
                transfer.direct(fb, inner, pointer, stride);
            });
            let reject = transfer.otherwise(&mut self.fb, block);
            self.fb.stmt(
                block,
                Statement::If {
                    condition: ok,
                    accept,
                    reject,
                },
            );
            return Ok(());
        }
        // Not proven aligned: direct when slot and stride are aligned in this evaluation, else
        // through the stage. The slot is only arithmetic until the guard holds.
        let slot = item_slot(&mut self.fb, block, item_offset, offset);
        let mask = self.fb.u32(block, (1 << zeros_needed(tile.element)) - 1);
        let bits = self.fb.binary(block, B::InclusiveOr, slot, stride);
        let low = self.fb.binary(block, B::And, bits, mask);
        let zero = self.fb.u32(block, 0);
        let aligned = self.fb.binary(block, B::Equal, low, zero);
        let direct = self.fb.nested(block, |fb, inner| {
            let accept = fb.nested(inner, |fb, inner| {
                let array = fb.expr(inner, Expression::GlobalVariable(transfer.buffer));
                let pointer = fb.access(inner, array, slot);
                transfer.direct(fb, inner, pointer, stride);
            });
            let reject = transfer.otherwise(fb, inner);
            fb.stmt(
                inner,
                Statement::If {
                    condition: ok,
                    accept,
                    reject,
                },
            );
        });
        self.fb.stmt(
            block,
            Statement::If {
                condition: aligned,
                accept: direct,
                reject: Block::new(),
            },
        );
        let stage = self
            .tile_stages
            .iter()
            .find(|(e, _)| *e == tile.element)
            .map(|&(_, g)| g)
            .ok_or_else(|| lowering_bug("an unaligned tile transfer with no stage declared"))?;
        self.staged_transfer(
            block,
            transfer,
            Staged {
                ok,
                aligned,
                slot,
                stride,
                stage,
            },
        )
    }

    /// `value >> 2` of the tile operand `ir` lowered to `value`: a literal when `ir` is one.
    fn quarter(
        &mut self,
        block: &mut Block,
        ir: &Expr,
        value: Handle<Expression>,
    ) -> Handle<Expression> {
        if let Expr::Lit(literal) = ir
            && let Some(word) = super::analysis::zeros::literal_word(*literal)
        {
            return self.fb.u32(block, word >> 2);
        }
        let two = self.fb.u32(block, 2);
        self.fb.binary(block, B::ShiftRight, value, two)
    }

    /// The staged path of a transfer not proven aligned (see the module docs, "Alignment"): the
    /// subgroups take the stage in turn, in a loop every invocation of the workgroup runs (tile
    /// statements stand in workgroup-uniform control flow), each turn between two barriers. In
    /// its turn a subgroup whose transfer is unaligned copies its lines lane by lane between the
    /// buffer and the stage, and points the cooperative operation at the stage, whose lines are
    /// `line` elements apart (16 bytes or more) and whose start is the array's.
    fn staged_transfer(
        &mut self,
        block: &mut Block,
        t: Transfer,
        staged: Staged,
    ) -> Result<(), BackendError> {
        let ids = self.subgroup_ids()?;
        let index = self.local_index(block);
        let subgroup = self.fb.binary(block, B::Divide, index, ids.size);
        let [x, y, z] = self.program.workgroup_size;
        let invocations = self.fb.u32(block, x.saturating_mul(y).saturating_mul(z));
        let one = self.fb.u32(block, 1);
        let below = self.fb.binary(block, B::Subtract, ids.size, one);
        let rounded = self.fb.binary(block, B::Add, invocations, below);
        let turns = self.fb.binary(block, B::Divide, rounded, ids.size);
        let unaligned = self.fb.expr(
            block,
            Expression::Unary {
                op: naga::UnaryOperator::LogicalNot,
                expr: staged.aligned,
            },
        );
        let u32_ty = self.types.u32;
        let turn = self
            .fb
            .local(block, Some("vyre_stage_turn".to_owned()), u32_ty);
        let zero = self.fb.u32(block, 0);
        self.fb.stmt(
            block,
            Statement::Store {
                pointer: turn,
                value: zero,
            },
        );
        let lane = ids.lane;
        let size = ids.size;
        let body = self.fb.nested(block, |fb, body| {
            let current = fb.load(body, turn);
            let done = fb.binary(body, B::GreaterEqual, current, turns);
            fb.if_then(body, done, |fb, inner| fb.stmt(inner, Statement::Break));
            let ours = fb.binary(body, B::Equal, current, subgroup);
            let mine = fb.binary(body, B::LogicalAnd, unaligned, ours);
            let copy = |fb: &mut FunctionBuilder, inner: &mut Block, into_stage: bool| {
                let count = fb.u32(inner, t.major * t.line);
                lane_loop(fb, inner, lane, size, count, u32_ty, |fb, inner, e| {
                    let shift = fb.u32(inner, t.line.trailing_zeros());
                    let m = fb.binary(inner, B::ShiftRight, e, shift);
                    let within = fb.u32(inner, t.line - 1);
                    let l = fb.binary(inner, B::And, e, within);
                    let lines = fb.binary(inner, B::Multiply, m, staged.stride);
                    let from_slot = fb.binary(inner, B::Add, staged.slot, lines);
                    let at = fb.binary(inner, B::Add, from_slot, l);
                    let buffer = fb.expr(inner, Expression::GlobalVariable(t.buffer));
                    let buffer = fb.access(inner, buffer, at);
                    let stage = fb.expr(inner, Expression::GlobalVariable(staged.stage));
                    let stage = fb.access(inner, stage, e);
                    let (from, to) = if into_stage {
                        (buffer, stage)
                    } else {
                        (stage, buffer)
                    };
                    let value = fb.load(inner, from);
                    fb.stmt(inner, Statement::Store { pointer: to, value });
                });
            };
            let at_stage = |fb: &mut FunctionBuilder, inner: &mut Block| {
                let stage = fb.expr(inner, Expression::GlobalVariable(staged.stage));
                fb.access_index(inner, stage, 0)
            };
            // First half: into the stage.
            fb.if_then(body, mine, |fb, inner| {
                fb.if_then(inner, staged.ok, |fb, inner| {
                    if t.store {
                        let pointer = at_stage(fb, inner);
                        let stride = fb.u32(inner, t.line);
                        t.direct(fb, inner, pointer, stride);
                    } else {
                        copy(fb, inner, true);
                    }
                });
            });
            fb.stmt(body, Statement::ControlBarrier(naga::Barrier::WORK_GROUP));
            // Second half: out of it.
            fb.if_then(body, mine, |fb, inner| {
                let accept = fb.nested(inner, |fb, inner| {
                    if t.store {
                        copy(fb, inner, false);
                    } else {
                        let pointer = at_stage(fb, inner);
                        let stride = fb.u32(inner, t.line);
                        t.direct(fb, inner, pointer, stride);
                    }
                });
                let reject = t.otherwise(fb, inner);
                fb.stmt(
                    inner,
                    Statement::If {
                        condition: staged.ok,
                        accept,
                        reject,
                    },
                );
            });
            fb.stmt(body, Statement::ControlBarrier(naga::Barrier::WORK_GROUP));
        });
        self.fb
            .counted_loop(block, body, turn, naga::Literal::U32(1));
        Ok(())
    }

    /// `tile_multiply_add(d, a, b, c);`.
    pub(crate) fn tile_multiply_add(
        &mut self,
        block: &mut Block,
        node: &Node,
    ) -> Result<(), BackendError> {
        let [d, a, b, c] = self.evidence.node_tiles(node)?;
        let (d, _) = self.tile(d)?;
        let (a, _) = self.tile(a)?;
        let (b, _) = self.tile(b)?;
        let (c, _) = self.tile(c)?;
        let a = self.fb.load(block, a);
        let b = self.fb.load(block, b);
        let c = self.fb.load(block, c);
        let value = self
            .fb
            .expr(block, Expression::CooperativeMultiplyAdd { a, b, c });
        self.fb.stmt(block, Statement::Store { pointer: d, value });
        Ok(())
    }

    /// A tile offset or stride: a `u32` (validation).
    fn tile_operand(
        &mut self,
        block: &mut Block,
        expr: &Expr,
    ) -> Result<(Handle<Expression>, DataType), BackendError> {
        self.expr(block, expr)
    }
}

fn coop_role(role: TileRole) -> CooperativeRole {
    match role {
        TileRole::A => CooperativeRole::A,
        TileRole::B => CooperativeRole::B,
        TileRole::Accumulator => CooperativeRole::C,
    }
}

/// One tile load or store, as the module moves it.
#[derive(Clone, Copy)]
struct Transfer {
    store: bool,
    /// The tile's local.
    tile: Handle<Expression>,
    ty: Handle<Type>,
    columns: CooperativeSize,
    rows: CooperativeSize,
    role: CooperativeRole,
    row_major: bool,
    buffer: Handle<GlobalVariable>,
    /// The elements of a line, and the lines.
    line: u32,
    major: u32,
}

impl Transfer {
    /// The cooperative load into the tile, or store from it, at `pointer` with `stride`.
    fn direct(
        &self,
        fb: &mut FunctionBuilder,
        block: &mut Block,
        pointer: Handle<Expression>,
        stride: Handle<Expression>,
    ) {
        let data = CooperativeData {
            pointer,
            stride,
            row_major: self.row_major,
        };
        if self.store {
            let target = fb.load(block, self.tile);
            fb.stmt(block, Statement::CooperativeStore { target, data });
        } else {
            let value = fb.expr(
                block,
                Expression::CooperativeLoad {
                    columns: self.columns,
                    rows: self.rows,
                    role: self.role,
                    data,
                },
            );
            fb.stmt(
                block,
                Statement::Store {
                    pointer: self.tile,
                    value,
                },
            );
        }
    }

    /// What a transfer whose guard fails does: a load zeroes the tile, a store writes nothing.
    fn otherwise(&self, fb: &mut FunctionBuilder, outer: &mut Block) -> Block {
        if self.store {
            return Block::new();
        }
        fb.nested(outer, |fb, inner| {
            let zero = fb.expr(inner, Expression::ZeroValue(self.ty));
            fb.stmt(
                inner,
                Statement::Store {
                    pointer: self.tile,
                    value: zero,
                },
            );
        })
    }
}

/// The operands of a staged transfer.
#[derive(Clone, Copy)]
struct Staged {
    /// The guard, the runtime alignment, the element of `(0, 0)` and the stride.
    ok: Handle<Expression>,
    aligned: Handle<Expression>,
    slot: Handle<Expression>,
    stride: Handle<Expression>,
    stage: Handle<GlobalVariable>,
}

/// The element a transfer's `(0, 0)` is: the offset, plus the item's start in a coalesced launch.
fn item_slot(
    fb: &mut FunctionBuilder,
    block: &mut Block,
    item_offset: Option<Handle<Expression>>,
    offset: Handle<Expression>,
) -> Handle<Expression> {
    match item_offset {
        Some(base) => fb.binary(block, B::Add, base, offset),
        None => offset,
    }
}

/// `for (e = lane; e < count; e += size) { f(e) }`: the subgroup's lanes over `count` elements.
fn lane_loop(
    fb: &mut FunctionBuilder,
    block: &mut Block,
    lane: Handle<Expression>,
    size: Handle<Expression>,
    count: Handle<Expression>,
    u32_ty: Handle<Type>,
    f: impl FnOnce(&mut FunctionBuilder, &mut Block, Handle<Expression>),
) {
    let element = fb.local(block, Some("vyre_stage_element".to_owned()), u32_ty);
    fb.stmt(
        block,
        Statement::Store {
            pointer: element,
            value: lane,
        },
    );
    let body = fb.nested(block, |fb, body| {
        let e = fb.load(body, element);
        let done = fb.binary(body, B::GreaterEqual, e, count);
        fb.if_then(body, done, |fb, inner| fb.stmt(inner, Statement::Break));
        f(fb, body, e);
    });
    let mut continuing = Block::new();
    let e = fb.load(&mut continuing, element);
    let next = fb.binary(&mut continuing, B::Add, e, size);
    fb.stmt(
        &mut continuing,
        Statement::Store {
            pointer: element,
            value: next,
        },
    );
    fb.stmt(
        block,
        Statement::Loop {
            body,
            continuing,
            break_if: None,
        },
    );
}

/// The elements of one line of `tile` in `layout`.
fn tile_line(layout: TileLayout, tile: TileType) -> u32 {
    layout.line(tile.rows, tile.columns)
}

#[cfg(test)]
mod tests {
    use naga::valid::{Capabilities, ValidationFlags, Validator};
    use vyre_foundation::ir::Program;

    use crate::lower::{Form, ProgramFacts, lower};
    use crate::workarounds::Workarounds;

    /// Tiles loaded at offsets computed from a loop counter, the shape a GEMM has.
    const PROGRAM: &str = "program @workgroup_size(64, 1, 1) {
      buffer a: read f16[512] @binding(0);
      buffer c: output f32[256] @binding(1);
      tile acc: accumulator<f32, 16, 16>;
      for s in 0u..2u {
        tile ta: a<f16, 16, 16>;
        tile tb: b<f16, 16, 16>;
        tile_load(ta, a, (s * 256u), 16u, row_major);
        tile_load(tb, a, (s * 256u), 16u, column_major);
        tile_multiply_add(acc, ta, tb, acc);
      }
      tile_store(acc, c, 0u, 16u, row_major);
    }";

    /// Each subgroup its own tiles: offsets from the invocation's subgroup, `lid.x /
    /// subgroup_size()`, the shape of a GEMM with several subgroups a workgroup.
    const PER_SUBGROUP: &str = "program @workgroup_size(64, 1, 1) {
      buffer a: read f16[1024] @binding(0);
      buffer c: output f32[1024] @binding(1);
      let sg = (lid.x / subgroup_size());
      tile ta: a<f16, 16, 16>;
      tile tb: b<f16, 16, 16>;
      tile acc: accumulator<f32, 16, 16>;
      tile_load(ta, a, (sg * 256u), 16u, row_major);
      tile_load(tb, a, (sg * 256u), 16u, column_major);
      tile_multiply_add(acc, ta, tb, acc);
      tile_store(acc, c, (sg * 256u), 16u, row_major);
    }";

    fn validate(module: &naga::Module) -> Result<(), String> {
        Validator::new(
            ValidationFlags::all(),
            Capabilities::COOPERATIVE_MATRIX
                | Capabilities::SHADER_FLOAT16
                | Capabilities::SUBGROUP,
        )
        .validate(module)
        .map(|_| ())
        .map_err(|e| format!("{:?}", e.into_inner()))
    }

    #[test]
    fn a_tile_module_passes_every_naga_check_wgpu_makes_uniformity_included() {
        let program: Program = PROGRAM.parse().expect("parses");
        let evidence = vyre_foundation::validate(&program).expect("valid");
        let facts = ProgramFacts::of(&evidence);
        let lowered =
            lower(&evidence, &facts, &Form::default(), Workarounds::NONE).expect("lowers");
        // wgpu validates with every flag, uniformity included: the entry point's filter is what
        // lets the guards read the loop counter.
        validate(&lowered.module).expect("valid with the filter");
        let mut unfiltered = lowered.module.clone();
        for entry in &mut unfiltered.entry_points {
            entry.function.diagnostic_filter_leaf = None;
        }
        let error = validate(&unfiltered).expect_err("naga's uniformity analysis without it");
        assert!(error.contains("NonUniformControlFlow"), "{error}");
    }

    #[test]
    fn tiles_at_offsets_from_the_subgroup_lower_and_pass_naga() {
        let program: Program = PER_SUBGROUP.parse().expect("parses");
        let evidence = vyre_foundation::validate(&program).expect("valid");
        let facts = ProgramFacts::of(&evidence);
        let lowered =
            lower(&evidence, &facts, &Form::default(), Workarounds::NONE).expect("lowers");
        validate(&lowered.module).expect("valid with the filter");
    }

    /// Transfers at offsets and strides not proven multiples of 16 bytes: a literal odd offset,
    /// an even stride not a multiple of 8 `f16`, and an offset read from a buffer.
    const UNALIGNED: &str = "program @workgroup_size(64, 1, 1) {
      buffer a: read f16[1024] @binding(0);
      buffer o: read u32[1] @binding(1);
      buffer c: output f32[1024] @binding(2);
      tile ta: a<f16, 16, 16>;
      tile tb: b<f16, 16, 16>;
      tile acc: accumulator<f32, 16, 16>;
      tile_load(ta, a, 1u, 16u, row_major);
      tile_load(tb, a, 0u, 18u, column_major);
      tile_multiply_add(acc, ta, tb, acc);
      tile_store(acc, c, o[0u], 20u, row_major);
    }";

    fn wgsl_of(text: &str) -> String {
        let program: Program = text.parse().expect("parses");
        let evidence = vyre_foundation::validate(&program).expect("valid");
        let facts = ProgramFacts::of(&evidence);
        let lowered =
            lower(&evidence, &facts, &Form::default(), Workarounds::NONE).expect("lowers");
        validate(&lowered.module).expect("valid with the filter, uniformity included");
        crate::lower::to_wgsl(&lowered).expect("writes")
    }

    #[test]
    fn unaligned_transfers_go_through_a_stage_and_pass_naga() {
        let text = wgsl_of(UNALIGNED);
        for stage in ["vyre_tile_stage_f16", "vyre_tile_stage_f32"] {
            assert!(text.contains(stage), "{stage} in:\n{text}");
        }
        // Three transfers, each a loop of turns with two barriers.
        assert_eq!(text.matches("workgroupBarrier()").count(), 6, "{text}");
        // Proven transfers point straight into their buffers.
        for aligned in [PROGRAM, PER_SUBGROUP] {
            let text = wgsl_of(aligned);
            assert!(!text.contains("vyre_tile_stage"), "{text}");
            assert!(!text.contains("workgroupBarrier"), "{text}");
        }
    }
}
