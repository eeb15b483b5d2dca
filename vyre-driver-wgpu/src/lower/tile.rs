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
//! - **Multiply-add.** `coopMultiplyAdd(a, b, c)`: each product exact, the sum in the device's
//!   order, the law's unspecified order (the reference reports results that depend on it as
//!   indeterminate).

use naga::{
    BinaryOperator as B, Block, CooperativeData, CooperativeRole, CooperativeSize, Expression,
    Handle, Scalar, Span, Statement, Type, TypeInner,
};
use vyre_driver::BackendError;
use vyre_foundation::ir::{DataType, Expr, Node, TileLayout, TileRole, TileType};
use vyre_foundation::validate::VarId;

use super::Lowerer;
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
        if !matches!(global.layout, Layout::Storage | Layout::Workgroup) {
            return Err(lowering_bug(
                "a tile moving through a uniform or vectorised buffer",
            ));
        }
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
        let row_major = *layout == TileLayout::RowMajor;
        let ty = self.tile_type(tile)?;
        let (columns, rows, role) = (size(tile.columns)?, size(tile.rows)?, coop_role(tile.role));
        let item_offset = self.prologue.offsets[b];
        let accept = self.fb.nested(block, |fb, inner| {
            let slot = match item_offset {
                Some(base) => fb.binary(inner, B::Add, base, offset),
                None => offset,
            };
            let array = fb.expr(inner, Expression::GlobalVariable(global.global));
            let pointer = fb.access(inner, array, slot);
            let data = CooperativeData {
                pointer,
                stride,
                row_major,
            };
            if store {
                let target = fb.load(inner, tile_pointer);
                fb.stmt(inner, Statement::CooperativeStore { target, data });
            } else {
                let value = fb.expr(
                    inner,
                    Expression::CooperativeLoad {
                        columns,
                        rows,
                        role,
                        data,
                    },
                );
                fb.stmt(
                    inner,
                    Statement::Store {
                        pointer: tile_pointer,
                        value,
                    },
                );
            }
        });
        let reject = if store {
            Block::new()
        } else {
            self.fb.nested(block, |fb, inner| {
                let zero = fb.expr(inner, Expression::ZeroValue(ty));
                fb.stmt(
                    inner,
                    Statement::Store {
                        pointer: tile_pointer,
                        value: zero,
                    },
                );
            })
        };
        self.fb.stmt(
            block,
            Statement::If {
                condition: ok,
                accept,
                reject,
            },
        );
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
}
