//! Tokens to a program: the program header, buffer declarations and statements.
//!
//! A recursive descent over the grammar in `ir/parse/mod.rs`. Every recursion goes one nesting
//! level down and is refused past the validator's limits, so hostile text cannot overflow the stack.

use crate::ir::display::KEYWORDS;
use crate::ir::parse::error::{ParseError, ParseErrorKind};
use crate::ir::parse::lexer::{Tok, Token};
use crate::ir::parse::tile::TILE_CALLS;
use crate::ir::{AtomicOp, BufferAccess, BufferDecl, DataType, Node, Program};
use crate::validate::MAX_NODE_DEPTH;

pub(super) type Result<T> = std::result::Result<T, ParseError>;

/// The tokens and the position of the next one.
pub(super) struct Parser {
    tokens: Vec<Token>,
    pos: usize,
}

const ACCESSES: [BufferAccess; 5] = [
    BufferAccess::Read,
    BufferAccess::ReadWrite,
    BufferAccess::Output,
    BufferAccess::Uniform,
    BufferAccess::Workgroup,
];

impl Parser {
    pub(super) fn new(tokens: Vec<Token>) -> Self {
        Self { tokens, pos: 0 }
    }

    /// The token `n` ahead of the next one (the end token past the end).
    pub(super) fn peek_at(&self, n: usize) -> &Tok {
        self.tokens
            .get(self.pos + n)
            .or(self.tokens.last())
            .map_or(&Tok::End, |t| &t.tok)
    }

    pub(super) fn peek(&self) -> &Tok {
        self.peek_at(0)
    }

    pub(super) fn bump(&mut self) -> Tok {
        let tok = self.peek().clone();
        if self.pos < self.tokens.len() {
            self.pos += 1;
        }
        tok
    }

    /// The index of the next token, to come back to with [`Parser::rewind`].
    pub(super) fn position(&self) -> usize {
        self.pos
    }

    pub(super) fn rewind(&mut self, pos: usize) {
        self.pos = pos;
    }

    /// Where the next token starts.
    fn here(&self) -> (usize, usize) {
        self.tokens
            .get(self.pos)
            .or(self.tokens.last())
            .map_or((1, 1), |t| (t.line, t.column))
    }

    pub(super) fn error(&self, kind: ParseErrorKind) -> ParseError {
        let (line, column) = self.here();
        ParseError::new(line, column, kind)
    }

    /// The error "expected `expected`, found the next token".
    pub(super) fn expected<T>(&self, expected: &'static str) -> Result<T> {
        Err(self.error(ParseErrorKind::Expected {
            expected,
            found: self.peek().describe(),
        }))
    }

    pub(super) fn too_deep<T>(&self, what: &'static str, limit: usize) -> Result<T> {
        Err(self.error(ParseErrorKind::TooDeep { what, limit }))
    }

    pub(super) fn at_punct(&self, p: &str) -> bool {
        matches!(self.peek(), Tok::Punct(q) if *q == p)
    }

    pub(super) fn at_word(&self, w: &str) -> bool {
        matches!(self.peek(), Tok::Word(v) if v == w)
    }

    pub(super) fn punct(&mut self, p: &'static str, expected: &'static str) -> Result<()> {
        if self.at_punct(p) {
            self.bump();
            Ok(())
        } else {
            self.expected(expected)
        }
    }

    fn word(&mut self, w: &'static str, expected: &'static str) -> Result<()> {
        if self.at_word(w) {
            self.bump();
            Ok(())
        } else {
            self.expected(expected)
        }
    }

    /// A buffer or variable name: a bare word that is not a keyword, or a quoted name.
    pub(super) fn name(&mut self, expected: &'static str) -> Result<String> {
        match self.peek() {
            Tok::Word(w) if KEYWORDS.contains(&w.as_str()) => {
                Err(self.error(ParseErrorKind::Keyword {
                    expected,
                    word: w.clone(),
                }))
            }
            Tok::Word(_) | Tok::Quoted(_) => match self.bump() {
                Tok::Word(n) | Tok::Quoted(n) => Ok(n),
                _ => self.expected(expected),
            },
            _ => self.expected(expected),
        }
    }

    pub(super) fn unsigned(&mut self, expected: &'static str) -> Result<u64> {
        match *self.peek() {
            Tok::Unsigned(v) => {
                self.bump();
                Ok(v)
            }
            _ => self.expected(expected),
        }
    }

    pub(super) fn unsigned_u32(&mut self, expected: &'static str) -> Result<u32> {
        let at = self.here();
        let v = self.unsigned(expected)?;
        u32::try_from(v).map_err(|_| {
            ParseError::new(
                at.0,
                at.1,
                ParseErrorKind::InvalidNumber {
                    text: v.to_string(),
                    reason: "does not fit a u32",
                },
            )
        })
    }

    fn unsigned_usize(&mut self, expected: &'static str) -> Result<usize> {
        let at = self.here();
        let v = self.unsigned(expected)?;
        usize::try_from(v).map_err(|_| {
            ParseError::new(
                at.0,
                at.1,
                ParseErrorKind::InvalidNumber {
                    text: v.to_string(),
                    reason: "does not fit a usize",
                },
            )
        })
    }

    /// A type name: `bool`, `u32`, `i32`, `f32`, `f16`, `u64` or `i64`.
    pub(super) fn data_type(&mut self) -> Result<DataType> {
        let found = match self.peek() {
            Tok::Word(w) => DataType::ALL.into_iter().find(|t| t.name() == w),
            _ => None,
        };
        match found {
            Some(t) => {
                self.bump();
                Ok(t)
            }
            None => self.expected("a type (`bool`, `u32`, `i32`, `f32`, `f16`, `u64` or `i64`)"),
        }
    }

    /// `program @workgroup_size(x, y, z) { buffers statements }` and the end of the text.
    pub(super) fn program(&mut self) -> Result<Program> {
        self.word("program", "`program`")?;
        if !matches!(self.peek(), Tok::Attribute(a) if a == "workgroup_size") {
            return self.expected("`@workgroup_size`");
        }
        self.bump();
        self.punct("(", "`(`")?;
        let x = self.unsigned_u32("the workgroup size x")?;
        self.punct(",", "`,`")?;
        let y = self.unsigned_u32("the workgroup size y")?;
        self.punct(",", "`,`")?;
        let z = self.unsigned_u32("the workgroup size z")?;
        self.punct(")", "`)`")?;
        self.punct("{", "`{`")?;
        let mut buffers = Vec::new();
        while self.at_word("buffer") {
            buffers.push(self.buffer()?);
        }
        let body = self.body(0)?;
        self.punct("}", "a statement or the closing `}` of the program")?;
        if *self.peek() != Tok::End {
            return self.expected("the end of the text after the program");
        }
        Ok(Program::new(buffers, [x, y, z], body))
    }

    /// `buffer name: access type[count?] @binding(n)? @readback(a..b)?;`
    fn buffer(&mut self) -> Result<BufferDecl> {
        self.word("buffer", "`buffer`")?;
        let name = self.name("a buffer name")?;
        self.punct(":", "`:`")?;
        let access = match self.peek() {
            Tok::Word(w) => ACCESSES.into_iter().find(|a| a.name() == w),
            _ => None,
        };
        let Some(access) = access else {
            return self
                .expected("an access (`read`, `read_write`, `output`, `uniform` or `workgroup`)");
        };
        self.bump();
        let element = self.data_type()?;
        self.punct("[", "`[`")?;
        let count = if self.at_punct("]") {
            0
        } else {
            self.unsigned_u32("an element count or `]`")?
        };
        self.punct("]", "`]`")?;
        let mut binding = None;
        if matches!(self.peek(), Tok::Attribute(a) if a == "binding") {
            self.bump();
            self.punct("(", "`(`")?;
            binding = Some(self.unsigned_u32("a binding")?);
            self.punct(")", "`)`")?;
        }
        // Display always prints the binding of a bound buffer; only a workgroup buffer's is optional.
        if binding.is_none() && access != BufferAccess::Workgroup {
            return self.expected("`@binding(n)`");
        }
        let mut output_byte_range = None;
        if matches!(self.peek(), Tok::Attribute(a) if a == "readback") {
            self.bump();
            self.punct("(", "`(`")?;
            let start = self.unsigned_usize("a readback start")?;
            self.punct("..", "`..`")?;
            let end = self.unsigned_usize("a readback end")?;
            self.punct(")", "`)`")?;
            output_byte_range = Some(start..end);
        }
        self.punct(";", "`;` or an attribute")?;
        Ok(BufferDecl {
            name,
            binding: binding.unwrap_or(0),
            access,
            element,
            count,
            output_byte_range,
        })
    }

    /// Statements up to a `}` (not consumed), in a body `depth` levels inside the entry body.
    fn body(&mut self, depth: usize) -> Result<Vec<Node>> {
        if depth > MAX_NODE_DEPTH {
            return self.too_deep("statement", MAX_NODE_DEPTH);
        }
        let mut nodes = Vec::new();
        while !self.at_punct("}") && *self.peek() != Tok::End {
            nodes.push(self.statement(depth)?);
        }
        Ok(nodes)
    }

    /// `{ statements }`, a nested body.
    fn braced(&mut self, depth: usize) -> Result<Vec<Node>> {
        self.punct("{", "`{`")?;
        let body = self.body(depth)?;
        self.punct("}", "a statement or `}`")?;
        Ok(body)
    }

    fn statement(&mut self, depth: usize) -> Result<Node> {
        let keyword = match self.peek() {
            Tok::Word(w) if KEYWORDS.contains(&w.as_str()) => Some(w.clone()),
            _ => None,
        };
        let node = match keyword.as_deref() {
            Some("let") => {
                self.bump();
                let name = self.name("a variable name")?;
                self.punct("=", "`=`")?;
                Node::Let {
                    name,
                    value: self.expr(0)?,
                }
            }
            Some("if") => {
                self.bump();
                let cond = self.expr(0)?;
                let then = self.braced(depth + 1)?;
                let otherwise = if self.at_word("else") {
                    self.bump();
                    self.braced(depth + 1)?
                } else {
                    Vec::new()
                };
                return Ok(Node::If {
                    cond,
                    then,
                    otherwise,
                });
            }
            Some("for") => {
                self.bump();
                let var = self.name("a loop variable name")?;
                self.word("in", "`in`")?;
                let from = self.expr(0)?;
                self.punct("..", "`..`")?;
                let to = self.expr(0)?;
                let body = self.braced(depth + 1)?;
                return Ok(Node::Loop {
                    var,
                    from,
                    to,
                    body,
                });
            }
            Some("barrier") => {
                self.bump();
                Node::Barrier
            }
            Some("return") => {
                self.bump();
                Node::Return
            }
            Some("break") => {
                self.bump();
                Node::Break
            }
            Some("continue") => {
                self.bump();
                Node::Continue
            }
            Some("while") => {
                self.bump();
                let cond = self.expr(0)?;
                let body = self.braced(depth + 1)?;
                return Ok(Node::While { cond, body });
            }
            _ if self.at_punct("{") => return Ok(Node::Block(self.braced(depth + 1)?)),
            _ => self.assignment()?,
        };
        self.punct(";", "`;`")?;
        Ok(node)
    }

    /// `name = value`, `buffer[index] = value`, a private array's `var name: type[len]` or
    /// `name.[index] = value`, a tile statement, or an atomic statement
    /// `atomic_op(buffer[index], ...)` (without the `;`).
    fn assignment(&mut self) -> Result<Node> {
        // `var` is no keyword (a variable may be called `var`): a name right after it makes it
        // a private array's declaration, which nothing else has.
        if self.at_word("var") && matches!(self.peek_at(1), Tok::Word(_) | Tok::Quoted(_)) {
            self.bump();
            let name = self.name("a private array name")?;
            self.punct(":", "`:`")?;
            let element = self.data_type()?;
            self.punct("[", "`[`")?;
            let len = self.unsigned_u32("the array's element count")?;
            self.punct("]", "`]`")?;
            return Ok(Node::PrivateArray { name, element, len });
        }
        if self.at_tile_declaration() {
            return self.tile_declaration();
        }
        // A name is never followed by `(`, so a word before `(` is an atomic whose value is dropped.
        if let Tok::Word(w) = self.peek()
            && *self.peek_at(1) == Tok::Punct("(")
        {
            if let Some(word) = TILE_CALLS.into_iter().find(|t| t == w) {
                return self.tile_call(word);
            }
            let Some(op) = AtomicOp::ALL.iter().copied().find(|op| op.name() == w) else {
                return self.expected(
                    "a statement (only atomics and tile statements may stand as a statement call)",
                );
            };
            self.bump();
            return self.atomic_statement(op);
        }
        let name = match self.peek() {
            Tok::Word(_) | Tok::Quoted(_) => self.name("a statement")?,
            _ => return self.expected("a statement"),
        };
        if self.at_punct(".") {
            self.bump();
            self.punct("[", "`[` after `.`")?;
            let index = self.expr(0)?;
            self.punct("]", "`]`")?;
            self.punct("=", "`=`")?;
            return Ok(Node::ArrayStore {
                array: name,
                index,
                value: self.expr(0)?,
            });
        }
        if self.at_punct("[") {
            self.bump();
            let index = self.expr(0)?;
            self.punct("]", "`]`")?;
            self.punct("=", "`=`")?;
            return Ok(Node::Store {
                buffer: name,
                index,
                value: self.expr(0)?,
            });
        }
        self.punct("=", "`=` or `[`")?;
        Ok(Node::Assign {
            name,
            value: self.expr(0)?,
        })
    }
}
