//! The buffers of a generated program and the discipline each one is accessed under.
//!
//! In comparable programs every buffer has a [`Role`] that says which accesses are race-free:
//! own-slot buffers give each invocation `slots` elements of its own (indexed from its linear id),
//! contended buffers are touched only by atomics of one order-independent group, and read-only buffers
//! take any index.

use vyre_foundation::ir::{AtomicOp, BufferAccess, BufferDecl, DataType};

use crate::r#gen::{Feature, Features, GenConfig};

/// Atomic operations whose combined effect on one element does not depend on their order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum AtomicGroup {
    /// `add` and `sub` (both are additions modulo 2^32).
    AddSub,
    /// `and`.
    And,
    /// `or`.
    Or,
    /// `xor`.
    Xor,
    /// `min`.
    Min,
    /// `max`.
    Max,
}

impl AtomicGroup {
    const ALL: [AtomicGroup; 6] = [
        AtomicGroup::AddSub,
        AtomicGroup::And,
        AtomicGroup::Or,
        AtomicGroup::Xor,
        AtomicGroup::Min,
        AtomicGroup::Max,
    ];

    /// The operation selected by `word` within the group.
    pub(crate) fn op(self, word: u32) -> AtomicOp {
        match self {
            AtomicGroup::AddSub if word % 2 == 1 => AtomicOp::Sub,
            AtomicGroup::AddSub => AtomicOp::Add,
            AtomicGroup::And => AtomicOp::And,
            AtomicGroup::Or => AtomicOp::Or,
            AtomicGroup::Xor => AtomicOp::Xor,
            AtomicGroup::Min => AtomicOp::Min,
            AtomicGroup::Max => AtomicOp::Max,
        }
    }
}

/// How a generated program may access one buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Role {
    /// A `read` or `uniform` buffer: any index.
    ReadOnly,
    /// An `output` or `read_write` buffer with `slots` elements per invocation, indexed from `tid`.
    OwnStorage,
    /// An `output` buffer touched only by atomics of one group, whose old values are dropped.
    Contended(AtomicGroup),
    /// A workgroup buffer with `slots` elements per invocation of the workgroup, indexed from `ltid`,
    /// while the workgroup phase is `Write`; any index while it is `Read`.
    OwnWorkgroup,
    /// A workgroup buffer touched only by atomics of one group while the phase is `Write`, and read at
    /// any index while it is `Read`.
    SharedWorkgroup(AtomicGroup),
    /// The output tile blocks store into (`gen/tiles.rs`): nothing else touches it.
    TileOutput,
}

/// One buffer of a generated program.
#[derive(Clone, Debug)]
pub(crate) struct BufInfo {
    pub(crate) decl: BufferDecl,
    pub(crate) role: Role,
    /// Own-slot elements per invocation (own-slot roles only).
    pub(crate) slots: u32,
    /// Elements of input to generate (inputs only).
    pub(crate) input_elements: u32,
    /// A read-only storage buffer loaded only at aligned indices (`Feature::RowLoads`).
    pub(crate) rows: bool,
}

/// The 32-bit element types, simplest first (what a shrunk word selects).
const TYPES: [DataType; 4] = [DataType::U32, DataType::I32, DataType::F32, DataType::Bool];

/// The value types a case with `features` uses: the 32-bit types, then `f16` and `u64`/`i64` where
/// their features are on (appended, so a case without them decodes as before they existed).
pub(crate) fn types(features: Features) -> Vec<DataType> {
    let mut types = TYPES.to_vec();
    if features.has(Feature::F16) {
        types.push(DataType::F16);
    }
    if features.has(Feature::Int64) {
        types.extend([DataType::U64, DataType::I64]);
    }
    types
}

/// The integer element types atomics may use in a case with `features`: `u32` and `i32`, and the
/// 64-bit integers where `Int64Atomics` is on too.
pub(crate) fn atomic_types(features: Features) -> &'static [DataType] {
    if wide_atomics(features) {
        &[DataType::U32, DataType::I32, DataType::U64, DataType::I64]
    } else {
        &[DataType::U32, DataType::I32]
    }
}

/// True when a case with `features` may use atomics on 64-bit elements.
pub(crate) fn wide_atomics(features: Features) -> bool {
    features.has(Feature::Int64) && features.has(Feature::Int64Atomics)
}

/// The shape of the dispatch a recipe decodes to.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Shape {
    pub(crate) workgroup: [u32; 3],
    pub(crate) grid: [u32; 3],
    pub(crate) slots: u32,
    pub(crate) out_type: DataType,
    /// One-dimensional, one slot, `tid = gid.x` (`Feature::Elementwise`).
    pub(crate) elementwise: bool,
    /// Elementwise shapes: picks how own-slot buffers' lengths relate to the grid.
    pub(crate) length_word: u32,
}

impl Shape {
    pub(crate) fn decode(words: &[u32], config: &GenConfig, features: Features) -> Self {
        let elementwise = features.has(Feature::Elementwise);
        let types = types(features);
        let word = |i: usize| words.get(i).copied().unwrap_or(0);
        if elementwise {
            let x = |limit: u32, w: u32| 1 + w % limit.max(1);
            return Shape {
                workgroup: [x(config.max_workgroup_invocations, word(0)), 1, 1],
                grid: [x(config.max_workgroups, word(3)), 1, 1],
                slots: 1,
                out_type: types[word(7) as usize % types.len()],
                elementwise: true,
                length_word: word(6),
            };
        }
        Shape {
            workgroup: split3(
                config.max_workgroup_invocations,
                [word(0), word(1), word(2)],
            ),
            grid: split3(config.max_workgroups, [word(3), word(4), word(5)]),
            slots: 1 + word(6) % 3,
            out_type: types[word(7) as usize % types.len()],
            elementwise: false,
            length_word: 0,
        }
    }

    pub(crate) fn invocations_per_group(&self) -> u32 {
        self.workgroup.iter().product()
    }

    pub(crate) fn invocations(&self) -> u32 {
        self.invocations_per_group() * self.grid.iter().product::<u32>()
    }
}

/// Three factors, each at least 1, whose product is at most `limit`; words of 0 give `[1, 1, 1]`.
fn split3(limit: u32, words: [u32; 3]) -> [u32; 3] {
    let mut left = limit.max(1);
    let mut out = [1; 3];
    for (slot, word) in out.iter_mut().zip(words) {
        *slot = 1 + word % left;
        left /= *slot;
    }
    out
}

/// Decodes the buffer list: `out0` (an own-slot output of the shape's type) and one buffer per word.
pub(crate) fn decode_buffers(
    words: &[u32],
    shape: &Shape,
    features: Features,
    config: &GenConfig,
) -> Vec<BufInfo> {
    let mut buffers = vec![own_storage(
        "out0",
        BufferAccess::Output,
        shape.out_type,
        shape,
        0,
    )];
    for (i, &word) in words.iter().enumerate() {
        buffers.push(decode_buffer(i + 1, word, shape, features, config));
    }
    number_bindings(&mut buffers);
    buffers
}

/// Gives the bound buffers bindings 0, 1, 2, ... in declaration order.
pub(crate) fn number_bindings(buffers: &mut [BufInfo]) {
    let mut binding = 0;
    for info in buffers {
        if info.decl.access.is_bound() {
            info.decl.binding = binding;
            binding += 1;
        }
    }
}

/// Buffer `i` of the list, from its word.
pub(crate) fn decode_buffer(
    i: usize,
    word: u32,
    shape: &Shape,
    features: Features,
    config: &GenConfig,
) -> BufInfo {
    let types = types(features);
    let elem = types[(word >> 3) as usize % types.len()];
    let ints = atomic_types(features);
    let int_elem = ints[(word >> 3) as usize % ints.len()];
    let size = 1 + (word >> 7) % config.max_elements.max(1);
    let group = AtomicGroup::ALL[(word >> 12) as usize % AtomicGroup::ALL.len()];
    let runtime = (word >> 5) & 1 == 1;
    let short = ((word >> 6) & 1) * ((word >> 16) % 3);
    match word % 6 {
        1 => {
            let mut info =
                own_storage(&format!("out{i}"), BufferAccess::Output, elem, shape, short);
            // A quarter of the extra outputs come back as a byte range of the buffer, possibly
            // empty: any bytes of integers and bools, whole elements of floats (whose parts could
            // differ between two right answers, and are compared bit for bit).
            let mix = word.wrapping_mul(0x9e37_79b9).rotate_left(11);
            if mix.is_multiple_of(4) {
                let unit = if elem.is_float() {
                    elem.size_bytes()
                } else {
                    1
                };
                let units = info.decl.count as usize * elem.size_bytes() / unit;
                let start = (mix >> 2) as usize % (units + 1);
                let end = start + (mix >> 14) as usize % (units - start + 1);
                info.decl = info.decl.with_output_byte_range(start * unit..end * unit);
            }
            info
        }
        2 => {
            let mut info = own_storage(
                &format!("rw{i}"),
                BufferAccess::ReadWrite,
                elem,
                shape,
                short,
            );
            info.input_elements = info.decl.count;
            if runtime {
                info.decl.count = 0;
            }
            info
        }
        // Uniform buffers hold 32-bit elements only.
        3 if elem.size_bytes() == 4 => read_only(
            BufferDecl::uniform(format!("uni{i}"), 0, elem).with_count(size),
            size,
        ),
        4 if features.has(Feature::Atomics) => BufInfo {
            decl: BufferDecl::output(format!("acc{i}"), 0, int_elem).with_count(1 + size % 8),
            role: Role::Contended(group),
            slots: 0,
            input_elements: 0,
            rows: false,
        },
        5 if features.has(Feature::Workgroup) => workgroup(i, word, int_elem, elem, group, shape),
        _ => {
            let count = if runtime { 0 } else { size };
            let mut info = read_only(
                BufferDecl::read(format!("in{i}"), 0, elem).with_count(count),
                size,
            );
            // 32-bit and `f16` elements: the wgpu lowering reads both as `vec4` rows.
            info.rows = features.has(Feature::RowLoads) && matches!(elem.size_bytes(), 2 | 4);
            info
        }
    }
}

pub(crate) fn read_only(decl: BufferDecl, elements: u32) -> BufInfo {
    BufInfo {
        decl,
        role: Role::ReadOnly,
        slots: 0,
        input_elements: elements,
        rows: false,
    }
}

/// An own-slot storage buffer with room for every invocation's slots, less `short` elements so that
/// the last slots are out of bounds.
pub(crate) fn own_storage(
    name: &str,
    access: BufferAccess,
    elem: DataType,
    shape: &Shape,
    short: u32,
) -> BufInfo {
    let slots = shape.slots;
    let total = shape.invocations() * slots;
    let count = if shape.elementwise {
        elementwise_count(total, shape.length_word.wrapping_add(short))
    } else {
        total - short.min(total - 1)
    };
    let decl = match access {
        BufferAccess::ReadWrite => BufferDecl::read_write(name, 0, elem),
        _ => BufferDecl::output(name, 0, elem),
    };
    BufInfo {
        decl: decl.with_count(count),
        role: Role::OwnStorage,
        slots,
        input_elements: 0,
        rows: false,
    }
}

/// An elementwise buffer's length against the grid's `total` invocations: a whole number of groups
/// of four at, below or above the grid's end, the grid's own length, or one that ends inside a group
/// of four (so the vectorised lowering's partial rows meet buffer ends as well as grid ends).
fn elementwise_count(total: u32, word: u32) -> u32 {
    let up = total.div_ceil(4) * 4;
    match word % 8 {
        0 => up,
        1 => (total / 4 * 4).max(4),
        2 => up + 4,
        3 => up + 8,
        4 => up - 1,
        5 => up + 5,
        6 => total.saturating_sub(2).max(1),
        _ => total,
    }
}

fn workgroup(
    i: usize,
    word: u32,
    int_elem: DataType,
    elem: DataType,
    group: AtomicGroup,
    shape: &Shape,
) -> BufInfo {
    if (word >> 15) & 1 == 1 {
        let count = 1 + (word >> 7) % 8;
        return BufInfo {
            decl: BufferDecl::workgroup(format!("wga{i}"), count, int_elem),
            role: Role::SharedWorkgroup(group),
            slots: 0,
            input_elements: 0,
            rows: false,
        };
    }
    let slots = shape.slots;
    let count = shape.invocations_per_group() * slots;
    BufInfo {
        decl: BufferDecl::workgroup(format!("wg{i}"), count, elem),
        role: Role::OwnWorkgroup,
        slots,
        input_elements: 0,
        rows: false,
    }
}
