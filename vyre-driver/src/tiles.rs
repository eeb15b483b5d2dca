//! Whether a backend runs a program's matrix tiles (`SEMANTICS.md` section 9a): every tile type
//! and multiply-add shape among its [`Capabilities::matrix_tiles`], and a workgroup of whole
//! subgroups.

use vyre_foundation::ir::{Node, TileRole, TileShape, TileType};
use vyre_foundation::validate::Validated;

use crate::{BackendError, Capabilities};

/// Whether some shape of `shapes` has a tile of type `tile`.
fn has_tile(shapes: &[TileShape], tile: TileType) -> bool {
    shapes.iter().any(|s| match tile.role {
        TileRole::A => (s.m, s.k, s.input) == (tile.rows, tile.columns, tile.element),
        TileRole::B => (s.k, s.n, s.input) == (tile.rows, tile.columns, tile.element),
        TileRole::Accumulator => {
            (s.m, s.n, s.accumulator) == (tile.rows, tile.columns, tile.element)
        }
    })
}

/// Refuses a program with matrix tiles that `caps` cannot run, before anything runs: a tile type
/// or multiply-add shape the backend does not list, or a workgroup size that is not a multiple of
/// the largest subgroup size the device may use. A program without tiles always passes.
///
/// # Errors
///
/// [`BackendError::Unsupported`] naming the shape or the workgroup size, with a `Fix:`.
///
/// ```
/// use vyre_driver::{Capabilities, check_tiles};
/// use vyre_foundation::ir::{
///     BufferDecl, DataType, Expr, Node, Program, TileLayout, TileRole, TileShape, TileType,
/// };
///
/// let acc = TileType::new(TileRole::Accumulator, 16, 16, DataType::F32);
/// let program = Program::new(
///     vec![BufferDecl::output("c", 0, DataType::F32).with_count(256)],
///     [32, 1, 1],
///     vec![
///         Node::tile("acc", acc),
///         Node::tile_store("acc", "c", Expr::u32(0), Expr::u32(16), TileLayout::RowMajor),
///     ],
/// );
/// let validated = vyre_foundation::validate(&program).expect("valid");
/// let mut caps = Capabilities::unlimited("my device");
/// assert!(check_tiles(&caps, &validated).is_err());
/// caps.matrix_tiles = TileShape::all();
/// caps.subgroup_sizes = [32, 32];
/// assert!(check_tiles(&caps, &validated).is_ok());
/// caps.subgroup_sizes = [64, 64];
/// assert!(check_tiles(&caps, &validated).unwrap_err().to_string().contains("Fix:"));
/// ```
pub fn check_tiles(caps: &Capabilities, program: &Validated<'_>) -> Result<(), BackendError> {
    let body = &program.program().body;
    let mut problem: Option<String> = None;
    vyre_foundation::for_each_node(body, |node| {
        if problem.is_some() {
            return;
        }
        let tile_of = |id: Option<vyre_foundation::validate::VarId>| {
            id.and_then(|id| program.var(id).ok()).and_then(|v| v.tile)
        };
        match node {
            Node::Tile { name, tile } => {
                if !has_tile(&caps.matrix_tiles, *tile) {
                    problem = Some(format!(
                        "tile `{name}` ({}<{}, {}, {}>)",
                        tile.role.word(),
                        tile.element,
                        tile.rows,
                        tile.columns
                    ));
                }
            }
            Node::TileMultiplyAdd { .. } => {
                let Ok([_, a, b, c]) = program.node_tiles(node) else {
                    return;
                };
                let (Some(a), Some(b), Some(c)) = (tile_of(a), tile_of(b), tile_of(c)) else {
                    return;
                };
                let shape = TileShape {
                    m: a.rows,
                    n: b.columns,
                    k: a.columns,
                    input: a.element,
                    accumulator: c.element,
                };
                if !caps.matrix_tiles.contains(&shape) {
                    problem = Some(format!("the multiply-add shape {shape}"));
                }
            }
            Node::Let { .. }
            | Node::Assign { .. }
            | Node::Store { .. }
            | Node::PrivateArray { .. }
            | Node::ArrayStore { .. }
            | Node::TileLoad { .. }
            | Node::TileStore { .. }
            | Node::If { .. }
            | Node::Loop { .. }
            | Node::Block(_)
            | Node::Barrier
            | Node::Return
            | Node::While { .. }
            | Node::Break
            | Node::Continue
            | Node::Atomic { .. } => {}
        }
    });
    if let Some(what) = problem {
        let listed = if caps.matrix_tiles.is_empty() {
            "none".to_owned()
        } else {
            caps.matrix_tiles
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        };
        return Err(BackendError::unsupported(format!(
            "the program uses {what}, which the device `{}` does not run (its matrix tiles: {listed}). Fix: use a shape from `capabilities().matrix_tiles`, or run the program on the reference backend, which runs every shape.",
            caps.device_name
        )));
    }
    let lanes = caps.subgroup_sizes[1];
    let x = program.program().workgroup_size[0];
    if program
        .features()
        .contains(vyre_foundation::ir::Features::TILES)
        && lanes > 1
        && x % lanes != 0
    {
        return Err(BackendError::unsupported(format!(
            "the program's workgroup size x = {x} is not a multiple of {lanes}, the largest subgroup size of the device `{}`, and its tiles are spread over whole subgroups. Fix: make the workgroup size a multiple of {lanes} (a multiple of 128 suits every device).",
            caps.device_name
        )));
    }
    Ok(())
}
