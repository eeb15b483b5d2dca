//! The checker: one walk over the program that types every expression, resolves every name and
//! tracks which values and which control flow are uniform across a workgroup.

use crate::ir::{DataType, Features, Program};
mod declarations;
mod expressions;
mod scope;
mod statements;
mod subgroup;
mod tile;
mod types;

use crate::validate::errors::{ValidationError, ValidationErrorKind as K};
use crate::validate::evidence::{
    AddrTable, BufferUse, ExprFacts, NodeFacts, Resolved, Validated, VarFacts, VarId, address,
};

pub(crate) use scope::is_identifier;
pub use types::expr_type;

/// A typed expression: its type, whether it is the same for every invocation of a workgroup
/// (`uniform`) or for every lane of each subgroup (`subgroup`, implied by `uniform`), and what it
/// names.
#[derive(Clone, Copy, Debug)]
struct Typed {
    ty: DataType,
    uniform: bool,
    subgroup: bool,
    resolved: Resolved,
}

impl Typed {
    /// A value that names no variable or buffer, subgroup-uniform exactly when it is uniform.
    fn value(ty: DataType, uniform: bool) -> Self {
        Self::value_in(ty, uniform, uniform)
    }

    /// A value that names no variable or buffer, `uniform` across the workgroup and `subgroup`
    /// across each subgroup.
    fn value_in(ty: DataType, uniform: bool, subgroup: bool) -> Self {
        Self {
            ty,
            uniform,
            subgroup: subgroup || uniform,
            resolved: Resolved::Nothing,
        }
    }
}

pub(crate) struct Checker<'p> {
    program: &'p Program,
    /// Variables by declaration order (a variable's [`crate::validate::VarId`] is its position);
    /// kept across fixpoint passes so uniformity facts accumulate. `uniform` turns false once any
    /// assignment may give invocations of one workgroup different values.
    vars: Vec<VarFacts>,
    next_var: usize,
    scopes: Vec<Vec<(String, usize)>>,
    errors: Vec<ValidationError>,
    changed: bool,
    /// Set once an invocation may have returned while others go on.
    divergence: Option<&'static str>,
    /// Loop bodies around the statement being checked.
    loop_depth: usize,
    /// Set once a `break` or `continue` of the innermost loop may have run for only some
    /// invocations: the rest of the current iteration is non-uniform.
    iteration_exit: Option<&'static str>,
    /// Set once a `break` of the innermost loop may have run for only some invocations: later
    /// iterations are non-uniform too.
    loop_broken: Option<&'static str>,
    path: String,
    /// Length of `path` at the root of the expression being checked, and whether that expression was
    /// already reported too deep (one report per expression, at its root).
    expr_root: usize,
    expr_too_deep: bool,
    /// The evidence of the current pass (see `evidence`).
    expr_facts: AddrTable<ExprFacts>,
    node_facts: AddrTable<NodeFacts>,
    uses: Vec<BufferUse>,
    /// The optional device features the program uses.
    features: Features,
    /// Why the control flow of the expression being checked is not workgroup-uniform, if it is
    /// not: subgroup operations are refused there.
    control: Option<&'static str>,
    /// Set once a subgroup use in a multi-dimensional workgroup was reported (once is enough).
    subgroup_shape_reported: bool,
    /// Set once a tile statement in a multi-dimensional workgroup was reported.
    tile_shape_reported: bool,
    /// The tiles the statement being checked names, recorded with its facts.
    node_tiles: [Option<VarId>; 4],
}

impl<'p> Checker<'p> {
    pub(crate) fn new(program: &'p Program) -> Self {
        Self {
            program,
            vars: Vec::new(),
            next_var: 0,
            scopes: Vec::new(),
            errors: Vec::new(),
            changed: false,
            divergence: None,
            loop_depth: 0,
            iteration_exit: None,
            loop_broken: None,
            path: String::new(),
            expr_root: 0,
            expr_too_deep: false,
            expr_facts: AddrTable::new(),
            node_facts: AddrTable::new(),
            uses: vec![BufferUse::default(); program.buffers.len()],
            features: Features::NONE,
            control: None,
            subgroup_shape_reported: false,
            tile_shape_reported: false,
            node_tiles: [None; 4],
        }
    }

    /// Runs passes until the uniformity facts are stable, then returns the last pass's errors and
    /// evidence (complete only where there are no errors).
    pub(crate) fn run(mut self) -> (Vec<ValidationError>, Validated<'p>) {
        loop {
            self.errors.clear();
            self.expr_facts.clear();
            self.node_facts.clear();
            self.uses.fill(BufferUse::default());
            self.features = Features::NONE;
            self.subgroup_shape_reported = false;
            self.tile_shape_reported = false;
            self.changed = false;
            self.next_var = 0;
            self.divergence = None;
            self.loop_depth = 0;
            self.iteration_exit = None;
            self.loop_broken = None;
            self.check_declarations();
            self.scopes.push(Vec::new());
            self.path.clear();
            self.path.push_str("body");
            self.check_body(&self.program.body, None, 0);
            self.scopes.clear();
            if !self.changed {
                let evidence = Validated::new(
                    self.program,
                    self.expr_facts.finish(),
                    self.node_facts.finish(),
                    self.vars,
                    self.uses,
                    self.features,
                );
                return (self.errors, evidence);
            }
        }
    }

    fn record_expr(&mut self, expr: &crate::ir::Expr, typed: Typed) {
        self.features.insert(Features::of_type(typed.ty));
        let facts = ExprFacts {
            ty: typed.ty,
            uniform: typed.uniform,
            subgroup_uniform: typed.subgroup,
            resolved: typed.resolved,
        };
        self.expr_facts.push(address(expr), facts);
    }

    fn record_node(&mut self, node: &crate::ir::Node, resolved: Resolved, uniform_control: bool) {
        let facts = NodeFacts {
            resolved,
            uniform_control,
            tiles: std::mem::take(&mut self.node_tiles),
        };
        self.node_facts.push(address(node), facts);
    }

    /// Notes a use of buffer `index`.
    fn used(&mut self, index: usize, mark: impl FnOnce(&mut BufferUse)) {
        if let Some(u) = self.uses.get_mut(index) {
            mark(u);
        }
    }

    /// Notes that the program needs `features` of the device.
    fn needs(&mut self, features: Features) {
        self.features.insert(features);
    }

    fn error(&mut self, kind: K) {
        self.errors.push(ValidationError {
            path: self.path.clone(),
            kind,
        });
    }

    fn error_at(&mut self, path: String, kind: K) {
        self.errors.push(ValidationError { path, kind });
    }
}
