//! Control flow (`SEMANTICS.md` section 2): loops with per-invocation bounds, empty and signed
//! ranges, bounds fixed at loop entry, nested ifs, early return from ifs and loops.

use vyre_driver::VyreBackend;
use vyre_foundation::ir::{BufferDecl, DataType, Expr, Node, Program};

use crate::semantics::harness::{Report, bytes_i32, bytes_u32, run_words};

fn v(name: &str) -> Expr {
    Expr::var(name)
}

/// Loops: `sum(0..n)` with a different `n` per invocation, a nested loop, an empty range
/// (`from >= to`), an `i32` range across zero, and a bound that stays fixed when the variable it was
/// read from changes in the body.
pub fn loops(backend: &dyn VyreBackend) {
    let case = "loops";
    let g = Expr::gid_x();
    let n = Expr::load("n", g.clone());
    let program = Program::wrapped(
        vec![
            BufferDecl::read("n", 0, DataType::U32).with_count(16),
            BufferDecl::read("lo", 1, DataType::I32).with_count(16),
            BufferDecl::output("out", 2, DataType::U32).with_count(16 * 4),
        ],
        [16, 1, 1],
        vec![
            Node::let_bind("base", Expr::mul(g.clone(), Expr::u32(4))),
            Node::let_bind("sum", Expr::u32(0)),
            Node::loop_for(
                "i",
                Expr::u32(0),
                n.clone(),
                vec![Node::assign("sum", Expr::add(v("sum"), v("i")))],
            ),
            Node::store("out", v("base"), v("sum")),
            // Nested: count pairs j < i < n.
            Node::let_bind("pairs", Expr::u32(0)),
            Node::loop_for(
                "i2",
                Expr::u32(0),
                n.clone(),
                vec![Node::loop_for(
                    "j",
                    Expr::u32(0),
                    v("i2"),
                    vec![Node::assign("pairs", Expr::add(v("pairs"), Expr::u32(1)))],
                )],
            ),
            Node::store("out", Expr::add(v("base"), Expr::u32(1)), v("pairs")),
            // i32 range lo..lo+n, possibly across zero; an empty range when n == 0.
            Node::let_bind("lo_v", Expr::load("lo", g.clone())),
            Node::let_bind("isum", Expr::i32(0)),
            Node::loop_for(
                "k",
                v("lo_v"),
                Expr::add(v("lo_v"), Expr::bitcast(DataType::I32, n.clone())),
                vec![Node::assign("isum", Expr::add(v("isum"), v("k")))],
            ),
            Node::store(
                "out",
                Expr::add(v("base"), Expr::u32(2)),
                Expr::bitcast(DataType::U32, v("isum")),
            ),
            // The bound is read once: shrinking `limit` in the body does not stop the loop early.
            Node::let_bind("limit", n),
            Node::let_bind("trips", Expr::u32(0)),
            Node::loop_for(
                "t",
                Expr::u32(0),
                v("limit"),
                vec![
                    Node::assign("limit", Expr::u32(0)),
                    Node::assign("trips", Expr::add(v("trips"), Expr::u32(1))),
                ],
            ),
            Node::store("out", Expr::add(v("base"), Expr::u32(3)), v("trips")),
        ],
    );
    let ns: Vec<u32> = (0..16).map(|i| (i * 7) % 13).collect();
    let los: Vec<i32> = (0..16).map(|i| i - 9).collect();
    let out = &run_words(backend, case, &program, &[bytes_u32(&ns), bytes_i32(&los)])[0];
    let mut report = Report::new(case);
    for lane in 0..16 {
        let n = ns[lane];
        let lo = los[lane];
        let isum: i32 = (lo..lo + n as i32).sum();
        let expected = [
            n * n.saturating_sub(1) / 2,
            n * n.saturating_sub(1) / 2,
            isum as u32,
            n,
        ];
        let names = [
            "sum(0..n)",
            "pairs j < i < n",
            "sum(lo..lo+n) i32",
            "trips with bound fixed at entry",
        ];
        for k in 0..4 {
            report.eq(
                || format!("lane {lane}: {} for n = {n}, lo = {lo}", names[k]),
                expected[k],
                out[lane * 4 + k],
            );
        }
    }
    report.finish();
}

/// Nested `if`/`else` classifying values; variables assigned in only some branches keep their value
/// in the others.
pub fn nested_ifs(backend: &dyn VyreBackend) {
    let case = "nested_ifs";
    let x = v("x");
    let program = Program::wrapped(
        vec![
            BufferDecl::read("values", 0, DataType::I32).with_count(32),
            BufferDecl::output("out", 1, DataType::U32).with_count(32),
        ],
        [32, 1, 1],
        vec![
            Node::let_bind("x", Expr::load("values", Expr::gid_x())),
            Node::let_bind("class", Expr::u32(99)),
            Node::if_then_else(
                Expr::lt(x.clone(), Expr::i32(0)),
                vec![Node::if_then_else(
                    Expr::lt(x.clone(), Expr::i32(-100)),
                    vec![Node::assign("class", Expr::u32(0))],
                    vec![Node::assign("class", Expr::u32(1))],
                )],
                vec![Node::if_then(
                    Expr::gt(x.clone(), Expr::i32(0)),
                    vec![Node::if_then_else(
                        Expr::eq(Expr::rem(x.clone(), Expr::i32(2)), Expr::i32(0)),
                        vec![Node::assign("class", Expr::u32(2))],
                        vec![Node::if_then(
                            Expr::gt(x, Expr::i32(1000)),
                            vec![Node::assign("class", Expr::u32(3))],
                        )],
                    )],
                )],
            ),
            Node::store("out", Expr::gid_x(), v("class")),
        ],
    );
    let values: Vec<i32> = (0..32)
        .map(|i: i32| (i - 16) * (i * 37 % 11 + 1) * if i % 5 == 0 { 211 } else { 1 })
        .collect();
    let out = &run_words(backend, case, &program, &[bytes_i32(&values)])[0];
    let mut report = Report::new(case);
    for (lane, &x) in values.iter().enumerate() {
        let expected = match x {
            x if x < -100 => 0,
            x if x < 0 => 1,
            0 => 99,
            x if x % 2 == 0 => 2,
            x if x > 1000 => 3,
            _ => 99,
        };
        report.eq(|| format!("class of {x}"), expected, out[lane]);
    }
    report.finish();
}

/// `return` ends an invocation: from an `if` (stores after it do not happen) and from inside a
/// loop (the rest of the loop and the code after it are skipped), while other invocations go on.
pub fn early_return(backend: &dyn VyreBackend) {
    let case = "early_return";
    let g = Expr::gid_x();
    let program = Program::wrapped(
        vec![
            BufferDecl::output("first", 0, DataType::U32).with_count(24),
            BufferDecl::output("second", 1, DataType::U32).with_count(24),
        ],
        [8, 1, 1],
        vec![
            Node::if_then(
                Expr::eq(Expr::rem(g.clone(), Expr::u32(3)), Expr::u32(0)),
                vec![
                    Node::store("first", g.clone(), Expr::u32(1)),
                    Node::return_(),
                    Node::store("first", g.clone(), Expr::u32(7)),
                ],
            ),
            Node::store("first", g.clone(), Expr::u32(2)),
            Node::let_bind("count", Expr::u32(0)),
            Node::loop_for(
                "i",
                Expr::u32(0),
                Expr::u32(10),
                vec![
                    Node::if_then(
                        Expr::eq(v("i"), Expr::rem(g.clone(), Expr::u32(5))),
                        vec![
                            Node::store("second", g.clone(), Expr::add(v("count"), Expr::u32(100))),
                            Node::return_(),
                        ],
                    ),
                    Node::assign("count", Expr::add(v("count"), Expr::u32(1))),
                ],
            ),
            Node::store("second", g, Expr::u32(55)),
        ],
    );
    let out = run_words(backend, case, &program, &[]);
    let mut report = Report::new(case);
    for lane in 0..24u32 {
        let first = if lane % 3 == 0 { 1 } else { 2 };
        let second = if lane % 3 == 0 { 0 } else { lane % 5 + 100 };
        report.eq(|| format!("first[{lane}]"), first, out[0][lane as usize]);
        report.eq(
            || format!("second[{lane}] (return inside a loop at i = {})", lane % 5),
            second,
            out[1][lane as usize],
        );
    }
    report.finish();
}
