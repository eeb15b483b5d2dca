//! A small bounded cache of compiled programs, keyed by their fingerprint and checked by equality.

use std::sync::{Arc, Mutex};

use vyre_foundation::ir::{Fingerprint, Program};

use crate::compile::Compiled;

/// How many compiled programs the cache keeps.
pub(crate) const CACHE_CAPACITY: usize = 64;

/// One compiled program and the program it was compiled from.
#[derive(Debug)]
struct Entry {
    key: Fingerprint,
    /// Kept so a hit can be confirmed: a fingerprint is a 128-bit hash, not a proof of equality,
    /// and running another program's code would be a silent wrong answer.
    program: Arc<Program>,
    code: Arc<Compiled>,
}

impl Entry {
    fn is(&self, key: Fingerprint, program: &Program) -> bool {
        self.key == key && *self.program == *program
    }
}

/// Most recently used last; the oldest entry is evicted when full.
#[derive(Debug, Default)]
pub(crate) struct ProgramCache {
    entries: Mutex<Vec<Entry>>,
}

impl ProgramCache {
    /// The cached compilation of `program`, whose fingerprint is `key`. An entry with the same
    /// fingerprint but a different program is a miss.
    pub(crate) fn get(&self, key: Fingerprint, program: &Program) -> Option<Arc<Compiled>> {
        let mut entries = self.entries.lock().ok()?;
        let at = entries.iter().position(|e| e.is(key, program))?;
        let entry = entries.remove(at);
        let code = Arc::clone(&entry.code);
        entries.push(entry);
        Some(code)
    }

    /// Remembers `code` as the compilation of `program` (fingerprint `key`), evicting the least
    /// recently used entry when full.
    pub(crate) fn insert(&self, key: Fingerprint, program: &Program, code: Arc<Compiled>) {
        let Ok(mut entries) = self.entries.lock() else {
            return;
        };
        entries.retain(|e| !e.is(key, program));
        if entries.len() >= CACHE_CAPACITY {
            entries.remove(0);
        }
        entries.push(Entry {
            key,
            program: Arc::new(program.clone()),
            code,
        });
    }

    /// The number of cached programs.
    pub(crate) fn len(&self) -> usize {
        self.entries.lock().map_or(0, |e| e.len())
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use vyre_foundation::ir::{BufferDecl, DataType, Expr, Node, Program};

    use super::ProgramCache;

    fn program(value: u32) -> Program {
        Program::new(
            vec![BufferDecl::output("out", 0, DataType::U32).with_count(1)],
            [1, 1, 1],
            vec![Node::store("out", Expr::u32(0), Expr::u32(value))],
        )
    }

    #[test]
    fn a_fingerprint_collision_is_a_miss_not_another_programs_code() {
        let cache = ProgramCache::default();
        let (one, two) = (program(1), program(2));
        let code = Arc::new(
            crate::compile::compile(&vyre_foundation::validate(&one).expect("valid"))
                .unwrap_or_else(|e| panic!("{e}")),
        );
        // Pretend `two` collides with `one`: same key, different program.
        let key = one.fingerprint();
        cache.insert(key, &one, Arc::clone(&code));
        assert!(cache.get(key, &two).is_none());
        assert!(cache.get(key, &one).is_some_and(|c| Arc::ptr_eq(&c, &code)));
        // Both can be cached under the one key, and each finds its own code.
        let code_two = Arc::new(
            crate::compile::compile(&vyre_foundation::validate(&two).expect("valid"))
                .unwrap_or_else(|e| panic!("{e}")),
        );
        cache.insert(key, &two, Arc::clone(&code_two));
        assert_eq!(cache.len(), 2);
        assert!(
            cache
                .get(key, &two)
                .is_some_and(|c| Arc::ptr_eq(&c, &code_two))
        );
        assert!(cache.get(key, &one).is_some_and(|c| Arc::ptr_eq(&c, &code)));
    }
}
