//! Matrix tiles through the foundation: validation (types, roles, shapes, buffers, uniformity),
//! the evidence the lowering reads, the text form, the wire format.

use vyre_foundation::ir::{
    BufferDecl, DataType, Expr, Features, Node, Program, TileLayout, TileRole, TileType,
};
use vyre_foundation::validate::ValidationErrorKind as K;

const A16: TileType = TileType::new(TileRole::A, 16, 16, DataType::F16);
const B16: TileType = TileType::new(TileRole::B, 16, 16, DataType::F16);
const C16: TileType = TileType::new(TileRole::Accumulator, 16, 16, DataType::F32);

fn program(body: Vec<Node>) -> Program {
    Program::new(
        vec![
            BufferDecl::read("a", 0, DataType::F16).with_count(256),
            BufferDecl::read("b", 1, DataType::F16).with_count(256),
            BufferDecl::output("c", 2, DataType::F32).with_count(256),
        ],
        [32, 1, 1],
        body,
    )
}

/// `c = a x b` for one 16x16x16 tile, `b` read column-major.
fn sample() -> Program {
    program(vec![
        Node::tile("ta", A16),
        Node::tile("tb", B16),
        Node::tile("acc", C16),
        Node::tile_load("ta", "a", Expr::u32(0), Expr::u32(16), TileLayout::RowMajor),
        Node::tile_load(
            "tb",
            "b",
            Expr::u32(0),
            Expr::u32(16),
            TileLayout::ColumnMajor,
        ),
        Node::tile_multiply_add("acc", "ta", "tb", "acc"),
        Node::tile_store(
            "acc",
            "c",
            Expr::u32(0),
            Expr::u32(16),
            TileLayout::RowMajor,
        ),
    ])
}

fn kinds(p: &Program) -> Vec<K> {
    match vyre_foundation::validate(p) {
        Ok(_) => Vec::new(),
        Err(e) => e.errors.into_iter().map(|e| e.kind).collect(),
    }
}

#[test]
fn a_tile_program_validates_needs_tiles_and_f16_and_names_its_tiles() {
    let p = sample();
    let v = vyre_foundation::validate(&p).expect("valid");
    assert!(v.features().contains(Features::TILES | Features::F16));
    let acc = v.node_var(&p.body[2]).expect("declared");
    assert_eq!(v.var(acc).expect("facts").tile, Some(C16));
    let [target, a, b, c] = v.node_tiles(&p.body[5]).expect("facts");
    assert_eq!((target, c), (Some(acc), Some(acc)));
    assert_eq!(a, v.node_tiles(&p.body[0]).expect("facts")[0]);
    assert_eq!(b, v.node_tiles(&p.body[1]).expect("facts")[0]);
    assert_eq!(v.node_buffer(&p.body[6]).expect("buffer").index(), 2);
}

#[test]
fn bad_tile_types_roles_shapes_and_buffers_are_rejected_with_a_fix() {
    let bad = program(vec![
        Node::tile("odd", TileType::new(TileRole::A, 12, 16, DataType::F16)),
        Node::tile("wide", TileType::new(TileRole::B, 16, 16, DataType::F32)),
        Node::tile("ta", A16),
        Node::tile("tb", B16),
        Node::tile("acc", C16),
        Node::tile(
            "half",
            TileType::new(TileRole::Accumulator, 16, 16, DataType::F16),
        ),
        Node::tile(
            "small",
            TileType::new(TileRole::Accumulator, 8, 8, DataType::F32),
        ),
        Node::let_bind("x", Expr::u32(0)),
        Node::tile_multiply_add("acc", "tb", "ta", "acc"),
        Node::tile_multiply_add("acc", "ta", "tb", "small"),
        Node::tile_multiply_add("half", "ta", "tb", "acc"),
        Node::tile_multiply_add("x", "ta", "tb", "acc"),
        Node::tile_load("ta", "c", Expr::u32(0), Expr::u32(16), TileLayout::RowMajor),
        Node::tile_store(
            "acc",
            "a",
            Expr::u32(0),
            Expr::u32(16),
            TileLayout::RowMajor,
        ),
        Node::tile_load("ta", "a", Expr::i32(0), Expr::u32(16), TileLayout::RowMajor),
        Node::store("c", Expr::u32(0), Expr::var("acc")),
    ]);
    let found = kinds(&bad);
    let count = |f: fn(&K) -> bool| found.iter().filter(|k| f(k)).count();
    assert_eq!(
        count(|k| matches!(k, K::InvalidTileType { .. })),
        2,
        "{found:?}"
    );
    assert_eq!(
        count(|k| matches!(k, K::TileMultiplyAddMismatch { .. })),
        3,
        "{found:?}"
    );
    assert_eq!(count(|k| matches!(k, K::NotATile { .. })), 1, "{found:?}");
    assert_eq!(
        count(|k| matches!(k, K::TileBufferType { .. })),
        2,
        "{found:?}"
    );
    assert_eq!(
        count(|k| matches!(k, K::StoreToReadOnly { .. })),
        1,
        "{found:?}"
    );
    assert_eq!(
        count(|k| matches!(k, K::TileOperandType { .. })),
        1,
        "{found:?}"
    );
    assert_eq!(
        count(|k| matches!(k, K::TileAsValue { .. })),
        1,
        "{found:?}"
    );
    let err = vyre_foundation::validate(&bad).unwrap_err().to_string();
    assert!(err.matches("Fix:").count() >= found.len(), "{err}");
}

#[test]
fn tile_statements_need_uniform_control_flow_and_operands() {
    let divergent = program(vec![
        Node::tile("acc", C16),
        Node::if_then(
            Expr::lt(Expr::gid_x(), Expr::u32(3)),
            vec![Node::tile_store(
                "acc",
                "c",
                Expr::u32(0),
                Expr::u32(16),
                TileLayout::RowMajor,
            )],
        ),
        Node::tile_store(
            "acc",
            "c",
            Expr::gid_x(),
            Expr::u32(16),
            TileLayout::RowMajor,
        ),
    ]);
    let found = kinds(&divergent);
    assert_eq!(
        found
            .iter()
            .filter(|k| matches!(k, K::NonUniformTile { .. }))
            .count(),
        2,
        "{found:?}"
    );
    // Workgroup ids, buffer lengths, loop counters over uniform bounds are uniform.
    let uniform = program(vec![
        Node::tile("acc", C16),
        Node::loop_for(
            "k",
            Expr::u32(0),
            Expr::div(Expr::buf_len("c"), Expr::u32(256)),
            vec![Node::tile_store(
                "acc",
                "c",
                Expr::add(
                    Expr::mul(Expr::var("k"), Expr::u32(256)),
                    Expr::workgroup_x(),
                ),
                Expr::u32(16),
                TileLayout::ColumnMajor,
            )],
        ),
    ]);
    assert_eq!(kinds(&uniform), Vec::new());
    let flat = Program::new(uniform.buffers.clone(), [8, 4, 1], uniform.body.clone());
    assert!(
        kinds(&flat)
            .iter()
            .any(|k| matches!(k, K::TileWorkgroupShape { .. }))
    );
}

/// A tile store at offset `o` (a `let` bound first to `value`).
fn store_at(value: Expr) -> Program {
    store_after(vec![Node::let_bind("o", value)])
}

/// A tile store at offset `o`, which `prelude` declares (and may assign).
fn store_after(mut prelude: Vec<Node>) -> Program {
    prelude.push(Node::tile("acc", C16));
    prelude.push(Node::tile_store(
        "acc",
        "c",
        Expr::var("o"),
        Expr::u32(16),
        TileLayout::RowMajor,
    ));
    program(prelude)
}

#[test]
fn tile_operands_may_differ_between_subgroups_and_never_inside_one() {
    let non_uniform = |p: &Program| {
        kinds(p)
            .iter()
            .filter(|k| matches!(k, K::NonUniformTile { .. }))
            .count()
    };
    let subgroup = || Expr::div(Expr::local_x(), Expr::subgroup_size());
    // The invocation's subgroup, and values made of it, workgroup-uniform values and subgroup
    // reductions, are the same in every lane of a subgroup.
    for ok in [
        subgroup(),
        Expr::mul(subgroup(), Expr::u32(256)),
        Expr::add(Expr::mul(subgroup(), Expr::u32(16)), Expr::workgroup_x()),
        Expr::subgroup(
            vyre_foundation::ir::SubgroupOp::BroadcastFirst,
            Expr::gid_x(),
        ),
        Expr::subgroup(vyre_foundation::ir::SubgroupOp::Max, Expr::local_x()),
    ] {
        let p = store_at(ok.clone());
        assert_eq!(non_uniform(&p), 0, "{ok:?}: {:?}", kinds(&p));
    }
    // A literal divisor is not the subgroup size (a lane of a 64-lane subgroup sees two values
    // of `lid.x / 32`), and a lane's own ids differ inside a subgroup; so does a ballot's word on
    // subgroups of more than 32 lanes.
    for bad in [
        Expr::div(Expr::local_x(), Expr::u32(32)),
        Expr::local_x(),
        Expr::subgroup_invocation_id(),
        Expr::div(Expr::gid_x(), Expr::subgroup_size()),
        Expr::subgroup(
            vyre_foundation::ir::SubgroupOp::Ballot,
            Expr::lt(Expr::local_x(), Expr::u32(3)),
        ),
    ] {
        let p = store_at(bad.clone());
        assert_eq!(non_uniform(&p), 1, "{bad:?}: {:?}", kinds(&p));
    }
    // A variable stays subgroup-uniform only while every assignment keeps it so.
    let reassigned = store_after(vec![
        Node::let_bind("o", subgroup()),
        Node::assign("o", Expr::local_x()),
    ]);
    assert_eq!(non_uniform(&reassigned), 1, "{:?}", kinds(&reassigned));
    // The evidence says which values are subgroup-uniform.
    let by_subgroup = store_at(subgroup());
    let evidence = vyre_foundation::validate(&by_subgroup).expect("valid");
    let var = evidence.program().body.first().expect("the let");
    let facts = evidence.node(var).expect("facts");
    let vyre_foundation::validate::Resolved::Var(id) = facts.resolved else {
        panic!("the let declares a variable");
    };
    let v = evidence.var(id).expect("facts");
    assert!(v.subgroup_uniform && !v.uniform, "{v:?}");
}

#[test]
fn the_text_form_round_trips_tiles() {
    let p = sample();
    let text = p.to_string();
    for line in [
        "tile ta: a<f16, 16, 16>;",
        "tile acc: accumulator<f32, 16, 16>;",
        "tile_load(tb, b, 0u, 16u, column_major);",
        "tile_multiply_add(acc, ta, tb, acc);",
        "tile_store(acc, c, 0u, 16u, row_major);",
    ] {
        assert!(text.contains(line), "{line} in {text}");
    }
    assert_eq!(text.parse::<Program>().expect("parses"), p);
    // `tile` stays a usable variable name.
    let named = program(vec![
        Node::let_bind("tile", Expr::u32(1)),
        Node::assign("tile", Expr::u32(2)),
    ]);
    assert_eq!(named.to_string().parse::<Program>().expect("parses"), named);
}

#[test]
fn the_wire_format_writes_version_5_only_for_tiles() {
    let p = sample();
    let bytes = p.to_bytes();
    assert_eq!(u16::from_le_bytes([bytes[4], bytes[5]]), 5);
    assert_eq!(Program::from_bytes(&bytes).expect("decodes"), p);
    let mut old = bytes.clone();
    old[4] = 4;
    assert!(Program::from_bytes(&old).is_err());
}
