//! The pipeline cache: compiled pipelines keyed by program fingerprint, launch form, driver
//! workarounds, IR passes, module checks and device generation, bounded, evicting the least recently used pipeline when full (as the reference
//! backend's cache does), and counting its hits, misses and evictions.

use std::collections::HashMap;
use std::sync::Arc;

use vyre_foundation::ir::Fingerprint;

use crate::lower::Form;
use crate::pipeline::Compiled;
use crate::stats::CacheCounts;
use crate::workarounds::Workarounds;

/// The most pipelines the cache keeps.
pub(crate) const CACHE_LIMIT: usize = 256;

/// The cache key: the program's structure, the launch form, the driver workarounds and the IR
/// passes the module is lowered with, whether it was compiled without wgpu's bounds checks, and
/// the device generation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct PipelineKey {
    pub(crate) fingerprint: Fingerprint,
    pub(crate) form: Form,
    pub(crate) workarounds: Workarounds,
    /// The XXH3-64 of the IR passes' key (`Pipeline::key`).
    pub(crate) passes: u64,
    /// Compiled without wgpu's bounds checks (see `trusted`).
    pub(crate) trusted_modules: bool,
    pub(crate) generation: u64,
}

/// One cached pipeline and when it was last used.
struct Entry<V> {
    value: V,
    used: u64,
}

/// A bounded map from [`PipelineKey`] to compiled pipeline, least recently used out first. Generic
/// only so that its eviction rules can be tested without a device.
pub(crate) struct PipelineCache<V = Arc<Compiled>> {
    entries: HashMap<PipelineKey, Entry<V>>,
    limit: usize,
    /// A use counter: every hit and insertion takes the next value, so the smallest is the oldest.
    clock: u64,
    counts: CacheCounts,
}

impl<V: Clone> PipelineCache<V> {
    /// An empty cache holding at most `limit` pipelines (at least one).
    pub(crate) fn new(limit: usize) -> Self {
        Self {
            entries: HashMap::new(),
            limit: limit.max(1),
            clock: 0,
            counts: CacheCounts::default(),
        }
    }

    /// The pipeline for `key`, when `accept` takes it: the caller checks that it was compiled from
    /// exactly its program, so a fingerprint collision is a miss, never another program's pipeline.
    /// Counts the hit or the miss.
    pub(crate) fn get(&mut self, key: &PipelineKey) -> Option<V> {
        self.clock += 1;
        match self.entries.get_mut(key) {
            Some(entry) => {
                entry.used = self.clock;
                self.counts.hits += 1;
                Some(entry.value.clone())
            }
            None => {
                self.counts.misses += 1;
                None
            }
        }
    }

    /// Caches `compiled` under `key`. When full, pipelines of other device generations go first
    /// (they can never be used again), then the least recently used one.
    pub(crate) fn insert(&mut self, key: PipelineKey, value: V) {
        if !self.entries.contains_key(&key) && self.entries.len() >= self.limit {
            self.entries.retain(|k, _| k.generation == key.generation);
            while self.entries.len() >= self.limit {
                let Some(victim) = self
                    .entries
                    .iter()
                    .min_by_key(|(_, e)| e.used)
                    .map(|(k, _)| *k)
                else {
                    break;
                };
                self.entries.remove(&victim);
                self.counts.evictions += 1;
            }
        }
        self.clock += 1;
        let used = self.clock;
        self.entries.insert(key, Entry { value, used });
    }

    /// Drops every pipeline made for a device generation at or below `generation` (after recovery).
    pub(crate) fn retire(&mut self, generation: u64) {
        self.entries.retain(|k, _| k.generation > generation);
    }

    /// The counts [`crate::WgpuStats`] reports.
    pub(crate) fn counts(&self) -> CacheCounts {
        CacheCounts {
            entries: self.entries.len() as u64,
            ..self.counts
        }
    }
}

#[cfg(test)]
mod tests {
    use vyre_foundation::ir::{BufferDecl, DataType, Program};

    use super::{PipelineCache, PipelineKey};
    use crate::lower::Form;
    use crate::workarounds::Workarounds;

    fn key(n: u32, generation: u64) -> PipelineKey {
        let program = Program::new(
            vec![BufferDecl::output("out", 0, DataType::U32).with_count(n + 1)],
            [1, 1, 1],
            vec![],
        );
        PipelineKey {
            fingerprint: program.fingerprint(),
            form: Form::default(),
            workarounds: Workarounds::NONE,
            passes: 0,
            trusted_modules: true,
            generation,
        }
    }

    #[test]
    fn a_full_cache_evicts_the_least_recently_used_pipeline() {
        let mut cache = PipelineCache::new(3);
        for n in 0..3 {
            cache.insert(key(n, 0), n);
        }
        // Pipeline 0 is used again, so 1 is now the oldest.
        assert_eq!(cache.get(&key(0, 0)), Some(0));
        cache.insert(key(3, 0), 3);
        assert_eq!(cache.get(&key(1, 0)), None);
        for n in [0, 2, 3] {
            assert_eq!(cache.get(&key(n, 0)), Some(n), "{n}");
        }
        let counts = cache.counts();
        assert_eq!((counts.entries, counts.hits, counts.misses), (3, 4, 1));
        assert_eq!(counts.evictions, 1);
    }

    #[test]
    fn pipelines_of_an_old_device_go_before_any_live_one_and_are_no_eviction() {
        let mut cache = PipelineCache::new(2);
        cache.insert(key(0, 0), 0);
        cache.insert(key(1, 1), 1);
        cache.insert(key(2, 1), 2);
        assert_eq!(cache.get(&key(1, 1)), Some(1));
        assert_eq!(cache.counts().evictions, 0);
        cache.retire(1);
        assert_eq!(cache.counts().entries, 0);
    }
}
