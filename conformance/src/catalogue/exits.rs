//! Early loop exits (`break`, `continue`), `loop_while`, and a barrier after a uniform `break`.
//! Every expectation is computed here in plain Rust; the loops run at most a few hundred
//! iterations, far below lavapipe's 65 535 cap.

use vyre_driver::DispatchConfig;
use vyre_foundation::ir::{BufferDecl, DataType, Expr, Node, Program};

use crate::catalogue::build::words_to_bytes;
use crate::catalogue::{Area, Batch, Expectation};

/// Invocations per workgroup in this file's programs.
const WG: u32 = 64;

/// Every batch of this file: loops and control cases.
pub(super) fn batches() -> Vec<Batch> {
    vec![loop_exits(), uniform_break_barrier()]
}

fn var(name: &str) -> Expr {
    Expr::var(name)
}

fn bump(name: &str, value: Expr) -> Node {
    Node::assign(name, Expr::add(var(name), value))
}

/// The names of the loop-exit shapes, in output order.
const EXIT_NAMES: [&str; 11] = [
    "break_first_iteration",
    "break_last_iteration",
    "break_at",
    "break_in_nested_if",
    "continue_skips_rest",
    "continue_counter_advances",
    "inner_break_leaves_inner_loop",
    "while_never_runs",
    "while_data_dependent_trips",
    "continue_in_while",
    "break_in_while",
];

/// The Collatz step count of `c`, stopping at `limit` steps.
fn collatz_steps(mut c: i32, limit: i32) -> i32 {
    let mut steps = 0;
    while c != 1 && steps < limit {
        c = if c % 2 == 0 { c / 2 } else { 3 * c + 1 };
        steps += 1;
    }
    steps
}

/// The loop-exit shapes, as Rust, for inputs `a`, `b`, `c`: what each output must hold.
fn exit_oracle(a: i32, b: i32, c: i32) -> [i32; 11] {
    let mut out = [0i32; 11];
    if b > 0 {
        out[0] = 10;
    }
    for k in 0..b {
        out[1] += 1;
        if k == b - 1 {
            out[1] += 100;
            break;
        }
    }
    for k in 0..b {
        if k == a {
            break;
        }
        out[2] += k + 1;
    }
    for k in 0..b {
        if k >= 1 {
            out[3] += 5;
            if k == a {
                out[3] += 1000;
                break;
            }
        }
        out[3] += 1;
    }
    for k in a..b {
        if k % 2 == 0 {
            continue;
        }
        out[4] += k;
    }
    for k in 0..b {
        if k < a {
            continue;
        }
        out[5] += 100 + k;
    }
    for p in 0..a {
        for q in 0..b {
            if q == p {
                break;
            }
            out[6] += 1;
        }
        out[6] += 100;
    }
    out[7] = 7;
    out[8] = collatz_steps(c, 500);
    let mut i = 0;
    while i < b {
        i += 1;
        if i % 2 == 0 {
            continue;
        }
        out[9] += i;
    }
    let mut j = 0;
    while j < 10 {
        if j == a {
            break;
        }
        j += 1;
    }
    out[10] = j;
    out
}

/// `break` and `continue` in `loop_for` and `loop_while`, nested loops, and `loop_while` with no
/// iteration and with a per-invocation trip count (a Collatz step count read from an input).
fn loop_exits() -> Batch {
    let rows: Vec<(i32, i32, i32)> = (-1..=5)
        .flat_map(|a| (-1..=5).map(move |b| (a, b)))
        .enumerate()
        .map(|(r, (a, b))| (a, b, r as i32 + 1))
        .collect();
    let n = rows.len() as u32;
    let (a, b) = (|| var("a"), || var("b"));
    let put =
        |k: u32, name: &str| Node::store("out", Expr::add(Expr::u32(k * n), var("i")), var(name));
    let body = vec![
        Node::let_bind("a", Expr::load("a_in", var("i"))),
        Node::let_bind("b", Expr::load("b_in", var("i"))),
        Node::let_bind("c", Expr::load("c_in", var("i"))),
        Node::let_bind("s0", Expr::i32(0)),
        Node::loop_for(
            "k",
            Expr::i32(0),
            b(),
            vec![bump("s0", Expr::i32(10)), Node::break_()],
        ),
        put(0, "s0"),
        Node::let_bind("s1", Expr::i32(0)),
        Node::loop_for(
            "k",
            Expr::i32(0),
            b(),
            vec![
                bump("s1", Expr::i32(1)),
                Node::if_then(
                    Expr::eq(var("k"), Expr::sub(b(), Expr::i32(1))),
                    vec![bump("s1", Expr::i32(100)), Node::break_()],
                ),
            ],
        ),
        put(1, "s1"),
        Node::let_bind("s2", Expr::i32(0)),
        Node::loop_for(
            "k",
            Expr::i32(0),
            b(),
            vec![
                Node::if_then(Expr::eq(var("k"), a()), vec![Node::break_()]),
                bump("s2", Expr::add(var("k"), Expr::i32(1))),
            ],
        ),
        put(2, "s2"),
        Node::let_bind("s3", Expr::i32(0)),
        Node::loop_for(
            "k",
            Expr::i32(0),
            b(),
            vec![
                Node::if_then(
                    Expr::ge(var("k"), Expr::i32(1)),
                    vec![
                        bump("s3", Expr::i32(5)),
                        Node::if_then(
                            Expr::eq(var("k"), a()),
                            vec![bump("s3", Expr::i32(1000)), Node::break_()],
                        ),
                    ],
                ),
                bump("s3", Expr::i32(1)),
            ],
        ),
        put(3, "s3"),
        Node::let_bind("s4", Expr::i32(0)),
        Node::loop_for(
            "k",
            a(),
            b(),
            vec![
                Node::if_then(
                    Expr::eq(Expr::rem(var("k"), Expr::i32(2)), Expr::i32(0)),
                    vec![Node::continue_()],
                ),
                bump("s4", var("k")),
            ],
        ),
        put(4, "s4"),
        Node::let_bind("s5", Expr::i32(0)),
        Node::loop_for(
            "k",
            Expr::i32(0),
            b(),
            vec![
                Node::if_then(Expr::lt(var("k"), a()), vec![Node::continue_()]),
                bump("s5", Expr::add(Expr::i32(100), var("k"))),
            ],
        ),
        put(5, "s5"),
        Node::let_bind("s6", Expr::i32(0)),
        Node::loop_for(
            "p",
            Expr::i32(0),
            a(),
            vec![
                Node::loop_for(
                    "q",
                    Expr::i32(0),
                    b(),
                    vec![
                        Node::if_then(Expr::eq(var("q"), var("p")), vec![Node::break_()]),
                        bump("s6", Expr::i32(1)),
                    ],
                ),
                bump("s6", Expr::i32(100)),
            ],
        ),
        put(6, "s6"),
        Node::let_bind("s7", Expr::i32(7)),
        Node::let_bind("x7", a()),
        Node::loop_while(
            Expr::lt(var("x7"), a()),
            vec![bump("s7", Expr::i32(1)), bump("x7", Expr::i32(1))],
        ),
        Node::loop_while(Expr::bool(false), vec![bump("s7", Expr::i32(1000))]),
        put(7, "s7"),
        Node::let_bind("s8", Expr::i32(0)),
        Node::loop_while(
            Expr::and(
                Expr::ne(var("c"), Expr::i32(1)),
                Expr::lt(var("s8"), Expr::i32(500)),
            ),
            vec![
                Node::if_then_else(
                    Expr::eq(Expr::rem(var("c"), Expr::i32(2)), Expr::i32(0)),
                    vec![Node::assign("c", Expr::div(var("c"), Expr::i32(2)))],
                    vec![Node::assign(
                        "c",
                        Expr::add(Expr::mul(var("c"), Expr::i32(3)), Expr::i32(1)),
                    )],
                ),
                bump("s8", Expr::i32(1)),
            ],
        ),
        put(8, "s8"),
        Node::let_bind("s9", Expr::i32(0)),
        Node::let_bind("i9", Expr::i32(0)),
        Node::loop_while(
            Expr::lt(var("i9"), b()),
            vec![
                bump("i9", Expr::i32(1)),
                Node::if_then(
                    Expr::eq(Expr::rem(var("i9"), Expr::i32(2)), Expr::i32(0)),
                    vec![Node::continue_()],
                ),
                bump("s9", var("i9")),
            ],
        ),
        put(9, "s9"),
        Node::let_bind("s10", Expr::i32(0)),
        Node::loop_while(
            Expr::lt(var("s10"), Expr::i32(10)),
            vec![
                Node::if_then(Expr::eq(var("s10"), a()), vec![Node::break_()]),
                bump("s10", Expr::i32(1)),
            ],
        ),
        put(10, "s10"),
    ];
    let outs = EXIT_NAMES.len() as u32;
    let program = Program::wrapped(
        vec![
            BufferDecl::read("a_in", 0, DataType::I32).with_count(n),
            BufferDecl::read("b_in", 1, DataType::I32).with_count(n),
            BufferDecl::read("c_in", 2, DataType::I32).with_count(n),
            BufferDecl::output("out", 3, DataType::I32).with_count(n * outs),
        ],
        [WG, 1, 1],
        vec![
            Node::let_bind("i", Expr::gid_x()),
            Node::if_then(Expr::lt(var("i"), Expr::u32(n)), body),
        ],
    );
    let inputs = vec![
        words_to_bytes(rows.iter().map(|r| r.0 as u32)),
        words_to_bytes(rows.iter().map(|r| r.1 as u32)),
        words_to_bytes(rows.iter().map(|r| r.2 as u32)),
    ];
    let config = DispatchConfig::new().with_grid([n.div_ceil(WG), 1, 1]);
    let mut batch = Batch::manual(Area::Loops, "loops.exits", program, inputs, config);
    for (r, &(av, bv, cv)) in rows.iter().enumerate() {
        let expected = exit_oracle(av, bv, cv);
        for (k, name) in EXIT_NAMES.iter().enumerate() {
            let inputs = if k == 8 {
                format!("c = {cv}")
            } else {
                format!("a = {av}, b = {bv}")
            };
            batch = batch.expect_word(
                format!("{name}(a = {av}, b = {bv}, c = {cv})"),
                inputs,
                (0, k * rows.len() + r),
                DataType::I32,
                Expectation::exact(expected[k] as u32),
            );
        }
    }
    batch
}

/// Groups in the uniform-break dispatch.
const BREAK_GROUPS: u32 = 4;

/// A loop whose `break` depends only on the workgroup id, with barriers in the loop after the
/// `break` and after the loop: valid by the uniformity rules, and every barrier must be met by the
/// whole workgroup. Workgroup `w` runs `w + 2` iterations.
fn uniform_break_barrier() -> Batch {
    let l = || Expr::local_x();
    let next = || Expr::rem(Expr::add(l(), Expr::u32(1)), Expr::u32(WG));
    let body = vec![
        Node::let_bind("s", Expr::u32(0)),
        Node::loop_for(
            "k",
            Expr::u32(0),
            Expr::u32(16),
            vec![
                Node::if_then(
                    Expr::eq(var("k"), Expr::add(Expr::workgroup_x(), Expr::u32(2))),
                    vec![Node::break_()],
                ),
                Node::store(
                    "tile",
                    l(),
                    Expr::mul(var("k"), Expr::add(l(), Expr::u32(1))),
                ),
                Node::barrier(),
                bump("s", Expr::load("tile", next())),
                Node::barrier(),
            ],
        ),
        Node::barrier(),
        Node::store("tile", l(), var("s")),
        Node::barrier(),
        Node::store(
            "out",
            Expr::gid_x(),
            Expr::load("tile", Expr::sub(Expr::u32(WG - 1), l())),
        ),
    ];
    let program = Program::wrapped(
        vec![
            BufferDecl::output("out", 0, DataType::U32).with_count(WG * BREAK_GROUPS),
            BufferDecl::workgroup("tile", WG, DataType::U32),
        ],
        [WG, 1, 1],
        body,
    );
    let expected: Vec<u32> = (0..BREAK_GROUPS)
        .flat_map(|w| {
            (0..WG).map(move |l| {
                let src = WG - 1 - l;
                let trips = (w + 2).min(16);
                (0..trips).map(|k| k * ((src + 1) % WG + 1)).sum::<u32>()
            })
        })
        .collect();
    let config = DispatchConfig::new().with_grid([BREAK_GROUPS, 1, 1]);
    Batch::manual(
        Area::Control,
        "control.uniform_break_barrier",
        program,
        Vec::new(),
        config,
    )
    .expect_words(
        "uniform_break_then_barrier",
        "workgroup w breaks after w + 2 iterations",
        0,
        DataType::U32,
        &expected,
    )
}
