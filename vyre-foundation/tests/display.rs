//! The text form of programs, pinned by snapshots in `tests/snapshots/*.txt`.
//!
//! Run with `VYRE_BLESS=1` to rewrite the snapshots after an intended change, then review the diff.

mod common;

use std::path::PathBuf;

use common::{add_one_program, with_body};
use vyre_foundation::ir::{AtomicOp, BufferDecl, DataType, Expr, Node, Program};

fn check_snapshot(name: &str, program: &Program) {
    vyre_foundation::validate(program)
        .unwrap_or_else(|e| panic!("snapshot `{name}` is invalid: {e}"));
    let text = format!("{program}\n");
    // `VYRE_REPO` names the repository's root for a test binary carried away from its checkout.
    let crate_dir = std::env::var_os("VYRE_REPO").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")),
        |root| PathBuf::from(root).join("vyre-foundation"),
    );
    let path = crate_dir
        .join("tests/snapshots")
        .join(format!("{name}.txt"));
    if std::env::var_os("VYRE_BLESS").is_some() {
        std::fs::write(&path, &text).expect("write snapshot");
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "missing snapshot {}: {e}; run with VYRE_BLESS=1",
            path.display()
        )
    });
    assert_eq!(
        text, expected,
        "text form of `{name}` changed; run with VYRE_BLESS=1 if intended"
    );
}

#[test]
fn seed_program_text() {
    check_snapshot("add_one", &add_one_program(1));
}

#[test]
fn workgroup_reduction_text() {
    let body = vec![
        Node::store("wg", Expr::local_x(), Expr::load("a", Expr::gid_x())),
        Node::barrier(),
        Node::loop_for(
            "step",
            Expr::u32(0),
            Expr::u32(6),
            vec![
                Node::let_bind("half", Expr::shr(Expr::u32(32), Expr::var("step"))),
                Node::if_then(
                    Expr::lt(Expr::local_x(), Expr::var("half")),
                    vec![Node::store(
                        "wg",
                        Expr::local_x(),
                        Expr::add(
                            Expr::load("wg", Expr::local_x()),
                            Expr::load("wg", Expr::add(Expr::local_x(), Expr::var("half"))),
                        ),
                    )],
                ),
                Node::barrier(),
            ],
        ),
        Node::if_then_else(
            Expr::eq(Expr::local_x(), Expr::u32(0)),
            vec![Node::store(
                "o",
                Expr::workgroup_x(),
                Expr::load("wg", Expr::u32(0)),
            )],
            vec![Node::return_()],
        ),
    ];
    check_snapshot("reduction", &with_body(body));
}

#[test]
fn every_expression_form_text() {
    let body = vec![
        Node::let_bind(
            "f",
            Expr::fma(Expr::f32(1.5), Expr::f32(-0.0), Expr::f32(f32::INFINITY)),
        ),
        Node::let_bind("i", Expr::cast(DataType::I32, Expr::floor(Expr::var("f")))),
        Node::let_bind(
            "b",
            Expr::and(
                Expr::not(Expr::bool(false)),
                Expr::ne(Expr::var("i"), Expr::i32(-7)),
            ),
        ),
        Node::let_bind(
            "m",
            Expr::max(Expr::abs(Expr::neg(Expr::var("i"))), Expr::i32(i32::MIN)),
        ),
        Node::let_bind(
            "c",
            Expr::select(
                Expr::var("b"),
                Expr::clz(Expr::buf_len("a")),
                Expr::num_workgroups_z(),
            ),
        ),
        Node::let_bind(
            "old",
            Expr::atomic(AtomicOp::Xor, "rw", Expr::u32(3), Expr::var("m")),
        ),
        Node::let_bind(
            "was",
            Expr::atomic_compare_exchange(
                "rw",
                Expr::i32(-1),
                Expr::var("old"),
                Expr::bit_not(Expr::i32(0)),
            ),
        ),
        Node::block(vec![Node::assign(
            "c",
            Expr::bitcast(DataType::U32, Expr::var("was")),
        )]),
        Node::store("o", Expr::local_y(), Expr::var("c")),
    ];
    check_snapshot("expressions", &with_body(body));
}

#[test]
fn runtime_sized_and_uniform_buffers_text() {
    let program = Program::wrapped(
        vec![
            BufferDecl::read("data", 0, DataType::F32),
            BufferDecl::uniform("params", 1, DataType::U32).with_count(4),
            BufferDecl::output("flags", 2, DataType::Bool)
                .with_count(8)
                .with_output_byte_range(4..12),
        ],
        [8, 8, 1],
        vec![Node::store(
            "flags",
            Expr::gid_y(),
            Expr::lt(
                Expr::load("data", Expr::gid_x()),
                Expr::cast(DataType::F32, Expr::load("params", Expr::u32(0))),
            ),
        )],
    );
    check_snapshot("buffers", &program);
}

/// A program nested far past the validator's limits (built by the API, which does not limit
/// depth) prints without overflowing the stack, with the levels past the limits elided as `…`: the
/// text a user attaches to a report about the program `validate` rejected. Before, 100 000 levels
/// overflowed the stack, and 5000 nested blocks printed 50 MB of indentation.
#[test]
fn nesting_past_the_validators_limits_prints_elided_not_overflowed() {
    use vyre_foundation::validate::{MAX_EXPR_DEPTH, MAX_NODE_DEPTH};
    let mut e = Expr::u32(1);
    for _ in 0..100_000 {
        e = Expr::add(Expr::bit_not(e), Expr::u32(2));
    }
    let mut body = vec![Node::let_bind("x", e)];
    for _ in 0..100_000 {
        body = vec![Node::block(body)];
    }
    let program = Program::new(vec![], [1, 1, 1], body);
    let text = program.to_string();
    assert!(text.contains('\u{2026}'), "the elision mark");
    // Every printed level is within the limits (plus the one past them that shows where).
    let longest = text.lines().map(str::len).max().unwrap_or(0);
    assert!(
        longest < 16 * (MAX_NODE_DEPTH + MAX_EXPR_DEPTH),
        "{longest}"
    );
    assert!(text.len() < 1 << 20, "{} bytes", text.len());
    assert!(
        text.parse::<Program>().is_err(),
        "the elided text does not read back"
    );
    assert!(vyre_foundation::validate(&program).is_err());
    // Dropping the program is iterative (ir/drop.rs), so the test ends cleanly.
}
