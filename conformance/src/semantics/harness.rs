//! What every case needs: byte conversions, dispatching with a readable failure, and the checks.

use std::fmt::Debug;

use vyre_driver::{DispatchConfig, VyreBackend};
use vyre_foundation::ir::Program;

/// Little-endian bytes of `u32` words.
pub(crate) fn bytes_u32(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// Little-endian bytes of `i32` words.
pub(crate) fn bytes_i32(words: &[i32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// Little-endian bytes of `f32` values.
pub(crate) fn bytes_f32(values: &[f32]) -> Vec<u8> {
    values
        .iter()
        .flat_map(|w| w.to_bits().to_le_bytes())
        .collect()
}

/// The `u32` words of little-endian bytes (a trailing partial word is ignored).
pub(crate) fn words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// Dispatches `program`, panicking with the case name and the backend's error if it fails.
pub(crate) fn run(
    backend: &dyn VyreBackend,
    case: &str,
    program: &Program,
    inputs: &[Vec<u8>],
    config: &DispatchConfig,
) -> Vec<Vec<u8>> {
    if let Err(errors) = vyre_foundation::validate(program) {
        panic!("[{case}] the test program is invalid (a bug in the suite): {errors}");
    }
    match backend.dispatch(program, inputs, config) {
        Ok(outputs) => {
            let expected = program.output_buffers().count();
            assert_eq!(
                outputs.len(),
                expected,
                "[{case}] backend `{}` returned {} outputs, expected {expected}",
                backend.id(),
                outputs.len()
            );
            outputs
        }
        Err(error) => panic!(
            "[{case}] backend `{}` failed to run the program: {error}\nprogram:\n{program}",
            backend.id()
        ),
    }
}

/// Dispatches with the default configuration and returns every output as words.
pub(crate) fn run_words(
    backend: &dyn VyreBackend,
    case: &str,
    program: &Program,
    inputs: &[Vec<u8>],
) -> Vec<Vec<u32>> {
    run(backend, case, program, inputs, &DispatchConfig::default())
        .iter()
        .map(|o| words(o))
        .collect()
}

/// Collects mismatches of one case and reports them all at once.
pub(crate) struct Report {
    case: String,
    failures: Vec<String>,
    checked: usize,
}

impl Report {
    /// An empty report for `case`.
    pub(crate) fn new(case: &str) -> Self {
        Self {
            case: case.to_owned(),
            failures: Vec::new(),
            checked: 0,
        }
    }

    /// Records a check: `what` describes the operation and its inputs.
    pub(crate) fn check(&mut self, ok: bool, what: impl FnOnce() -> String) {
        self.checked += 1;
        if !ok {
            self.failures.push(what());
        }
    }

    /// Checks `actual == expected` exactly.
    pub(crate) fn eq<T: PartialEq + Debug>(
        &mut self,
        what: impl FnOnce() -> String,
        expected: T,
        actual: T,
    ) {
        let ok = expected == actual;
        self.check(ok, || {
            format!("{}: expected {expected:?}, got {actual:?}", what())
        });
    }

    /// Panics with every recorded mismatch, if any; also fails a case that checked nothing.
    pub(crate) fn finish(self) {
        assert!(self.checked > 0, "[{}] checked nothing", self.case);
        if !self.failures.is_empty() {
            let shown: Vec<&str> = self.failures.iter().take(40).map(String::as_str).collect();
            panic!(
                "[{}] {} of {} checks failed:\n  {}{}",
                self.case,
                self.failures.len(),
                self.checked,
                shown.join("\n  "),
                if self.failures.len() > 40 {
                    "\n  ..."
                } else {
                    ""
                }
            );
        }
    }
}

/// An operator under test: its name, how to build it, and nothing else (expectations live in the
/// case).
pub(crate) type BinaryBuilder =
    fn(vyre_foundation::ir::Expr, vyre_foundation::ir::Expr) -> vyre_foundation::ir::Expr;

/// A program that applies every operator of `ops` to each operand pair of input `pairs` (`a` at
/// `2i`, `b` at `2i + 1`) and stores result `k` of pair `i` at `out[i * ops.len() + k]`.
///
/// `operand` is the type of `a` and `b`; `result` the element type of `out`. `b` is bitcast to `u32`
/// when `shift_rhs_u32` is set (shift amounts are always `u32`).
pub(crate) fn pair_program(
    operand: vyre_foundation::ir::DataType,
    result: vyre_foundation::ir::DataType,
    pairs: u32,
    ops: &[BinaryBuilder],
) -> Program {
    use vyre_foundation::ir::{BufferDecl, Expr, Node};
    let k = ops.len() as u32;
    let i = Expr::gid_x();
    let mut body = vec![
        Node::let_bind("a", Expr::load("pairs", Expr::mul(i.clone(), Expr::u32(2)))),
        Node::let_bind(
            "b",
            Expr::load(
                "pairs",
                Expr::add(Expr::mul(i.clone(), Expr::u32(2)), Expr::u32(1)),
            ),
        ),
    ];
    for (slot, op) in ops.iter().enumerate() {
        let at = Expr::add(Expr::mul(i.clone(), Expr::u32(k)), Expr::u32(slot as u32));
        body.push(Node::store("out", at, op(Expr::var("a"), Expr::var("b"))));
    }
    Program::wrapped(
        vec![
            BufferDecl::read("pairs", 0, operand).with_count(pairs * 2),
            BufferDecl::output("out", 1, result).with_count(pairs * k),
        ],
        [64, 1, 1],
        vec![Node::if_then(Expr::lt(i, Expr::u32(pairs)), body)],
    )
}

/// A program that applies every operator of `ops` to each value of input `values` and stores result
/// `k` of value `i` at `out[i * ops.len() + k]`.
pub(crate) fn unary_program(
    operand: vyre_foundation::ir::DataType,
    result: vyre_foundation::ir::DataType,
    count: u32,
    ops: &[fn(vyre_foundation::ir::Expr) -> vyre_foundation::ir::Expr],
) -> Program {
    use vyre_foundation::ir::{BufferDecl, Expr, Node};
    let k = ops.len() as u32;
    let i = Expr::gid_x();
    let mut body = vec![Node::let_bind("a", Expr::load("values", i.clone()))];
    for (slot, op) in ops.iter().enumerate() {
        let at = Expr::add(Expr::mul(i.clone(), Expr::u32(k)), Expr::u32(slot as u32));
        body.push(Node::store("out", at, op(Expr::var("a"))));
    }
    Program::wrapped(
        vec![
            BufferDecl::read("values", 0, operand).with_count(count),
            BufferDecl::output("out", 1, result).with_count(count * k),
        ],
        [64, 1, 1],
        vec![Node::if_then(Expr::lt(i, Expr::u32(count)), body)],
    )
}

/// The configuration with just enough 64-wide workgroups for `n` invocations.
pub(crate) fn grid_for(n: u32) -> DispatchConfig {
    DispatchConfig::new().with_grid([n.div_ceil(64).max(1), 1, 1])
}

/// Every ordered pair of `values`.
pub(crate) fn all_pairs<T: Copy>(values: &[T]) -> Vec<(T, T)> {
    values
        .iter()
        .flat_map(|&a| values.iter().map(move |&b| (a, b)))
        .collect()
}
