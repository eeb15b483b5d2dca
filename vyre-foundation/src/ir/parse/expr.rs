//! Tokens to expressions.
//!
//! Depths follow the validator: an expression root is at 0, each operand one deeper, and an
//! expression at [`MAX_EXPR_DEPTH`] or deeper is an error. Grouping parentheses, which `Display`
//! never prints, count as a level too, so that `((((...` cannot recurse without bound.

use crate::ir::parse::lexer::Tok;
use crate::ir::parse::parser::{Parser, Result};
use crate::ir::{AtomicOp, Axis, BinOp, Builtin, DataType, Expr, Literal, Node, SubgroupOp, UnOp};
use crate::validate::MAX_EXPR_DEPTH;

impl Parser {
    /// An expression `depth` levels below its root.
    pub(super) fn expr(&mut self, depth: usize) -> Result<Expr> {
        if depth >= MAX_EXPR_DEPTH {
            return self.too_deep("expression", MAX_EXPR_DEPTH);
        }
        if let Some(lit) = self.literal()? {
            return Ok(Expr::Lit(lit));
        }
        match self.peek().clone() {
            Tok::Punct("(") => self.parenthesised(depth),
            Tok::Punct(p) => match UnOp::ALL.iter().find(|op| op.symbol() == Some(p)) {
                Some(&op) => {
                    self.bump();
                    Ok(Expr::unary(op, self.operand_of_unary(op, depth + 1)?))
                }
                None => self.expected("an expression"),
            },
            Tok::Word(w) => self.word_expr(&w, depth),
            Tok::Quoted(_) => self.named(depth),
            _ => self.expected("an expression"),
        }
    }

    /// A literal, if the next tokens are one: `true`, `false`, a suffixed number, `f32_bits(0x...)`.
    fn literal(&mut self) -> Result<Option<Literal>> {
        let lit = match self.peek() {
            Tok::Lit(l) => *l,
            Tok::Word(w) if w == "true" || w == "false" => Literal::Bool(w == "true"),
            Tok::Word(w) if w == "f32_bits" && *self.peek_at(1) == Tok::Punct("(") => {
                self.bump();
                self.bump();
                let bits = match *self.peek() {
                    Tok::Hex(v) => u32::try_from(v).ok(),
                    _ => None,
                };
                let Some(bits) = bits else {
                    return self.expected("32 bits in hex, `0x7fc00000`");
                };
                self.bump();
                self.punct(")", "`)`")?;
                return Ok(Some(Literal::F32(bits)));
            }
            Tok::Word(w) if w == "f16_bits" && *self.peek_at(1) == Tok::Punct("(") => {
                self.bump();
                self.bump();
                let bits = match *self.peek() {
                    Tok::Hex(v) => u16::try_from(v).ok(),
                    _ => None,
                };
                let Some(bits) = bits else {
                    return self.expected("16 bits in hex, `0x7e00`");
                };
                self.bump();
                self.punct(")", "`)`")?;
                return Ok(Some(Literal::F16(bits)));
            }
            _ => return Ok(None),
        };
        self.bump();
        Ok(Some(lit))
    }

    /// The operand of a unary operator. `Display` writes the negation of a literal as `-(1i)`; the
    /// parentheses are read here, without a level of their own, so the literal keeps its depth.
    fn operand_of_unary(&mut self, op: UnOp, depth: usize) -> Result<Expr> {
        let literal_ahead = op == UnOp::Neg
            && self.at_punct("(")
            && match self.peek_at(1) {
                Tok::Lit(_) => *self.peek_at(2) == Tok::Punct(")"),
                Tok::Word(w) => w == "true" || w == "false" || w == "f32_bits" || w == "f16_bits",
                _ => false,
            };
        if !literal_ahead || depth >= MAX_EXPR_DEPTH {
            return self.expr(depth);
        }
        let start = self.position();
        self.bump();
        if let Some(lit) = self.literal()?
            && self.at_punct(")")
        {
            self.bump();
            return Ok(Expr::Lit(lit));
        }
        self.rewind(start);
        self.expr(depth)
    }

    /// `(lhs op rhs)`, or a grouped `(expr)`.
    fn parenthesised(&mut self, depth: usize) -> Result<Expr> {
        self.bump();
        let lhs = self.expr(depth + 1)?;
        if self.at_punct(")") {
            self.bump();
            return Ok(lhs);
        }
        let op = match self.peek() {
            Tok::Punct(p) => BinOp::ALL.iter().copied().find(|op| op.symbol() == Some(p)),
            _ => None,
        };
        let Some(op) = op else {
            return self.expected("a binary operator or `)`");
        };
        self.bump();
        let rhs = self.expr(depth + 1)?;
        self.punct(")", "`)` closing the binary operation")?;
        Ok(Expr::binary(op, lhs, rhs))
    }

    /// An expression starting with a bare word: a keyword form, a call, a builtin or a name.
    fn word_expr(&mut self, w: &str, depth: usize) -> Result<Expr> {
        if w == "bitcast" {
            self.bump();
            self.punct("<", "`<`")?;
            let to = self.data_type()?;
            self.punct(">", "`>`")?;
            let [arg] = self.fixed_args(depth)?;
            return Ok(Expr::bitcast(to, arg));
        }
        if let Some(builtin) = builtin_base(w) {
            self.bump();
            self.punct(".", "`.` and an axis")?;
            let axis = match self.peek() {
                Tok::Word(a) if a == "x" => Axis::X,
                Tok::Word(a) if a == "y" => Axis::Y,
                Tok::Word(a) if a == "z" => Axis::Z,
                _ => return self.expected("an axis (`x`, `y` or `z`)"),
            };
            self.bump();
            return Ok(Expr::Builtin(builtin(axis)));
        }
        // A name is never followed by `(`, so a word before `(` is always a function.
        if *self.peek_at(1) != Tok::Punct("(") {
            return self.named(depth);
        }
        self.call(w, depth)
    }

    /// `f(args)` for the function-like forms.
    fn call(&mut self, w: &str, depth: usize) -> Result<Expr> {
        if let Some(atomic) = AtomicOp::ALL.iter().copied().find(|op| op.name() == w) {
            self.bump();
            return self.atomic(atomic, depth);
        }
        if let Some(expr) = self.subgroup_call(w, depth)? {
            return Ok(expr);
        }
        if w == "len" {
            self.bump();
            self.punct("(", "`(`")?;
            let buffer = self.name("a buffer name")?;
            self.punct(")", "`)`")?;
            return Ok(Expr::BufLen(buffer));
        }
        let unknown = !(w == "select"
            || w == "fma"
            || DataType::ALL.iter().any(|t| t.name() == w)
            || BinOp::ALL.iter().any(|op| op.name() == w)
            || UnOp::ALL.iter().any(|op| op.name() == w));
        if unknown {
            return self.expected("an expression (this word is no function of the text form)");
        }
        self.bump();
        if let Some(to) = DataType::ALL.into_iter().find(|t| t.name() == w) {
            let [arg] = self.fixed_args(depth)?;
            return Ok(Expr::cast(to, arg));
        }
        if let Some(op) = UnOp::ALL.iter().copied().find(|op| op.name() == w) {
            let [arg] = self.fixed_args(depth)?;
            return Ok(Expr::unary(op, arg));
        }
        if let Some(op) = BinOp::ALL.iter().copied().find(|op| op.name() == w) {
            let [lhs, rhs] = self.fixed_args(depth)?;
            return Ok(Expr::binary(op, lhs, rhs));
        }
        let [a, b, c] = self.fixed_args(depth)?;
        Ok(if w == "select" {
            Expr::select(a, b, c)
        } else {
            Expr::fma(a, b, c)
        })
    }

    /// The subgroup forms: `subgroup_size()`, `subgroup_invocation_id()`, `subgroup_op(e)` and
    /// `subgroup_shuffle(e, lane)`; `None` when `w` names none of them.
    fn subgroup_call(&mut self, w: &str, depth: usize) -> Result<Option<Expr>> {
        use crate::ir::builtin::{SUBGROUP_INVOCATION_ID, SUBGROUP_SHUFFLE, SUBGROUP_SIZE};
        let builtin = match w {
            SUBGROUP_SIZE => Some(Builtin::SubgroupSize),
            SUBGROUP_INVOCATION_ID => Some(Builtin::SubgroupInvocationId),
            _ => None,
        };
        if let Some(builtin) = builtin {
            self.bump();
            let [] = self.fixed_args(depth)?;
            return Ok(Some(Expr::Builtin(builtin)));
        }
        if w == SUBGROUP_SHUFFLE {
            self.bump();
            let [value, lane] = self.fixed_args(depth)?;
            return Ok(Some(Expr::subgroup_shuffle(value, lane)));
        }
        if let Some(op) = SubgroupOp::ALL.iter().copied().find(|op| op.name() == w) {
            self.bump();
            let [arg] = self.fixed_args(depth)?;
            return Ok(Some(Expr::subgroup(op, arg)));
        }
        Ok(None)
    }

    /// `(arg, ...)` with exactly `n` arguments, each one level deeper.
    fn call_args(&mut self, n: usize, depth: usize) -> Result<Vec<Expr>> {
        self.punct("(", "`(`")?;
        let mut args = Vec::new();
        for i in 0..n {
            if i > 0 {
                self.punct(",", "`,` and another argument")?;
            }
            args.push(self.expr(depth + 1)?);
        }
        self.punct(")", "`)` after the last argument")?;
        Ok(args)
    }

    fn fixed_args<const N: usize>(&mut self, depth: usize) -> Result<[Expr; N]> {
        let args = self.call_args(N, depth)?;
        match args.try_into() {
            Ok(args) => Ok(args),
            Err(_) => self.expected("the arguments of the call"),
        }
    }

    /// `atomic_op(buffer[index], value)` or `atomic_op(buffer[index], expected, value)`.
    fn atomic(&mut self, op: AtomicOp, depth: usize) -> Result<Expr> {
        let (buffer, index, expected, value) = self.atomic_parts(depth + 1)?;
        Ok(Expr::Atomic {
            op,
            buffer,
            index: Box::new(index),
            expected: expected.map(Box::new),
            value: Box::new(value),
        })
    }

    /// The parenthesised arguments of an atomic: buffer, index, `expected` if given, and value,
    /// each operand `depth` levels below its root.
    fn atomic_parts(&mut self, depth: usize) -> Result<(String, Expr, Option<Expr>, Expr)> {
        self.punct("(", "`(`")?;
        let buffer = self.name("a buffer name")?;
        self.punct("[", "`[`")?;
        let index = self.expr(depth)?;
        self.punct("]", "`]`")?;
        self.punct(",", "`,` and the operand")?;
        let first = self.expr(depth)?;
        let (expected, value) = if self.at_punct(",") {
            self.bump();
            (Some(first), self.expr(depth)?)
        } else {
            (None, first)
        };
        self.punct(")", "`)` after the last argument")?;
        Ok((buffer, index, expected, value))
    }

    /// An atomic statement's call after its word: the expression form's fields, as a statement.
    pub(super) fn atomic_statement(&mut self, op: AtomicOp) -> Result<Node> {
        let (buffer, index, expected, value) = self.atomic_parts(0)?;
        Ok(Node::Atomic {
            op,
            buffer,
            index,
            expected,
            value,
        })
    }

    /// `name`, `name[index]` or a private array's `name.[index]`.
    fn named(&mut self, depth: usize) -> Result<Expr> {
        let name = self.name("an expression")?;
        if self.at_punct(".") {
            self.bump();
            self.punct("[", "`[` after `.`")?;
            let index = self.expr(depth + 1)?;
            self.punct("]", "`]`")?;
            return Ok(Expr::array_load(name, index));
        }
        if !self.at_punct("[") {
            return Ok(Expr::Var(name));
        }
        self.bump();
        let index = self.expr(depth + 1)?;
        self.punct("]", "`]`")?;
        Ok(Expr::load(name, index))
    }
}

/// The builtin family a word names: `gid`, `lid`, `wid` or `nwg`.
fn builtin_base(w: &str) -> Option<fn(Axis) -> Builtin> {
    match w {
        "gid" => Some(Builtin::GlobalId),
        "lid" => Some(Builtin::LocalId),
        "wid" => Some(Builtin::WorkgroupId),
        "nwg" => Some(Builtin::NumWorkgroups),
        _ => None,
    }
}
