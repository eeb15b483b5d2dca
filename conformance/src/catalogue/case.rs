//! What the catalogue is made of: a [`Batch`] is one program with its inputs and the [`Case`]s it
//! checks, and each case's [`Expectation`] says what a backend must return.

use vyre_driver::DispatchConfig;
use vyre_foundation::ir::{DataType, Program};

use crate::catalogue::area::Area;
use crate::catalogue::interval::Acceptance;

/// What a backend must return for one case.
#[derive(Clone, Debug, PartialEq)]
pub struct Expectation {
    /// The hand-written expectation (`catalogue/oracle.rs`), when the case has one. The reference
    /// backend must return exactly this element (its bits, zero-extended); a difference is a failure
    /// of the reference.
    pub oracle: Option<u64>,
    /// The set a backend's word must fall in. `None` means bit-exact: equal to `oracle` when given,
    /// else to the reference backend's word. Without an `oracle`, the reference must fall in it too.
    pub accept: Option<Acceptance>,
}

impl Expectation {
    /// Bit-exact, with a hand-written expectation.
    #[must_use]
    pub fn exact(oracle: u32) -> Self {
        Self::exact_bits(u64::from(oracle))
    }

    /// Bit-exact, with a hand-written expectation of any element size (the bits, zero-extended).
    #[must_use]
    pub fn exact_bits(oracle: u64) -> Self {
        Self {
            oracle: Some(oracle),
            accept: None,
        }
    }

    /// Bit-exact, equal to whatever the reference backend returns.
    #[must_use]
    pub fn reference() -> Self {
        Self {
            oracle: None,
            accept: None,
        }
    }

    /// Any word in `accept`, for the reference too.
    #[must_use]
    pub fn accept(accept: Acceptance) -> Self {
        Self {
            oracle: None,
            accept: Some(accept),
        }
    }

    /// The reference must return exactly `oracle`; other backends anything in `accept`.
    #[must_use]
    pub fn oracle_within(oracle: u32, accept: Acceptance) -> Self {
        Self::oracle_within_bits(u64::from(oracle), accept)
    }

    /// [`Expectation::oracle_within`] for an element of any size (the bits, zero-extended).
    #[must_use]
    pub fn oracle_within_bits(oracle: u64, accept: Acceptance) -> Self {
        Self {
            oracle: Some(oracle),
            accept: Some(accept),
        }
    }
}

/// One named input combination and where its result lands.
#[derive(Clone, Debug, PartialEq)]
pub struct Case {
    /// A name unique in the catalogue, e.g. `div.i32(-2147483648, -1)`.
    pub name: String,
    /// The inputs, readable, e.g. `-2147483648, -1`.
    pub inputs: String,
    /// The index of the output buffer (among the program's outputs) holding the result.
    pub output: usize,
    /// The index of the element (of type `ty`: 2, 4 or 8 bytes) in that output.
    pub word: usize,
    /// The type of the result, for printing it.
    pub ty: DataType,
    /// What a backend must return.
    pub expect: Expectation,
}

/// One program, its inputs and dispatch settings, and the cases its outputs answer.
#[derive(Clone, Debug)]
pub struct Batch {
    /// The area of every case in the batch.
    pub area: Area,
    /// A name unique in the catalogue, e.g. `integer.u32`.
    pub name: String,
    /// The program.
    pub program: Program,
    /// One byte vector per input buffer.
    pub inputs: Vec<Vec<u8>>,
    /// How to dispatch it.
    pub config: DispatchConfig,
    /// The cases.
    pub cases: Vec<Case>,
}

/// Hand-built batches: a program written out in full, and cases added word by word.
impl Batch {
    /// A batch with no cases yet.
    pub(crate) fn manual(
        area: Area,
        name: impl Into<String>,
        program: Program,
        inputs: Vec<Vec<u8>>,
        config: DispatchConfig,
    ) -> Self {
        Batch {
            area,
            name: name.into(),
            program,
            inputs,
            config,
            cases: Vec::new(),
        }
    }

    /// One case per word of output `output`, named `{prefix}[k]`, each bit-exact against `words[k]`.
    pub(crate) fn expect_words(
        mut self,
        prefix: &str,
        inputs: &str,
        output: usize,
        ty: DataType,
        words: &[u32],
    ) -> Self {
        for (k, &w) in words.iter().enumerate() {
            self.cases.push(Case {
                name: format!("{prefix}[{k}]"),
                inputs: inputs.to_string(),
                output,
                word: k,
                ty,
                expect: Expectation::exact(w),
            });
        }
        self
    }

    /// One case: word `word` of output `output`.
    pub(crate) fn expect_word(
        mut self,
        name: impl Into<String>,
        inputs: impl Into<String>,
        (output, word): (usize, usize),
        ty: DataType,
        expect: Expectation,
    ) -> Self {
        self.cases.push(Case {
            name: name.into(),
            inputs: inputs.into(),
            output,
            word,
            ty,
            expect,
        });
        self
    }
}

/// An element of type `ty` (its bits, zero-extended), readable: unsigned integers in hex, signed ones
/// in decimal, floats as their value.
#[must_use]
pub fn format_word(ty: DataType, word: impl Into<u64>) -> String {
    let word = word.into();
    match ty {
        DataType::Bool => format!("{}", word != 0),
        DataType::I32 => format!("{}", word as u32 as i32),
        DataType::I64 => format!("{}", word as i64),
        DataType::F32 => format!("{:?}", f32::from_bits(word as u32)),
        DataType::F16 => format!("{:?}h", vyre_foundation::ir::f16_bits_to_f32(word as u16)),
        _ => format!("0x{word:x}"),
    }
}
