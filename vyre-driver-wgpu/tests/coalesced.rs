//! Coalesced dispatch in both of its forms, each item checked against its own reference dispatch:
//! packed (equal items whose program only stores at `gid.x`) and one virtual grid per item.

mod common;

use common::{bytes, words};
use vyre_driver::{DispatchConfig, VyreBackend};
use vyre_driver_wgpu::WgpuBackend;
use vyre_driver_wgpu::testing::backend_or_skip;
use vyre_foundation::ir::{BufferDecl, DataType, Expr, Node, Program};

/// Runs `items` coalesced and checks every item against the reference; returns how many of the
/// launches ran packed.
fn check(
    backend: &WgpuBackend,
    program: &Program,
    items: &[Vec<Vec<u8>>],
    config: &DispatchConfig,
) -> u64 {
    let reference = vyre_conformance::ReferenceBackend::new();
    let before = backend.stats();
    let pipeline = backend
        .compile_persistent(program, config)
        .expect("compile");
    let got = pipeline
        .dispatch_coalesced(items, config)
        .expect("coalesced");
    let after = backend.stats();
    assert_eq!(got.len(), items.len());
    for (k, (inputs, outputs)) in items.iter().zip(&got).enumerate() {
        let expected = reference
            .dispatch(program, inputs, config)
            .expect("reference");
        assert_eq!(outputs, &expected, "item {k} of {}", items.len());
    }
    after.packed_launches - before.packed_launches
}

fn ramp(n: u32, salt: u32) -> Vec<u8> {
    bytes(
        &(0..n)
            .map(|i| i.wrapping_mul(2_654_435_761) ^ salt)
            .collect::<Vec<_>>(),
    )
}

#[test]
fn packed_items_read_only_their_own_slices() {
    let Some(backend) = backend_or_skip("packed_items_read_only_their_own_slices") else {
        return;
    };
    // Each invocation reads its neighbour (wrapping within the item) and a word past the item's end,
    // which must read 0 and never the next item's first word.
    let program = |count: u32| {
        Program::wrapped(
            vec![
                BufferDecl::read("input", 0, DataType::U32),
                BufferDecl::output("out", 1, DataType::U32).with_count(count),
            ],
            [64, 1, 1],
            vec![
                Node::let_bind("i", Expr::gid_x()),
                Node::let_bind("n", Expr::buf_len("input")),
                Node::store(
                    "out",
                    Expr::var("i"),
                    Expr::add(
                        Expr::mul(
                            Expr::load(
                                "input",
                                Expr::rem(Expr::add(Expr::var("i"), Expr::u32(1)), Expr::var("n")),
                            ),
                            Expr::u32(3),
                        ),
                        Expr::load("input", Expr::add(Expr::var("i"), Expr::var("n"))),
                    ),
                ),
            ],
        )
    };
    for (count, n) in [(1u32, 3000usize), (37, 200), (64, 50), (129, 20)] {
        let items: Vec<Vec<Vec<u8>>> = (0..n as u32).map(|k| vec![ramp(count, k)]).collect();
        let packed = check(
            &backend,
            &program(count),
            &items,
            &DispatchConfig::default(),
        );
        assert_eq!(
            packed, 1,
            "{n} items of {count} words run packed in one launch"
        );
    }
}

#[test]
fn packed_items_see_their_own_virtual_grid() {
    let Some(backend) = backend_or_skip("packed_items_see_their_own_virtual_grid") else {
        return;
    };
    // Two outputs of different lengths, an explicit grid larger than the data, and every builtin.
    let program = Program::wrapped(
        vec![
            BufferDecl::read("input", 0, DataType::U32).with_count(8),
            BufferDecl::output("short", 1, DataType::U32).with_count(3),
            BufferDecl::output("long", 2, DataType::U32).with_count(70),
        ],
        [32, 1, 1],
        vec![
            Node::let_bind(
                "ids",
                Expr::add(
                    Expr::mul(Expr::workgroup_x(), Expr::u32(1000)),
                    Expr::add(
                        Expr::local_x(),
                        Expr::mul(Expr::num_workgroups_x(), Expr::u32(100_000)),
                    ),
                ),
            ),
            Node::store(
                "short",
                Expr::gid_x(),
                Expr::add(Expr::var("ids"), Expr::load("input", Expr::gid_x())),
            ),
            Node::if_then(
                Expr::ne(Expr::local_y(), Expr::u32(0)),
                vec![Node::return_()],
            ),
            Node::store(
                "long",
                Expr::gid_x(),
                Expr::add(Expr::var("ids"), Expr::gid_y()),
            ),
        ],
    );
    // Inputs shorter than the declared count are zero-padded within each item.
    let items: Vec<Vec<Vec<u8>>> = (0..500u32).map(|k| vec![ramp(5, k)]).collect();
    let config = DispatchConfig::default().with_grid([4, 1, 1]);
    assert_eq!(check(&backend, &program, &items, &config), 1);
}

#[test]
fn items_that_cannot_run_packed_still_match_the_reference() {
    let Some(backend) = backend_or_skip("items_that_cannot_run_packed_still_match_the_reference")
    else {
        return;
    };
    let elementwise = Program::wrapped(
        vec![
            BufferDecl::read("input", 0, DataType::U32),
            BufferDecl::output("out", 1, DataType::U32).with_count(40),
        ],
        [16, 1, 1],
        vec![Node::store(
            "out",
            Expr::gid_x(),
            Expr::bit_xor(Expr::load("input", Expr::gid_x()), Expr::u32(0xff)),
        )],
    );
    // Items of different lengths take the per-item form.
    let uneven: Vec<Vec<Vec<u8>>> = (0..300u32).map(|k| vec![ramp(1 + k % 40, k)]).collect();
    assert_eq!(
        check(&backend, &elementwise, &uneven, &DispatchConfig::default()),
        0
    );

    // A store at another index than gid.x, and a reversed store, take the per-item form too.
    let reversed = Program::wrapped(
        vec![
            BufferDecl::read("input", 0, DataType::U32),
            BufferDecl::output("out", 1, DataType::U32).with_count(21),
        ],
        [16, 1, 1],
        vec![Node::store(
            "out",
            Expr::sub(Expr::sub(Expr::buf_len("out"), Expr::u32(1)), Expr::gid_x()),
            Expr::load("input", Expr::gid_x()),
        )],
    );
    let even: Vec<Vec<Vec<u8>>> = (0..300u32).map(|k| vec![ramp(21, k)]).collect();
    assert_eq!(
        check(&backend, &reversed, &even, &DispatchConfig::default()),
        0
    );

    // A two-dimensional grid is not packed.
    let config = DispatchConfig::default().with_grid([2, 3, 1]);
    assert_eq!(check(&backend, &elementwise, &even, &config), 0);
}

#[test]
fn packed_results_survive_many_items() {
    let Some(backend) = backend_or_skip("packed_results_survive_many_items") else {
        return;
    };
    // 70 000 one-word items: more workgroups than one grid dimension holds on most devices once
    // they are not packed, one launch packed.
    let program = common::add_one_program(1);
    let items: Vec<Vec<Vec<u8>>> = (0..70_000u32).map(|k| vec![bytes(&[k])]).collect();
    let pipeline = backend
        .compile_persistent(&program, &DispatchConfig::default())
        .expect("compile");
    let before = backend.stats();
    let got = pipeline
        .dispatch_coalesced(&items, &DispatchConfig::default())
        .expect("coalesced");
    let after = backend.stats();
    assert_eq!(after.dispatch_calls - before.dispatch_calls, 1);
    assert_eq!(after.packed_launches - before.packed_launches, 1);
    for (k, outputs) in got.iter().enumerate() {
        assert_eq!(words(&outputs[0]), [k as u32 + 1], "item {k}");
    }
}

#[test]
fn coalesced_items_get_their_own_output_byte_ranges_in_both_forms() {
    let Some(backend) = backend_or_skip("coalesced_items_get_their_own_output_byte_ranges") else {
        return;
    };
    // Unaligned ranges inside each item's slice; a 1-D grid runs packed, a 2-D one per item.
    let program = Program::wrapped(
        vec![
            BufferDecl::read("input", 0, DataType::U32),
            BufferDecl::output("head", 1, DataType::U32)
                .with_count(16)
                .with_output_byte_range(1..11),
            BufferDecl::output("tail", 2, DataType::U32)
                .with_count(9)
                .with_output_byte_range(30..36),
        ],
        [8, 1, 1],
        vec![
            Node::let_bind("i", Expr::gid_x()),
            Node::store(
                "head",
                Expr::var("i"),
                Expr::add(Expr::load("input", Expr::var("i")), Expr::u32(7)),
            ),
            Node::store(
                "tail",
                Expr::var("i"),
                Expr::mul(Expr::load("input", Expr::var("i")), Expr::u32(3)),
            ),
        ],
    );
    let items: Vec<Vec<Vec<u8>>> = (0..40u32).map(|k| vec![ramp(16, k)]).collect();
    let packed = check(&backend, &program, &items, &DispatchConfig::default());
    assert_eq!(packed, 1, "a 1-D grid runs packed");
    let per_item = DispatchConfig::default().with_grid([2, 2, 1]);
    assert_eq!(check(&backend, &program, &items, &per_item), 0);
}

/// One-word items of a program that stores only at `gid.x`: it runs packed.
fn add_one_word() -> Program {
    add_words(1)
}

/// Items of `n` words of a program that stores only at `gid.x`.
fn add_words(n: u32) -> Program {
    Program::new(
        vec![
            BufferDecl::read("input", 0, DataType::U32).with_count(n),
            BufferDecl::output("out", 1, DataType::U32).with_count(n),
        ],
        [64, 1, 1],
        vec![Node::store(
            "out",
            Expr::gid_x(),
            Expr::add(Expr::load("input", Expr::gid_x()), Expr::u32(1)),
        )],
    )
}

#[test]
fn compile_persistent_compiles_the_form_the_coalesced_run_launches_and_nothing_else() {
    let Some(backend) =
        backend_or_skip("compile_persistent_compiles_the_form_the_coalesced_run_launches")
    else {
        return;
    };
    let reference = vyre_conformance::ReferenceBackend::new();
    // A grid that does not cover the declared 100 words runs fewer invocations per item than the
    // packed module fixes: coalesced, and compiled so up front.
    let hundred = add_words(100);
    for (program, config, packed) in [
        (add_one_word(), DispatchConfig::default(), 1),
        (
            add_one_word(),
            DispatchConfig::default().with_grid([1, 2, 1]),
            0,
        ),
        (hundred.clone(), DispatchConfig::default(), 1),
        (
            hundred.clone(),
            DispatchConfig::default().with_grid([2, 1, 1]),
            1,
        ),
        (hundred, DispatchConfig::default().with_grid([1, 1, 1]), 0),
    ] {
        let words = program.buffers[0].count;
        let items: Vec<Vec<Vec<u8>>> = (0..8u32).map(|k| vec![ramp(words, k)]).collect();
        let pipeline = backend
            .compile_persistent(&program, &config)
            .expect("compile");
        let before = backend.stats();
        let got = pipeline
            .dispatch_coalesced(&items, &config)
            .expect("coalesced");
        let after = backend.stats();
        assert_eq!(got.len(), items.len());
        assert_eq!(
            after.pipelines_created, before.pipelines_created,
            "{config:?}"
        );
        assert_eq!(
            after.packed_launches - before.packed_launches,
            packed,
            "{config:?}"
        );
        for (inputs, outputs) in items.iter().zip(&got) {
            let expected = reference
                .dispatch(&program, inputs, &config)
                .expect("reference");
            assert_eq!(outputs, &expected, "{words} words, {config:?}");
        }
    }
}
