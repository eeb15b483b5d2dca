//! Tile statements (`SEMANTICS.md` section 9a): the tile types, the buffers they move through,
//! the multiply-add's roles and shapes, the workgroup-uniform control flow and the
//! subgroup-uniform operands they need.

use crate::ir::{BufferAccess, DataType, Expr, Features, Node, TILE_SIZES, TileRole, TileType};
use crate::validate::errors::ValidationErrorKind as K;
use crate::validate::evidence::{BufferId, Resolved, VarId};

use super::Checker;

/// Why a tile type is not one the IR has, or `None` when it is.
fn tile_type_problem(tile: TileType) -> Option<&'static str> {
    if !TILE_SIZES.contains(&tile.rows) || !TILE_SIZES.contains(&tile.columns) {
        return Some("rows and columns must each be 8 or 16");
    }
    match (tile.role, tile.element) {
        (TileRole::A | TileRole::B, DataType::F16)
        | (TileRole::Accumulator, DataType::F16 | DataType::F32) => None,
        (TileRole::A | TileRole::B, _) => Some("`a` and `b` tiles hold f16 elements"),
        (TileRole::Accumulator, _) => Some("accumulators hold f16 or f32 elements"),
    }
}

impl Checker<'_> {
    /// Notes a tile statement: the program needs matrix tiles, the workgroup must be
    /// one-dimensional, and control flow here must be workgroup-uniform.
    fn tile_use(&mut self) {
        self.needs(Features::TILES);
        let size = self.program.workgroup_size;
        if (size[1] != 1 || size[2] != 1) && !self.tile_shape_reported {
            self.tile_shape_reported = true;
            self.error(K::TileWorkgroupShape { size });
        }
        if let Some(reason) = self.control {
            self.error(K::NonUniformTile { reason });
        }
    }

    /// The tile called `name`: its id and type, or `None` (reported) when no tile has that name.
    fn tile_named(&mut self, name: &str) -> Option<(VarId, TileType)> {
        let Some(id) = self.lookup(name) else {
            self.error(K::UnknownVariable {
                name: name.to_owned(),
            });
            return None;
        };
        match self.vars[id].tile {
            Some(tile) => Some((VarId::new(id), tile)),
            None => {
                self.error(K::NotATile {
                    name: name.to_owned(),
                });
                None
            }
        }
    }

    /// Checks `tile name: role<element, rows, columns>;` and returns the tile's id.
    pub(super) fn check_tile(&mut self, name: &str, tile: TileType) -> Resolved {
        self.tile_use();
        if let Some(reason) = tile_type_problem(tile) {
            self.error(K::InvalidTileType {
                name: name.to_owned(),
                tile,
                reason,
            });
        }
        self.needs(Features::of_type(tile.element));
        let id = self.declare_with(name, tile.element, (true, true), false, None);
        self.vars[id.index()].tile = Some(tile);
        self.node_tiles = [Some(id), None, None, None];
        Resolved::Var(id)
    }

    /// Checks a tile load (`store` false) or store: the tile, the buffer, and the `u32`,
    /// subgroup-uniform offset and stride.
    pub(super) fn check_tile_transfer(&mut self, node: &Node, store: bool) -> Resolved {
        let (Node::TileLoad {
            tile,
            buffer,
            offset,
            stride,
            ..
        }
        | Node::TileStore {
            tile,
            buffer,
            offset,
            stride,
            ..
        }) = node
        else {
            return Resolved::Nothing;
        };
        self.tile_use();
        self.tile_operand("offset", offset);
        self.tile_operand("stride", stride);
        let named = self.tile_named(tile);
        if let Some((id, _)) = named {
            self.node_tiles = [Some(id), None, None, None];
            if !store {
                self.vars[id.index()].assigned = true;
            }
        }
        let Some(b) = self.program.buffer_index(buffer) else {
            self.error(K::UnknownBuffer {
                name: buffer.to_owned(),
            });
            return Resolved::Nothing;
        };
        let decl = &self.program.buffers[b];
        let (access, element) = (decl.access, decl.element);
        if store {
            self.used(b, |u| u.stored = true);
        } else {
            self.used(b, |u| u.loaded = true);
        }
        if access == BufferAccess::Uniform {
            self.error(K::TileBufferAccess {
                buffer: buffer.to_owned(),
            });
        } else if store && !access.is_writable() {
            self.error(K::StoreToReadOnly {
                buffer: buffer.to_owned(),
                access,
            });
        }
        if let Some((_, t)) = named
            && t.element != element
        {
            self.error(K::TileBufferType {
                tile: tile.clone(),
                buffer: buffer.to_owned(),
                tile_element: t.element,
                buffer_element: element,
            });
        }
        Resolved::Buffer(BufferId::new(b))
    }

    /// Checks a tile load or store's `offset` or `stride`: a subgroup-uniform `u32`.
    fn tile_operand(&mut self, field: &'static str, expr: &Expr) {
        let Some(t) = self.with_field(field, |c| c.check_expr(expr, 0)) else {
            return;
        };
        if t.ty != DataType::U32 {
            self.with_field(field, |c| {
                c.error(K::TileOperandType {
                    operand: field,
                    found: t.ty,
                })
            });
        } else if !t.subgroup {
            self.with_field(field, |c| {
                c.error(K::NonUniformTile {
                    reason: "a tile's offset and stride must be the same for every lane of a subgroup",
                })
            });
        }
    }

    /// Checks `tile_multiply_add(target, a, b, c);`.
    pub(super) fn check_tile_multiply_add(
        &mut self,
        target: &str,
        a: &str,
        b: &str,
        c: &str,
    ) -> Resolved {
        self.tile_use();
        let tiles = [
            self.tile_named(target),
            self.tile_named(a),
            self.tile_named(b),
            self.tile_named(c),
        ];
        self.node_tiles = tiles.map(|t| t.map(|(id, _)| id));
        let [Some((d_id, d)), Some((_, ta)), Some((_, tb)), Some((_, tc))] = tiles else {
            return Resolved::Nothing;
        };
        self.vars[d_id.index()].assigned = true;
        let problem = if ta.role != TileRole::A {
            Some(format!(
                "`{a}` is a `{}` tile, not an `a` tile",
                ta.role.word()
            ))
        } else if tb.role != TileRole::B {
            Some(format!(
                "`{b}` is a `{}` tile, not a `b` tile",
                tb.role.word()
            ))
        } else if tc.role != TileRole::Accumulator || d.role != TileRole::Accumulator {
            Some(format!(
                "`{target}` and `{c}` must both be accumulator tiles"
            ))
        } else if ta.columns != tb.rows {
            Some(format!(
                "`{a}` has {} columns but `{b}` has {} rows",
                ta.columns, tb.rows
            ))
        } else if ta.rows != tc.rows || tb.columns != tc.columns {
            Some(format!(
                "`{a}` x `{b}` is {}x{} but `{c}` is {}x{}",
                ta.rows, tb.columns, tc.rows, tc.columns
            ))
        } else if d != tc {
            Some(format!(
                "`{target}` ({}<{}, {}, {}>) must have the type of `{c}` ({}<{}, {}, {}>)",
                d.role.word(),
                d.element,
                d.rows,
                d.columns,
                tc.role.word(),
                tc.element,
                tc.rows,
                tc.columns
            ))
        } else if ta.element != tb.element {
            Some(format!("`{a}` and `{b}` must have one element type"))
        } else {
            None
        };
        if let Some(reason) = problem {
            self.error(K::TileMultiplyAddMismatch { reason });
        }
        Resolved::Var(d_id)
    }
}
