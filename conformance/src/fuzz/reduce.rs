//! The IR reducer: shrinks a failing case to a small one that still fails.
//!
//! proptest's own shrinking works on recipes; this works on the program itself: drop a node, replace
//! an `if`, loop or block by its body, replace an expression by a same-typed leaf or one of its
//! subexpressions, drop unused buffers, zero inputs, shrink the grid and the workgroup. A candidate is
//! kept when it validates, is strictly smaller (so reduction ends) and still fails.
//!
//! **Race freedom is preserved**: the reducer never touches what keeps a comparable program race-free
//! and bounded: the `tid`/`ltid` lets, the indices of accesses to writable buffers, loop bounds,
//! `while` conditions and trip counters, and barriers. Every other edit keeps a race-free program race-free (shrinking the grid or the workgroup
//! keeps the `tid`/`ltid` formulas one-to-one).

use std::collections::BTreeSet;

use vyre_foundation::ir::{Expr, Literal, Node, Program};

use crate::r#gen::GeneratedCase;

/// Shrinks `case` while `still_fails` holds, trying at most `max_attempts` candidates on it.
pub fn reduce(
    case: &GeneratedCase,
    still_fails: &mut dyn FnMut(&GeneratedCase) -> bool,
    max_attempts: usize,
) -> GeneratedCase {
    let mut current = case.clone();
    let mut attempts = 0;
    let mut start = 0;
    'outer: loop {
        let candidates = candidates(&current);
        let cost = cost(&current);
        let n = candidates.len();
        for offset in 0..n {
            let i = (start + offset) % n;
            let candidate = &candidates[i];
            if cost_of_valid(candidate).is_none_or(|c| c >= cost) {
                continue;
            }
            if attempts >= max_attempts {
                break 'outer;
            }
            attempts += 1;
            if still_fails(candidate) {
                current = candidate.clone();
                start = i;
                continue 'outer;
            }
        }
        break;
    }
    current
}

fn cost_of_valid(case: &GeneratedCase) -> Option<u64> {
    vyre_foundation::validate(&case.program).ok()?;
    whiles_bounded(&case.program.body).then_some(())?;
    Some(cost(case))
}

/// True when every `while` still has the generator's shape `while trip < K && ... { trip = trip + 1;
/// ... }`, so it runs at most `K` iterations: a reduced loop that could run forever is no candidate
/// (a GPU does not survive one). The trip counters themselves may go once their loop is gone.
fn whiles_bounded(body: &[Node]) -> bool {
    body.iter().all(|node| {
        let own = match node {
            Node::While { cond, body } => bounded_while(cond, body),
            Node::Let { .. }
            | Node::Assign { .. }
            | Node::Store { .. }
            | Node::PrivateArray { .. }
            | Node::ArrayStore { .. }
            | Node::Tile { .. }
            | Node::TileLoad { .. }
            | Node::TileStore { .. }
            | Node::TileMultiplyAdd { .. }
            | Node::If { .. }
            | Node::Loop { .. }
            | Node::Block(_)
            | Node::Barrier
            | Node::Return
            | Node::Break
            | Node::Continue
            | Node::Atomic { .. } => true,
        };
        own && node.bodies().all(|b| whiles_bounded(b))
    })
}

fn bounded_while(cond: &Expr, body: &[Node]) -> bool {
    use vyre_foundation::ir::BinOp;
    let Expr::Binary {
        op: BinOp::And,
        lhs,
        ..
    } = cond
    else {
        return false;
    };
    let Expr::Binary {
        op: BinOp::Lt,
        lhs: counter,
        rhs: bound,
    } = &**lhs
    else {
        return false;
    };
    let (Expr::Var(trip), Expr::Lit(_)) = (&**counter, &**bound) else {
        return false;
    };
    let step = Node::assign(
        trip.as_str(),
        Expr::add(Expr::var(trip.as_str()), Expr::u32(1)),
    );
    body.first() == Some(&step)
}

/// The size a candidate must decrease: nodes and expressions weigh most, then literal values, the
/// dispatch shape and non-zero input words.
#[must_use]
pub fn cost(case: &GeneratedCase) -> u64 {
    let mut nodes = 0u64;
    let mut exprs = 0u64;
    let mut literals = 0u64;
    count_body(&case.program.body, &mut nodes, &mut exprs, &mut literals);
    // The cost only orders candidates, so sizes saturate: a shape too large for a u64 (a grid and a
    // workgroup of u32 dimensions reach 2^192 invocations) simply costs the most.
    let invocations = case.program.invocations_per_workgroup().unwrap_or(u64::MAX);
    let shape = case
        .config
        .grid
        .unwrap_or([1; 3])
        .iter()
        .fold(invocations, |product, &g| {
            product.saturating_mul(u64::from(g))
        });
    let inputs = case.inputs.iter().flatten().filter(|&&b| b != 0).count() as u64;
    let buffers = case.program.buffers.len() as u64;
    (nodes + exprs + buffers)
        .saturating_mul(1_000_000)
        .saturating_add(literals.saturating_mul(10_000))
        .saturating_add(shape.saturating_mul(100))
        .saturating_add(inputs)
}

fn count_body(body: &[Node], nodes: &mut u64, exprs: &mut u64, literals: &mut u64) {
    for node in body {
        *nodes += 1;
        for e in node.exprs() {
            count_expr(e, exprs, literals);
        }
        for b in node.bodies() {
            count_body(b, nodes, exprs, literals);
        }
    }
}

fn count_expr(expr: &Expr, exprs: &mut u64, literals: &mut u64) {
    *exprs += 1;
    if let Expr::Lit(lit) = expr {
        *literals += match lit.to_bits() {
            0 => 0,
            1 => 1,
            _ => 2,
        };
    }
    // A variable reference weighs more than any literal, so replacing one by a literal is a
    // strict reduction; without it `let v = false; out[i] = v;` could never lose its `let` (the
    // `let` cannot go while `v` is read, and `v -> false` cost the same).
    if let Expr::Var(_) = expr {
        *literals += 3;
    }
    for c in expr.children() {
        count_expr(c, exprs, literals);
    }
}

/// Every one-step reduction of `case`, simplest edits first.
fn candidates(case: &GeneratedCase) -> Vec<GeneratedCase> {
    let mut out = Vec::new();
    let with_program = |program: Program| GeneratedCase {
        program,
        inputs: case.inputs.clone(),
        config: case.config.clone(),
    };
    for k in 0..count_nodes(&case.program.body) {
        for edit in [NodeEdit::Remove, NodeEdit::Inline(0), NodeEdit::Inline(1)] {
            let mut program = case.program.clone();
            if edit_node(&mut program.body, &mut 0, k, edit) {
                out.push(with_program(program));
            }
        }
    }
    for k in 0..count_free_exprs(&case.program) {
        for replacement in expr_replacements(&case.program, k) {
            let mut program = case.program.clone();
            replace_free_expr(&mut program, k, replacement);
            out.push(with_program(program));
        }
    }
    buffer_candidates(case, &mut out);
    shape_candidates(case, &mut out);
    out
}

#[derive(Clone, Copy)]
enum NodeEdit {
    Remove,
    /// Replace an `if`/loop/block by its body number `n` (0: then or body, 1: otherwise).
    Inline(usize),
}

fn count_nodes(body: &[Node]) -> usize {
    body.iter()
        .map(|n| 1 + n.bodies().map(|b| count_nodes(b)).sum::<usize>())
        .sum()
}

/// Nodes the reducer leaves alone: barriers (they order workgroup memory) and the id lets. (The
/// trip counters of `while` loops are kept by [`whiles_bounded`] while their loop stands.)
fn protected_node(node: &Node) -> bool {
    match node {
        Node::Barrier => true,
        Node::Let { name, .. } => name == "tid" || name == "ltid",
        Node::Assign { .. }
        | Node::Store { .. }
        | Node::PrivateArray { .. }
        | Node::ArrayStore { .. }
        | Node::Tile { .. }
        | Node::TileLoad { .. }
        | Node::TileStore { .. }
        | Node::TileMultiplyAdd { .. }
        | Node::If { .. }
        | Node::Loop { .. }
        | Node::While { .. }
        | Node::Block(_)
        | Node::Return
        | Node::Break
        | Node::Continue
        | Node::Atomic { .. } => false,
    }
}

/// True for the variables the generator counts a `while`'s iterations in.
fn is_trip_counter(name: &str) -> bool {
    name.starts_with(crate::r#gen::TRIP_PREFIX)
}

/// Applies `edit` to node number `k` (pre-order); true when it changed something.
fn edit_node(body: &mut Vec<Node>, counter: &mut usize, k: usize, edit: NodeEdit) -> bool {
    for i in 0..body.len() {
        if *counter == k {
            return apply_node_edit(body, i, edit);
        }
        *counter += 1;
        let done = match &mut body[i] {
            Node::If {
                then, otherwise, ..
            } => edit_node(then, counter, k, edit) || edit_node(otherwise, counter, k, edit),
            Node::Loop { body: b, .. } | Node::While { body: b, .. } | Node::Block(b) => {
                edit_node(b, counter, k, edit)
            }
            Node::Let { .. }
            | Node::Assign { .. }
            | Node::Store { .. }
            | Node::PrivateArray { .. }
            | Node::ArrayStore { .. }
            | Node::Tile { .. }
            | Node::TileLoad { .. }
            | Node::TileStore { .. }
            | Node::TileMultiplyAdd { .. }
            | Node::Barrier
            | Node::Return
            | Node::Break
            | Node::Continue
            | Node::Atomic { .. } => false,
        };
        if done || *counter > k {
            return done;
        }
    }
    false
}

fn apply_node_edit(body: &mut Vec<Node>, i: usize, edit: NodeEdit) -> bool {
    if protected_node(&body[i]) {
        return false;
    }
    match edit {
        NodeEdit::Remove => {
            body.remove(i);
            true
        }
        NodeEdit::Inline(n) => {
            let inner: Option<Vec<Node>> = body[i].bodies().nth(n).cloned();
            let Some(inner) = inner else { return false };
            body.splice(i..=i, inner);
            true
        }
    }
}

/// True for buffers whose indices keep a comparable program race-free.
fn writable(program: &Program, buffer: &str) -> bool {
    program
        .buffer(buffer)
        .is_some_and(|b| b.access.is_writable())
}

/// Calls `f` on every expression the reducer may replace, in a fixed pre-order, until it returns true.
fn visit_free_exprs(program: &mut Program, f: &mut dyn FnMut(&mut Expr) -> bool) {
    let snapshot = program.clone();
    visit_body(&snapshot, &mut program.body, f);
}

fn visit_body(p: &Program, body: &mut [Node], f: &mut dyn FnMut(&mut Expr) -> bool) -> bool {
    for node in body {
        let stop = match node {
            Node::Let { name, .. } if name == "tid" || name == "ltid" => false,
            Node::Assign { name, .. } if is_trip_counter(name) => false,
            Node::Let { value, .. } | Node::Assign { value, .. } => visit_expr(p, value, f),
            Node::Store {
                buffer,
                index,
                value,
            } => (!writable(p, buffer) && visit_expr(p, index, f)) || visit_expr(p, value, f),
            // A private array is the invocation's own: no index of it can make a race.
            Node::ArrayStore { index, value, .. } => {
                visit_expr(p, index, f) || visit_expr(p, value, f)
            }
            // A tile's offset and stride must stay workgroup-uniform: left as they are.
            Node::Tile { .. }
            | Node::TileLoad { .. }
            | Node::TileStore { .. }
            | Node::TileMultiplyAdd { .. } => false,
            Node::If {
                cond,
                then,
                otherwise,
            } => visit_expr(p, cond, f) || visit_body(p, then, f) || visit_body(p, otherwise, f),
            // A `while`'s condition holds its trip bound, so only its body is reduced.
            Node::Loop { body, .. } | Node::While { body, .. } => visit_body(p, body, f),
            Node::Block(body) => visit_body(p, body, f),
            Node::Atomic {
                buffer,
                index,
                expected,
                value,
                ..
            } => {
                (!writable(p, buffer) && visit_expr(p, index, f))
                    || expected.as_mut().is_some_and(|e| visit_expr(p, e, f))
                    || visit_expr(p, value, f)
            }
            Node::PrivateArray { .. }
            | Node::Barrier
            | Node::Return
            | Node::Break
            | Node::Continue => false,
        };
        if stop {
            return true;
        }
    }
    false
}

fn visit_expr(p: &Program, expr: &mut Expr, f: &mut dyn FnMut(&mut Expr) -> bool) -> bool {
    if f(expr) {
        return true;
    }
    match expr {
        Expr::Load { buffer, index } => !writable(p, buffer) && visit_expr(p, index, f),
        Expr::ArrayLoad { index, .. } => visit_expr(p, index, f),
        Expr::Atomic {
            expected, value, ..
        } => {
            expected.as_deref_mut().is_some_and(|e| visit_expr(p, e, f)) || visit_expr(p, value, f)
        }
        Expr::Binary { lhs, rhs, .. } => visit_expr(p, lhs, f) || visit_expr(p, rhs, f),
        Expr::Unary { arg, .. }
        | Expr::Cast { arg, .. }
        | Expr::Bitcast { arg, .. }
        | Expr::Subgroup { arg, .. } => visit_expr(p, arg, f),
        Expr::SubgroupShuffle { value, lane } => visit_expr(p, value, f) || visit_expr(p, lane, f),
        Expr::Select {
            cond,
            on_true,
            on_false,
        } => visit_expr(p, cond, f) || visit_expr(p, on_true, f) || visit_expr(p, on_false, f),
        Expr::Fma { a, b, c } => visit_expr(p, a, f) || visit_expr(p, b, f) || visit_expr(p, c, f),
        Expr::Lit(_) | Expr::Var(_) | Expr::BufLen(_) | Expr::Builtin(_) => false,
    }
}

fn count_free_exprs(program: &Program) -> usize {
    let mut n = 0;
    visit_free_exprs(&mut program.clone(), &mut |_| {
        n += 1;
        false
    });
    n
}

/// What expression `k` may become: a zero or one literal of each type (only the one of the right type
/// validates), then each of its subexpressions.
fn expr_replacements(program: &Program, k: usize) -> Vec<Expr> {
    let mut out = Vec::new();
    let mut i = 0;
    visit_free_exprs(&mut program.clone(), &mut |e| {
        if i == k {
            if !matches!(e, Expr::Lit(lit) if lit.to_bits() == 0) {
                out.extend(leaves());
            }
            collect_subexprs(e, &mut out);
            return true;
        }
        i += 1;
        false
    });
    out
}

fn leaves() -> [Expr; 8] {
    [
        Expr::Lit(Literal::U32(0)),
        Expr::Lit(Literal::I32(0)),
        Expr::Lit(Literal::F32(0)),
        Expr::Lit(Literal::Bool(false)),
        Expr::Lit(Literal::U32(1)),
        Expr::Lit(Literal::I32(1)),
        Expr::f32(1.0),
        Expr::Lit(Literal::Bool(true)),
    ]
}

fn collect_subexprs(expr: &Expr, out: &mut Vec<Expr>) {
    for child in expr.children() {
        if out.len() < 24 {
            out.push(child.clone());
            collect_subexprs(child, out);
        }
    }
}

fn replace_free_expr(program: &mut Program, k: usize, replacement: Expr) {
    let mut i = 0;
    let mut replacement = Some(replacement);
    visit_free_exprs(program, &mut |e| {
        if i == k {
            if let Some(r) = replacement.take() {
                *e = r;
            }
            return true;
        }
        i += 1;
        false
    });
}

/// Drops buffers nothing refers to (with their inputs) and zeroes inputs.
fn buffer_candidates(case: &GeneratedCase, out: &mut Vec<GeneratedCase>) {
    let used = referenced_buffers(&case.program);
    let mut input = 0;
    for (i, decl) in case.program.buffers.iter().enumerate() {
        let takes_input = decl.access.takes_input();
        if !used.contains(decl.name.as_str()) {
            let mut c = case.clone();
            c.program.buffers.remove(i);
            if takes_input && input < c.inputs.len() {
                c.inputs.remove(input);
            }
            out.push(c);
        }
        if takes_input
            && case
                .inputs
                .get(input)
                .is_some_and(|v| v.iter().any(|&b| b != 0))
        {
            let mut c = case.clone();
            c.inputs[input].iter_mut().for_each(|b| *b = 0);
            out.push(c);
        }
        input += usize::from(takes_input);
    }
}

/// The names of the buffers the program's nodes and expressions refer to.
fn referenced_buffers(program: &Program) -> BTreeSet<String> {
    let mut used = BTreeSet::new();
    vyre_foundation::for_each_expr(program, |e| match e {
        Expr::Load { buffer, .. } | Expr::Atomic { buffer, .. } | Expr::BufLen(buffer) => {
            used.insert(buffer.clone());
        }
        _ => {}
    });
    let mut stack: Vec<&Node> = program.body.iter().collect();
    while let Some(node) = stack.pop() {
        if let Node::Store { buffer, .. } = node {
            used.insert(buffer.clone());
        }
        stack.extend(node.bodies().flatten());
    }
    used
}

/// Smaller grids and workgroups: all ones, or one axis halved.
fn shape_candidates(case: &GeneratedCase, out: &mut Vec<GeneratedCase>) {
    let grid = case.config.grid.unwrap_or([1; 3]);
    let size = case.program.workgroup_size;
    let mut shapes = vec![([1, 1, 1], size), (grid, [1, 1, 1])];
    for axis in 0..3 {
        let mut g = grid;
        g[axis] = (g[axis] / 2).max(1);
        let mut s = size;
        s[axis] = (s[axis] / 2).max(1);
        shapes.push((g, size));
        shapes.push((grid, s));
    }
    for (g, s) in shapes {
        let mut c = case.clone();
        c.config.grid = Some(g);
        c.program.workgroup_size = s;
        out.push(c);
    }
}
