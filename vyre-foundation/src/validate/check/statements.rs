//! Statements: scoping, writability, loop variables, and the uniformity of control flow that
//! barriers need.
//!
//! Control flow is non-uniform inside an `if` or loop whose condition or bounds may differ between
//! invocations, after a `return` that may run for only some invocations (for the rest of the
//! program), and after a `break` or `continue` that may run for only some invocations: for the
//! rest of that iteration of its loop, and after a `break` for every later iteration too. A loop
//! reconverges where it ends, so the statements after it are as uniform as those before it.

use crate::ir::{DataType, Expr, Node};
use crate::validate::MAX_NODE_DEPTH;
use crate::validate::errors::ValidationErrorKind as K;

use super::Checker;
use crate::validate::evidence::{BufferId, Resolved, VarId};

impl Checker<'_> {
    /// Checks a body. `nonuniform` says why control flow here may differ between invocations.
    pub(super) fn check_body(
        &mut self,
        body: &[Node],
        nonuniform: Option<&'static str>,
        depth: usize,
    ) {
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

    pub(super) fn with_field<R>(&mut self, field: &str, f: impl FnOnce(&mut Self) -> R) -> R {
        let base = self.path.len();
        self.path.push('.');
        self.path.push_str(field);
        let out = f(self);
        self.path.truncate(base);
        out
    }

    pub(super) fn scoped_body(
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

    pub(super) fn check_node(
        &mut self,
        node: &Node,
        nonuniform: Option<&'static str>,
        depth: usize,
    ) {
        let control = nonuniform.or(self.divergence).or(self.iteration_exit);
        self.control = control;
        let resolved = match node {
            Node::Let { name, value } => {
                match self.with_field("value", |c| c.check_expr(value, 0)) {
                    Some(t) => {
                        Resolved::Var(self.declare(name, t.ty, (t.uniform, t.subgroup), false))
                    }
                    None => Resolved::Nothing,
                }
            }
            Node::Assign { name, value } => self.check_assign(name, value, control),
            Node::PrivateArray { name, element, len } => {
                if *len == 0 || *len > crate::ir::MAX_PRIVATE_ARRAY_LEN {
                    self.error(K::ArrayLength {
                        name: name.clone(),
                        len: *len,
                    });
                }
                self.needs(crate::ir::Features::of_type(*element));
                Resolved::Var(self.declare_with(name, *element, (false, false), false, Some(*len)))
            }
            Node::ArrayStore {
                array,
                index,
                value,
            } => self.check_array_store(array, index, value),
            Node::Store {
                buffer,
                index,
                value,
            } => self.check_store(buffer, index, value),
            Node::Tile { name, tile } => self.check_tile(name, *tile),
            Node::TileLoad { .. } => self.check_tile_transfer(node, false),
            Node::TileStore { .. } => self.check_tile_transfer(node, true),
            Node::TileMultiplyAdd { target, a, b, c } => {
                self.check_tile_multiply_add(target, a, b, c)
            }
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
                Resolved::Nothing
            }
            Node::Loop {
                var,
                from,
                to,
                body,
            } => Resolved::Var(self.check_loop(var, from, to, body, control, depth)),
            Node::Block(body) => {
                self.scoped_body("block", body, control, depth);
                Resolved::Nothing
            }
            Node::Barrier => {
                if let Some(reason) = control {
                    self.error(K::NonUniformBarrier { reason });
                }
                Resolved::Nothing
            }
            Node::Return => {
                if control.is_some() {
                    self.divergence
                        .get_or_insert("an earlier `return` runs for only some invocations");
                }
                Resolved::Nothing
            }
            Node::While { cond, body } => {
                self.check_while(cond, body, control, depth);
                Resolved::Nothing
            }
            Node::Break => {
                let reason = "an earlier `break` leaves the loop for only some invocations";
                self.check_exit("break", reason, control);
                if control.is_some() {
                    self.loop_broken.get_or_insert(reason);
                }
                Resolved::Nothing
            }
            Node::Continue => {
                let reason = "an earlier `continue` ends the iteration for only some invocations";
                self.check_exit("continue", reason, control);
                Resolved::Nothing
            }
            Node::Atomic {
                op,
                buffer,
                index,
                expected,
                value,
            } => self
                .check_atomic(*op, buffer, index, expected.as_ref(), value, 0)
                .map_or(Resolved::Nothing, |t| t.resolved),
        };
        self.record_node(node, resolved, control.is_none());
    }

    /// A `break` or `continue`: it must be inside a loop body, and in non-uniform control flow it
    /// makes the rest of the iteration non-uniform.
    fn check_exit(
        &mut self,
        statement: &'static str,
        reason: &'static str,
        control: Option<&'static str>,
    ) {
        if self.loop_depth == 0 {
            self.error(K::ExitOutsideLoop { statement });
        }
        if control.is_some() {
            self.iteration_exit.get_or_insert(reason);
        }
    }

    /// Checks `while cond { body }`.
    fn check_while(
        &mut self,
        cond: &Expr,
        body: &[Node],
        control: Option<&'static str>,
        depth: usize,
    ) {
        // The condition runs again before every iteration, for only the invocations still in the
        // loop, so it is never uniform control flow for a subgroup operation.
        self.control =
            Some("a `while` condition runs again for only the invocations still in the loop");
        let cond = self.with_field("cond", |c| c.check_expr(cond, 0));
        self.control = control;
        if let Some(t) = cond
            && t.ty != DataType::Bool
        {
            self.with_field("cond", |c| c.error(K::ConditionNotBool { found: t.ty }));
        }
        let inner = match cond {
            Some(t) if !t.uniform => {
                Some("the condition of an enclosing `while` may differ between invocations")
            }
            _ => control,
        };
        self.in_loop(inner, |c, nonuniform| {
            c.scoped_body("body", body, nonuniform, depth)
        });
    }

    /// Walks a loop body with `walk`, starting in `inner` control flow, and walks it again when an
    /// iteration may leave some invocations behind (a non-uniform `return` or `break` in a body
    /// entered uniformly): the next iteration then starts in non-uniform control flow, and the
    /// second walk's facts replace the first's. The loop's own `break`/`continue` state does not
    /// outlive it.
    fn in_loop<R>(
        &mut self,
        inner: Option<&'static str>,
        mut walk: impl FnMut(&mut Self, Option<&'static str>) -> R,
    ) -> R {
        let outer = (self.iteration_exit.take(), self.loop_broken.take());
        self.loop_depth += 1;
        let errors_before = self.errors.len();
        let divergence_before = self.divergence;
        let mut out = walk(self, inner);
        let returned = divergence_before.is_none() && self.divergence.is_some();
        if inner.is_none()
            && let Some(reason) = self.divergence.filter(|_| returned).or(self.loop_broken)
        {
            self.errors.truncate(errors_before);
            self.iteration_exit = None;
            out = walk(self, Some(reason));
        }
        self.loop_depth -= 1;
        (self.iteration_exit, self.loop_broken) = outer;
        out
    }

    pub(super) fn check_assign(
        &mut self,
        name: &str,
        value: &Expr,
        control: Option<&'static str>,
    ) -> Resolved {
        let value = self.with_field("value", |c| c.check_expr(value, 0));
        let Some(id) = self.lookup(name) else {
            self.error(K::UnknownVariable {
                name: name.to_owned(),
            });
            return Resolved::Nothing;
        };
        self.vars[id].assigned = true;
        let resolved = Resolved::Var(VarId::new(id));
        let info = self.vars[id];
        if info.array.is_some() {
            self.error(K::ArrayAsValue {
                name: name.to_owned(),
            });
            return resolved;
        }
        if info.tile.is_some() {
            self.error(K::TileAsValue {
                name: name.to_owned(),
            });
            return resolved;
        }
        if info.loop_var {
            self.error(K::AssignToLoopVariable {
                name: name.to_owned(),
            });
        }
        let Some(value) = value else {
            return resolved;
        };
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
        if info.subgroup_uniform && (!value.subgroup || control.is_some()) {
            self.vars[id].subgroup_uniform = false;
            self.changed = true;
        }
        resolved
    }

    pub(super) fn check_store(&mut self, buffer: &str, index: &Expr, value: &Expr) -> Resolved {
        let index = self.with_field("index", |c| c.check_expr(index, 0));
        let value = self.with_field("value", |c| c.check_expr(value, 0));
        let Some(b) = self.program.buffer_index(buffer) else {
            self.error(K::UnknownBuffer {
                name: buffer.to_owned(),
            });
            return Resolved::Nothing;
        };
        self.used(b, |u| u.stored = true);
        let program = self.program;
        let decl = &program.buffers[b];
        if !decl.access.is_writable() {
            let kind = K::StoreToReadOnly {
                buffer: buffer.to_owned(),
                access: decl.access,
            };
            self.error(kind);
        }
        if let Some(index) = index
            && !index.ty.is_index()
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
        Resolved::Buffer(BufferId::new(b))
    }

    /// Checks `array.[index] = value` on a private array.
    fn check_array_store(&mut self, array: &str, index: &Expr, value: &Expr) -> Resolved {
        let index = self.with_field("index", |c| c.check_expr(index, 0));
        let value = self.with_field("value", |c| c.check_expr(value, 0));
        let Some((id, element)) = self.array_access(array, index) else {
            return Resolved::Nothing;
        };
        self.vars[id.index()].assigned = true;
        if let Some(value) = value
            && value.ty != element
        {
            let kind = K::ArrayStoreTypeMismatch {
                array: array.to_owned(),
                expected: element,
                found: value.ty,
            };
            self.with_field("value", |c| c.error(kind));
        }
        Resolved::Var(id)
    }

    /// Checks a counted loop and returns its variable's id.
    pub(super) fn check_loop(
        &mut self,
        var: &str,
        from: &Expr,
        to: &Expr,
        body: &[Node],
        control: Option<&'static str>,
        depth: usize,
    ) -> VarId {
        let from = self.with_field("from", |c| c.check_expr(from, 0));
        let to = self.with_field("to", |c| c.check_expr(to, 0));
        let (ty, bounds_uniform) = match (from, to) {
            (Some(f), Some(t)) => {
                if f.ty != t.ty || !f.ty.is_index() {
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
        self.in_loop(inner, |c, nonuniform| {
            c.loop_body(var, ty, bounds_uniform, body, nonuniform, depth)
        })
    }

    pub(super) fn loop_body(
        &mut self,
        var: &str,
        ty: DataType,
        uniform: bool,
        body: &[Node],
        nonuniform: Option<&'static str>,
        depth: usize,
    ) -> VarId {
        self.scopes.push(Vec::new());
        let uniform = uniform && nonuniform.is_none();
        let id = self.declare(var, ty, (uniform, uniform), true);
        self.with_field("body", |c| c.check_body(body, nonuniform, depth + 1));
        self.scopes.pop();
        id
    }
}
