//! Private arrays through the foundation: validation, the text form, the wire format.

use vyre_foundation::ir::{BufferDecl, DataType, Expr, Node, Program, WIRE_VERSION};
use vyre_foundation::validate::ValidationErrorKind as K;

fn program(body: Vec<Node>) -> Program {
    Program::new(
        vec![BufferDecl::output("out", 0, DataType::U32).with_count(8)],
        [4, 1, 1],
        body,
    )
}

/// `var acc: u32[4]; acc.[gid.x] = gid.x; out[gid.x] = acc.[gid.x];`
fn sample() -> Program {
    program(vec![
        Node::private_array("acc", DataType::U32, 4),
        Node::array_store("acc", Expr::gid_x(), Expr::gid_x()),
        Node::store("out", Expr::gid_x(), Expr::array_load("acc", Expr::gid_x())),
    ])
}

fn kinds(p: &Program) -> Vec<K> {
    match vyre_foundation::validate(p) {
        Ok(_) => Vec::new(),
        Err(e) => e.errors.into_iter().map(|e| e.kind).collect(),
    }
}

#[test]
fn a_private_array_validates_and_its_evidence_names_its_length() {
    let p = sample();
    let v = vyre_foundation::validate(&p).expect("valid");
    let id = v.node_var(&p.body[0]).expect("declared");
    let facts = v.var(id).expect("facts");
    assert_eq!((facts.ty, facts.array), (DataType::U32, Some(4)));
}

#[test]
fn array_misuse_is_rejected_with_a_fix() {
    let bad = program(vec![
        Node::private_array("a", DataType::U32, 0),
        Node::private_array("b", DataType::U32, 2),
        Node::let_bind("x", Expr::u32(1)),
        Node::store("out", Expr::u32(0), Expr::var("b")),
        Node::assign("b", Expr::u32(1)),
        Node::array_store("x", Expr::u32(0), Expr::u32(1)),
        Node::array_store("b", Expr::u32(0), Expr::i32(1)),
        Node::array_store("b", Expr::f32(0.0), Expr::u32(1)),
        Node::store("out", Expr::u32(0), Expr::array_load("nope", Expr::u32(0))),
    ]);
    let found = kinds(&bad);
    assert!(
        matches!(found[0], K::ArrayLength { len: 0, .. }),
        "{found:?}"
    );
    assert!(found.iter().any(|k| matches!(k, K::ArrayAsValue { .. })));
    assert!(found.iter().any(|k| matches!(k, K::NotAnArray { .. })));
    assert!(
        found
            .iter()
            .any(|k| matches!(k, K::ArrayStoreTypeMismatch { .. }))
    );
    assert!(found.iter().any(|k| matches!(k, K::IndexType { .. })));
    assert!(found.iter().any(|k| matches!(k, K::UnknownVariable { .. })));
    let err = vyre_foundation::validate(&bad).unwrap_err().to_string();
    assert!(err.contains("Fix:"), "{err}");
}

#[test]
fn an_array_is_scoped_like_a_let_and_may_not_shadow() {
    let p = program(vec![
        Node::let_bind("acc", Expr::u32(0)),
        Node::private_array("acc", DataType::U32, 2),
    ]);
    assert!(
        kinds(&p)
            .iter()
            .any(|k| matches!(k, K::VariableRedeclared { .. }))
    );
    let out_of_scope = program(vec![
        Node::block(vec![Node::private_array("a", DataType::U32, 2)]),
        Node::store("out", Expr::u32(0), Expr::array_load("a", Expr::u32(0))),
    ]);
    assert!(
        kinds(&out_of_scope)
            .iter()
            .any(|k| matches!(k, K::UnknownVariable { .. }))
    );
}

#[test]
fn wide_element_types_need_their_feature() {
    let p = program(vec![Node::private_array("h", DataType::F16, 3)]);
    let v = vyre_foundation::validate(&p).expect("valid");
    assert!(v.features().contains(vyre_foundation::ir::Features::F16));
}

#[test]
fn the_text_form_round_trips_a_private_array() {
    let p = sample();
    let text = p.to_string();
    assert!(text.contains("var acc: u32[4];"), "{text}");
    assert!(text.contains("acc.[gid.x] = gid.x;"), "{text}");
    assert!(text.contains("out[gid.x] = acc.[gid.x];"), "{text}");
    assert_eq!(text.parse::<Program>().expect("parses"), p);
    // `var` stays a usable variable name.
    let named_var = program(vec![
        Node::let_bind("var", Expr::u32(1)),
        Node::assign("var", Expr::u32(2)),
    ]);
    assert_eq!(
        named_var.to_string().parse::<Program>().expect("parses"),
        named_var
    );
}

#[test]
fn the_wire_format_writes_version_4_only_for_private_arrays() {
    let p = sample();
    let bytes = p.to_bytes();
    assert_eq!(u16::from_le_bytes([bytes[4], bytes[5]]), 4);
    const { assert!(WIRE_VERSION >= 4) };
    assert_eq!(Program::from_bytes(&bytes).expect("decodes"), p);
    let plain = program(vec![Node::store("out", Expr::gid_x(), Expr::gid_x())]);
    assert_eq!(
        u16::from_le_bytes([plain.to_bytes()[4], plain.to_bytes()[5]]),
        1
    );
    // The same bytes labelled version 3 name an unknown statement tag.
    let mut old = bytes.clone();
    old[4] = 3;
    assert!(Program::from_bytes(&old).is_err());
    // And labelled higher than needed, a plain program's bytes are not minimal.
    let mut high = plain.to_bytes();
    high[4] = 4;
    assert!(Program::from_bytes(&high).is_err());
}
