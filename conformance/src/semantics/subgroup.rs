//! Subgroups (`SEMANTICS.md` section "Subgroups"): every subgroup operation on full and partial
//! subgroups, with expectations computed from the backend's reported subgroup size, and the
//! refusal of a subgroup program by a backend without subgroups.

use vyre_driver::{BackendError, Capabilities, DispatchConfig, DispatchPlan, VyreBackend};
use vyre_foundation::ir::{BufferDecl, DataType, Expr, Node, Program};
use vyre_foundation::validate::Validated;

use crate::semantics::harness::{Report, bytes_u32, run, words};

/// Invocations per workgroup: a multiple of 8 and 16 but not of 32, so subgroups of 32 lanes or
/// more end in a partial subgroup.
const WORKGROUP: u32 = 48;
/// Workgroups in the grid.
const GROUPS: u32 = 2;

/// The results each invocation stores, in order, with how to compute them from the lane values.
const SLOTS: [&str; 14] = [
    "subgroup_size",
    "subgroup_invocation_id",
    "subgroup_add",
    "subgroup_min",
    "subgroup_max",
    "subgroup_and",
    "subgroup_or",
    "subgroup_xor",
    "subgroup_min (i32)",
    "subgroup_add (f32, exact)",
    "subgroup_broadcast_first",
    "subgroup_ballot (odd inputs)",
    "subgroup_shuffle (lane ^ 1)",
    "subgroup_shuffle (lane 200)",
];

/// The input value of global invocation `i`.
fn input(i: u32) -> u32 {
    i.wrapping_mul(2_654_435_761) >> 20 | (i & 1)
}

fn program() -> Program {
    let k = SLOTS.len() as u32;
    let x = || Expr::var("x");
    let results = [
        Expr::subgroup_size(),
        Expr::subgroup_invocation_id(),
        Expr::subgroup_add(x()),
        Expr::subgroup_min(x()),
        Expr::subgroup_max(x()),
        Expr::subgroup_and(x()),
        Expr::subgroup_or(x()),
        Expr::subgroup_xor(x()),
        Expr::bitcast(
            DataType::U32,
            Expr::subgroup_min(Expr::sub(
                Expr::bitcast(DataType::I32, x()),
                Expr::i32(2048),
            )),
        ),
        Expr::cast(
            DataType::U32,
            Expr::subgroup_add(Expr::cast(DataType::F32, x())),
        ),
        Expr::subgroup_broadcast_first(x()),
        Expr::subgroup_ballot(Expr::eq(Expr::bit_and(x(), Expr::u32(1)), Expr::u32(1))),
        Expr::subgroup_shuffle(
            x(),
            Expr::bit_xor(Expr::subgroup_invocation_id(), Expr::u32(1)),
        ),
        Expr::subgroup_shuffle(x(), Expr::u32(200)),
    ];
    let mut body = vec![
        Node::let_bind("x", Expr::load("input", Expr::gid_x())),
        Node::let_bind("slot", Expr::mul(Expr::gid_x(), Expr::u32(k))),
    ];
    for (s, e) in results.into_iter().enumerate() {
        body.push(Node::store(
            "out",
            Expr::add(Expr::var("slot"), Expr::u32(s as u32)),
            e,
        ));
    }
    let n = WORKGROUP * GROUPS;
    Program::new(
        vec![
            BufferDecl::read("input", 0, DataType::U32).with_count(n),
            BufferDecl::output("out", 1, DataType::U32).with_count(n * k),
        ],
        [WORKGROUP, 1, 1],
        body,
    )
}

/// The expected results of global invocation `i` with subgroups of `size` lanes.
fn expected(i: u32, size: u32) -> [u32; 14] {
    let local = i % WORKGROUP;
    let lane = local % size;
    let first = i - lane;
    let last = (first + size).min(i - local + WORKGROUP);
    let members: Vec<u32> = (first..last).map(input).collect();
    let fold = |f: fn(u32, u32) -> u32| members.iter().copied().reduce(f).unwrap_or(0);
    let mut ballot = [0u32; 4];
    for (l, v) in members.iter().enumerate() {
        if v & 1 == 1 {
            ballot[l / 32] |= 1 << (l % 32);
        }
    }
    let shuffle = |target: u32| members.get(target as usize).copied().unwrap_or(0);
    [
        size,
        lane,
        fold(u32::wrapping_add),
        fold(u32::min),
        fold(u32::max),
        fold(|a, b| a & b),
        fold(|a, b| a | b),
        fold(|a, b| a ^ b),
        members.iter().map(|&v| v as i32 - 2048).min().unwrap_or(0) as u32,
        // Every input is below 2^12 and there are at most 128 lanes: the f32 sum is exact.
        members.iter().map(|&v| v as f32).sum::<f32>() as u32,
        members[0],
        ballot[lane as usize / 32],
        shuffle(lane ^ 1),
        shuffle(200),
    ]
}

/// Every subgroup operation on `u32` (and `i32`, exact `f32`) values in full and partial subgroups,
/// checked against a model of the backend's reported subgroup size; a backend without subgroups
/// must refuse the program instead.
///
/// # Panics
///
/// When a result differs from the model (a test assertion).
pub fn subgroup_operations(backend: &dyn VyreBackend) {
    let case = "subgroup_operations";
    let caps = backend.capabilities();
    let program = program();
    let n = WORKGROUP * GROUPS;
    let inputs = [bytes_u32(&(0..n).map(input).collect::<Vec<_>>())];
    if !caps.subgroups {
        check_refused(backend, case, &program, &inputs);
        return;
    }
    let config = DispatchConfig::new().with_grid([GROUPS, 1, 1]);
    let out = words(&run(backend, case, &program, &inputs, &config)[0]);
    let [min, max] = caps.subgroup_sizes;
    let mut report = Report::new(case);
    let size = out.first().copied().unwrap_or(0);
    report.check(
        size.is_power_of_two() && (min..=max).contains(&size),
        || {
            format!(
                "subgroup_size {size} is not a power of two in the reported range {min}..={max}"
            )
        },
    );
    let k = SLOTS.len();
    for i in 0..n {
        let want = expected(i, size);
        for (s, name) in SLOTS.iter().enumerate() {
            report.eq(
                || format!("{name} of invocation {i} (subgroup size {size})"),
                want[s],
                out.get(i as usize * k + s).copied().unwrap_or(u32::MAX),
            );
        }
    }
    report.finish();
}

/// A backend that reports no subgroups, wrapping one that may have them.
struct WithoutSubgroups<'a>(&'a dyn VyreBackend);

impl VyreBackend for WithoutSubgroups<'_> {
    fn id(&self) -> &str {
        self.0.id()
    }

    fn capabilities(&self) -> Capabilities {
        let mut caps = self.0.capabilities();
        caps.subgroups = false;
        caps.subgroup_sizes = [0, 0];
        caps
    }

    fn execute(
        &self,
        program: &Validated<'_>,
        plan: &DispatchPlan,
        inputs: &[Vec<u8>],
        config: &DispatchConfig,
    ) -> Result<Vec<Vec<u8>>, BackendError> {
        self.0.execute(program, plan, inputs, config)
    }
}

fn check_refused(backend: &dyn VyreBackend, case: &str, program: &Program, inputs: &[Vec<u8>]) {
    let config = DispatchConfig::new().with_grid([GROUPS, 1, 1]);
    match backend.dispatch(program, inputs, &config) {
        Ok(_) => panic!(
            "[{case}] `{}` reports no subgroups but ran a subgroup program",
            backend.id()
        ),
        Err(error) => {
            let text = error.to_string();
            assert!(
                error.kind_name() == "Unsupported"
                    && text.contains("subgroups")
                    && text.contains("Fix:"),
                "[{case}] `{}` refused a subgroup program without naming the feature and a fix: {text}",
                backend.id()
            );
        }
    }
}

/// A backend whose capabilities lack subgroups refuses a subgroup program with `Unsupported`
/// naming the feature, before anything runs; a program without subgroup operations still runs.
///
/// # Panics
///
/// When the refusal or the plain run went wrong (a test assertion).
pub fn subgroups_refused_without_the_feature(backend: &dyn VyreBackend) {
    let case = "subgroups_refused_without_the_feature";
    let without = WithoutSubgroups(backend);
    let n = WORKGROUP * GROUPS;
    let inputs = [bytes_u32(&(0..n).map(input).collect::<Vec<_>>())];
    check_refused(&without, case, &program(), &inputs);
    let plain = Program::new(
        vec![BufferDecl::output("out", 0, DataType::U32).with_count(4)],
        [4, 1, 1],
        vec![Node::store("out", Expr::gid_x(), Expr::u32(7))],
    );
    let out = words(&run(&without, case, &plain, &[], &DispatchConfig::default())[0]);
    let mut report = Report::new(case);
    report.eq(|| "plain program without subgroups".into(), vec![7; 4], out);
    report.finish();
}
