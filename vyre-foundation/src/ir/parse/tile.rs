//! Tokens to tile statements: `tile t: role<T, rows, columns>;`, `tile_load(...)`,
//! `tile_store(...)` and `tile_multiply_add(...)` (`SEMANTICS.md` section 9a).

use crate::ir::parse::lexer::Tok;
use crate::ir::parse::parser::{Parser, Result};
use crate::ir::{Node, TileLayout, TileRole, TileType};

/// The statement words of the tile statements that look like calls.
pub(super) const TILE_CALLS: [&str; 3] = ["tile_load", "tile_store", "tile_multiply_add"];

impl Parser {
    /// Whether the next tokens begin a tile declaration: `tile` followed by a name (`tile` is no
    /// keyword, so a variable may still be called `tile`).
    pub(super) fn at_tile_declaration(&self) -> bool {
        self.at_word("tile") && matches!(self.peek_at(1), Tok::Word(_) | Tok::Quoted(_))
    }

    /// `tile name: role<T, rows, columns>` (without the `;`).
    pub(super) fn tile_declaration(&mut self) -> Result<Node> {
        self.bump();
        let name = self.name("a tile name")?;
        self.punct(":", "`:`")?;
        let role = match self.peek() {
            Tok::Word(w) => TileRole::ALL.into_iter().find(|r| r.word() == w),
            _ => None,
        };
        let Some(role) = role else {
            return self.expected("a tile role (`a`, `b` or `accumulator`)");
        };
        self.bump();
        self.punct("<", "`<`")?;
        let element = self.data_type()?;
        self.punct(",", "`,`")?;
        let rows = self.unsigned_u32("the tile's row count")?;
        self.punct(",", "`,`")?;
        let columns = self.unsigned_u32("the tile's column count")?;
        self.punct(">", "`>`")?;
        Ok(Node::tile(
            name,
            TileType::new(role, rows, columns, element),
        ))
    }

    /// A tile statement call whose word `word` is next (without the `;`).
    pub(super) fn tile_call(&mut self, word: &str) -> Result<Node> {
        self.bump();
        self.punct("(", "`(`")?;
        let node = if word == "tile_multiply_add" {
            let target = self.name("the target tile")?;
            self.punct(",", "`,`")?;
            let a = self.name("the `a` tile")?;
            self.punct(",", "`,`")?;
            let b = self.name("the `b` tile")?;
            self.punct(",", "`,`")?;
            let c = self.name("the accumulator tile")?;
            Node::tile_multiply_add(target, a, b, c)
        } else {
            let tile = self.name("a tile name")?;
            self.punct(",", "`,`")?;
            let buffer = self.name("a buffer name")?;
            self.punct(",", "`,`")?;
            let offset = self.expr(0)?;
            self.punct(",", "`,`")?;
            let stride = self.expr(0)?;
            self.punct(",", "`,`")?;
            let layout = match self.peek() {
                Tok::Word(w) if w == TileLayout::RowMajor.word() => TileLayout::RowMajor,
                Tok::Word(w) if w == TileLayout::ColumnMajor.word() => TileLayout::ColumnMajor,
                _ => return self.expected("a tile layout (`row_major` or `column_major`)"),
            };
            self.bump();
            if word == "tile_load" {
                Node::tile_load(tile, buffer, offset, stride, layout)
            } else {
                Node::tile_store(tile, buffer, offset, stride, layout)
            }
        };
        self.punct(")", "`)`")?;
        Ok(node)
    }
}
