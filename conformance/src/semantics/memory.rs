//! Buffers (`SEMANTICS.md` sections 1 and 3): out-of-bounds loads yield 0 and stores do nothing,
//! runtime-sized buffers, several inputs and outputs, output byte ranges, `buf_len`.

use vyre_driver::{DispatchConfig, VyreBackend};
use vyre_foundation::ir::{BufferDecl, DataType, Expr, Node, Program};

use crate::semantics::harness::{Report, bytes_f32, bytes_i32, bytes_u32, run, run_words, words};

/// Loads at wild `u32` and `i32` indices (`u32::MAX`, `2^31`, `-1`, `i32::MIN`, just past the end)
/// yield 0 of each element type; in-bounds loads see the data.
pub fn out_of_bounds_loads(backend: &dyn VyreBackend) {
    let case = "out_of_bounds_loads";
    let u_idx: [u32; 8] = [0, 3, 4, 5, 100, 0x8000_0000, u32::MAX, 1];
    let i_idx: [i32; 8] = [0, 3, 4, -1, i32::MIN, i32::MAX, -4, 2];
    let l = Expr::gid_x();
    let program = Program::wrapped(
        vec![
            BufferDecl::read("data_u", 0, DataType::U32).with_count(4),
            BufferDecl::read("data_f", 1, DataType::F32).with_count(4),
            BufferDecl::read("data_b", 2, DataType::Bool).with_count(4),
            BufferDecl::read("uidx", 3, DataType::U32).with_count(8),
            BufferDecl::read("iidx", 4, DataType::I32).with_count(8),
            BufferDecl::output("out", 5, DataType::U32).with_count(8 * 6),
        ],
        [8, 1, 1],
        vec![
            Node::let_bind("u", Expr::load("uidx", l.clone())),
            Node::let_bind("s", Expr::load("iidx", l.clone())),
            Node::let_bind("base", Expr::mul(l, Expr::u32(6))),
            store_at(0, Expr::load("data_u", Expr::var("u"))),
            store_at(
                1,
                Expr::bitcast(DataType::U32, Expr::load("data_f", Expr::var("u"))),
            ),
            store_at(
                2,
                Expr::cast(DataType::U32, Expr::load("data_b", Expr::var("u"))),
            ),
            store_at(3, Expr::load("data_u", Expr::var("s"))),
            store_at(
                4,
                Expr::bitcast(DataType::U32, Expr::load("data_f", Expr::var("s"))),
            ),
            store_at(
                5,
                Expr::cast(DataType::U32, Expr::load("data_b", Expr::var("s"))),
            ),
        ],
    );
    let data_u = [10u32, 11, 12, 13];
    let data_f = [1.5f32, -2.5, 3.25, 4.0];
    let data_b = [0u32, 5, 1, 0];
    let inputs = [
        bytes_u32(&data_u),
        bytes_f32(&data_f),
        bytes_u32(&data_b),
        bytes_u32(&u_idx),
        bytes_i32(&i_idx),
    ];
    let out = &run_words(backend, case, &program, &inputs)[0];
    let mut report = Report::new(case);
    let pick = |i: Option<usize>| {
        i.filter(|&i| i < 4).map_or([0, 0, 0], |i| {
            [data_u[i], data_f[i].to_bits(), u32::from(data_b[i] != 0)]
        })
    };
    for lane in 0..8 {
        let by_u = pick(Some(u_idx[lane] as usize));
        let by_s = pick(usize::try_from(i_idx[lane]).ok());
        let got = &out[lane * 6..lane * 6 + 6];
        let names = ["u32", "f32 bits", "bool"];
        for k in 0..3 {
            report.eq(
                || format!("{} buffer[{}u]", names[k], u_idx[lane]),
                by_u[k],
                got[k],
            );
            report.eq(
                || format!("{} buffer[{}i]", names[k], i_idx[lane]),
                by_s[k],
                got[3 + k],
            );
        }
    }
    report.finish();
}

fn store_at(slot: u32, value: Expr) -> Node {
    Node::store("out", Expr::add(Expr::var("base"), Expr::u32(slot)), value)
}

/// Stores at wild indices are dropped, stores in bounds land, and nothing outside the buffer (the
/// neighbouring output) changes.
pub fn out_of_bounds_stores(backend: &dyn VyreBackend) {
    let case = "out_of_bounds_stores";
    let u_idx: [u32; 8] = [4, 0x8000_0000, u32::MAX, 2, 5, 1000, 0, 0xffff_fff0];
    let i_idx: [i32; 8] = [-1, i32::MIN, 3, 4, i32::MAX, 1, -2, 0x4000_0000];
    let l = Expr::gid_x();
    let program = Program::wrapped(
        vec![
            BufferDecl::read("uidx", 0, DataType::U32).with_count(8),
            BufferDecl::read("iidx", 1, DataType::I32).with_count(8),
            BufferDecl::output("small_u", 2, DataType::U32).with_count(4),
            BufferDecl::output("small_i", 3, DataType::U32).with_count(4),
            BufferDecl::output("guard", 4, DataType::U32).with_count(4),
        ],
        [8, 1, 1],
        vec![
            Node::store(
                "small_u",
                Expr::load("uidx", l.clone()),
                Expr::add(l.clone(), Expr::u32(100)),
            ),
            Node::store(
                "small_i",
                Expr::load("iidx", l.clone()),
                Expr::add(l.clone(), Expr::u32(200)),
            ),
        ],
    );
    let out = run_words(
        backend,
        case,
        &program,
        &[bytes_u32(&u_idx), bytes_i32(&i_idx)],
    );
    let mut expect_u = [0u32; 4];
    let mut expect_i = [0u32; 4];
    for lane in 0..8 {
        if let Some(slot) = expect_u.get_mut(u_idx[lane] as usize) {
            *slot = lane as u32 + 100;
        }
        if let Some(slot) = usize::try_from(i_idx[lane])
            .ok()
            .and_then(|i| expect_i.get_mut(i))
        {
            *slot = lane as u32 + 200;
        }
    }
    let mut report = Report::new(case);
    report.eq(
        || format!("small_u after stores at u32 indices {u_idx:?}"),
        expect_u.to_vec(),
        out[0].clone(),
    );
    report.eq(
        || format!("small_i after stores at i32 indices {i_idx:?}"),
        expect_i.to_vec(),
        out[1].clone(),
    );
    report.eq(
        || "untouched neighbouring output".into(),
        vec![0u32; 4],
        out[2].clone(),
    );
    report.finish();
}

/// A runtime-sized input (count 0) has `len / 4` elements: `buf_len` reports it, loads past it yield
/// 0, and the derived grid covers it. Run with two different lengths.
pub fn runtime_sized_buffers(backend: &dyn VyreBackend) {
    let case = "runtime_sized_buffers";
    let g = Expr::gid_x();
    let program = Program::wrapped(
        vec![
            BufferDecl::read("data", 0, DataType::U32),
            BufferDecl::read_write("scratch", 1, DataType::I32),
            BufferDecl::output("out", 2, DataType::U32).with_count(64),
            BufferDecl::output("lens", 3, DataType::U32).with_count(2),
        ],
        [16, 1, 1],
        vec![
            Node::if_then(
                Expr::lt(g.clone(), Expr::u32(64)),
                vec![Node::store(
                    "out",
                    g.clone(),
                    Expr::add(Expr::load("data", g.clone()), Expr::u32(1)),
                )],
            ),
            Node::if_then(
                Expr::eq(g, Expr::u32(0)),
                vec![
                    Node::store("lens", Expr::u32(0), Expr::buf_len("data")),
                    Node::store("lens", Expr::u32(1), Expr::buf_len("scratch")),
                ],
            ),
        ],
    );
    let mut report = Report::new(case);
    for (n, m) in [(10usize, 3usize), (37, 50)] {
        let data: Vec<u32> = (0..n as u32).map(|i| i * 3 + 1).collect();
        let scratch = vec![-1i32; m];
        let out = run_words(
            backend,
            case,
            &program,
            &[bytes_u32(&data), bytes_i32(&scratch)],
        );
        let expected: Vec<u32> = (0..64).map(|i| data.get(i).map_or(1, |d| d + 1)).collect();
        report.eq(
            || format!("out[i] = data[i] + 1 with {n} data elements"),
            expected,
            out[0].clone(),
        );
        report.eq(
            || format!("buf_len(data), buf_len(scratch) for {n} and {m} elements"),
            vec![n as u32, m as u32],
            out[1].clone(),
        );
    }
    report.finish();
}

/// Several inputs of every kind (read, uniform, read_write, shorter than declared and so
/// zero-extended) and several outputs, in declaration order; read_write buffers are not returned.
pub fn multiple_inputs_and_outputs(backend: &dyn VyreBackend) {
    let case = "multiple_inputs_and_outputs";
    let g = Expr::gid_x();
    let program = Program::wrapped(
        vec![
            BufferDecl::output("first", 0, DataType::U32).with_count(8),
            BufferDecl::read("a", 1, DataType::U32).with_count(8),
            BufferDecl::uniform("params", 2, DataType::U32).with_count(4),
            BufferDecl::read_write("acc", 3, DataType::U32).with_count(8),
            BufferDecl::output("second", 4, DataType::I32).with_count(8),
            BufferDecl::read("b", 5, DataType::I32).with_count(8),
        ],
        [8, 1, 1],
        vec![
            Node::store(
                "acc",
                g.clone(),
                Expr::add(Expr::load("acc", g.clone()), Expr::load("a", g.clone())),
            ),
            Node::store(
                "first",
                g.clone(),
                Expr::mul(
                    Expr::load("acc", g.clone()),
                    Expr::load("params", Expr::u32(1)),
                ),
            ),
            Node::store(
                "second",
                g.clone(),
                Expr::sub(Expr::load("b", g), Expr::i32(1)),
            ),
        ],
    );
    let a: Vec<u32> = (1..=8).collect();
    let params = [0u32, 3];
    let acc: Vec<u32> = (0..8).map(|i| i * 10).collect();
    let b = [5i32, -5, i32::MIN, 0];
    let inputs = [
        bytes_u32(&a),
        bytes_u32(&params),
        bytes_u32(&acc),
        bytes_i32(&b),
    ];
    let out = run_words(backend, case, &program, &inputs);
    let mut report = Report::new(case);
    let first: Vec<u32> = (0..8).map(|i| (acc[i] + a[i]) * 3).collect();
    let second: Vec<u32> = (0..8)
        .map(|i| b.get(i).copied().unwrap_or(0).wrapping_sub(1) as u32)
        .collect();
    report.eq(
        || "first output: (acc + a) * params[1]".into(),
        first,
        out[0].clone(),
    );
    report.eq(
        || "second output: b - 1, b zero-extended from 4 to 8 elements".into(),
        second,
        out[1].clone(),
    );
    report.finish();
}

/// `with_output_byte_range` returns exactly those bytes of the output.
pub fn output_byte_ranges(backend: &dyn VyreBackend) {
    let case = "output_byte_ranges";
    let g = Expr::gid_x();
    let program = Program::wrapped(
        vec![
            BufferDecl::output("whole", 0, DataType::U32).with_count(16),
            BufferDecl::output("middle", 1, DataType::U32)
                .with_count(16)
                .with_output_byte_range(8..24),
            BufferDecl::output("empty", 2, DataType::U32)
                .with_count(4)
                .with_output_byte_range(4..4),
        ],
        [16, 1, 1],
        vec![
            Node::store("whole", g.clone(), Expr::mul(g.clone(), Expr::u32(2))),
            Node::store("middle", g.clone(), Expr::add(g.clone(), Expr::u32(1000))),
            Node::store("empty", g.clone(), Expr::u32(9)),
        ],
    );
    let out = run(backend, case, &program, &[], &DispatchConfig::default());
    let mut report = Report::new(case);
    report.eq(
        || "whole output".into(),
        (0..16).map(|i| i * 2).collect::<Vec<u32>>(),
        words(&out[0]),
    );
    report.eq(
        || "bytes 8..24 of `middle`".into(),
        vec![1002u32, 1003, 1004, 1005],
        words(&out[1]),
    );
    report.eq(|| "byte length of `middle`".into(), 16, out[1].len());
    report.eq(|| "an empty range".into(), 0, out[2].len());
    report.finish();
}
