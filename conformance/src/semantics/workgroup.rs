//! Workgroups and grids (`SEMANTICS.md` sections 1 and 2): every builtin on explicit grids in y and
//! z and on 2-D and 3-D workgroup shapes, and barrier-synchronised reductions in workgroup memory.

use vyre_driver::{DispatchConfig, VyreBackend};
use vyre_foundation::ir::{BufferDecl, DataType, Expr, Node, Program};

use crate::semantics::harness::{Report, bytes_u32, run};

/// Writes, for every invocation, its 12 builtin components at the slot of its linear global index.
fn id_program(workgroup: [u32; 3], grid: [u32; 3]) -> Program {
    let total: u32 = (0..3).map(|a| workgroup[a] * grid[a]).product();
    let linear = Expr::add(
        Expr::gid_x(),
        Expr::mul(
            Expr::num_workgroups_x(),
            Expr::mul(
                Expr::u32(workgroup[0]),
                Expr::add(
                    Expr::gid_y(),
                    Expr::mul(
                        Expr::mul(Expr::num_workgroups_y(), Expr::u32(workgroup[1])),
                        Expr::gid_z(),
                    ),
                ),
            ),
        ),
    );
    let ids = [
        Expr::gid_x(),
        Expr::gid_y(),
        Expr::gid_z(),
        Expr::local_x(),
        Expr::local_y(),
        Expr::local_z(),
        Expr::workgroup_x(),
        Expr::workgroup_y(),
        Expr::workgroup_z(),
        Expr::num_workgroups_x(),
        Expr::num_workgroups_y(),
        Expr::num_workgroups_z(),
    ];
    let mut body = vec![Node::let_bind("slot", Expr::mul(linear, Expr::u32(12)))];
    for (k, id) in ids.into_iter().enumerate() {
        body.push(Node::store(
            "ids",
            Expr::add(Expr::var("slot"), Expr::u32(k as u32)),
            id,
        ));
    }
    Program::wrapped(
        vec![BufferDecl::output("ids", 0, DataType::U32).with_count(total * 12)],
        workgroup,
        body,
    )
}

fn check_ids(backend: &dyn VyreBackend, case: &str, workgroup: [u32; 3], grid: [u32; 3]) {
    let program = id_program(workgroup, grid);
    let config = DispatchConfig::new().with_grid(grid);
    let out = crate::semantics::harness::words(&run(backend, case, &program, &[], &config)[0]);
    let mut report = Report::new(case);
    let size = [
        workgroup[0] * grid[0],
        workgroup[1] * grid[1],
        workgroup[2] * grid[2],
    ];
    for z in 0..size[2] {
        for y in 0..size[1] {
            for x in 0..size[0] {
                let g = [x, y, z];
                let linear = (x + size[0] * (y + size[1] * z)) as usize;
                let mut expected = Vec::with_capacity(12);
                expected.extend(g);
                expected.extend((0..3).map(|a| g[a] % workgroup[a]));
                expected.extend((0..3).map(|a| g[a] / workgroup[a]));
                expected.extend(grid);
                let got = &out[linear * 12..linear * 12 + 12];
                report.eq(|| format!("gid, lid, wid, nwg of invocation {g:?} (workgroup {workgroup:?}, grid {grid:?})"), expected, got.to_vec());
            }
        }
    }
    report.finish();
}

/// Builtins on a grid that spans y and z, with a 1-D workgroup.
pub fn grid_in_y_and_z(backend: &dyn VyreBackend) {
    check_ids(backend, "grid_in_y_and_z", [4, 1, 1], [2, 3, 4]);
}

/// Builtins on an `[8, 8, 1]` workgroup.
pub fn workgroup_shape_8x8(backend: &dyn VyreBackend) {
    check_ids(backend, "workgroup_shape_8x8", [8, 8, 1], [2, 2, 1]);
}

/// Builtins on a `[4, 4, 4]` workgroup over a 3-D grid.
pub fn workgroup_shape_4x4x4(backend: &dyn VyreBackend) {
    check_ids(backend, "workgroup_shape_4x4x4", [4, 4, 4], [2, 1, 3]);
}

/// A 256-invocation tree reduction in workgroup memory: load, barrier, then eight halving steps each
/// followed by a barrier; invocation 0 writes its workgroup's sum. Also a second workgroup buffer to
/// show it starts zeroed in every workgroup.
pub fn workgroup_tree_reduction(backend: &dyn VyreBackend) {
    let case = "workgroup_tree_reduction";
    let lid = Expr::local_x();
    let stride = Expr::shr(Expr::u32(128), Expr::var("step"));
    let program = Program::wrapped(
        vec![
            BufferDecl::read("input", 0, DataType::U32).with_count(1024),
            BufferDecl::output("sums", 1, DataType::U32).with_count(4),
            BufferDecl::output("stale", 2, DataType::U32).with_count(4),
            BufferDecl::workgroup("partial", 256, DataType::U32),
            BufferDecl::workgroup("seen", 1, DataType::U32),
        ],
        [256, 1, 1],
        vec![
            Node::store("partial", lid.clone(), Expr::load("input", Expr::gid_x())),
            Node::if_then(
                Expr::eq(lid.clone(), Expr::u32(0)),
                vec![
                    Node::store(
                        "stale",
                        Expr::workgroup_x(),
                        Expr::load("seen", Expr::u32(0)),
                    ),
                    Node::store(
                        "seen",
                        Expr::u32(0),
                        Expr::add(Expr::workgroup_x(), Expr::u32(1)),
                    ),
                ],
            ),
            Node::barrier(),
            Node::loop_for(
                "step",
                Expr::u32(0),
                Expr::u32(8),
                vec![
                    Node::if_then(
                        Expr::lt(lid.clone(), stride.clone()),
                        vec![Node::store(
                            "partial",
                            lid.clone(),
                            Expr::add(
                                Expr::load("partial", lid.clone()),
                                Expr::load("partial", Expr::add(lid.clone(), stride)),
                            ),
                        )],
                    ),
                    Node::barrier(),
                ],
            ),
            Node::if_then(
                Expr::eq(lid, Expr::u32(0)),
                vec![Node::store(
                    "sums",
                    Expr::workgroup_x(),
                    Expr::load("partial", Expr::u32(0)),
                )],
            ),
        ],
    );
    let input: Vec<u32> = (0..1024u32)
        .map(|i| i.wrapping_mul(2_654_435_761) >> 8)
        .collect();
    let config = DispatchConfig::new().with_grid([4, 1, 1]);
    let out = run(backend, case, &program, &[bytes_u32(&input)], &config);
    let sums = crate::semantics::harness::words(&out[0]);
    let stale = crate::semantics::harness::words(&out[1]);
    let mut report = Report::new(case);
    for w in 0..4 {
        let expected = input[w * 256..(w + 1) * 256]
            .iter()
            .fold(0u32, |a, &b| a.wrapping_add(b));
        report.eq(|| format!("sum of workgroup {w}"), expected, sums[w]);
        report.eq(
            || format!("workgroup memory at the start of workgroup {w}"),
            0,
            stale[w],
        );
    }
    report.finish();
}
