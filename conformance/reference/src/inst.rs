//! The flat instruction set the reference backend compiles programs into.
//!
//! Every value lives in a *register*: one 64-bit word per lane of the block being executed, holding
//! the value's bits zero-extended (a bool is `0` or `1`, an `f32` its 32 bits, an `f16` its 16 bits,
//! a `u64`/`i64` all 64). `f16` arithmetic is compiled into conversions to `f32` and back, which is
//! exact for every `f16` operation the IR has (see `compile/expr.rs`). Instructions name their registers; typed operators are resolved
//! at compile time into the `BinKind`/`UnKind` variants below, so the executor never looks at types.

use vyre_foundation::ir::TileLayout;

/// A register number: an index into the executor's register file.
pub(crate) type Reg = u32;

/// A binary operator with its operand type resolved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BinKind {
    Add,
    Sub,
    Mul,
    DivU,
    DivS,
    RemU,
    RemS,
    And,
    Or,
    Xor,
    Shl,
    ShrU,
    ShrS,
    Eq,
    Ne,
    LtU,
    LeU,
    LtS,
    LeS,
    MinU,
    MaxU,
    MinS,
    MaxS,
    AddF,
    SubF,
    MulF,
    DivF,
    RemF,
    MinF,
    MaxF,
    EqF,
    NeF,
    LtF,
    LeF,
    Add64,
    Sub64,
    Mul64,
    DivU64,
    DivS64,
    RemU64,
    RemS64,
    Shl64,
    ShrU64,
    ShrS64,
    LtS64,
    LeS64,
    MinS64,
    MaxS64,
}

/// A unary operator or conversion with its operand type resolved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum UnKind {
    NegI,
    NegF,
    BitNot,
    Not,
    AbsS,
    AbsF,
    Popcount,
    Clz,
    Ctz,
    ReverseBits,
    Sqrt,
    InverseSqrt,
    Exp,
    Exp2,
    Log,
    Log2,
    Sin,
    Cos,
    Floor,
    Ceil,
    Round,
    Trunc,
    Fract,
    /// `f32 -> i32`, saturating at `[-2^31, 2147483520]`.
    F32ToI32,
    /// `f32 -> u32`, saturating at `[0, 4294967040]`.
    F32ToU32,
    /// `i32 -> f32`, round to nearest even.
    I32ToF32,
    /// `u32 -> f32`, round to nearest even.
    U32ToF32,
    /// Integer (or bool) to bool: `x != 0`.
    NonZero,
    /// `f32 -> bool`: `x != 0.0`, NaN gives true.
    F32ToBool,
    /// `bool -> f32`: `0.0` or `1.0`.
    BoolToF32,
    NegI64,
    BitNot64,
    AbsS64,
    /// `i32 -> u64/i64`: sign extension.
    SignExtend32,
    /// `u64/i64 -> u32/i32`: the low 32 bits.
    Truncate32,
    /// `f32 -> i64`, saturating at `[-2^63, 2^63 - 2^39]`.
    F32ToI64,
    /// `f32 -> u64`, saturating at `[0, 2^64 - 2^40]`.
    F32ToU64,
    /// `i64 -> f32`, round to nearest even.
    I64ToF32,
    /// `u64 -> f32`, round to nearest even.
    U64ToF32,
    /// `f32 -> f16`, round to nearest even.
    F32ToF16,
    /// `f16 -> f32`, exact.
    F16ToF32,
}

/// Where a buffer lives while a block runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Slot {
    /// A bound buffer, shared by all workgroups; the index into the dispatch's storage buffers.
    Storage(usize),
    /// A workgroup buffer, private to one workgroup; the index into the executor's workgroup memory.
    Workgroup(usize),
}

/// A buffer operand of a memory instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct BufRef {
    /// Where the buffer lives.
    pub(crate) slot: Slot,
    /// True when the elements are bools: loads yield `word != 0`.
    pub(crate) bool_elem: bool,
    /// True when the index expression is an `i32` (negative indices are out of bounds).
    pub(crate) signed_index: bool,
}

/// A private array operand: its elements are the registers `base..base + len`, one per element,
/// each holding every lane's own value, so lanes never see each other's arrays.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ArrayRef {
    pub(crate) base: Reg,
    pub(crate) len: u32,
    /// True when the index expression is an `i32` (negative indices are out of bounds).
    pub(crate) signed_index: bool,
}

/// A tile operand: its elements are the registers `base..base + rows * columns`, element `(r, c)`
/// at `base + r * columns + c`, each holding every lane's own copy (the law makes them equal).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct TileRef {
    pub(crate) base: Reg,
    pub(crate) rows: u32,
    pub(crate) columns: u32,
    /// True for `f16` elements (16-bit registers), false for `f32`.
    pub(crate) half: bool,
}

/// An atomic read-modify-write with its element signedness resolved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum AtomicKind {
    Add,
    Sub,
    MinU,
    MaxU,
    MinS,
    MaxS,
    And,
    Or,
    Xor,
    Exchange,
    CompareExchange,
    Add64,
    Sub64,
    MinS64,
    MaxS64,
}

/// One instruction. Control flow stays structured: `If` and `Loop` own their bodies, so the executor
/// narrows and restores lane masks without a jump table.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Inst {
    Bin {
        op: BinKind,
        dst: Reg,
        a: Reg,
        b: Reg,
    },
    Un {
        op: UnKind,
        dst: Reg,
        a: Reg,
    },
    Select {
        dst: Reg,
        cond: Reg,
        on_true: Reg,
        on_false: Reg,
    },
    Fma {
        dst: Reg,
        a: Reg,
        b: Reg,
        c: Reg,
    },
    Copy {
        dst: Reg,
        src: Reg,
    },
    Load {
        dst: Reg,
        buf: BufRef,
        index: Reg,
    },
    Store {
        buf: BufRef,
        index: Reg,
        value: Reg,
    },
    /// Sets the private array in registers `base..base + len` to zero (a declaration).
    ArrayZero {
        base: Reg,
        len: u32,
    },
    /// `dst = base[index]` on a private array of `len` registers; 0 out of bounds.
    ArrayLoad {
        dst: Reg,
        array: ArrayRef,
        index: Reg,
    },
    /// `base[index] = value` on a private array; dropped out of bounds.
    ArrayStore {
        array: ArrayRef,
        index: Reg,
        value: Reg,
    },
    /// Fills `tile` from `buf` at `offset` and `stride` (SEMANTICS.md section 9a); all zero when
    /// any position is out of bounds.
    TileLoad {
        tile: TileRef,
        buf: BufRef,
        offset: Reg,
        stride: Reg,
        layout: TileLayout,
    },
    /// Writes `tile` to `buf`; nothing when any position is out of bounds or lines overlap.
    TileStore {
        tile: TileRef,
        buf: BufRef,
        offset: Reg,
        stride: Reg,
        layout: TileLayout,
    },
    /// `d = a x b + c`.
    TileMultiplyAdd {
        d: TileRef,
        a: TileRef,
        b: TileRef,
        c: TileRef,
    },
    Atomic {
        op: AtomicKind,
        dst: Reg,
        buf: BufRef,
        index: Reg,
        /// The `expected` operand of a compare-exchange; unused by the other operations.
        expected: Reg,
        value: Reg,
    },
    If {
        cond: Reg,
        then: Block,
        otherwise: Block,
    },
    /// `var` already holds `from`; the loop runs while `var < to` in the loop's type.
    Loop {
        var: Reg,
        to: Reg,
        signed: bool,
        body: Block,
    },
    /// Runs `cond_code`, then `body` on the lanes whose `cond` register is true, until none is.
    While {
        cond_code: Block,
        cond: Reg,
        body: Block,
    },
    /// A subgroup collective: every active lane of a subgroup contributes `a` (and `lane` for a
    /// shuffle; unused otherwise) and receives its result in `dst`.
    Subgroup {
        op: SubgroupKind,
        dst: Reg,
        a: Reg,
        lane: Reg,
    },
    Barrier,
    Return,
    /// Leaves the innermost loop, for the active lanes.
    Break,
    /// Ends the innermost loop's iteration, for the active lanes.
    Continue,
}

/// A straight-line list of instructions (with structured children).
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Block {
    pub(crate) insts: Vec<Inst>,
    /// True when a `return` may run inside this block, so lanes may retire while it runs.
    pub(crate) may_return: bool,
    /// True when a `break` or `continue` of the enclosing loop may run inside this block, so lanes
    /// may leave the iteration while it runs.
    pub(crate) may_exit: bool,
}

/// A register whose value is set before a block runs instead of by an instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Prefill {
    /// A literal's bits (zero-extended), the same for every lane and every dispatch.
    Const(u64),
    /// `buf_len` of the program buffer with this index, fixed for one dispatch.
    BufLen(usize),
    /// `num_workgroups` on an axis, fixed for one dispatch.
    NumWorkgroups(usize),
    /// `global_invocation_id` on an axis, per lane.
    GlobalId(usize),
    /// `local_invocation_id` on an axis, per lane.
    LocalId(usize),
    /// `workgroup_id` on an axis, per lane.
    WorkgroupId(usize),
    /// `subgroup_size`, fixed for one backend.
    SubgroupSize,
    /// `subgroup_invocation_id`, per lane.
    SubgroupLane,
}

/// A subgroup operation with its operand type resolved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SubgroupKind {
    Add,
    AddF,
    MinU,
    MinS,
    MinF,
    MaxU,
    MaxS,
    MaxF,
    And,
    Or,
    Xor,
    BroadcastFirst,
    Ballot,
    /// `subgroup_shuffle`: the lane to read is the `lane` register.
    Shuffle,
}
