//! The mixed programs of the load and fault runs, each with its expected output computed here on the
//! CPU, so that every one of thousands of dispatches is checked without a second backend.

use vyre_foundation::ir::{BufferDecl, DataType, Expr, Node, Program};

use crate::fixtures::add_one_program;
use crate::reliability::bytes;

/// One dispatch of the mix: the program, its inputs, and the expected output bytes.
#[derive(Clone, Debug)]
pub struct Job {
    /// Index into [`programs`].
    pub program: usize,
    /// One byte vector per input buffer.
    pub inputs: Vec<Vec<u8>>,
    /// The output bytes every backend must return.
    pub expected: Vec<Vec<u8>>,
}

/// A small deterministic generator (xorshift64*), so runs are reproducible without a dependency.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator seeded with `seed` (any value, zero included).
    #[must_use]
    pub fn new(seed: u64) -> Self {
        Self(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1)
    }

    /// The next pseudo-random word.
    pub fn next_u32(&mut self) -> u32 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 32) as u32
    }

    /// A word below `n` (below 1 when `n` is 0).
    pub fn below(&mut self, n: u32) -> u32 {
        self.next_u32() % n.max(1)
    }

    /// `n` pseudo-random words.
    pub fn words(&mut self, n: usize) -> Vec<u32> {
        (0..n).map(|_| self.next_u32()).collect()
    }
}

/// `out[i] = a[i] * 3 + b[i]` over runtime-sized inputs: one pipeline for every size.
fn saxpy_program() -> Program {
    let i = Expr::gid_x();
    Program::wrapped(
        vec![
            BufferDecl::read("a", 0, DataType::U32),
            BufferDecl::read("b", 1, DataType::U32),
            BufferDecl::output("out", 2, DataType::U32).with_count(4096),
        ],
        [64, 1, 1],
        vec![Node::if_then(
            Expr::lt(i.clone(), Expr::buf_len("a")),
            vec![Node::store(
                "out",
                i.clone(),
                Expr::add(
                    Expr::mul(Expr::load("a", i.clone()), Expr::u32(3)),
                    Expr::load("b", i),
                ),
            )],
        )],
    )
}

/// Reverses each workgroup's 64 words through workgroup memory and a barrier.
fn reverse_program() -> Program {
    Program::wrapped(
        vec![
            BufferDecl::read("a", 0, DataType::U32).with_count(1024),
            BufferDecl::output("out", 1, DataType::U32).with_count(1024),
            BufferDecl::workgroup("wg", 64, DataType::U32),
        ],
        [64, 1, 1],
        vec![
            Node::store("wg", Expr::local_x(), Expr::load("a", Expr::gid_x())),
            Node::barrier(),
            Node::store(
                "out",
                Expr::gid_x(),
                Expr::load("wg", Expr::sub(Expr::u32(63), Expr::local_x())),
            ),
        ],
    )
}

/// A 16-bin histogram of `a[i] % 16` with atomics.
fn histogram_program() -> Program {
    let i = Expr::gid_x();
    Program::wrapped(
        vec![
            BufferDecl::read("a", 0, DataType::U32),
            BufferDecl::output("bins", 1, DataType::U32).with_count(16),
        ],
        [64, 1, 1],
        vec![Node::if_then(
            Expr::lt(i.clone(), Expr::buf_len("a")),
            vec![Node::let_bind(
                "old",
                Expr::atomic_add(
                    "bins",
                    Expr::rem(Expr::load("a", i), Expr::u32(16)),
                    Expr::u32(1),
                ),
            )],
        )],
    )
}

/// The distinct programs of the mix.
#[must_use]
pub fn programs() -> Vec<Program> {
    vec![
        add_one_program(16),
        add_one_program(1000),
        add_one_program(4096),
        saxpy_program(),
        reverse_program(),
        histogram_program(),
    ]
}

/// A random job of the mix; `small` keeps every buffer under 1 KiB.
pub fn job(rng: &mut Rng, small: bool) -> Job {
    let program = rng.below(6) as usize;
    let program = if small && program == 2 { 0 } else { program };
    let max = if small { 200 } else { 4096 };
    match program {
        0..=2 => {
            let n = [16, 1000, 4096][program];
            let a = rng.words(n);
            let out: Vec<u32> = a.iter().map(|x| x.wrapping_add(1)).collect();
            Job {
                program,
                inputs: vec![bytes(&a)],
                expected: vec![bytes(&out)],
            }
        }
        3 => {
            let n = 1 + rng.below(max) as usize;
            let (a, b) = (rng.words(n), rng.words(n));
            let mut out = vec![0u32; 4096];
            for i in 0..n {
                out[i] = a[i].wrapping_mul(3).wrapping_add(b[i]);
            }
            Job {
                program,
                inputs: vec![bytes(&a), bytes(&b)],
                expected: vec![bytes(&out)],
            }
        }
        4 => {
            let a = rng.words(1024);
            let out: Vec<u32> = (0..1024).map(|i| a[i / 64 * 64 + 63 - i % 64]).collect();
            Job {
                program,
                inputs: vec![bytes(&a)],
                expected: vec![bytes(&out)],
            }
        }
        _ => {
            let n = 1 + rng.below(max) as usize;
            let a = rng.words(n);
            let mut bins = vec![0u32; 16];
            for x in &a {
                bins[(x % 16) as usize] += 1;
            }
            Job {
                program,
                inputs: vec![bytes(&a)],
                expected: vec![bytes(&bins)],
            }
        }
    }
}
