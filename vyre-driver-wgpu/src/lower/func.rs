//! Building one naga function: the expression arena, `Emit` ranges, and statement blocks.
//!
//! naga evaluates an expression where an `Emit` statement covering it stands, so the order in which we
//! append expressions and statements is the program's evaluation order. Literals, globals, arguments and
//! local-variable references are "pre-emitted" and must never be covered by an `Emit`.

use naga::{Block, Expression, Function, Handle, Literal, Span, Statement};

/// A naga function under construction, with the start of the not-yet-emitted expressions.
pub(crate) struct FunctionBuilder {
    pub(crate) function: Function,
    pending: usize,
}

fn is_pre_emitted(expr: &Expression) -> bool {
    matches!(
        expr,
        Expression::Literal(_)
            | Expression::Constant(_)
            | Expression::Override(_)
            | Expression::ZeroValue(_)
            | Expression::FunctionArgument(_)
            | Expression::GlobalVariable(_)
            | Expression::LocalVariable(_)
    )
}

/// Results of statements (atomics) are not emitted either: the statement defines them.
fn is_statement_result(expr: &Expression) -> bool {
    matches!(
        expr,
        Expression::AtomicResult { .. }
            | Expression::CallResult(_)
            | Expression::SubgroupOperationResult { .. }
            | Expression::SubgroupBallotResult
    )
}

impl FunctionBuilder {
    pub(crate) fn new(function: Function) -> Self {
        let pending = function.expressions.len();
        Self { function, pending }
    }

    /// Emits every expression appended since the last flush into `block`.
    pub(crate) fn flush(&mut self, block: &mut Block) {
        let len = self.function.expressions.len();
        if len > self.pending {
            let range = self.function.expressions.range_from(self.pending);
            block.push(Statement::Emit(range), Span::UNDEFINED);
        }
        self.pending = len;
    }

    /// Appends an expression, keeping pre-emitted kinds and statement results out of `Emit` ranges.
    pub(crate) fn expr(&mut self, block: &mut Block, expr: Expression) -> Handle<Expression> {
        if is_pre_emitted(&expr) || is_statement_result(&expr) {
            self.flush(block);
            let handle = self.function.expressions.append(expr, Span::UNDEFINED);
            self.pending = self.function.expressions.len();
            handle
        } else {
            self.function.expressions.append(expr, Span::UNDEFINED)
        }
    }

    /// Appends a statement after emitting everything it may use.
    pub(crate) fn stmt(&mut self, block: &mut Block, stmt: Statement) {
        self.flush(block);
        block.push(stmt, Span::UNDEFINED);
    }

    pub(crate) fn u32(&mut self, block: &mut Block, v: u32) -> Handle<Expression> {
        self.expr(block, Expression::Literal(Literal::U32(v)))
    }

    pub(crate) fn binary(
        &mut self,
        block: &mut Block,
        op: naga::BinaryOperator,
        left: Handle<Expression>,
        right: Handle<Expression>,
    ) -> Handle<Expression> {
        self.expr(block, Expression::Binary { op, left, right })
    }

    pub(crate) fn select(
        &mut self,
        block: &mut Block,
        condition: Handle<Expression>,
        accept: Handle<Expression>,
        reject: Handle<Expression>,
    ) -> Handle<Expression> {
        self.expr(
            block,
            Expression::Select {
                condition,
                accept,
                reject,
            },
        )
    }

    pub(crate) fn math(
        &mut self,
        block: &mut Block,
        fun: naga::MathFunction,
        args: &[Handle<Expression>],
    ) -> Handle<Expression> {
        self.expr(
            block,
            Expression::Math {
                fun,
                arg: args[0],
                arg1: args.get(1).copied(),
                arg2: args.get(2).copied(),
                arg3: None,
            },
        )
    }

    pub(crate) fn load(
        &mut self,
        block: &mut Block,
        pointer: Handle<Expression>,
    ) -> Handle<Expression> {
        self.expr(block, Expression::Load { pointer })
    }

    pub(crate) fn access(
        &mut self,
        block: &mut Block,
        base: Handle<Expression>,
        index: Handle<Expression>,
    ) -> Handle<Expression> {
        self.expr(block, Expression::Access { base, index })
    }

    pub(crate) fn access_index(
        &mut self,
        block: &mut Block,
        base: Handle<Expression>,
        index: u32,
    ) -> Handle<Expression> {
        self.expr(block, Expression::AccessIndex { base, index })
    }

    /// Builds a nested block: everything appended by `f` is emitted inside it.
    pub(crate) fn nested(
        &mut self,
        outer: &mut Block,
        f: impl FnOnce(&mut Self, &mut Block),
    ) -> Block {
        self.flush(outer);
        let mut inner = Block::new();
        f(self, &mut inner);
        self.flush(&mut inner);
        inner
    }

    /// `if condition { accept }` where `accept` is built by `f`.
    pub(crate) fn if_then(
        &mut self,
        block: &mut Block,
        condition: Handle<Expression>,
        f: impl FnOnce(&mut Self, &mut Block),
    ) {
        let accept = self.nested(block, f);
        self.stmt(
            block,
            Statement::If {
                condition,
                accept,
                reject: Block::new(),
            },
        );
    }

    /// `loop { body } continuing { counter = counter + step }`: the counted loops' shape, whose
    /// `continuing` block runs after the body and after every `continue`.
    pub(crate) fn counted_loop(
        &mut self,
        block: &mut Block,
        body: Block,
        counter: Handle<Expression>,
        step: Literal,
    ) {
        let mut continuing = Block::new();
        let current = self.load(&mut continuing, counter);
        let step = self.expr(&mut continuing, Expression::Literal(step));
        let next = self.binary(&mut continuing, naga::BinaryOperator::Add, current, step);
        self.stmt(
            &mut continuing,
            Statement::Store {
                pointer: counter,
                value: next,
            },
        );
        self.stmt(
            block,
            Statement::Loop {
                body,
                continuing,
                break_if: None,
            },
        );
    }

    /// Names the expression `value` after a program variable, unless it has a name already (a
    /// `let` of another variable's value keeps the first name): the WGSL shows it as a `let`.
    pub(crate) fn name(&mut self, value: Handle<Expression>, name: &str) {
        self.function
            .named_expressions
            .entry(value)
            .or_insert_with(|| name.to_owned());
    }

    /// Declares a function-local variable.
    pub(crate) fn local(
        &mut self,
        block: &mut Block,
        name: Option<String>,
        ty: Handle<naga::Type>,
    ) -> Handle<Expression> {
        let var = self.function.local_variables.append(
            naga::LocalVariable {
                name,
                ty,
                init: None,
            },
            Span::UNDEFINED,
        );
        self.expr(block, Expression::LocalVariable(var))
    }
}
