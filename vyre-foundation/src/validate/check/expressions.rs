//! Expressions: the type of each, the buffer it names, and whether it is workgroup-uniform.

use crate::ir::{AtomicOp, BufferAccess, Builtin, DataType, Expr};
use crate::validate::MAX_EXPR_DEPTH;
use crate::validate::errors::ValidationErrorKind as K;

use super::{Checker, Typed};
use crate::validate::evidence::{BufferId, Resolved, VarId};

impl Checker<'_> {
    /// Types an expression. `None` means an error was reported inside it.
    pub(super) fn check_expr(&mut self, expr: &Expr, depth: usize) -> Option<Typed> {
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
        let typed = self.type_expr(expr, depth + 1)?;
        self.record_expr(expr, typed);
        Some(typed)
    }

    /// Types `expr`, whose operands are at depth `d`.
    fn type_expr(&mut self, expr: &Expr, d: usize) -> Option<Typed> {
        match expr {
            Expr::Lit(lit) => Some(Typed::value(lit.ty(), true)),
            Expr::Var(name) => match self.lookup(name) {
                Some(id) if self.vars[id].array.is_some() => {
                    self.error(K::ArrayAsValue { name: name.clone() });
                    None
                }
                Some(id) if self.vars[id].tile.is_some() => {
                    self.error(K::TileAsValue { name: name.clone() });
                    None
                }
                Some(id) => Some(Typed {
                    ty: self.vars[id].ty,
                    uniform: self.vars[id].uniform,
                    subgroup: self.vars[id].subgroup_uniform,
                    resolved: Resolved::Var(VarId::new(id)),
                }),
                None => {
                    self.error(K::UnknownVariable { name: name.clone() });
                    None
                }
            },
            Expr::Load { buffer, index } => self.check_load(buffer, index, d),
            Expr::ArrayLoad { array, index } => {
                let index = self.with_field("index", |c| c.check_expr(index, d));
                let (id, ty) = self.array_access(array, index)?;
                // Another invocation never sees this array, but its elements may hold values
                // that differ between invocations; no uniformity is claimed for them.
                Some(Typed {
                    ty,
                    uniform: false,
                    subgroup: false,
                    resolved: Resolved::Var(id),
                })
            }
            Expr::BufLen(buffer) => {
                let Some(index) = self.program.buffer_index(buffer) else {
                    self.error(K::UnknownBuffer {
                        name: buffer.clone(),
                    });
                    return None;
                };
                self.used(index, |u| u.length = true);
                Some(Typed {
                    ty: DataType::U32,
                    uniform: true,
                    subgroup: true,
                    resolved: Resolved::Buffer(BufferId::new(index)),
                })
            }
            Expr::Builtin(b) => {
                if b.is_subgroup() {
                    self.subgroup_use();
                }
                // The subgroup size is the same in every lane (the validator claims no more for
                // it: uniformity of control flow does not lean on it).
                Some(Typed::value_in(
                    DataType::U32,
                    b.is_workgroup_uniform(),
                    *b == Builtin::SubgroupSize,
                ))
            }
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
                // `local_id(x) / subgroup_size()` is the invocation's subgroup (SEMANTICS.md,
                // "Membership"): the same in every lane of a subgroup.
                Some(Typed::value_in(
                    ty,
                    l.uniform && r.uniform,
                    expr.is_subgroup_index() || (l.subgroup && r.subgroup),
                ))
            }
            Expr::Unary { op, arg } => {
                let a = self.with_field("arg", |c| c.check_expr(arg, d))?;
                let Some(ty) = op.result_type(a.ty) else {
                    self.error(K::UnaryOperandType { op: *op, arg: a.ty });
                    return None;
                };
                Some(Typed::value_in(ty, a.uniform, a.subgroup))
            }
            Expr::Select {
                cond,
                on_true,
                on_false,
            } => self.check_select(cond, on_true, on_false, d),
            Expr::Cast { to, arg } => {
                let a = self.with_field("arg", |c| c.check_expr(arg, d))?;
                Some(Typed::value_in(*to, a.uniform, a.subgroup))
            }
            Expr::Bitcast { to, arg } => {
                let a = self.with_field("arg", |c| c.check_expr(arg, d))?;
                let same_width = a.ty.size_bytes() == to.size_bytes();
                let reinterpretable = |t: DataType| t.is_numeric() && t != DataType::F16;
                if !reinterpretable(a.ty) || !reinterpretable(*to) || !same_width {
                    self.error(K::BitcastType {
                        from: a.ty,
                        to: *to,
                    });
                    return None;
                }
                Some(Typed::value_in(*to, a.uniform, a.subgroup))
            }
            Expr::Fma { a, b, c } => self.check_fma(a, b, c, d),
            Expr::Atomic {
                op,
                buffer,
                index,
                expected,
                value,
            } => self.check_atomic(*op, buffer, index, expected.as_deref(), value, d),
            Expr::Subgroup { op, arg } => self.check_subgroup(*op, arg, d),
            Expr::SubgroupShuffle { value, lane } => self.check_shuffle(value, lane, d),
        }
    }

    pub(super) fn check_load(&mut self, buffer: &str, index: &Expr, d: usize) -> Option<Typed> {
        let index = self.with_field("index", |c| c.check_expr(index, d));
        let Some(b) = self.program.buffer_index(buffer) else {
            self.error(K::UnknownBuffer {
                name: buffer.to_owned(),
            });
            return None;
        };
        let program = self.program;
        let decl = &program.buffers[b];
        self.used(b, |u| u.loaded = true);
        let index = index?;
        if !index.ty.is_index() {
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
            subgroup: readonly && index.subgroup,
            resolved: Resolved::Buffer(BufferId::new(b)),
        })
    }

    /// Resolves the private array `name` indexed by `index` (already checked) to its id and
    /// element type; reports a name that is not an array in scope or an index that is not `u32`
    /// or `i32`. `None` when the access is invalid.
    pub(super) fn array_access(
        &mut self,
        name: &str,
        index: Option<Typed>,
    ) -> Option<(VarId, DataType)> {
        let Some(id) = self.lookup(name) else {
            self.error(K::UnknownVariable {
                name: name.to_owned(),
            });
            return None;
        };
        let info = self.vars[id];
        if info.tile.is_some() {
            self.error(K::TileAsValue {
                name: name.to_owned(),
            });
            return None;
        }
        if info.array.is_none() {
            self.error(K::NotAnArray {
                name: name.to_owned(),
            });
            return None;
        }
        let index = index?;
        if !index.ty.is_index() {
            self.with_field("index", |c| {
                c.error(K::IndexType {
                    buffer: name.to_owned(),
                    found: index.ty,
                })
            });
            return None;
        }
        Some((VarId::new(id), info.ty))
    }

    pub(super) fn check_select(
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
        Some(Typed::value_in(
            t.ty,
            c.uniform && t.uniform && f.uniform,
            c.subgroup && t.subgroup && f.subgroup,
        ))
    }

    pub(super) fn check_fma(&mut self, a: &Expr, b: &Expr, c: &Expr, d: usize) -> Option<Typed> {
        let operands = [("a", a), ("b", b), ("c", c)];
        let (mut uniform, mut subgroup) = (true, true);
        let mut ok = true;
        for (field, operand) in operands {
            match self.with_field(field, |s| s.check_expr(operand, d)) {
                Some(t) if t.ty == DataType::F32 => {
                    uniform &= t.uniform;
                    subgroup &= t.subgroup;
                }
                Some(t) => {
                    self.with_field(field, |s| s.error(K::FmaOperandType { found: t.ty }));
                    ok = false;
                }
                None => ok = false,
            }
        }
        ok.then_some(Typed::value_in(DataType::F32, uniform, subgroup))
    }

    pub(super) fn check_atomic(
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
        let Some(b) = self.program.buffer_index(buffer) else {
            self.error(K::UnknownBuffer {
                name: buffer.to_owned(),
            });
            return None;
        };
        let program = self.program;
        let decl = &program.buffers[b];
        self.used(b, |u| u.atomic = true);
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
        if element.size_bytes() == 8 {
            self.needs(crate::ir::Features::INT64_ATOMICS);
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
            subgroup: false,
            resolved: Resolved::Buffer(BufferId::new(b)),
        })
    }
}
