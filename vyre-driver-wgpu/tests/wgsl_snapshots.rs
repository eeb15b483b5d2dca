//! Snapshots of the WGSL the lowering emits, one checked-in file per program in `tests/snapshots/`.
//!
//! Each test builds a program with the public IR builders, emits the module the engine would launch
//! for it, compares the text exactly with its snapshot, and re-parses and re-validates the text with
//! naga, so the snapshots are real WGSL. No GPU is needed. After an intended change to the lowering,
//! run `VYRE_UPDATE_SNAPSHOTS=1 cargo test -p vyre-driver-wgpu --test wgsl_snapshots` and review the
//! diff of `tests/snapshots/` like code.
//!
//! Most programs are emitted in the direct form, the module a plain dispatch runs whenever its grid
//! fits the device; the folded, coalesced and packed snapshots show the other modules the engine
//! launches.

use std::path::PathBuf;

use vyre_driver_wgpu::{
    LaunchForm, Workaround, Workarounds, emit_wgsl, emit_wgsl_as, emit_wgsl_with,
};
use vyre_foundation::ir::{AtomicOp, BufferDecl, DataType, Expr, Features, Node, Program};

const UPDATE_ENV: &str = "VYRE_UPDATE_SNAPSHOTS";

/// At most this many differing lines are shown; the first ones are the ones that explain a change.
const DIFF_LINES: usize = 40;

/// Emits `program` in `form`, re-validates the text, and compares it with `tests/snapshots/{name}.wgsl`
/// (or rewrites that file under `VYRE_UPDATE_SNAPSHOTS=1`).
fn check(name: &str, form: LaunchForm, program: &Program) {
    check_with(name, form, program, Workarounds::NONE);
}

/// [`check`] with the driver workarounds `workarounds` applied.
fn check_with(name: &str, form: LaunchForm, program: &Program, workarounds: Workarounds) {
    let validated =
        vyre_foundation::validate(program).unwrap_or_else(|e| panic!("`{name}` is invalid: {e}"));
    let wgsl = emit_wgsl_with(program, form, workarounds)
        .unwrap_or_else(|e| panic!("`{name}` emits: {e}"));
    // Each snapshot gets exactly the naga capabilities of the optional features its program uses:
    // a module that used one it does not declare would fail here.
    let features = validated.features();
    let mut capabilities = naga::valid::Capabilities::empty();
    for (feature, capability) in [
        (Features::SUBGROUPS, naga::valid::Capabilities::SUBGROUP),
        (Features::F16, naga::valid::Capabilities::SHADER_FLOAT16),
        (Features::INT64, naga::valid::Capabilities::SHADER_INT64),
        (
            Features::INT64_ATOMICS,
            naga::valid::Capabilities::SHADER_INT64_ATOMIC_ALL_OPS,
        ),
    ] {
        if features.contains(feature) {
            capabilities |= capability;
        }
    }
    reparse(name, &wgsl, capabilities);
    // `VYRE_REPO` names the repository's root for a test binary carried away from its checkout.
    let crate_dir = std::env::var_os("VYRE_REPO").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")),
        |root| PathBuf::from(root).join("vyre-driver-wgpu"),
    );
    let path = crate_dir
        .join("tests/snapshots")
        .join(format!("{name}.wgsl"));
    if std::env::var_os(UPDATE_ENV).is_some_and(|v| v == "1") {
        std::fs::write(&path, &wgsl)
            .unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "snapshot {} cannot be read ({e}). Fix: create it with `{UPDATE_ENV}=1 cargo test -p vyre-driver-wgpu --test wgsl_snapshots` and review it.",
            path.display()
        )
    });
    if let Some(diff) = line_diff(&expected, &wgsl) {
        panic!(
            "the WGSL emitted for `{name}` differs from {}:\n{diff}\nFix: if the lowering changed on purpose, run `{UPDATE_ENV}=1 cargo test -p vyre-driver-wgpu --test wgsl_snapshots` and review the diff.",
            path.display()
        );
    }
}

/// naga must read back what it wrote, and the result must pass every validation check; a snapshot
/// that only naga's writer could produce would prove nothing about the text a reader sees.
fn reparse(name: &str, wgsl: &str, capabilities: naga::valid::Capabilities) {
    let module = naga::front::wgsl::parse_str(wgsl).unwrap_or_else(|e| {
        panic!(
            "`{name}`: naga cannot parse its WGSL: {}",
            e.emit_to_string(wgsl)
        )
    });
    naga::valid::Validator::new(naga::valid::ValidationFlags::all(), capabilities)
        .validate(&module)
        .unwrap_or_else(|e| {
            panic!(
                "`{name}`: the re-parsed WGSL fails validation: {}",
                e.emit_to_string(wgsl)
            )
        });
}

/// A line diff of `expected` against `actual` (`-` lines only in the snapshot, `+` lines only in the
/// emitted text, two lines of context), or `None` when they are equal. Lines are matched by their
/// longest common subsequence, so one inserted line shows as one line, not as a shifted tail.
fn line_diff(expected: &str, actual: &str) -> Option<String> {
    if expected == actual {
        return None;
    }
    let old: Vec<&str> = expected.split('\n').collect();
    let new: Vec<&str> = actual.split('\n').collect();
    // common[i][j]: the length of the longest common subsequence of old[i..] and new[j..].
    let mut common = vec![vec![0u32; new.len() + 1]; old.len() + 1];
    for i in (0..old.len()).rev() {
        for j in (0..new.len()).rev() {
            common[i][j] = if old[i] == new[j] {
                common[i + 1][j + 1] + 1
            } else {
                common[i + 1][j].max(common[i][j + 1])
            };
        }
    }
    // One entry per line of the edit script: ' ', '-' or '+', the snapshot's line number, the text.
    let mut script = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < old.len() || j < new.len() {
        if i < old.len() && j < new.len() && old[i] == new[j] {
            script.push((' ', i + 1, old[i]));
            i += 1;
            j += 1;
        } else if i < old.len() && (j == new.len() || common[i + 1][j] >= common[i][j + 1]) {
            // Removals before additions, so a changed line reads as `-` old then `+` new.
            script.push(('-', i + 1, old[i]));
            i += 1;
        } else {
            script.push(('+', i + 1, new[j]));
            j += 1;
        }
    }
    let near_change = |k: usize| {
        script[k.saturating_sub(2)..(k + 3).min(script.len())]
            .iter()
            .any(|&(tag, _, _)| tag != ' ')
    };
    let mut out = String::new();
    let mut shown = 0;
    let mut gap = false;
    for (k, &(tag, line, text)) in script.iter().enumerate() {
        if !near_change(k) {
            gap = true;
            continue;
        }
        if shown == DIFF_LINES {
            out.push_str("... (more differences)\n");
            break;
        }
        if gap || shown == 0 {
            out.push_str(&format!("@@ snapshot line {line}\n"));
            gap = false;
        }
        // A change in trailing whitespace (naga ends attribute lines with a space) or line endings
        // is invisible as plain text, so such changed lines are shown quoted.
        if tag != ' ' && (text.ends_with(char::is_whitespace) || text.is_empty()) {
            out.push_str(&format!("{tag} {text:?}\n"));
        } else {
            out.push_str(&format!("{tag} {text}\n"));
        }
        shown += 1;
    }
    Some(out)
}

/// `out[gid.x] = a[gid.x] + b[gid.x]`: the simplest program, with its guards.
fn elementwise() -> Program {
    let i = Expr::gid_x;
    Program::new(
        vec![
            BufferDecl::read("a", 0, DataType::U32).with_count(1024),
            BufferDecl::read("b", 1, DataType::U32).with_count(1024),
            BufferDecl::output("out", 2, DataType::U32).with_count(1024),
        ],
        [64, 1, 1],
        vec![Node::store(
            "out",
            i(),
            Expr::add(Expr::load("a", i()), Expr::load("b", i())),
        )],
    )
}

#[test]
fn elementwise_add() {
    check("elementwise_add", LaunchForm::Direct, &elementwise());
}

#[test]
fn guarded_loads_and_stores() {
    // A u32 index past the end, a negative i32 index, and a store at an i32 index: the guards must
    // turn the first two into zero and keep the store from landing out of bounds.
    let program = Program::new(
        vec![
            BufferDecl::read("input", 0, DataType::F32).with_count(16),
            BufferDecl::output("out", 1, DataType::F32).with_count(16),
        ],
        [16, 1, 1],
        vec![
            Node::let_bind("i", Expr::bitcast(DataType::I32, Expr::gid_x())),
            Node::let_bind(
                "past_end",
                Expr::load("input", Expr::add(Expr::gid_x(), Expr::u32(16))),
            ),
            Node::let_bind(
                "negative",
                Expr::load("input", Expr::sub(Expr::var("i"), Expr::i32(1))),
            ),
            Node::store(
                "out",
                Expr::sub(Expr::var("i"), Expr::i32(8)),
                Expr::add(Expr::var("past_end"), Expr::var("negative")),
            ),
        ],
    );
    check("guarded_loads_and_stores", LaunchForm::Direct, &program);
}

fn x() -> Expr {
    Expr::var("x")
}

fn y() -> Expr {
    Expr::var("y")
}

/// `out[gid.x * n + k] = results[k]` for `n` results computed from `x = a[gid.x]` (and `y = b[gid.x]`
/// when `b` has a type), so that one snapshot shows every operator of a rule side by side.
fn slotted(a: DataType, b: Option<DataType>, out: DataType, results: Vec<Expr>) -> Program {
    let n = results.len() as u32;
    let mut buffers = vec![BufferDecl::read("a", 0, a).with_count(64)];
    let mut body = vec![Node::let_bind("x", Expr::load("a", Expr::gid_x()))];
    if let Some(b) = b {
        buffers.push(BufferDecl::read("b", 1, b).with_count(64));
        body.push(Node::let_bind("y", Expr::load("b", Expr::gid_x())));
    }
    buffers.push(BufferDecl::output("out", 2, out).with_count(64 * n));
    for (slot, result) in (0..).zip(results) {
        body.push(Node::store(
            "out",
            Expr::add(Expr::mul(Expr::gid_x(), Expr::u32(n)), Expr::u32(slot)),
            result,
        ));
    }
    Program::new(buffers, [64, 1, 1], body)
}

#[test]
fn u32_division_and_remainder() {
    // x / 0 = x and x % 0 = 0.
    let results = vec![Expr::div(x(), y()), Expr::rem(x(), y())];
    let program = slotted(DataType::U32, Some(DataType::U32), DataType::U32, results);
    check("u32_div_rem", LaunchForm::Direct, &program);
}

#[test]
fn i32_division_and_remainder() {
    // As for u32, plus i32::MIN / -1 = i32::MIN and i32::MIN % -1 = 0.
    let results = vec![Expr::div(x(), y()), Expr::rem(x(), y())];
    let program = slotted(DataType::I32, Some(DataType::I32), DataType::I32, results);
    check("i32_div_rem", LaunchForm::Direct, &program);
}

#[test]
fn u32_shifts() {
    // The amount is taken mod 32; `shr` is logical.
    let results = vec![Expr::shl(x(), y()), Expr::shr(x(), y())];
    let program = slotted(DataType::U32, Some(DataType::U32), DataType::U32, results);
    check("u32_shifts", LaunchForm::Direct, &program);
}

#[test]
fn i32_shifts() {
    // The amount is a u32 taken mod 32; `shr` is arithmetic.
    let results = vec![Expr::shl(x(), y()), Expr::shr(x(), y())];
    let program = slotted(DataType::I32, Some(DataType::U32), DataType::I32, results);
    check("i32_shifts", LaunchForm::Direct, &program);
}

#[test]
fn i32_wrapping_neg_and_abs() {
    // -i32::MIN = abs(i32::MIN) = i32::MIN.
    let results = vec![Expr::neg(x()), Expr::abs(x())];
    let program = slotted(DataType::I32, None, DataType::I32, results);
    check("i32_neg_abs", LaunchForm::Direct, &program);
}

#[test]
fn u32_bit_counts() {
    // clz(0) = ctz(0) = 32.
    let results = vec![
        Expr::popcount(x()),
        Expr::clz(x()),
        Expr::ctz(x()),
        Expr::reverse_bits(x()),
    ];
    let program = slotted(DataType::U32, None, DataType::U32, results);
    check("u32_bit_counts", LaunchForm::Direct, &program);
}

/// `out_x[gid.x] = cast(x, input[gid.x])` for each `(out_x, x)` of `outputs`.
fn conversions(
    input: DataType,
    outputs: &[(&str, DataType)],
    convert: fn(DataType, Expr) -> Expr,
) -> Program {
    let mut buffers = vec![BufferDecl::read("input", 0, input).with_count(64)];
    let mut body = vec![Node::let_bind("x", Expr::load("input", Expr::gid_x()))];
    for ((name, to), binding) in outputs.iter().zip(1..) {
        buffers.push(BufferDecl::output(*name, binding, *to).with_count(64));
        body.push(Node::store(
            *name,
            Expr::gid_x(),
            convert(*to, Expr::var("x")),
        ));
    }
    Program::new(buffers, [64, 1, 1], body)
}

#[test]
fn float_to_int_saturating_casts() {
    // Saturation at the nearest f32-representable bound: [0, 4294967040] and
    // [-2147483648, 2147483520]; and `x != 0.0` for bool.
    let program = conversions(
        DataType::F32,
        &[
            ("as_u32", DataType::U32),
            ("as_i32", DataType::I32),
            ("as_bool", DataType::Bool),
        ],
        Expr::cast,
    );
    check("f32_to_int_casts", LaunchForm::Direct, &program);
}

#[test]
fn u32_casts() {
    let program = conversions(
        DataType::U32,
        &[
            ("as_f32", DataType::F32),
            ("as_i32", DataType::I32),
            ("as_bool", DataType::Bool),
        ],
        Expr::cast,
    );
    check("u32_casts", LaunchForm::Direct, &program);
}

#[test]
fn i32_casts() {
    let program = conversions(
        DataType::I32,
        &[("as_f32", DataType::F32), ("as_u32", DataType::U32)],
        Expr::cast,
    );
    check("i32_casts", LaunchForm::Direct, &program);
}

#[test]
fn bool_loads_stores_and_casts() {
    // A bool element is a u32 word: a load is `word != 0`, a store writes 1 or 0.
    let program = conversions(
        DataType::Bool,
        &[
            ("as_u32", DataType::U32),
            ("as_f32", DataType::F32),
            ("negated", DataType::Bool),
        ],
        |to, x| match to {
            DataType::Bool => Expr::not(x),
            _ => Expr::cast(to, x),
        },
    );
    check("bool_casts", LaunchForm::Direct, &program);
}

#[test]
fn bitcasts() {
    let program = conversions(
        DataType::F32,
        &[("as_u32", DataType::U32), ("as_i32", DataType::I32)],
        Expr::bitcast,
    );
    check("bitcasts", LaunchForm::Direct, &program);
}

#[test]
fn counted_loops() {
    // A u32 loop whose bound the body keeps raising, over an i32 loop that counts from below zero:
    // each bound is evaluated once, when its loop starts, so both trip counts are fixed.
    let program = Program::new(
        vec![
            BufferDecl::read("input", 0, DataType::U32).with_count(64),
            BufferDecl::output("out", 1, DataType::I32).with_count(64),
        ],
        [64, 1, 1],
        vec![
            Node::let_bind("sum", Expr::i32(0)),
            Node::let_bind("n", Expr::load("input", Expr::gid_x())),
            Node::loop_for(
                "k",
                Expr::u32(0),
                Expr::var("n"),
                vec![
                    Node::assign("n", Expr::add(Expr::var("n"), Expr::u32(1))),
                    Node::loop_for(
                        "j",
                        Expr::i32(-2),
                        Expr::i32(3),
                        vec![Node::assign(
                            "sum",
                            Expr::add(
                                Expr::var("sum"),
                                Expr::mul(
                                    Expr::var("j"),
                                    Expr::bitcast(DataType::I32, Expr::var("k")),
                                ),
                            ),
                        )],
                    ),
                ],
            ),
            Node::store("out", Expr::gid_x(), Expr::var("sum")),
        ],
    );
    check("counted_loops", LaunchForm::Direct, &program);
}

#[test]
fn barriers_and_workgroup_memory() {
    // A tree reduction in workgroup memory: barriers inside a uniform loop, an early return after it.
    let lid = Expr::local_x;
    let program = Program::new(
        vec![
            BufferDecl::read("input", 0, DataType::U32).with_count(1024),
            BufferDecl::output("sums", 1, DataType::U32).with_count(16),
            BufferDecl::workgroup("partial", 64, DataType::U32),
        ],
        [64, 1, 1],
        vec![
            Node::store("partial", lid(), Expr::load("input", Expr::gid_x())),
            Node::barrier(),
            Node::loop_for(
                "step",
                Expr::u32(0),
                Expr::u32(6),
                vec![
                    Node::let_bind("half", Expr::shr(Expr::u32(32), Expr::var("step"))),
                    Node::if_then(
                        Expr::lt(lid(), Expr::var("half")),
                        vec![Node::store(
                            "partial",
                            lid(),
                            Expr::add(
                                Expr::load("partial", lid()),
                                Expr::load("partial", Expr::add(lid(), Expr::var("half"))),
                            ),
                        )],
                    ),
                    Node::barrier(),
                ],
            ),
            Node::if_then(Expr::ne(lid(), Expr::u32(0)), vec![Node::return_()]),
            Node::store(
                "sums",
                Expr::workgroup_x(),
                Expr::load("partial", Expr::u32(0)),
            ),
        ],
    );
    check("workgroup_reduction", LaunchForm::Direct, &program);
}

#[test]
fn guards_proven_away() {
    // Proven in bounds, so unguarded: `data[i]` under `i < buf_len(data)`, `out[i]` under `i < 64`
    // (the declared count), `table[k]` for a loop variable below 16, a literal index, and `lid`
    // into a workgroup buffer of the workgroup's size. `out[gid.x + 1]` keeps its guard.
    let i = || Expr::var("i");
    let program = Program::new(
        vec![
            BufferDecl::read("data", 0, DataType::U32),
            BufferDecl::read("table", 1, DataType::U32).with_count(16),
            BufferDecl::output("out", 2, DataType::U32).with_count(64),
            BufferDecl::workgroup("scratch", 64, DataType::U32),
        ],
        [64, 1, 1],
        vec![
            Node::let_bind("i", Expr::gid_x()),
            Node::let_bind("acc", Expr::load("table", Expr::u32(15))),
            Node::loop_for(
                "k",
                Expr::u32(0),
                Expr::u32(16),
                vec![Node::assign(
                    "acc",
                    Expr::add(Expr::var("acc"), Expr::load("table", Expr::var("k"))),
                )],
            ),
            Node::store("scratch", Expr::local_x(), Expr::var("acc")),
            Node::if_then(
                Expr::lt(i(), Expr::buf_len("data")),
                vec![Node::if_then(
                    Expr::lt(i(), Expr::u32(64)),
                    vec![Node::store(
                        "out",
                        i(),
                        Expr::add(
                            Expr::load("data", i()),
                            Expr::load("scratch", Expr::local_x()),
                        ),
                    )],
                )],
            ),
            Node::store("out", Expr::add(i(), Expr::u32(1)), Expr::u32(0)),
        ],
    );
    check("guards_proven_away", LaunchForm::Direct, &program);
}

#[test]
fn atomics() {
    // Every atomic operation on a storage buffer, a strong compare-exchange, and an atomic in
    // workgroup memory; each yields the old value, and a plain load of an atomic buffer is atomic.
    let i = Expr::gid_x;
    let slot = |k: u32| Expr::u32(k);
    let ops = [
        AtomicOp::Add,
        AtomicOp::Sub,
        AtomicOp::Min,
        AtomicOp::Max,
        AtomicOp::And,
        AtomicOp::Or,
        AtomicOp::Xor,
        AtomicOp::Exchange,
    ];
    let mut body = Vec::new();
    for (k, op) in (0..).zip(ops) {
        body.push(Node::let_bind(
            format!("old{k}"),
            Expr::atomic(op, "counters", slot(k), i()),
        ));
    }
    body.extend([
        Node::let_bind(
            "swapped",
            Expr::atomic_compare_exchange("counters", slot(8), Expr::u32(0), i()),
        ),
        Node::let_bind(
            "shared_old",
            Expr::atomic_add("hits", Expr::u32(0), Expr::u32(1)),
        ),
        Node::store(
            "olds",
            i(),
            Expr::add(Expr::var("old0"), Expr::var("swapped")),
        ),
        Node::store(
            "olds",
            Expr::add(i(), Expr::u32(64)),
            Expr::load("hits", Expr::u32(0)),
        ),
        Node::store(
            "olds",
            Expr::add(i(), Expr::u32(128)),
            Expr::var("shared_old"),
        ),
    ]);
    let program = Program::new(
        vec![
            BufferDecl::read_write("counters", 0, DataType::U32).with_count(9),
            BufferDecl::output("olds", 1, DataType::U32).with_count(192),
            BufferDecl::workgroup("hits", 1, DataType::U32),
        ],
        [64, 1, 1],
        body,
    );
    check("atomics", LaunchForm::Direct, &program);
}

#[test]
fn uniform_buffers() {
    // Uniform buffers are arrays of vec4 words: element i is lane i % 4 of row i / 4.
    let program = Program::new(
        vec![
            BufferDecl::uniform("scale", 0, DataType::F32).with_count(6),
            BufferDecl::read("input", 1, DataType::F32).with_count(64),
            BufferDecl::output("out", 2, DataType::F32).with_count(64),
        ],
        [64, 1, 1],
        vec![Node::store(
            "out",
            Expr::gid_x(),
            Expr::fma(
                Expr::load("input", Expr::gid_x()),
                Expr::load("scale", Expr::u32(0)),
                Expr::load("scale", Expr::rem(Expr::gid_x(), Expr::u32(6))),
            ),
        )],
    );
    check("uniform_buffers", LaunchForm::Direct, &program);
}

#[test]
fn runtime_sized_buffers() {
    // Counts come from the caller's bytes, so guards and `buf_len` read them from `params`.
    let program = Program::new(
        vec![
            BufferDecl::read("input", 0, DataType::U32),
            BufferDecl::read_write("scratch", 1, DataType::U32),
            BufferDecl::output("out", 2, DataType::U32).with_count(64),
        ],
        [64, 1, 1],
        vec![
            Node::store("scratch", Expr::gid_x(), Expr::buf_len("input")),
            Node::store(
                "out",
                Expr::gid_x(),
                Expr::add(
                    Expr::load("input", Expr::gid_x()),
                    Expr::load("scratch", Expr::gid_x()),
                ),
            ),
        ],
    );
    check("runtime_sized_buffers", LaunchForm::Direct, &program);
}

#[test]
fn outputs_with_byte_ranges() {
    // A byte range only changes what is read back: the module matches one without it.
    let program = Program::new(
        vec![
            BufferDecl::read("input", 0, DataType::U32).with_count(64),
            BufferDecl::output("head", 1, DataType::U32)
                .with_count(64)
                .with_output_byte_range(0..16),
            BufferDecl::output("tail", 2, DataType::U32)
                .with_count(64)
                .with_output_byte_range(240..256),
        ],
        [64, 1, 1],
        vec![
            Node::store("head", Expr::gid_x(), Expr::load("input", Expr::gid_x())),
            Node::store(
                "tail",
                Expr::gid_x(),
                Expr::bit_not(Expr::load("input", Expr::gid_x())),
            ),
        ],
    );
    check("output_byte_ranges", LaunchForm::Direct, &program);
}

/// A persistent-queue program: one input, one output; each item sums its words into `out[0]` with an
/// atomic, which keeps it out of the packed form.
fn queue_sum() -> Program {
    Program::new(
        vec![
            BufferDecl::read("payload", 0, DataType::U32),
            BufferDecl::output("out", 1, DataType::U32).with_count(1),
        ],
        [64, 1, 1],
        vec![Node::let_bind(
            "old",
            Expr::atomic_add("out", Expr::u32(0), Expr::load("payload", Expr::gid_x())),
        )],
    )
}

#[test]
fn coalesced_persistent_queue_module() {
    check("coalesced_queue_sum", LaunchForm::Coalesced, &queue_sum());
}

#[test]
fn packed_module() {
    check("packed_elementwise_add", LaunchForm::Packed, &elementwise());
}

#[test]
fn split_module() {
    // One piece of a dispatch split over several launches: the whole grid's ids (`params[5]` added to
    // the workgroup id, `params[6]` as `num_workgroups.x`), and every storage index rebased onto the
    // piece's bound range after its guard.
    check("split_elementwise_add", LaunchForm::Split, &elementwise());
    let refused = emit_wgsl_as(&queue_sum(), LaunchForm::Split);
    assert!(
        matches!(refused, Err(vyre_driver::BackendError::Unsupported(_))),
        "{refused:?}"
    );
}

#[test]
fn packed_is_refused_for_a_program_the_engine_never_packs() {
    let refused = emit_wgsl_as(&queue_sum(), LaunchForm::Packed);
    assert!(
        matches!(refused, Err(vyre_driver::BackendError::Unsupported(_))),
        "{refused:?}"
    );
}

#[test]
fn folded_grid_module() {
    // `emit_wgsl` writes the folded form: the one a plain dispatch of more than 65535 workgroups per
    // dimension runs, with the virtual grid rebuilt from the linear physical workgroup index.
    // 2^25 output words in workgroups of 256 are 131072 workgroups along x.
    let program = Program::new(
        vec![
            BufferDecl::read("a", 0, DataType::U32),
            BufferDecl::output("out", 1, DataType::U32).with_count(1 << 25),
        ],
        [256, 1, 1],
        vec![Node::store(
            "out",
            Expr::gid_x(),
            Expr::add(Expr::load("a", Expr::gid_x()), Expr::gid_y()),
        )],
    );
    check("folded_grid", LaunchForm::Folded, &program);
    assert_eq!(
        emit_wgsl(&program).expect("emit_wgsl"),
        emit_wgsl_as(&program, LaunchForm::Folded).expect("emit_wgsl_as"),
        "emit_wgsl must write the folded form"
    );
}

#[test]
fn vectorised_elementwise_add() {
    // Four virtual invocations per invocation: the full-row path is one compare, one `vec4` load per
    // input and one `vec4` store of the output; the partial row runs the lanes that exist with
    // every guard.
    check("vectorised_add", LaunchForm::Vectorised, &elementwise());
    check(
        "vectorised_add_folded",
        LaunchForm::VectorisedFolded,
        &elementwise(),
    );
}

#[test]
fn vectorised_readme_shape() {
    // The README's `if i < n { out[i] = input[i] + 1 }`: the store is conditional, so `out` keeps a
    // flag per lane and is stored whole only when all four lanes stored.
    let n = 1000;
    let i = Expr::gid_x;
    let program = Program::new(
        vec![
            BufferDecl::read("input", 0, DataType::U32).with_count(n),
            BufferDecl::output("out", 1, DataType::U32).with_count(n),
        ],
        [64, 1, 1],
        vec![Node::if_then(
            Expr::lt(i(), Expr::u32(n)),
            vec![Node::store(
                "out",
                i(),
                Expr::add(Expr::load("input", i()), Expr::u32(1)),
            )],
        )],
    );
    check("vectorised_guarded_store", LaunchForm::Vectorised, &program);
}

#[test]
fn vectorised_in_place_runtime_sized_and_scalar_neighbours() {
    // `x[i] = x[i] * 3 + table[i % 16]` over a runtime-sized read-write buffer with a bool output
    // and the per-lane builtins: `x` is loaded once, updated in a local and written back; `table`,
    // loaded elsewhere than at `gid.x`, stays a guarded scalar array.
    let i = || Expr::var("i");
    let program = Program::new(
        vec![
            BufferDecl::read_write("x", 0, DataType::U32),
            BufferDecl::read("table", 1, DataType::U32).with_count(16),
            BufferDecl::output("odd", 2, DataType::Bool).with_count(64),
            BufferDecl::output("ids", 3, DataType::U32).with_count(64),
        ],
        [8, 1, 1],
        vec![
            Node::let_bind("i", Expr::gid_x()),
            Node::store(
                "x",
                i(),
                Expr::add(
                    Expr::mul(Expr::load("x", i()), Expr::u32(3)),
                    Expr::load("table", Expr::rem(i(), Expr::u32(16))),
                ),
            ),
            Node::store(
                "odd",
                i(),
                Expr::eq(
                    Expr::bit_and(Expr::load("x", i()), Expr::u32(1)),
                    Expr::u32(1),
                ),
            ),
            Node::store(
                "ids",
                i(),
                Expr::add(
                    Expr::local_x(),
                    Expr::mul(Expr::workgroup_x(), Expr::u32(100)),
                ),
            ),
        ],
    );
    check("vectorised_in_place", LaunchForm::Vectorised, &program);
}

#[test]
fn vectorised_is_refused_for_a_program_that_does_not_qualify() {
    let refused = emit_wgsl_as(&queue_sum(), LaunchForm::Vectorised);
    assert!(
        matches!(refused, Err(vyre_driver::BackendError::Unsupported(_))),
        "{refused:?}"
    );
}

#[test]
fn a_one_byte_change_shows_as_a_line_diff() {
    let snapshot = "a\nb\nc\nd\n";
    assert_eq!(line_diff(snapshot, snapshot), None);
    let diff = line_diff(snapshot, "a\nb\nx\nd\n").expect("a diff");
    assert!(diff.contains("- c\n+ x\n"), "{diff}");
    assert!(diff.contains("@@ snapshot line "), "{diff}");
    let inserted = line_diff(snapshot, "a\nb\nnew\nc\nd\n").expect("a diff");
    assert!(
        inserted.contains("+ new\n") && !inserted.contains("- "),
        "{inserted}"
    );
    let trailing = line_diff("a \n", "a\n").expect("a diff");
    assert!(trailing.contains("- \"a \"\n+ a\n"), "{trailing}");
}

/// A loop over `0..8` that skips odd `k`, leaves at the first `k` past the invocation's input and
/// sums the rest; used directly, vectorised and packed below.
fn break_and_continue_program() -> Program {
    let k = || Expr::var("k");
    Program::new(
        vec![
            BufferDecl::read("input", 0, DataType::U32).with_count(64),
            BufferDecl::output("out", 1, DataType::U32).with_count(64),
        ],
        [64, 1, 1],
        vec![
            Node::let_bind("sum", Expr::u32(0)),
            Node::loop_for(
                "k",
                Expr::u32(0),
                Expr::u32(8),
                vec![
                    Node::if_then(
                        Expr::eq(Expr::bit_and(k(), Expr::u32(1)), Expr::u32(1)),
                        vec![Node::continue_()],
                    ),
                    Node::if_then(
                        Expr::gt(k(), Expr::load("input", Expr::gid_x())),
                        vec![Node::break_()],
                    ),
                    Node::assign("sum", Expr::add(Expr::var("sum"), k())),
                ],
            ),
            Node::store("out", Expr::gid_x(), Expr::var("sum")),
        ],
    )
}

#[test]
fn break_and_continue() {
    // `continue` goes to the `continuing` block, which steps `k`; `break` leaves the counted loop.
    check(
        "break_and_continue",
        LaunchForm::Direct,
        &break_and_continue_program(),
    );
}

#[test]
fn programs_with_loops_are_not_vectorised() {
    // The four lanes of a vectorised invocation would run their loops one after another, and
    // llvmpipe's loop limiter counts every iteration of a SIMD vector together (SEMANTICS.md
    // section 2): such a program keeps the scalar form.
    let e = emit_wgsl_as(&break_and_continue_program(), LaunchForm::Vectorised)
        .expect_err("a program with loops is not vectorised");
    assert_eq!(e.kind_name(), "Unsupported", "{e}");
}

#[test]
fn packed_break_and_continue() {
    check(
        "packed_break_and_continue",
        LaunchForm::Packed,
        &break_and_continue_program(),
    );
}

#[test]
fn while_loops() {
    // Collatz steps until 1, at most 100: the condition is evaluated before every iteration, and a
    // `while` whose condition is false at once runs no iteration.
    let n = || Expr::var("n");
    let program = Program::new(
        vec![
            BufferDecl::read("input", 0, DataType::U32).with_count(64),
            BufferDecl::output("steps", 1, DataType::U32).with_count(64),
        ],
        [64, 1, 1],
        vec![
            Node::let_bind("n", Expr::load("input", Expr::gid_x())),
            Node::let_bind("count", Expr::u32(0)),
            Node::loop_while(
                Expr::and(
                    Expr::gt(n(), Expr::u32(1)),
                    Expr::lt(Expr::var("count"), Expr::u32(100)),
                ),
                vec![
                    Node::assign("count", Expr::add(Expr::var("count"), Expr::u32(1))),
                    Node::if_then_else(
                        Expr::eq(Expr::bit_and(n(), Expr::u32(1)), Expr::u32(0)),
                        vec![
                            Node::assign("n", Expr::shr(n(), Expr::u32(1))),
                            Node::continue_(),
                        ],
                        vec![Node::assign(
                            "n",
                            Expr::add(Expr::mul(n(), Expr::u32(3)), Expr::u32(1)),
                        )],
                    ),
                ],
            ),
            Node::loop_while(Expr::bool(false), vec![Node::break_()]),
            Node::store("steps", Expr::gid_x(), Expr::var("count")),
        ],
    );
    check("while_loops", LaunchForm::Direct, &program);
}

#[test]
fn atomic_statements() {
    // Every atomic as a statement: the read-modify-writes need no result, the exchanges keep
    // theirs (naga requires it) and drop it.
    let mut body: Vec<Node> = [
        AtomicOp::Add,
        AtomicOp::Sub,
        AtomicOp::Min,
        AtomicOp::Max,
        AtomicOp::And,
        AtomicOp::Or,
        AtomicOp::Xor,
        AtomicOp::Exchange,
    ]
    .into_iter()
    .zip(0..)
    .map(|(op, k)| Node::atomic(op, "counters", Expr::u32(k), Expr::gid_x()))
    .collect();
    body.push(Node::atomic_compare_exchange(
        "counters",
        Expr::u32(8),
        Expr::u32(0),
        Expr::gid_x(),
    ));
    body.push(Node::atomic(
        AtomicOp::Add,
        "counters",
        Expr::gid_x(),
        Expr::u32(1),
    ));
    let program = Program::new(
        vec![BufferDecl::read_write("counters", 0, DataType::U32).with_count(16)],
        [64, 1, 1],
        body,
    );
    check("atomic_statements", LaunchForm::Direct, &program);
}

#[test]
fn i64_division_remainder_and_shifts() {
    // The 32-bit rules at 64 bits: `x / 0 = x`, `MIN / -1 = MIN`, `x % 0 = 0`, and shift amounts
    // (a u32) taken mod 64.
    let results = vec![
        Expr::div(x(), Expr::cast(DataType::I64, y())),
        Expr::rem(x(), Expr::cast(DataType::I64, y())),
        Expr::shl(x(), y()),
        Expr::shr(x(), y()),
    ];
    let program = slotted(DataType::I64, Some(DataType::U32), DataType::I64, results);
    check("i64_div_rem_shifts", LaunchForm::Direct, &program);
}

#[test]
fn sixty_four_bit_casts() {
    // Widening by the source's signedness, truncation, and f32 saturation at 2^63 - 2^39 and
    // 2^64 - 2^40.
    let results = vec![
        Expr::cast(DataType::U64, Expr::cast(DataType::I32, x())),
        Expr::cast(DataType::U64, x()),
        Expr::cast(DataType::U64, Expr::cast(DataType::F32, x())),
        Expr::bitcast(
            DataType::U64,
            Expr::cast(DataType::I64, Expr::cast(DataType::F32, x())),
        ),
        Expr::cast(
            DataType::U64,
            Expr::cast(DataType::U32, Expr::u64(u64::MAX)),
        ),
    ];
    let program = slotted(DataType::U32, None, DataType::U64, results);
    check("sixty_four_bit_casts", LaunchForm::Direct, &program);
}

#[test]
fn f16_arithmetic_and_casts() {
    // `enable f16;`, f16 storage, arithmetic in f16, and conversions clamped to +-65504.
    let h = Expr::cast(DataType::F16, y());
    let results = vec![
        Expr::add(x(), Expr::f16(0.5)),
        Expr::div(x(), h.clone()),
        Expr::cast(DataType::F16, Expr::cast(DataType::I32, x())),
        Expr::cast(DataType::F16, Expr::cast(DataType::U64, x())),
        Expr::select(Expr::lt(x(), h), Expr::f16_bits(0x7c00), x()),
    ];
    let program = slotted(DataType::F16, Some(DataType::F32), DataType::F16, results);
    check("f16_arithmetic_and_casts", LaunchForm::Direct, &program);
}

/// Every subgroup operation: the collectives as naga's subgroup statements, the ballot's word of the
/// invocation's own lane, and the shuffle guarded so that a lane the subgroup lacks reads 0.
fn subgroup_program() -> Program {
    let x = || Expr::var("x");
    let lane = Expr::subgroup_invocation_id;
    let results = vec![
        Expr::subgroup_size(),
        lane(),
        Expr::subgroup_add(x()),
        Expr::subgroup_min(x()),
        Expr::subgroup_max(x()),
        Expr::subgroup_and(x()),
        Expr::subgroup_or(x()),
        Expr::subgroup_xor(x()),
        Expr::subgroup_broadcast_first(x()),
        Expr::subgroup_ballot(Expr::lt(x(), Expr::u32(10))),
        Expr::subgroup_shuffle(x(), Expr::bit_xor(lane(), Expr::u32(1))),
        Expr::bitcast(
            DataType::U32,
            Expr::subgroup_add(Expr::cast(DataType::F32, x())),
        ),
    ];
    let k = results.len() as u32;
    let mut body = vec![Node::let_bind("x", Expr::load("a", Expr::gid_x()))];
    for (s, e) in results.into_iter().enumerate() {
        body.push(Node::store(
            "out",
            Expr::add(Expr::mul(Expr::gid_x(), Expr::u32(k)), Expr::u32(s as u32)),
            e,
        ));
    }
    Program::new(
        vec![
            BufferDecl::read("a", 0, DataType::U32).with_count(96),
            BufferDecl::output("out", 1, DataType::U32).with_count(96 * k),
        ],
        [48, 1, 1],
        body,
    )
}

#[test]
fn subgroup_operations() {
    check(
        "subgroup_operations",
        LaunchForm::Direct,
        &subgroup_program(),
    );
}

#[test]
fn subgroup_programs_get_no_form_that_remaps_invocations() {
    // An elementwise-looking subgroup program: the vectorised, packed and split forms would change
    // which invocations share a subgroup, so none of them applies.
    let program = Program::new(
        vec![
            BufferDecl::read("a", 0, DataType::U32).with_count(256),
            BufferDecl::output("out", 1, DataType::U32).with_count(256),
        ],
        [64, 1, 1],
        vec![Node::store(
            "out",
            Expr::gid_x(),
            Expr::subgroup_add(Expr::load("a", Expr::gid_x())),
        )],
    );
    for form in [
        LaunchForm::Vectorised,
        LaunchForm::Packed,
        LaunchForm::Split,
    ] {
        let refused = emit_wgsl_as(&program, form);
        assert!(
            matches!(refused, Err(vyre_driver::BackendError::Unsupported(_))),
            "{form:?}: {refused:?}"
        );
    }
    assert!(emit_wgsl_as(&program, LaunchForm::Direct).is_ok());
}

/// Four consecutive elements of `data` per invocation, weighted by lane.
fn sum_of_four() -> Program {
    let b = || Expr::var("b");
    let lanes = [
        Expr::load("data", b()),
        Expr::load("data", Expr::add(b(), Expr::u32(1))),
        Expr::load("data", Expr::add(b(), Expr::u32(2))),
        Expr::load("data", Expr::add(b(), Expr::u32(3))),
    ];
    let sum = lanes
        .into_iter()
        .reduce(|acc, e| Expr::add(Expr::mul(acc, Expr::u32(3)), e))
        .unwrap_or_else(|| Expr::u32(0));
    Program::new(
        vec![
            BufferDecl::read("data", 0, DataType::U32),
            BufferDecl::output("out", 1, DataType::U32).with_count(256),
        ],
        [64, 1, 1],
        vec![
            Node::let_bind("b", Expr::shl(Expr::gid_x(), Expr::u32(2))),
            Node::store("out", Expr::gid_x(), sum),
        ],
    )
}

#[test]
fn row_loads() {
    // `data[b + c]` for c in 0..4 with `b` a multiple of 4: `data` is declared as `vec4` rows and
    // the statement reads one row, clamped to the last, each lane guarded by `b + c < len`.
    check("row_loads", LaunchForm::Direct, &sum_of_four());
    // With the vectorised form's four lanes, each lane reads its own row.
    check(
        "row_loads_vectorised",
        LaunchForm::Vectorised,
        &sum_of_four(),
    );
}

/// Each driver workaround's rewrite (`vyre_driver_wgpu::workarounds`), on a program that has its
/// shape: integer `min`/`max` as an opaque compare and a select, widenings as shifts by an opaque
/// amount, and a conversion to `f16` rounded in integer arithmetic first.
#[test]
fn driver_workarounds() {
    let text = "program @workgroup_size(64, 1, 1) {
  buffer a: read i32[256] @binding(0);
  buffer out: output i64[256] @binding(1);
  buffer h: output f16[256] @binding(2);
  let v = a[gid.x];
  out[gid.x] = (i64(min(v, -v)) << 31u);
  h[gid.x] = f16((f32(v) * 0.33333334f));
}";
    let program: Program = text.parse().expect("parses");
    for workaround in Workaround::ALL {
        check_with(
            &format!("workaround_{}", workaround.name()),
            LaunchForm::Direct,
            &program,
            Workarounds::NONE.with(workaround),
        );
    }
}
