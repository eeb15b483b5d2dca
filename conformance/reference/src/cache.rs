//! A small bounded cache of compiled programs, keyed by their structural fingerprint.

use std::sync::{Arc, Mutex};

use vyre_foundation::ir::Fingerprint;

use crate::compile::Compiled;

/// How many compiled programs the cache keeps.
pub(crate) const CACHE_CAPACITY: usize = 64;

/// Most recently used last; the oldest entry is evicted when full.
#[derive(Debug, Default)]
pub(crate) struct ProgramCache {
    entries: Mutex<Vec<(Fingerprint, Arc<Compiled>)>>,
}

impl ProgramCache {
    /// The cached compilation of the program with fingerprint `key`.
    pub(crate) fn get(&self, key: Fingerprint) -> Option<Arc<Compiled>> {
        let mut entries = self.entries.lock().ok()?;
        let at = entries.iter().position(|(k, _)| *k == key)?;
        let entry = entries.remove(at);
        let code = Arc::clone(&entry.1);
        entries.push(entry);
        Some(code)
    }

    /// Remembers `code` under `key`, evicting the least recently used entry when full.
    pub(crate) fn insert(&self, key: Fingerprint, code: Arc<Compiled>) {
        let Ok(mut entries) = self.entries.lock() else {
            return;
        };
        entries.retain(|(k, _)| *k != key);
        if entries.len() >= CACHE_CAPACITY {
            entries.remove(0);
        }
        entries.push((key, code));
    }

    /// The number of cached programs.
    pub(crate) fn len(&self) -> usize {
        self.entries.lock().map_or(0, |e| e.len())
    }
}
