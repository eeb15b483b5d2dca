//! Every atomic operation slot by slot, at any integer width: each invocation owns one slot per
//! operation, so both the value an atomic returns and the value it leaves are deterministic.
//!
//! The rule for what an atomic does ([`atomic_rmw`]), the program ([`slots_program`]), its inputs
//! and its cases ([`Slots`]) are written once here, for `u32`, `i32`, `u64` and `i64` alike: the
//! 32-bit and 64-bit batches of atomic expressions ([`atomic_slots`], from `memory.rs` and
//! `wide.rs`) and the batches of atomic statements (`atomic_statements.rs`) all use them.

use vyre_driver::DispatchConfig;
use vyre_foundation::ir::{AtomicOp, BufferDecl, DataType, Expr, Node, Program};

use crate::catalogue::build::element_bytes;
use crate::catalogue::{Area, Batch, Expectation, format_word};

/// Invocations per workgroup of the slot programs.
const WG: u32 = 64;

/// `op` applied by an atomic to `old` with operand `v` (and `expected` for compare-exchange) on an
/// element of the integer type `ty`, every value given by its bits zero-extended, in plain Rust: the
/// catalogue's expected values (SEMANTICS.md section 4). A 32-bit element is extended to 64 bits
/// first (sign-extended for `i32`), which keeps order and equality, and the result truncated back:
/// the wrapping and bitwise operations keep their low 32 bits.
pub(crate) fn atomic_rmw(op: AtomicOp, ty: DataType, old: u64, v: u64, expected: u64) -> u64 {
    let extend = |w: u64| {
        if ty == DataType::I32 {
            i64::from(w as u32 as i32) as u64
        } else {
            w
        }
    };
    let (old, v, expected) = (extend(old), extend(v), extend(expected));
    let signed = ty.is_signed();
    let result = match op {
        AtomicOp::Add => old.wrapping_add(v),
        AtomicOp::Sub => old.wrapping_sub(v),
        AtomicOp::Min if signed => (old as i64).min(v as i64) as u64,
        AtomicOp::Min => old.min(v),
        AtomicOp::Max if signed => (old as i64).max(v as i64) as u64,
        AtomicOp::Max => old.max(v),
        AtomicOp::And => old & v,
        AtomicOp::Or => old | v,
        AtomicOp::Xor => old ^ v,
        AtomicOp::Exchange => v,
        AtomicOp::CompareExchange => {
            if old == expected {
                v
            } else {
                old
            }
        }
    };
    if ty.size_bytes() == 8 {
        result
    } else {
        result & u64::from(u32::MAX)
    }
}

/// How a slot program applies its atomics.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Applied {
    /// As expressions (`Expr::atomic`): the old value each returns is stored in an output `old`.
    Expression,
    /// As statements (`Node::atomic`): nothing is returned.
    Statement,
}

/// Every atomic operation slot by slot over `n` elements of `ty`: invocation `i` (of a grid of
/// `ceil(n / WG)` workgroups of `WG`) runs operation `j` of [`AtomicOp::ALL`] with `operand[i]`
/// (and `expected[i]` for compare-exchange) on its own slot `j * n + i` of `slots`, then stores the
/// slot's new value in `new` (and, for [`Applied::Expression`], the returned old value in `old`).
pub(crate) fn slots_program(ty: DataType, n: u32, applied: Applied) -> Program {
    let ops = AtomicOp::ALL.len() as u32;
    let slot = |j: u32| Expr::add(Expr::u32(j * n), Expr::var("i"));
    let mut body = vec![
        Node::let_bind("v", Expr::load("operand", Expr::var("i"))),
        Node::let_bind("e", Expr::load("expected", Expr::var("i"))),
    ];
    for (j, op) in AtomicOp::ALL.iter().copied().enumerate() {
        let j = j as u32;
        let (v, e) = (Expr::var("v"), Expr::var("e"));
        let swap = op == AtomicOp::CompareExchange;
        body.push(match applied {
            Applied::Expression if swap => Node::store(
                "old",
                slot(j),
                Expr::atomic_compare_exchange("slots", slot(j), e, v),
            ),
            Applied::Expression => {
                Node::store("old", slot(j), Expr::atomic(op, "slots", slot(j), v))
            }
            Applied::Statement if swap => Node::atomic_compare_exchange("slots", slot(j), e, v),
            Applied::Statement => Node::atomic(op, "slots", slot(j), v),
        });
        body.push(Node::store("new", slot(j), Expr::load("slots", slot(j))));
    }
    let mut buffers = vec![
        BufferDecl::read("operand", 0, ty).with_count(n),
        BufferDecl::read("expected", 1, ty).with_count(n),
        BufferDecl::read_write("slots", 2, ty).with_count(n * ops),
    ];
    if applied == Applied::Expression {
        buffers.push(BufferDecl::output("old", 3, ty).with_count(n * ops));
    }
    let new_binding = buffers.len() as u32;
    buffers.push(BufferDecl::output("new", new_binding, ty).with_count(n * ops));
    Program::wrapped(
        buffers,
        [WG, 1, 1],
        vec![
            Node::let_bind("i", Expr::gid_x()),
            Node::if_then(Expr::lt(Expr::var("i"), Expr::u32(n)), body),
        ],
    )
}

/// The rows of a slot program: per invocation, the slot's start value, the operand, and the value a
/// compare-exchange expects (every second one the slot's value, so half of them swap).
pub(crate) struct Slots {
    ty: DataType,
    /// `[start, operand]` per invocation, as bits.
    rows: Vec<[u64; 2]>,
    /// What each invocation's compare-exchange expects.
    expected: Vec<u64>,
}

/// One atomic operation on one slot, as its cases describe it.
pub(crate) struct SlotCase {
    /// The operation.
    pub(crate) op: AtomicOp,
    /// The slot's element in the outputs.
    pub(crate) element: usize,
    /// The values, readable: `slot = 0x1, value = 0x2` (with `expected = ...` for compare-exchange).
    pub(crate) described: String,
    /// The slot's value before the operation.
    pub(crate) old: u64,
    /// The slot's value after it, by [`atomic_rmw`].
    pub(crate) new: u64,
}

impl Slots {
    /// Rows of `[start, operand]` bits of `ty` (as [`pairs`](super::values::pairs) makes them); the
    /// compare-exchange of every odd row expects the start value with the bits `miss` flipped, so
    /// it leaves the slot alone.
    pub(crate) fn new(ty: DataType, rows: Vec<Vec<u64>>, miss: u64) -> Self {
        let rows: Vec<[u64; 2]> = rows.iter().map(|row| [row[0], row[1]]).collect();
        let expected = rows
            .iter()
            .enumerate()
            .map(|(r, row)| if r % 2 == 0 { row[0] } else { row[0] ^ miss })
            .collect();
        Self { ty, rows, expected }
    }

    /// The number of invocations.
    pub(crate) fn count(&self) -> u32 {
        self.rows.len() as u32
    }

    /// The grid: enough workgroups of the program's size for one invocation per row.
    pub(crate) fn config(&self) -> DispatchConfig {
        DispatchConfig::new().with_grid([self.count().div_ceil(WG), 1, 1])
    }

    /// The program's inputs: the operands, the compare-exchange expectations, and every slot's
    /// start value (operation after operation).
    pub(crate) fn inputs(&self) -> Vec<Vec<u8>> {
        let starts = AtomicOp::ALL
            .iter()
            .flat_map(|_| self.rows.iter().map(|row| row[0]));
        vec![
            element_bytes(self.ty, self.rows.iter().map(|row| row[1])),
            element_bytes(self.ty, self.expected.iter().copied()),
            element_bytes(self.ty, starts),
        ]
    }

    /// Every operation on every row, operation after operation, as the outputs hold them.
    pub(crate) fn cases(&self) -> Vec<SlotCase> {
        let ty = self.ty;
        let shown = |w: u64| format_word(ty, w);
        let mut out = Vec::with_capacity(AtomicOp::ALL.len() * self.rows.len());
        for (j, op) in AtomicOp::ALL.iter().copied().enumerate() {
            for (r, &[old, v]) in self.rows.iter().enumerate() {
                let e = self.expected[r];
                let described = if op == AtomicOp::CompareExchange {
                    let (old, e, v) = (shown(old), shown(e), shown(v));
                    format!("slot = {old}, expected = {e}, value = {v}")
                } else {
                    format!("slot = {}, value = {}", shown(old), shown(v))
                };
                out.push(SlotCase {
                    op,
                    element: j * self.rows.len() + r,
                    described,
                    old,
                    new: atomic_rmw(op, ty, old, v, e),
                });
            }
        }
        out
    }
}

/// The batch `atomics.slots.<ty>`: every atomic operation as an expression on its own slot, each
/// checked twice: the old value it returns (`<case>.old`) and the value it leaves (`<case>.new`).
pub(crate) fn atomic_slots(slots: &Slots) -> Batch {
    let ty = slots.ty;
    let program = slots_program(ty, slots.count(), Applied::Expression);
    let name = format!("atomics.slots.{ty}");
    let mut batch = Batch::manual(Area::Atomics, name, program, slots.inputs(), slots.config());
    for case in slots.cases() {
        let label = format!("{}.{ty}({})", case.op.name(), case.described);
        batch = batch
            .expect_word(
                format!("{label}.old"),
                case.described.clone(),
                (0, case.element),
                ty,
                Expectation::exact_bits(case.old),
            )
            .expect_word(
                format!("{label}.new"),
                case.described,
                (1, case.element),
                ty,
                Expectation::exact_bits(case.new),
            );
    }
    batch
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_32_bit_atomic_wraps_and_orders_at_its_width() {
        let (u, i) = (DataType::U32, DataType::I32);
        assert_eq!(atomic_rmw(AtomicOp::Add, u, 0xffff_ffff, 2, 0), 1);
        assert_eq!(atomic_rmw(AtomicOp::Sub, i, 0, 1, 0), 0xffff_ffff);
        assert_eq!(atomic_rmw(AtomicOp::Min, i, 5, 0xffff_ffff, 0), 0xffff_ffff);
        assert_eq!(atomic_rmw(AtomicOp::Min, u, 5, 0xffff_ffff, 0), 5);
        assert_eq!(atomic_rmw(AtomicOp::Max, i, 0x8000_0000, 0, 0), 0);
        assert_eq!(atomic_rmw(AtomicOp::CompareExchange, i, 7, 9, 7), 9);
        assert_eq!(atomic_rmw(AtomicOp::CompareExchange, i, 7, 9, 8), 7);
    }

    #[test]
    fn a_64_bit_atomic_keeps_every_bit() {
        let (u, i) = (DataType::U64, DataType::I64);
        let neg1 = u64::MAX;
        assert_eq!(atomic_rmw(AtomicOp::Min, i, 5, neg1, 0), neg1);
        assert_eq!(atomic_rmw(AtomicOp::Min, u, 5, neg1, 0), 5);
        assert_eq!(atomic_rmw(AtomicOp::Add, u, 0xffff_ffff, 1, 0), 1 << 32);
    }
}
