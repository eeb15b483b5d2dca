//! Plain dispatch on a real device (lavapipe in CI).

mod common;

use common::{add_one_program, bytes, words};
use vyre_driver::{BackendError, DispatchConfig, VyreBackend};
use vyre_driver_wgpu::AdapterOptions;
use vyre_driver_wgpu::testing::{backend_or_skip, backend_with_or_skip};
use vyre_foundation::ir::{BufferDecl, DataType, Expr, Node, Program};

#[test]
fn seed_program_gives_x_plus_one() {
    let Some(backend) = backend_or_skip("seed_program_gives_x_plus_one") else {
        return;
    };
    let n = 1000u32;
    let input: Vec<u32> = (0..n)
        .map(|i| (i * 7).wrapping_add(u32::MAX - 3000))
        .collect();
    let out = backend
        .dispatch(
            &add_one_program(n),
            &[bytes(&input)],
            &DispatchConfig::default(),
        )
        .expect("dispatch");
    let expected: Vec<u32> = input.iter().map(|x| x.wrapping_add(1)).collect();
    assert_eq!(words(&out[0]), expected);
}

#[test]
fn second_dispatch_hits_the_cache() {
    let Some(backend) = backend_or_skip("second_dispatch_hits_the_cache") else {
        return;
    };
    let program = add_one_program(64);
    let input = bytes(&[5; 64]);
    backend
        .dispatch(
            &program,
            std::slice::from_ref(&input),
            &DispatchConfig::default(),
        )
        .expect("first");
    let before = backend.stats();
    let out = backend
        .dispatch(&program, &[input], &DispatchConfig::default())
        .expect("second");
    let after = backend.stats();
    assert_eq!(words(&out[0]), vec![6; 64]);
    assert_eq!(after.shader_modules_created, before.shader_modules_created);
    assert_eq!(after.pipelines_created, before.pipelines_created);
    assert_eq!(
        after.bind_group_layouts_created,
        before.bind_group_layouts_created
    );
    assert_eq!(after.cache_hits, before.cache_hits + 1);
    assert_eq!(after.submits, before.submits + 1);
    assert_eq!(after.dispatch_calls, before.dispatch_calls + 1);
    assert_eq!(
        after.buffers_created, before.buffers_created,
        "pooled buffers are reused"
    );
}

#[test]
fn a_repeated_dispatch_reuses_its_bind_groups() {
    // The program as written: its trailing `return` keeps it in the direct form, which the IR
    // passes (dropping the `return`) would turn into the vectorised one, with a params group.
    let options = AdapterOptions::new().with_passes(false);
    let Some(backend) =
        backend_with_or_skip("a_repeated_dispatch_reuses_its_bind_groups", &options)
    else {
        return;
    };
    let program = add_one_program(64);
    let config = DispatchConfig::default();
    let input = bytes(&[9; 64]);
    let first = backend.stats();
    backend
        .dispatch(&program, std::slice::from_ref(&input), &config)
        .expect("first");
    let before = backend.stats();
    // This direct module's lengths are all declared, so it reads nothing of vyre's params and
    // binds the program's group alone.
    assert_eq!(
        before.bind_groups_created,
        first.bind_groups_created + 1,
        "the program's group, and no params group"
    );
    for _ in 0..3 {
        let out = backend
            .dispatch(&program, std::slice::from_ref(&input), &config)
            .expect("again");
        assert_eq!(words(&out[0]), vec![10; 64]);
    }
    assert_eq!(
        backend.stats().bind_groups_created,
        before.bind_groups_created
    );
}

#[test]
fn kept_params_groups_follow_the_lengths_of_each_dispatch() {
    let Some(backend) = backend_or_skip("kept_params_groups_follow_the_lengths_of_each_dispatch")
    else {
        return;
    };
    // `input` is runtime-sized, so its length reaches the shader through the params words: a params
    // group kept from another length would bound the loop wrongly.
    let i = Expr::gid_x;
    let program = Program::wrapped(
        vec![
            BufferDecl::read("input", 0, DataType::U32),
            BufferDecl::output("out", 1, DataType::U32).with_count(256),
        ],
        [64, 1, 1],
        vec![Node::if_then(
            Expr::lt(i(), Expr::buf_len("input")),
            vec![Node::store(
                "out",
                i(),
                Expr::add(Expr::load("input", i()), Expr::buf_len("input")),
            )],
        )],
    );
    let config = DispatchConfig::new().with_grid([4, 1, 1]);
    for n in [64u32, 200, 64, 256, 200] {
        let input: Vec<u32> = (0..n).collect();
        let out = backend
            .dispatch(&program, &[bytes(&input)], &config)
            .expect("dispatch");
        let expected: Vec<u32> = (0..256).map(|k| if k < n { k + n } else { 0 }).collect();
        assert_eq!(words(&out[0]), expected, "input of {n} words");
    }
}

#[test]
fn grids_beyond_65535_workgroups_fold_transparently() {
    let Some(backend) = backend_or_skip("grids_beyond_65535_workgroups_fold_transparently") else {
        return;
    };
    // One invocation per workgroup; each writes its own workgroup id and the grid size it sees.
    let groups = 70_000u32;
    let program = Program::wrapped(
        vec![
            BufferDecl::output("ids", 0, DataType::U32).with_count(groups),
            BufferDecl::output("size", 1, DataType::U32).with_count(1),
        ],
        [1, 1, 1],
        vec![
            Node::store("ids", Expr::workgroup_x(), Expr::gid_x()),
            Node::store("size", Expr::u32(0), Expr::num_workgroups_x()),
        ],
    );
    let config = DispatchConfig::default().with_grid([groups, 1, 1]);
    let out = backend.dispatch(&program, &[], &config).expect("dispatch");
    assert_eq!(words(&out[0]), (0..groups).collect::<Vec<_>>());
    assert_eq!(words(&out[1]), vec![groups]);
}

#[test]
fn out_of_bounds_accesses_follow_the_semantics() {
    let Some(backend) = backend_or_skip("out_of_bounds_accesses_follow_the_semantics") else {
        return;
    };
    let program = Program::wrapped(
        vec![
            BufferDecl::read("a", 0, DataType::U32).with_count(4),
            BufferDecl::output("o", 1, DataType::U32).with_count(4),
        ],
        [1, 1, 1],
        vec![
            Node::store("o", Expr::u32(0), Expr::load("a", Expr::u32(u32::MAX))),
            Node::store("o", Expr::u32(1), Expr::load("a", Expr::i32(-1))),
            Node::store("o", Expr::u32(2), Expr::load("a", Expr::u32(3))),
            Node::store("o", Expr::u32(4), Expr::u32(99)),
            Node::store("o", Expr::i32(i32::MIN), Expr::u32(98)),
        ],
    );
    let out = backend
        .dispatch(
            &program,
            &[bytes(&[10, 11, 12, 13])],
            &DispatchConfig::default(),
        )
        .expect("dispatch");
    assert_eq!(words(&out[0]), vec![0, 0, 13, 0]);
}

#[test]
fn bad_inputs_are_errors_not_panics() {
    let Some(backend) = backend_or_skip("bad_inputs_are_errors_not_panics") else {
        return;
    };
    let program = add_one_program(4);
    let e = backend
        .dispatch(&program, &[], &DispatchConfig::default())
        .expect_err("no inputs");
    assert!(matches!(e, BackendError::InputMismatch(_)), "{e}");
    let e = backend
        .dispatch(&program, &[vec![0; 6]], &DispatchConfig::default())
        .expect_err("partial element");
    assert!(matches!(e, BackendError::InputMismatch(_)), "{e}");
    let mut invalid = program.clone();
    invalid.workgroup_size = [0, 1, 1];
    let e = backend
        .dispatch(&invalid, &[vec![0; 16]], &DispatchConfig::default())
        .expect_err("invalid");
    assert!(matches!(e, BackendError::InvalidProgram(_)), "{e}");
    let huge = Program::wrapped(
        vec![BufferDecl::workgroup("w", 1 << 20, DataType::U32)],
        [1, 1, 1],
        vec![Node::store("w", Expr::u32(0), Expr::u32(1))],
    );
    let e = backend
        .dispatch(&huge, &[], &DispatchConfig::default())
        .expect_err("workgroup memory");
    assert!(matches!(e, BackendError::LimitExceeded(_)), "{e}");
}

#[test]
fn many_threads_dispatch_at_once() {
    let Some(backend) = backend_or_skip("many_threads_dispatch_at_once") else {
        return;
    };
    std::thread::scope(|s| {
        for t in 0..4u32 {
            let backend = &backend;
            s.spawn(move || {
                for r in 0..10u32 {
                    let n = 32 + t * 8 + r;
                    let input: Vec<u32> = (0..n).map(|i| i + t * 1000 + r).collect();
                    let out = backend
                        .dispatch(
                            &add_one_program(n),
                            &[bytes(&input)],
                            &DispatchConfig::default(),
                        )
                        .expect("dispatch");
                    let expected: Vec<u32> = input.iter().map(|x| x + 1).collect();
                    assert_eq!(words(&out[0]), expected);
                }
            });
        }
    });
}

#[test]
fn emitted_wgsl_reparses_and_validates() {
    let wgsl = vyre_driver_wgpu::emit_wgsl(&add_one_program(16)).expect("wgsl");
    let module = naga::front::wgsl::parse_str(&wgsl).expect("naga parses vyre's WGSL");
    naga::valid::Validator::new(
        naga::valid::ValidationFlags::all() - naga::valid::ValidationFlags::CONTROL_FLOW_UNIFORMITY,
        naga::valid::Capabilities::empty(),
    )
    .validate(&module)
    .expect("and validates it");
    assert!(wgsl.contains("@compute"), "{wgsl}");
}

/// `y[i] = x[i] + k` over 64 elements.
fn add_k(k: u32) -> Program {
    Program::new(
        vec![
            BufferDecl::read("x", 0, DataType::U32).with_count(64),
            BufferDecl::output("y", 1, DataType::U32).with_count(64),
        ],
        [64, 1, 1],
        vec![Node::store(
            "y",
            Expr::gid_x(),
            Expr::add(Expr::load("x", Expr::gid_x()), Expr::u32(k)),
        )],
    )
}

#[test]
fn programs_alike_but_for_a_literal_never_share_a_result_across_repeats_and_evictions() {
    let Some(backend) = backend_or_skip("known programs") else {
        return;
    };
    // More programs than the backend keeps (16), each differing from the others in one literal
    // only, dispatched round robin three times: every repeat is either a kept program or one
    // evicted since, and each must give its own result.
    let programs: Vec<Program> = (0..20).map(add_k).collect();
    let input = bytes(&(0..64).collect::<Vec<u32>>());
    let config = DispatchConfig::default();
    for round in 0..3 {
        for (k, program) in programs.iter().enumerate() {
            let out = backend
                .dispatch(program, std::slice::from_ref(&input), &config)
                .expect("dispatch");
            let expected: Vec<u32> = (0..64).map(|i| i + k as u32).collect();
            assert_eq!(words(&out[0]), expected, "round {round}, program {k}");
        }
        // A kept program again, at once: the most recent one.
        let out = backend
            .dispatch(&programs[19], std::slice::from_ref(&input), &config)
            .expect("dispatch");
        assert_eq!(words(&out[0]), (19..83).collect::<Vec<u32>>());
    }
    // Every program compiled once: repeats, kept or evicted, found their pipelines.
    assert_eq!(backend.stats().pipelines_created, 20);
    // The phases were counted.
    let phases = backend.stats().phases;
    assert!(phases.prepare_ns > 0 && phases.wait_ns > 0 && phases.read_ns > 0);
}

/// A program is validated and analysed once, when the backend first meets it; every later
/// dispatch of an equal program (plain, resident, in a sequence, in a batch, compiled for the
/// persistent queue) does neither, whatever form it needs next.
#[test]
fn a_program_is_validated_and_analysed_once_and_never_again() {
    let Some(backend) = backend_or_skip("a_program_is_validated_and_analysed_once_and_never_again")
    else {
        return;
    };
    let n = 64u32;
    let program = add_one_program(n);
    let input = bytes(&(0..n).collect::<Vec<u32>>());
    let config = DispatchConfig::default();
    let counts = || {
        let s = backend.stats();
        (s.validations, s.analyses)
    };
    let start = counts();
    backend
        .dispatch(&program, std::slice::from_ref(&input), &config)
        .expect("first dispatch");
    let first = counts();
    assert_eq!((first.0 - start.0, first.1 - start.1), (1, 1));
    // Equal programs, built again, through every entry point.
    let again = add_one_program(n);
    backend
        .dispatch(&again, std::slice::from_ref(&input), &config)
        .expect("second dispatch");
    backend
        .dispatch_batch(&again, &[vec![input.clone()], vec![input.clone()]], &config)
        .expect("batch");
    backend
        .compile_persistent(&again, &config)
        .expect("persistent");
    let x = backend.create_buffer(u64::from(n) * 4).expect("buffer");
    let y = backend.create_buffer(u64::from(n) * 4).expect("buffer");
    backend.write_buffer(&x, 0, &input).expect("write");
    backend
        .dispatch_resident(&again, &[&x, &y], &config)
        .expect("resident");
    backend
        .dispatch_sequence(&[
            vyre_driver::Step::new(&again, &[&x, &y], &config),
            vyre_driver::Step::new(&program, &[&x, &y], &config),
        ])
        .expect("sequence");
    assert_eq!(
        counts(),
        first,
        "a known program was validated or analysed again"
    );
    // Another program is another first time.
    let other = add_one_program(n + 1);
    let longer = bytes(&(0..=n).collect::<Vec<u32>>());
    backend
        .dispatch(&other, &[longer], &config)
        .expect("another program");
    let second = counts();
    assert_eq!((second.0 - first.0, second.1 - first.1), (1, 1));
}
