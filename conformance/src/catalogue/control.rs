//! Control flow (`if`, nested scopes, `return`) and counted loops, one row of inputs per invocation.

use vyre_driver::DispatchConfig;
use vyre_foundation::ir::{BufferDecl, DataType, Expr, Node, Program};

use crate::catalogue::build::words_to_bytes;
use crate::catalogue::values::I32_EDGES;
use crate::catalogue::{Area, Batch};

/// Every batch of the control and loops areas.
pub(super) fn batches() -> Vec<Batch> {
    vec![branches(), loops()]
}

fn var(name: &str) -> Expr {
    Expr::var(name)
}

/// `out{k}[i] = value`.
fn put(k: usize, value: Expr) -> Node {
    Node::store(format!("out{k}"), var("i"), value)
}

/// Buffers `x: read i32[n]` (or more inputs) followed by `outs` i32 outputs of `n` words.
fn buffers(inputs: &[&str], outs: usize, n: u32) -> Vec<BufferDecl> {
    let mut decls: Vec<BufferDecl> = inputs
        .iter()
        .enumerate()
        .map(|(b, name)| BufferDecl::read(*name, b as u32, DataType::I32).with_count(n))
        .collect();
    for k in 0..outs {
        let binding = (inputs.len() + k) as u32;
        decls.push(BufferDecl::output(format!("out{k}"), binding, DataType::I32).with_count(n));
    }
    decls
}

fn guarded(n: u32, body: Vec<Node>) -> Vec<Node> {
    vec![
        Node::let_bind("i", Expr::gid_x()),
        Node::if_then(Expr::lt(var("i"), Expr::u32(n)), body),
    ]
}

/// The branch shapes, as Rust, for one input `x`: what outputs 0..4 must hold.
fn branch_oracle(x: i32) -> [i32; 5] {
    let sign = if x < 0 {
        1
    } else if x == 0 {
        2
    } else {
        3
    };
    let mut v = x;
    {
        let w = v.wrapping_mul(2);
        v = w.wrapping_add(1);
    }
    let nested = if x > 5 {
        if x > 50 { 40 } else { 30 }
    } else if x < -5 {
        20
    } else {
        10
    };
    let chosen = if x % 2 == 0 {
        x.wrapping_add(100)
    } else {
        x.wrapping_sub(100)
    };
    let returned = if x > 100 { 7 } else { 9 };
    [sign, v, nested, chosen, returned]
}

fn branches() -> Batch {
    let mut xs: Vec<i32> = I32_EDGES.iter().copied().chain(-20..=20).collect();
    let mut seen = std::collections::HashSet::new();
    xs.retain(|x| seen.insert(*x));
    let n = xs.len() as u32;
    let x = || var("x");
    let body = vec![
        Node::let_bind("x", Expr::load("x_in", var("i"))),
        Node::if_then_else(
            Expr::lt(x(), Expr::i32(0)),
            vec![put(0, Expr::i32(1))],
            vec![Node::if_then_else(
                Expr::eq(x(), Expr::i32(0)),
                vec![put(0, Expr::i32(2))],
                vec![put(0, Expr::i32(3))],
            )],
        ),
        Node::let_bind("v", x()),
        Node::block(vec![
            Node::let_bind("w", Expr::mul(var("v"), Expr::i32(2))),
            Node::assign("v", Expr::add(var("w"), Expr::i32(1))),
        ]),
        put(1, var("v")),
        Node::let_bind("r", Expr::i32(10)),
        Node::if_then_else(
            Expr::gt(x(), Expr::i32(5)),
            vec![
                Node::assign("r", Expr::i32(30)),
                Node::if_then(
                    Expr::gt(x(), Expr::i32(50)),
                    vec![Node::assign("r", Expr::i32(40))],
                ),
            ],
            vec![Node::if_then(
                Expr::lt(x(), Expr::i32(-5)),
                vec![Node::assign("r", Expr::i32(20))],
            )],
        ),
        put(2, var("r")),
        put(
            3,
            Expr::select(
                Expr::eq(Expr::rem(x(), Expr::i32(2)), Expr::i32(0)),
                Expr::add(x(), Expr::i32(100)),
                Expr::sub(x(), Expr::i32(100)),
            ),
        ),
        // An early return must skip the rest of the invocation, and only that invocation.
        Node::if_then(
            Expr::gt(x(), Expr::i32(100)),
            vec![put(4, Expr::i32(7)), Node::return_()],
        ),
        put(4, Expr::i32(9)),
    ];
    let program = Program::wrapped(buffers(&["x_in"], 5, n), [64, 1, 1], guarded(n, body));
    let inputs = vec![words_to_bytes(xs.iter().map(|&v| v as u32))];
    let names = [
        "if_else_chain",
        "nested_scope",
        "nested_if",
        "select",
        "early_return",
    ];
    let mut batch = Batch::manual(
        Area::Control,
        "control.branches",
        program,
        inputs,
        DispatchConfig::new(),
    );
    for (r, &xv) in xs.iter().enumerate() {
        let expected = branch_oracle(xv);
        for (k, name) in names.iter().enumerate() {
            batch = batch.expect_word(
                format!("{name}(x = {xv})"),
                format!("x = {xv}"),
                (k, r),
                DataType::I32,
                crate::catalogue::Expectation::exact(expected[k] as u32),
            );
        }
    }
    batch
}

/// The loop shapes, as Rust, for bounds `a`, `b`: what outputs 0..5 must hold.
fn loop_oracle(a: i32, b: i32) -> [i32; 6] {
    let sum: i32 = (a..b).sum();
    let count_u = (0..(b.max(0) as u32)).count() as i32;
    let nested: i32 = (0..a.max(0))
        .flat_map(|p| (0..b.max(0)).map(move |q| p * q + 1))
        .sum();
    let evens = (a..b).filter(|k| k % 2 == 0).count() as i32;
    let fixed_trip = (a..b).count() as i32;
    let found = (0..10).find(|&k| k == a).map_or(-1, |k| k * 3);
    [sum, count_u, nested, evens, fixed_trip, found]
}

fn loops() -> Batch {
    let rows: Vec<(i32, i32)> = (-3..=5)
        .flat_map(|a| (-3..=5).map(move |b| (a, b)))
        .collect();
    let n = rows.len() as u32;
    let (a, b) = (|| var("a"), || var("b"));
    let add_to = |acc: &str, value: Expr| Node::assign(acc, Expr::add(var(acc), value));
    let body = vec![
        Node::let_bind("a", Expr::load("a_in", var("i"))),
        Node::let_bind("b", Expr::load("b_in", var("i"))),
        Node::let_bind("s0", Expr::i32(0)),
        Node::loop_for("k", a(), b(), vec![add_to("s0", var("k"))]),
        put(0, var("s0")),
        Node::let_bind("s1", Expr::i32(0)),
        Node::loop_for(
            "u",
            Expr::u32(0),
            Expr::cast(DataType::U32, Expr::max(b(), Expr::i32(0))),
            vec![add_to("s1", Expr::i32(1))],
        ),
        put(1, var("s1")),
        Node::let_bind("s2", Expr::i32(0)),
        Node::loop_for(
            "p",
            Expr::i32(0),
            a(),
            vec![Node::loop_for(
                "q",
                Expr::i32(0),
                b(),
                vec![add_to(
                    "s2",
                    Expr::add(Expr::mul(var("p"), var("q")), Expr::i32(1)),
                )],
            )],
        ),
        put(2, var("s2")),
        Node::let_bind("s3", Expr::i32(0)),
        Node::loop_for(
            "e",
            a(),
            b(),
            vec![Node::if_then(
                Expr::eq(Expr::rem(var("e"), Expr::i32(2)), Expr::i32(0)),
                vec![add_to("s3", Expr::i32(1))],
            )],
        ),
        put(3, var("s3")),
        // `to` is evaluated once: growing the bound inside the body must not add iterations.
        Node::let_bind("t", b()),
        Node::let_bind("s4", Expr::i32(0)),
        Node::loop_for(
            "f",
            a(),
            var("t"),
            vec![add_to("t", Expr::i32(1)), add_to("s4", Expr::i32(1))],
        ),
        put(4, var("s4")),
        put(5, Expr::i32(-1)),
        Node::loop_for(
            "g",
            Expr::i32(0),
            Expr::i32(10),
            vec![Node::if_then(
                Expr::eq(var("g"), a()),
                vec![put(5, Expr::mul(var("g"), Expr::i32(3))), Node::return_()],
            )],
        ),
    ];
    let program = Program::wrapped(
        buffers(&["a_in", "b_in"], 6, n),
        [64, 1, 1],
        guarded(n, body),
    );
    let inputs = vec![
        words_to_bytes(rows.iter().map(|r| r.0 as u32)),
        words_to_bytes(rows.iter().map(|r| r.1 as u32)),
    ];
    let names = [
        "sum_range",
        "count_u32",
        "nested",
        "if_in_loop",
        "bound_fixed_at_start",
        "return_in_loop",
    ];
    let mut batch = Batch::manual(Area::Loops, "loops", program, inputs, DispatchConfig::new());
    for (r, &(av, bv)) in rows.iter().enumerate() {
        let expected = loop_oracle(av, bv);
        for (k, name) in names.iter().enumerate() {
            batch = batch.expect_word(
                format!("{name}(a = {av}, b = {bv})"),
                format!("a = {av}, b = {bv}"),
                (k, r),
                DataType::I32,
                crate::catalogue::Expectation::exact(expected[k] as u32),
            );
        }
    }
    batch
}
