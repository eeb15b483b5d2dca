//! Backends that miscompile the shapes an NVIDIA driver got wrong (issue 32), each by rewriting the
//! validated program as a driver's compiler would and running the result on the reference: the
//! catalogue must fail every one and name the driver cases (`catalogue/driver/`) of the shape, in
//! each form its values reach it. Before those cases the catalogue passed the first and the last
//! of these backends outright and caught the third only in three atomics cases; the 64-bit integer
//! and compare batches did catch the second.

use vyre_conformance::report::Culprit;
use vyre_conformance::{CheckOptions, ConformanceReport, ReferenceBackend, check_backend_with};
use vyre_driver::{BackendError, Capabilities, DispatchConfig, DispatchPlan, VyreBackend};
use vyre_foundation::ir::{BinOp, DataType, Expr, Node, Program, UnOp};
use vyre_foundation::validate::Validated;

/// Replaces an expression of the validated program, given the rewrite of any subexpression; `None`
/// leaves it as it is, its children rewritten.
type Rule = fn(&Validated<'_>, &Expr, &dyn Fn(&Expr) -> Expr) -> Option<Expr>;

/// A backend whose compiler applies `rule` everywhere before the reference runs the program.
struct Miscompiling {
    inner: ReferenceBackend,
    id: &'static str,
    rule: Rule,
}

impl VyreBackend for Miscompiling {
    fn id(&self) -> &str {
        self.id
    }

    /// The reference's, `f16` and `int64` included: `Capabilities::unlimited` has neither, and
    /// the batches needing them would be skipped as not supported.
    fn capabilities(&self) -> Capabilities {
        let mut caps = self.inner.capabilities();
        caps.device_name = format!("planted {}", self.id);
        caps
    }

    fn execute(
        &self,
        program: &Validated<'_>,
        _plan: &DispatchPlan,
        inputs: &[Vec<u8>],
        config: &DispatchConfig,
    ) -> Result<Vec<Vec<u8>>, BackendError> {
        let source = program.program();
        let body = rewrite_body(program, self.rule, &source.body);
        let compiled = Program::new(source.buffers.clone(), source.workgroup_size, body);
        self.inner.dispatch(&compiled, inputs, config)
    }
}

fn rewrite_body(v: &Validated<'_>, rule: Rule, nodes: &[Node]) -> Vec<Node> {
    nodes.iter().map(|n| rewrite_node(v, rule, n)).collect()
}

fn rewrite_node(v: &Validated<'_>, rule: Rule, node: &Node) -> Node {
    let e = |x: &Expr| rewrite_expr(v, rule, x);
    let b = |nodes: &[Node]| rewrite_body(v, rule, nodes);
    match node {
        Node::Let { name, value } => Node::let_bind(name.clone(), e(value)),
        Node::Assign { name, value } => Node::assign(name.clone(), e(value)),
        Node::Store {
            buffer,
            index,
            value,
        } => Node::store(buffer.clone(), e(index), e(value)),
        Node::ArrayStore {
            array,
            index,
            value,
        } => Node::array_store(array.clone(), e(index), e(value)),
        Node::If {
            cond,
            then,
            otherwise,
        } => Node::if_then_else(e(cond), b(then), b(otherwise)),
        Node::Loop {
            var,
            from,
            to,
            body,
        } => Node::loop_for(var.clone(), e(from), e(to), b(body)),
        Node::Block(body) => Node::block(b(body)),
        Node::While { cond, body } => Node::loop_while(e(cond), b(body)),
        Node::Atomic {
            op,
            buffer,
            index,
            expected,
            value,
        } => Node::Atomic {
            op: *op,
            buffer: buffer.clone(),
            index: e(index),
            expected: expected.as_ref().map(e),
            value: e(value),
        },
        Node::TileLoad {
            tile,
            buffer,
            offset,
            stride,
            layout,
        } => Node::tile_load(tile.clone(), buffer.clone(), e(offset), e(stride), *layout),
        Node::TileStore {
            tile,
            buffer,
            offset,
            stride,
            layout,
        } => Node::tile_store(tile.clone(), buffer.clone(), e(offset), e(stride), *layout),
        Node::PrivateArray { .. }
        | Node::Tile { .. }
        | Node::TileMultiplyAdd { .. }
        | Node::Barrier
        | Node::Return
        | Node::Break
        | Node::Continue => node.clone(),
    }
}

fn rewrite_expr(v: &Validated<'_>, rule: Rule, x: &Expr) -> Expr {
    let f = |c: &Expr| rewrite_expr(v, rule, c);
    if let Some(replaced) = rule(v, x, &f) {
        return replaced;
    }
    let boxed = |c: &Expr| Box::new(f(c));
    match x {
        Expr::Lit(_) | Expr::Var(_) | Expr::BufLen(_) | Expr::Builtin(_) => x.clone(),
        Expr::Load { buffer, index } => Expr::load(buffer.clone(), f(index)),
        Expr::ArrayLoad { array, index } => Expr::array_load(array.clone(), f(index)),
        Expr::Binary { op, lhs, rhs } => Expr::binary(*op, f(lhs), f(rhs)),
        Expr::Unary { op, arg } => Expr::unary(*op, f(arg)),
        Expr::Select {
            cond,
            on_true,
            on_false,
        } => Expr::select(f(cond), f(on_true), f(on_false)),
        Expr::Cast { to, arg } => Expr::cast(*to, f(arg)),
        Expr::Bitcast { to, arg } => Expr::bitcast(*to, f(arg)),
        Expr::Fma { a, b, c } => Expr::fma(f(a), f(b), f(c)),
        Expr::Atomic {
            op,
            buffer,
            index,
            expected,
            value,
        } => Expr::Atomic {
            op: *op,
            buffer: buffer.clone(),
            index: boxed(index),
            expected: expected.as_deref().map(boxed),
            value: boxed(value),
        },
        Expr::Subgroup { op, arg } => Expr::Subgroup {
            op: *op,
            arg: boxed(arg),
        },
        Expr::SubgroupShuffle { value, lane } => Expr::SubgroupShuffle {
            value: boxed(value),
            lane: boxed(lane),
        },
    }
}

/// Integer `min(a, -b)` and `max(a, -b)` computed without the negation: both NVIDIA results
/// (`min(min(v, -v), 0i)` giving 0 for `v = 1`, `max(i2, -i1)` giving `i1`) fit this.
fn drops_negation(v: &Validated<'_>, x: &Expr, f: &dyn Fn(&Expr) -> Expr) -> Option<Expr> {
    let Expr::Binary { op, lhs, rhs } = x else {
        return None;
    };
    let Expr::Unary { op: UnOp::Neg, arg } = rhs.as_ref() else {
        return None;
    };
    let integer = v.type_of(x).ok()?.is_integer();
    (integer && matches!(op, BinOp::Min | BinOp::Max)).then(|| Expr::binary(*op, f(lhs), f(arg)))
}

/// 64-bit `min`, `max` and ordered comparisons decided on the low words (as `i32` for `i64`, as
/// `u32` for `u64`): `min(-3i64, i64::MIN + 17892187)` then gives -3, as on the H100.
fn low_words(v: &Validated<'_>, x: &Expr, f: &dyn Fn(&Expr) -> Expr) -> Option<Expr> {
    let Expr::Binary { op, lhs, rhs } = x else {
        return None;
    };
    let low = match v.type_of(lhs).ok()? {
        DataType::I64 => DataType::I32,
        DataType::U64 => DataType::U32,
        _ => return None,
    };
    let (a, b) = (f(lhs), f(rhs));
    let (la, lb) = (Expr::cast(low, a.clone()), Expr::cast(low, b.clone()));
    match op {
        BinOp::Min => Some(Expr::select(Expr::lt(la, lb), a, b)),
        BinOp::Max => Some(Expr::select(Expr::gt(la, lb), a, b)),
        op if op.is_comparison() && !matches!(op, BinOp::Eq | BinOp::Ne) => {
            Some(Expr::binary(*op, la, lb))
        }
        _ => None,
    }
}

/// `u64(x) << k` and `i64(x) << k` of a 32-bit `x` shifted at 32 bits and then widened:
/// `u64(i32(1)) << 31` then gives `0xffffffff80000000`, as on the H100.
fn shifts_before_widening(v: &Validated<'_>, x: &Expr, f: &dyn Fn(&Expr) -> Expr) -> Option<Expr> {
    let Expr::Binary {
        op: BinOp::Shl,
        lhs,
        rhs,
    } = x
    else {
        return None;
    };
    let Expr::Cast { to, arg } = lhs.as_ref() else {
        return None;
    };
    let narrow = v.type_of(arg).ok()?.is_index();
    (narrow && to.size_bytes() == 8).then(|| Expr::cast(*to, Expr::shl(f(arg), f(rhs))))
}

/// `f32(f16(x))` computed as `f32(x)`: the rounding to `f16` dropped, as on the H100.
fn drops_f16_rounding(_: &Validated<'_>, x: &Expr, f: &dyn Fn(&Expr) -> Expr) -> Option<Expr> {
    let Expr::Cast {
        to: DataType::F32,
        arg,
    } = x
    else {
        return None;
    };
    let Expr::Cast {
        to: DataType::F16,
        arg: inner,
    } = arg.as_ref()
    else {
        return None;
    };
    Some(Expr::cast(DataType::F32, f(inner)))
}

/// The whole catalogue on the backend applying `rule`; every failure is blamed on the backend.
fn check(id: &'static str, rule: Rule) -> ConformanceReport {
    let backend = Miscompiling {
        inner: ReferenceBackend::new(),
        id,
        rule,
    };
    let report = check_backend_with(&backend, &CheckOptions::default());
    // Every batch ran: one skipped for a missing device feature would hide its cases.
    assert_eq!(report.unsupported(), 0);
    for case in report.failures() {
        let failure = case.failure.as_ref().unwrap();
        assert_eq!(
            failure.culprit,
            Culprit::Backend,
            "{}: {failure:?}",
            case.name
        );
    }
    report
}

/// The names of the failing cases.
fn failing(report: &ConformanceReport) -> Vec<&str> {
    report.failures().map(|c| c.name.as_str()).collect()
}

/// Each case in `names` exists and failed.
fn assert_failed(report: &ConformanceReport, names: &[&str]) {
    for name in names {
        let case = report
            .case(name)
            .unwrap_or_else(|| panic!("no case `{name}`"));
        assert!(!case.passed, "`{name}` passed on `{}`", report.backend);
    }
}

/// No name in `failures` is `bad`; the message lists those that are.
fn assert_none(failures: &[&str], bad: impl Fn(&str) -> bool) {
    let found: Vec<&&str> = failures.iter().filter(|n| bad(n)).collect();
    assert!(
        found.is_empty(),
        "{} unexpected failures: {found:?}",
        found.len()
    );
}

/// Some case of the shape `shape` failed in every form, so the report tells the forms apart.
fn assert_failed_in_forms(report: &ConformanceReport, shape: &str, forms: &[&str]) {
    for form in forms {
        let prefix = format!("driver.{shape}.{form}(");
        assert!(
            failing(report).iter().any(|n| n.starts_with(&prefix)),
            "no `{prefix}` case failed on `{}`",
            report.backend
        );
    }
}

#[test]
fn a_dropped_negation_inside_min_and_max_fails_the_negation_cases_alone() {
    let report = check("drops-negation", drops_negation);
    assert_failed(
        &report,
        &[
            // The two programs fuzzing found, whole, and the second widened into i64.
            "driver.seed.min_of_negation[1]",
            "driver.seed.max_negated_loop_counter[0]",
            "driver.min_min_neg_rem_f32.i32.gid_assigned(1)",
            "driver.min_min_neg_rem_f32.i32.lid_assigned(1)",
            "driver.max_acc_neg2.i32.loop_counter(72237995, 12541355)",
            "driver.max_acc_neg2.widened.literal(72237995, 12541355)",
            "driver.min_neg.i64.literal(5)",
        ],
    );
    for shape in ["min_neg.i32", "min_min_neg_rem.i32"] {
        let forms = ["literal", "loop_counter", "lid", "gid", "load"];
        assert_failed_in_forms(&report, shape, &forms);
    }
    // Only driver cases fail, and none of `0 - x`: the names say which shape went wrong.
    let failures = failing(&report);
    assert_none(&failures, |n| !n.starts_with("driver."));
    assert_none(&failures, |n| n.contains("_sub"));
    assert!(failures.len() > 400, "only {} failed", failures.len());
}

#[test]
fn a_64_bit_order_on_the_low_words_fails_the_low_word_cases_in_every_form() {
    let report = check("low-words", low_words);
    assert_failed(
        &report,
        &[
            // The program fuzzing found, whole, and its two operands as literals and loaded.
            "driver.seed.i64_min_low_word[0]",
            "driver.min_folded_minus_three.i64.literal(-9223372036836883621)",
            "driver.min.i64.literal(-3, -9223372036836883621)",
            "driver.min.i64.load(-3, -9223372036836883621)",
            "driver.lt.u64.literal(0x100000000, 0xffffffff)",
            "driver.min.i32_widened.loop_counter(-3, -9223372036836883621)",
            "driver.min_folded_minus_three.i64.load(-9223372036836883621)",
        ],
    );
    for shape in ["min.i64", "max.u64", "lt.i64"] {
        assert_failed_in_forms(&report, shape, &["literal", "load"]);
    }
    assert_failed_in_forms(
        &report,
        "min.i32_widened",
        &["literal", "loop_counter", "load"],
    );
    // Equality on the whole values is untouched by this rule.
    let failures = failing(&report);
    assert_none(&failures, |n| n.starts_with("driver.eq."));
}

#[test]
fn a_shift_done_before_the_widening_fails_the_widening_cases_in_every_form() {
    let report = check("shifts-before-widening", shifts_before_widening);
    assert_failed(
        &report,
        &[
            // The program fuzzing found, whole: `u64(i32(gid.x)) << 959816159u` for gid.x = 1.
            "driver.seed.sign_extension_past_shift[1]",
            "driver.u64_of_i32.shl.gid(1, 0x3935a1df)",
            "driver.u64_of_i32.shl.lid(1, 0x3935a1df)",
            "driver.u64_of_i32.shl.literal(1, 0x1f)",
            "driver.i64_of_i32.shl.loop_counter(1, 0x20)",
            "driver.u64_of_u32.shl.load(0x80000000, 0x1)",
            "driver.u32_of_u64_of_u32.shl.literal(0x1, 0x21)",
        ],
    );
    for shape in ["u64_of_i32.shl", "i64_of_i32.shl", "u64_of_u32.shl"] {
        let forms = ["literal", "loop_counter", "lid", "gid", "load"];
        assert_failed_in_forms(&report, shape, &forms);
    }
    // Right shifts and remainders keep their order, and their cases pass.
    let failures = failing(&report);
    let driver: Vec<&&str> = failures
        .iter()
        .filter(|n| n.starts_with("driver."))
        .collect();
    assert_none(&failures, |n| {
        let shl = n.contains(".shl.") || n.starts_with("driver.seed.sign_extension");
        n.starts_with("driver.") && !shl
    });
    assert!(
        driver.len() > 300,
        "only {} driver cases failed",
        driver.len()
    );
    // Elsewhere only the contended 64-bit atomics notice, by chance: they shift `u64(lid)` by 40.
    let others: Vec<&str> = report
        .failures()
        .filter(|c| !c.name.starts_with("driver."))
        .map(|c| c.batch.as_str())
        .collect();
    assert!(
        others.iter().all(|b| *b == "atomics.contended.u64"),
        "{others:?}"
    );
}

#[test]
fn a_dropped_f16_rounding_fails_the_round_trip_cases_alone() {
    let report = check("drops-f16-rounding", drops_f16_rounding);
    assert_failed(
        &report,
        &[
            // The program found on the H100, whole: `f32(f16(x))` of x = f32(1/3).
            "driver.seed.f16_round_trip[0]",
            "driver.f32_of_f16_of.f32.literal(0.33333334)",
            "driver.f32_of_f16_of.f32.load(0.33333334)",
            "driver.f32_of_f16_of_f32_of_f16_of.f32.literal(1.0004883)",
            "driver.f32_of_f16_of.u32.loop_counter(0x801)",
            "driver.f32_of_f16_of.i32.load(-4097)",
        ],
    );
    // The f16 kept in a variable or read back from memory is not this rule's shape, and passes.
    for name in [
        "driver.f32_of_f16_variable.f32.literal(0.33333334)",
        "driver.f32_of_f16_read_back.f32.load(0.33333334)",
        "driver.f32_of_f16_of.f32.literal(1.0)",
    ] {
        assert!(report.case(name).unwrap().passed, "{name} failed");
    }
    let failures = failing(&report);
    assert_none(&failures, |n| !n.starts_with("driver."));
    assert!(failures.len() > 100, "only {} failed", failures.len());
}

/// `((x % d) & 1) * K` (or `% 2`, or a quotient's bit) at 64 bits computed as `K`: the bit read as
/// 1, as the H100 did for `x = 0` (`nvidia-wide-quotient-low-bit`).
fn quotient_bit_as_one(v: &Validated<'_>, x: &Expr, f: &dyn Fn(&Expr) -> Expr) -> Option<Expr> {
    let Expr::Binary {
        op: BinOp::Mul,
        lhs,
        rhs,
    } = x
    else {
        return None;
    };
    let Expr::Binary {
        op: BinOp::BitAnd | BinOp::Rem,
        lhs: q,
        ..
    } = lhs.as_ref()
    else {
        return None;
    };
    let divides = matches!(
        q.as_ref(),
        Expr::Binary {
            op: BinOp::Rem | BinOp::Div,
            ..
        }
    );
    let one = match v.type_of(x).ok()? {
        DataType::U64 => Expr::u64(1),
        DataType::I64 => Expr::i64(1),
        _ => return None,
    };
    divides.then(|| Expr::mul(one, f(rhs)))
}

#[test]
fn a_quotient_bit_read_as_one_fails_the_quotient_bit_cases_in_every_form() {
    let report = check("quotient-bit-as-one", quotient_bit_as_one);
    for shape in [
        "rem_bit.u64.and1",
        "rem_bit.u64.rem2",
        "div_bit.u64.and1",
        "rem_bit.i64.and1",
        "rem_bit.i64.rem2",
        "div_bit.i64.and1",
    ] {
        let forms = ["literal", "lid", "gid", "load"];
        assert_failed_in_forms(&report, shape, &forms);
    }
    let failures = failing(&report);
    assert_none(&failures, |n| !n.starts_with("driver."));
    assert!(failures.len() > 100, "only {} failed", failures.len());
}
