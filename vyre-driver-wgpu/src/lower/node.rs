//! The translation of statements.

use naga::{BinaryOperator as B, Block, Statement};
use vyre_driver::BackendError;
use vyre_foundation::ir::{Expr, Node};
use vyre_foundation::validate::VarId;

use super::planted::{Miscompile, planted};
use super::{Local, Lowerer};

impl Lowerer<'_, '_> {
    /// Lowers a body.
    pub(crate) fn body(&mut self, block: &mut Block, body: &[Node]) -> Result<(), BackendError> {
        // The planted `AssignedLetAsValue` renames an assigned variable's value within a body and
        // forgets the new value when the body ends, as SSA renaming without merges would.
        let saved = planted(Miscompile::AssignedLetAsValue).then(|| self.locals.clone());
        let lowered = self.nodes(block, body);
        if let Some(saved) = saved {
            self.locals = saved;
        }
        lowered
    }

    /// The statements of a body in order, four stores into one workgroup row as one (`rows`, with
    /// the `let`s between them first).
    fn nodes(&mut self, block: &mut Block, body: &[Node]) -> Result<(), BackendError> {
        let mut at = 0;
        while let Some(rest) = body.get(at..).filter(|r| !r.is_empty()) {
            self.row_loads.statement();
            if let Some(used) = self.quad_store(block, rest)? {
                at += used;
                continue;
            }
            self.node(block, &rest[0])?;
            at += 1;
        }
        Ok(())
    }

    fn nested_body(&mut self, outer: &mut Block, body: &[Node]) -> Result<Block, BackendError> {
        self.fb.flush(outer);
        let mut inner = Block::new();
        self.body(&mut inner, body)?;
        self.fb.flush(&mut inner);
        Ok(inner)
    }

    pub(crate) fn node(&mut self, block: &mut Block, node: &Node) -> Result<(), BackendError> {
        self.row_loads.statement();
        match node {
            Node::Let { name, value } => {
                let id = self.evidence.node_var(node)?;
                self.bounds.define(self.evidence, id, value);
                let (value, ty) = self.expr(block, value)?;
                if self.evidence.var(id)?.assigned && !planted(Miscompile::AssignedLetAsValue) {
                    let pointer = self
                        .fb
                        .local(block, Some(name.clone()), self.types.value(ty));
                    self.fb.stmt(block, Statement::Store { pointer, value });
                    self.bind(id, Local::Pointer(pointer));
                } else {
                    self.fb.name(value, name);
                    self.bind(id, Local::Value(value));
                }
            }
            Node::Assign { value, .. } => {
                let id = self.evidence.node_var(node)?;
                let (value, _) = self.expr(block, value)?;
                if planted(Miscompile::AssignedLetAsValue)
                    && matches!(self.local(id)?, Local::Value(_))
                {
                    self.bind(id, Local::Value(value));
                    return Ok(());
                }
                let pointer = self.local_pointer(id)?;
                self.fb.stmt(block, Statement::Store { pointer, value });
            }
            Node::Store { index, value, .. } => {
                let b = self.evidence.node_buffer(node)?.index();
                if self.is_lane_access(b, index) {
                    let (value, _) = self.expr(block, value)?;
                    let word = self.value_to_word(block, b, value);
                    self.lane_store(block, b, word)?;
                    return Ok(());
                }
                let proven = self.bounds.proven(self.evidence, b, index);
                if self.row_store(block, b, index, value, proven)? {
                    return Ok(());
                }
                let (index, index_ty) = self.expr(block, index)?;
                let (value, _) = self.expr(block, value)?;
                let target = super::access::Target {
                    buffer: b,
                    index,
                    index_ty,
                    proven,
                };
                self.guarded_store(block, target, value);
            }
            Node::PrivateArray { name, element, len } => {
                let id = self.evidence.node_var(node)?;
                self.declare_array(block, id, name, *element, *len)?;
            }
            Node::ArrayStore { index, value, .. } => {
                let id = self.evidence.node_var(node)?;
                self.array_store(block, id, index, value)?;
            }
            Node::Tile { name, tile } => {
                let id = self.evidence.node_var(node)?;
                self.declare_tile(block, id, name, *tile)?;
            }
            Node::TileLoad { .. } | Node::TileStore { .. } => self.tile_transfer(block, node)?,
            Node::TileMultiplyAdd { .. } => self.tile_multiply_add(block, node)?,
            Node::If {
                cond,
                then,
                otherwise,
            } => {
                let (condition, _) = self.expr(block, cond)?;
                let mark = self.bounds.mark();
                self.bounds.assume(self.evidence, cond);
                let accept = self.nested_body(block, then);
                self.bounds.restore(mark);
                let accept = accept?;
                let reject = self.nested_body(block, otherwise)?;
                self.fb.stmt(
                    block,
                    Statement::If {
                        condition,
                        accept,
                        reject,
                    },
                );
            }
            Node::Loop {
                var,
                from,
                to,
                body,
            } => {
                let id = self.evidence.node_var(node)?;
                self.counted_loop(block, id, var, from, to, body)?;
            }
            Node::Block(body) => {
                let inner = self.nested_body(block, body)?;
                self.fb.stmt(block, Statement::Block(inner));
            }
            Node::Barrier => {
                let scope = self.barriers.scope(self.barrier_count);
                self.barrier_count += 1;
                self.fb.stmt(block, Statement::ControlBarrier(scope));
            }
            Node::Return => self.fb.stmt(block, Statement::Return { value: None }),
            // Both leave the innermost naga loop, which is always the IR's innermost loop: the
            // lane loop of the vectorised form wraps the whole body, never a statement inside a
            // loop, and validation keeps `break` and `continue` inside loops. A counted loop's
            // step is its `continuing` block, which `continue` runs.
            Node::Break => self.fb.stmt(block, Statement::Break),
            Node::Continue => self.fb.stmt(block, Statement::Continue),
            Node::While { cond, body } => self.while_loop(block, cond, body)?,
            Node::Atomic {
                op,
                index,
                expected,
                value,
                ..
            } => {
                let b = self.evidence.node_buffer(node)?.index();
                let proven = self.bounds.proven(self.evidence, b, index);
                let (index, index_ty) = self.expr(block, index)?;
                let expected = match expected {
                    Some(e) => Some(self.expr(block, e)?.0),
                    None => None,
                };
                let (value, _) = self.expr(block, value)?;
                let target = super::access::Target {
                    buffer: b,
                    index,
                    index_ty,
                    proven,
                };
                self.guarded_atomic_statement(block, *op, target, expected, value);
            }
        }
        Ok(())
    }

    /// `while cond { body }`: a naga loop whose body first evaluates `cond` and breaks when it is
    /// false, so the condition is evaluated again before every iteration and `continue` (an empty
    /// `continuing` block) goes straight back to it.
    fn while_loop(
        &mut self,
        block: &mut Block,
        cond: &Expr,
        body: &[Node],
    ) -> Result<(), BackendError> {
        self.fb.flush(block);
        let mut loop_body = Block::new();
        let (more, _) = self.expr(&mut loop_body, cond)?;
        let done = self.fb.expr(
            &mut loop_body,
            naga::Expression::Unary {
                op: naga::UnaryOperator::LogicalNot,
                expr: more,
            },
        );
        self.fb.if_then(&mut loop_body, done, |fb, inner| {
            fb.stmt(inner, Statement::Break)
        });
        self.body(&mut loop_body, body)?;
        self.fb.flush(&mut loop_body);
        self.fb.stmt(
            block,
            Statement::Loop {
                body: loop_body,
                continuing: Block::new(),
                break_if: None,
            },
        );
        Ok(())
    }

    /// `for var in from..to`: both bounds are evaluated once, before the loop, so the trip count is
    /// fixed when it starts; `var + 1` cannot overflow because it only runs while `var < to`.
    fn counted_loop(
        &mut self,
        block: &mut Block,
        id: VarId,
        var: &str,
        from: &Expr,
        to: &Expr,
        body: &[Node],
    ) -> Result<(), BackendError> {
        let (start, ty) = self.expr(block, from)?;
        let (end, _) = self.expr(block, to)?;
        // Evaluated once, here; named so that the WGSL text evaluates it here too (naga's writer
        // would otherwise write a one-use expression inline at its use, in the loop's test).
        if !matches!(
            self.fb.function.expressions[end],
            naga::Expression::Literal(_) | naga::Expression::Constant(_)
        ) {
            self.fb.name(end, &format!("vyre_{var}_end"));
        }
        let counter = self
            .fb
            .local(block, Some(var.to_owned()), self.types.value(ty));
        self.fb.stmt(
            block,
            Statement::Store {
                pointer: counter,
                value: start,
            },
        );
        self.fb.flush(block);
        let mut loop_body = Block::new();
        let current = self.fb.load(&mut loop_body, counter);
        let more = self.fb.binary(&mut loop_body, B::Less, current, end);
        let done = self.fb.expr(
            &mut loop_body,
            naga::Expression::Unary {
                op: naga::UnaryOperator::LogicalNot,
                expr: more,
            },
        );
        self.fb.if_then(&mut loop_body, done, |fb, inner| {
            fb.stmt(inner, Statement::Break)
        });
        self.bind(id, Local::Pointer(counter));
        let mark = self.bounds.mark();
        self.bounds.assume_below(self.evidence, id, to);
        let lowered = self.body(&mut loop_body, body);
        self.bounds.restore(mark);
        lowered?;
        self.fb.flush(&mut loop_body);
        let one = match ty {
            vyre_foundation::ir::DataType::I32 => naga::Literal::I32(1),
            // Validation types every loop variable as `u32` or `i32`; the other arms keep the match
            // total.
            vyre_foundation::ir::DataType::U32
            | vyre_foundation::ir::DataType::Bool
            | vyre_foundation::ir::DataType::F32
            | vyre_foundation::ir::DataType::F16
            | vyre_foundation::ir::DataType::U64
            | vyre_foundation::ir::DataType::I64 => naga::Literal::U32(1),
        };
        self.fb.counted_loop(block, loop_body, counter, one);
        Ok(())
    }
}
