//! Resident buffers: each lives on one member, and moves only when a step needs it elsewhere.
//!
//! A new buffer goes to the member holding the fewest resident bytes. A sequence runs on the one
//! member that holds most of its steps' bytes; the steps' other buffers move there first (read
//! back from their member, written to a new buffer on this one), and stay there. A buffer whose
//! member was dropped is lost with its device, as on one backend: calls on it report
//! [`BackendError::DeviceLost`].

use std::ops::Range;
use std::sync::atomic::Ordering;
use std::sync::{Mutex, MutexGuard};

use vyre_driver::{BackendError, DeviceBuffer, Step, VyreBackend};

use super::Sharded;

/// What a `Sharded` buffer holds: where it lives now.
struct Placed {
    place: Mutex<Place>,
}

struct Place {
    member: usize,
    buffer: DeviceBuffer,
}

impl Sharded {
    pub(super) fn create_placed(&self, bytes: u64) -> Result<DeviceBuffer, BackendError> {
        let _resident = self.resident_turn();
        let m = self
            .alive()
            .into_iter()
            .min_by_key(|&i| self.members[i].resident_bytes.load(Ordering::Relaxed))
            .ok_or_else(|| self.none_left())?;
        let buffer = self.members[m].backend.create_buffer(bytes)?;
        self.members[m]
            .resident_bytes
            .fetch_add(bytes, Ordering::Relaxed);
        Ok(DeviceBuffer::new(
            self.owner,
            bytes,
            Placed {
                place: Mutex::new(Place { member: m, buffer }),
            },
        ))
    }

    pub(super) fn write_placed(
        &self,
        buffer: &DeviceBuffer,
        offset: u64,
        data: &[u8],
    ) -> Result<(), BackendError> {
        let _resident = self.resident_turn();
        let place = self.place_of(buffer)?;
        self.members[place.member]
            .backend
            .write_buffer(&place.buffer, offset, data)
    }

    pub(super) fn read_placed(
        &self,
        buffer: &DeviceBuffer,
        range: Range<u64>,
    ) -> Result<Vec<u8>, BackendError> {
        let _resident = self.resident_turn();
        let place = self.place_of(buffer)?;
        self.members[place.member]
            .backend
            .read_buffer(&place.buffer, range)
    }

    /// Runs `steps` (already checked) on one member, moving buffers there as needed.
    pub(super) fn sequence_placed(&self, steps: &[Step<'_>]) -> Result<(), BackendError> {
        let _resident = self.resident_turn();
        // Where each step's buffers live, and which alive member holds most of their bytes.
        let mut held = vec![0u64; self.members.len()];
        for step in steps {
            for buffer in step.buffers {
                let place = self.place_of(buffer)?;
                held[place.member] += buffer.len();
            }
        }
        let target = self
            .alive()
            .into_iter()
            .max_by_key(|&i| (held[i], std::cmp::Reverse(i)))
            .ok_or_else(|| self.none_left())?;
        let mut inner: Vec<Vec<DeviceBuffer>> = Vec::with_capacity(steps.len());
        for step in steps {
            let mut buffers = Vec::with_capacity(step.buffers.len());
            for buffer in step.buffers {
                buffers.push(self.move_to(buffer, target)?);
            }
            inner.push(buffers);
        }
        let refs: Vec<Vec<&DeviceBuffer>> = inner.iter().map(|b| b.iter().collect()).collect();
        let inner_steps: Vec<Step<'_>> = steps
            .iter()
            .zip(&refs)
            .map(|(step, buffers)| Step::new(step.program, buffers, step.config))
            .collect();
        let member = &self.members[target];
        member.in_flight.fetch_add(1, Ordering::Relaxed);
        let result = member.backend.dispatch_sequence(&inner_steps);
        member.in_flight.fetch_sub(1, Ordering::Relaxed);
        match result {
            Ok(()) => {
                member.dispatches.fetch_add(1, Ordering::Relaxed);
                Ok(())
            }
            Err(error) if error.is_device_lost() => {
                // The buffers went with the device: the error stands, as on one backend, but the
                // member is recovered (or dropped) so later calls run.
                let message = error.to_string();
                let _ = self.after_failure(target, error);
                Err(BackendError::device_lost(message))
            }
            Err(error) => Err(error),
        }
    }

    /// `buffer`'s storage on member `target`, moved there first when it lives elsewhere.
    fn move_to(&self, buffer: &DeviceBuffer, target: usize) -> Result<DeviceBuffer, BackendError> {
        let placed = self.placed(buffer)?;
        let mut place = lock(&placed.place);
        if place.member != target {
            let source = &self.members[place.member];
            if !source.alive.load(Ordering::SeqCst) {
                return Err(self.lost_buffer(buffer, place.member));
            }
            let bytes = source.backend.read_buffer(&place.buffer, 0..buffer.len())?;
            let destination = &self.members[target];
            let moved = destination.backend.create_buffer(buffer.len())?;
            destination.backend.write_buffer(&moved, 0, &bytes)?;
            source.resident_bytes.fetch_sub(
                buffer
                    .len()
                    .min(source.resident_bytes.load(Ordering::Relaxed)),
                Ordering::Relaxed,
            );
            destination
                .resident_bytes
                .fetch_add(buffer.len(), Ordering::Relaxed);
            *place = Place {
                member: target,
                buffer: moved,
            };
        }
        Ok(place.buffer.clone())
    }

    /// Where `buffer` lives, refusing another backend's buffer and one lost with its member.
    fn place_of(&self, buffer: &DeviceBuffer) -> Result<Place, BackendError> {
        let placed = self.placed(buffer)?;
        let place = lock(&placed.place);
        if !self.members[place.member].alive.load(Ordering::SeqCst) {
            return Err(self.lost_buffer(buffer, place.member));
        }
        Ok(Place {
            member: place.member,
            buffer: place.buffer.clone(),
        })
    }

    fn placed<'b>(&self, buffer: &'b DeviceBuffer) -> Result<&'b Placed, BackendError> {
        buffer.storage_of::<Placed>(self.owner, "sharded")
    }

    fn lost_buffer(&self, buffer: &DeviceBuffer, member: usize) -> BackendError {
        BackendError::device_lost(format!(
            "this {}-byte buffer lived on member {member} ({}), which lost its device and was dropped; its contents are gone. Fix: create the buffer again and rewrite its data.",
            buffer.len(),
            self.members[member].name
        ))
    }

    fn resident_turn(&self) -> MutexGuard<'_, ()> {
        lock(&self.resident)
    }
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}
