//! The shape of the code, checked: no folder of any crate's `src` has an import cycle among its
//! modules, and no backend matches over an IR enum with a `_ =>` arm (STYLE.md: "let the compiler
//! list every case", so that a new operator or statement cannot be silently mishandled).
//!
//! Both checks read the sources as text, with comments and literals blanked out first; each has a
//! test of its own on planted sources, so that a checker that sees nothing cannot pass silently.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The repository's root: `VYRE_REPO` for a test binary carried away from its checkout.
fn repo() -> PathBuf {
    std::env::var_os("VYRE_REPO").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join(".."),
        PathBuf::from,
    )
}

/// Every crate's `src` folder.
const CRATE_SOURCES: &[&str] = &[
    "vyre-foundation/src",
    "vyre-driver/src",
    "vyre-driver-wgpu/src",
    "vyre-driver-wgpu/bench/src",
    "vyre/src",
    "conformance/src",
    "conformance/reference/src",
    "conformance/cli/src",
    "vyre-datafusion/src",
    "vyre-datafusion/ballista/src",
];

/// The backends' sources, and vyre-datafusion's (which maps every vyre type to Arrow), where IR
/// enums must be matched exhaustively.
const BACKEND_SOURCES: &[&str] = &[
    "vyre-driver-wgpu/src",
    "conformance/reference/src",
    "vyre/src/sharded",
    "vyre-datafusion/src",
    "vyre-datafusion/ballista/src",
];

/// The IR's enums: a `match` naming one of them in a pattern must not end in `_ =>`.
const IR_ENUMS: &[&str] = &[
    "Expr",
    "Node",
    "BinOp",
    "UnOp",
    "DataType",
    "Literal",
    "Builtin",
    "Axis",
    "AtomicOp",
    "BufferAccess",
    "SubgroupOp",
    "BinClass",
    "UnClass",
];

/// `source` with comments, string literals and character literals replaced by spaces (newlines
/// kept, so that positions map to the same lines).
fn blank(source: &str) -> String {
    let chars: Vec<char> = source.chars().collect();
    let mut out = String::with_capacity(source.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                out.push(' ');
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    depth += 1;
                    out.push_str("  ");
                    i += 2;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    out.push_str("  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    out.push(if chars[i] == '\n' { '\n' } else { ' ' });
                    i += 1;
                }
            }
        } else if c == 'r'
            && (next == Some('"') || next == Some('#'))
            && raw_string_start(&chars, i)
        {
            let hashes = chars[i + 1..].iter().take_while(|&&h| h == '#').count();
            let end: String = std::iter::once('"')
                .chain(std::iter::repeat_n('#', hashes))
                .collect();
            out.push(' ');
            i += 1 + hashes + 1;
            out.push_str(&" ".repeat(hashes + 1));
            let rest: String = chars[i..].iter().collect();
            let len = rest.find(&end).map_or(rest.len(), |at| at + end.len());
            for ch in rest.chars().take(len) {
                out.push(if ch == '\n' { '\n' } else { ' ' });
            }
            i += rest.chars().take(len).count();
        } else if c == '"' {
            out.push(' ');
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                if chars[i] == '\\' {
                    out.push(' ');
                    i += 1;
                }
                if i < chars.len() {
                    out.push(if chars[i] == '\n' { '\n' } else { ' ' });
                    i += 1;
                }
            }
            out.push(' ');
            i += 1;
        } else if c == '\'' && char_literal_len(&chars, i).is_some() {
            let len = char_literal_len(&chars, i).unwrap_or(1);
            out.push_str(&" ".repeat(len));
            i += len;
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

/// Whether `r` at `i` starts a raw string (`r"`, `r#"`), not an identifier ending in `r`.
fn raw_string_start(chars: &[char], i: usize) -> bool {
    let before_ok = i == 0 || !(chars[i - 1].is_alphanumeric() || chars[i - 1] == '_');
    let hashes = chars[i + 1..].iter().take_while(|&&h| h == '#').count();
    before_ok && chars.get(i + 1 + hashes) == Some(&'"')
}

/// The length of a character literal at `i` (`'x'`, `'\n'`, `'\u{1f}'`), or `None` for a
/// lifetime.
fn char_literal_len(chars: &[char], i: usize) -> Option<usize> {
    if chars.get(i + 1) == Some(&'\\') {
        let close = chars[i + 2..].iter().position(|&c| c == '\'')?;
        return Some(close + 3);
    }
    (chars.get(i + 2) == Some(&'\'')).then_some(3)
}

/// The byte range of every `match` body in `code` (blanked), from its `{` to its `}`.
fn match_bodies(code: &str) -> Vec<(usize, usize)> {
    let bytes = code.as_bytes();
    let mut out = Vec::new();
    let mut at = 0;
    while let Some(found) = code[at..].find("match") {
        let start = at + found;
        at = start + 5;
        let before = start.checked_sub(1).map(|b| bytes[b]);
        let after = bytes.get(start + 5).copied();
        let word = |b: Option<u8>| b.is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_');
        if word(before) || word(after) || before == Some(b'!') {
            continue;
        }
        // The body's `{`: the first one outside parentheses and brackets after the scrutinee.
        let mut depth = 0i32;
        let mut open = None;
        for (k, &b) in bytes.iter().enumerate().skip(start + 5) {
            match b {
                b'(' | b'[' => depth += 1,
                b')' | b']' => depth -= 1,
                b'{' if depth == 0 => {
                    open = Some(k);
                    break;
                }
                b';' if depth == 0 => break,
                _ => {}
            }
        }
        let Some(open) = open else { continue };
        let mut braces = 0i32;
        for (k, &b) in bytes.iter().enumerate().skip(open) {
            match b {
                b'{' => braces += 1,
                b'}' => {
                    braces -= 1;
                    if braces == 0 {
                        out.push((open, k));
                        break;
                    }
                }
                _ => {}
            }
        }
    }
    out
}

/// The patterns (with guards) of the arms of the match body `code[open..=close]`.
fn arm_patterns(code: &str, open: usize, close: usize) -> Vec<String> {
    let body = &code[open + 1..close];
    let bytes = body.as_bytes();
    let mut patterns = Vec::new();
    let (mut braces, mut parens) = (0i32, 0i32);
    let mut arm_start = 0;
    let mut in_pattern = true;
    let mut k = 0;
    while k < bytes.len() {
        let b = bytes[k];
        match b {
            b'{' => braces += 1,
            b'}' => {
                braces -= 1;
                if braces == 0 && parens == 0 && !in_pattern {
                    // A block arm ended; an optional comma may follow.
                    in_pattern = true;
                    arm_start = k + 1;
                }
            }
            b'(' | b'[' => parens += 1,
            b')' | b']' => parens -= 1,
            b',' if braces == 0 && parens == 0 && !in_pattern => {
                in_pattern = true;
                arm_start = k + 1;
            }
            b'=' if braces == 0 && parens == 0 && in_pattern && bytes.get(k + 1) == Some(&b'>') => {
                let pattern = body[arm_start..k].trim().trim_start_matches(',').trim();
                patterns.push(pattern.to_string());
                in_pattern = false;
                k += 1;
            }
            _ => {}
        }
        k += 1;
    }
    patterns
}

/// Whether `pattern` names an IR enum's variant (`Expr::Load`, `DataType::U32`...).
fn names_ir_enum(pattern: &str) -> bool {
    IR_ENUMS.iter().any(|e| {
        pattern.match_indices(&format!("{e}::")).any(|(at, _)| {
            at == 0
                || !pattern.as_bytes()[at - 1].is_ascii_alphanumeric()
                    && pattern.as_bytes()[at - 1] != b'_'
        })
    })
}

/// Whether `pattern` is the wildcard, with or without a guard.
fn is_wildcard(pattern: &str) -> bool {
    pattern == "_" || pattern.starts_with("_ if ")
}

/// The lines of `source` holding a `_ =>` arm of a match over an IR enum.
fn wildcard_arms(source: &str) -> Vec<usize> {
    let code = blank(source);
    let mut lines = Vec::new();
    for (open, close) in match_bodies(&code) {
        let patterns = arm_patterns(&code, open, close);
        if !patterns.iter().any(|p| names_ir_enum(p)) {
            continue;
        }
        if patterns.iter().any(|p| is_wildcard(p)) {
            lines.push(code[..open].lines().count());
        }
    }
    lines
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn no_backend_matches_an_ir_enum_with_a_wildcard_arm() {
    let root = repo();
    let mut found = Vec::new();
    let mut files = Vec::new();
    for dir in BACKEND_SOURCES {
        rust_files(&root.join(dir), &mut files);
    }
    assert!(
        files.len() > 20,
        "found only {} backend sources",
        files.len()
    );
    for file in files {
        let source = std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{file:?}: {e}"));
        for line in wildcard_arms(&source) {
            found.push(format!(
                "{}:{line}",
                file.strip_prefix(&root).unwrap_or(&file).display()
            ));
        }
    }
    assert!(
        found.is_empty(),
        "`_ =>` in a match over an IR enum (list the variants, so a new one is a compile error):\n{}",
        found.join("\n")
    );
}

#[test]
fn the_wildcard_check_finds_planted_arms_and_ignores_others() {
    let source = r#"
fn f(e: &Expr, t: (Option<u8>, Layout)) -> u8 {
    // match e { _ => 0 } in a comment is ignored
    let s = "match x { Expr::Lit(_) => 1, _ => 2 }";
    let a = match e {
        Expr::Lit(_) => 1,
        _ => 2,
    };
    let b = match t {
        (Some(_), Layout::Storage) => 1,
        _ => 2,
    };
    let c = match e {
        Expr::Var(_) | Expr::Load { .. } => {
            match op { BinOp::Add => 1, BinOp::Sub => 2 }
        }
        _ if true => { 3 }
    };
    let d = matches!(e, Expr::Lit(_));
    a + b + c
}
"#;
    assert_eq!(wildcard_arms(source), vec![5, 13]);
    let code = blank("match x { A(1, 2) => { f() } B => g(), _ => h }");
    let bodies = match_bodies(&code);
    assert_eq!(bodies.len(), 1);
    assert_eq!(
        arm_patterns(&code, bodies[0].0, bodies[0].1),
        vec!["A(1, 2)", "B", "_"]
    );
}

/// The modules of one folder and the folder-local modules each one uses.
type Graph = BTreeMap<String, BTreeSet<String>>;

/// The module path (from the crate root) of the source file `file` under `src`:
/// `lower/mod.rs` -> `["lower"]`, `lower/rows.rs` -> `["lower", "rows"]`, `lib.rs` -> `[]`.
fn module_path(src: &Path, file: &Path) -> Vec<String> {
    let relative = file.strip_prefix(src).unwrap_or(file);
    let mut parts: Vec<String> = relative
        .iter()
        .map(|p| p.to_string_lossy().trim_end_matches(".rs").to_string())
        .collect();
    if matches!(
        parts.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        parts.pop();
    }
    parts
}

/// The absolute module paths `code` (a blanked file of module `own`) names: `crate::a::b`,
/// `super::c`, `self::d`, expanded to paths from the crate root (grouped imports included).
fn named_paths(code: &str, own: &[String], is_folder_root: bool) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let bytes = code.as_bytes();
    for start_word in ["crate::", "super::", "self::"] {
        for (at, _) in code.match_indices(start_word) {
            if at > 0
                && (bytes[at - 1].is_ascii_alphanumeric()
                    || bytes[at - 1] == b'_'
                    || bytes[at - 1] == b':')
            {
                continue;
            }
            // Where the path starts: the crate root, the parent module, or this module.
            let mut base: Vec<String> = match start_word {
                "crate::" => Vec::new(),
                "super::" => {
                    // In `a/b.rs` (module a::b) `super` is `a`; in `a/mod.rs` (module a) it is the
                    // crate root's child list above `a`.
                    let mut p = own.to_vec();
                    p.pop();
                    p
                }
                _ => own.to_vec(),
            };
            let _ = is_folder_root;
            let mut rest = &code[at + start_word.len()..];
            // Further `super::` segments.
            while let Some(r) = rest.strip_prefix("super::") {
                base.pop();
                rest = r;
            }
            let names: Vec<&str> = if let Some(group) = rest.strip_prefix('{') {
                let inner = group.split('}').next().unwrap_or("");
                inner.split(',').map(str::trim).collect()
            } else {
                vec![rest]
            };
            for name in names {
                let ident: String = name
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                if ident.is_empty() || ident == "self" {
                    continue;
                }
                let mut path = base.clone();
                path.push(ident);
                // One more segment, for paths into a submodule (`crate::lower::rows::Base`).
                let after = &name[name.find("::").map_or(name.len(), |i| i + 2)..];
                let next: String = after
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                if !next.is_empty() {
                    let mut deeper = path.clone();
                    deeper.push(next);
                    out.push(deeper);
                }
                // A group after the first segment: `crate::catalogue::{Area, Batch}`.
                if let Some(group) = after.strip_prefix('{') {
                    let inner = group.split('}').next().unwrap_or("");
                    for item in inner.split(',').map(str::trim) {
                        let id: String = item
                            .chars()
                            .take_while(|c| c.is_alphanumeric() || *c == '_')
                            .collect();
                        if !id.is_empty() && id != "self" {
                            let mut deeper = path.clone();
                            deeper.push(id);
                            out.push(deeper);
                        }
                    }
                }
                out.push(path);
            }
        }
    }
    // `mod.rs`/`lib.rs` naming a child directly (`rows::row_buffers(..)`, `pub use rows::X`).
    out
}

/// `code` (blanked) with the bodies of inline modules (`mod tests { ... }`) blanked too: inside one,
/// `super` names the file's own module, and its uses are the tests', not the module's.
fn without_inline_modules(code: &str) -> String {
    let mut bytes = code.as_bytes().to_vec();
    let mut at = 0;
    while let Some(found) = code[at..].find("mod ") {
        let start = at + found;
        at = start + 4;
        if start > 0 && (bytes[start - 1].is_ascii_alphanumeric() || bytes[start - 1] == b'_') {
            continue;
        }
        let rest = &code[start + 4..];
        let name_len = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .count();
        let after = rest[name_len..].trim_start();
        if !after.starts_with('{') {
            continue;
        }
        let open = start + 4 + name_len + (rest.len() - name_len - after.len());
        let mut depth = 0i32;
        for k in open..bytes.len() {
            match bytes[k] {
                b'{' => depth += 1,
                b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        for byte in &mut bytes[open..=k] {
                            if *byte != b'\n' {
                                *byte = b' ';
                            }
                        }
                        break;
                    }
                }
                _ => {}
            }
        }
    }
    String::from_utf8(bytes).unwrap_or_default()
}

/// The re-exports of a folder root's blanked `code`: each re-exported item's name and the child
/// module it comes from (`pub(crate) use rows::{row_buffers, RowLoads};`), and the byte ranges of
/// those `use` statements, which are not the root's own uses.
fn re_exports(
    code: &str,
    children: &BTreeSet<String>,
) -> (BTreeMap<String, String>, Vec<(usize, usize)>) {
    let mut items = BTreeMap::new();
    let mut ranges = Vec::new();
    for (at, _) in code.match_indices("use ") {
        let line_start = code[..at].rfind('\n').map_or(0, |i| i + 1);
        let head = code[line_start..at].trim();
        if !head.starts_with("pub") {
            continue;
        }
        let Some(end) = code[at..].find(';').map(|e| at + e) else {
            continue;
        };
        let path = code[at + 4..end].trim();
        let path = path.strip_prefix("self::").unwrap_or(path);
        let child: String = path
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        if !children.contains(&child) {
            continue;
        }
        ranges.push((line_start, end));
        let rest = &path[child.len()..];
        let rest = rest.strip_prefix("::").unwrap_or(rest);
        let names: Vec<&str> = match rest.strip_prefix('{') {
            Some(group) => group.trim_end_matches('}').split(',').collect(),
            None => vec![rest],
        };
        for name in names {
            // `a::b::Name` and `Name as Alias`: the name visible through the root.
            let name = name.trim();
            let visible = name.rsplit(" as ").next().unwrap_or(name);
            let visible = visible.rsplit("::").next().unwrap_or(visible).trim();
            if !visible.is_empty() {
                items.insert(visible.to_string(), child.clone());
            }
        }
    }
    (items, ranges)
}

/// Every folder of `src` (the crate root included) with its module graph. A node is a module of
/// the folder (`""` for its root file); an edge is a path naming another module of the folder or
/// an item defined in it (an item the root only re-exports counts as its defining module's).
fn folder_graphs(src: &Path) -> BTreeMap<Vec<String>, Graph> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let modules: BTreeSet<Vec<String>> = files.iter().map(|f| module_path(src, f)).collect();
    let is_root_file = |file: &Path| {
        matches!(
            file.file_name().and_then(|n| n.to_str()),
            Some("mod.rs" | "lib.rs" | "main.rs")
        )
    };
    let children_of = |folder: &[String]| -> BTreeSet<String> {
        modules
            .iter()
            .filter(|m| m.len() == folder.len() + 1 && m.starts_with(folder))
            .map(|m| m[folder.len()].clone())
            .collect()
    };
    // Each folder's re-exported items.
    let mut exported: BTreeMap<Vec<String>, BTreeMap<String, String>> = BTreeMap::new();
    let mut root_reexport_ranges: BTreeMap<PathBuf, Vec<(usize, usize)>> = BTreeMap::new();
    for file in files.iter().filter(|f| is_root_file(f)) {
        let own = module_path(src, file);
        let code = blank(&std::fs::read_to_string(file).unwrap_or_default());
        let (items, ranges) = re_exports(&code, &children_of(&own));
        exported.insert(own, items);
        root_reexport_ranges.insert(file.clone(), ranges);
    }
    let mut graphs: BTreeMap<Vec<String>, Graph> = BTreeMap::new();
    for file in &files {
        let own = module_path(src, file);
        let mut code =
            without_inline_modules(&blank(&std::fs::read_to_string(file).unwrap_or_default()));
        let is_root = is_root_file(file);
        // The crate's own root (`lib.rs`, `main.rs`) glues the top-level modules together and is
        // left out, as `vyre-driver-wgpu/tests/layers.rs` leaves it out of the layers: the top
        // level's order is that test's business.
        if is_root && own.is_empty() {
            continue;
        }
        if let Some(ranges) = root_reexport_ranges.get(file) {
            // The root's re-exports are not its own uses.
            let mut bytes = code.into_bytes();
            for &(a, b) in ranges {
                for byte in &mut bytes[a..b] {
                    if *byte != b'\n' {
                        *byte = b' ';
                    }
                }
            }
            code = String::from_utf8(bytes).unwrap_or_default();
        }
        let mut paths = named_paths(&code, &own, is_root);
        if is_root {
            // A folder root also names its children by their bare names (`rows::plan(..)`).
            for child in &children_of(&own) {
                let pattern = format!("{child}::");
                let used = code.match_indices(&pattern).any(|(at, _)| {
                    at == 0 || {
                        let b = code.as_bytes()[at - 1];
                        !(b.is_ascii_alphanumeric() || b == b'_' || b == b':')
                    }
                });
                if used {
                    let mut p = own.clone();
                    p.push(child.clone());
                    paths.push(p);
                }
            }
        }
        // The file is a node of its own folder and, through the subfolders holding it, of every
        // folder above: a file of `lower/analysis/` speaks for the node `analysis` of `lower/`.
        let own_folder_len = if is_root { own.len() } else { own.len() - 1 };
        for depth in 1..=own_folder_len {
            let folder = own[..depth].to_vec();
            let node = if depth == own.len() {
                String::new()
            } else {
                own[depth].clone()
            };
            let children = children_of(&folder);
            let items = exported.get(&folder).cloned().unwrap_or_default();
            let graph = graphs.entry(folder.clone()).or_default();
            let edges = graph.entry(node.clone()).or_default();
            for path in &paths {
                if path.len() <= folder.len() || !path.starts_with(&folder) {
                    continue;
                }
                let name = &path[folder.len()];
                let target = if children.contains(name) {
                    name.clone()
                } else if let Some(child) = items.get(name) {
                    child.clone()
                } else {
                    // An item defined in the folder's root.
                    String::new()
                };
                if target != node {
                    edges.insert(target);
                }
            }
        }
    }
    graphs
}

/// The cycles of `graph`: each strongly connected component of more than one module.
fn cycles(graph: &Graph) -> Vec<Vec<String>> {
    let nodes: Vec<&String> = graph.keys().collect();
    let reach = |from: &String| -> BTreeSet<String> {
        let mut seen = BTreeSet::new();
        let mut stack = vec![from.clone()];
        while let Some(n) = stack.pop() {
            for next in graph.get(&n).into_iter().flatten() {
                if seen.insert(next.clone()) {
                    stack.push(next.clone());
                }
            }
        }
        seen
    };
    let reaches: BTreeMap<&String, BTreeSet<String>> =
        nodes.iter().map(|n| (*n, reach(n))).collect();
    let mut done = BTreeSet::new();
    let mut out = Vec::new();
    for n in &nodes {
        if done.contains(*n) {
            continue;
        }
        let component: Vec<String> = nodes
            .iter()
            .filter(|m| reaches[*n].contains(**m) && reaches[*m].contains(*n))
            .map(|m| (*m).clone())
            .collect();
        if component.len() > 1 {
            done.extend(component.iter().cloned());
            out.push(component);
        }
    }
    out
}

#[test]
fn no_folder_of_any_crate_has_an_import_cycle() {
    let root = repo();
    let mut found = Vec::new();
    let mut folders = 0;
    for src in CRATE_SOURCES {
        let dir = root.join(src);
        assert!(dir.is_dir(), "{} is missing", dir.display());
        for (folder, graph) in folder_graphs(&dir) {
            folders += 1;
            for cycle in cycles(&graph) {
                let names: Vec<String> = cycle
                    .iter()
                    .map(|n| {
                        if n.is_empty() {
                            "(the folder's root)".to_string()
                        } else {
                            n.clone()
                        }
                    })
                    .collect();
                found.push(format!(
                    "{src}/{}: {}",
                    folder.join("/"),
                    names.join(" <-> ")
                ));
            }
        }
    }
    assert!(folders > 20, "found only {folders} folders");
    assert!(
        found.is_empty(),
        "import cycles inside folders (move the shared type to the folder's root or a module both use):\n{}",
        found.join("\n")
    );
}

#[test]
fn the_cycle_check_finds_a_planted_cycle() {
    let dir = std::env::temp_dir().join(format!("vyre-tidy-cycle-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let write = |path: &str, text: &str| {
        let file = dir.join(path);
        std::fs::create_dir_all(file.parent().unwrap_or(&dir)).unwrap_or_default();
        std::fs::write(file, text).unwrap_or_else(|e| panic!("{path}: {e}"));
    };
    write("lib.rs", "mod a;\nmod b;\nmod c;\n");
    write("a/mod.rs", "mod x;\nmod y;\npub struct Root(x::X);\n");
    write("a/x.rs", "pub struct X;\nuse super::Root;\n");
    write("a/y.rs", "use super::x::X; // y uses x, nothing uses y\n");
    write("b/mod.rs", "mod p;\nmod q;\n");
    write("b/p.rs", "use crate::b::{q::Q};\npub struct P;\n");
    write("b/q.rs", "pub struct Q;\nfn f() { let _ = super::p::P; }\n");
    // A test module's `super` is its file's module: `c/r.rs` uses nothing of `c`'s root.
    write("c/mod.rs", "mod r;\nfn g() { r::h(); }\n");
    write(
        "c/r.rs",
        "pub fn h() {}\n#[cfg(test)]\nmod tests {\n    use super::h;\n}\n",
    );
    let graphs = folder_graphs(&dir);
    let _ = std::fs::remove_dir_all(&dir);
    let a = cycles(&graphs[&vec!["a".to_string()]]);
    assert_eq!(a, vec![vec![String::new(), "x".to_string()]], "{graphs:?}");
    let b = cycles(&graphs[&vec!["b".to_string()]]);
    assert_eq!(
        b,
        vec![vec!["p".to_string(), "q".to_string()]],
        "{graphs:?}"
    );
    assert!(
        cycles(&graphs[&vec!["c".to_string()]]).is_empty(),
        "{graphs:?}"
    );
    assert!(
        graphs
            .get(&Vec::<String>::new())
            .is_none_or(|g| cycles(g).is_empty())
    );
}

/// The workspace's crates (the root's `members`), by folder.
const MEMBERS: &[&str] = &[
    "vyre-foundation",
    "vyre-driver",
    "vyre-driver-wgpu",
    "vyre-driver-wgpu/bench",
    "vyre",
    "conformance",
    "conformance/reference",
    "conformance/cli",
    "vyre-datafusion",
    "vyre-datafusion/ballista",
];

/// The one crate whose `unsafe_code` lint is `deny` rather than the workspace's `forbid`.
const UNSAFE_CRATE: &str = "vyre-driver-wgpu";

/// Every `unsafe` in the workspace's sources, each audited where it stands: the file, and text that
/// must follow the keyword within a few lines (the call or item it is for). Adding one means a
/// `// SAFETY:` comment saying what the callee asks and why it holds, and a line here.
const UNSAFE_SITES: &[(&str, &str)] = &[
    // The driver's pipeline cache blob, trusted only under vyre's checked header.
    (
        "vyre-driver-wgpu/src/disk/mod.rs",
        "device.create_pipeline_cache(&desc)",
    ),
    // `madvise(2)`: its declaration and its one call, a paging hint.
    ("vyre-driver-wgpu/src/launch/readback.rs", "fn madvise("),
    (
        "vyre-driver-wgpu/src/launch/readback.rs",
        "madvise(first as *mut",
    ),
    // Cooperative matrices, wgpu's one experimental feature vyre asks for (matrix tiles).
    (
        "vyre-driver-wgpu/src/device.rs",
        "wgpu::ExperimentalFeatures::enabled()",
    ),
    // vyre's modules without wgpu's bounds checks: the proof is `src/trusted.rs`'s module doc.
    (
        "vyre-driver-wgpu/src/trusted.rs",
        "device.create_shader_module_trusted(desc, checks())",
    ),
];

/// Every Rust file under `dir`, build outputs and hidden folders left out.
fn workspace_rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if path.is_dir() {
            if !name.starts_with('.') && name != "target" {
                workspace_rust_files(&path, out);
            }
        } else if name.ends_with(".rs") {
            out.push(path);
        }
    }
}

/// The byte offsets of the keyword `unsafe` in `source`, outside comments and literals.
fn unsafe_keywords(source: &str) -> Vec<usize> {
    let code = blank(source);
    let is_ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let bytes = code.as_bytes();
    code.match_indices("unsafe")
        .map(|(at, _)| at)
        .filter(|&at| {
            let before = at.checked_sub(1).map(|b| bytes[b]);
            let after = bytes.get(at + "unsafe".len()).copied();
            !before.is_some_and(is_ident) && !after.is_some_and(is_ident)
        })
        .collect()
}

/// For each `unsafe` in `source`: the text from it to four lines on, and the six lines before it.
fn unsafe_sites(source: &str) -> Vec<(String, String)> {
    // `blank` keeps every character's place, so an offset in its output is a line in `source`.
    let code = blank(source);
    let lines: Vec<&str> = source.lines().collect();
    unsafe_keywords(source)
        .into_iter()
        .map(|at| {
            let line = code[..at].matches('\n').count();
            let after = lines[line..(line + 5).min(lines.len())].join("\n");
            let before = lines[line.saturating_sub(12)..line].join("\n");
            (after, before)
        })
        .collect()
}

#[test]
fn the_only_unsafe_code_is_the_audited_sites() {
    let root = repo();
    let mut files = Vec::new();
    workspace_rust_files(&root, &mut files);
    assert!(files.len() > 200, "found only {} Rust files", files.len());
    let mut seen = vec![0usize; UNSAFE_SITES.len()];
    let mut unexpected = Vec::new();
    for file in &files {
        let source = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{file:?}: {e}"));
        let name = file
            .strip_prefix(&root)
            .unwrap_or(file)
            .to_string_lossy()
            .replace('\\', "/");
        for (after, before) in unsafe_sites(&source) {
            let site = UNSAFE_SITES
                .iter()
                .position(|&(f, text)| f == name && after.contains(text));
            match site {
                Some(i) => {
                    seen[i] += 1;
                    // A block needs its argument; an `extern` block only declares.
                    let block =
                        after.trim_start().starts_with("unsafe {") || after.contains("= unsafe {");
                    assert!(
                        !block || before.contains("// SAFETY:"),
                        "{name}: the unsafe block for `{}` has no `// SAFETY:` comment above it",
                        UNSAFE_SITES[i].1
                    );
                }
                None => unexpected.push(format!("{name}: {}", after.lines().next().unwrap_or(""))),
            }
        }
    }
    assert!(
        unexpected.is_empty(),
        "`unsafe` outside the audited sites (add a `// SAFETY:` argument and a line to UNSAFE_SITES, or remove it):\n{}",
        unexpected.join("\n")
    );
    for (&(file, text), count) in UNSAFE_SITES.iter().zip(&seen) {
        assert_eq!(
            *count, 1,
            "{file}: `{text}` should have one `unsafe`, found {count}"
        );
    }
}

#[test]
fn the_unsafe_check_finds_planted_keywords_and_ignores_others() {
    let source = "// unsafe in a comment\nfn f() {\n    let s = \"unsafe\";\n    let unsafe_code = 1;\n    // SAFETY: none needed.\n    unsafe { g() };\n}\nunsafe extern \"C\" {}\n";
    let sites = unsafe_sites(source);
    assert_eq!(sites.len(), 2, "{sites:?}");
    assert!(sites[0].0.starts_with("    unsafe { g() }"), "{sites:?}");
    assert!(sites[0].1.contains("// SAFETY:"), "{sites:?}");
    assert!(sites[1].0.starts_with("unsafe extern"), "{sites:?}");
}

#[test]
fn every_crate_but_the_wgpu_driver_forbids_unsafe_code() {
    let root = repo();
    let workspace =
        std::fs::read_to_string(root.join("Cargo.toml")).expect("the workspace's Cargo.toml");
    let lints = workspace
        .split("[workspace.lints.rust]")
        .nth(1)
        .and_then(|rest| rest.split("\n[").next())
        .expect("a [workspace.lints.rust] table");
    assert!(
        lints.contains("unsafe_code = \"forbid\""),
        "the workspace's lints must forbid unsafe code:\n{lints}"
    );
    for member in MEMBERS {
        let manifest = std::fs::read_to_string(root.join(member).join("Cargo.toml"))
            .unwrap_or_else(|e| panic!("{member}/Cargo.toml: {e}"));
        if *member == UNSAFE_CRATE {
            assert!(
                manifest.contains("[lints.rust]") && manifest.contains("unsafe_code = \"deny\""),
                "{member} denies unsafe code (allowed only at the audited sites)"
            );
        } else {
            assert!(
                manifest.contains("[lints]\nworkspace = true") && !manifest.contains("unsafe_code"),
                "{member} must take the workspace's lints (`[lints] workspace = true`), which forbid unsafe code"
            );
        }
    }
}
