//! Resident buffers kept between calls, so a function does not create device buffers for every
//! batch.
//!
//! A [`Set`] is one buffer per bound buffer of a function's program, sized for a capacity (rows);
//! a call takes a set of its capacity, or makes one, and gives it back when the dispatch
//! succeeded. Several calls run at once (DataFusion evaluates partitions on several threads), so
//! sets are taken, never shared. At most [`MAX_SETS`] are kept; the least recently given back
//! goes first. A call that fails keeps its set out of the pool, so a buffer of a lost device is
//! never reused.

use std::sync::{Mutex, PoisonError};

use vyre::{BackendError, DeviceBuffer, VyreBackend};

/// The most buffer sets a pool keeps.
pub(crate) const MAX_SETS: usize = 8;

/// One resident buffer per bound buffer of a program, for dispatches of `capacity` rows.
#[derive(Debug)]
pub(crate) struct Set {
    /// The rows every buffer holds.
    pub(crate) capacity: u32,
    /// The buffers, in the program's declaration order of bound buffers.
    pub(crate) buffers: Vec<DeviceBuffer>,
}

/// The sets a function keeps.
#[derive(Debug, Default)]
pub(crate) struct Pool {
    sets: Mutex<Vec<Set>>,
}

impl Pool {
    /// A set for `capacity` rows with buffers of `bytes` bytes: a kept one, else new ones made on
    /// `backend`.
    pub(crate) fn take(
        &self,
        backend: &dyn VyreBackend,
        capacity: u32,
        bytes: &[u64],
    ) -> Result<Set, BackendError> {
        {
            let mut sets = self.sets.lock().unwrap_or_else(PoisonError::into_inner);
            if let Some(at) = sets.iter().rposition(|s| s.capacity == capacity) {
                return Ok(sets.remove(at));
            }
        }
        let buffers = bytes
            .iter()
            .map(|&b| backend.create_buffer(b))
            .collect::<Result<_, _>>()?;
        Ok(Set { capacity, buffers })
    }

    /// Keeps `set` for a later call.
    pub(crate) fn give(&self, set: Set) {
        let mut sets = self.sets.lock().unwrap_or_else(PoisonError::into_inner);
        if sets.len() == MAX_SETS {
            sets.remove(0);
        }
        sets.push(set);
    }

    /// The number of sets kept (for tests).
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.sets
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_set_is_reused_and_the_pool_stays_bounded() {
        let backend = vyre::ReferenceBackend::new();
        let pool = Pool::default();
        let set = pool.take(&backend, 64, &[256, 256]).expect("buffers");
        assert_eq!(set.buffers.len(), 2);
        pool.give(set);
        let again = pool.take(&backend, 64, &[256, 256]).expect("kept");
        assert_eq!(pool.len(), 0, "the kept set was taken");
        pool.give(again);
        for capacity in 0..20 {
            pool.give(Set {
                capacity,
                buffers: Vec::new(),
            });
        }
        assert_eq!(pool.len(), MAX_SETS);
    }
}
