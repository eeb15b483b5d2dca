//! Snapshots of the WGSL the lowering emits: each `tests/snapshots/NAME.vyre` holds a program in the
//! text form (what `Program`'s `Display` prints), and `NAME.wgsl` beside it the module the engine
//! launches for that program.
//!
//! A `.vyre` file opens with `//` comments. `// form: NAME` names the launch form: `direct`, the
//! module a plain dispatch runs whenever its grid fits the device, or one of the other modules the
//! engine launches, `folded`, `coalesced`, `packed`, `split`, `vectorised` or `vectorised_folded`
//! (see `LaunchForm`). An optional `// workarounds: NAMES` applies driver workarounds, written as
//! `Workarounds` parses them (`int_min_max`). A snapshot pins the lowering of the program as
//! written; `// passes: on` runs the standard IR passes first, as the backend does by default
//! (`emit_wgsl_with`), for snapshots that show what the passes leave. The other comments say what
//! the snapshot pins.
//!
//! For every `.vyre` the test parses and validates the program, emits its module, re-parses and
//! re-validates that text with naga, so the snapshots are real WGSL, and compares it exactly with
//! the `.wgsl`. It needs no GPU and reports every failing snapshot at once. To add a snapshot, write
//! its `.vyre`; to create its `.wgsl`, or after an intended change to the lowering, run
//! `VYRE_UPDATE_SNAPSHOTS=1 cargo test -p vyre-driver-wgpu --test wgsl_snapshots` and review the
//! diff of `tests/snapshots/` like code.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use vyre_driver_wgpu::{
    LaunchForm, Workarounds, emit_wgsl, emit_wgsl_as, emit_wgsl_with, emit_wgsl_written,
};
use vyre_foundation::ir::{Features, Program};

const UPDATE_ENV: &str = "VYRE_UPDATE_SNAPSHOTS";

/// The command that rewrites the `.wgsl` files, for the `Fix:` of a failure.
const UPDATE_COMMAND: &str =
    "VYRE_UPDATE_SNAPSHOTS=1 cargo test -p vyre-driver-wgpu --test wgsl_snapshots";

/// At most this many differing lines are shown; the first ones are the ones that explain a change.
const DIFF_LINES: usize = 40;

/// The name each launch form has in a `// form:` line.
const FORMS: [(&str, LaunchForm); 7] = [
    ("direct", LaunchForm::Direct),
    ("folded", LaunchForm::Folded),
    ("coalesced", LaunchForm::Coalesced),
    ("packed", LaunchForm::Packed),
    ("split", LaunchForm::Split),
    ("vectorised", LaunchForm::Vectorised),
    ("vectorised_folded", LaunchForm::VectorisedFolded),
];

#[test]
fn every_snapshot_emits_its_wgsl() {
    let dir = snapshot_dir();
    let mut inputs = BTreeSet::new();
    let mut outputs = BTreeSet::new();
    let entries = std::fs::read_dir(&dir).unwrap_or_else(|e| {
        panic!(
            "cannot list {}: {e}. Fix: run the test from a vyre checkout, or set VYRE_REPO to one.",
            dir.display()
        )
    });
    for entry in entries {
        let path = entry
            .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
            .path();
        let (Some(stem), Some(extension)) = (path.file_stem(), path.extension()) else {
            continue;
        };
        let stem = stem.to_string_lossy().into_owned();
        match extension.to_str() {
            Some("vyre") => inputs.insert(stem),
            Some("wgsl") => outputs.insert(stem),
            _ => continue,
        };
    }
    assert!(
        !inputs.is_empty(),
        "{} holds no `.vyre` file. Fix: run the test from a vyre checkout, or set VYRE_REPO to one.",
        dir.display()
    );
    let update = std::env::var_os(UPDATE_ENV).is_some_and(|v| v == "1");
    let mut failures: Vec<String> = outputs
        .difference(&inputs)
        .map(|name| {
            format!(
                "{name}.wgsl has no {name}.vyre. Fix: write the program it snapshots as {name}.vyre, or delete {name}.wgsl."
            )
        })
        .collect();
    for name in &inputs {
        if let Err(e) = check(&dir, name, update) {
            failures.push(format!("{name}.vyre: {e}"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of the snapshots in {} fail:\n\n{}",
        failures.len(),
        dir.display(),
        failures.join("\n\n")
    );
}

/// `tests/snapshots/`; `VYRE_REPO` names the repository's root for a test binary carried away from
/// its checkout.
fn snapshot_dir() -> PathBuf {
    let crate_dir = std::env::var_os("VYRE_REPO").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")),
        |root| PathBuf::from(root).join("vyre-driver-wgpu"),
    );
    crate_dir.join("tests/snapshots")
}

/// Emits the program of `dir/{name}.vyre`, re-validates the text, and compares it with
/// `dir/{name}.wgsl`, or writes that file when `update` is set.
fn check(dir: &Path, name: &str, update: bool) -> Result<(), String> {
    let text = std::fs::read_to_string(dir.join(format!("{name}.vyre")))
        .map_err(|e| format!("cannot be read ({e})."))?;
    let (form, workarounds, passes) = header(&text)?;
    let program: Program = text.parse().map_err(|e| format!("is no program: {e}"))?;
    let validated =
        vyre_foundation::validate(&program).map_err(|e| format!("the program is invalid: {e}"))?;
    let emit = if passes {
        emit_wgsl_with
    } else {
        emit_wgsl_written
    };
    let wgsl =
        emit(&program, form, workarounds).map_err(|e| format!("the program does not emit: {e}"))?;
    reparse(&wgsl, capabilities(validated.features()))?;
    let path = dir.join(format!("{name}.wgsl"));
    if update {
        return std::fs::write(&path, &wgsl)
            .map_err(|e| format!("cannot write {}: {e}", path.display()));
    }
    let expected = std::fs::read_to_string(&path).map_err(|e| {
        format!(
            "its snapshot {} cannot be read ({e}). Fix: create it with `{UPDATE_COMMAND}` and review it.",
            path.display()
        )
    })?;
    match line_diff(&expected, &wgsl) {
        None => Ok(()),
        Some(diff) => Err(format!(
            "the WGSL emitted differs from {}:\n{diff}\nFix: if the lowering changed on purpose, run `{UPDATE_COMMAND}` and review the diff.",
            path.display()
        )),
    }
}

/// The launch form, the workarounds and whether the IR passes run, as the `// form:`,
/// `// workarounds:` and `// passes:` lines among the comments opening `text` say; no workarounds
/// and no passes when there is no such line.
fn header(text: &str) -> Result<(LaunchForm, Workarounds, bool), String> {
    let mut form = None;
    let mut workarounds = None;
    let mut passes = None;
    let comments = text
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty())
        .map_while(|line| line.strip_prefix("//"))
        .map(str::trim);
    for comment in comments {
        if let Some(name) = comment.strip_prefix("form:") {
            let name = name.trim();
            let named = FORMS.iter().find(|(n, _)| *n == name).ok_or_else(|| {
                let names: Vec<&str> = FORMS.iter().map(|(n, _)| *n).collect();
                format!(
                    "`{name}` is no launch form. Fix: write one of {}.",
                    names.join(", ")
                )
            })?;
            if form.replace(named.1).is_some() {
                return Err("names its form twice. Fix: keep one `// form:` line.".to_string());
            }
        } else if let Some(switch) = comment.strip_prefix("passes:") {
            let on = match switch.trim() {
                "on" => true,
                "off" => false,
                other => {
                    return Err(format!(
                        "`passes: {other}` is neither `on` nor `off`. Fix: write `// passes: on` or leave the line out."
                    ));
                }
            };
            if passes.replace(on).is_some() {
                return Err("says `passes:` twice. Fix: keep one `// passes:` line.".to_string());
            }
        } else if let Some(names) = comment.strip_prefix("workarounds:") {
            let named = names.parse::<Workarounds>().map_err(|e| e.to_string())?;
            if workarounds.replace(named).is_some() {
                return Err(
                    "names its workarounds twice. Fix: keep one `// workarounds:` line."
                        .to_string(),
                );
            }
        }
    }
    let form = form.ok_or_else(|| {
        "names no launch form. Fix: open it with a comment such as `// form: direct`.".to_string()
    })?;
    Ok((
        form,
        workarounds.unwrap_or(Workarounds::NONE),
        passes.unwrap_or(false),
    ))
}

/// Exactly the naga capabilities of the optional features a program uses, so that a module needing
/// one its program does not declare fails validation.
fn capabilities(features: Features) -> naga::valid::Capabilities {
    let mut capabilities = naga::valid::Capabilities::empty();
    for (feature, capability) in [
        (Features::SUBGROUPS, naga::valid::Capabilities::SUBGROUP),
        (Features::F16, naga::valid::Capabilities::SHADER_FLOAT16),
        (
            Features::TILES,
            naga::valid::Capabilities::COOPERATIVE_MATRIX,
        ),
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
    capabilities
}

/// naga must read back what it wrote, and the result must pass every validation check; a snapshot
/// that only naga's writer could produce would prove nothing about the text a reader sees.
fn reparse(wgsl: &str, capabilities: naga::valid::Capabilities) -> Result<(), String> {
    let module = naga::front::wgsl::parse_str(wgsl)
        .map_err(|e| format!("naga cannot parse its WGSL: {}", e.emit_to_string(wgsl)))?;
    naga::valid::Validator::new(naga::valid::ValidationFlags::all(), capabilities)
        .validate(&module)
        .map_err(|e| {
            format!(
                "the re-parsed WGSL fails validation: {}",
                e.emit_to_string(wgsl)
            )
        })?;
    Ok(())
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

/// The program of the snapshot `name`, for the tests of the forms that refuse it.
fn snapshot_program(name: &str) -> Program {
    let path = snapshot_dir().join(format!("{name}.vyre"));
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    text.parse()
        .unwrap_or_else(|e| panic!("{} is no program: {e}", path.display()))
}

#[test]
fn emit_wgsl_writes_the_folded_form() {
    let program = snapshot_program("folded_grid");
    assert_eq!(
        emit_wgsl(&program).expect("emit_wgsl"),
        emit_wgsl_as(&program, LaunchForm::Folded).expect("emit_wgsl_as"),
    );
}

#[test]
fn the_elementwise_forms_refuse_the_queue_sum() {
    // The packed, split and vectorised forms are for programs whose effects are stores at `gid.x`;
    // the queue sum's atomic on `out[0]` is not one.
    let program = snapshot_program("coalesced_queue_sum");
    for form in [
        LaunchForm::Packed,
        LaunchForm::Split,
        LaunchForm::Vectorised,
    ] {
        let refused = emit_wgsl_as(&program, form);
        assert!(
            matches!(refused, Err(vyre_driver::BackendError::Unsupported(_))),
            "{form:?}: {refused:?}"
        );
    }
}

#[test]
fn programs_with_loops_are_not_vectorised() {
    // The four lanes of a vectorised invocation would run their loops one after another, and
    // llvmpipe's loop limiter counts every iteration of a SIMD vector together (SEMANTICS.md
    // section 2): such a program keeps the scalar form.
    let e = emit_wgsl_as(
        &snapshot_program("break_and_continue"),
        LaunchForm::Vectorised,
    )
    .expect_err("a program with loops is not vectorised");
    assert_eq!(e.kind_name(), "Unsupported", "{e}");
}

#[test]
fn subgroup_programs_get_no_form_that_remaps_invocations() {
    // An elementwise-looking subgroup program: the vectorised, packed and split forms would change
    // which invocations share a subgroup, so none of them applies.
    let program: Program = "program @workgroup_size(64, 1, 1) {
  buffer a: read u32[256] @binding(0);
  buffer out: output u32[256] @binding(1);
  out[gid.x] = subgroup_add(a[gid.x]);
}"
    .parse()
    .expect("parses");
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
