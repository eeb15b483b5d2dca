//! Reading the text form back: `impl FromStr for Program`.
//!
//! `text.parse::<Program>()` reads exactly what [`Program`]'s `Display` prints (`ir/display.rs`), so
//! `program.to_string().parse() == Ok(program)` for every program within the validator's depth
//! limits, valid or not. Whitespace is free and `//` starts a comment to the end of the line.
//!
//! The grammar is in [`ParseError`]'s documentation, where users see it. Hostile text gives a [`ParseError`], never a panic: the lexer is a loop
//! and the parser refuses nesting past [`crate::validate::MAX_EXPR_DEPTH`] and
//! [`crate::validate::MAX_NODE_DEPTH`], as the validator would.

mod error;
mod expr;
mod lexer;
mod parser;
mod tile;

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
