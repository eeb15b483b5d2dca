//! Validation errors: what is wrong, where, and how to fix it.

use std::fmt;
use std::ops::Range;

use crate::ir::{AtomicOp, BinOp, BufferAccess, DataType, SubgroupOp, UnOp};

/// What a validation rule found wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ValidationErrorKind {
    /// The workgroup size has a zero dimension.
    WorkgroupSizeZero {
        /// The declared size.
        size: [u32; 3],
    },
    /// The workgroup has more than [`crate::ir::MAX_WORKGROUP_INVOCATIONS`] invocations.
    WorkgroupTooLarge {
        /// `x * y * z`.
        invocations: u64,
    },
    /// The workgroup size's `x * y * z` does not even fit a `u64` (each dimension is a `u32`).
    WorkgroupInvocationsOverflow {
        /// The declared size.
        size: [u32; 3],
    },
    /// A buffer or variable name is not an identifier.
    InvalidName {
        /// The name.
        name: String,
    },
    /// Two buffers share a name.
    DuplicateBufferName {
        /// The name.
        name: String,
    },
    /// Two bound buffers share a binding slot.
    DuplicateBinding {
        /// The slot.
        binding: u32,
        /// The first buffer's name.
        first: String,
        /// The second buffer's name.
        second: String,
    },
    /// An output, uniform or workgroup buffer has no element count.
    MissingCount {
        /// The buffer.
        buffer: String,
        /// Its access.
        access: BufferAccess,
    },
    /// A `uniform` buffer whose elements are not 32 bits wide (`f16`, `u64`, `i64`).
    UniformElementType {
        /// The buffer.
        buffer: String,
        /// Its element type.
        element: DataType,
    },
    /// `with_output_byte_range` was used on a buffer that is not an output.
    ReadbackRangeOnNonOutput {
        /// The buffer.
        buffer: String,
    },
    /// The output byte range is reversed or reaches past the buffer.
    ReadbackRangeOutOfBounds {
        /// The buffer.
        buffer: String,
        /// The range.
        range: Range<usize>,
        /// The buffer's size in bytes.
        buffer_bytes: u64,
    },
    /// An expression or node names a buffer that is not declared.
    UnknownBuffer {
        /// The name.
        name: String,
    },
    /// An expression or assignment names a variable that is not in scope.
    UnknownVariable {
        /// The name.
        name: String,
    },
    /// A `let` or loop redeclares a variable that is still in scope.
    VariableRedeclared {
        /// The name.
        name: String,
    },
    /// An assignment to a loop variable.
    AssignToLoopVariable {
        /// The name.
        name: String,
    },
    /// An assignment of a value of another type.
    AssignTypeMismatch {
        /// The variable.
        name: String,
        /// The variable's type.
        expected: DataType,
        /// The value's type.
        found: DataType,
    },
    /// A binary operator applied to operands it does not accept.
    BinaryOperandTypes {
        /// The operator.
        op: BinOp,
        /// The left operand's type.
        lhs: DataType,
        /// The right operand's type.
        rhs: DataType,
    },
    /// A unary operator applied to an operand it does not accept.
    UnaryOperandType {
        /// The operator.
        op: UnOp,
        /// The operand's type.
        arg: DataType,
    },
    /// A condition (of `if` or `select`) that is not a bool.
    ConditionNotBool {
        /// Its type.
        found: DataType,
    },
    /// The arms of a `select` differ in type.
    SelectArmsDiffer {
        /// The true arm's type.
        on_true: DataType,
        /// The false arm's type.
        on_false: DataType,
    },
    /// A `bitcast` to or from a type that is not a 32-bit number.
    BitcastType {
        /// The source type.
        from: DataType,
        /// The target type.
        to: DataType,
    },
    /// An `fma` operand that is not `f32`.
    FmaOperandType {
        /// The operand's type.
        found: DataType,
    },
    /// A buffer index that is not `u32` or `i32`.
    IndexType {
        /// The buffer.
        buffer: String,
        /// The index's type.
        found: DataType,
    },
    /// A stored value whose type is not the buffer's element type.
    StoreTypeMismatch {
        /// The buffer.
        buffer: String,
        /// The element type.
        expected: DataType,
        /// The value's type.
        found: DataType,
    },
    /// A store into a `read` or `uniform` buffer.
    StoreToReadOnly {
        /// The buffer.
        buffer: String,
        /// Its access.
        access: BufferAccess,
    },
    /// Loop bounds that are not both `u32` or both `i32`.
    LoopBoundTypes {
        /// The type of `from`.
        from: DataType,
        /// The type of `to`.
        to: DataType,
    },
    /// An atomic on a buffer whose element type is not an integer (`u32`, `i32`, `u64`, `i64`).
    AtomicElementType {
        /// The buffer.
        buffer: String,
        /// Its element type.
        element: DataType,
    },
    /// An atomic on a buffer the program may not write.
    AtomicOnReadOnly {
        /// The buffer.
        buffer: String,
        /// Its access.
        access: BufferAccess,
    },
    /// An atomic operand whose type is not the buffer's element type.
    AtomicOperandType {
        /// The buffer.
        buffer: String,
        /// The element type.
        expected: DataType,
        /// The operand's type.
        found: DataType,
    },
    /// `expected` given to an op other than compare-exchange, or missing from compare-exchange.
    AtomicExpectedOperand {
        /// The operation.
        op: AtomicOp,
    },
    /// A barrier in control flow that not every invocation of a workgroup takes the same way.
    NonUniformBarrier {
        /// Why the control flow is not uniform.
        reason: &'static str,
    },
    /// A `break` or `continue` outside every loop body.
    ExitOutsideLoop {
        /// `"break"` or `"continue"`.
        statement: &'static str,
    },
    /// Statements nested deeper than [`crate::validate::MAX_NODE_DEPTH`].
    NodeNestingTooDeep {
        /// The limit.
        limit: usize,
    },
    /// An expression deeper than [`crate::validate::MAX_EXPR_DEPTH`].
    ExprTooDeep {
        /// The limit.
        limit: usize,
    },
    /// A subgroup operation on an operand type it does not accept.
    SubgroupOperandType {
        /// The operation.
        op: SubgroupOp,
        /// The operand's type.
        arg: DataType,
    },
    /// A `subgroup_shuffle` whose value is not numeric or whose lane is not a `u32`.
    ShuffleOperandTypes {
        /// The value's type.
        value: DataType,
        /// The lane's type.
        lane: DataType,
    },
    /// A private array with no elements or more than [`crate::ir::MAX_PRIVATE_ARRAY_LEN`].
    ArrayLength {
        /// The array.
        name: String,
        /// Its declared element count.
        len: u32,
    },
    /// A private array load or store names a `let` or loop variable, not an array.
    NotAnArray {
        /// The name.
        name: String,
    },
    /// A `Var` or an assignment names a private array, which is read and written by element only.
    ArrayAsValue {
        /// The array.
        name: String,
    },
    /// A store into a private array of a value that is not of its element type.
    ArrayStoreTypeMismatch {
        /// The array.
        array: String,
        /// The element type.
        expected: DataType,
        /// The value's type.
        found: DataType,
    },
    /// A subgroup operation or builtin in a program whose workgroup is not one-dimensional.
    SubgroupWorkgroupShape {
        /// The declared workgroup size.
        size: [u32; 3],
    },
    /// A subgroup operation or builtin in control flow that not every invocation of a workgroup
    /// takes the same way.
    NonUniformSubgroupOp {
        /// Why the control flow is not uniform.
        reason: &'static str,
    },
    /// A tile declared with a shape or element type the IR does not have.
    InvalidTileType {
        /// The tile.
        name: String,
        /// Its declared type.
        tile: crate::ir::TileType,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// A tile statement names a variable or private array, not a tile.
    NotATile {
        /// The name.
        name: String,
    },
    /// A `Var`, an assignment or an array access names a tile, which only tile statements use.
    TileAsValue {
        /// The tile.
        name: String,
    },
    /// A tile load or store through a uniform buffer.
    TileBufferAccess {
        /// The buffer.
        buffer: String,
    },
    /// A tile load or store through a buffer of another element type.
    TileBufferType {
        /// The tile.
        tile: String,
        /// The buffer.
        buffer: String,
        /// The tile's element type.
        tile_element: DataType,
        /// The buffer's element type.
        buffer_element: DataType,
    },
    /// A tile load or store whose offset or stride is not a `u32`.
    TileOperandType {
        /// `offset` or `stride`.
        operand: &'static str,
        /// The operand's type.
        found: DataType,
    },
    /// A tile multiply-add whose tiles do not fit `target = a x b + c`.
    TileMultiplyAddMismatch {
        /// What does not fit.
        reason: String,
    },
    /// A tile statement in a program whose workgroup is not one-dimensional.
    TileWorkgroupShape {
        /// The declared workgroup size.
        size: [u32; 3],
    },
    /// A tile statement in control flow that not every invocation of a workgroup takes the same
    /// way, or with an offset or stride that may differ between invocations.
    NonUniformTile {
        /// Why.
        reason: &'static str,
    },
}

impl ValidationErrorKind {
    /// What happened, in one sentence.
    #[must_use]
    pub fn message(&self) -> String {
        use ValidationErrorKind as K;
        match self {
            K::WorkgroupSizeZero { size } => {
                format!("workgroup size {size:?} has a zero dimension.")
            }
            K::WorkgroupTooLarge { invocations } => format!(
                "workgroup size has {invocations} invocations, more than the {} allowed.",
                crate::ir::MAX_WORKGROUP_INVOCATIONS
            ),
            K::WorkgroupInvocationsOverflow { size } => format!(
                "workgroup size {size:?} has 2^64 or more invocations, more than the {} allowed.",
                crate::ir::MAX_WORKGROUP_INVOCATIONS
            ),
            K::InvalidName { name } => format!("name {name:?} is not an identifier."),
            K::DuplicateBufferName { name } => format!("buffer name `{name}` is declared twice."),
            K::DuplicateBinding {
                binding,
                first,
                second,
            } => {
                format!("buffers `{first}` and `{second}` both use binding {binding}.")
            }
            K::MissingCount { buffer, access } => {
                format!("{access} buffer `{buffer}` has no element count.")
            }
            K::ReadbackRangeOnNonOutput { buffer } => {
                format!("buffer `{buffer}` has an output byte range but is not an output.")
            }
            K::ReadbackRangeOutOfBounds {
                buffer,
                range,
                buffer_bytes,
            } => format!(
                "output byte range {}..{} of `{buffer}` is outside its {buffer_bytes} bytes.",
                range.start, range.end
            ),
            K::UnknownBuffer { name } => format!("buffer `{name}` is not declared."),
            K::ArrayLength { name, len } => format!(
                "private array `{name}` has {len} elements; it needs 1 to {}.",
                crate::ir::MAX_PRIVATE_ARRAY_LEN
            ),
            K::NotAnArray { name } => {
                format!("`{name}` is indexed as a private array but is a variable.")
            }
            K::ArrayAsValue { name } => {
                format!("private array `{name}` is used as a whole value.")
            }
            K::ArrayStoreTypeMismatch {
                array,
                expected,
                found,
            } => format!(
                "store of a {found} into private array `{array}`, whose elements are {expected}."
            ),
            K::UnknownVariable { name } => format!("variable `{name}` is not in scope."),
            K::VariableRedeclared { name } => {
                format!("variable `{name}` is declared while an earlier `{name}` is in scope.")
            }
            K::AssignToLoopVariable { name } => {
                format!("loop variable `{name}` is assigned in the loop body.")
            }
            K::AssignTypeMismatch {
                name,
                expected,
                found,
            } => {
                format!("variable `{name}` has type {expected} but is assigned a {found}.")
            }
            K::BinaryOperandTypes { op, lhs, rhs } => {
                format!("`{}` does not accept operands {lhs} and {rhs}.", op.name())
            }
            K::UnaryOperandType { op, arg } => {
                format!("`{}` does not accept a {arg} operand.", op.name())
            }
            K::ConditionNotBool { found } => format!("condition has type {found}, not bool."),
            K::SelectArmsDiffer { on_true, on_false } => {
                format!("select arms have types {on_true} and {on_false}.")
            }
            K::UniformElementType { buffer, element } => {
                format!(
                    "uniform buffer `{buffer}` has {element} elements; uniform buffers hold 32-bit elements only."
                )
            }
            K::BitcastType { from, to } => {
                format!(
                    "bitcast from {from} to {to} is not a reinterpretation between numbers of one width."
                )
            }
            K::FmaOperandType { found } => format!("fma operand has type {found}, not f32."),
            K::IndexType { buffer, found } => format!("index into `{buffer}` has type {found}."),
            K::StoreTypeMismatch {
                buffer,
                expected,
                found,
            } => format!("store of a {found} into `{buffer}`, whose elements are {expected}."),
            K::StoreToReadOnly { buffer, access } => {
                format!("store into {access} buffer `{buffer}`.")
            }
            K::LoopBoundTypes { from, to } => format!("loop bounds have types {from} and {to}."),
            K::AtomicElementType { buffer, element } => {
                format!("atomic on `{buffer}`, whose elements are {element}.")
            }
            K::AtomicOnReadOnly { buffer, access } => {
                format!("atomic on {access} buffer `{buffer}`.")
            }
            K::AtomicOperandType {
                buffer,
                expected,
                found,
            } => format!(
                "atomic operand of type {found} on `{buffer}`, whose elements are {expected}."
            ),
            K::AtomicExpectedOperand { op } => {
                format!("`{}` has the wrong set of operands.", op.name())
            }
            K::NonUniformBarrier { reason } => {
                format!("barrier in non-uniform control flow: {reason}.")
            }
            K::ExitOutsideLoop { statement } => {
                format!("`{statement}` is not inside a loop body.")
            }
            K::NodeNestingTooDeep { limit } => {
                format!("statements are nested deeper than {limit} levels.")
            }
            K::ExprTooDeep { limit } => format!("expression is deeper than {limit} levels."),
            K::SubgroupOperandType { op, arg } => {
                format!("`{}` does not accept a {arg} operand.", op.name())
            }
            K::ShuffleOperandTypes { value, lane } => format!(
                "`subgroup_shuffle` of a {value} value from a {lane} lane; it takes a u32, i32 or f32 value and a u32 lane."
            ),
            K::NonUniformSubgroupOp { reason } => {
                format!("subgroup operation in non-uniform control flow: {reason}.")
            }
            K::SubgroupWorkgroupShape { size } => format!(
                "subgroup operation in a program whose workgroup size {size:?} is not one-dimensional; devices form subgroups from multi-dimensional workgroups in their own ways."
            ),
            K::InvalidTileType { name, tile, reason } => format!(
                "tile `{name}` is {}<{}, {}, {}>: {reason}.",
                tile.role.word(),
                tile.element,
                tile.rows,
                tile.columns
            ),
            K::NotATile { name } => format!("`{name}` is used as a tile but is not one."),
            K::TileAsValue { name } => {
                format!("tile `{name}` is used as a value; only tile statements use tiles.")
            }
            K::TileBufferAccess { buffer } => {
                format!("tile load or store through uniform buffer `{buffer}`.")
            }
            K::TileBufferType {
                tile,
                buffer,
                tile_element,
                buffer_element,
            } => format!(
                "tile `{tile}` of {tile_element} elements moves through buffer `{buffer}` of {buffer_element} elements."
            ),
            K::TileOperandType { operand, found } => {
                format!("a tile's {operand} is a {found}; it must be a u32.")
            }
            K::TileMultiplyAddMismatch { reason } => {
                format!("tile multiply-add does not fit `target = a x b + c`: {reason}.")
            }
            K::TileWorkgroupShape { size } => format!(
                "tile statement in a program whose workgroup size {size:?} is not one-dimensional."
            ),
            K::NonUniformTile { reason } => format!("tile statement not uniform: {reason}."),
        }
    }

    /// What the user should do about it.
    #[must_use]
    pub fn fix(&self) -> String {
        use ValidationErrorKind as K;
        match self {
            K::WorkgroupSizeZero { .. } => "give every workgroup dimension at least 1.".into(),
            K::WorkgroupTooLarge { .. } | K::WorkgroupInvocationsOverflow { .. } => {
                "shrink the workgroup size so x * y * z <= 1024.".into()
            }
            K::InvalidName { .. } => "use ASCII letters, digits and `_`, not starting with a digit.".into(),
            K::DuplicateBufferName { .. } => "rename one of the buffers.".into(),
            K::DuplicateBinding { .. } => "give each bound buffer its own binding.".into(),
            K::MissingCount { .. } => "call `.with_count(n)` on the declaration.".into(),
            K::ReadbackRangeOnNonOutput { .. } => "declare the buffer with `BufferDecl::output`, or drop the range.".into(),
            K::ReadbackRangeOutOfBounds { .. } => "keep start <= end <= count * element size.".into(),
            K::UnknownBuffer { .. } => "declare the buffer in the program's buffer list, or fix the name.".into(),
            K::ArrayLength { .. } => format!(
                "declare between 1 and {} elements, or keep larger data in a buffer.",
                crate::ir::MAX_PRIVATE_ARRAY_LEN
            ),
            K::NotAnArray { .. } => "declare the array with `Node::private_array`, or read the variable with `Expr::var`.".into(),
            K::ArrayAsValue { .. } => "read and write one element at a time with `Expr::array_load` and `Node::array_store`.".into(),
            K::ArrayStoreTypeMismatch { .. } => "convert the value with `Expr::cast` or `Expr::bitcast`.".into(),
            K::UnknownVariable { .. } => "bind it with `Node::let_bind` earlier in an enclosing body.".into(),
            K::VariableRedeclared { .. } => "use a new name, or `Node::assign` to change the existing variable.".into(),
            K::AssignToLoopVariable { .. } => "copy the loop variable into a `let` and change that.".into(),
            K::AssignTypeMismatch { .. } | K::StoreTypeMismatch { .. } | K::AtomicOperandType { .. } => {
                "convert the value with `Expr::cast` or `Expr::bitcast`.".into()
            }
            K::BinaryOperandTypes { .. } | K::UnaryOperandType { .. } | K::FmaOperandType { .. } => {
                "see SEMANTICS.md for the types each operator takes, and convert with `Expr::cast` (a Rust number without a suffix after an operator, as in `x * 4`, is an `i32` literal: write `4u32`).".into()
            }
            K::ConditionNotBool { .. } => "compare the value, e.g. `Expr::ne(x, Expr::u32(0))`.".into(),
            K::SelectArmsDiffer { .. } => "convert one arm so both have the same type.".into(),
            K::UniformElementType { .. } => "declare the buffer `read` instead of `uniform`.".into(),
            K::BitcastType { .. } => "bitcast only between u32, i32 and f32, or between u64 and i64; use `Expr::cast` to convert values (bool and f16 included).".into(),
            K::IndexType { .. } => "index with a u32 or i32 expression (cast a u64 or i64 index with `Expr::cast(DataType::U32, ..)`).".into(),
            K::StoreToReadOnly { .. } => "declare the buffer `read_write` or `output`.".into(),
            K::LoopBoundTypes { .. } => "give both bounds the same type, u32 or i32.".into(),
            K::AtomicElementType { .. } => "use atomics only on u32, i32, u64 or i64 buffers.".into(),
            K::AtomicOnReadOnly { .. } => "declare the buffer `read_write`, `output` or `workgroup`.".into(),
            K::AtomicExpectedOperand { .. } => {
                "build atomics with `Expr::atomic_*` or `Expr::atomic_compare_exchange`.".into()
            }
            K::NonUniformBarrier { .. } => {
                "move the barrier out of the branch or loop, or make its condition depend only on uniform values (literals, `wid`, `nwg`, `buf_len`, loads of `read` or `uniform` buffers at uniform indices, and variables only given such values); instead of an early `return` before it, put the work after the return in an `if`, so every invocation reaches the barrier.".into()
            }
            K::ExitOutsideLoop { .. } => {
                "put it inside a `loop_for` or `loop_while` body, or use `Node::return_` to end the invocation.".into()
            }
            K::NodeNestingTooDeep { .. } => "flatten the nesting, e.g. by splitting the program.".into(),
            K::ExprTooDeep { .. } => "bind intermediate values with `Node::let_bind`.".into(),
            K::SubgroupOperandType { op, .. } => match op.class() {
                crate::ir::SubgroupClass::Bitwise => "give it a u32 or i32 operand.".into(),
                crate::ir::SubgroupClass::Ballot => "give it a bool condition, e.g. `x != 0u`.".into(),
                crate::ir::SubgroupClass::Arithmetic | crate::ir::SubgroupClass::Broadcast => {
                    "give it a u32, i32 or f32 operand; cast a bool with `Expr::cast`.".into()
                }
            },
            K::ShuffleOperandTypes { .. } => {
                "cast the value to u32, i32 or f32 and the lane to u32 with `Expr::cast`.".into()
            }
            K::SubgroupWorkgroupShape { size } => format!(
                "use a one-dimensional workgroup, `[{}, 1, 1]`, and derive the other coordinates from the index.",
                u64::from(size[0]) * u64::from(size[1]) * u64::from(size[2])
            ),
            K::NonUniformSubgroupOp { .. } => {
                "compute it before the branch, loop or `return` that only some invocations take (subgroup operations need every invocation of the subgroup), or make the condition depend only on uniform values; in a `while` condition, compute it in a `let` before the loop and at the end of the body.".into()
            }
            K::InvalidTileType { .. } => "use 8 or 16 rows and columns, f16 elements for `a` and `b` tiles, and f16 or f32 for accumulators.".into(),
            K::NotATile { .. } => "declare it with `Node::tile`, or use a tile's name.".into(),
            K::TileAsValue { .. } => "store the tile to a buffer with `Node::tile_store` and read the elements from there.".into(),
            K::TileBufferAccess { .. } => "load tiles from a `read`, `read_write`, `output` or workgroup buffer.".into(),
            K::TileBufferType { .. } => "declare the buffer with the tile's element type, or the tile with the buffer's.".into(),
            K::TileOperandType { .. } => "convert it with `Expr::cast(DataType::U32, ..)`.".into(),
            K::TileMultiplyAddMismatch { .. } => "multiply an `a` tile of m x k by a `b` tile of k x n into accumulators of m x n with one element type.".into(),
            K::TileWorkgroupShape { size } => format!(
                "use a one-dimensional workgroup, `[{}, 1, 1]`: tiles are spread over whole subgroups.",
                u64::from(size[0]) * u64::from(size[1]) * u64::from(size[2])
            ),
            K::NonUniformTile { .. } => "run tile statements where every invocation of the workgroup goes (outside branches and loops whose conditions differ between invocations), with offsets and strides computed from literals, workgroup ids, buffer lengths, uniform variables and the invocation's subgroup `lid.x / subgroup_size()`.".into(),
        }
    }
}

/// One validation error: where it is and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ValidationError {
    /// A path to the offending part, e.g. `body[1].then[0].value.lhs` or `buffers[2]`.
    pub path: String,
    /// The rule that failed.
    pub kind: ValidationErrorKind,
}

impl fmt::Display for ValidationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "at {}: {} Fix: {}",
            self.path,
            self.kind.message(),
            self.kind.fix()
        )
    }
}

impl std::error::Error for ValidationError {}

/// Every error validation found, in program order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ValidationErrors {
    /// The errors; never empty.
    pub errors: Vec<ValidationError>,
}

impl ValidationErrors {
    /// The kinds, in order; handy in tests.
    #[must_use]
    pub fn kinds(&self) -> Vec<&ValidationErrorKind> {
        self.errors.iter().map(|e| &e.kind).collect()
    }
}

impl fmt::Display for ValidationErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "program is invalid ({} error", self.errors.len())?;
        if self.errors.len() != 1 {
            f.write_str("s")?;
        }
        f.write_str("):")?;
        for error in &self.errors {
            write!(f, "\n  {error}")?;
        }
        Ok(())
    }
}

impl std::error::Error for ValidationErrors {}
