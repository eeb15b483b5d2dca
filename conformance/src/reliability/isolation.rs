//! Isolation: adversarial and random indices never reach bytes outside a program's own buffers, and a
//! dispatch never sees bytes an earlier dispatch left in a pooled buffer.
//!
//! The pool is poisoned first: programs of every size class from 64 B to 4 MiB fill their inputs,
//! read-write buffers, outputs and readback staging with `POISON`, and those buffers go back to the
//! pool. Then probes read out of bounds (`u32::MAX`, `i32::MIN`, `-1`, just past the count, indices
//! loaded from input data and computed from them), read outputs they never write, and store and
//! atomically add out of bounds next to neighbour buffers. Each probe's outputs are checked against
//! values computed here from `SEMANTICS.md` section 3, against the reference backend, and for the
//! absence of `POISON`.

use vyre_driver::{DispatchConfig, VyreBackend};
use vyre_foundation::ir::{BufferDecl, DataType, Expr, Node, Program};

use crate::ReferenceBackend;
use crate::reliability::mix::Rng;
use crate::reliability::{bytes, words};

/// The word the pool is filled with; no output may ever hold it.
pub const POISON: u32 = 0xDEAD_BEEF;
/// Declared count of the reader's `a`; its input is shorter and zero-extended.
const A_COUNT: u32 = 1000;
const A_INPUT: usize = 300;
/// Input words of the runtime-sized `r`.
const R_INPUT: usize = 5;
/// Invocations of the reader and the writer.
const N: u32 = 256;
const ROUNDS: u64 = 10;

/// What [`check_isolation`] ran.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IsolationRun {
    /// Dispatches, poisoning included.
    pub dispatches: u64,
    /// Probes checked.
    pub probes: u64,
    /// Bytes poisoned first.
    pub poisoned: u64,
}

/// `out[i] = POISON` for `i < n`, with `src` and `rw` passed full of `POISON` too.
fn fill_program(n: u32) -> Program {
    Program::wrapped(
        vec![
            BufferDecl::read("src", 0, DataType::U32).with_count(n),
            BufferDecl::read_write("rw", 1, DataType::U32).with_count(n),
            BufferDecl::output("out", 2, DataType::U32).with_count(n),
        ],
        [64, 1, 1],
        vec![Node::if_then(
            Expr::lt(Expr::gid_x(), Expr::u32(n)),
            vec![Node::store("out", Expr::gid_x(), Expr::u32(POISON))],
        )],
    )
}

/// Fills buffers of every size class from 64 B to 4 MiB with [`POISON`] (17 dispatches); returns the
/// bytes poisoned. A backend with a buffer pool should then hold at least that many idle bytes.
///
/// # Panics
///
/// When a poisoning dispatch fails or returns other words.
pub fn poison(backend: &dyn VyreBackend) -> u64 {
    let mut total = 0;
    for k in 4..=20 {
        let n = 1u32 << k;
        let fill = bytes(&vec![POISON; n as usize]);
        let out = backend
            .dispatch(
                &fill_program(n),
                &[fill.clone(), fill],
                &DispatchConfig::default(),
            )
            .unwrap_or_else(|e| panic!("poisoning {n} words on {}: {e}", backend.id()));
        assert!(words(&out[0]).iter().all(|&w| w == POISON));
        total += 3 * u64::from(n) * 4;
    }
    total
}

/// Random words, never `POISON`.
fn clean_words(rng: &mut Rng, n: usize) -> Vec<u32> {
    (0..n)
        .map(|_| rng.next_u32())
        .map(|w| if w == POISON { 0 } else { w })
        .collect()
}

/// Index words for the reader: adversarial values first, then random ones.
fn read_indices(rng: &mut Rng) -> Vec<u32> {
    let adversarial = [
        u32::MAX,
        0x8000_0000,
        0x7fff_ffff,
        A_COUNT,
        A_COUNT - 1,
        1023,
        1024,
        A_INPUT as u32,
        A_INPUT as u32 - 1,
        R_INPUT as u32,
        63,
        64,
        255,
        256,
        1 << 20,
        0,
    ];
    let mut idx = clean_words(rng, N as usize);
    idx[..adversarial.len()].copy_from_slice(&adversarial);
    for w in idx.iter_mut().skip(adversarial.len()).step_by(3) {
        *w %= 2 * A_COUNT;
    }
    idx
}

/// The reader's loads, in the order it stores them: (buffer, index expression).
fn reader_loads() -> Vec<(&'static str, Expr)> {
    let g = Expr::gid_x;
    let data = || Expr::load("idx", g());
    vec![
        ("a", g()),
        ("a", Expr::add(g(), Expr::u32(A_COUNT - 128))),
        ("a", Expr::add(g(), Expr::u32(A_COUNT))),
        ("a", Expr::u32(u32::MAX)),
        ("a", Expr::i32(i32::MIN)),
        ("a", Expr::i32(-1)),
        ("a", data()),
        ("a", Expr::bitcast(DataType::I32, data())),
        ("a", Expr::add(Expr::mul(data(), Expr::u32(4)), g())),
        ("r", g()),
        ("r", data()),
        ("r", Expr::u32(u32::MAX)),
    ]
}

fn reader_program() -> Program {
    let loads = reader_loads();
    let k = loads.len() as u32;
    let body = loads
        .into_iter()
        .enumerate()
        .map(|(j, (buffer, index))| {
            let slot = Expr::add(Expr::mul(Expr::gid_x(), Expr::u32(k)), Expr::u32(j as u32));
            Node::store("out", slot, Expr::load(buffer, index))
        })
        .collect();
    Program::wrapped(
        vec![
            BufferDecl::read("a", 0, DataType::U32).with_count(A_COUNT),
            BufferDecl::read("r", 1, DataType::U32),
            BufferDecl::read("idx", 2, DataType::U32).with_count(N),
            BufferDecl::output("out", 3, DataType::U32).with_count(N * k),
        ],
        [64, 1, 1],
        body,
    )
}

/// What the reader must store, from `SEMANTICS.md` section 3.
fn reader_expected(a: &[u32], r: &[u32], idx: &[u32]) -> Vec<u32> {
    // `a` holds its input then zeros up to A_COUNT; past that, and for negative i32 indices, 0.
    let at = |buf: &[u32], len: u32, i: u32, signed: bool| -> u32 {
        if (signed && (i as i32) < 0) || i >= len {
            0
        } else {
            buf.get(i as usize).copied().unwrap_or(0)
        }
    };
    let mut out = Vec::new();
    for g in 0..N {
        let d = idx[g as usize];
        let rl = r.len() as u32;
        out.extend([
            at(a, A_COUNT, g, false),
            at(a, A_COUNT, g + A_COUNT - 128, false),
            at(a, A_COUNT, g + A_COUNT, false),
            0,
            0,
            0,
            at(a, A_COUNT, d, false),
            at(a, A_COUNT, d, true),
            at(a, A_COUNT, d.wrapping_mul(4).wrapping_add(g), false),
            at(r, rl, g, false),
            at(r, rl, d, false),
            0,
        ]);
    }
    out
}

/// Store indices for the writer: an invocation's own index `g` or an out-of-bounds one, so that no
/// two invocations ever store to the same in-bounds element (the result is race-free).
fn store_indices(rng: &mut Rng) -> Vec<u32> {
    let adversarial = [u32::MAX, 0x8000_0000, N, N + 1, 1023, 4095, 0xffff_fff0];
    (0..N)
        .map(|g| match rng.below(3) {
            0 => g,
            1 => adversarial[rng.below(adversarial.len() as u32) as usize],
            _ => N + rng.next_u32() % (u32::MAX - N),
        })
        .collect()
}

fn writer_program() -> Program {
    let g = Expr::gid_x;
    let s = || Expr::load("sidx", g());
    let out = |name: &str, binding| BufferDecl::output(name, binding, DataType::U32).with_count(N);
    let mut body = vec![
        Node::store("before", g(), Expr::bit_xor(g(), Expr::u32(0xa5a5_0000))),
        Node::store("after", g(), Expr::bit_xor(g(), Expr::u32(0x5a5a_0000))),
    ];
    for (index, value) in [
        (Expr::u32(u32::MAX), 1),
        (Expr::i32(i32::MIN), 2),
        (Expr::i32(-1), 3),
        (Expr::u32(N), 4),
        (Expr::add(g(), Expr::u32(N)), 5),
    ] {
        body.push(Node::store("target", index, Expr::u32(value)));
    }
    body.extend([
        Node::store("target", s(), Expr::add(g(), Expr::u32(6))),
        Node::let_bind("o1", Expr::atomic_add("target", s(), Expr::u32(1))),
        Node::let_bind(
            "o2",
            Expr::atomic_add("target", Expr::u32(u32::MAX), Expr::u32(1)),
        ),
        Node::let_bind(
            "o3",
            Expr::atomic_or("target", Expr::i32(i32::MIN), Expr::u32(1)),
        ),
        Node::store(
            "olds",
            g(),
            Expr::add(Expr::var("o1"), Expr::add(Expr::var("o2"), Expr::var("o3"))),
        ),
        Node::store("rw", s(), Expr::u32(7)),
        Node::store("rw", Expr::u32(u32::MAX), Expr::u32(8)),
        Node::store("rw_copy", g(), Expr::load("rw", g())),
    ]);
    Program::wrapped(
        vec![
            BufferDecl::read("sidx", 0, DataType::U32).with_count(N),
            out("before", 1),
            out("target", 2),
            out("after", 3),
            out("olds", 4),
            BufferDecl::read_write("rw", 5, DataType::U32).with_count(N),
            out("rw_copy", 6),
        ],
        [64, 1, 1],
        body,
    )
}

fn writer_expected(sidx: &[u32], rw: &[u32]) -> Vec<Vec<u32>> {
    let own = |g: u32| sidx[g as usize] == g;
    let each = |f: &dyn Fn(u32) -> u32| (0..N).map(f).collect::<Vec<u32>>();
    vec![
        each(&|g| g ^ 0xa5a5_0000),
        each(&|g| if own(g) { g + 7 } else { 0 }),
        each(&|g| g ^ 0x5a5a_0000),
        each(&|g| if own(g) { g + 6 } else { 0 }),
        each(&|g| if own(g) { 7 } else { rw[g as usize] }),
    ]
}

/// Outputs that the program never writes: `o1` but for its first word, and `o2`.
fn unwritten_program(n: u32) -> Program {
    Program::wrapped(
        vec![
            BufferDecl::output("o1", 0, DataType::U32).with_count(n),
            BufferDecl::output("o2", 1, DataType::U32).with_count(n + 1),
        ],
        [1, 1, 1],
        vec![Node::store("o1", Expr::u32(0), Expr::u32(1))],
    )
}

/// Checks that `outputs` hold no `POISON` word and equal `expected` and the reference's outputs.
fn check(what: &str, outputs: &[Vec<u8>], expected: &[Vec<u32>], oracle: &[Vec<u8>]) {
    for (i, out) in outputs.iter().enumerate() {
        let w = words(out);
        assert!(
            !w.contains(&POISON),
            "{what}: output {i} holds a word of an earlier dispatch at {:?}",
            w.iter().position(|&x| x == POISON)
        );
        assert!(
            w == expected[i],
            "{what}: output {i} differs from SEMANTICS.md"
        );
    }
    assert!(
        outputs == oracle,
        "{what}: differs from the reference backend"
    );
}

/// Poisons the pool, then runs every probe, checking each against `SEMANTICS.md`, the reference and
/// [`POISON`]; prints and returns the counts.
///
/// # Panics
///
/// When a probe fails to run, sees a poison word, or differs from the expected or reference bytes;
/// that is its purpose (a test assertion).
pub fn check_isolation(backend: &dyn VyreBackend) -> IsolationRun {
    let oracle = ReferenceBackend::new();
    let run = |p: &Program, inputs: &[Vec<u8>], config: &DispatchConfig| {
        let got = backend
            .dispatch(p, inputs, config)
            .unwrap_or_else(|e| panic!("probe on {}: {e}\n{p}", backend.id()));
        let want = oracle
            .dispatch(p, inputs, config)
            .unwrap_or_else(|e| panic!("probe on the reference: {e}\n{p}"));
        (got, want)
    };
    let (mut dispatches, mut probes) = (0, 0);
    let unwritten = |dispatches: &mut u64, probes: &mut u64| {
        for k in (4..=20).step_by(2) {
            let n = (1u32 << k) - 3;
            let config = DispatchConfig::default().with_grid([1, 1, 1]);
            let (got, want) = run(&unwritten_program(n), &[], &config);
            let mut o1 = vec![0; n as usize];
            o1[0] = 1;
            check(
                &format!("unwritten outputs of {n} words"),
                &got,
                &[o1, vec![0; n as usize + 1]],
                &want,
            );
            *dispatches += 1;
            *probes += 1;
        }
    };
    let poisoned = poison(backend);
    dispatches += 17;
    unwritten(&mut dispatches, &mut probes);
    let (reader, writer) = (reader_program(), writer_program());
    let grid = DispatchConfig::default().with_grid([N / 64, 1, 1]);
    for round in 0..ROUNDS {
        let mut rng = Rng::new(round + 77);
        let (a, r, idx) = (
            clean_words(&mut rng, A_INPUT),
            clean_words(&mut rng, R_INPUT),
            read_indices(&mut rng),
        );
        let inputs = [bytes(&a), bytes(&r), bytes(&idx)];
        let (got, want) = run(&reader, &inputs, &grid);
        check(
            &format!("reader round {round}"),
            &got,
            &[reader_expected(&a, &r, &idx)],
            &want,
        );
        let (sidx, rw) = (store_indices(&mut rng), clean_words(&mut rng, N as usize));
        let (got, want) = run(&writer, &[bytes(&sidx), bytes(&rw)], &grid);
        check(
            &format!("writer round {round}"),
            &got,
            &writer_expected(&sidx, &rw),
            &want,
        );
        dispatches += 2;
        probes += 2;
        if round == ROUNDS / 2 {
            poison(backend);
            dispatches += 17;
        }
    }
    unwritten(&mut dispatches, &mut probes);
    eprintln!(
        "isolation on {}: {dispatches} dispatches, {probes} probes after poisoning {poisoned} bytes, no poison seen, every probe equal to the reference and SEMANTICS.md",
        backend.id()
    );
    IsolationRun {
        dispatches,
        probes,
        poisoned,
    }
}
