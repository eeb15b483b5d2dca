//! Text to tokens, each with the line and column where it starts.
//!
//! The lexer is a loop, never recursive. Numbers are read whole, suffix and sign included, and
//! checked against their type here, so the parser sees finished literals. A `-` is part of a
//! number only when a digit follows it directly: the text form writes binary minus with spaces
//! (`(a - 1i)`) and the negation of a literal as `-(1i)`.

use crate::ir::Literal;
use crate::ir::parse::error::{ParseError, ParseErrorKind};

/// The punctuation of the text form, longest first so that `<<` is not read as two `<`.
const PUNCTUATION: [&str; 32] = [
    "..", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "(", ")", "{", "}", "[", "]", ",", ";",
    ":", ".", "=", "+", "-", "*", "/", "%", "&", "|", "^", "<", ">", "!", "~",
];

/// One token.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Tok {
    /// A bare word: a keyword, a function name or a plain name.
    Word(String),
    /// A quoted name, escapes resolved.
    Quoted(String),
    /// `@word`.
    Attribute(String),
    /// Digits without a suffix: sizes, counts, bindings, byte offsets.
    Unsigned(u64),
    /// `0x` and hex digits (the bits in `f32_bits(...)`).
    Hex(u64),
    /// A number with its type suffix: `1u`, `-1i`, `1.5f`.
    Lit(Literal),
    /// Punctuation or an operator symbol.
    Punct(&'static str),
    /// The end of the text.
    End,
}

impl Tok {
    /// The token as an error message names it.
    pub(super) fn describe(&self) -> String {
        match self {
            Tok::Word(w) => format!("`{w}`"),
            Tok::Quoted(n) => format!("the quoted name {n:?}"),
            Tok::Attribute(a) => format!("`@{a}`"),
            Tok::Unsigned(n) => format!("the number `{n}`"),
            Tok::Hex(n) => format!("the hex number `{n:#x}`"),
            Tok::Lit(l) => format!("the literal `{l}`"),
            Tok::Punct(p) => format!("`{p}`"),
            Tok::End => "the end of the text".to_owned(),
        }
    }
}

/// A token and where it starts.
#[derive(Clone, Debug)]
pub(super) struct Token {
    pub(super) tok: Tok,
    pub(super) line: usize,
    pub(super) column: usize,
}

struct Lexer<'a> {
    src: &'a str,
    pos: usize,
    line: usize,
    column: usize,
}

impl Lexer<'_> {
    fn peek(&self, n: usize) -> Option<char> {
        self.src[self.pos..].chars().nth(n)
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.src[self.pos..].chars().next()?;
        self.pos += c.len_utf8();
        if c == '\n' {
            self.line += 1;
            self.column = 1;
        } else {
            self.column += 1;
        }
        Some(c)
    }

    fn error(&self, line: usize, column: usize, kind: ParseErrorKind) -> ParseError {
        ParseError::new(line, column, kind)
    }

    fn skip_space_and_comments(&mut self) {
        loop {
            match self.peek(0) {
                Some(c) if c.is_whitespace() => {
                    self.bump();
                }
                Some('/') if self.peek(1) == Some('/') => {
                    while self.peek(0).is_some_and(|c| c != '\n') {
                        self.bump();
                    }
                }
                _ => return,
            }
        }
    }

    fn word(&mut self) -> String {
        let start = self.pos;
        while self
            .peek(0)
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
        {
            self.bump();
        }
        self.src[start..self.pos].to_owned()
    }

    fn next_token(&mut self) -> Result<Token, ParseError> {
        self.skip_space_and_comments();
        let (line, column) = (self.line, self.column);
        let token = |tok| Token { tok, line, column };
        let Some(c) = self.peek(0) else {
            return Ok(token(Tok::End));
        };
        let negative_number = c == '-' && self.peek(1).is_some_and(|d| d.is_ascii_digit());
        if c.is_ascii_digit() || negative_number {
            return self.number().map(token);
        }
        if c.is_ascii_alphabetic() || c == '_' {
            return Ok(token(Tok::Word(self.word())));
        }
        if c == '"' {
            return self.quoted().map(|n| token(Tok::Quoted(n)));
        }
        if c == '@' {
            self.bump();
            return Ok(token(Tok::Attribute(self.word())));
        }
        let rest = &self.src[self.pos..];
        if let Some(p) = PUNCTUATION.iter().find(|p| rest.starts_with(**p)) {
            for _ in 0..p.len() {
                self.bump();
            }
            return Ok(token(Tok::Punct(p)));
        }
        Err(self.error(
            line,
            column,
            ParseErrorKind::UnexpectedCharacter { found: c },
        ))
    }

    /// A number: `-`? digits (`.` digits)? (`e` sign? digits)? suffix?, or `0x` hex digits.
    fn number(&mut self) -> Result<Tok, ParseError> {
        let (line, column, start) = (self.line, self.column, self.pos);
        let negative = self.peek(0) == Some('-');
        if negative {
            self.bump();
        }
        let digits = |l: &mut Self| {
            while l.peek(0).is_some_and(|c| c.is_ascii_digit()) {
                l.bump();
            }
        };
        let hex = !negative && self.peek(0) == Some('0') && self.peek(1) == Some('x');
        if hex {
            self.bump();
            self.bump();
            let at = self.pos;
            while self.peek(0).is_some_and(|c| c.is_ascii_hexdigit()) {
                self.bump();
            }
            let text = &self.src[start..self.pos];
            let bad = |reason| ParseErrorKind::InvalidNumber {
                text: text.to_owned(),
                reason,
            };
            return match u64::from_str_radix(&self.src[at..self.pos], 16) {
                Ok(v) if !self.peek(0).is_some_and(|c| c.is_ascii_alphanumeric()) => {
                    Ok(Tok::Hex(v))
                }
                _ => Err(self.error(line, column, bad("is not a 64-bit hex number"))),
            };
        }
        digits(self);
        let mut float = false;
        if self.peek(0) == Some('.') && self.peek(1).is_some_and(|c| c.is_ascii_digit()) {
            float = true;
            self.bump();
            digits(self);
        }
        if matches!(self.peek(0), Some('e' | 'E')) {
            let signed = matches!(self.peek(1), Some('+' | '-'));
            let digit_at = if signed { 2 } else { 1 };
            if self.peek(digit_at).is_some_and(|c| c.is_ascii_digit()) {
                float = true;
                for _ in 0..digit_at {
                    self.bump();
                }
                digits(self);
            }
        }
        let value_end = self.pos;
        let suffix = self.word();
        let text = self.src[start..self.pos].to_owned();
        let value = &self.src[start..value_end];
        let fail = |l: &Self, reason| {
            Err(l.error(
                line,
                column,
                ParseErrorKind::InvalidNumber {
                    text: text.clone(),
                    reason,
                },
            ))
        };
        match (suffix.as_str(), float) {
            ("", false) if negative => fail(self, "is negative where a count or size is needed"),
            ("", false) => match value.parse::<u64>() {
                Ok(v) => Ok(Tok::Unsigned(v)),
                Err(_) => fail(self, "does not fit a u64"),
            },
            ("u", false) if negative => fail(self, "is a negative u32"),
            ("u", false) => match value.parse::<u32>() {
                Ok(v) => Ok(Tok::Lit(Literal::U32(v))),
                Err(_) => fail(self, "does not fit a u32"),
            },
            ("i", false) => match value.parse::<i32>() {
                Ok(v) => Ok(Tok::Lit(Literal::I32(v))),
                Err(_) => fail(self, "does not fit an i32"),
            },
            ("f", _) => match value.parse::<f32>() {
                Ok(v) if v.is_finite() => Ok(Tok::Lit(Literal::F32(v.to_bits()))),
                _ => fail(
                    self,
                    "is not a finite f32 (write infinities and NaNs as f32_bits)",
                ),
            },
            ("u64", false) if negative => fail(self, "is a negative u64"),
            ("u64", false) => match value.parse::<u64>() {
                Ok(v) => Ok(Tok::Lit(Literal::U64(v))),
                Err(_) => fail(self, "does not fit a u64"),
            },
            ("i64", false) => match value.parse::<i64>() {
                Ok(v) => Ok(Tok::Lit(Literal::I64(v))),
                Err(_) => fail(self, "does not fit an i64"),
            },
            ("h", _) => match value.parse::<f64>() {
                Ok(v) => {
                    let bits = crate::ir::half::f64_to_f16_bits(v);
                    if crate::ir::f16_bits_to_f32(bits).is_finite() {
                        Ok(Tok::Lit(Literal::F16(bits)))
                    } else {
                        fail(
                            self,
                            "is not a finite f16 (write infinities and NaNs as f16_bits)",
                        )
                    }
                }
                Err(_) => fail(self, "is not a number"),
            },
            ("" | "u" | "i" | "u64" | "i64", true) => {
                fail(self, "has a fraction or exponent but no `f` or `h` suffix")
            }
            _ => fail(
                self,
                "has an unknown suffix (the suffixes are u, i, f, h, u64 and i64)",
            ),
        }
    }

    /// A quoted name: `"` then characters and escapes up to the closing `"`.
    fn quoted(&mut self) -> Result<String, ParseError> {
        let (line, column) = (self.line, self.column);
        let bad = |reason| ParseError::new(line, column, ParseErrorKind::InvalidName { reason });
        self.bump();
        let mut name = String::new();
        loop {
            match self.bump() {
                None => return Err(bad("has no closing quote")),
                Some('"') => return Ok(name),
                Some('\\') => name.push(self.escape().ok_or_else(|| bad("has an unknown escape"))?),
                Some(c) => name.push(c),
            }
        }
    }

    /// The character an escape after `\` stands for.
    fn escape(&mut self) -> Option<char> {
        match self.bump()? {
            '"' => Some('"'),
            '\\' => Some('\\'),
            'n' => Some('\n'),
            't' => Some('\t'),
            'r' => Some('\r'),
            'u' => {
                if self.bump()? != '{' {
                    return None;
                }
                let (mut code, mut digits) = (0u32, 0);
                loop {
                    let c = self.bump()?;
                    if c == '}' && digits > 0 {
                        return char::from_u32(code);
                    }
                    if digits == 6 {
                        return None;
                    }
                    code = code * 16 + c.to_digit(16)?;
                    digits += 1;
                }
            }
            _ => None,
        }
    }
}

/// Every token of `src`, ending with [`Tok::End`].
pub(super) fn tokens(src: &str) -> Result<Vec<Token>, ParseError> {
    let mut lexer = Lexer {
        src,
        pos: 0,
        line: 1,
        column: 1,
    };
    let mut out = Vec::new();
    loop {
        let token = lexer.next_token()?;
        let end = token.tok == Tok::End;
        out.push(token);
        if end {
            return Ok(out);
        }
    }
}
