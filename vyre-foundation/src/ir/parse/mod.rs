//! Reading the text form back: `impl FromStr for Program`.
//!
//! `text.parse::<Program>()` reads exactly what [`Program`]'s `Display` prints (`ir/display.rs`), so
//! `program.to_string().parse() == Ok(program)` for every program within the validator's depth
//! limits, valid or not. Whitespace is free and `//` starts a comment to the end of the line.
//!
//! ```text
//! program   = "program" "@workgroup_size" "(" N "," N "," N ")" "{" buffer* stmt* "}"
//! buffer    = "buffer" name ":" access type "[" N? "]" ("@binding" "(" N ")")?
//!             ("@readback" "(" N ".." N ")")? ";"
//! stmt      = "let" name "=" expr ";" | name "=" expr ";" | name "[" expr "]" "=" expr ";"
//!           | "if" expr block ("else" block)? | "for" name "in" expr ".." expr block
//!           | "while" expr block | block | "barrier" ";" | "return" ";" | "break" ";"
//!           | "continue" ";" | atomic_name "(" name "[" expr "]" ("," expr)? "," expr ")" ";"
//! block     = "{" stmt* "}"
//! expr      = literal | name | name "[" expr "]" | builtin | "(" expr binop expr ")" | "(" expr ")"
//!           | unop expr | "-" "(" literal ")" | "len" "(" name ")" | type "(" expr ")"
//!           | "bitcast" "<" type ">" "(" expr ")" | "select" "(" expr "," expr "," expr ")"
//!           | "fma" "(" expr "," expr "," expr ")" | binop_name "(" expr "," expr ")"
//!           | unop_name "(" expr ")" | atomic_name "(" name "[" expr "]" ("," expr)? "," expr ")"
//!           | "subgroup_size" "(" ")" | "subgroup_invocation_id" "(" ")"
//!           | subgroup_op_name "(" expr ")" | "subgroup_shuffle" "(" expr "," expr ")"
//! literal   = "true" | "false" | digits "u" | "-"? digits "i" | digits "u64" | "-"? digits "i64"
//!           | float "f" | float "h" | "f32_bits" "(" 0xHEX ")" | "f16_bits" "(" 0xHEX ")"
//! builtin   = ("gid" | "lid" | "wid" | "nwg") "." ("x" | "y" | "z")
//! name      = identifier, not a keyword | '"' characters and escapes '"'
//! ```
//!
//! `N` is unsigned digits without a suffix. `@binding` may be left out only on a workgroup buffer
//! (its binding is then 0). Hostile text gives a [`ParseError`], never a panic: the lexer is a loop
//! and the parser refuses nesting past [`crate::validate::MAX_EXPR_DEPTH`] and
//! [`crate::validate::MAX_NODE_DEPTH`], as the validator would.

mod error;
mod expr;
mod lexer;
mod parser;

pub use error::{ParseError, ParseErrorKind};

use crate::ir::Program;

impl std::str::FromStr for Program {
    type Err = ParseError;

    /// Reads a program in the text form `Display` prints.
    ///
    /// # Errors
    ///
    /// [`ParseError`] with the line and column where the text stops being a program.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let tokens = lexer::tokens(text)?;
        parser::Parser::new(tokens).program()
    }
}

#[cfg(test)]
mod tests {
    use crate::ir::display::KEYWORDS;
    use crate::ir::{AtomicOp, BinOp, DataType, SubgroupOp, UnOp};

    #[test]
    fn function_words_are_distinct_and_not_keywords() {
        // The parser picks a function by its word alone, so no word may name two of them.
        let mut words: Vec<&str> = vec!["len", "select", "fma", "f32_bits", "f16_bits"];
        words.extend(DataType::ALL.iter().map(|t| t.name()));
        words.extend(BinOp::ALL.iter().map(|o| o.name()));
        words.extend(UnOp::ALL.iter().map(|o| o.name()));
        words.extend(AtomicOp::ALL.iter().map(|o| o.name()));
        words.extend(SubgroupOp::ALL.iter().map(|o| o.name()));
        words.extend([
            crate::ir::builtin::SUBGROUP_SIZE,
            crate::ir::builtin::SUBGROUP_INVOCATION_ID,
            crate::ir::builtin::SUBGROUP_SHUFFLE,
        ]);
        let mut sorted = words.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), words.len());
        assert!(words.iter().all(|w| !KEYWORDS.contains(w)));
    }
}
