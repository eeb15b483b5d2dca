//! Statements: the effectful part of the IR.

use crate::ir::{AtomicOp, DataType, Expr, TileLayout, TileType};

/// A statement. Bodies are plain vectors of nodes; `let` bindings are scoped to the body they appear in.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Node {
    /// Declares a mutable variable, visible in the rest of the enclosing body. Its type is the value's.
    Let {
        /// The variable's name. It may not shadow a variable that is still in scope.
        name: String,
        /// The initial value.
        value: Expr,
    },
    /// Assigns a new value (of the same type) to a `let` variable.
    Assign {
        /// The variable's name.
        name: String,
        /// The new value.
        value: Expr,
    },
    /// `buffer[index] = value`; out of bounds the store is dropped.
    Store {
        /// The buffer's name.
        buffer: String,
        /// A `u32` or `i32` element index.
        index: Expr,
        /// The value, of the buffer's element type.
        value: Expr,
    },
    /// Declares a private array: `len` elements of type `element`, owned by the invocation,
    /// visible in the rest of the enclosing body and set to zero each time the declaration runs.
    PrivateArray {
        /// The array's name. It may not shadow a variable or array that is still in scope.
        name: String,
        /// The element type.
        element: DataType,
        /// The element count, 1 to [`crate::ir::MAX_PRIVATE_ARRAY_LEN`].
        len: u32,
    },
    /// `array.[index] = value` on a private array; out of bounds the store is dropped.
    ArrayStore {
        /// The array's name.
        array: String,
        /// A `u32` or `i32` element index.
        index: Expr,
        /// The value, of the array's element type.
        value: Expr,
    },
    /// Declares a matrix tile (`SEMANTICS.md` section 9a): visible in the rest of the enclosing
    /// body, every element zero each time the declaration runs. Needs [`crate::ir::Features::TILES`].
    Tile {
        /// The tile's name. It may not shadow a variable, array or tile that is still in scope.
        name: String,
        /// Its role, shape and element type.
        tile: TileType,
    },
    /// Fills a tile from a buffer: element `(r, c)` is `buffer[offset + layout.position(r, c,
    /// stride)]`; when any of those positions is out of bounds, every element is zero.
    TileLoad {
        /// The tile's name.
        tile: String,
        /// The buffer (storage or workgroup), of the tile's element type.
        buffer: String,
        /// A workgroup-uniform `u32`: the position of element `(0, 0)`.
        offset: Expr,
        /// A workgroup-uniform `u32`: the distance between lines (rows or columns).
        stride: Expr,
        /// How the elements lie.
        layout: TileLayout,
    },
    /// Writes a tile to a buffer at the positions [`Node::TileLoad`] reads; when any of them is out
    /// of bounds, or lines overlap (`stride` below a line's length), nothing is written.
    TileStore {
        /// The tile's name.
        tile: String,
        /// The buffer (writable storage or workgroup), of the tile's element type.
        buffer: String,
        /// A workgroup-uniform `u32`: the position of element `(0, 0)`.
        offset: Expr,
        /// A workgroup-uniform `u32`: the distance between lines.
        stride: Expr,
        /// How the elements lie.
        layout: TileLayout,
    },
    /// `target = a x b + c` on tiles: `a` is `m x k` ([`crate::ir::TileRole::A`]), `b` is `k x n`
    /// ([`crate::ir::TileRole::B`]), `c` and `target` are `m x n` accumulators of one element type.
    TileMultiplyAdd {
        /// The accumulator tile written (it may be `c`).
        target: String,
        /// The left operand.
        a: String,
        /// The right operand.
        b: String,
        /// The accumulator read.
        c: String,
    },
    /// A conditional.
    If {
        /// A bool.
        cond: Expr,
        /// Runs when `cond` is true.
        then: Vec<Node>,
        /// Runs when `cond` is false.
        otherwise: Vec<Node>,
    },
    /// A counted loop: `var` takes `from, from + 1, ..., to - 1`. `to` is evaluated once, before the first
    /// iteration, so the trip count is fixed when the loop starts. `var` is read-only in the body.
    Loop {
        /// The loop variable, `u32` or `i32` (the type of `from` and `to`).
        var: String,
        /// The first value.
        from: Expr,
        /// One past the last value.
        to: Expr,
        /// The body.
        body: Vec<Node>,
    },
    /// A nested scope.
    Block(Vec<Node>),
    /// A workgroup barrier: every invocation of the workgroup arrives before any leaves, and workgroup
    /// and storage writes made before it are visible after it. It must be in workgroup-uniform control flow.
    Barrier,
    /// Ends this invocation.
    Return,
    /// A loop that runs while `cond` holds: `cond` is evaluated before every iteration, and the
    /// loop ends the first time it is false (possibly before the first iteration). See `SEMANTICS.md`
    /// for the iteration bound policy.
    While {
        /// A bool, evaluated again before each iteration.
        cond: Expr,
        /// The body.
        body: Vec<Node>,
    },
    /// Leaves the innermost enclosing loop (`Loop` or `While`). Valid only inside a loop body.
    Break,
    /// Ends the current iteration of the innermost enclosing loop: a counted loop's variable then
    /// steps and a `While` evaluates its condition again. Valid only inside a loop body.
    Continue,
    /// An atomic read-modify-write of `buffer[index]` whose old value is discarded: the same effect
    /// as [`Expr::Atomic`] with the same fields, bound to a variable nobody reads.
    Atomic {
        /// The operation.
        op: AtomicOp,
        /// The buffer's name.
        buffer: String,
        /// A `u32` or `i32` element index.
        index: Expr,
        /// For `CompareExchange`: the value compared against. `None` otherwise.
        expected: Option<Expr>,
        /// The operand (the new value for exchanges).
        value: Expr,
    },
}

impl Node {
    /// `let name = value;`.
    #[must_use]
    pub fn let_bind(name: impl Into<String>, value: Expr) -> Self {
        Node::Let {
            name: name.into(),
            value,
        }
    }

    /// `name = value;`.
    #[must_use]
    pub fn assign(name: impl Into<String>, value: Expr) -> Self {
        Node::Assign {
            name: name.into(),
            value,
        }
    }

    /// `buffer[index] = value;`.
    #[must_use]
    pub fn store(buffer: impl Into<String>, index: Expr, value: Expr) -> Self {
        Node::Store {
            buffer: buffer.into(),
            index,
            value,
        }
    }

    /// `var name: element[len];`: a private array of `len` zeroed elements.
    #[must_use]
    pub fn private_array(name: impl Into<String>, element: DataType, len: u32) -> Self {
        Node::PrivateArray {
            name: name.into(),
            element,
            len,
        }
    }

    /// `array.[index] = value;` on a private array.
    #[must_use]
    pub fn array_store(array: impl Into<String>, index: Expr, value: Expr) -> Self {
        Node::ArrayStore {
            array: array.into(),
            index,
            value,
        }
    }

    /// `tile name: role<element, rows, columns>;`: a tile of zeros.
    #[must_use]
    pub fn tile(name: impl Into<String>, tile: TileType) -> Self {
        Node::Tile {
            name: name.into(),
            tile,
        }
    }

    /// `tile_load(tile, buffer, offset, stride, layout);`.
    #[must_use]
    pub fn tile_load(
        tile: impl Into<String>,
        buffer: impl Into<String>,
        offset: Expr,
        stride: Expr,
        layout: TileLayout,
    ) -> Self {
        Node::TileLoad {
            tile: tile.into(),
            buffer: buffer.into(),
            offset,
            stride,
            layout,
        }
    }

    /// `tile_store(tile, buffer, offset, stride, layout);`.
    #[must_use]
    pub fn tile_store(
        tile: impl Into<String>,
        buffer: impl Into<String>,
        offset: Expr,
        stride: Expr,
        layout: TileLayout,
    ) -> Self {
        Node::TileStore {
            tile: tile.into(),
            buffer: buffer.into(),
            offset,
            stride,
            layout,
        }
    }

    /// `tile_multiply_add(target, a, b, c);`: `target = a x b + c`.
    #[must_use]
    pub fn tile_multiply_add(
        target: impl Into<String>,
        a: impl Into<String>,
        b: impl Into<String>,
        c: impl Into<String>,
    ) -> Self {
        Node::TileMultiplyAdd {
            target: target.into(),
            a: a.into(),
            b: b.into(),
            c: c.into(),
        }
    }

    /// `if cond { then }`.
    #[must_use]
    pub fn if_then(cond: Expr, then: Vec<Node>) -> Self {
        Node::If {
            cond,
            then,
            otherwise: Vec::new(),
        }
    }

    /// `if cond { then } else { otherwise }`.
    #[must_use]
    pub fn if_then_else(cond: Expr, then: Vec<Node>, otherwise: Vec<Node>) -> Self {
        Node::If {
            cond,
            then,
            otherwise,
        }
    }

    /// `for var in from..to { body }`.
    #[must_use]
    pub fn loop_for(var: impl Into<String>, from: Expr, to: Expr, body: Vec<Node>) -> Self {
        Node::Loop {
            var: var.into(),
            from,
            to,
            body,
        }
    }

    /// `{ body }`.
    #[must_use]
    pub fn block(body: Vec<Node>) -> Self {
        Node::Block(body)
    }

    /// A workgroup barrier.
    #[must_use]
    pub fn barrier() -> Self {
        Node::Barrier
    }

    /// Ends the invocation.
    #[must_use]
    pub fn return_() -> Self {
        Node::Return
    }

    /// `while cond { body }`: `cond` is evaluated before every iteration.
    #[must_use]
    pub fn loop_while(cond: Expr, body: Vec<Node>) -> Self {
        Node::While { cond, body }
    }

    /// `break;`: leaves the innermost enclosing loop.
    #[must_use]
    pub fn break_() -> Self {
        Node::Break
    }

    /// `continue;`: goes on with the next iteration of the innermost enclosing loop.
    #[must_use]
    pub fn continue_() -> Self {
        Node::Continue
    }

    /// An atomic read-modify-write (any op but `CompareExchange`) whose old value is discarded.
    #[must_use]
    pub fn atomic(op: AtomicOp, buffer: impl Into<String>, index: Expr, value: Expr) -> Self {
        Node::Atomic {
            op,
            buffer: buffer.into(),
            index,
            expected: None,
            value,
        }
    }

    /// A strong compare-exchange whose old value is discarded: stores `value` if the element
    /// equals `expected`.
    #[must_use]
    pub fn atomic_compare_exchange(
        buffer: impl Into<String>,
        index: Expr,
        expected: Expr,
        value: Expr,
    ) -> Self {
        Node::Atomic {
            op: AtomicOp::CompareExchange,
            buffer: buffer.into(),
            index,
            expected: Some(expected),
            value,
        }
    }

    /// The nested bodies of this node, in order (`then` before `otherwise`).
    pub fn bodies(&self) -> impl Iterator<Item = &Vec<Node>> {
        let (a, b): (Option<&Vec<Node>>, Option<&Vec<Node>>) = match self {
            Node::If {
                then, otherwise, ..
            } => (Some(then), Some(otherwise)),
            Node::Loop { body, .. } | Node::While { body, .. } | Node::Block(body) => {
                (Some(body), None)
            }
            Node::Let { .. }
            | Node::Assign { .. }
            | Node::Store { .. }
            | Node::PrivateArray { .. }
            | Node::ArrayStore { .. }
            | Node::Tile { .. }
            | Node::TileLoad { .. }
            | Node::TileStore { .. }
            | Node::TileMultiplyAdd { .. }
            | Node::Barrier
            | Node::Return
            | Node::Break
            | Node::Continue
            | Node::Atomic { .. } => (None, None),
        };
        a.into_iter().chain(b)
    }

    /// The expressions this node evaluates directly, in evaluation order (a `While`'s condition
    /// is evaluated again before every iteration).
    pub fn exprs(&self) -> impl Iterator<Item = &Expr> {
        let mut out: [Option<&Expr>; 3] = [None, None, None];
        match self {
            Node::Let { value, .. } | Node::Assign { value, .. } => out[0] = Some(value),
            Node::Store { index, value, .. } | Node::ArrayStore { index, value, .. } => {
                out = [Some(index), Some(value), None]
            }
            Node::TileLoad { offset, stride, .. } | Node::TileStore { offset, stride, .. } => {
                out = [Some(offset), Some(stride), None]
            }
            Node::If { cond, .. } | Node::While { cond, .. } => out[0] = Some(cond),
            Node::Loop { from, to, .. } => out = [Some(from), Some(to), None],
            Node::Atomic {
                index,
                expected,
                value,
                ..
            } => out = [Some(index), expected.as_ref(), Some(value)],
            Node::Block(_)
            | Node::PrivateArray { .. }
            | Node::Tile { .. }
            | Node::TileMultiplyAdd { .. }
            | Node::Barrier
            | Node::Return
            | Node::Break
            | Node::Continue => {}
        }
        out.into_iter().flatten()
    }
}

impl Drop for Node {
    /// Dropping is iterative, like [`Expr`]'s, so that statements nested pathologically deep (which the
    /// validator rejects) cannot overflow the stack when they are freed.
    fn drop(&mut self) {
        let mut stack: Vec<Node> = Vec::new();
        take_bodies(self, &mut stack);
        while let Some(mut node) = stack.pop() {
            take_bodies(&mut node, &mut stack);
        }
    }
}

/// Moves the statements of `node`'s bodies onto `stack`, leaving the bodies empty.
fn take_bodies(node: &mut Node, stack: &mut Vec<Node>) {
    match node {
        Node::If {
            then, otherwise, ..
        } => {
            stack.append(then);
            stack.append(otherwise);
        }
        Node::Loop { body, .. } | Node::While { body, .. } | Node::Block(body) => {
            stack.append(body)
        }
        Node::Let { .. }
        | Node::Assign { .. }
        | Node::Store { .. }
        | Node::PrivateArray { .. }
        | Node::ArrayStore { .. }
        | Node::Tile { .. }
        | Node::TileLoad { .. }
        | Node::TileStore { .. }
        | Node::TileMultiplyAdd { .. }
        | Node::Barrier
        | Node::Return
        | Node::Break
        | Node::Continue
        | Node::Atomic { .. } => {}
    }
}
