//! Why text is not a program: [`ParseError`].

use std::fmt;

/// What was wrong with the text given to `str::parse::<Program>`.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ParseErrorKind {
    /// A token other than the one the grammar needs here.
    Expected {
        /// What the grammar needs, e.g. "`;`" or "an expression".
        expected: &'static str,
        /// What the text has instead.
        found: String,
    },
    /// A keyword where a name is needed.
    Keyword {
        /// What the grammar needs, e.g. "a variable name".
        expected: &'static str,
        /// The keyword.
        word: String,
    },
    /// A number that is malformed or out of range for its type.
    InvalidNumber {
        /// The number as written.
        text: String,
        /// Why it is not one, e.g. "does not fit a u32".
        reason: &'static str,
    },
    /// A quoted name that is not closed, or has an unknown escape.
    InvalidName {
        /// Why, e.g. "has no closing quote".
        reason: &'static str,
    },
    /// A character that starts no token.
    UnexpectedCharacter {
        /// The character.
        found: char,
    },
    /// Expressions or statements nested deeper than the validator allows.
    TooDeep {
        /// `"expression"` or `"statement"`.
        what: &'static str,
        /// The deepest nesting accepted.
        limit: usize,
    },
}

/// Text that is not a program in the text form, with the line and column where it stops being one.
///
/// The message reads `line L, column C: ... Fix: ...`; lines and columns count from 1, columns in
/// characters.
///
/// The text form is what [`Program`](crate::ir::Program)'s `Display` prints, and
/// `text.parse::<Program>()` reads it back. Whitespace is free and `//` starts a comment to the end of
/// the line. Its grammar:
///
/// ```text
/// program   = "program" "@workgroup_size" "(" N "," N "," N ")" "{" buffer* stmt* "}"
/// buffer    = "buffer" name ":" access type "[" N? "]" ("@binding" "(" N ")")?
///             ("@readback" "(" N ".." N ")")? ";"
/// stmt      = "let" name "=" expr ";" | name "=" expr ";" | name "[" expr "]" "=" expr ";"
///           | "var" name ":" type "[" N "]" ";" | name "." "[" expr "]" "=" expr ";"
///           | "if" expr block ("else" block)? | "for" name "in" expr ".." expr block
///           | "while" expr block | block | "barrier" ";" | "return" ";" | "break" ";"
///           | "continue" ";" | atomic_name "(" name "[" expr "]" ("," expr)? "," expr ")" ";"
/// block     = "{" stmt* "}"
/// expr      = literal | name | name "[" expr "]" | name "." "[" expr "]" | builtin | "(" expr binop expr ")" | "(" expr ")"
///           | unop expr | "-" "(" literal ")" | "len" "(" name ")" | type "(" expr ")"
///           | "bitcast" "<" type ">" "(" expr ")" | "select" "(" expr "," expr "," expr ")"
///           | "fma" "(" expr "," expr "," expr ")" | binop_name "(" expr "," expr ")"
///           | unop_name "(" expr ")" | atomic_name "(" name "[" expr "]" ("," expr)? "," expr ")"
///           | "subgroup_size" "(" ")" | "subgroup_invocation_id" "(" ")"
///           | subgroup_op_name "(" expr ")" | "subgroup_shuffle" "(" expr "," expr ")"
/// literal   = "true" | "false" | digits "u" | "-"? digits "i" | digits "u64" | "-"? digits "i64"
///           | float "f" | float "h" | "f32_bits" "(" 0xHEX ")" | "f16_bits" "(" 0xHEX ")"
/// builtin   = ("gid" | "lid" | "wid" | "nwg") "." ("x" | "y" | "z")
/// name      = identifier, not a keyword | '"' characters and escapes '"'
/// ```
///
/// `N` is unsigned digits without a suffix. `@binding` may be left out only on a workgroup buffer
/// (its binding is then 0).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    line: usize,
    column: usize,
    kind: Box<ParseErrorKind>,
}

impl ParseError {
    pub(super) fn new(line: usize, column: usize, kind: ParseErrorKind) -> Self {
        Self {
            line,
            column,
            kind: Box::new(kind),
        }
    }

    /// The line of the error, from 1.
    #[must_use]
    pub fn line(&self) -> usize {
        self.line
    }

    /// The column of the error, from 1, in characters.
    #[must_use]
    pub fn column(&self) -> usize {
        self.column
    }

    /// What was wrong.
    #[must_use]
    pub fn kind(&self) -> &ParseErrorKind {
        &self.kind
    }

    fn fix(&self) -> &'static str {
        match *self.kind {
            ParseErrorKind::Expected { .. } => {
                "write the program as `Display` prints it (the grammar is in `ParseError`'s documentation)"
            }
            ParseErrorKind::Keyword { .. } => {
                "quote a name that is a keyword, as `Display` does: `\"let\"`"
            }
            ParseErrorKind::InvalidNumber { .. } => {
                "write integers with a suffix, `7u`, `-7i`, `7u64` or `-7i64`, within their type's range; floats as `1.5f` or `1.5h` (finite), or `f32_bits(0x7fc00000)` / `f16_bits(0x7e00)`; counts and sizes as plain digits"
            }
            ParseErrorKind::InvalidName { .. } => {
                "close the quoted name with `\"`, and escape only with `\\\\`, `\\\"`, `\\n`, `\\t`, `\\r` or `\\u{hex}`"
            }
            ParseErrorKind::UnexpectedCharacter { .. } => {
                "remove the character, or quote the name it belongs to"
            }
            ParseErrorKind::TooDeep { .. } => {
                "split the deep expression into `let` bindings or flatten the nested bodies; no valid program nests this deep"
            }
        }
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}, column {}: ", self.line, self.column)?;
        match &*self.kind {
            ParseErrorKind::Expected { expected, found } => {
                write!(f, "expected {expected}, found {found}.")?;
            }
            ParseErrorKind::Keyword { expected, word } => {
                write!(f, "expected {expected}, found the keyword `{word}`.")?;
            }
            ParseErrorKind::InvalidNumber { text, reason } => {
                write!(f, "expected a number, found `{text}`, which {reason}.")?;
            }
            ParseErrorKind::InvalidName { reason } => {
                write!(f, "expected a quoted name, found one that {reason}.")?;
            }
            ParseErrorKind::UnexpectedCharacter { found } => {
                write!(f, "expected a token, found the character {found:?}.")?;
            }
            ParseErrorKind::TooDeep { what, limit } => {
                write!(
                    f,
                    "expected {what}s nested at most {limit} deep, found deeper nesting."
                )?;
            }
        }
        write!(f, " Fix: {}.", self.fix())
    }
}

impl std::error::Error for ParseError {}
