//! `Kernel`: a user's program checked once to be a function of its argument columns, and the
//! program each dispatch runs.
//!
//! The rule ([`Kernel::new`]): the program validates, is elementwise
//! (`vyre_foundation::elementwise`: every storage access indexes at exactly `gid.x`), has one
//! `read` buffer per argument (in declaration order), exactly one `output` buffer, and no
//! `read_write` or `uniform` buffer (workgroup buffers are private scratch and allowed). Then
//! invocation `gid.x = i` computes row `i` of the result from row `i` of each argument and from
//! nothing else, which is what a scalar function of a row is.
//!
//! The counts the program declares are placeholders: each dispatch runs [`Kernel::sized`], the
//! program with every `read` and `output` buffer's count set to the dispatch's capacity (a power
//! of two at least as large as the batch, so a backend compiles a few sizes, not one per batch
//! length). Rows past the batch compute on whatever the buffers hold and are never read back;
//! an elementwise program cannot let them change the batch's rows.

use vyre::ir::{BufferAccess, DataType, Program};
use vyre_foundation::elementwise::is_elementwise;

use crate::error::UdfError;

/// A checked elementwise program: its argument types and its result type.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Kernel {
    /// The user's program, as given.
    program: Program,
    /// The element type of each `read` buffer, in declaration order: the arguments.
    args: Vec<DataType>,
    /// The element type of the `output` buffer: the result.
    output: DataType,
}

impl Kernel {
    /// Checks `program` against the rule in the module docs; `name` names the function in errors.
    pub(crate) fn new(name: &str, program: Program) -> Result<Self, UdfError> {
        let refuse = |reason: String| UdfError::NotElementwise {
            name: name.to_string(),
            reason,
        };
        let evidence = vyre::validate(&program).map_err(|errors| UdfError::InvalidProgram {
            name: name.to_string(),
            errors: Box::new(errors),
        })?;
        let mut args = Vec::new();
        let mut outputs = Vec::new();
        for decl in &program.buffers {
            match decl.access {
                BufferAccess::Read => args.push(decl.element),
                BufferAccess::Output => outputs.push(decl.element),
                BufferAccess::Workgroup => {}
                BufferAccess::ReadWrite | BufferAccess::Uniform => {
                    return Err(refuse(format!(
                        "buffer `{}` is {:?}; a function reads its arguments and writes one output",
                        decl.name, decl.access
                    )));
                }
            }
        }
        let output = match outputs.as_slice() {
            [one] => *one,
            other => {
                return Err(refuse(format!(
                    "it has {} `output` buffers, and a function has one result column",
                    other.len()
                )));
            }
        };
        if !is_elementwise(&evidence) {
            return Err(refuse(
                "some load, store or atomic indexes a storage buffer with something other than `gid.x`, or it uses subgroup operations".to_string(),
            ));
        }
        drop(evidence);
        Ok(Self {
            program,
            args,
            output,
        })
    }

    /// The user's program.
    pub(crate) fn program(&self) -> &Program {
        &self.program
    }

    /// The argument types, in order.
    pub(crate) fn args(&self) -> &[DataType] {
        &self.args
    }

    /// The result type.
    pub(crate) fn output(&self) -> DataType {
        self.output
    }

    /// The program one dispatch of `capacity` rows runs: every bound buffer holds `capacity`
    /// elements, and the output is read back whole (the caller reads only the batch's rows).
    pub(crate) fn sized(&self, capacity: u32) -> Program {
        let mut program = self.program.clone();
        for decl in &mut program.buffers {
            match decl.access {
                BufferAccess::Read | BufferAccess::Output => {
                    decl.count = capacity;
                    decl.output_byte_range = None;
                }
                BufferAccess::Workgroup | BufferAccess::ReadWrite | BufferAccess::Uniform => {}
            }
        }
        program
    }

    /// The position among the bound buffers of the output buffer.
    pub(crate) fn output_position(&self) -> usize {
        self.program
            .buffers
            .iter()
            .filter(|d| d.access.is_bound())
            .position(|d| d.access == BufferAccess::Output)
            .unwrap_or(self.args.len())
    }

    /// The position among the bound buffers of each argument's buffer, in argument order.
    pub(crate) fn arg_positions(&self) -> Vec<usize> {
        self.program
            .buffers
            .iter()
            .filter(|d| d.access.is_bound())
            .enumerate()
            .filter(|(_, d)| d.access == BufferAccess::Read)
            .map(|(slot, _)| slot)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use vyre::ir::{BufferDecl, Expr, Node};

    use super::*;

    fn add() -> Program {
        Program::new(
            vec![
                BufferDecl::read("a", 0, DataType::I64),
                BufferDecl::output("y", 1, DataType::F32).with_count(1),
                BufferDecl::read("b", 2, DataType::U32),
            ],
            [64, 1, 1],
            vec![Node::store(
                "y",
                Expr::gid_x(),
                Expr::cast(
                    DataType::F32,
                    Expr::load("a", Expr::gid_x())
                        + Expr::cast(DataType::I64, Expr::load("b", Expr::gid_x())),
                ),
            )],
        )
    }

    #[test]
    fn arguments_are_the_read_buffers_in_declaration_order() {
        let kernel = Kernel::new("f", add()).expect("elementwise");
        assert_eq!(kernel.args(), [DataType::I64, DataType::U32]);
        assert_eq!(kernel.output(), DataType::F32);
        assert_eq!(kernel.arg_positions(), [0, 2]);
        assert_eq!(kernel.output_position(), 1);
    }

    #[test]
    fn a_sized_program_still_validates() {
        let kernel = Kernel::new("f", add()).expect("elementwise");
        let sized = kernel.sized(1024);
        assert!(sized.buffers.iter().all(|b| b.count == 1024));
        assert!(vyre::validate(&sized).is_ok());
    }

    #[test]
    fn two_outputs_are_refused() {
        let program = Program::new(
            vec![
                BufferDecl::output("y", 0, DataType::U32).with_count(4),
                BufferDecl::output("z", 1, DataType::U32).with_count(4),
            ],
            [64, 1, 1],
            vec![],
        );
        let err = Kernel::new("two", program).expect_err("two outputs");
        assert!(err.to_string().contains("2 `output` buffers"), "{err}");
    }
}
