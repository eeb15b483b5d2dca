//! The evidence `validate` returns: types, resolved names, uniformity, and that it belongs to one
//! program only.

use vyre_foundation::ir::{BufferDecl, DataType, Expr, Node, Program};
use vyre_foundation::validate::{Resolved, Validated};

fn program(body: Vec<Node>) -> Program {
    Program::new(
        vec![
            BufferDecl::read("input", 0, DataType::U32),
            BufferDecl::output("out", 1, DataType::F32).with_count(8),
            BufferDecl::workgroup("scratch", 64, DataType::U32),
        ],
        [64, 1, 1],
        body,
    )
}

fn validated(p: &Program) -> Validated<'_> {
    match vyre_foundation::validate(p) {
        Ok(v) => v,
        Err(e) => panic!("{p}\n{e}"),
    }
}

#[test]
fn every_name_resolves_to_its_declaration_and_a_reused_name_gets_a_new_variable() {
    let p = program(vec![
        Node::block(vec![
            Node::let_bind("x", Expr::f32(2.0)),
            Node::store("out", Expr::u32(0), Expr::var("x")),
        ]),
        Node::let_bind("x", Expr::load("input", Expr::gid_x())),
        Node::assign("x", Expr::add(Expr::var("x"), Expr::buf_len("input"))),
    ]);
    let v = validated(&p);
    let outer = v.node_var(&p.body[1]).unwrap();
    let Node::Block(inner) = &p.body[0] else {
        unreachable!()
    };
    let shadow = v.node_var(&inner[0]).unwrap();
    assert_ne!(outer, shadow);
    assert_eq!(v.var(outer).unwrap().ty, DataType::U32);
    assert_eq!(v.var(shadow).unwrap().ty, DataType::F32);
    assert!(v.var(outer).unwrap().assigned);
    assert!(!v.var(shadow).unwrap().assigned);

    // The store reads the block's `x` and writes `out`.
    let Node::Store { value, .. } = &inner[1] else {
        unreachable!()
    };
    assert_eq!(v.var_of(value).unwrap(), shadow);
    assert_eq!(v.type_of(value).unwrap(), DataType::F32);
    assert_eq!(v.node_buffer(&inner[1]).unwrap().index(), 1);
    assert_eq!(
        v.buffer(v.node_buffer(&inner[1]).unwrap()).unwrap().name,
        "out"
    );

    // The assignment writes, and its value reads, the outer `x`.
    let Node::Assign { value, .. } = &p.body[2] else {
        unreachable!()
    };
    assert_eq!(v.node_var(&p.body[2]).unwrap(), outer);
    let Expr::Binary { lhs, rhs, .. } = value else {
        unreachable!()
    };
    assert_eq!(v.var_of(lhs).unwrap(), outer);
    assert_eq!(v.buffer_of(rhs).unwrap().index(), 0);
    assert_eq!(
        v.expr(rhs).unwrap().resolved,
        Resolved::Buffer(v.buffer_of(rhs).unwrap())
    );

    let uses = v.buffer_uses();
    assert!(uses[0].loaded && uses[0].length && !uses[0].stored);
    assert!(uses[1].stored && !uses[1].loaded);
    assert_eq!(uses[2], Default::default());
}

#[test]
fn uniformity_is_recorded_for_values_and_control_flow() {
    let p = program(vec![
        Node::let_bind("w", Expr::workgroup_x()),
        Node::let_bind("g", Expr::gid_x()),
        Node::if_then(
            Expr::lt(Expr::var("g"), Expr::u32(3)),
            vec![Node::store("out", Expr::var("g"), Expr::f32(1.0))],
        ),
        Node::barrier(),
    ]);
    let v = validated(&p);
    let w = v.node_var(&p.body[0]).unwrap();
    let g = v.node_var(&p.body[1]).unwrap();
    assert!(v.var(w).unwrap().uniform);
    assert!(!v.var(g).unwrap().uniform);
    let Node::If { cond, then, .. } = &p.body[2] else {
        unreachable!()
    };
    assert!(!v.expr(cond).unwrap().uniform);
    assert!(v.node(&p.body[2]).unwrap().uniform_control);
    assert!(!v.node(&then[0]).unwrap().uniform_control);
    assert!(v.node(&p.body[3]).unwrap().uniform_control);
}

#[test]
fn an_assignment_in_divergent_control_flow_makes_a_variable_non_uniform() {
    // `x` is assigned after its first use, so only the fixpoint's later pass knows it is not
    // uniform; the evidence must carry the final facts.
    let p = program(vec![
        Node::let_bind("x", Expr::u32(0)),
        Node::loop_for(
            "k",
            Expr::u32(0),
            Expr::u32(4),
            vec![
                Node::let_bind("y", Expr::var("x")),
                Node::if_then(
                    Expr::eq(Expr::local_x(), Expr::u32(0)),
                    vec![Node::assign("x", Expr::u32(1))],
                ),
            ],
        ),
    ]);
    let v = validated(&p);
    let x = v.node_var(&p.body[0]).unwrap();
    assert!(!v.var(x).unwrap().uniform);
    let Node::Loop { body, .. } = &p.body[1] else {
        unreachable!()
    };
    let Node::Let { value, .. } = &body[0] else {
        unreachable!()
    };
    assert!(!v.expr(value).unwrap().uniform);
    assert!(v.var(v.node_var(&p.body[1]).unwrap()).unwrap().loop_var);
}

#[test]
fn an_equal_copy_of_the_program_has_no_evidence() {
    let p = program(vec![Node::store("out", Expr::u32(0), Expr::f32(1.0))]);
    let copy = p.clone();
    let v = validated(&p);
    assert!(v.node(&p.body[0]).is_ok());
    let err = v
        .node(&copy.body[0])
        .expect_err("a copy is another program");
    assert!(err.to_string().contains("Fix:"), "{err}");
    let Node::Store { value, .. } = &copy.body[0] else {
        unreachable!()
    };
    assert!(v.expr(value).is_err());
    assert!(std::ptr::eq(v.program(), &p));
}

#[test]
fn every_expression_and_statement_of_a_valid_program_has_facts() {
    let p = program(vec![
        Node::let_bind("acc", Expr::u32(0)),
        Node::loop_for(
            "k",
            Expr::u32(0),
            Expr::buf_len("input"),
            vec![
                Node::assign(
                    "acc",
                    Expr::add(Expr::var("acc"), Expr::load("input", Expr::var("k"))),
                ),
                Node::if_then(
                    Expr::gt(Expr::var("acc"), Expr::u32(9)),
                    vec![Node::return_()],
                ),
            ],
        ),
        Node::store("scratch", Expr::local_x(), Expr::var("acc")),
        Node::store(
            "out",
            Expr::gid_x(),
            Expr::cast(DataType::F32, Expr::load("scratch", Expr::u32(0))),
        ),
    ]);
    let v = validated(&p);
    let mut nodes: Vec<&Node> = p.body.iter().collect();
    let mut seen = 0;
    while let Some(node) = nodes.pop() {
        v.node(node).unwrap();
        let mut exprs: Vec<&Expr> = node.exprs().collect();
        while let Some(e) = exprs.pop() {
            v.expr(e).unwrap();
            seen += 1;
            exprs.extend(e.children());
        }
        for body in node.bodies() {
            nodes.extend(body.iter());
        }
    }
    assert!(seen > 15, "{seen}");
}
