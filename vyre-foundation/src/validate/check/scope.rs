//! Scopes: variables by declaration, each with the id the evidence numbers it by.

use crate::ir::DataType;
use crate::validate::errors::ValidationErrorKind as K;

use super::Checker;
use crate::validate::evidence::{VarFacts, VarId};

impl Checker<'_> {
    pub(super) fn lookup(&self, name: &str) -> Option<usize> {
        self.scopes
            .iter()
            .rev()
            .flat_map(|scope| scope.iter().rev())
            .find(|(n, _)| n == name)
            .map(|&(_, id)| id)
    }

    /// Declares `name` in the innermost scope and returns its id; `uniform` and `subgroup` say
    /// whether its value is the same across the workgroup and across each subgroup.
    pub(super) fn declare(
        &mut self,
        name: &str,
        ty: DataType,
        (uniform, subgroup): (bool, bool),
        loop_var: bool,
    ) -> VarId {
        self.declare_with(name, ty, (uniform, subgroup), loop_var, None)
    }

    /// Declares `name` as [`Checker::declare`] does; `array` is the element count of a private
    /// array.
    pub(super) fn declare_with(
        &mut self,
        name: &str,
        ty: DataType,
        (uniform, subgroup): (bool, bool),
        loop_var: bool,
        array: Option<u32>,
    ) -> VarId {
        let subgroup = subgroup || uniform;
        if !is_identifier(name) {
            self.error(K::InvalidName {
                name: name.to_owned(),
            });
        }
        if self.lookup(name).is_some() {
            self.error(K::VariableRedeclared {
                name: name.to_owned(),
            });
        }
        let id = self.next_var;
        self.next_var += 1;
        if let Some(info) = self.vars.get_mut(id) {
            // A later pass: keep what earlier passes learnt about later assignments.
            info.ty = ty;
            info.loop_var = loop_var;
            info.array = array;
            info.tile = None;
            if info.uniform && !uniform {
                info.uniform = false;
                self.changed = true;
            }
            if info.subgroup_uniform && !subgroup {
                info.subgroup_uniform = false;
                self.changed = true;
            }
        } else {
            self.vars.push(VarFacts {
                ty,
                uniform,
                subgroup_uniform: subgroup,
                loop_var,
                assigned: false,
                array,
                tile: None,
            });
        }
        if let Some(scope) = self.scopes.last_mut() {
            scope.push((name.to_owned(), id));
        }
        VarId::new(id)
    }
}

/// True for ASCII identifiers: a letter or `_`, then letters, digits or `_`, at most 64 bytes.
pub(crate) fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    let Some(first) = chars.next() else {
        return false;
    };
    name.len() <= 64
        && (first.is_ascii_alphabetic() || first == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}
