//! Recipes: the compact, shrinkable form of a generated case.
//!
//! proptest generates a [`Recipe`] (vectors of small integers) and [`crate::r#gen::decode`] turns it into
//! a program deterministically. Every choice the decoder makes reads one word and reduces it modulo the
//! number of options that are valid *at that point* (the variables in scope, the buffers of the right
//! type, ...), so every recipe decodes to a valid program, and a word shrunk towards 0 picks the
//! simplest option. Each statement reads from its own word vector, so dropping one statement while
//! shrinking leaves the choices of the others unchanged.

use proptest::collection::vec;
use proptest::prelude::{Strategy, any};
use serde::{Deserialize, Serialize};

use crate::r#gen::GenConfig;

/// One statement's recipe: what kind of statement, and the words its decoding reads.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct StmtRecipe {
    /// Selects the statement kind (modulo the kind table, see [`StmtKind`]).
    pub kind: u8,
    /// The words the statement's expressions and operands read; past the end they read as 0.
    pub choices: Vec<u32>,
}

/// A whole generated case in compact form.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Recipe {
    /// The swarm mask: bit `i` keeps feature `i` of the configuration for this case.
    pub features: u32,
    /// Workgroup size, grid and slot counts.
    pub shape: Vec<u32>,
    /// One word per extra buffer: its role, element type and size.
    pub buffers: Vec<u32>,
    /// The statements.
    pub stmts: Vec<StmtRecipe>,
    /// Words the input bytes are made from.
    pub inputs: Vec<u32>,
}

/// The kind of statement a [`StmtRecipe`] decodes to. Kinds that do not fit where they occur (a
/// barrier inside an `if`, an `else` outside one) decode to nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StmtKind {
    /// A store to an output (kind 0: what everything shrinks to, since outputs are what is compared).
    Store,
    /// `let`.
    Let,
    /// `assign` to a variable in scope.
    Assign,
    /// Opens an `if`; its body runs to the next `Close`.
    If,
    /// Switches the innermost open `if` to its `else` branch.
    Else,
    /// Opens a bounded loop.
    Loop,
    /// Opens a nested block.
    Block,
    /// Closes the innermost open `if`, loop or block.
    Close,
    /// A barrier (top level only).
    Barrier,
    /// An atomic read-modify-write.
    Atomic,
    /// A `return` (nested control flow only).
    Return,
    /// Opens a `while` bounded by a trip counter; its body runs to the next `Close`.
    While,
    /// A `break` (inside a loop only).
    Break,
    /// A `continue` (inside a loop only).
    Continue,
}

impl StmtKind {
    /// The kind table a recipe's `kind` byte indexes modulo its length; repeated entries make common
    /// statements more likely.
    pub const TABLE: [StmtKind; 19] = [
        StmtKind::Store,
        StmtKind::Let,
        StmtKind::Store,
        StmtKind::Let,
        StmtKind::Store,
        StmtKind::If,
        StmtKind::Close,
        StmtKind::Loop,
        StmtKind::Close,
        StmtKind::Else,
        StmtKind::Block,
        StmtKind::Barrier,
        StmtKind::Atomic,
        StmtKind::Atomic,
        StmtKind::Return,
        StmtKind::Assign,
        StmtKind::While,
        StmtKind::Break,
        StmtKind::Continue,
    ];

    /// The kind a recipe byte selects.
    #[must_use]
    pub fn from_byte(byte: u8) -> Self {
        Self::TABLE[usize::from(byte) % Self::TABLE.len()]
    }
}

/// A stream of choice words: each read takes the next word, and reads past the end give 0.
#[derive(Clone, Debug)]
pub(crate) struct Choices<'a> {
    words: &'a [u32],
    pos: usize,
}

impl<'a> Choices<'a> {
    pub(crate) fn new(words: &'a [u32]) -> Self {
        Self { words, pos: 0 }
    }

    /// The next word (0 once the words are used up).
    pub(crate) fn next_word(&mut self) -> u32 {
        let word = self.words.get(self.pos).copied().unwrap_or(0);
        self.pos += 1;
        word
    }

    /// A number in `0..n` (0 when `n` is 0).
    pub(crate) fn below(&mut self, n: usize) -> usize {
        let word = self.next_word() as usize;
        if n == 0 { 0 } else { word % n }
    }

    /// True with probability about `1 / n`, and for the word 0 (so shrinking chooses it).
    pub(crate) fn one_in(&mut self, n: u32) -> bool {
        self.next_word().is_multiple_of(n.max(1))
    }
}

fn stmt_recipe() -> impl Strategy<Value = StmtRecipe> {
    (any::<u8>(), vec(any::<u32>(), 0..48)).prop_map(|(kind, choices)| StmtRecipe { kind, choices })
}

/// The proptest strategy for recipes of `config`'s size.
pub fn recipe(config: &GenConfig) -> impl Strategy<Value = Recipe> + use<> {
    let buffers = vec(any::<u32>(), 0..=config.max_buffers);
    let stmts = vec(stmt_recipe(), 1..=config.max_stmts.max(1));
    (
        any::<u32>(),
        vec(any::<u32>(), 8),
        buffers,
        stmts,
        vec(any::<u32>(), 0..96),
    )
        .prop_map(|(features, shape, buffers, stmts, inputs)| Recipe {
            features,
            shape,
            buffers,
            stmts,
            inputs,
        })
}
