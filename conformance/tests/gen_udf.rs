//! The generator's UDF shape (`GenConfig::udf`, `gen/udf.rs`): every program is an elementwise
//! function of its `read` buffers with one `output`, one row per invocation, and nothing in it sees
//! the launch's size. (`vyre-datafusion/tests/suite/fuzz_udf.rs` checks that `VyreUdf` accepts each.)

use vyre_conformance::fuzz::generate;
use vyre_conformance::r#gen::{GenConfig, keeps_float_rules};
use vyre_foundation::elementwise::is_elementwise;
use vyre_foundation::ir::{BinOp, BufferAccess, Builtin, Expr, Node};

const PROGRAMS: u64 = 2000;

#[test]
fn every_udf_shaped_program_is_a_function_of_its_rows() {
    let config = GenConfig::udf();
    for index in 0..PROGRAMS {
        let (_, case) = generate(&config, 1, index).expect("a case");
        let program = &case.program;
        let evidence = vyre_foundation::validate(program)
            .unwrap_or_else(|e| panic!("case {index} is invalid:\n{program}\n{e}"));
        assert!(is_elementwise(&evidence), "case {index}:\n{program}");
        assert!(keeps_float_rules(&evidence), "case {index}:\n{program}");
        let [wx, wy, wz] = program.workgroup_size;
        let [gx, gy, gz] = case.config.grid.expect("an explicit grid");
        assert_eq!(
            [wy, wz, gy, gz],
            [1; 4],
            "case {index}: not one-dimensional"
        );
        let rows = wx * gx;
        let mut outputs = 0;
        let mut reads = 0;
        let mut input = case.inputs.iter();
        for decl in &program.buffers {
            match decl.access {
                BufferAccess::Output => {
                    outputs += 1;
                    assert_eq!(decl.count, rows, "case {index}: `{}`", decl.name);
                    assert_eq!(decl.output_byte_range, None, "case {index}");
                }
                BufferAccess::Read => {
                    reads += 1;
                    let bytes = input.next().expect("an input per read buffer").len();
                    assert_eq!(
                        bytes,
                        rows as usize * decl.element.size_bytes(),
                        "case {index}: `{}` is not one element per row",
                        decl.name
                    );
                    assert!(decl.count == rows || decl.count == 0, "case {index}");
                }
                BufferAccess::Workgroup => {}
                BufferAccess::ReadWrite | BufferAccess::Uniform => {
                    panic!(
                        "case {index}: `{}` is {:?}:\n{program}",
                        decl.name, decl.access
                    )
                }
            }
        }
        assert_eq!((outputs, reads > 0), (1, true), "case {index}:\n{program}");
        // `buf_len` of a storage buffer only as the bound of a store's guard, `tid < buf_len(b)`,
        // which every row of a batch passes at any length of `b` past it.
        let bound = |buffer: &str| {
            program
                .buffers
                .iter()
                .any(|b| b.name == buffer && b.access != BufferAccess::Workgroup)
        };
        let (mut lengths, mut guards) = (0, 0);
        vyre_foundation::for_each_expr(program, |e| {
            assert!(
                !matches!(e, Expr::Builtin(Builtin::NumWorkgroups(_))),
                "case {index} reads num_workgroups:\n{program}"
            );
            lengths += usize::from(matches!(e, Expr::BufLen(b) if bound(b)));
        });
        vyre_foundation::for_each_node(&program.body, |n| {
            if let Node::If { cond, .. } = n
                && let Expr::Binary {
                    op: BinOp::Lt,
                    lhs,
                    rhs,
                } = cond
                && matches!(&**lhs, Expr::Var(v) if v == "tid")
                && matches!(&**rhs, Expr::BufLen(b) if bound(b))
            {
                guards += 1;
            }
        });
        assert_eq!(
            lengths, guards,
            "case {index} reads the length of a storage buffer outside a guard:\n{program}"
        );
    }
}

/// The shape keeps most of what the generator draws: workgroup memory and barriers, atomics,
/// loops, branches, returns, and every element type.
#[test]
fn udf_shaped_programs_keep_workgroup_memory_atomics_and_control_flow() {
    let config = GenConfig::udf();
    let (mut workgroup, mut barrier, mut atomic, mut looped, mut branch, mut returns) =
        (0, 0, 0, 0, 0, 0);
    let mut types = std::collections::BTreeSet::new();
    for index in 0..PROGRAMS {
        let (_, case) = generate(&config, 2, index).expect("a case");
        let program = &case.program;
        workgroup += usize::from(
            program
                .buffers
                .iter()
                .any(|b| b.access == BufferAccess::Workgroup),
        );
        types.extend(program.buffers.iter().map(|b| format!("{:?}", b.element)));
        let (mut b, mut a, mut l, mut i, mut r) = (false, false, false, false, false);
        vyre_foundation::for_each_node(&program.body, |n| {
            b |= matches!(n, Node::Barrier);
            a |= matches!(n, Node::Atomic { .. });
            l |= matches!(n, Node::Loop { .. } | Node::While { .. });
            i |= matches!(n, Node::If { .. });
            r |= matches!(n, Node::Return);
        });
        vyre_foundation::for_each_expr(program, |e| a |= matches!(e, Expr::Atomic { .. }));
        for (count, seen) in [
            (&mut barrier, b),
            (&mut atomic, a),
            (&mut looped, l),
            (&mut branch, i),
            (&mut returns, r),
        ] {
            *count += usize::from(seen);
        }
    }
    let counts = [workgroup, barrier, atomic, looped, branch, returns];
    assert!(
        counts.iter().all(|&c| c >= 20),
        "of {PROGRAMS} programs, with workgroup buffers, barriers, atomics, loops, ifs, returns: {counts:?}"
    );
    assert_eq!(types.len(), 7, "element types drawn: {types:?}");
}
