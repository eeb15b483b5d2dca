//! Decoding a [`Recipe`] into a program, its inputs and its dispatch configuration.
//!
//! The decoder keeps the state that makes every choice valid: the variables in scope (a stack, cut
//! back when a scope closes), the open `if`/loop/block frames, whether an invocation may already have
//! returned (then no barrier may follow), and the workgroup phase (own-slot writes before a barrier,
//! reads of any slot after it).

use vyre_driver::DispatchConfig;
use vyre_foundation::ir::{BinOp, Builtin, DataType, Expr, Node, Program};

use crate::r#gen::layout::{BufInfo, Shape, decode_buffers};
use crate::r#gen::{Feature, Features, GenConfig, Recipe, inputs, tiles, udf};

/// A decoded case: a program, one byte vector per input buffer, and the dispatch configuration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GeneratedCase {
    /// The program; it always passes `validate`.
    pub program: Program,
    /// One byte vector per `read`, `read_write` and `uniform` buffer, in declaration order.
    pub inputs: Vec<Vec<u8>>,
    /// The dispatch configuration (an explicit grid).
    pub config: DispatchConfig,
}

/// The workgroup memory phase of comparable programs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Phase {
    /// Invocations write their own workgroup slots and run contended workgroup atomics.
    Write,
    /// Invocations read any workgroup slot; nothing writes workgroup memory.
    Read,
}

/// A variable in scope.
#[derive(Clone, Debug)]
pub(crate) struct Var {
    pub(crate) name: String,
    pub(crate) ty: DataType,
    pub(crate) mutable: bool,
    /// An `f16` variable that holds a correctly rounded conversion of an exact value and is never
    /// assigned (`Feature::F16RoundTrips`): exact, so comparable programs may widen it to `f32`.
    pub(crate) rounded: bool,
    /// A `loop_for` counter, which the edge shapes favour (`edges.rs`).
    pub(crate) counter: bool,
}

#[derive(Debug)]
enum FrameKind {
    Root,
    If { cond: Expr, then: Option<Vec<Node>> },
    Loop { var: String, from: Expr, to: Expr },
    While { cond: Expr },
    Block,
}

#[derive(Debug)]
struct Frame {
    kind: FrameKind,
    body: Vec<Node>,
    vars_mark: usize,
}

/// The decoder state shared by expression and statement decoding.
#[derive(Debug)]
pub(crate) struct Ctx {
    pub(crate) config: GenConfig,
    pub(crate) features: Features,
    pub(crate) buffers: Vec<BufInfo>,
    pub(crate) vars: Vec<Var>,
    pub(crate) phase: Phase,
    pub(crate) diverged: bool,
    /// Above zero while generating the argument of an operation that magnifies rounding differences
    /// (`floor`, `ceil`, `round`, `trunc`, `fract`, and `sin`/`cos`, whose guard uses `fract`): there,
    /// comparable programs only use floats every backend computes alike (no inexact math, no float
    /// variables or writable float buffers, which may hold inexact values).
    pub(crate) exact: std::cell::Cell<u32>,
    /// Above zero while generating an expression that must hold no subgroup operation (see
    /// `Ctx::subgroup_free_expr`).
    pub(crate) subgroup_free: std::cell::Cell<u32>,
    /// Tile blocks emitted so far (`gen/tiles.rs`), each with its own region of `tdst`.
    pub(crate) tile_blocks: u32,
    next_name: u32,
    frames: Vec<Frame>,
}

/// The name of the variable holding the invocation's linear global index.
pub(crate) const TID: &str = "tid";
/// The name of the variable holding the invocation's linear index inside its workgroup.
pub(crate) const LTID: &str = "ltid";

impl Ctx {
    fn new(config: &GenConfig, features: Features, buffers: Vec<BufInfo>) -> Self {
        Ctx {
            config: config.clone(),
            features,
            buffers,
            vars: Vec::new(),
            phase: Phase::Write,
            diverged: false,
            exact: std::cell::Cell::new(0),
            subgroup_free: std::cell::Cell::new(0),
            tile_blocks: 0,
            next_name: 0,
            frames: vec![Frame {
                kind: FrameKind::Root,
                body: Vec::new(),
                vars_mark: 0,
            }],
        }
    }

    /// A fresh variable name with the given prefix; names never repeat, so nothing shadows.
    pub(crate) fn fresh(&mut self, prefix: &str) -> String {
        self.next_name += 1;
        format!("{prefix}{}", self.next_name)
    }

    /// Appends a node to the innermost open body.
    pub(crate) fn emit(&mut self, node: Node) {
        if let Some(frame) = self.frames.last_mut() {
            frame.body.push(node);
        }
    }

    /// How many frames are open inside the root.
    pub(crate) fn nesting(&self) -> usize {
        self.frames.len() - 1
    }

    /// How many open frames are loops.
    pub(crate) fn loop_nesting(&self) -> usize {
        let loops = self.frames.iter();
        loops
            .filter(|f| matches!(f.kind, FrameKind::Loop { .. } | FrameKind::While { .. }))
            .count()
    }

    /// Opens `while (trip < bound) && cond`, where `trip` is a fresh counter declared just before
    /// the loop and stepped first thing in its body, so the loop runs at most `bound` iterations
    /// whatever `cond` does (and whatever the reducer later removes: it keeps trip counters).
    pub(crate) fn open_while(&mut self, bound: u32, cond: Expr) {
        let trip = self.fresh(crate::r#gen::TRIP_PREFIX);
        self.emit(Node::let_bind(trip.as_str(), Expr::u32(0)));
        let guarded = Expr::and(Expr::lt(Expr::var(trip.as_str()), Expr::u32(bound)), cond);
        self.open(FrameKind::While { cond: guarded });
        self.emit(Node::assign(
            trip.as_str(),
            Expr::add(Expr::var(trip.as_str()), Expr::u32(1)),
        ));
    }

    pub(crate) fn declare(&mut self, name: String, ty: DataType, mutable: bool) {
        self.vars.push(Var {
            name,
            ty,
            mutable,
            rounded: false,
            counter: false,
        });
    }

    /// Declares an `f16` variable holding a rounded exact value (see [`Var::rounded`]).
    pub(crate) fn declare_rounded(&mut self, name: String) {
        self.vars.push(Var {
            name,
            ty: DataType::F16,
            mutable: false,
            rounded: true,
            counter: false,
        });
    }

    pub(crate) fn open_if(&mut self, cond: Expr) {
        self.open(FrameKind::If { cond, then: None });
    }

    pub(crate) fn open_loop(&mut self, var: String, ty: DataType, from: Expr, to: Expr) {
        let name = var.clone();
        self.open(FrameKind::Loop { var, from, to });
        self.vars.push(Var {
            name,
            ty,
            mutable: false,
            rounded: false,
            counter: true,
        });
    }

    pub(crate) fn open_block(&mut self) {
        self.open(FrameKind::Block);
    }

    fn open(&mut self, kind: FrameKind) {
        self.frames.push(Frame {
            kind,
            body: Vec::new(),
            vars_mark: self.vars.len(),
        });
    }

    /// True when the innermost frame is an `if` still in its `then` branch.
    pub(crate) fn in_then(&self) -> bool {
        self.frames
            .last()
            .is_some_and(|f| matches!(f.kind, FrameKind::If { then: None, .. }))
    }

    /// Switches the innermost frame to its `else` branch when it is an `if` still in its `then`.
    pub(crate) fn switch_to_else(&mut self) {
        let Some(frame) = self.frames.last_mut() else {
            return;
        };
        if let FrameKind::If { then, .. } = &mut frame.kind
            && then.is_none()
        {
            *then = Some(std::mem::take(&mut frame.body));
            self.vars.truncate(frame.vars_mark);
        }
    }

    /// Closes the innermost frame (never the root) into a node of its parent.
    pub(crate) fn close(&mut self) {
        if self.frames.len() < 2 {
            return;
        }
        let Some(frame) = self.frames.pop() else {
            return;
        };
        self.vars.truncate(frame.vars_mark);
        let node = match frame.kind {
            FrameKind::Root | FrameKind::Block => Node::Block(frame.body),
            FrameKind::If { cond, then: None } => Node::if_then(cond, frame.body),
            FrameKind::If {
                cond,
                then: Some(then),
            } => Node::if_then_else(cond, then, frame.body),
            FrameKind::Loop { var, from, to } => Node::loop_for(var, from, to, frame.body),
            FrameKind::While { cond } => Node::loop_while(cond, frame.body),
        };
        self.emit(node);
    }

    fn finish(mut self) -> Vec<Node> {
        while self.frames.len() > 1 {
            self.close();
        }
        self.epilogue();
        self.frames.pop().map(|f| f.body).unwrap_or_default()
    }

    /// `let tid = linear global id; let ltid = linear local id;`, which own-slot indices build on.
    fn prelude(&mut self, shape: &Shape) {
        if shape.elementwise {
            // One dimension: the linear ids are the x builtins themselves.
            self.emit(Node::let_bind(TID, Expr::gid_x()));
            self.emit(Node::let_bind(LTID, Expr::local_x()));
            self.declare(TID.into(), DataType::U32, false);
            self.declare(LTID.into(), DataType::U32, false);
            return;
        }
        let [wx, wy, _] = shape.workgroup;
        let b = |builtin: Builtin| Expr::Builtin(builtin);
        use vyre_foundation::ir::Axis::{X, Y, Z};
        let row = Expr::mul(b(Builtin::NumWorkgroups(X)), Expr::u32(wx));
        let plane = Expr::mul(
            row.clone(),
            Expr::mul(b(Builtin::NumWorkgroups(Y)), Expr::u32(wy)),
        );
        let tid = Expr::add(
            b(Builtin::GlobalId(X)),
            Expr::add(
                Expr::mul(b(Builtin::GlobalId(Y)), row),
                Expr::mul(b(Builtin::GlobalId(Z)), plane),
            ),
        );
        let ltid = Expr::add(
            b(Builtin::LocalId(X)),
            Expr::add(
                Expr::mul(b(Builtin::LocalId(Y)), Expr::u32(wx)),
                Expr::mul(b(Builtin::LocalId(Z)), Expr::u32(wx * wy)),
            ),
        );
        self.emit(Node::let_bind(TID, tid));
        self.emit(Node::let_bind(LTID, ltid));
        self.declare(TID.into(), DataType::U32, false);
        self.declare(LTID.into(), DataType::U32, false);
    }
}

/// Decodes `recipe` under `config`: the same recipe and configuration always give the same case.
#[must_use]
pub fn decode(recipe: &Recipe, config: &GenConfig) -> GeneratedCase {
    let mut features = config.case_features(recipe.features);
    // Elementwise shapes narrow what a program may do, so even with the feature on only every other
    // case takes one (a shape word the elementwise shape does not otherwise read decides).
    let coin = recipe.shape.get(5).copied().unwrap_or(0) % 2 == 0;
    if config.udf_shape {
        // Every case a function's shape (`udf.rs`), whatever the coin.
        features = udf::case_features(features);
    } else {
        if !coin {
            features = features.without(Feature::Elementwise);
        }
        if features.has(Feature::Elementwise) {
            features = features
                .without(Feature::Workgroup)
                .without(Feature::Atomics)
                .without(Feature::Returns);
        }
    }
    let mut shape = Shape::decode(&recipe.shape, config, features);
    // Tiles need f16, a one-dimensional workgroup of whole subgroups (`gen/tiles.rs`) and shapes
    // that are not a function's.
    if features.has(Feature::Tiles)
        && (!features.has(Feature::F16) || shape.elementwise || config.udf_shape)
    {
        features = features.without(Feature::Tiles);
    }
    if features.has(Feature::Tiles) {
        shape.workgroup = [tiles::TILE_WORKGROUP, 1, 1];
    }
    if shape.workgroup[1] != 1 || shape.workgroup[2] != 1 {
        // Subgroup operations need a one-dimensional workgroup.
        features = features.without(Feature::Subgroups);
    }
    let mut buffers = if config.udf_shape {
        udf::decode_buffers(&recipe.buffers, &shape, features, config)
    } else {
        decode_buffers(&recipe.buffers, &shape, features, config)
    };
    if features.has(Feature::Tiles) {
        // Two more bound buffers, within the eight a program may bind.
        if buffers.iter().filter(|b| b.decl.access.is_bound()).count() <= 6 {
            buffers.extend(tiles::tile_buffers(
                recipe.shape.get(7).copied().unwrap_or(0) >> 8,
            ));
            crate::r#gen::layout::number_bindings(&mut buffers);
        } else {
            features = features.without(Feature::Tiles);
        }
    }
    let mut ctx = Ctx::new(config, features, buffers);
    ctx.prelude(&shape);
    for stmt in recipe.stmts.iter().take(config.max_stmts) {
        ctx.stmt(stmt);
    }
    let inputs = inputs::decode_inputs(&ctx.buffers, &recipe.inputs, config.comparable, features);
    let decls = ctx.buffers.iter().map(|b| b.decl.clone()).collect();
    let body = ctx.finish();
    GeneratedCase {
        program: Program::new(decls, shape.workgroup, body),
        inputs,
        config: DispatchConfig::new().with_grid(shape.grid),
    }
}

/// `lhs op rhs`, a shorthand the decoders use.
pub(crate) fn bin(op: BinOp, lhs: Expr, rhs: Expr) -> Expr {
    Expr::binary(op, lhs, rhs)
}
