//! The checker: one walk over the program that types every expression, resolves every name and
//! tracks which values and which control flow are uniform across a workgroup.

use crate::ir::{AtomicOp, BufferAccess, BufferDecl, DataType, Expr, Literal, Node, Program};
use crate::validate::errors::{ValidationError, ValidationErrorKind as K};
use crate::validate::{MAX_EXPR_DEPTH, MAX_NODE_DEPTH};

/// What the checker knows about one declared variable.
#[derive(Clone, Copy, Debug)]
struct VarInfo {
    ty: DataType,
    /// False once any assignment may give invocations of one workgroup different values.
    uniform: bool,
    loop_var: bool,
}

/// A typed expression: its type and whether it is the same for every invocation of a workgroup.
#[derive(Clone, Copy, Debug)]
struct Typed {
    ty: DataType,
    uniform: bool,
}

pub(crate) struct Checker<'p> {
    program: &'p Program,
    /// Variables by declaration order; kept across fixpoint passes so uniformity facts accumulate.
    vars: Vec<VarInfo>,
    next_var: usize,
    scopes: Vec<Vec<(String, usize)>>,
    errors: Vec<ValidationError>,
    changed: bool,
    /// Set once an invocation may have returned while others go on.
    divergence: Option<&'static str>,
    path: String,
    /// Length of `path` at the root of the expression being checked, and whether that expression was
    /// already reported too deep (one report per expression, at its root).
    expr_root: usize,
    expr_too_deep: bool,
}

impl<'p> Checker<'p> {
    pub(crate) fn new(program: &'p Program) -> Self {
        Self {
            program,
            vars: Vec::new(),
            next_var: 0,
            scopes: Vec::new(),
            errors: Vec::new(),
            changed: false,
            divergence: None,
            path: String::new(),
            expr_root: 0,
            expr_too_deep: false,
        }
    }

    /// Runs passes until the uniformity facts are stable, then returns the last pass's errors.
    pub(crate) fn run(mut self) -> Vec<ValidationError> {
        loop {
            self.errors.clear();
            self.changed = false;
            self.next_var = 0;
            self.divergence = None;
            self.check_declarations();
            self.scopes.push(Vec::new());
            self.path.clear();
            self.path.push_str("body");
            self.check_body(&self.program.body, None, 0);
            self.scopes.clear();
            if !self.changed {
                return self.errors;
            }
        }
    }

    fn error(&mut self, kind: K) {
        self.errors.push(ValidationError {
            path: self.path.clone(),
            kind,
        });
    }

    fn error_at(&mut self, path: String, kind: K) {
        self.errors.push(ValidationError { path, kind });
    }

    fn check_declarations(&mut self) {
        let program = self.program;
        let [x, y, z] = program.workgroup_size;
        if x == 0 || y == 0 || z == 0 {
            self.error_at(
                "workgroup_size".into(),
                K::WorkgroupSizeZero { size: [x, y, z] },
            );
        } else {
            match program.invocations_per_workgroup() {
                Some(n) if n <= u64::from(crate::ir::MAX_WORKGROUP_INVOCATIONS) => {}
                Some(invocations) => {
                    self.error_at(
                        "workgroup_size".into(),
                        K::WorkgroupTooLarge { invocations },
                    );
                }
                None => self.error_at(
                    "workgroup_size".into(),
                    K::WorkgroupInvocationsOverflow { size: [x, y, z] },
                ),
            }
        }
        for (i, buffer) in program.buffers.iter().enumerate() {
            let path = format!("buffers[{i}]");
            self.check_declaration(path, i, buffer);
        }
    }

    fn check_declaration(&mut self, path: String, i: usize, buffer: &BufferDecl) {
        let earlier = &self.program.buffers[..i];
        if !is_identifier(&buffer.name) {
            self.error_at(
                path.clone(),
                K::InvalidName {
                    name: buffer.name.clone(),
                },
            );
        }
        if earlier.iter().any(|b| b.name == buffer.name) {
            self.error_at(
                path.clone(),
                K::DuplicateBufferName {
                    name: buffer.name.clone(),
                },
            );
        }
        if buffer.access.is_bound() {
            let twin = earlier
                .iter()
                .find(|b| b.access.is_bound() && b.binding == buffer.binding);
            if let Some(first) = twin {
                let kind = K::DuplicateBinding {
                    binding: buffer.binding,
                    first: first.name.clone(),
                    second: buffer.name.clone(),
                };
                self.error_at(path.clone(), kind);
            }
        }
        let needs_count = matches!(
            buffer.access,
            BufferAccess::Output | BufferAccess::Uniform | BufferAccess::Workgroup
        );
        if needs_count && buffer.count == 0 {
            let kind = K::MissingCount {
                buffer: buffer.name.clone(),
                access: buffer.access,
            };
            self.error_at(path.clone(), kind);
        }
        if let Some(range) = &buffer.output_byte_range {
            if buffer.access != BufferAccess::Output {
                self.error_at(
                    path,
                    K::ReadbackRangeOnNonOutput {
                        buffer: buffer.name.clone(),
                    },
                );
            } else if let Some(bytes) = buffer.declared_bytes()
                && (range.start > range.end
                    || !u64::try_from(range.end).is_ok_and(|end| end <= bytes))
            {
                let kind = K::ReadbackRangeOutOfBounds {
                    buffer: buffer.name.clone(),
                    range: range.clone(),
                    buffer_bytes: bytes,
                };
                self.error_at(path, kind);
            }
        }
    }

    fn lookup(&self, name: &str) -> Option<usize> {
        self.scopes
            .iter()
            .rev()
            .flat_map(|scope| scope.iter().rev())
            .find(|(n, _)| n == name)
            .map(|&(_, id)| id)
    }

    fn declare(&mut self, name: &str, ty: DataType, uniform: bool, loop_var: bool) {
        if !is_identifier(name) {
            self.error(K::InvalidName {
                name: name.to_owned(),
            });
        }
        if self.lookup(name).is_some() {
            self.error(K::VariableRedeclared {
                name: name.to_owned(),
            });
        }
        let id = self.next_var;
        self.next_var += 1;
        if let Some(info) = self.vars.get_mut(id) {
            // A later pass: keep what earlier passes learnt about later assignments.
            info.ty = ty;
            info.loop_var = loop_var;
            if info.uniform && !uniform {
                info.uniform = false;
                self.changed = true;
            }
        } else {
            self.vars.push(VarInfo {
                ty,
                uniform,
                loop_var,
            });
        }
        if let Some(scope) = self.scopes.last_mut() {
            scope.push((name.to_owned(), id));
        }
    }

    /// Checks a body. `nonuniform` says why control flow here may differ between invocations.
    fn check_body(&mut self, body: &[Node], nonuniform: Option<&'static str>, depth: usize) {
        if depth > MAX_NODE_DEPTH {
            self.error(K::NodeNestingTooDeep {
                limit: MAX_NODE_DEPTH,
            });
            return;
        }
        let base = self.path.len();
        for (i, node) in body.iter().enumerate() {
            use std::fmt::Write;
            let _ = write!(self.path, "[{i}]");
            self.check_node(node, nonuniform, depth);
            self.path.truncate(base);
        }
    }

    fn with_field<R>(&mut self, field: &str, f: impl FnOnce(&mut Self) -> R) -> R {
        let base = self.path.len();
        self.path.push('.');
        self.path.push_str(field);
        let out = f(self);
        self.path.truncate(base);
        out
    }

    fn scoped_body(
        &mut self,
        field: &str,
        body: &[Node],
        nonuniform: Option<&'static str>,
        depth: usize,
    ) {
        self.scopes.push(Vec::new());
        self.with_field(field, |c| c.check_body(body, nonuniform, depth + 1));
        self.scopes.pop();
    }

    fn check_node(&mut self, node: &Node, nonuniform: Option<&'static str>, depth: usize) {
        let control = nonuniform.or(self.divergence);
        match node {
            Node::Let { name, value } => {
                if let Some(t) = self.with_field("value", |c| c.check_expr(value, 0)) {
                    self.declare(name, t.ty, t.uniform, false);
                }
            }
            Node::Assign { name, value } => self.check_assign(name, value, control),
            Node::Store {
                buffer,
                index,
                value,
            } => self.check_store(buffer, index, value),
            Node::If {
                cond,
                then,
                otherwise,
            } => {
                let cond = self.with_field("cond", |c| c.check_expr(cond, 0));
                if let Some(t) = cond
                    && t.ty != DataType::Bool
                {
                    self.with_field("cond", |c| c.error(K::ConditionNotBool { found: t.ty }));
                }
                let inner = match cond {
                    Some(t) if !t.uniform => {
                        Some("the condition of an enclosing `if` may differ between invocations")
                    }
                    _ => control,
                };
                self.scoped_body("then", then, inner, depth);
                self.scoped_body("otherwise", otherwise, inner, depth);
            }
            Node::Loop {
                var,
                from,
                to,
                body,
            } => self.check_loop(var, from, to, body, control, depth),
            Node::Block(body) => self.scoped_body("block", body, control, depth),
            Node::Barrier => {
                if let Some(reason) = control {
                    self.error(K::NonUniformBarrier { reason });
                }
            }
            Node::Return => {
                if control.is_some() {
                    self.divergence
                        .get_or_insert("an earlier `return` runs for only some invocations");
                }
            }
        }
    }

    fn check_assign(&mut self, name: &str, value: &Expr, control: Option<&'static str>) {
        let value = self.with_field("value", |c| c.check_expr(value, 0));
        let Some(id) = self.lookup(name) else {
            self.error(K::UnknownVariable {
                name: name.to_owned(),
            });
            return;
        };
        let info = self.vars[id];
        if info.loop_var {
            self.error(K::AssignToLoopVariable {
                name: name.to_owned(),
            });
        }
        let Some(value) = value else { return };
        if value.ty != info.ty {
            let kind = K::AssignTypeMismatch {
                name: name.to_owned(),
                expected: info.ty,
                found: value.ty,
            };
            self.error(kind);
        }
        if info.uniform && (!value.uniform || control.is_some()) {
            self.vars[id].uniform = false;
            self.changed = true;
        }
    }

    fn check_store(&mut self, buffer: &str, index: &Expr, value: &Expr) {
        let index = self.with_field("index", |c| c.check_expr(index, 0));
        let value = self.with_field("value", |c| c.check_expr(value, 0));
        let Some(decl) = self.program.buffer(buffer) else {
            self.error(K::UnknownBuffer {
                name: buffer.to_owned(),
            });
            return;
        };
        if !decl.access.is_writable() {
            let kind = K::StoreToReadOnly {
                buffer: buffer.to_owned(),
                access: decl.access,
            };
            self.error(kind);
        }
        if let Some(index) = index
            && !index.ty.is_integer()
        {
            self.with_field("index", |c| {
                c.error(K::IndexType {
                    buffer: buffer.to_owned(),
                    found: index.ty,
                })
            });
        }
        if let Some(value) = value
            && value.ty != decl.element
        {
            let kind = K::StoreTypeMismatch {
                buffer: buffer.to_owned(),
                expected: decl.element,
                found: value.ty,
            };
            self.with_field("value", |c| c.error(kind));
        }
    }

    fn check_loop(
        &mut self,
        var: &str,
        from: &Expr,
        to: &Expr,
        body: &[Node],
        control: Option<&'static str>,
        depth: usize,
    ) {
        let from = self.with_field("from", |c| c.check_expr(from, 0));
        let to = self.with_field("to", |c| c.check_expr(to, 0));
        let (ty, bounds_uniform) = match (from, to) {
            (Some(f), Some(t)) => {
                if f.ty != t.ty || !f.ty.is_integer() {
                    self.error(K::LoopBoundTypes {
                        from: f.ty,
                        to: t.ty,
                    });
                }
                (f.ty, f.uniform && t.uniform)
            }
            (Some(t), None) | (None, Some(t)) => (t.ty, false),
            (None, None) => (DataType::U32, false),
        };
        let inner = if bounds_uniform {
            control
        } else {
            Some("the bounds of an enclosing loop may differ between invocations")
        };
        let errors_before = self.errors.len();
        let divergence_before = self.divergence;
        self.loop_body(var, ty, bounds_uniform, body, inner, depth);
        if divergence_before.is_none() && self.divergence.is_some() && inner.is_none() {
            // A `return` inside the body diverged some invocations, so the next iteration starts in
            // non-uniform control flow: check the body again in that state.
            self.errors.truncate(errors_before);
            self.loop_body(var, ty, bounds_uniform, body, self.divergence, depth);
        }
    }

    fn loop_body(
        &mut self,
        var: &str,
        ty: DataType,
        uniform: bool,
        body: &[Node],
        nonuniform: Option<&'static str>,
        depth: usize,
    ) {
        self.scopes.push(Vec::new());
        self.declare(var, ty, uniform && nonuniform.is_none(), true);
        self.with_field("body", |c| c.check_body(body, nonuniform, depth + 1));
        self.scopes.pop();
    }

    /// Types an expression. `None` means an error was reported inside it.
    fn check_expr(&mut self, expr: &Expr, depth: usize) -> Option<Typed> {
        if depth == 0 {
            self.expr_root = self.path.len();
            self.expr_too_deep = false;
        }
        if self.expr_too_deep {
            return None;
        }
        if depth >= MAX_EXPR_DEPTH {
            self.expr_too_deep = true;
            let root = self.path[..self.expr_root].to_owned();
            self.error_at(
                root,
                K::ExprTooDeep {
                    limit: MAX_EXPR_DEPTH,
                },
            );
            return None;
        }
        let d = depth + 1;
        match expr {
            Expr::Lit(lit) => Some(Typed {
                ty: lit.ty(),
                uniform: true,
            }),
            Expr::Var(name) => match self.lookup(name) {
                Some(id) => Some(Typed {
                    ty: self.vars[id].ty,
                    uniform: self.vars[id].uniform,
                }),
                None => {
                    self.error(K::UnknownVariable { name: name.clone() });
                    None
                }
            },
            Expr::Load { buffer, index } => self.check_load(buffer, index, d),
            Expr::BufLen(buffer) => {
                if self.program.buffer(buffer).is_none() {
                    self.error(K::UnknownBuffer {
                        name: buffer.clone(),
                    });
                    return None;
                }
                Some(Typed {
                    ty: DataType::U32,
                    uniform: true,
                })
            }
            Expr::Builtin(b) => Some(Typed {
                ty: DataType::U32,
                uniform: b.is_workgroup_uniform(),
            }),
            Expr::Binary { op, lhs, rhs } => {
                let l = self.with_field("lhs", |c| c.check_expr(lhs, d));
                let r = self.with_field("rhs", |c| c.check_expr(rhs, d));
                let (l, r) = (l?, r?);
                let Some(ty) = op.result_type(l.ty, r.ty) else {
                    self.error(K::BinaryOperandTypes {
                        op: *op,
                        lhs: l.ty,
                        rhs: r.ty,
                    });
                    return None;
                };
                Some(Typed {
                    ty,
                    uniform: l.uniform && r.uniform,
                })
            }
            Expr::Unary { op, arg } => {
                let a = self.with_field("arg", |c| c.check_expr(arg, d))?;
                let Some(ty) = op.result_type(a.ty) else {
                    self.error(K::UnaryOperandType { op: *op, arg: a.ty });
                    return None;
                };
                Some(Typed {
                    ty,
                    uniform: a.uniform,
                })
            }
            Expr::Select {
                cond,
                on_true,
                on_false,
            } => self.check_select(cond, on_true, on_false, d),
            Expr::Cast { to, arg } => {
                let a = self.with_field("arg", |c| c.check_expr(arg, d))?;
                Some(Typed {
                    ty: *to,
                    uniform: a.uniform,
                })
            }
            Expr::Bitcast { to, arg } => {
                let a = self.with_field("arg", |c| c.check_expr(arg, d))?;
                if !a.ty.is_numeric() || !to.is_numeric() {
                    self.error(K::BitcastType {
                        from: a.ty,
                        to: *to,
                    });
                    return None;
                }
                Some(Typed {
                    ty: *to,
                    uniform: a.uniform,
                })
            }
            Expr::Fma { a, b, c } => self.check_fma(a, b, c, d),
            Expr::Atomic {
                op,
                buffer,
                index,
                expected,
                value,
            } => self.check_atomic(*op, buffer, index, expected.as_deref(), value, d),
        }
    }

    fn check_load(&mut self, buffer: &str, index: &Expr, d: usize) -> Option<Typed> {
        let index = self.with_field("index", |c| c.check_expr(index, d));
        let Some(decl) = self.program.buffer(buffer) else {
            self.error(K::UnknownBuffer {
                name: buffer.to_owned(),
            });
            return None;
        };
        let index = index?;
        if !index.ty.is_integer() {
            self.with_field("index", |c| {
                c.error(K::IndexType {
                    buffer: buffer.to_owned(),
                    found: index.ty,
                })
            });
            return None;
        }
        // Read-only memory holds the same value for every invocation, so a uniform index gives a
        // uniform value; writable memory may change under other invocations.
        let readonly = matches!(decl.access, BufferAccess::Read | BufferAccess::Uniform);
        Some(Typed {
            ty: decl.element,
            uniform: readonly && index.uniform,
        })
    }

    fn check_select(
        &mut self,
        cond: &Expr,
        on_true: &Expr,
        on_false: &Expr,
        d: usize,
    ) -> Option<Typed> {
        let c = self.with_field("cond", |c| c.check_expr(cond, d));
        let t = self.with_field("on_true", |c| c.check_expr(on_true, d));
        let f = self.with_field("on_false", |c| c.check_expr(on_false, d));
        let (c, t, f) = (c?, t?, f?);
        if c.ty != DataType::Bool {
            self.with_field("cond", |s| s.error(K::ConditionNotBool { found: c.ty }));
            return None;
        }
        if t.ty != f.ty {
            self.error(K::SelectArmsDiffer {
                on_true: t.ty,
                on_false: f.ty,
            });
            return None;
        }
        Some(Typed {
            ty: t.ty,
            uniform: c.uniform && t.uniform && f.uniform,
        })
    }

    fn check_fma(&mut self, a: &Expr, b: &Expr, c: &Expr, d: usize) -> Option<Typed> {
        let operands = [("a", a), ("b", b), ("c", c)];
        let mut uniform = true;
        let mut ok = true;
        for (field, operand) in operands {
            match self.with_field(field, |s| s.check_expr(operand, d)) {
                Some(t) if t.ty == DataType::F32 => uniform &= t.uniform,
                Some(t) => {
                    self.with_field(field, |s| s.error(K::FmaOperandType { found: t.ty }));
                    ok = false;
                }
                None => ok = false,
            }
        }
        ok.then_some(Typed {
            ty: DataType::F32,
            uniform,
        })
    }

    fn check_atomic(
        &mut self,
        op: AtomicOp,
        buffer: &str,
        index: &Expr,
        expected: Option<&Expr>,
        value: &Expr,
        d: usize,
    ) -> Option<Typed> {
        let index = self.with_field("index", |c| c.check_expr(index, d));
        let expected = expected.map(|e| self.with_field("expected", |c| c.check_expr(e, d)));
        let value = self.with_field("value", |c| c.check_expr(value, d));
        if (op == AtomicOp::CompareExchange) != expected.is_some() {
            self.error(K::AtomicExpectedOperand { op });
            return None;
        }
        let Some(decl) = self.program.buffer(buffer) else {
            self.error(K::UnknownBuffer {
                name: buffer.to_owned(),
            });
            return None;
        };
        let element = decl.element;
        let mut ok = true;
        if !decl.access.is_writable() {
            let kind = K::AtomicOnReadOnly {
                buffer: buffer.to_owned(),
                access: decl.access,
            };
            self.error(kind);
            ok = false;
        }
        if !element.is_integer() {
            self.error(K::AtomicElementType {
                buffer: buffer.to_owned(),
                element,
            });
            return None;
        }
        if let Some(index) = index
            && !index.ty.is_integer()
        {
            self.with_field("index", |c| {
                c.error(K::IndexType {
                    buffer: buffer.to_owned(),
                    found: index.ty,
                })
            });
            ok = false;
        }
        for (field, operand) in [("expected", expected.flatten()), ("value", value)] {
            if let Some(t) = operand
                && t.ty != element
            {
                let kind = K::AtomicOperandType {
                    buffer: buffer.to_owned(),
                    expected: element,
                    found: t.ty,
                };
                self.with_field(field, |c| c.error(kind));
                ok = false;
            }
        }
        (ok && index.is_some() && value.is_some()).then_some(Typed {
            ty: element,
            uniform: false,
        })
    }
}

/// True for ASCII identifiers: a letter or `_`, then letters, digits or `_`, at most 64 bytes.
pub(crate) fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    let Some(first) = chars.next() else {
        return false;
    };
    name.len() <= 64
        && (first.is_ascii_alphabetic() || first == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The type of a validated expression, given the types of the variables in scope.
///
/// Backends use this while lowering a program that [`crate::validate`] accepted; on such a program it
/// never returns `None`.
#[must_use]
pub fn expr_type(
    expr: &Expr,
    program: &Program,
    var_type: &dyn Fn(&str) -> Option<DataType>,
) -> Option<DataType> {
    match expr {
        Expr::Lit(Literal::Bool(_)) => Some(DataType::Bool),
        Expr::Lit(lit) => Some(lit.ty()),
        Expr::Var(name) => var_type(name),
        Expr::Load { buffer, .. } | Expr::Atomic { buffer, .. } => {
            program.buffer(buffer).map(|b| b.element)
        }
        Expr::BufLen(_) | Expr::Builtin(_) => Some(DataType::U32),
        Expr::Binary { op, lhs, rhs } => op.result_type(
            expr_type(lhs, program, var_type)?,
            expr_type(rhs, program, var_type)?,
        ),
        Expr::Unary { op, arg } => op.result_type(expr_type(arg, program, var_type)?),
        Expr::Select { on_true, .. } => expr_type(on_true, program, var_type),
        Expr::Cast { to, .. } | Expr::Bitcast { to, .. } => Some(*to),
        Expr::Fma { .. } => Some(DataType::F32),
    }
}
